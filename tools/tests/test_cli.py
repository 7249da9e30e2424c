# SPDX-License-Identifier: GPL-2.0
"""Tests of the rbti command line against the fake driver."""

import errno
import io
import os

import pytest

from rbtilib import cli
from rbtilib.driver import DebugfsError
from rbtilib.shrink import read_repro
from tests_support.fake import FakeDebugfs
from tests_support.trees import load_script
from tests_support.shared import run

rbti = cli


class Unavailable(FakeDebugfs):
    """A driver whose debugfs is missing: must not be needed."""

    def available(self) -> bool:
        return False

    def trees(self):
        raise AssertionError("debugfs read")


def populated():
    driver = FakeDebugfs()
    for info in driver.trees():
        driver.insert(info.name, list(range(0, 60, 2)))
    return driver


def test_trees(capsys):
    status, out, _ = run(["trees"], FakeDebugfs(), capsys)
    assert status == 0
    assert "santos_aug santos unique,count,augmented\n" in out
    assert len(out.splitlines()) == 7


def test_dump_raw_and_pretty(capsys):
    driver = populated()
    status, out, _ = run(["dump", "santos_aug", "--raw"], driver, capsys)
    assert status == 0 and out == driver.dump_text("santos_aug")
    status, out, _ = run(["dump", "santos_aug"], driver, capsys)
    assert status == 0 and "30 nodes" in out and " aug " in out


def test_unknown_tree_is_usage_error(capsys):
    status, _, err = run(["dump", "nope"], FakeDebugfs(), capsys)
    assert status == 2 and "unknown tree nope" in err


def test_check_ok_and_failure_names_node_and_rule(capsys):
    driver = populated()
    status, out, _ = run(["check", "--all"], driver, capsys)
    assert status == 0 and out.count(": ok") == 7
    driver.set_param("allow_corrupt", "1")
    tree = driver.dump("santos")
    victim = list(tree.nodes.values())[3]
    driver.corrupt("santos", f"parent {victim.key}")
    status, out, _ = run(["check", "santos", "mainline"], driver, capsys)
    assert status == 1
    assert f"santos: fail parent node #{victim.id} (key {victim.key}): " \
        "parent link is " in out
    assert "mainline: ok" in out


def test_check_needs_trees_or_all(capsys):
    status, _, err = run(["check"], FakeDebugfs(), capsys)
    assert status == 2 and "--all" in err and err.startswith("usage: rbti check")


def test_fuzz_ok_and_failure(capsys, tmp_path, monkeypatch):
    status, out, _ = run(["fuzz", "--all", "--ops", "2000", "--check-every", "500",
                          "--keys", "0:30", "--progress", "0"],
                         FakeDebugfs(), capsys)
    assert status == 0 and out.endswith("ok\n")
    # A random seed, printed first and in the summary.
    seed = int(out.splitlines()[0].split()[1])
    assert out.splitlines()[0] == f"seed {seed}" and f"seed {seed}" in \
        out.splitlines()[-2]

    def fault(tree, op, key, line):
        return "ENOENT" if op == "f" else line

    driver = FakeDebugfs(fault=fault)
    status, out, _ = run(["fuzz", "santos", "mainline", "--ops",
                          "2000", "--out", str(tmp_path), "--progress", "0",
                          "--seed", "1"], driver, capsys)
    assert status == 1 and "FAIL santos: mismatch" in out
    repro = next(tmp_path.glob("santos-seed1.json"))
    assert read_repro(str(repro))["ops"][0][0] in ("i", "I")
    status, out, _ = run(["replay", str(repro)], driver, capsys)
    assert status == 1 and "FAIL" in out
    status, out, _ = run(["replay", str(repro)], FakeDebugfs(), capsys)
    assert status == 0 and "does not reproduce" in out


