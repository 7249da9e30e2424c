# SPDX-License-Identifier: GPL-2.0
"""Hostile input through every rbti subcommand and viz/render as a user
runs them (a subprocess each), under a memory limit (RLIMIT_AS) and a
time limit: a clear message and the documented exit status, never a
traceback, and output and memory that grow no faster than the input (a
10,000-node corrupted chain against a 1,000-node one; 100,000 nodes in
the slow set).  The in-process corpora are in test_cli_hostile.py."""

import os
import resource
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import pytest

from tests_support.hostile import chain, huge_header, huge_number

REPO = Path(__file__).resolve().parents[2]
RBTI = REPO / "tools" / "rbti"
RENDER = REPO / "viz" / "render"
LIMIT_AS = 2 << 30
"""Address space a command may map (RLIMIT_AS): the quadratic rbti show
of a 10,000-node chain took 1.4 GB of RSS."""
TIMEOUT = 120


def run_bounded(argv: list, limit: int = LIMIT_AS) -> tuple[int, bytes,
                                                             str, int]:
    """Run ``python3 ARGV...`` under RLIMIT_AS *limit*, killed after
    TIMEOUT seconds: (exit status, stdout, stderr, the child's own peak
    RSS in KiB, from wait4())."""
    def limits() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, *map(str, argv)],
                                stdout=out, stderr=err, preexec_fn=limits)
        timer = threading.Timer(TIMEOUT, proc.kill)
        timer.start()
        try:
            _, wstatus, usage = os.wait4(proc.pid, 0)
        finally:
            timer.cancel()
        proc.returncode = os.waitstatus_to_exitcode(wstatus)
        assert proc.returncode != -9, f"{argv}: over {TIMEOUT} s"
        out.seek(0)
        err.seek(0)
        return proc.returncode, out.read(), \
            err.read().decode(errors="replace"), usage.ru_maxrss


COMMANDS = [
    [RBTI, "check"], [RBTI, "check", "--json"], [RBTI, "dump"],
    [RBTI, "dump", "--json"], [RBTI, "dump", "--raw"],
    [RBTI, "show", "--color", "never", "--max-depth", "3"],
    [RBTI, "show", "--color", "never"], [RBTI, "show", "--json"],
    [RBTI, "show", "--color", "never", "--max-depth", "all"],
    [RENDER, "--violation", "-o", "{OUT}.svg"],
    [RENDER, "-o", "{OUT}.html"], [RENDER, "--max-depth", "3"],
]
"""Every command that reads a dump, as a user types it."""


def _argv(command: list, dump: Path) -> list:
    return [str(a).replace("{OUT}", str(dump.with_suffix(""))) for a in
            command] + [str(dump)]


def _name(command: list) -> str:
    return " ".join([Path(str(command[0])).name] + [str(a) for a in
                                                      command[1:]])


@pytest.fixture(scope="module")
def chains(tmp_path_factory) -> dict:
    base = tmp_path_factory.mktemp("chains")
    out = {}
    for n in (1000, 10_000):
        path = base / f"chain{n}.dump"
        path.write_text(chain(n))
        out[n] = path
    return out


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS, ids=_name)
def test_output_grows_no_faster_than_the_input(command, chains, tmp_path):
    """A corrupted chain (every node blamed): 10 times the nodes gives at
    most about 10 times the output, within the memory limit: rbti show
    --max-depth 3 of the 10,000-node chain is the same few lines as the
    1,000-node chain's, not one line a node (201 MB, and 1.4 GB of RSS,
    past LIMIT_AS)."""
    sizes, rss = {}, {}
    for n, path in chains.items():
        dump = tmp_path / path.name
        dump.write_bytes(path.read_bytes())
        status, out, err, rss[n] = run_bounded(_argv(command, dump))
        assert status in (0, 1), (status, err[-2000:])
        assert "Traceback" not in err
        sizes[n] = len(out) + len(err) + sum(
            f.stat().st_size for f in tmp_path.iterdir() if f != dump
            and f.suffix in (".svg", ".html") and f.stem == dump.stem)
        for f in tmp_path.iterdir():
            f.unlink()
    assert sizes[10_000] <= 12 * sizes[1000] + 4096, sizes
    assert rss[10_000] <= 12 * rss[1000], rss
    if "--max-depth" in command and "3" in command or "check" in command:
        assert sizes[10_000] < 4096, sizes      # a few lines, any size


