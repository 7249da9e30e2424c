# SPDX-License-Identifier: GPL-2.0
"""Tests of the interface fuzzer's host-testable half: the generator, the
errno table against kmod/DEBUGFS.md, the replay scripts, the deadline
watch and the shrinker (tools/ifuzz runs the rest in the guest)."""

import os
import re
import subprocess
import sys

import pytest

from rbtilib import ifuzz, ifuzz_run
from rbtilib.driver import parse_trees
from rbtilib.ifuzz import ALLOWED, ANY_WRITE, Cmd, generate, unexpected
from rbtilib.ifuzz_script import (REPLAYER, decode, encode, parse_script,
                                  render_script)

REPO = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)
TREES = """rbtree-inspector format 1
santos santos unique,leftmost,rightmost,count
mainline_aug mainline unique,leftmost,augmented,value
interval interval dup,augmented,value,interval
latch latch unique,latch
mainline_rcu mainline unique,lockless
"""


@pytest.fixture(scope="module")
def trees():
    return parse_trees(TREES)


@pytest.fixture(scope="module")
def cmds(trees):
    return generate("7:0:0", trees, 4000)


def test_the_same_seed_makes_the_same_list(trees, cmds):
    assert generate("7:0:0", trees, 4000) == cmds
    assert generate("7:0:1", trees, 200) != cmds


def test_every_file_of_every_tree_is_written_and_read(trees, cmds):
    seen = {(c.path, c.kind) for c in cmds}
    for tree in trees:
        for name in tree.files:
            kinds = {k for p, k in seen if p == f"{tree.name}/{name}"}
            assert kinds, f"{tree.name}/{name} never used"
    for name in ifuzz.PARAMS:
        assert (f"@{name}", "w") in seen
    assert ("trees", "r") in seen and ("trees", "w") in seen
    toggles = {c.data for c in cmds if c.path == "@allow_corrupt"}
    assert toggles & {b"1", b"Y", b"y"} and toggles & {b"0", b"N", b"n"}


def test_arguments_well_formed_boundary_and_malformed(cmds):
    data = b"\n".join(c.data for c in cmds)
    for token in (b"9223372036854775807", b"-9223372036854775808",
                  b"2147483647", b"-2147483648", b"-1",
                  b"9223372036854775808", b"0x10", b"\x00", b"\r"):
        assert token in data, token
    assert any(c.data == b"" for c in cmds if c.kind == "w")
    assert any(len(c.data) > 256 * 1024 for c in cmds)
    stress = [c for c in cmds if c.file == "stress"]
    assert stress and all(len(c.data) < 32 for c in stress)
    # Most writes parse: a fuzzer whose every insert is EINVAL tests
    # nothing past the parser.
    inserts = [c for c in cmds if c.file == "insert"]
    clean = [c for c in inserts
             if re.fullmatch(rb"[-0-9@ \t\n]+", c.data)]
    assert len(clean) > 0.8 * len(inserts)


def test_corrupt_commands_and_the_exclusion(trees, cmds):
    corrupts = {c.data.split()[0] for c in cmds
                if c.file == "corrupt" and c.data.split()}
    assert corrupts >= {w.encode() for w in ifuzz.CORRUPTIONS}
    assert any(c.path == "interval/corrupt" and c.data.startswith(b"parent")
               for c in cmds)
    fenced = generate("7:0:0", trees, 4000,
                      frozenset({("interval", "parent")}))
    assert not [c for c in fenced if c.path == "interval/corrupt" and
                c.data.split()[:1] == [b"parent"]]
    assert any(c.path == "santos/corrupt" and c.data.startswith(b"parent")
               for c in fenced)


def test_the_corrupt_table_is_the_modules():
    """DEBUGFS.md's table of `corrupt` commands names the commands of
    kmod/inspector_corrupt.c (its rbti_corruptions[], `erase` and
    `reinsert`), and the fuzzer generates all of them but `erase` and
    `reinsert`: those are EOPNOTSUPP on make test's kernels, and a
    DEBUG_RBTREE warning on make patches' kernel, where ifuzz runs with
    warnings panicking (kmod/patches/suites)."""
    with open(os.path.join(REPO, "kmod", "DEBUGFS.md")) as f:
        page = f.read()
    section = page[page.index("## `corrupt` commands"):]
    section = section[:section.index("\n## ")]
    # A row's first cell: `NAME ARGS`, or two names (`leftmost` / `rightmost`).
    cells = [line.split("|")[1] for line in section.split("\n")
             if line.startswith("| `")]
    documented = {w for cell in cells for w in re.findall(r"`(\w+)", cell)}
    with open(os.path.join(REPO, "kmod", "inspector_corrupt.c")) as f:
        code = f.read()
    table = code[code.index("rbti_corruptions[] = {"):]
    table = table[:table.index("};")]
    names = set(re.findall(r'\{ "(\w+)",', table))
    assert '!strcmp(cmd, "erase")' in code and '!strcmp(cmd, "reinsert")' in code
    assert len(names) == 13 and documented == names | {"erase", "reinsert"}
    assert set(ifuzz.CORRUPTIONS) == names


