# SPDX-License-Identifier: GPL-2.0
"""Tests of the rbti command line against the fake driver."""

import importlib.machinery
import importlib.util
import os

import pytest

from rbtilib import fuzz
from rbtilib.testing import FakeDebugfs

RBTI = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "rbti")


def load_rbti():
    loader = importlib.machinery.SourceFileLoader("rbti_cli", RBTI)
    spec = importlib.util.spec_from_loader("rbti_cli", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


rbti = load_rbti()


def run(argv, driver, capsys):
    status = rbti.main(argv, driver)
    out, err = capsys.readouterr()
    return status, out, err


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
    assert f"santos: fail parent node {victim.id}: parent link is " in out
    assert "mainline: ok" in out


def test_check_needs_trees_or_all(capsys):
    status, _, err = run(["check"], FakeDebugfs(), capsys)
    assert status == 2 and "--all" in err


def test_fuzz_ok_and_failure(capsys, tmp_path, monkeypatch):
    status, out, _ = run(["fuzz", "--ops", "2000", "--check-every", "500",
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
    status, out, _ = run(["fuzz", "--trees", "santos,mainline", "--ops",
                          "2000", "--out", str(tmp_path), "--progress", "0",
                          "--seed", "1"], driver, capsys)
    assert status == 1 and "FAIL santos: mismatch" in out
    repro = next(tmp_path.glob("santos-seed1.json"))
    assert fuzz.read_repro(str(repro))["ops"][0][0] in ("i", "I")
    status, out, _ = run(["replay", str(repro)], driver, capsys)
    assert status == 1 and "FAIL" in out
    status, out, _ = run(["replay", str(repro)], FakeDebugfs(), capsys)
    assert status == 0 and "does not reproduce" in out


@pytest.mark.parametrize("argv", [
    ["fuzz", "--keys", "9:1"], ["fuzz", "--mix", "1:1"],
    ["fuzz", "--ops", "0"], ["fuzz", "--trees", "bogus"],
])
def test_fuzz_usage_errors(argv, capsys):
    status, _, err = run(argv, FakeDebugfs(), capsys)
    assert status == 2 and err.startswith("rbti: ")


def test_replay_bad_file(tmp_path, capsys):
    path = tmp_path / "x.json"
    path.write_text('{"hello": 1}')
    status, _, err = run(["replay", str(path)], FakeDebugfs(), capsys)
    assert status == 2 and "not an rbti repro" in err


def test_missing_module_is_environment_error(tmp_path, capsys):
    status = rbti.main(["--root", str(tmp_path), "trees"])
    _, err = capsys.readouterr()
    assert status == 2 and "is rbtree_inspector loaded" in err


def test_every_subcommand_has_help(capsys):
    for sub in ("trees", "dump", "check", "fuzz", "replay"):
        with pytest.raises(SystemExit) as done:
            rbti.main([sub, "--help"], FakeDebugfs())
        assert done.value.code == 0
        assert "usage: rbti " + sub in capsys.readouterr().out
