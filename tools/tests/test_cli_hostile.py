# SPDX-License-Identifier: GPL-2.0
"""rbti against hostile input: every subcommand, fed corrupted, truncated
and huge dumps (live and saved) and bad argument combinations, answers with
a clear message and exit 1 or 2, never a traceback."""

import io

import pytest

from rbtilib import cli, record
from rbtilib.driver import ReplyError
from rbtilib.dump import UNKNOWN, format_dump, parse_dump
from tests_support.hostile import chain, huge_header, huge_number
from tests_support.fake import FakeDebugfs

TREE = "santos"


def _santos() -> FakeDebugfs:
    driver = FakeDebugfs()
    driver.insert(TREE, list(range(0, 40, 2)))
    return driver


def _with_unknown_links() -> str:
    tree = _santos().dump(TREE)
    nodes = dict(tree.nodes)
    root = nodes[tree.root]
    nodes[root.id] = record.replace(root, left=UNKNOWN)
    leaf = next(n for n in nodes.values() if n.left is None and n.id != root.id)
    nodes[leaf.id] = record.replace(leaf, parent=UNKNOWN)
    return format_dump(record.replace(tree, nodes=nodes))


def _corrupted(command: str) -> str:
    driver = _santos()
    victim = list(driver.dump(TREE).nodes.values())[3]
    driver.set_param("allow_corrupt", "1")
    driver.corrupt(TREE, f"{command} {victim.key}")
    return driver.dump_text(TREE)


def _huge() -> str:
    driver = FakeDebugfs()
    driver.insert(TREE, list(range(8000)))
    return driver.dump_text(TREE)


HOSTILE = {
    "unknown-links": _with_unknown_links,
    "cycle": lambda: _corrupted("cycle"),
    "shared": lambda: _corrupted("share"),
    "detached": lambda: _corrupted("detach"),
    "truncated": lambda: _santos().dump_text(TREE)[:300],
    "empty": lambda: "",
    "garbage": lambda: "\x00\xff not a dump\n",
    "huge-line": lambda: "tree " + "x" * 1_000_000 + "\n",
    "huge": _huge,
    "deep-chain": lambda: chain(2000),
    # Numbers of over 4,300 digits: past Python's int() limit, a
    # ValueError of its own that escaped the parser's fast path.
    "huge-key": lambda: huge_number(_santos().dump_text(TREE), 2),
    "huge-id": lambda: huge_number(_santos().dump_text(TREE), 1),
    "huge-link": lambda: huge_number(_santos().dump_text(TREE), 5),
    "huge-count": lambda: huge_header(_santos().dump_text(TREE), "count"),
    "huge-key-21": lambda: huge_number(_santos().dump_text(TREE), 2, 21),
}
"""Dumps a user may well hold: the corrupted trees rbti exists for, and
files that are not dumps at all."""

PARSES = {"unknown-links", "cycle", "shared", "detached", "huge",
          "deep-chain"}


class Hostile(FakeDebugfs):
    """A module whose ``santos`` dump is *text* (the other trees are fine)."""

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def dump_text(self, tree: str) -> str:
        return self.text if tree == TREE else super().dump_text(tree)


def run(argv, driver, capsys, stdin: str | None = None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(
            io.BytesIO(stdin.encode("latin-1"))))
    try:
        status = cli.main(argv, driver)
    except SystemExit as e:
        status = e.code
    out, err = capsys.readouterr()
    assert "Traceback" not in err and "Traceback" not in out, err
    return status, out, err


@pytest.fixture(scope="module")
def texts():
    return {name: make() for name, make in HOSTILE.items()}