def debugfs_text(name: str) -> tuple[str, str]:
    """What kmod/DEBUGFS.md says of file *name*: (its table row, all of
    it: the row, the section of its own if it has one, and every
    paragraph that names it)."""
    with open(os.path.join(REPO, "kmod", "DEBUGFS.md")) as f:
        page = f.read()
    row = "".join(re.findall(rf"^\| `{name}` \|.*$", page, re.M))
    heads = {"ops": "## The `ops` batch", "overlap": "## The `overlap`",
             "stress": "## The `stress`", "corrupt": "## `corrupt` commands",
             "find": "### Query results", "near": "### Query results",
             "dump": "### Consistency", "trees": "## Top level"}
    text = row
    if name in heads:
        start = page.index(heads[name])
        end = page.find("\n## ", start + 3)
        text += page[start:end if end > 0 else None]
    text += "".join(p for p in page.split("\n\n") if f"`{name}`" in p)
    return row, text


@pytest.mark.parametrize("key", sorted(ALLOWED))
def test_the_errno_table_is_the_pages(key):
    """Every errno allowed for a file beyond those every write may give
    is documented for that file, and every errno the file's row of the
    table names is allowed."""
    name, step = key
    if name == "param":
        return
    row, text = debugfs_text(name)
    for err in sorted(ALLOWED[key] - ANY_WRITE):
        assert err in text, f"{err} allowed on {name} but not documented"
    named = set(re.findall(r"\bE[A-Z0-9]{3,}\b", row))
    steps = ALLOWED.get((name, "w"), set()) | ALLOWED.get((name, "r"), set())
    assert named <= steps, (name, named - steps)


def test_unexpected():
    assert not unexpected(Cmd("w", "santos/insert", b"1"), "w", "EEXIST")
    assert unexpected(Cmd("w", "santos/insert", b"1"), "w", "EIO")
    assert unexpected(Cmd("q", "santos/find", b"1"), "w", "EEXIST")
    assert not unexpected(Cmd("q", "santos/find", b"1"), "r", "ENODATA")
    assert not unexpected(Cmd("w", "santos/dump", b"1"), "w", "EINVAL")
    assert unexpected(Cmd("w", "santos/dump", b"1"), "w", "EPERM")
    assert not unexpected(Cmd("w", "@max_nodes", b"x"), "w", "ERANGE")


@pytest.mark.parametrize("data", [b"", b"1", b" 1 ", b"\\x41", b"a\\",
                                  bytes(range(256)), b"5 5\n2 3\n"])
def test_encode_round_trip(data):
    text = encode(data)
    assert "\n" not in text and text == text.strip()
    assert decode(text) == data


def test_script_replays_every_byte(tmp_path, cmds):
    """The script's own replayer writes each command's exact bytes in one
    write, reads back, and prints one result line a command."""
    root, params = tmp_path / "d", tmp_path / "p"
    (root / "santos").mkdir(parents=True)
    params.mkdir()
    for name in ("insert", "find"):
        (root / "santos" / name).write_bytes(b"")
    (params / "allow_corrupt").write_bytes(b"")
    data = bytes(range(256)) + b"\\x41 "
    small = [Cmd("w", "santos/insert", data), Cmd("q", "santos/find", b"7"),
             Cmd("r", "santos/find"), Cmd("w", "@allow_corrupt", b"1"),
             Cmd("r", "santos/missing"), Cmd("k", "santos/find", b"9")]
    script = render_script(small, ["seed 7", "failure: none"])
    assert script.startswith("#!/bin/sh\n") and "# seed 7\n" in script
    assert parse_script(script) == small
    path = tmp_path / "replay.sh"
    path.write_text(script)
    env = dict(os.environ, IFUZZ_ROOT=str(root), IFUZZ_PARAMS=str(params))
    proc = subprocess.run(["sh", str(path)], env=env, capture_output=True,
                          text=True, timeout=30)
    assert proc.returncode == 0, proc.stderr
    assert (root / "santos" / "insert").read_bytes() == data
    assert (params / "allow_corrupt").read_bytes() == b"1"
    lines = proc.stdout.splitlines()
    assert lines[0] == "1: w santos/insert: ok"
    assert lines[2] == "3: r santos/find: ok: 7"
    assert lines[4] == "5: r santos/missing: ENOENT"
    assert lines[5] == "6: k santos/find: killed"
    # The killed writer had 0.2 s: on a busy machine it may not have
    # run its write by then, so the file holds its bytes or the last.
    assert (root / "santos" / "find").read_bytes() in (b"9", b"7")


