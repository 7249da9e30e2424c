# SPDX-License-Identifier: GPL-2.0
"""docs/options.md's table against the parsers: every option two
commands take (rbti's subcommands, viz/render, viz/walkthrough) is a row,
each row's names (the option and its alias) and value are those of every
command it lists, and it lists every command that takes it.  The
parsers are the ones tools/gen-cli-docs makes the man pages from, walked
as rbtilib.cli.manpage walks them; viz/walkthrough has no argparse, its
usage text is its command line.  The JSON row: the key that names a tree.
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from rbtilib.cli import main as rbti_main
from rbtilib.cli.manpage import subparsers
from rbtiviz import walkthrough
from tests_support.fake import FakeDebugfs
from tests_support.trees import load_script

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "options.md"
GEN = load_script(str(REPO / "tools" / "gen-cli-docs"), "gen_cli_docs_options")
EXAMPLE = REPO / "docs" / "examples" / "santos.dump"


def rows() -> dict[str, dict]:
    """Option (or JSON key) -> {alias, commands, value} of the table."""
    out = {}
    for line in PAGE.read_text(encoding="utf-8").splitlines():
        cells = [c.strip().replace("\\|", "|")
                 for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) != 5 or not cells[0].startswith("`"):
            continue
        name, alias, taken, value, _ = cells
        out[name.strip("`")] = {
            "alias": alias.strip("`") or None,
            "commands": re.findall(r"`([^`]+)`", taken),
            "value": value.strip("`")}
    return out


def _value(action: argparse.Action) -> str:
    """An option's value as the table writes it: ``none`` for a flag,
    else its metavar (argparse's default: the choices, or DEST)."""
    if action.nargs == 0:
        return "none"
    if action.metavar:
        return action.metavar
    if action.choices:
        return "|".join(map(str, action.choices))
    return action.dest.upper()


def walkthrough_options() -> dict[str, tuple[tuple, str]]:
    """viz/walkthrough's options from its usage lines: ``--name NAME``."""
    lines = walkthrough.usage().split("\n\n")[0]
    found = {}
    for opt, meta in re.findall(r"(--[a-z-]+)(?: ([A-Z]+)\b)?", lines):
        found[opt] = ((opt,), meta or "none")
    return found


def commands() -> dict[str, dict[str, tuple[tuple, str]]]:
    """Command -> option -> (its names, its value), for ``rbti``, each
    ``rbti SUB``, ``viz/render`` and ``viz/walkthrough``."""
    parsers = GEN.parsers()
    top = parsers["rbti"]
    found = {"rbti": top, **{f"rbti {n}": p for n, p in subparsers(top).items()},
             "viz/render": parsers["rbti-render"]}
    out = {}
    for name, p in found.items():
        out[name] = {}
        for action in p._actions:
            if action.option_strings and not isinstance(action, argparse._HelpAction):
                names = tuple(action.option_strings)
                for opt in names:
                    out[name][opt] = (names, _value(action))
    out["viz/walkthrough"] = walkthrough_options()
    return out


def test_the_table_has_the_rows_this_test_reads():
    table = rows()
    assert {"--max-violations", "--max-depth", "--hex", "--version", '"tree"'} <= set(table)
    assert table["--max-violations"]["alias"] == "--max"


def test_each_row_is_what_the_parsers_take():
    cmds = commands()
    wrong = []
    for opt, row in rows().items():
        if not opt.startswith("--"):
            continue
        takers = sorted(c for c, opts in cmds.items() if opt in opts)
        if sorted(row["commands"]) != takers:
            wrong.append(f"{opt}: the table says {row['commands']}, the parsers {takers}")
        want = (opt,) + ((row["alias"],) if row["alias"] else ())
        for cmd in takers:
            names, value = cmds[cmd][opt]
            if set(names) != set(want) or names[0] != opt:
                wrong.append(f"{cmd} {opt}: names {names}, the table {want} "
                             "(the name to use first, then its alias)")
            if value != row["value"]:
                wrong.append(f"{cmd} {opt}: value {value}, the table {row['value']}")
    assert wrong == []


def test_every_option_two_commands_take_is_a_row():
    takers: dict[str, set] = {}
    for cmd, opts in commands().items():
        for opt, (names, _) in opts.items():
            if opt == names[0]:
                takers.setdefault(opt, set()).add(cmd)
    shared = {opt for opt, cmds in takers.items() if len(cmds) > 1}
    assert sorted(shared - set(rows())) == []


def test_an_alias_is_no_option_of_its_own():
    """An alias is never the name another command uses for something else."""
    cmds = commands()
    aliases = {row["alias"]: opt for opt, row in rows().items()
               if row["alias"] and opt.startswith("--")}
    for cmd, opts in cmds.items():
        for alias, opt in aliases.items():
            if alias in opts:
                assert opts[alias][0][0] == opt, (cmd, alias)


def _document(argv: list[str], capsys) -> dict:
    status = rbti_main(argv, driver=FakeDebugfs())
    out = capsys.readouterr().out
    assert status == 0, out
    return json.loads(out)


def test_the_json_key_that_names_a_tree(capsys, tmp_path):
    """``tree`` in every document; ``name`` beside it, equal, only where
    the table says the alias is; a flipbook's frames.json says ``tree``."""
    row = rows()['"tree"']
    assert (row["alias"], row["commands"]) == ('"name"', ["rbti trees", "rbti dump"])
    entries = {
        "rbti trees": _document(["trees", "--json"], capsys)["trees"],
        "rbti dump": _document(["dump", "--json", str(EXAMPLE)], capsys)["trees"],
        "rbti check": _document(["check", "--json", str(EXAMPLE)], capsys)["trees"],
        "rbti show": _document(["show", "--json", str(EXAMPLE)], capsys)["trees"],
    }
    for cmd, trees in entries.items():
        assert trees, cmd
        for tree in trees:
            assert isinstance(tree["tree"], str), cmd
            assert ("name" in tree) == (cmd in row["commands"]), cmd
            assert tree.get("name", tree["tree"]) == tree["tree"], cmd
    from rbtilib.dump import parse_dump, read_dump_file
    from rbtiviz.flipbook import Series
    with Series(tmp_path, "santos", render=False) as series:
        series.add(parse_dump(read_dump_file(str(EXAMPLE))), "i 1 -> ok")
    data = json.loads((tmp_path / "santos" / "frames.json").read_text())
    assert data["tree"] == "santos" and "name" not in data
