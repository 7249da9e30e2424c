# SPDX-License-Identifier: GPL-2.0
"""The rbtree family's trees in the renderer, the viewer and
the flipbook: VALUEs, augments by rule, both copies of a latch tree."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from rbtilib.dump import parse_dump, read_dump_file
from rbtiviz.copies import copies, label
from rbtiviz.render import BLACK_FILL, RED_FILL, VIOLATION_COLOR, to_dot
from rbtiviz.viewer import tree_data, viewer_html
from tests_support.family import BROKEN, INTERVAL_DUMP, LATCH_DUMP, MAX_DUMP

REPO = Path(__file__).resolve().parents[2]


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


def fill(dot: str, name: str) -> str:
    """The fill colour of DOT node *name*."""
    return re.search(rf"^\s*{name} \[.*?fillcolor=\"([^\"]+)\"", dot, re.M).group(1)


def test_latch_draws_both_copies_side_by_side():
    """Copy 0 and copy 1, each in a box of its own with its own links and
    colours (10 and 30 are red in copy 0, black in copy 1)."""
    tree = parse_dump(LATCH_DUMP)
    dot = to_dot(tree)
    assert "subgraph cluster_copy0 {" in dot and "subgraph cluster_copy1 {" in dot
    assert 'label="copy 0: 3 nodes, height 2"' in dot
    assert 'label="copy 1: 3 nodes, height 2"' in dot
    assert [fill(dot, f"n{i}") for i in (1, 2, 3)] == [RED_FILL, BLACK_FILL, RED_FILL]
    assert [fill(dot, f"c1_n{i}") for i in (1, 2, 3)] == [BLACK_FILL] * 3
    assert "c1_n2 -> c1_n1;" in dot and "c1_n2 -> c1_n3;" in dot
    svg = laid_out(dot)
    assert svg.count("<title>cluster_copy") == 2
    plain = to_dot(parse_dump(MAX_DUMP))
    assert "cluster_copy" not in plain and "c1_" not in plain
    assert [label(c) for c in copies(parse_dump(MAX_DUMP))] == [None]


def test_latch_violation_of_copy_1_is_marked_on_copy_1():
    """A violation found in copy 1 outlines copy 1's node, not copy 0's;
    each box says its verdict."""
    text, _, node = BROKEN["copy-black-height"]
    dot = to_dot(parse_dump(text), highlight_violation=True)
    outlined = set(re.findall(rf'^\s*(\w+) \[[^\n]*color="{VIOLATION_COLOR}"', dot, re.M))
    assert f"c1_n{node}" in outlined and f"n{node}" not in outlined
    assert "copy 1: 1 black nodes" in dot
    assert 'label="copy 0: 3 nodes, height 2, ok"' in dot
    assert re.search(r'label="copy 1: 3 nodes, height 2, \d+ violations?"', dot)
    laid_out(dot)


def test_direct_svg_draws_both_copies():
    from rbtiviz.layout import to_svg
    text, _, node = BROKEN["copy-black-height"]
    svg = to_svg(parse_dump(text), highlight_violation=True)
    assert "copy 0: 3 nodes, height 2, ok" in svg and "copy 1: 3 nodes, height 2, " in svg
    circles = re.findall(r'<circle cx="(\d+)" cy="\d+" r="6" class="([rb])"><title>#(\d+) ', svg)
    assert len(circles) == 6
    xs = [int(x) for x, _, _ in circles]
    assert max(xs[:3]) < min(xs[3:])        # copy 1 right of copy 0
    assert [c for _, c, _ in circles] == ["b", "r", "r", "b", "b", "r"]
    ring = re.search(rf'<circle cx="(\d+)" [^>]*stroke="{VIOLATION_COLOR}"', svg)
    assert int(ring.group(1)) >= min(xs[3:])   # on copy 1's node


def test_viewer_data_carries_values_and_both_copies():
    data = tree_data(parse_dump(INTERVAL_DUMP))
    assert data["value"] == "last" and data["aug"] == "interval-last"
    assert sorted(data["values"]) == [12, 25, 35, 90]
    assert data["copy1"] is None
    data = tree_data(parse_dump(LATCH_DUMP))
    assert data["values"] is None and data["colors"] == "BRR"
    second = data["copy1"]
    assert second["ids"] == data["ids"] and second["colors"] == "BBB"
    assert second["copy1"] is None
    text, _, node = BROKEN["copy-black-height"]
    data = tree_data(parse_dump(text))
    assert data["violations"] == []
    assert [v[1] for v in data["copy1"]["violations"]] == ["black-height"]
    page = viewer_html("t", [data])
    assert '"copy1":{"name":"latch"' in page
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
        if second is None:      # copy 1's own changes, frame to frame
            assert frames[2]["copy1"]["changed"] and not frames[0]["copy1"]["changed"]


@pytest.mark.slow
@pytest.mark.chromium
def test_viewer_in_chromium_switches_between_the_copies(tmp_path):
    """The page of a latch tree: l (or its button) shows copy 1, with its
    own nodes and violations, and l again copy 0; other trees have no
    such button."""
    from rbtiviz import headless
    from rbtiviz.viewer import write_viewer
    dump = REPO / "docs" / "examples" / "latch-copy1.dump"
    page = write_viewer(parse_dump(read_dump_file(str(dump))), tmp_path / "latch.html")
    was, other, back = headless.selftest(page)["copy"]
    assert (was["nodes"], other["nodes"]) == (3, 2)
    assert "copy 0 of 2" in was["stats"] and "copy 1 of 2" in other["stats"]
    assert (was["button"], other["button"]) == ("show copy 1", "show copy 0")
    assert not was["hidden"] and (was["violations"], other["violations"]) == (["latch"], [])
    assert back == was
    plain = write_viewer(parse_dump(INTERVAL_DUMP), tmp_path / "interval.html")
    assert "copy" not in headless.selftest(plain)


@pytest.mark.slow
@pytest.mark.chromium
def test_flipbook_in_chromium_switches_between_the_copies(tmp_path):
    from rbtiviz import flipbook, headless
    from tests_support.fake import FakeDebugfs
    from tests_support.trees import FAMILY_TREES
    driver = FakeDebugfs(FAMILY_TREES)
    with flipbook.Series(tmp_path, "latch", every=1) as series:
        for key in (10, 20, 30, 15):
            driver.insert("latch", [key], None)
            series.add(driver.dump("latch"), f"i {key} -> ok")
    result = headless.selftest(tmp_path / "latch" / flipbook.INDEX, fragment="3")
    was, other, back = result["copy"]
    # Where the self test's steps leave it: the second frame, two nodes.
    assert was["nodes"] == other["nodes"] == back["nodes"] == 2
    assert "copy 1 of 2" in other["stats"] and back == was
    assert result["frames"] == 4
