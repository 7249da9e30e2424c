# SPDX-License-Identifier: GPL-2.0
"""Tests of the driver's parsing and errno reporting (no module needed)."""

import pytest

from rbtilib.driver import (Debugfs, DebugfsError, parse_check, parse_stats,
                            parse_trees)


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