COMMANDS = [["check"], ["check", "--json"], ["dump"], ["dump", "--json"],
            ["dump", "--raw"], ["show", "--color", "never"],
            ["show", "--json"]]


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_hostile_live_dump(name, argv, texts, capsys):
    """A hostile live tree: the verdict or the drawing, or exit 1 naming
    the tree; the other trees of --all are still handled."""
    if name in ("huge", "deep-chain") and argv[0] == "show" and \
            "--json" not in argv:
        argv = argv + ["--max-depth", "3"]
    for select in ([TREE], ["--all"]):
        status, out, err = run(argv + select, Hostile(texts[name]), capsys)
        if name not in PARSES:
            assert status == 1 or argv[-1] == "--raw", (status, out, err)
            if argv[-1] != "--raw":
                assert f"{TREE}: fail dump: dump line " in out + err or \
                    '"error": "dump line ' in out
        else:
            assert status in (0, 1), (status, out, err)
            if argv[0] == "check":
                assert status == (0 if name == "huge" else 1)
        if select == ["--all"] and argv[-1] != "--raw":
            assert "mainline" in out


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("argv", COMMANDS, ids=" ".join)
def test_hostile_saved_dump(name, argv, texts, capsys, tmp_path, monkeypatch):
    """The same dumps as files and on stdin, without debugfs."""
    path = tmp_path / f"{name}.dump"
    path.write_bytes(texts[name].encode("latin-1"))
    if name in ("huge", "deep-chain") and argv[0] == "show" and \
            "--json" not in argv:
        argv = argv + ["--max-depth", "3"]
    for arg, stdin in ((str(path), None), ("-", texts[name])):
        status, out, err = run(argv + [arg], FakeDebugfs(), capsys, stdin,
                               monkeypatch)
        if argv[-1] == "--raw":
            assert status == 0
        elif name not in PARSES:
            assert status == 1 and "dump line " in out + err, (out, err)
        else:
            assert status in (0, 1)
        if name == "deep-chain" and argv[0] in ("check", "show") and \
                "--json" not in argv:
            # 2,000 nodes, 2,000 violations: ten drawn or printed, and
            # a line for the rest (each line's indent bounded too).
            assert len(out) < 30_000, len(out)
            assert ("… and 1990 more violations" if argv[0] == "check" else
                    "… and 1987 more violations not drawn") in out, out[-300:]


@pytest.mark.parametrize("name", ["unknown-links", "cycle", "truncated",
                                  "garbage", "deep-chain", "huge-key"])
def test_hostile_dump_while_fuzzing(name, texts, capsys):
    """A module whose dump is hostile fails the fuzz run (exit 1)."""
    status, out, _ = run(["fuzz", TREE, "--ops", "300", "--progress", "0",
                          "--seed", "1", "--check-every", "100", "--out",
                          "/nonexistent/rbti-out"],
                         Hostile(texts[name]), capsys)
    assert status == 1 and f"FAIL {TREE}: " in out and len(out) < 20_000


class BadReplies(FakeDebugfs):
    """A module of another version: its trees and check files do not
    read as the contract says."""

    def __init__(self, broken: str) -> None:
        super().__init__()
        self.broken = broken

    def trees(self):
        if self.broken == "trees":
            raise ReplyError("trees: expected 'rbtree-inspector 1', got 'x'")
        return super().trees()

    def check(self, tree):
        if self.broken == "check":
            from rbtilib.driver import parse_check
            return parse_check("nonsense")
        return super().check(tree)


def test_bad_module_replies(capsys):
    status, _, err = run(["trees"], BadReplies("trees"), capsys)
    assert status == 2 and err.startswith("rbti: the module's trees: ")
    status, out, _ = run(["check", "--all"], BadReplies("check"), capsys)
    assert status == 1 and "santos: module: fail reply node -: check: " \
        "cannot parse 'nonsense'" in out and out.count("module: fail") == 7