def test_fuzz_hands_the_fuzzer_rbtivizs_writers(capsys, tmp_path):
    """rbtilib never imports rbtiviz: rbti hands the fuzzer its flipbook
    (and snapshot) writers, so --snapshots-every still writes frames."""
    shim = load_script(os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "rbti"), "rbti_shim")
    status = rbti.main(["fuzz", "santos", "--ops", "300", "--progress", "0",
                        "--snapshots-every", "100", "--out", str(tmp_path)],
                       FakeDebugfs(), fuzz_writers=shim.viz_writers)
    _, err = capsys.readouterr()
    assert status == 0, err
    assert "no flipbook writer" not in err
    assert (tmp_path / "santos" / "frames.json").exists()


def test_fuzz_jobs(capsys, tmp_path):
    """--jobs N: the trees in N processes, the same verdict and repro."""
    status, out, _ = run(["fuzz", "--all", "--ops", "600", "--progress", "0",
                          "--jobs", "0"], FakeDebugfs(), capsys)
    assert status == 0 and out.endswith("ok\n")
    assert "ops (600 x 7 trees" in out

    def fault(tree, op, key, line):
        return "ENOENT" if op == "f" and tree == "mainline" else line

    status, out, _ = run(["fuzz", "santos", "mainline", "--ops",
                          "2000", "--out", str(tmp_path), "--progress", "0",
                          "--seed", "1", "--jobs", "2"],
                         FakeDebugfs(fault=fault), capsys)
    assert status == 1 and "FAIL mainline: mismatch" in out
    assert "x 2 trees in 2 processes" in out
    assert os.path.exists(tmp_path / "mainline-seed1.json")
    assert not os.path.exists(tmp_path / "santos-seed1.json")


def test_negative_key_range_is_a_value(capsys):
    """--keys -5:5 (a negative LO) is the range, not an unknown option."""
    status, _, err = run(["fuzz", "--keys", "-5:5", "santos",
                          "--ops", "300", "--seed", "3", "--progress", "0"],
                         FakeDebugfs(), capsys)
    assert status == 0, err
    status, _, err = run(["fuzz", "--keys", "-5:-9"], Unavailable(), capsys)
    assert status == 2 and "bad key range '-5:-9'" in err


@pytest.mark.parametrize("argv", [
    ["fuzz", "--keys", "9:1"], ["fuzz", "--mix", "1:1"], ["fuzz", "--keys", "5"],
    ["fuzz", "--ops", "0"], ["fuzz", "--check-every", "x"],
    ["fuzz", "--progress", "-1", "--all"], ["fuzz"], ["fuzz", "--all", "x"],
    ["fuzz", "--jobs", "-1"],
    ["check", "--max", "0", "santos"], ["check", "--all", "santos"],
    ["show"], ["show", "--max-depth", "0", "santos"], ["show", "--color", "x", "s"],
    ["show", "--frames", "2", "santos"], ["show", "--watch", "1", "-"],
    ["show", "--watch", "-1", "santos"], ["show", "--watch", "x", "santos"],
    ["show", "--watch", "1", "--frames", "0", "santos"],
])
def test_bad_arguments_are_usage_errors_before_debugfs(argv, capsys):
    """argparse rejects them (exit 2, usage line) before the module is
    looked for: a driver that is not even available must not matter."""
    status, _, err = run(argv, Unavailable(), capsys)
    assert status == 2 and err.startswith("usage: rbti "), err
    assert "not mounted" not in err and "not loaded" not in err


def test_unknown_tree_in_fuzz_is_usage_error(capsys):
    status, _, err = run(["fuzz", "bogus"], FakeDebugfs(), capsys)
    assert status == 2 and err.startswith("rbti: unknown tree bogus")


