# SPDX-License-Identifier: GPL-2.0
"""rbti's output contract: the --json documents (docs/json.md), exit
statuses, NO_COLOR and the help text."""

import json

import pytest

from rbtilib import cli
from tests_support.dumps import ADDRESS_DUMP
from tests_support.fake import FakeDebugfs
from tests_support.shared import run

SCHEMA = 1


def document(argv, driver, capsys, command):
    """Run *argv*, parse stdout as one JSON document of *command*."""
    status, out, err = run(argv, driver, capsys)
    assert out.count("\n") == 1, out
    doc = json.loads(out)
    assert doc["schema"] == SCHEMA and doc["command"] == command
    return status, doc, err


def populated() -> FakeDebugfs:
    driver = FakeDebugfs()
    for info in driver.trees():
        driver.insert(info.name, list(range(0, 20, 2)))
    return driver


def corrupted() -> FakeDebugfs:
    driver = populated()
    driver.set_param("allow_corrupt", "1")
    driver.corrupt("santos", "color 6")
    return driver


def test_trees_json(capsys):
    status, doc, _ = document(["trees", "--json"], FakeDebugfs(), capsys,
                              "trees")
    assert status == 0 and len(doc["trees"]) == 7
    assert {"tree": "santos_aug", "name": "santos_aug", "api": "santos",
            "flags": ["augmented", "count", "unique"]} in doc["trees"]


def test_dump_json_is_the_parsed_dump(capsys):
    driver = populated()
    status, doc, _ = document(["dump", "--json", "santos_aug"], driver,
                              capsys, "dump")
    tree = driver.dump("santos_aug")
    (got,) = doc["trees"]
    assert status == 0 and doc["ok"] is True
    assert got["tree"] == got["name"] == "santos_aug" and got["count"] == 10
    assert got["root"] == tree.root and got["aug"] == tree.aug
    assert [n["id"] for n in got["nodes"]] == list(tree.nodes)
    first = tree.nodes[tree.root]
    assert got["nodes"][0] == {
        "id": first.id, "key": first.key, "color": first.color,
        "parent": None, "left": first.left, "right": first.right,
        "aug": first.aug}
    assert got["lost"] == []


def test_check_json_verdicts(capsys):
    status, doc, _ = document(["check", "--json", "--all"], corrupted(),
                              capsys, "check")
    assert status == 1 and doc["ok"] is False
    by_name = {t["tree"]: t for t in doc["trees"]}
    assert len(by_name) == 7 and by_name["mainline"]["ok"] is True
    bad = by_name["santos"]
    assert bad["ok"] is False and bad["violation_count"] >= 1
    assert bad["violations"][0]["class"] and \
        isinstance(bad["violations"][0]["node"], int)
    assert bad["module"]["ok"] is False and bad["error"] is None
    assert by_name["mainline"]["module"] == {"ok": True, "class": None,
                                             "node": None, "message": ""}


def test_check_json_of_a_malformed_file(capsys, tmp_path):
    path = tmp_path / "bad.dump"
    path.write_text("tree x\n")
    status, doc, _ = document(["check", "--json", str(path)], FakeDebugfs(),
                              capsys, "check")
    (verdict,) = doc["trees"]
    assert status == 1 and verdict["error"].startswith("dump line ")
    assert verdict["nodes"] is None and verdict["module"] is None


def test_show_json_is_the_violations(capsys):
    status, doc, _ = document(["show", "--json", "santos", "mainline"],
                              corrupted(), capsys, "show")
    santos, mainline = doc["trees"]
    assert status == 0 and santos["tree"] == "santos"
    assert santos["violations"] and mainline["violations"] == []
    assert santos["nodes"] == 10 and santos["height"] >= 1


def test_fuzz_json_summary(capsys, tmp_path):
    status, doc, err = document(
        ["fuzz", "santos", "mainline", "--ops", "500", "--seed", "3",
         "--progress", "0", "--json"], FakeDebugfs(), capsys, "fuzz")
    assert status == 0 and doc["ok"] is True and doc["seed"] == 3
    assert doc["trees"] == ["santos", "mainline"] and doc["ops"] == 1000
    assert doc["failure"] is None and doc["repro"] is None
    assert "seed 3" in err

    def fault(tree, op, key, line):
        return "ENOENT" if op == "f" else line
    status, doc, _ = document(
        ["fuzz", "santos", "--ops", "2000", "--seed", "1", "--progress", "0",
         "--out", str(tmp_path), "--json"], FakeDebugfs(fault=fault), capsys,
        "fuzz")
    assert status == 1 and doc["ok"] is False
    assert doc["failure"]["tree"] == "santos" and \
        doc["failure"]["kind"] == "mismatch"
    assert doc["repro"]["path"].endswith("santos-seed1.json") and \
        doc["repro"]["ops"] >= 1


class Buggy(FakeDebugfs):
    def check(self, tree):
        raise ValueError("a bug")


def test_a_bug_is_not_a_failed_tree(capsys):
    """An exception rbti does not expect is a bug: exit 70 with the
    traceback, never 1 (a failed tree) or 2."""
    status, _, err = run(["check", "santos"], Buggy(), capsys)
    assert status == 70 and "internal error" in err and \
        "ValueError: a bug" in err


