# SPDX-License-Identifier: GPL-2.0
"""Tests for rbtiviz.render and viz/render: the DOT is laid out by Graphviz
and its structure read back from ``dot -Tjson`` (names, attributes, edges
in input order, positions)."""
from __future__ import annotations

import json
import os
import subprocess
import xml.etree.ElementTree as ET

import pytest

from rbtilib.checker import check, first_violation
from rbtilib.dump import parse_dump
from rbtiviz.render import (BLACK_FILL, HIGHLIGHT_COLOR, HIGHLIGHT_PENWIDTH, RED_FILL,
                            VIOLATION_COLOR, black_height, to_dot, write_snapshot)
from tests_support.dumps import (DUMP_7, DUMP_15, DUMP_AUG, DUMP_CYCLE, DUMP_DUP,
                                 DUMP_EMPTY, DUMP_LONE, DUMP_RED_RED, RENDER_CLI, VALID,
                                 tree_of)


class Drawing:
    """A DOT text laid out by ``dot -Tjson``, indexed by node name."""

    def __init__(self, dot_text: str) -> None:
        proc = subprocess.run(["dot", "-Tjson"], input=dot_text, capture_output=True,
                              text=True, check=False)
        assert proc.returncode == 0, proc.stderr
        graph = json.loads(proc.stdout)
        self.graph = graph
        objects = graph.get("objects", [])
        self.nodes = {o["name"]: o for o in objects}
        self.edges = [(objects[e["tail"]]["name"], objects[e["head"]]["name"], e)
                      for e in graph.get("edges", [])]

    def named(self, prefix: str) -> dict[str, dict]:
        return {n: o for n, o in self.nodes.items() if n.startswith(prefix)}

    def tree_nodes(self) -> dict[int, dict]:
        """Drawn tree nodes by node id (names ``n<ID>``)."""
        return {int(n[1:]): o for n, o in self.named("n").items() if n[1:].isdigit()}

    def out(self, name: str, visible: bool = True) -> list[str]:
        """Heads of the edges leaving ``name``, in input order."""
        return [h for t, h, e in self.edges
                if t == name and not (visible and e.get("style") == "invis")]

    def x(self, name: str) -> float:
        return float(self.nodes[name]["pos"].split(",")[0])

    def outlined(self) -> dict[str, str]:
        """Names drawn with the thick highlight outline, and its colour."""
        return {n: o["color"] for n, o in self.nodes.items()
                if o.get("penwidth") == str(HIGHLIGHT_PENWIDTH)}


def draw(text: str, **opts) -> Drawing:
    return Drawing(to_dot(tree_of(text), **opts))


def child_name(node_id: int, side: str, child: int | None) -> str:
    return f"nil_{node_id}_{side}" if child is None else f"n{child}"


@pytest.mark.parametrize("name", sorted(VALID))
def test_dot_parses_and_draws_every_node_once(name):
    tree = tree_of(VALID[name])
    drawing = Drawing(to_dot(tree))
    assert set(drawing.tree_nodes()) == set(tree.nodes)
    assert not drawing.named("sub_") and not drawing.named("gone_")


@pytest.mark.parametrize("name", sorted(VALID))
def test_fill_colour_follows_node_colour(name):
    tree = tree_of(VALID[name])
    for node_id, obj in Drawing(to_dot(tree)).tree_nodes().items():
        want = RED_FILL if tree.nodes[node_id].color == "R" else BLACK_FILL
        assert obj["fillcolor"] == want, node_id
        assert obj["fontcolor"] == "white"


@pytest.mark.parametrize("name", sorted(VALID))
def test_nil_leaves_are_n_plus_one_points(name):
    tree = tree_of(VALID[name])
    nils = Drawing(to_dot(tree)).named("nil_")
    assert len(nils) == len(tree.nodes) + 1
    assert {o["shape"] for o in nils.values()} == {"point"}


@pytest.mark.parametrize("name", ["7", "lone", "dup", "aug", "15"])
def test_edges_link_parent_to_left_then_right(name):
    tree = tree_of(VALID[name])
    drawing = Drawing(to_dot(tree))
    for node in tree.nodes.values():
        left = child_name(node.id, "L", node.left)
        right = child_name(node.id, "R", node.right)
        assert drawing.out(f"n{node.id}") == [left, right], node.id
        # ... and dot really placed them left, under, right of the parent.
        assert drawing.x(left) < drawing.x(f"n{node.id}") < drawing.x(right), node.id
    visible = [e for e in drawing.edges if e[2].get("style") != "invis"]
    assert len(visible) == 2 * len(tree.nodes)