def test_execute_and_judge(tmp_path, monkeypatch):
    monkeypatch.setattr(ifuzz_run, "ROOT", str(tmp_path))
    (tmp_path / "santos").mkdir()
    (tmp_path / "santos" / "insert").write_bytes(b"")
    ok = Cmd("w", "santos/insert", b"1 2")
    assert ifuzz_run.execute(ok) is None
    # The writer of a "k" command is killed and reaped, whether or not
    # it wrote yet.
    assert ifuzz_run.execute(Cmd("k", "santos/insert", b"5")) is None
    with pytest.raises(ChildProcessError):
        os.waitpid(-1, os.WNOHANG)
    gone = Cmd("w", "santos/erase", b"1")
    assert ifuzz_run.execute(gone) == ("o", "ENOENT")
    assert "on the open" in ifuzz_run.bad_result(gone, ("o", "ENOENT"))
    assert ifuzz_run.bad_result(ok, ("w", "EEXIST")) is None
    assert "EIO on the write" in ifuzz_run.bad_result(ok, ("w", "EIO"))
    # Linux's ENOTSUP is EOPNOTSUPP, the name DEBUGFS.md uses.
    assert ifuzz_run.errname(95) == "EOPNOTSUPP"


def test_a_command_past_the_deadline_is_caught(tmp_path, monkeypatch):
    """A write that does not return (open of a FIFO without a reader)
    is reported with its writer and index while it still blocks."""
    monkeypatch.setattr(ifuzz_run, "ROOT", str(tmp_path))
    (tmp_path / "t").mkdir()
    (tmp_path / "t" / "insert").write_bytes(b"")
    os.mkfifo(tmp_path / "t" / "find")
    quick = [Cmd("w", "t/insert", b"1")] * 3
    stuck = quick + [Cmd("q", "t/find", b"7")] + quick
    seen = []
    out = ifuzz_run.run_round(
        [quick, stuck], [], 0, "s", 0.3, str(tmp_path), str(tmp_path),
        lambda w, i, s: seen.append((w, i)))
    assert out.hang[:2] == (1, 3) and seen == [(1, 3)]
    journal = (tmp_path / "journal-1").read_text().splitlines()
    assert journal[-1].split(" ", 1)[1] == "3 q t/find s:7"
    both = ifuzz_run.merged([quick, stuck], str(tmp_path))
    assert len(both) == 7 and both.count(stuck[3]) == 1
    # The stuck process is left for the caller (in the guest it is stuck
    # in the kernel); here it can be ended.
    os.kill(out.stuck_pid, 9)
    os.waitpid(out.stuck_pid, 0)


def test_the_calibration_scales_the_deadline_within_bounds(tmp_path,
                                                          monkeypatch):
    """A guest as fast as the nominal one, or faster, keeps the deadline
    (factor 1); a slower one stretches it by its slowness, at most
    MAX_SLOWDOWN times, so that a hang still fails."""
    monkeypatch.setattr(ifuzz_run, "ROOT", str(tmp_path))
    (tmp_path / "t").mkdir()
    for name in ("trees", "t/stats", "t/check", "t/dump"):
        (tmp_path / name).write_bytes(b"x\n")
    reads = []
    real = ifuzz_run.execute
    monkeypatch.setattr(ifuzz_run, "execute",
                        lambda cmd: reads.append(cmd.path) or real(cmd))
    factor, secs = ifuzz_run.calibrate("t")
    assert len(reads) == ifuzz_run.CALIBRATION_READS
    assert set(reads) == {"trees", "t/stats", "t/check", "t/dump"}
    assert factor == max(1.0, secs / ifuzz_run.NOMINAL_SECONDS) >= 1.0
    clock = iter([0.0, 3 * ifuzz_run.NOMINAL_SECONDS])
    monkeypatch.setattr(ifuzz_run.time, "monotonic", lambda: next(clock))
    assert ifuzz_run.calibrate(None)[0] == pytest.approx(3.0)
    clock = iter([0.0, 1000 * ifuzz_run.NOMINAL_SECONDS])
    assert ifuzz_run.calibrate(None)[0] == ifuzz_run.MAX_SLOWDOWN