def test_the_limits_catch_a_quadratic_drawing(tmp_path):
    """The harness itself: output that grows as the square of the input
    fails the assertion above, and an allocation past LIMIT_AS is an exit
    with a MemoryError, not a machine out of memory."""
    status, _, err, _ = run_bounded(["-c", "x = bytearray(3 << 30)"])
    assert status == 1 and "MemoryError" in err
    sizes = {1000: 1000 * 1000 // 40, 10_000: 10_000 * 10_000 // 40}
    assert not sizes[10_000] <= 12 * sizes[1000] + 4096


HUGE = {
    "key": lambda t: huge_number(t, 2), "id": lambda t: huge_number(t, 1),
    "link": lambda t: huge_number(t, 4), "aug": lambda t: huge_number(t, 7),
    "count": lambda t: huge_header(t, "count"),
    "root": lambda t: huge_header(t, "root"),
}


@pytest.mark.parametrize("field", sorted(HUGE))
def test_huge_numbers_through_viz_render(field, tmp_path):
    """A field of 5,000 digits (past Python's 4,300-digit int() limit):
    viz/render says which line (exit 1), as rbti does
    (test_cli_hostile.py), instead of a traceback with exit 70."""
    dump = tmp_path / "huge.dump"
    dump.write_text(HUGE[field](chain(3, aug=True)))
    status, out, err, _ = run_bounded([RENDER, "--violation", dump])
    assert status == 1, err
    assert f"{dump}: fail dump: dump line " in err and "Traceback" not in err
    assert len(err) < 500


def test_a_huge_number_in_every_rbti_subcommand(tmp_path):
    """The same through tools/rbti, one subprocess per subcommand."""
    dump = tmp_path / "huge.dump"
    dump.write_text(huge_number(chain(3), 2))
    for command in ([RBTI, "check"], [RBTI, "show"], [RBTI, "dump"],
                    [RBTI, "dump", "--json"]):
        status, out, err, _ = run_bounded(command + [dump])
        assert status == 1, (command, err)
        assert "dump line 11: bad key '9999" in (out.decode() + err)
        assert "Traceback" not in err and len(out) + len(err) < 1000


@pytest.mark.parametrize("text", [
    '{"rbti-repro": 1, "tree": "santos", "ops": [["i", Infinity]]}',
    '{"rbti-repro": 1, "tree": "santos", "ops": [["i", NaN]]}',
    "[" * 200_000 + "]" * 200_000],
    ids=["infinity", "nan", "nested"])
def test_replay_of_hostile_json(text, tmp_path):
    """rbti replay as a user runs it: exit 2 naming the file (the repro
    is read while the arguments are parsed), not a traceback with exit 1,
    which reads as "the failure reproduces"."""
    path = tmp_path / "r.json"
    path.write_text(text)
    status, _, err, _ = run_bounded([RBTI, "replay", path])
    assert status == 2 and "Traceback" not in err, err
    assert f"{path}: not an rbti repro file" in err


@pytest.mark.slow
@pytest.mark.parametrize("command", [
    [RBTI, "check"], [RBTI, "show", "--color", "never", "--max-depth", "3"],
    [RBTI, "show", "--color", "never"], [RENDER, "--violation", "-o",
                                         "{OUT}.svg"]], ids=_name)
def test_a_100k_node_chain(command, tmp_path):
    """100,000 nodes deep, every one blamed: seconds, a bounded output
    (show folds below its depth limit, or fits 2,000 lines off a
    terminal), within LIMIT_AS."""
    dump = tmp_path / "chain.dump"
    dump.write_text(chain(100_000))
    status, out, err, _ = run_bounded(_argv(command, dump))
    assert status in (0, 1) and "Traceback" not in err, err[-2000:]
    limit = 600_000 if "--max-depth" not in command else 4096
    assert len(out) < limit, len(out)


def test_render_caps_violations_as_check_does(tmp_path):
    """viz/render --violation printed all 40 violations where rbti check
    printed 10 with no word of the rest: both print 10, then '… and 30
    more violations'; --max-violations all prints every one."""
    dump = tmp_path / "chain.dump"
    dump.write_text(chain(40))
    for extra, shown in (([], 10), (["--max-violations", "3"], 3),
                         (["--max-violations", "all"], 40)):
        status, _, err, _ = run_bounded(
            [RENDER, "--violation", *extra, "-o", tmp_path / "c.svg", dump])
        lines = err.splitlines()
        assert status == 1 and sum(line.startswith("chain: fail ")
                                   for line in lines) == shown, err
        if shown < 40:
            assert lines[-1] == f"chain: … and {40 - shown} more " \
                "violations (--max-violations all prints them)"