def test_lone_children_are_drawn_off_centre():
    drawing = draw(DUMP_LONE)
    assert drawing.x("n4") > drawing.x("n1")       # right child of 10
    assert drawing.x("n5") < drawing.x("n3")       # left child of 30


def test_highlight_outlines_exactly_the_given_ids():
    drawing = draw(DUMP_15, highlight=[13, 7])
    assert drawing.outlined() == {"n13": HIGHLIGHT_COLOR, "n7": HIGHLIGHT_COLOR}
    assert draw(DUMP_15).outlined() == {}


def test_highlight_violation_outlines_nodes_the_checker_names():
    tree = tree_of(DUMP_RED_RED)
    blamed = {v.node for v in check(tree)}
    assert 3 in blamed                         # the red child of a red node
    drawing = Drawing(to_dot(tree, highlight_violation=True))
    assert drawing.outlined() == {f"n{i}": VIOLATION_COLOR for i in blamed}
    first = first_violation(tree)
    assert first.cls == "red-red" and first.message in drawing.graph["label"]
    # Off by default; an explicit highlight wins over the violation colour.
    assert Drawing(to_dot(tree)).outlined() == {}
    both = Drawing(to_dot(tree, highlight=[3, 4], highlight_violation=True)).outlined()
    assert both == {"n3": HIGHLIGHT_COLOR, "n4": HIGHLIGHT_COLOR,
                    **{f"n{i}": VIOLATION_COLOR for i in blamed - {3, 4}}}


def test_valid_tree_has_no_violation_outline():
    assert draw(DUMP_15, highlight_violation=True).outlined() == {}


def test_max_depth_boxes_deeper_subtrees():
    drawing = draw(DUMP_7, max_depth=2)
    assert set(drawing.tree_nodes()) == {4, 2, 6}
    assert set(drawing.named("sub_")) == {"sub_1", "sub_3", "sub_5", "sub_7"}
    assert drawing.out("n2") == ["sub_1", "sub_3"]
    assert "1 node\n10..10" in drawing.nodes["sub_1"]["label"].replace("\\n", "\n")
    top = draw(DUMP_7, max_depth=1)
    assert set(top.tree_nodes()) == {4}
    assert top.out("n4") == ["sub_2", "sub_6"]
    assert "3 nodes" in top.nodes["sub_2"]["label"] and "10..30" in top.nodes["sub_2"]["label"]
    assert not top.named("nil_")


def test_max_depth_box_holding_a_highlight_is_outlined():
    drawing = draw(DUMP_15, max_depth=2, highlight=[15])
    assert drawing.outlined() == {"sub_13": HIGHLIGHT_COLOR}


def test_collapse_keeps_root_and_path_to_highlight():
    plain = draw(DUMP_7, collapse_over=2)
    assert set(plain.tree_nodes()) == {4}
    assert set(plain.named("sub_")) == {"sub_2", "sub_6"}
    focused = draw(DUMP_7, collapse_over=2, highlight=[5])
    assert set(focused.tree_nodes()) == {4, 6, 5, 7}      # 7's subtree has 1 node
    assert set(focused.named("sub_")) == {"sub_2"}
    assert focused.outlined() == {"n5": HIGHLIGHT_COLOR}
    small = draw(DUMP_7, collapse_over=3)                  # nothing has more than 3 below the root
    assert set(small.tree_nodes()) == set(range(1, 8))


def test_bad_limits_are_refused():
    with pytest.raises(ValueError, match="max_depth"):
        to_dot(tree_of(DUMP_7), max_depth=0)
    with pytest.raises(ValueError, match="collapse_over"):
        to_dot(tree_of(DUMP_7), collapse_over=0)


def test_labels_show_id_on_dup_trees_and_aug_value():
    dup = draw(DUMP_DUP).tree_nodes()
    assert all(f"#{i}" in o["label"] and "<B>5</B>" in o["label"] for i, o in dup.items())
    aug = draw(DUMP_AUG).tree_nodes()
    assert "size 3" in aug[2]["label"] and "size 1" in aug[1]["label"]
    assert "#" not in aug[2]["label"]
    plain = draw(DUMP_7).tree_nodes()
    assert plain[4]["label"] == "<B>40</B>" and plain[4]["shape"] == "circle"
    outlined = draw(DUMP_7, highlight=[6]).tree_nodes()
    assert "#6" in outlined[6]["label"] and "#" not in outlined[4]["label"]


def test_title_names_tree_and_counts():
    label = draw(DUMP_15).graph["label"]
    assert "santos (santos: unique,leftmost,rightmost,count)" in label
    assert "15 nodes" in label and "height 5" in label and "black height 3" in label
    assert "custom" in draw(DUMP_7, title="custom").graph["label"]


