# SPDX-License-Identifier: GPL-2.0
"""Run tools/guest-tests' logic against the fake driver (host check that
its expectations are consistent; the real run is in the guest)."""

import os

import pytest

from rbtilib import checker, record
from tests_support.trees import FakeDebugfs, load_script

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "guest-tests")


def load():
    return load_script(PATH, "guest_tests")


def test_guest_tests_pass_on_the_fake(tmp_path, capsys):
    gt = load()
    args = gt.parser().parse_args(["--big-ops", "20000", "--out",
                                   str(tmp_path), "--big-tree-nodes",
                                   "3000"])
    driver = FakeDebugfs()
    res = gt.run(driver, args)
    out = capsys.readouterr().out
    assert res.failed == 0, out
    assert res.passed > 150
    assert "not ok" not in out
    assert "wrong model: fuzz detects it" in out
    # The shape commands run on a module with the 'nodes' line ...
    assert "corrupt share" in out and "corrupt cycle" in out
    assert "detach" in out and "is listed as lost" in out
    assert "big trees: santos,mainline grown to 3000 nodes" in out
    assert "big fuzz seed" in out
    assert driver.get_param("allow_corrupt") == "0"


@pytest.mark.slow
def test_shape_cases_skipped_on_an_old_module(tmp_path, capsys):
    gt = load()
    args = gt.parser().parse_args(["--big-ops", "0", "--stress-lookups",
                                   "0", "--out",
                                   str(tmp_path)])
    res = gt.run(FakeDebugfs(allocated=False), args)
    out = capsys.readouterr().out
    assert res.failed == 0, out
    assert res.skipped == 1 and "corrupt share" not in out
    assert "shape corruption (detach/share/cycle) # SKIP" in out


@pytest.mark.slow
def test_guest_tests_catch_a_broken_fake(tmp_path, capsys):
    gt = load()

    class NoEuclean(FakeDebugfs):
        def insert(self, name, keys):
            saved = self._corrupt.pop(name, None)
            super().insert(name, keys)
            if saved:
                self._corrupt[name] = saved

    args = gt.parser().parse_args(["--big-ops", "0", "--out",
                                   str(tmp_path)])
    res = gt.run(NoEuclean(), args)
    out = capsys.readouterr().out
    assert res.failed > 0 and "insert is EUCLEAN" in out


def test_both_checkers_are_two(tmp_path, capsys, monkeypatch):
    """The fake module's check is not the Python checker: a Python
    checker that blames the wrong node disagrees with it."""
    gt = load()
    real = checker.first_violation

    def wrong(tree):
        found = real(tree)
        return found and record.replace(found, node=-1)

    monkeypatch.setattr(checker, "first_violation", wrong)
    args = gt.parser().parse_args(["--big-ops", "0", "--big-tree-nodes",
                                   "0", "--out", str(tmp_path)])
    res = gt.run(FakeDebugfs(), args)
    out = capsys.readouterr().out
    same = [ln for ln in out.splitlines()
            if ln.endswith("both checkers name the same node")]
    assert same and all(ln.startswith("not ok") for ln in same)
    assert res.failed >= len(same)


def test_guest_tests_cover_the_family_trees(tmp_path, capsys):
    from tests_support.trees import CONTRACT_TREES, FAMILY_TREES
    gt = load()
    args = gt.parser().parse_args(["--big-ops", "2000", "--tree-ops",
                                   "3000", "--big-tree-nodes", "0",
                                   "--stress-lookups", "5000000", "--out",
                                   str(tmp_path)])
    res = gt.run(FakeDebugfs(CONTRACT_TREES + FAMILY_TREES), args)
    out = capsys.readouterr().out
    assert res.failed == 0, out
    for text in ("interval: corrupt value", "mainline_aug: corrupt value",
                 "latch: corrupt latch", "interval: corrupt key",
                 "mainline_rcu: corrupt latch", "3000 checked ops on every "
                 "tree", "latch: stress of 2500000 lockless lookups",
                 "mainline_rcu: stress: lookups 2500000"):
        assert text in out, text
    lines = out.splitlines()
    for tree, command, verdict in (("latch", "latch", "accepted"),
                                   ("mainline_rcu", "latch", "is EINVAL"),
                                   ("interval", "value", "accepted"),
                                   ("latch", "value", "is EINVAL")):
        assert any(ln.startswith("ok ") and ln.endswith(verdict) and
                   f"- {tree}: corrupt {command} " in ln for ln in lines)


def test_stress_skipped_without_a_stress_file(tmp_path, capsys):
    gt = load()
    args = gt.parser().parse_args(["--big-ops", "0", "--big-tree-nodes",
                                   "0", "--out", str(tmp_path)])
    res = gt.run(FakeDebugfs(), args)
    out = capsys.readouterr().out
    assert res.failed == 0 and "lockless lookup stress # SKIP" in out
