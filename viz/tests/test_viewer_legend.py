# SPDX-License-Identifier: GPL-2.0
"""What a picture says about itself: the direct SVG's aug, VALUE and
cache marks and its style classes; the viewer's legend and cache marks."""

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from rbtilib.dump import parse_dump, read_dump_file
from rbtiviz import headless
from rbtiviz.layout import CACHE_COLOR, to_svg
from rbtiviz.viewer import write_viewer

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "docs" / "examples"
VIEWER = Path(__file__).resolve().parents[1] / "rbtiviz"
SVG = "{http://www.w3.org/2000/svg}"


def example(name: str):
    return parse_dump(read_dump_file(str(EXAMPLES / name)))


def texts(svg: str) -> list[str]:
    return [t.text for t in ET.fromstring(svg).iter(f"{SVG}text")]


def test_direct_svg_carries_aug_and_value():
    """interval.dump: each node's interval-last aug and its VALUE (last)."""
    tree = example("interval.dump")
    shown = texts(to_svg(tree))
    for node in tree.nodes.values():
        assert f"interval-last={node.aug}" in shown
        assert f"last={node.value}" in shown


def test_direct_svg_uses_only_classes_its_style_defines():
    for name in ("interval.dump", "santos-red-root.dump", "latch-copy1.dump"):
        svg = to_svg(example(name), highlight_violation=True)
        style = re.search(r"<style>(.*?)</style>", svg, re.S).group(1)
        defined = set(re.findall(r"\.([a-z]+)\{", style))
        used = {c for cls in re.findall(r'class="([^"]*)"', svg) for c in cls.split()}
        assert used <= defined, (name, used - defined)


def test_direct_svg_marks_the_cached_leftmost_and_rightmost():
    tree = example("santos.dump")
    root = ET.fromstring(to_svg(tree))
    rings = [c for c in root.iter(f"{SVG}circle") if c.get("stroke") == CACHE_COLOR]
    titles = sorted(c.find(f"{SVG}title").text for c in rings)
    assert titles == ["cached leftmost", "cached rightmost"]
    circle_of = {c.find(f"{SVG}title").text.split()[0]: c for c in root.iter(f"{SVG}circle")
                 if c.get("class") in ("r", "b")}
    for ring, which in zip(sorted(rings, key=lambda c: c.find(f"{SVG}title").text),
                           ("leftmost", "rightmost")):
        node = circle_of[f"#{getattr(tree, which)}"]
        assert (ring.get("cx"), ring.get("cy")) == (node.get("cx"), node.get("cy"))
    letters = [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "c"]
    assert sorted(letters) == ["L", "R"]
    # A tree that caches neither has no such ring.
    plain = ET.fromstring(to_svg(example("interval.dump")))
    assert not [c for c in plain.iter(f"{SVG}circle") if c.get("stroke") == CACHE_COLOR]


def test_the_viewer_legend_shows_every_mark_colour():
    js = (VIEWER / "viewer.js").read_text()
    html = (VIEWER / "viewer.html").read_text()
    consts = dict(re.findall(r'\b([A-Z]+) = "(#[0-9a-f]{6})"', js))
    legend = re.search(r'<div id="legend".*?</div>', html, re.S).group(0)
    for name in ("RED", "BLACK", "AMBER", "BLUE", "GREEN", "CACHE"):
        assert consts[name] in legend, name
    assert "L, R" in legend and "cached leftmost" in legend
    assert consts["CACHE"] == CACHE_COLOR


def colour_pixels(png: Path, rgb: tuple) -> int:
    from PIL import Image
    image = Image.open(png).convert("RGB")
    return sum(n for n, c in image.getcolors(1 << 20)
               if all(abs(a - b) < 40 for a, b in zip(c, rgb)))


@pytest.mark.slow
@pytest.mark.chromium
def test_the_viewer_draws_the_cache_marks_and_the_legend(tmp_path):
    purple = tuple(int(CACHE_COLOR[i:i + 2], 16) for i in (1, 3, 5))
    page = write_viewer(example("santos.dump"), tmp_path / "santos.html")
    # Taller than the default window: the legend bar is at the bottom.
    shot = headless.screenshot(page, tmp_path / "santos.png")
    plain = write_viewer(example("interval.dump"), tmp_path / "interval.html")
    shot_plain = headless.screenshot(plain, tmp_path / "interval.png")
    # The legend's swatch is purple in both; the rings and L/R only
    # where the tree caches its leftmost and rightmost.
    assert colour_pixels(shot, purple) > colour_pixels(shot_plain, purple) + 100
    assert colour_pixels(shot_plain, purple) > 0