def test_black_height():
    assert black_height(tree_of(DUMP_7)) == 2
    assert black_height(tree_of(DUMP_15)) == 3
    assert black_height(tree_of(DUMP_EMPTY)) == 0


def test_corrupted_links_are_drawn_as_dashed_boxes():
    tree = tree_of(DUMP_CYCLE)
    drawing = Drawing(to_dot(tree))
    assert set(drawing.tree_nodes()) == {1, 2, 3}
    assert drawing.out("n2") == ["nil_2_L", "gone_2_R"]
    assert drawing.out("n3") == ["gone_3_L", "nil_3_R"]
    assert "cycle" in drawing.nodes["gone_2_R"]["label"]
    assert "not in the dump" in drawing.nodes["gone_3_L"]["label"]


def test_empty_tree_is_one_nil():
    drawing = draw(DUMP_EMPTY)
    assert list(drawing.nodes) == ["nil_root"] and not drawing.edges
    assert "0 nodes" in drawing.graph["label"]


def _svg_shapes(svg: ET.Element) -> list[ET.Element]:
    ns = "{http://www.w3.org/2000/svg}"
    shapes = []
    for group in svg.iter(f"{ns}g"):
        if group.get("class") == "node":
            shapes.extend(e for e in group if e.tag in (f"{ns}ellipse", f"{ns}polygon",
                                                        f"{ns}path"))
    return shapes


def test_svg_snapshot_shows_keys_and_colours(tmp_path):
    tree = tree_of(DUMP_7)
    path = write_snapshot(tree, tmp_path / "t.svg", highlight=[6])
    svg = ET.parse(path).getroot()
    texts = [t.text for t in svg.iter("{http://www.w3.org/2000/svg}text")]
    for node in tree.nodes.values():
        assert str(node.key) in texts
    fills = [s.get("fill") for s in _svg_shapes(svg)]
    assert fills.count(RED_FILL) == 2 and fills.count(BLACK_FILL) == 5
    strokes = [s.get("stroke") for s in _svg_shapes(svg)]
    assert strokes.count(HIGHLIGHT_COLOR) == 1


def test_png_and_dot_snapshots(tmp_path):
    tree = tree_of(DUMP_15)
    png = write_snapshot(tree, tmp_path / "t.png")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    dot = write_snapshot(tree, tmp_path / "t.dot")
    assert dot.read_text() == to_dot(tree)
    forced = write_snapshot(tree, tmp_path / "t.out", fmt="svg")
    assert forced.read_text().lstrip().startswith("<?xml")
    with pytest.raises(ValueError, match="gif"):
        write_snapshot(tree, tmp_path / "t.gif")


