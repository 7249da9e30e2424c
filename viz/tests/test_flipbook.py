# SPDX-License-Identifier: GPL-2.0
"""Tests for rbtiviz.flipbook: frames every K operations, the index pages,
deferred series drawn later by render_series and viz/render --flipbook, and
the page driven by key presses and clicks in headless Chromium."""
from __future__ import annotations

import html
import json
import re
import subprocess
from pathlib import Path

import pytest

from rbtilib.dump import parse_dump
from rbtiviz import flipbook, headless
from rbtiviz.flipbook import Series, render_series
from tests_support.dumps import (DUMP_7, DUMP_DUP, DUMP_EMPTY, DUMP_RED_RED, RENDER_CLI,
                                 tree_of)

TREES = [DUMP_EMPTY, DUMP_DUP, DUMP_7, DUMP_RED_RED, DUMP_7]
CAPTIONS = ["clear", "i 5 <dup>", "i 40 & more", "corrupt color 30", "check"]


def run_series(outdir: Path, every: int, **opts) -> Series:
    with Series(outdir, "santos", every=every, **opts) as series:
        for text, caption in zip(TREES, CAPTIONS):
            series.add(tree_of(text), caption, highlight=[4])
    return series


def test_frames_every_k_operations_plus_the_last(tmp_path):
    series = run_series(tmp_path, every=2)
    tree_dir = tmp_path / "santos"
    files = sorted(p.name for p in tree_dir.glob("frame_*"))
    assert files == ["frame_00001.svg", "frame_00002.svg", "frame_00003.svg"]
    assert [f["ops"] for f in series.frames] == [CAPTIONS[0:2], CAPTIONS[2:4], CAPTIONS[4:]]
    assert [(f["first_op"], f["last_op"]) for f in series.frames] == [(1, 2), (3, 4), (5, 5)]
    # Frame 2 shows the tree after op 4 (count 7), frame 1 after op 2 (the dup tree).
    assert "overstreet_dup" in (tree_dir / files[0]).read_text()
    assert [f["count"] for f in series.frames] == [3, 7, 7]
    data = json.loads((tree_dir / "frames.json").read_text())
    assert data["tree"] == "santos" and data["frames"] == series.frames
    assert data["summary"].startswith("2 inserts; ")        # "i 5 <dup>", "i 40 & more"


def test_every_one_gives_a_frame_per_add_and_force_cuts_early(tmp_path):
    with Series(tmp_path, "t", every=3) as series:
        assert series.add(tree_of(DUMP_7), "a") is None
        forced = series.add(tree_of(DUMP_7), "b", force=True)
        assert forced == tmp_path / "t" / "frame_00001.svg" and forced.exists()
    assert [f["ops"] for f in series.frames] == [["a", "b"]]
    assert len(run_series(tmp_path, every=1).frames) == len(TREES)


def test_index_lists_every_frame_and_caption(tmp_path):
    series = run_series(tmp_path, every=1)
    page = (tmp_path / "santos" / "index.html").read_text()
    for number, caption in enumerate(CAPTIONS, 1):
        name = f"frame_{number:05d}.svg"
        assert f'<a href="{name}">{name}</a> op {number}: {html.escape(caption)}</li>' in page
    assert "<dup>" not in page                      # escaped in HTML and in the JSON
    assert '<script id="data" type="application/json">{' in page
    assert not re.search(r'(src|href)="(https?:|/)', page)  # only relative references
    top = (tmp_path / "index.html").read_text()
    assert '<a href="santos/index.html">santos</a></td><td>5</td><td>2 inserts; ' in top
    assert "corrupt color 30" not in top                # a summary, not the captions
    assert series.close() == tmp_path / "santos" / "index.html"   # idempotent
    with pytest.raises(RuntimeError, match="closed"):
        series.add(tree_of(DUMP_7), "late")