def test_replay_bad_file(tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text('{"hello": 1}')
    status, _, err = run(["replay", str(path)], Unavailable(),
                         capsys)
    assert status == 2 and "not an rbti repro" in err and "usage:" in err


MOUNTS = "sysfs /sys sysfs rw 0 0\n"


def test_environment_errors_are_told_apart(tmp_path):
    root, params = tmp_path / "dbg" / "rbtree_inspector", \
        tmp_path / "module" / "rbtree_inspector" / "parameters"
    mounted = MOUNTS + f"debugfs {tmp_path / 'dbg'} debugfs rw 0 0\n"
    (tmp_path / "dbg").mkdir()
    error = cli.environment_error
    assert error(str(root), str(params), 0, MOUNTS).startswith(
        "debugfs not mounted at ")
    assert error(str(root), str(params), 0, mounted).startswith(
        "module not loaded: ")
    params.mkdir(parents=True)
    assert "is loaded" in error(str(root), str(params), 0, mounted)
    root.mkdir()
    (root / "trees").write_text("")
    (tmp_path / "dbg").chmod(0)
    try:
        if os.geteuid() == 0:   # root reads anything: fake the EACCES
            real = os.stat

            def stat(path, *a, **k):
                if str(path).startswith(str(tmp_path / "dbg") + "/"):
                    raise PermissionError(13, "Permission denied", path)
                return real(path, *a, **k)
            os.stat = stat
        try:
            assert error(str(root), str(params), 1000, mounted).startswith(
                "not root: ")
        finally:
            if os.geteuid() == 0:
                os.stat = real
    finally:
        (tmp_path / "dbg").chmod(0o755)


def test_missing_debugfs_is_environment_error(tmp_path, capsys):
    status = rbti.main(["--root", str(tmp_path / "x"), "trees"])
    _, err = capsys.readouterr()
    assert status == 2 and err.startswith(f"rbti: debugfs not mounted at {tmp_path}")


def test_version(capsys):
    status, out, _ = run(["--version"], None, capsys)
    assert status == 0 and out.startswith("rbti ")


def test_every_subcommand_has_help_and_a_description(capsys):
    _, names = rbti.build()
    assert {"trees", "dump", "check", "show", "fuzz", "replay", "overlap",
            "stress", "kernel", "verify", "census", "doctor"} == set(names)
    for sub, sub_parser in names.items():
        assert sub_parser.description, sub
        with pytest.raises(SystemExit) as done:
            rbti.main([sub, "--help"], FakeDebugfs())
        assert done.value.code == 0
        assert "usage: rbti " + sub in capsys.readouterr().out


def saved(tmp_path, driver, name, corrupt=None):
    if corrupt:
        driver.set_param("allow_corrupt", "1")
        driver.corrupt(name, corrupt)
    path = tmp_path / f"{name}.dump"
    path.write_text(driver.dump_text(name))
    return path


def test_check_saved_dumps_like_live_trees(tmp_path, capsys, monkeypatch):
    """Same lines and exit status for a file and stdin as for the live tree
    (bar the module's own line), without debugfs."""
    driver = populated()
    good = saved(tmp_path, driver, "mainline")
    live = run(["check", "mainline"], driver, capsys)
    assert live[0] == 0
    assert run(["check", str(good)], Unavailable(), capsys) == live
    victim = list(driver.dump("santos").nodes.values())[3]
    bad = saved(tmp_path, driver, "santos", f"color {victim.key}")
    status, out, _ = run(["check", "santos"], driver, capsys)
    assert status == 1
    file_status, file_out, _ = run(["check", str(bad), str(good)],
                                   Unavailable(), capsys)
    assert file_status == 1
    live_lines = [line for line in out.splitlines() if "module:" not in line]
    assert file_out.splitlines() == live_lines + ["mainline: ok (30 nodes)"]
    monkeypatch.setattr("sys.stdin",
                        io.TextIOWrapper(io.BytesIO(bad.read_bytes())))
    assert run(["check", "-"], Unavailable(), capsys)[:2] == \
        (1, "\n".join(live_lines) + "\n")


def test_check_bad_saved_dumps(tmp_path, capsys):
    broken = tmp_path / "broken.dump"
    broken.write_text("tree x\n")
    status, out, _ = run(["check", str(broken)], Unavailable(),
                         capsys)
    assert status == 1 and out.startswith(f"{broken}: fail dump: dump line ")
    status, _, err = run(["check", str(tmp_path / "none.dump")],
                         Unavailable(), capsys)
    assert status == 2 and "No such file" in err
    # A bare file name that does not exist is a missing file too, not a
    # tree to look for in debugfs.
    for sub in ("check", "show"):
        status, _, err = run([sub, "typo.dump"], Unavailable(), capsys)
        assert status == 2 and "typo.dump: No such file" in err, err


def test_saved_dumps_are_read_byte_for_byte(tmp_path, capsys, monkeypatch):
    """No newline translation and no decoding error: a carriage return
    (a CRLF file, or a lone CR that would split a line) and bytes that are
    not UTF-8 are malformed dumps naming their line, from a file as from
    stdin, never a pass, a usage error or a traceback."""
    good = saved(tmp_path, populated(), "mainline")
    text = good.read_bytes()
    cases = {
        "crlf": text.replace(b"\n", b"\r\n"),
        "lone-cr": text.replace(b"\nnode ", b"\rnode ", 1),
        "latin1": text.replace(b"tree mainline", b"tree mainl\xefne"),
    }
    for name, data in cases.items():
        path = tmp_path / f"{name}.dump"
        path.write_bytes(data)
        status, out, err = run(["check", str(path)], Unavailable(), capsys)
        assert status == 1 and "non-ASCII or control character" in out, \
            (name, out, err)
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
        status, out, _ = run(["check", "-"], Unavailable(), capsys)
        assert status == 1 and "non-ASCII or control character" in out
        status, out, _ = run(["show", str(path)], Unavailable(), capsys)
        assert status == 1, (name, out)


def test_show_live_and_saved(tmp_path, capsys):
    driver = populated()
    status, out, _ = run(["show", "santos", "--color", "never"], driver, capsys)
    assert status == 0 and out.startswith("santos (santos: ") and " B" in out
    path = saved(tmp_path, driver, "santos")
    assert run(["show", str(path), "--color", "never"],
               Unavailable(), capsys)[:2] == (0, out)
    status, out, _ = run(["show", str(path), "--color", "always"],
                         Unavailable(), capsys)
    assert "\x1b[31;1m" in out
    assert run(["show", "nope"], driver, capsys)[0] == 2


class Changing(FakeDebugfs):
    """A tree that gains a key on every dump read, and loses its module
    (every read fails) on the third."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def dump_text(self, tree: str) -> str:
        self.reads += 1
        if self.reads == 3:
            raise DebugfsError(errno.ENODEV, f"{tree}/dump")
        self.insert(tree, [100 + self.reads])
        return super().dump_text(tree)


def test_show_watch_redraws_in_one_process(capsys, monkeypatch):
    """--watch: a frame per period with watch's header, each a new read
    (the tree changes between them); a failed read is shown in its frame
    and the next frame reads again; --frames stops it."""
    monkeypatch.delenv("LINES", raising=False)
    driver = Changing()
    status, out, _ = run(["show", "santos", "--watch", "0", "--frames", "4",
                          "--color", "never"], driver, capsys)
    frames = out.split("\nEvery ")
    assert status == 0 and len(frames) == 4 and out.startswith("Every 0s: ")
    assert "\x1b[" not in out          # no terminal: no clear sequences
    assert ": 1 node," in frames[0] and ": 2 nodes," in frames[1]
    assert "santos/dump: ENODEV" in frames[2] and ": 3 nodes," in frames[3]


def test_show_watch_stops_at_ctrl_c(capsys, monkeypatch):
    import time

    def interrupt(_seconds):
        raise KeyboardInterrupt
    monkeypatch.setattr(time, "sleep", interrupt)
    driver = populated()
    status, out, _ = run(["show", "santos", "--watch", "5"], driver, capsys)
    assert status == 0 and out.count("Every 5s: rbti show santos") == 1


def test_show_watch_of_a_missing_file_is_usage_error(tmp_path, capsys):
    status, _, err = run(["show", str(tmp_path / "gone.dump"), "--watch", "1"],
                         Unavailable(), capsys)
    assert status == 2 and "No such file" in err


def test_show_fits_lines_under_watch(capsys, monkeypatch):
    """watch sets $LINES: the drawing (and watch's header) fits it."""
    driver = FakeDebugfs()
    driver.insert("santos", list(range(200)))
    monkeypatch.setenv("LINES", "20")
    status, out, _ = run(["show", "santos"], driver, capsys)
    assert status == 0 and len(out.splitlines()) <= 20 - 2 and "… " in out
    status, out, _ = run(["show", "santos", "--max-depth", "all"], driver, capsys)
    assert len(out.splitlines()) == 201