def test_dot_that_hangs_is_killed(tmp_path, monkeypatch):
    """Graphviz runs under a time limit: a dot that never ends is killed and
    reported, it does not hang the render."""
    import time
    from rbtiviz import render
    fake = tmp_path / "dot"
    fake.write_text(f"#!/bin/sh\necho $$ > {tmp_path}/pid\nexec sleep 1000\n")
    fake.chmod(0o755)
    monkeypatch.setattr(render, "dot_binary", lambda: str(fake))
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match="did not finish in 1 s and was killed"):
        render.run_dot("digraph {}", "png", timeout=1)
    assert time.monotonic() - t0 < 30
    pid = int((tmp_path / "pid").read_text())
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_cli_file_and_stdin(tmp_path):
    dump = tmp_path / "red.dump"
    dump.write_text(DUMP_RED_RED)
    out = tmp_path / "red.svg"
    proc = subprocess.run([str(RENDER_CLI), str(dump), "-o", str(out), "--violation",
                           "--highlight", "4,6", "--max-depth", "3"],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1, proc.stderr        # drawn, with a violation
    assert "fail red-red node #3 (key 30):" in proc.stderr
    assert ET.parse(out).getroot().tag.endswith("svg")
    proc = subprocess.run([str(RENDER_CLI), "--collapse", "2"], input=DUMP_7,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert set(Drawing(proc.stdout).named("sub_")) == {"sub_2", "sub_6"}


def test_cli_reads_dumps_byte_for_byte(tmp_path):
    """A CR (CRLF, or a lone one) and bytes that are not UTF-8, in a file or
    on stdin: the dump's line is named, exit 1, no traceback."""
    for data in (DUMP_7.replace("\n", "\r\n").encode(),
                 DUMP_7.replace("\nnode ", "\rnode ", 1).encode(),
                 DUMP_7.encode().replace(b"tree ", b"tree \xff", 1)):
        path = tmp_path / "bad.dump"
        path.write_bytes(data)
        for args, stdin in (([str(path)], None), (["-"], data)):
            proc = subprocess.run([str(RENDER_CLI), *args, "-o", str(tmp_path / "x.svg")],
                                  input=stdin, capture_output=True, check=False)
            err = proc.stderr.decode()
            assert proc.returncode == 1 and "non-ASCII or control character" in err, err
            assert "Traceback" not in err


def test_cli_rejects_bad_input():
    proc = subprocess.run([str(RENDER_CLI), "-"], input="tree x\nnode 1\n",
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 1 and "dump line" in proc.stderr
    proc = subprocess.run([str(RENDER_CLI), "--highlight", "a"], input=DUMP_7,
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 2


def test_cli_errors_are_rbtis(tmp_path):
    """rbti's exit statuses and message style: a file that cannot be read
    or written is exit 2 and 'viz/render: PATH: strerror' (not 1 and a
    raw '[Errno 2] ...'), a malformed dump 1 and 'PATH: fail dump: ...'."""
    def render(*args, stdin=DUMP_7):
        proc = subprocess.run([str(RENDER_CLI), *args], input=stdin,
                              capture_output=True, text=True, check=False,
                              timeout=60)
        assert "Traceback" not in proc.stderr
        return proc.returncode, proc.stderr
    missing = tmp_path / "none.dump"
    assert render(str(missing)) == \
        (2, f"viz/render: {missing}: No such file or directory\n")
    status, err = render("-", "-o", str(tmp_path / "no" / "dir" / "x.svg"))
    assert status == 2 and err.startswith("viz/render: ") and "Errno" not in err
    status, err = render("-", "-o", str(tmp_path / "x.bmp"))
    assert status == 2 and "unknown output format" in err
    assert render("-", stdin="tree x\n") == \
        (1, "viz/render: -: fail dump: dump line 2: missing 'end' line "
         "(truncated?)\n")


@pytest.mark.parametrize("name,text", [
    ("cycle", DUMP_CYCLE), ("unknown", DUMP_7.replace("node 4 40 B - 2 6",
                                                      "node 4 40 B - ? 6")),
    ("truncated", DUMP_7[:120]), ("empty", ""), ("garbage", "\x01\n")],
    ids=lambda value: value if len(value) < 12 else "")
def test_cli_hostile_dumps(name, text, tmp_path):
    """Corrupted dumps are drawn (exit 0, or 1 with --violation); broken
    ones are exit 1 naming the line; never a traceback."""
    for extra in ([], ["--violation"]):
        proc = subprocess.run([str(RENDER_CLI), "-", "-o", str(tmp_path / "t.svg"),
                               *extra], input=text, capture_output=True,
                              text=True, check=False, timeout=60)
        assert "Traceback" not in proc.stderr and proc.returncode in (0, 1)
        if name in ("truncated", "empty", "garbage"):
            assert proc.returncode == 1 and "fail dump: dump line" in proc.stderr
        elif extra:
            assert proc.returncode == 1 and "fail " in proc.stderr


def test_address_keys_drawn_in_hex(tmp_path):
    """A dump with a 'hex' line (a kernel address tree) is labelled in hex
    in the DOT, the direct SVG and the viewer; --hex does it for any dump."""
    from rbtiviz.layout import to_svg
    from rbtiviz.viewer import tree_data
    text = DUMP_AUG.replace("\nnode ", "\nhex key,aug\nnode ", 1)
    tree = parse_dump(text)
    assert tree.hex == {"key", "aug"}
    dot = to_dot(tree)
    first = next(iter(tree.nodes.values()))
    assert f"<B>{first.key:#x}</B>" in dot and f"size {first.aug:#x}" in dot
    assert f">{first.key:#x}<" in to_svg(tree) or f">{first.key:#x}#" in to_svg(tree)
    data = tree_data(tree)
    assert data["keys"][0] == f"{first.key:#x}" and \
        data["augs"][0] == f"{first.aug:#x}"
    proc = subprocess.run([str(RENDER_CLI), "--hex", "-"], input=DUMP_7,
                          capture_output=True, text=True, check=False, timeout=60)
    assert proc.returncode == 0 and "<B>0x28</B>" in proc.stdout


def test_viewer_page_fills_every_marker():
    """The title goes into <title>, the extra HTML into the body, the data
    and viewer.js into their script elements; no marker is left over."""
    import re
    from rbtiviz.viewer import viewer_html
    page = viewer_html("my <tree>", [], extra='<p id="x">extra</p>')
    assert re.search(r"<title>my &lt;tree&gt;</title>", page)
    body = page[page.index("<body"):]
    assert '<p id="x">extra</p>' in body
    assert '"use strict";' in body and "const DATA = JSON.parse" in body
    assert not re.search(r"__(TITLE|EXTRA|DATA|SCRIPT)__", page)
