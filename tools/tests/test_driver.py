# SPDX-License-Identifier: GPL-2.0
"""Tests of the driver's parsing and errno reporting (no module needed)."""

import errno

import pytest

from rbtilib.driver import (STALE_RETRIES, Debugfs, DebugfsError, parse_check,
                            parse_stats, parse_trees)


def test_parse_trees():
    infos = parse_trees("rbtree-inspector format 1\n"
                        "santos santos unique,leftmost,rightmost,count\n"
                        "mainline mainline -\n")
    assert [i.name for i in infos] == ["santos", "mainline"]
    assert infos[0].flags == {"unique", "leftmost", "rightmost", "count"}
    assert infos[1].flags == frozenset()


@pytest.mark.parametrize("text", ["", "rbtree-inspector format 2\n",
                                  "rbtree-inspector format 1\nx y\n"])
def test_parse_trees_errors(text):
    with pytest.raises(ValueError):
        parse_trees(text)


def test_parse_check():
    assert parse_check("ok\n").ok
    got = parse_check("fail red-red node 17: red node 17 has red parent 3\n")
    assert (got.ok, got.cls, got.node) == (False, "red-red", 17)
    assert got.message == "red node 17 has red parent 3"
    got = parse_check("fail count node -: count is 4 but 3 nodes\n")
    assert (got.cls, got.node) == ("count", None)
    with pytest.raises(ValueError):
        parse_check("bogus\n")


def test_parse_stats():
    assert parse_stats("count 3\nheight 2\ncorrupt 0\n") == {
        "count": 3, "height": 2, "corrupt": 0}


def test_errno_has_a_name(tmp_path):
    driver = Debugfs(str(tmp_path))
    with pytest.raises(DebugfsError) as err:
        driver.write("santos", "insert", "5")
    assert err.value.name == "ENOENT"
    assert str(err.value).endswith("santos/insert: ENOENT")
    with pytest.raises(DebugfsError) as err:
        driver.read(None, "trees")
    assert err.value.name == "ENOENT"


def test_read_and_write_files(tmp_path):
    (tmp_path / "santos").mkdir()
    (tmp_path / "santos" / "stats").write_text("count 1\n")
    (tmp_path / "santos" / "clear").write_text("")
    driver = Debugfs(str(tmp_path))
    assert driver.stats("santos") == {"count": 1}
    driver.clear("santos")
    assert (tmp_path / "santos" / "clear").read_text() == "1"
    assert not driver.available()


class _StaleThenWhole(Debugfs):
    """A debugfs whose dump is stale *stale* times, then whole."""

    def __init__(self, stale: int) -> None:
        super().__init__("/nonexistent")
        self.stale = stale
        self.reads = 0

    def read(self, tree, name):
        self.reads += 1
        if self.reads <= self.stale:
            return "tree santos\napi santos\nerror stale\n"
        return "whole\n"


def test_stale_dump_is_read_again():
    driver = _StaleThenWhole(3)
    assert driver.dump_text("santos") == "whole\n"
    assert driver.reads == 4


def test_dump_that_stays_stale_is_an_error():
    driver = _StaleThenWhole(10 ** 6)
    with pytest.raises(DebugfsError) as e:
        driver.dump_text("santos")
    assert e.value.errno == errno.EAGAIN and driver.reads == STALE_RETRIES