def test_top_index_links_all_trees_and_rerun_replaces_frames(tmp_path):
    run_series(tmp_path, every=1)
    with Series(tmp_path, "other", fmt="png") as other:
        other.add(tree_of(DUMP_7), "i 1")
    assert (tmp_path / "other" / "frame_00001.png").read_bytes()[:4] == b"\x89PNG"
    top = (tmp_path / "index.html").read_text()
    assert 'href="santos/index.html"' in top and 'href="other/index.html"' in top
    run_series(tmp_path, every=5)
    assert len(list((tmp_path / "santos").glob("frame_*"))) == 1


def test_render_options_reach_the_frames(tmp_path):
    run_series(tmp_path, every=1, highlight_violation=True, max_depth=1)
    svg = (tmp_path / "santos" / "frame_00004.svg").read_text()
    assert "it and its parent node #2 (key 20) are both red" in svg and "3 nodes" in svg


def test_bad_arguments(tmp_path):
    with pytest.raises(ValueError, match="directory name"):
        Series(tmp_path, "../x")
    with pytest.raises(ValueError, match="every"):
        Series(tmp_path, "x", every=0)
    with pytest.raises(ValueError, match="svg or png"):
        Series(tmp_path, "x", fmt="dot")


@pytest.mark.slow
@pytest.mark.chromium
def test_page_in_chromium_steps_with_keys_and_buttons(tmp_path):
    """The flipbook page in a real browser: keys and the labelled buttons
    move through the frames; captions say what each step did."""
    run_series(tmp_path, every=1)
    page = tmp_path / "santos" / "index.html"
    result = headless.selftest(page, fragment="3")
    assert result["mode"] == "flipbook" and result["frames"] == len(TREES)
    shown = [s["frame"] for s in result["steps"]]
    # starts at #3; ArrowRight x2, ArrowLeft, End, ArrowRight (clamped), Home,
    # ArrowLeft (clamped), then the buttons next, last, prev, first, next.
    assert shown == [3, 4, 5, 4, 5, 5, 1, 1, 2, 5, 4, 1, 2]
    for step in result["steps"]:
        number = step["frame"]
        assert step["pos"] == f"frame {number} / 5"
        assert step["hash"] == f"#{number}"
        assert step["caption"].startswith(f"op {number}: ")
    assert result["labels"] == ["first", "prev", "play", "next", "last"]
    captions = {s["frame"]: s["caption"] for s in result["steps"]}
    assert captions[1] == "op 1: clear: 0 nodes"
    assert captions[4].startswith("op 4: corrupt color 30: recolour 30")
    assert captions[5].startswith("op 5: check: recolour 30")


def test_one_frame_per_insert_shows_rotations_and_recolours(tmp_path):
    """Per-operation frames: each caption names the rebalancing it saw,
    and the changed nodes and links are highlighted."""
    from tests_support.fake import FakeDebugfs
    driver = FakeDebugfs()
    with Series(tmp_path, "santos", every=1) as series:
        for key in (10, 20, 30, 15, 25, 5):
            driver.insert("santos", [key])
            series.add(driver.dump("santos"), f"i {key} -> ok")
    captions = [f["caption"] for f in flipbook.viewer_frames(series.frames, series._trees)]
    assert captions[0] == "insert 10: 1 node"
    assert captions[2] == "insert 30: new 30, recolour 10, 20, rotate left at 10"
    assert captions[3] == "insert 15: new 15, recolour 10, 30"
    frames = flipbook.viewer_frames(series.frames, series._trees)
    assert frames[2]["changed"] and frames[2]["newlinks"]
    assert all(len(c) < 80 for c in captions)


def run_deferred(outdir: Path, every: int) -> Series:
    with Series(outdir, "santos", every=every, render=False, max_depth=3) as series:
        for text, caption in zip(TREES, CAPTIONS):
            series.add(tree_of(text), caption, highlight=[4])
    return series


