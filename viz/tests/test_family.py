# SPDX-License-Identifier: GPL-2.0
"""The rbtree family's trees in the renderer, the viewer and
the flipbook: VALUEs, augments by rule, latch copy 0 with a note."""
from __future__ import annotations

import json
import subprocess

from rbtilib.dump import parse_dump
from rbtiviz.render import to_dot
from rbtiviz.titles import copy1_note
from rbtiviz.viewer import tree_data, viewer_html
from tests_support.family import BROKEN, INTERVAL_DUMP, LATCH_DUMP, MAX_DUMP


def laid_out(dot_text: str) -> str:
    """The SVG Graphviz makes of *dot_text* (it must accept it)."""
    proc = subprocess.run(["dot", "-Tsvg"], input=dot_text,
                          capture_output=True, text=True, timeout=60,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_interval_labels_show_last_and_the_rule():
    dot = to_dot(parse_dump(INTERVAL_DUMP))
    assert "interval-last 90" in dot and "last 25" in dot
    svg = laid_out(dot)
    assert "last 35" in svg and "last 12" in svg


def test_max_labels():
    dot = to_dot(parse_dump(MAX_DUMP))
    assert "max 70" in dot and "value -4" in dot
    laid_out(dot)


def test_latch_draws_copy_0_with_a_note():
    tree = parse_dump(LATCH_DUMP)
    assert copy1_note(tree) == ("copy 1: 3 nodes, height 2 (checked, not "
                                "drawn: this is copy 0)")
    dot = to_dot(tree)
    assert "copy 1: 3 nodes" in dot
    # Copy 0's colours: 10 and 30 are red there (black in copy 1).
    assert dot.count('fillcolor="#') >= 3
    assert copy1_note(parse_dump(MAX_DUMP)) is None


def test_latch_violation_of_copy_1_is_marked_on_copy_0():
    text, _, node = BROKEN["copy-black-height"]
    dot = to_dot(parse_dump(text), highlight_violation=True)
    assert "copy 1: 1 black nodes" in dot and f"n{node}" in dot


def test_viewer_data_carries_values_and_the_note():
    data = tree_data(parse_dump(INTERVAL_DUMP))
    assert data["value"] == "last" and data["aug"] == "interval-last"
    assert sorted(data["values"]) == [12, 25, 35, 90]
    assert data["copy1"] is None
    data = tree_data(parse_dump(LATCH_DUMP))
    assert data["values"] is None and data["copy1"].startswith("copy 1:")
    page = viewer_html("t", [data])
    assert '"copy1":"copy 1: 3 nodes' in page
    assert "T.values" in page


def test_flipbook_of_family_trees(tmp_path):
    """Per-operation frames of an interval and a latch tree: drawn, with
    their VALUEs and the copy 1 note, and rendered to a viewer page."""
    from rbtiviz import flipbook
    from tests_support.fake import FakeDebugfs
    from tests_support.trees import FAMILY_TREES
    driver = FakeDebugfs(FAMILY_TREES)
    for name, second in (("interval", lambda k: k + 5), ("latch", None)):
        with flipbook.Series(tmp_path, name, every=1) as series:
            for key in (10, 20, 30, 15):
                driver.insert(name, [key], None if second is None
                              else [second(key)])
                series.add(driver.dump(name), f"i {key} -> ok")
        frames = flipbook.viewer_frames(series.frames, series._trees)
        assert frames[2]["caption"].startswith("insert 30: new 30")
        assert (frames[-1]["values"] is not None) == (second is not None)
        assert (frames[-1]["copy1"] is not None) == (second is None)