def test_check_all_goes_on_after_a_malformed_live_dump(capsys):
    class OneBad(FakeDebugfs):
        def dump_text(self, tree):
            return "tree x\n" if tree == "santos" else super().dump_text(tree)
    status, out, _ = run(["check", "--all"], OneBad(), capsys)
    assert status == 1
    assert "santos: fail dump: dump line 2: " in out
    assert out.count(": ok (0 nodes)") == 6


def test_no_color_is_honoured(capsys, monkeypatch):
    """NO_COLOR (no-color.org) turns auto colour off; --color always
    still colours."""
    from rbtilib.cli import common
    monkeypatch.setattr("sys.stdout.isatty", lambda: True, raising=False)

    class Tty:
        def isatty(self):
            return True
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm")
    assert common.color_wanted("auto", Tty())
    monkeypatch.setenv("NO_COLOR", "1")
    assert not common.color_wanted("auto", Tty())
    assert common.color_wanted("always", Tty())
    monkeypatch.setenv("NO_COLOR", "")
    assert common.color_wanted("auto", Tty())


def help_texts(capsys, width: int):
    """(name, --help text) of rbti and every subcommand at *width*."""
    _, parsers = cli.build()
    out = []
    for argv in [[]] + [[name] for name in parsers]:
        with pytest.raises(SystemExit) as done:
            cli.main(argv + ["--help"], FakeDebugfs())
        assert done.value.code == 0
        out.append((" ".join(argv) or "rbti", capsys.readouterr().out))
    return out


@pytest.mark.parametrize("width", [60, 80, 120])
def test_help_wraps_to_the_terminal(width, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", str(width))
    for name, text in help_texts(capsys, width):
        long = [line for line in text.splitlines()
                if len(line) > width and "rbti " not in line]
        assert not long, (name, long)


def test_every_help_has_examples(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    for name, text in help_texts(capsys, 80):
        examples = text.partition("\nexample")[2]
        assert examples and "\n  rbti " in examples, name


def test_help_states_the_exit_statuses(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    text = dict(help_texts(capsys, 80))["rbti"]
    for status in ("0  ok", "1  a tree failed", "2  a usage or environment",
                   "70 an internal error"):
        assert f"\n  {status}" in text


def test_address_trees_print_in_hex(capsys, tmp_path):
    """A dump whose 'hex' line marks keys and augs as addresses and sizes
    is printed in hex by show, dump and --json; --hex does it for any
    tree."""
    path = tmp_path / "fva.dump"
    path.write_text(ADDRESS_DUMP)
    status, out, _ = run(["show", "--color", "never", str(path)],
                         FakeDebugfs(), capsys)
    assert status == 0 and "0xfffffbfff4003000 B subtree_max_size=0x1000" \
        in out and "18446739675461726208" not in out
    status, out, _ = run(["dump", str(path)], FakeDebugfs(), capsys)
    assert "key 0xfffffbfff4004000 " in out and "aug 0x1000" in out
    _, doc, _ = document(["dump", "--json", str(path)], FakeDebugfs(),
                         capsys, "dump")
    tree = doc["trees"][0]
    assert tree["hex"] == ["key", "aug"] and \
        tree["nodes"][0]["key"] == "0xfffffbfff4003000" and \
        tree["nodes"][0]["aug"] == "0x1000"
    driver = populated()
    status, out, _ = run(["show", "--hex", "--color", "never", "santos"],
                         driver, capsys)
    assert "0xa B" in out and "\n10 B" not in out
    _, doc, _ = document(["dump", "--hex", "--json", "santos"], driver,
                         capsys, "dump")
    assert {n["key"] for n in doc["trees"][0]["nodes"]} == \
        {hex(k) for k in range(0, 20, 2)}


def test_every_document_names_a_tree_by_tree(capsys, tmp_path):
    """dump --json named a tree "name" where check and show say "tree":
    every document says "tree" (dump and trees keep "name", the same
    string, as an alias), and every document has its "schema"."""
    bad = tmp_path / "bad.dump"
    bad.write_text("tree x\n")
    driver = populated()
    for argv, command in ((["trees"], "trees"),
                          (["dump", "santos", str(bad)], "dump"),
                          (["check", "santos", str(bad)], "check"),
                          (["show", "santos", str(bad)], "show")):
        _, doc, _ = document(argv + ["--json"], driver, capsys, command)
        names = [t["tree"] for t in doc["trees"]]
        assert names == ([i.name for i in driver.trees()]
                         if command == "trees" else ["santos", str(bad)])
        if command in ("trees", "dump"):
            assert all(t["name"] == t["tree"] for t in doc["trees"])


@pytest.mark.parametrize("option", ["--max", "--max-violations"])
def test_check_takes_max_violations_and_its_alias_max(option, capsys,
                                                      tmp_path):
    """One name for the violations printed, as viz/render's:
    --max-violations, with --max its alias."""
    from tests_support.hostile import chain
    path = tmp_path / "chain.dump"
    path.write_text(chain(40))
    status, out, _ = run(["check", option, "3", str(path)], FakeDebugfs(),
                         capsys)
    lines = out.splitlines()
    assert status == 1 and sum(": fail " in line for line in lines) == 3
    assert lines[-1] == "chain: … and 37 more violations " \
        "(--max-violations all prints them)"