BAD_ARGS = [
    ["dump"], ["dump", "--all", TREE], ["dump", "--raw", "--json", TREE],
    ["check"], ["check", "--all", TREE], ["check", "--max", "x", TREE],
    ["show"], ["show", "--all", TREE], ["show", "--watch", "1", "-"],
    ["show", "--watch", "1", "--json", TREE], ["show", "--frames", "1", TREE],
    ["fuzz"], ["fuzz", "--all", TREE], ["fuzz", "--ops", "-1", "--all"],
    ["fuzz", "--mix", "a:b", "--all"], ["fuzz", "--trees", TREE],
    ["replay"], ["replay", "/nonexistent.json"], ["trees", TREE],
    ["kernel"], ["kernel", "--preset", "cfs", "--expr", "x"],
    ["kernel", "--preset", "cfs", "--all", "cfs/cpu0"],
    ["kernel", "--preset", "nope"], ["kernel", "--root", "x", "--preset", "cfs"],
    ["kernel", "--preset", "cfs", "a", "b"], ["verify"],
    ["verify", "--all", TREE], ["nope"], [],
]


@pytest.mark.parametrize("argv", BAD_ARGS, ids=" ".join)
def test_bad_argument_combinations(argv, capsys):
    """Usage errors: exit 2 and the subcommand's usage line, before any
    tree (or drgn) is looked at."""
    status, _, err = run(argv, FakeDebugfs(), capsys)
    assert status == 2 and err.startswith("usage: rbti"), err
    assert err.strip().splitlines()[-1].startswith("rbti")


REPRO = '{"rbti-repro": 1, "tree": "santos", "ops": [%s]}'


@pytest.mark.parametrize("data", [
    '[1, 2]', REPRO % '["i"]', "{", "", REPRO % '["i", Infinity]',
    REPRO % '["i", NaN]', REPRO % '["i", -Infinity]', REPRO % '["i", 1.5]',
    REPRO % '["i", "5"]', REPRO % '["i", true]', REPRO % '[1, 2]',
    "[" * 200_000 + "]" * 200_000, REPRO % ("[" * 200_000 + "]" * 200_000),
    REPRO % '["i", %s]' % ("9" * 5000), b"\xff\xfe{}"],
    ids=lambda d: d[:40] if len(d) < 60 else f"{d[:20]}...{len(d)}")
def test_hostile_repro_files(data, capsys, tmp_path):
    """A file that is no repro (not JSON, NaN or Infinity, nesting deeper
    than Python's recursion, a key that is no integer): exit 2 and a usage
    message naming the file, before any tree is touched (read_repro runs
    inside argparse)."""
    path = tmp_path / "r.json"
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    status, _, err = run(["replay", str(path)], FakeDebugfs(), capsys)
    assert status == 2, err
    assert f"argument file: {path}: not an rbti repro file" in err, err


@pytest.mark.parametrize("argv", [["check"], ["check", "--max", "3"],
                                  ["check", "--max", "all"]], ids=" ".join)
def test_check_says_how_many_more(argv, texts, capsys, tmp_path):
    """``rbti check`` prints --max violations (10 by default) and a last
    line with how many more; --max all prints every one (--max is the
    alias of --max-violations)."""
    path = tmp_path / "chain.dump"
    path.write_text(chain(40))
    status, out, _ = run(argv + [str(path)], FakeDebugfs(), capsys)
    shown = {"check": 10, "3": 3, "all": 40}[argv[-1]]
    lines = out.splitlines()
    assert status == 1 and sum(": fail " in line for line in lines) == shown
    if shown < 40:
        assert lines[-1] == f"chain: … and {40 - shown} more violations " \
            "(--max-violations all prints them)"
    else:
        assert "more violation" not in out


def test_unknown_links_dump_lines(texts, capsys):
    """``rbti dump`` of a tree with '?' links prints them as '?' (it used
    to compare the Unknown sentinel with 0: a TypeError)."""
    status, out, _ = run(["dump", TREE], Hostile(texts["unknown-links"]),
                         capsys)
    assert status == 0 and " left ? " in out and "parent ? " in out
    assert parse_dump(texts["unknown-links"]).nodes