def test_deferred_series_saves_dumps_without_drawing(tmp_path, monkeypatch):
    def no_dot(*args, **kwargs):
        raise AssertionError("a deferred series must not draw")
    monkeypatch.setattr(flipbook, "write_snapshot", no_dot)
    series = run_deferred(tmp_path, every=2)
    tree_dir = tmp_path / "santos"
    assert sorted(p.name for p in tree_dir.iterdir()) == [
        "frame_00001.dump", "frame_00002.dump", "frame_00003.dump", "frames.json"]
    assert not (tmp_path / "index.html").exists()
    # Each dump is the tree after the frame's last op, exactly.
    for frame, text in zip(series.frames, [TREES[1], TREES[3], TREES[4]]):
        saved = (tree_dir / frame["file"]).with_suffix(".dump").read_text()
        assert parse_dump(saved) == tree_of(text)
    data = json.loads((tree_dir / "frames.json").read_text())
    assert data["deferred"] == {"render_opts": {"max_depth": 3}}
    assert [f["file"] for f in data["frames"]] == [
        "frame_00001.svg", "frame_00002.svg", "frame_00003.svg"]
    assert [f["ops"] for f in data["frames"]] == [CAPTIONS[0:2], CAPTIONS[2:4], CAPTIONS[4:]]
    assert series.close() == tree_dir / "frames.json"


def test_render_series_gives_what_the_eager_series_gives(tmp_path):
    eager, deferred = tmp_path / "eager", tmp_path / "deferred"
    with Series(eager, "santos", every=2, max_depth=3) as series:
        for text, caption in zip(TREES, CAPTIONS):
            series.add(tree_of(text), caption, highlight=[4])
    run_deferred(deferred, every=2)
    run_series(deferred, every=1)                 # replaces it; already drawn: left alone
    assert not list((deferred / "santos").glob("*.dump"))
    (deferred / "santos").rename(deferred / "later")
    run_deferred(deferred, every=2)
    before = (deferred / "later" / "frame_00001.svg").read_bytes()
    pages = render_series(deferred)
    assert pages == [deferred / "santos" / "index.html"]
    assert (deferred / "later" / "frame_00001.svg").read_bytes() == before
    for name in ["frames.json", "index.html", "frame_00001.svg", "frame_00002.svg",
                 "frame_00003.svg"]:
        assert (deferred / "santos" / name).read_bytes() == \
            (eager / "santos" / name).read_bytes(), name
    top = (deferred / "index.html").read_text()
    assert 'href="santos/index.html"' in top and 'href="later/index.html"' in top
    assert render_series(deferred) == []          # nothing deferred is left


def test_ops_count_several_operations_per_add(tmp_path):
    with Series(tmp_path, "t", every=50, render=False) as series:
        assert series.add(tree_of(DUMP_7), "i 1 -> ok 1; f 2 -> ENOENT", ops=30) is None
        path = series.add(tree_of(DUMP_7), "e 1 -> erased 1", ops=20)
        assert path == tmp_path / "t" / "frame_00001.dump" and path.exists()
        series.add(tree_of(DUMP_7), "n 3 -> ENOENT", ops=7)
    assert [(f["first_op"], f["last_op"], len(f["ops"])) for f in series.frames] == \
        [(1, 50, 2), (51, 57, 1)]
    with pytest.raises(ValueError, match="ops"):
        Series(tmp_path, "u").add(tree_of(DUMP_7), "x", ops=0)


def test_cli_flipbook(tmp_path):
    run_deferred(tmp_path, every=2)
    proc = subprocess.run([str(RENDER_CLI), "--flipbook", str(tmp_path)],
                          capture_output=True, text=True, check=False)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{tmp_path / 'santos' / 'index.html'}\n"
    assert (tmp_path / "santos" / "frame_00003.svg").read_text().lstrip().startswith(
        ("<?xml", "<svg"))
    again = subprocess.run([str(RENDER_CLI), "--flipbook", str(tmp_path)],
                           capture_output=True, text=True, check=False)
    assert again.returncode == 2 and "no flipbook left" in again.stderr
    run_deferred(tmp_path, every=2)
    (tmp_path / "santos" / "frame_00002.dump").write_text("tree x\n")
    bad = subprocess.run([str(RENDER_CLI), "--flipbook", str(tmp_path)],
                         capture_output=True, text=True, check=False)
    assert bad.returncode == 1 and "frame_00002.dump" in bad.stderr
    usage = subprocess.run([str(RENDER_CLI), "--flipbook", str(tmp_path), "-o", "x.svg"],
                           capture_output=True, text=True, check=False)
    assert usage.returncode == 2