def test_a_clean_round_counts_its_commands(tmp_path, monkeypatch):
    monkeypatch.setattr(ifuzz_run, "ROOT", str(tmp_path))
    (tmp_path / "t").mkdir()
    for name in ("insert", "dump", "check", "stats"):
        (tmp_path / "t" / name).write_bytes(b"")
    (tmp_path / "trees").write_bytes(b"")
    lists = [[Cmd("w", "t/insert", b"1")] * 50,
             [Cmd("w", "t/insert", b"2"), Cmd("w", "t/nothere", b"2")]]
    out = ifuzz_run.run_round(lists, ["t"], 1, "s", 5, None, str(tmp_path))
    assert out.hang is None and out.commands == 52 and out.reads > 0
    assert out.failures == [(1, 1, "w t/nothere s:2: ENOENT on the open")]


def test_shrink_keeps_the_setup_and_the_culprits(monkeypatch):
    cmds = [ifuzz_run.SETUP] + [Cmd("w", "t/insert", str(i).encode())
                                for i in range(60)]
    need = {cmds[17], cmds[44]}
    calls = []

    def fake(part, ko, kind, match, deadline):
        calls.append(part[0])
        return need <= set(part)

    monkeypatch.setattr(ifuzz_run, "replay_fails", fake)
    small = ifuzz_run.shrink_failure(cmds, "ko", "errno", "x", 1, 500, 60)
    assert small == [ifuzz_run.SETUP, cmds[17], cmds[44]]
    assert set(calls) == {ifuzz_run.SETUP}
    monkeypatch.setattr(ifuzz_run, "replay_fails", lambda *a: False)
    assert ifuzz_run.shrink_failure(cmds, "ko", "errno", "x", 1, 9, 60) \
        is None


def test_corruptions_aim_at_inserted_keys_and_are_probed(trees):
    """A corruption mostly names a key the list inserted (a random key
    is seldom in the tree and breaks nothing), and some are followed by
    queries at every point around the newest keys: the interval hang
    (corrupt parent, then a find that climbs into the loop) needs both."""
    gen = ifuzz.Gen("probe", trees)
    interval = next(t for t in trees if t.name == "interval")
    cmds = gen.commands(6000)
    inserted = set()
    aimed = total = probed = 0
    for i, c in enumerate(cmds):
        if c.path == "interval/insert":
            inserted.update(int(w) for w in c.data.split()
                            if re.fullmatch(rb"-?[0-9]+", w))
        if c.path == "interval/corrupt" and len(c.data.split()) == 2 \
                and c.data.split()[1].lstrip(b"-").isdigit():
            total += 1
            aimed += int(c.data.split()[1]) in inserted
            after = cmds[i + 1:i + 4]
            probed += bool(after) and all(
                a.path in ("interval/find", "interval/near",
                           "interval/overlap")
                for a in after)
    assert total and aimed > 0.6 * total
    assert probed > 0
    gen.known["interval"] = [(2, 3), (1, 10)]
    probes = gen.probes(interval)
    points = {int(c.data.split()[0]) for c in probes}
    assert points >= {0, 1, 2, 3, 4, 10, 11}
    assert probes[-1] == ifuzz.Cmd("q", "interval/overlap", b"0 11")


