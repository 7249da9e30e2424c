# SPDX-License-Identifier: GPL-2.0
"""Run tools/guest-tests' logic against the fake driver (host check that
its expectations are consistent; the real run is in the guest)."""

import os

import pytest

from rbtilib import checker, record
from tests_support.fake import FakeDebugfs
from tests_support.trees import load_script

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "guest-tests")


def load():
    return load_script(PATH, "guest_tests")


def test_guest_tests_pass_on_the_fake(tmp_path, capsys):
    gt = load()
    args = gt.parser().parse_args(["--big-ops", "20000", "--out",
                                   str(tmp_path), "--big-tree-nodes",
                                   "3000", "--stress-lookups", "0"])
    driver = FakeDebugfs()
    res = gt.run(driver, args)
    out = capsys.readouterr().out
    assert res.failed == 0, out
    assert res.passed > 150
    assert "not ok" not in out
    assert "wrong model: fuzz detects it" in out
    # The shape commands ...
    assert "corrupt share" in out and "corrupt cycle" in out
    assert "detach" in out and "is listed as lost" in out
    assert "big trees: santos,mainline grown to 3000 nodes" in out
    assert "big fuzz seed" in out
    assert driver.get_param("allow_corrupt") == "0"


@pytest.mark.slow
def test_a_dump_without_its_nodes_line_fails_the_shape_cases(tmp_path,
                                                             capsys):
    """The dump's 'nodes' line is the module's (kmod/DEBUGFS.md): a
    module without it fails the shape cases, never skips them."""
    gt = load()
    args = gt.parser().parse_args(["--big-ops", "0", "--stress-lookups",
                                   "0", "--out",
                                   str(tmp_path)])
    res = gt.run(FakeDebugfs(allocated=False), args)
    out = capsys.readouterr().out
    assert res.failed > 0 and res.skipped == 0 and "corrupt share" in out
    assert any(ln.startswith("not ok") and "clear frees every node" in ln
               for ln in out.splitlines()), out


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


def test_stress_fails_without_a_stress_file(tmp_path, capsys):
    """latch is on every kernel: a module with no stress file fails (2
    tests: no skip for it in qemu/skip-reasons)."""
    gt = load()
    args = gt.parser().parse_args(["--big-ops", "0", "--big-tree-nodes",
                                   "0", "--out", str(tmp_path)])
    res = gt.run(FakeDebugfs(), args)
    out = capsys.readouterr().out
    assert res.failed == 1 and res.skipped == 0
    assert "not ok" in out and "a tree flagged latch or lockless" in out


def expected_run(tmp_path, capsys, infos, release, *more):
    gt = load()
    args = gt.parser().parse_args(["--big-ops", "0", "--big-tree-nodes",
                                   "0", "--stress-lookups", "0", "--out",
                                   str(tmp_path), *more])
    driver = FakeDebugfs(infos)
    driver.release = release
    res = gt.run(driver, args)
    return res, capsys.readouterr().out


def test_a_6_12_module_that_loses_mainline_rcu_fails(tmp_path, capsys):
    """The trees a kernel must have follow from its version, not from
    the module under test (kmod/tests/module-trees)."""
    from tests_support.trees import CONTRACT_TREES, FAMILY_TREES
    lost = [i for i in FAMILY_TREES if i.name != "mainline_rcu"]
    res, out = expected_run(tmp_path, capsys, CONTRACT_TREES + lost,
                            "6.12.57+deb13-amd64", "--lockless-ops", "100")
    assert res.failed == 2 and res.skipped == 0, out
    assert "not ok" in out and "mainline_rcu: there on 6.12.57" in out
    assert "lockless fuzz: a tree flagged lockless on 6.12" in out


def test_a_6_1_module_skips_the_lockless_fuzz_with_a_listed_reason(
        tmp_path, capsys):
    from tests_support.trees import CONTRACT_TREES, FAMILY_TREES
    lost = [i for i in FAMILY_TREES if i.name != "mainline_rcu"]
    res, out = expected_run(tmp_path, capsys, CONTRACT_TREES + lost,
                            "6.1.0-40-amd64", "--lockless-ops", "100")
    assert res.failed == 0 and res.skipped == 1, out
    assert "ok 1 - mainline_rcu: absent on 6.1.0-40-amd64" in out
    assert "# SKIP this kernel is before 6.12" in out
    # ... and a 6.1 module that has it is as wrong as one that lacks it.
    res, out = expected_run(tmp_path, capsys, CONTRACT_TREES + FAMILY_TREES,
                            "6.1.0-40-amd64")
    assert res.failed == 1 and "not ok 1 - mainline_rcu: absent" in out


def test_repros_go_under_rbti_out(monkeypatch, tmp_path):
    """The guest can write RBTI_OUT (anywhere) but not the repository:
    the default --out follows RBTI_OUT, and is out/ only without it."""
    gt = load()
    monkeypatch.setenv("RBTI_OUT", str(tmp_path))
    assert gt.parser().parse_args([]).out == str(tmp_path / "guest-tests")
    monkeypatch.delenv("RBTI_OUT")
    assert gt.parser().parse_args([]).out == os.path.join("out",
                                                         "guest-tests")
