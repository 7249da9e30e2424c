# SPDX-License-Identifier: GPL-2.0
"""Tests for the narration of rebalancing: the rotations rbtiviz.rebalance
finds between two dumps are the ones the tree made, and the demo's
walk-through (rbtiviz.walkthrough) gives one narrated frame an operation
and a one-line summary a tree."""
from __future__ import annotations

import json
import random

import pytest

from tests_support.fake import FakeDebugfs
from tests_support.trees import CONTRACT_TREES, FAMILY_TREES, RBTree
from rbtiviz import flipbook
from rbtiviz.diff import caption, diff
from rbtiviz.rebalance import rotations_between
from rbtiviz.walkthrough import ERASES, INSERTS, walk

INFOS = {info.name: info for info in CONTRACT_TREES}


def logged_tree(dup: bool) -> tuple[RBTree, list]:
    """An RBTree that logs its rotations as ("left"|"right", id)."""
    rb, log = RBTree(dup), []
    rotate = rb._rotate

    def logging_rotate(x, left):
        log.append(("left" if left else "right", x.id))
        rotate(x, left)
    rb._rotate = logging_rotate
    return rb, log


@pytest.mark.slow
def test_rotations_found_are_the_rotations_made():
    """Every insert and erase of 200 random build-and-teardown runs: the
    rotations found from the two dumps are those the tree made, in order
    (three rotations may have an equivalent order: same multiset)."""
    for name in ("santos", "santos_dup"):
        info = INFOS[name]
        for seed in range(100):
            rng = random.Random(seed)
            keys = [rng.randrange(40) for _ in range(20)] if name == "santos_dup" \
                else rng.sample(range(100), 20)
            rb, log = logged_tree(name == "santos_dup")
            before = rb.to_tree(info)
            ops = [("i", k) for k in keys] + [("e", k) for k in rng.sample(keys, len(keys))]
            for nid, (op, key) in enumerate(ops, 1):
                log.clear()
                if op == "i":
                    rb.insert(key, nid)
                else:
                    rb.erase(rb.find_first(key))
                after = rb.to_tree(info)
                d = diff(before, after)
                assert d.exact, (name, seed, op, key)
                if len(log) < 3:
                    assert d.rotations == log, (name, seed, op, key)
                else:
                    assert sorted(d.rotations) == sorted(log), (name, seed, op, key)
                before = after


def test_erase_with_successor_is_narrated_as_its_rotations_only():
    rb, log = logged_tree(False)
    info = INFOS["santos"]
    for nid, key in enumerate([50, 20, 80, 10, 30, 70, 90, 60], 1):
        rb.insert(key, nid)
    before = rb.to_tree(info)
    rb.erase(rb.find_first(50))
    after = rb.to_tree(info)
    assert log == [] and rotations_between(before, after) == []
    assert caption(before, after, ["e 50 -> erased 1"]) == \
        "erase 50: removed 50 (60 takes its place), recolour 60"


def test_not_one_operation_apart_gives_none():
    info = INFOS["santos"]
    rb = RBTree()
    before = rb.to_tree(info)
    for nid, key in enumerate([1, 2, 3], 1):
        rb.insert(key, nid)
    assert rotations_between(before, rb.to_tree(info)) is None


@pytest.mark.slow
def test_walkthrough_one_narrated_frame_an_operation(tmp_path):
    driver = FakeDebugfs()
    names = ["santos", "santos_dup", "santos_replace"]
    paths = walk(driver, names, tmp_path)
    assert [p.parent.name for p in paths] == names
    pages = flipbook.render_series(tmp_path)
    assert len(pages) == 3
    for name in names:
        data = json.loads((tmp_path / name / "frames.json").read_text())
        frames = data["frames"]
        assert len(frames) == 1 + len(INSERTS) + len(ERASES)
        assert all(f["first_op"] == f["last_op"] for f in frames)
        assert frames[0]["count"] == 0 and frames[-1]["count"] == 0
        assert "rotation" in data["summary"] and "recolour" in data["summary"]
        assert driver.dump(name).count == 0          # left empty
    trees = [flipbook.parse_dump(flipbook.read_dump_file(
        str(tmp_path / "santos" / f"frame_{n:05d}.dump"))) for n in range(1, 5)]
    frames = json.loads((tmp_path / "santos" / "frames.json").read_text())["frames"]
    captions = [f["caption"] for f in flipbook.viewer_frames(frames[:4], trees)]
    assert captions == ["clear: 0 nodes", "insert 10: new 10",
                        "insert 20: new 20", "insert 30: new 30, recolour 10, 20, "
                        "rotate left at 10"]
    summary = json.loads((tmp_path / "santos" / "frames.json").read_text())["summary"]
    assert summary == "13 inserts, 13 erases; 3 rotations, 20 recolours; up to 12 nodes, height 4"
    top = (tmp_path / "index.html").read_text()
    assert summary in top and "santos_replace/index.html" in top


def test_walkthrough_walks_every_tree_family_included(tmp_path):
    """Value trees insert KEY VALUE, the interval tree erases START LAST:
    every tree of the module, the rbtree family's too, gets its frames
    and ends empty (a bare ``i KEY`` is EINVAL on a value tree)."""
    infos = CONTRACT_TREES + FAMILY_TREES
    driver = FakeDebugfs(infos)
    names = [i.name for i in infos]
    paths = walk(driver, names, tmp_path)
    assert [p.parent.name for p in paths] == names
    for name in names:
        frames = json.loads((tmp_path / name / "frames.json").read_text())[
            "frames"]
        assert len(frames) == 1 + len(INSERTS) + len(ERASES)
        assert frames[-1]["count"] == 0, name


def test_captions_name_replacements_and_ids_of_repeated_keys_only():
    driver = FakeDebugfs()
    for name in ("santos_replace", "santos_dup"):
        driver.insert(name, [10, 20])
        before = driver.dump(name)
        result = driver.ops(name, "i 20\n").strip()
        after = driver.dump(name)
        text = caption(before, after, [f"i 20 -> {result}"])
        if name == "santos_replace":
            assert text == "insert 20: a new node replaces 20"
        else:       # 10 is alone: no id; 20 is there twice
            assert text.startswith("insert 20: new 20#") and "10#" not in text
