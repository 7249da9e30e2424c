# SPDX-License-Identifier: GPL-2.0
"""rbti on the rbtree family's trees, against the fake:
overlap, stress, and VALUEs and latch copies in dump, show and --json."""

import json

from tests_support.fake import FakeDebugfs
from tests_support.trees import CONTRACT_TREES, FAMILY_TREES
from tests_support.shared import run


def family():
    driver = FakeDebugfs(CONTRACT_TREES + FAMILY_TREES)
    driver.insert("interval", [30, 10, 30, 5, 60], [40, 50, 31, 6, 70])
    driver.insert("mainline_aug", [1, 2, 3], [70, -5, 9])
    driver.insert("latch", [4, 8, 15, 16, 23, 42])
    return driver


def test_overlap_in_kernel_order(capsys):
    status, out, _ = run(["overlap", "interval", "31", "45"], family(),
                         capsys)
    assert status == 0
    assert out == ("#2 [10, 50]\n#1 [30, 40]\n#3 [30, 31]\n"
                   "3 intervals overlap [31, 45]\n")
    status, out, _ = run(["overlap", "--json", "interval", "6", "6"],
                         family(), capsys)
    doc = json.loads(out)
    assert status == 0 and doc["command"] == "overlap"
    assert doc["intervals"] == [{"id": 4, "start": 5, "last": 6}]


def test_overlap_usage_errors(capsys):
    status, _, err = run(["overlap", "interval", "9", "3"], family(),
                         capsys)
    assert status == 2 and "after LAST" in err
    status, _, err = run(["overlap", "latch", "1", "3"], family(), capsys)
    assert status == 2 and "no overlap file" in err
    status, _, err = run(["overlap", "interval", "1", "+3"], family(),
                         capsys)
    assert status == 2 and "LAST" in err


def test_stress(capsys):
    status, out, _ = run(["stress", "latch", "1000"], family(), capsys)
    assert status == 0 and "lookups 1000" in out and "ok 1" in out
    status, out, _ = run(["stress", "--json", "mainline_rcu", "10"],
                         family(), capsys)
    assert status == 0 and json.loads(out)["result"]["wrong"] == 0
    status, _, err = run(["stress", "mainline", "10"], family(), capsys)
    assert status == 2 and "no stress file" in err
    status, _, err = run(["stress", "latch", "0"], family(), capsys)
    assert status == 2


class FailingStress(FakeDebugfs):
    def stress(self, name, lookups):
        return {**super().stress(name, lookups), "wrong": 1, "ok": 0}


def test_stress_not_ok_exits_1(capsys):
    driver = FailingStress(FAMILY_TREES)
    status, out, _ = run(["stress", "latch", "10"], driver, capsys)
    assert status == 1 and "wrong 1" in out


def test_dump_show_and_json_carry_values_and_copy_1(capsys):
    driver = family()
    status, out, _ = run(["dump", "interval"], driver, capsys)
    assert status == 0 and " last 50" in out
    status, out, _ = run(["dump", "latch"], driver, capsys)
    assert out.count("copy 1 ") == 6
    status, out, _ = run(["show", "mainline_aug"], driver, capsys)
    assert "max=70 value=70" in out
    status, out, _ = run(["show", "latch"], driver, capsys)
    assert status == 0 and "\ncopy 1: 6 nodes, height" in out
    status, out, _ = run(["dump", "--json", "interval", "latch"], driver,
                         capsys)
    trees = json.loads(out)["trees"]
    assert trees[0]["value"] == "last" and trees[0]["aug"] == \
        "interval-last"
    assert {n["value"] for n in trees[0]["nodes"]} == {40, 50, 31, 6, 70}
    assert len(trees[1]["copy1"]["nodes"]) == 6
    status, out, _ = run(["check", "--all"], driver, capsys)
    assert status == 0


def test_check_names_a_broken_latch_copy(capsys):
    driver = family()
    driver.set_param("allow_corrupt", "1")
    driver.corrupt("latch", "latch 15")
    status, out, _ = run(["check", "latch"], driver, capsys)
    # Ids count across trees: 5 interval, 3 mainline_aug, then 9 .. 14.
    assert status == 1 and "latch: fail latch node #11 (key 15):" in out
