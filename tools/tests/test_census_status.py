# SPDX-License-Identifier: GPL-2.0
"""``rbti census``'s exit status and the completeness of its report, over
the fake memory of tests_support.kmem (no drgn, no guest): 0 every tree
read and clean, 1 a violation, 3 incomplete (a tree that kept changing,
one that could not be read, trees left unread at --time-limit)."""

import argparse
import functools
import json
import struct

import pytest

from rbtilib.kernel import census, census_cmd, census_find
from tests_support.kmem import (GOOD, ROOT_SLOT, Churning, FakeMemory, addr_of,
                                build)


class _Prog:
    """No types and no symbols: every kind of the table is "config off"."""

    def type(self, name):
        raise LookupError(name)

    def symbol(self, name):
        raise LookupError(name)




BROKEN = 0x3000
"""A root slot whose tree has a red node under a red node."""
UNMAPPED = 0x9000
"""A root slot no block holds: the tree cannot be read."""


def _memory(churning: bool = False) -> FakeMemory:
    mem = build(GOOD, 0, mem=Churning() if churning else None)
    bad = {k: (key + 100, *rest) for k, (key, *rest) in GOOD.items()}
    bad[1] = (110, "R", 0, 3, 4)
    other = build(bad, 0, mem=FakeMemory())
    for i in bad:                   # the broken tree 0x10000 further on
        words = list(struct.unpack("<QQQqQQ",
                                   bytes(other.blocks[addr_of(i)])))
        for w in range(3):
            if words[w] & ~3:
                words[w] += 0x10000
        mem.put(addr_of(i) + 0x10000, struct.pack("<QQQqQQ", *words))
    mem.put(BROKEN, struct.pack("<Q", addr_of(0) + 0x10000))
    return mem


def _args(**kw) -> argparse.Namespace:
    base = dict(command="census", kind=None, out=None, time_limit=None,
                verbose=False, json=True, vmlinux=None, debug_info=None,
                kcore="/proc/kcore", core=None, attempts=8)
    base.update(kw)
    return argparse.Namespace(**base)


def _run(monkeypatch, capsys, roots: dict, churning: bool = False, **kw):
    """``rbti census`` over *roots* (name -> root slot): its exit status,
    the JSON document (or the text) and stderr."""
    mem = _memory(churning)
    finder = census_find.Finder(_Prog(), mem)
    for name, slot in roots.items():
        finder.add(f"{name}.root", "global", name, slot, False, slot)
    monkeypatch.setattr(census_cmd, "DrgnMemory", lambda prog: mem)
    monkeypatch.setattr(census_cmd, "run_census", functools.partial(
        census.run_census, finder=finder))
    args = _args(**kw)
    status = census_cmd.run(args, _Prog())
    out, err = capsys.readouterr()
    return status, json.loads(out) if args.json else out, err


def test_a_census_of_clean_trees_read_whole_is_0(monkeypatch, capsys):
    status, doc, _ = _run(monkeypatch, capsys, {"a": ROOT_SLOT})
    assert status == 0
    assert (doc["ok"], doc["complete"], doc["changing"], doc["unreadable"],
            doc["not_read"]) == (True, True, 0, 0, 0)


@pytest.mark.parametrize("case", ["changing", "unreadable", "time limit"])
def test_an_incomplete_census_is_3_and_not_ok(case, monkeypatch, capsys):
    """A tree still changing after --attempts reads, a tree that could
    not be read, trees left unread at --time-limit: the census did not
    see every tree, so it is not a clean one (exit 3, "ok": false)."""
    roots = {"a": ROOT_SLOT}
    kw = {}
    if case == "unreadable":
        roots["gone"] = UNMAPPED
    if case == "time limit":
        kw["time_limit"] = 1e-9
    status, doc, _ = _run(monkeypatch, capsys, roots,
                          churning=case == "changing", **kw)
    assert status == 3
    assert doc["ok"] is False and doc["complete"] is False
    assert doc["violations"] == []
    assert (doc["changing"], doc["unreadable"], doc["not_read"] > 0) == {
        "changing": (1, 0, False), "unreadable": (0, 1, False),
        "time limit": (0, 0, True)}[case]
    status, text, _ = _run(monkeypatch, capsys, roots,
                           churning=case == "changing", json=False, **kw)
    assert status == 3 and "\nincomplete: " in text


def test_a_violation_is_1_even_in_an_incomplete_census(monkeypatch, capsys):
    status, doc, _ = _run(monkeypatch, capsys,
                          {"bad": BROKEN, "gone": UNMAPPED})
    assert status == 1
    assert (doc["ok"], doc["complete"], doc["unreadable"]) == \
        (False, False, 1)
    assert [v["tree"] for v in doc["violations"]][:1] == ["bad"]


def test_census_help_lists_the_exit_statuses(capsys):
    from rbtilib import cli
    with pytest.raises(SystemExit):
        cli.main(["census", "--help"])
    out = capsys.readouterr().out
    assert "exit status:" in out and "  3  incomplete" in out


@pytest.mark.parametrize("argv", [
    ["census", "--time-limit", "-5"], ["census", "--time-limit", "0"],
    ["census", "--time-limit", "nan"], ["census", "--attempts", "-3"],
    ["census", "--attempts", "0"], ["kernel", "--preset", "cfs",
                                    "--attempts", "-3"],
    ["verify", "--all", "--attempts", "0"]], ids=" ".join)
def test_negative_or_zero_counts_and_times_are_usage_errors(argv, capsys):
    from rbtilib import cli
    with pytest.raises(SystemExit) as e:
        cli.main(argv)
    err = capsys.readouterr().err
    assert e.value.code == 2 and "argument --" in err, err