def test_an_episode_corrupts_small_trees_and_probes_every_point(trees):
    """An episode: allow_corrupt on; then for each link-breaking
    corruption (parent: of every node in turn), the tree cleared, the
    same few keys inserted, that corruption, and a query at every point
    around the keys (the interval hang is met at one such point)."""
    gen = ifuzz.Gen("episode", trees)
    interval = next(t for t in trees if t.name == "interval")
    cmds = gen.episode(interval)
    assert cmds[0] == ifuzz.Cmd("w", "@allow_corrupt", b"1")
    starts = [i for i, c in enumerate(cmds) if c.path == "interval/clear"]
    inserts = {cmds[i + 1].data for i in starts}
    assert len(inserts) == 1
    words = [int(w) for w in inserts.pop().split()]
    pairs = list(zip(words[::2], words[1::2]))
    assert 3 <= len(pairs) <= 7 and all(a <= b for a, b in pairs)
    points = {p for a, b in pairs for p in (a - 1, a, b, b + 1)}
    hows = []
    for i, j in zip(starts, starts[1:] + [len(cmds)]):
        clear, insert, corrupt, *probes = cmds[i:j]
        how, target = corrupt.data.split()
        hows.append((how.decode(), int(target)))
        assert int(target) in {a for a, _ in pairs}
        assert [int(c.data.split()[0]) for c in probes] == sorted(points)
        assert {c.path for c in probes} == {
            f"interval/{q}" for q in ("find", "near", "overlap")
            if q in interval.files}
    assert sorted(t for h, t in hows if h == "parent") == \
        sorted(a for a, _ in pairs)
    assert {h for h, _ in hows} == set(ifuzz.LINK_CORRUPTIONS)
    fenced = ifuzz.Gen("episode", trees,
                       frozenset({("interval", "parent")})).episode(interval)
    assert not [c for c in fenced if c.data.startswith(b"parent")]
    some = gen.commands(20000)
    began = [c for i, c in enumerate(some[:-2])
             if c.path == "@allow_corrupt" and c.data == b"1" and
             some[i + 1].path.endswith("/clear")]
    assert len(began) > 10


def _fuzzer_module():
    import importlib.machinery
    import importlib.util
    path = os.path.join(REPO, "tools", "ifuzz")
    loader = importlib.machinery.SourceFileLoader("ifuzz_cli", path)
    spec = importlib.util.spec_from_loader("ifuzz_cli", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def test_the_corpus_runs_first_unless_its_tree_or_corruption_is_left_out(
        trees, tmp_path):
    """Every entry of tools/ifuzz-corpus parses; the first writer of
    round 0 runs them first; an entry on a tree not fuzzed, or with a
    corruption --exclude names, is left out."""
    cli = _fuzzer_module()
    corpus = os.path.join(REPO, "tools", "ifuzz-corpus")
    names = sorted(os.listdir(corpus))
    assert "interval-parent-climb.ifuzz" in names
    assert all(n.endswith(".ifuzz") for n in names), \
        "a corpus entry is a command list: its replayer is generated"
    for n in names:
        with open(os.path.join(corpus, n)) as f:
            assert parse_script(f.read())

    def fuzzer(exclude=(), where=corpus):
        args = type("A", (), {"exclude": list(exclude), "corpus": where})
        return cli.Fuzzer(args)

    cmds = fuzzer().corpus(trees)
    assert Cmd("w", "interval/corrupt", b"parent 2") in cmds
    assert Cmd("q", "interval/find", b"7") in cmds
    assert not fuzzer(["interval:parent"]).corpus(trees) or \
        Cmd("w", "interval/corrupt", b"parent 2") not in \
        fuzzer(["interval:parent"]).corpus(trees)
    no_interval = [t for t in trees if t.name != "interval"]
    assert Cmd("q", "interval/find", b"7") not in \
        fuzzer().corpus(no_interval)
    assert fuzzer(where="").corpus(trees) == []


def test_a_corpus_entry_is_a_command_list_its_replay_script_generated(
        tmp_path):
    """The corpus holds the commands only; --replay-script renders the
    shell script with today's replayer, and the fuzzer reads both forms
    (a script it wrote, a command list) as the same commands."""
    entry = os.path.join(REPO, "tools", "ifuzz-corpus",
                         "interval-parent-climb.ifuzz")
    with open(entry) as f:
        text = f.read()
    assert "IFUZZ_END" not in text and "python3" not in text
    proc = subprocess.run([sys.executable, os.path.join(REPO, "tools",
                                                        "ifuzz"),
                           "--replay-script", entry],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    script = proc.stdout
    assert script.startswith("#!/bin/sh\n") and REPLAYER.split("\n")[0] \
        in script
    assert parse_script(script) == parse_script(text)
    assert "# interval-parent-climb: after `corrupt parent 2`" in script
    assert script.count("SPDX-License-Identifier") == 1
    written = tmp_path / "x.sh"
    written.write_text(script)
    cli = _fuzzer_module()
    args = type("A", (), {"exclude": [], "corpus": str(tmp_path)})
    trees = parse_trees(TREES)
    assert cli.Fuzzer(args).corpus(trees) == parse_script(text)
    bad = tmp_path / "bad.ifuzz"
    bad.write_text("w interval/insert\n")
    proc = subprocess.run([sys.executable, os.path.join(REPO, "tools",
                                                        "ifuzz"),
                           "--replay-script", str(bad)],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2 and "bad.ifuzz" in proc.stderr
