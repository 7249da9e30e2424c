# SPDX-License-Identifier: GPL-2.0
"""The interactive tree viewer: one offline HTML file, drawn on a canvas.

:func:`write_viewer` writes a page for one tree (``viz/render DUMP -o
tree.html``); :func:`viewer_html` a page for several frames, which is how
the flipbook (:mod:`rbtiviz.flipbook`) uses it.  The page has no external
assets and no network access: the tree is embedded as JSON (one array per
field, nodes numbered in preorder, links as indices), and the script lays
it out itself (x from in-order rank, y from depth, see
:mod:`rbtiviz.layout`), so collapsing a subtree is a relayout in the
browser.  Only the nodes on screen are drawn; when more than a few
thousand would be, a cached overview bitmap of the whole tree is scaled
instead, so panning and zooming stay fast at 100,000 nodes.  A latch
tree's frame carries both copies (:mod:`rbtiviz.copies`): copy 0's data,
and copy 1's as its ``copy1``, which the page's copy button (or ``l``)
switches to and back.

Opened with ``?selftest`` the page drives itself through its own event
handlers (search, click, violations, a latch tree's copies, collapse,
zoom, minimap, frames) and writes what it saw as JSON into ``<pre
id="selftest">``, which the tests read from a headless Chromium's
``--dump-dom``.
"""
from __future__ import annotations

import html
import json
from pathlib import Path

from rbtilib.checker import Violation, check
from rbtilib.dump import UNKNOWN_PARENT, Tree, format_flags, number_text

from .copies import copies
from .layout import layout

TEMPLATE = Path(__file__).with_name("viewer.html")
SCRIPT = Path(__file__).with_name("viewer.js")      # put inline in the page
_SAFE = 1 << 53


def _num(value: int) -> int | str:
    """A JSON number JavaScript reads exactly, else a string."""
    return value if -_SAFE < value < _SAFE else str(value)


def tree_data(tree: Tree, violations: list[Violation] | None = None) -> dict:
    """The viewer's JSON for one tree (violations: the checker's if None);
    a latch tree's is copy 0's with copy 1's as ``copy1`` (None on other
    trees), each with the violations found in it."""
    if violations is None:
        violations = check(tree)
    parts = copies(tree, violations)
    data = _data(parts[0].tree, parts[0].violations)
    if len(parts) > 1:
        data["copy1"] = _data(parts[1].tree, parts[1].violations)
    return data


def _data(tree: Tree, violations: list[Violation]) -> dict:
    """One tree's (one copy's) data: its layout, fields and violations."""
    lay = layout(tree)
    nodes = [tree.nodes[nid] for nid in lay.ids]
    augs = [n.aug if n.aug is None or "aug" not in tree.hex
            else number_text(tree, "aug", n.aug) for n in nodes]

    def parent(ref: int | None) -> int | str | None:
        if ref is None:
            return None
        return "?" if ref == UNKNOWN_PARENT else _num(ref)

    def cached(which: str) -> int:
        ref = getattr(tree, which)
        return lay.index.get(ref, -1) if which in tree.flags else -1

    return {
        "name": tree.name, "api": tree.api, "flags": format_flags(tree.flags),
        "count": tree.count, "height": tree.height, "aug": tree.aug or "aug",
        "dup": "dup" in tree.flags,
        "ids": [_num(n) for n in lay.ids],
        "keys": [number_text(tree, "key", n.key) if "key" in tree.hex
                 else _num(n.key) for n in nodes],
        "colors": "".join(n.color for n in nodes),
        "parents": [parent(n.parent) for n in nodes],
        "L": lay.left, "R": lay.right,
        "augs": augs if any(a is not None for a in augs) else None,
        "value": tree.value,
        "values": [_num(n.value) for n in nodes] if tree.value else None,
        "copy1": None,
        "leftmost": cached("leftmost"), "rightmost": cached("rightmost"),
        "bad": [[i, side, _num(target), why] for i, side, target, why in lay.bad],
        "violations": [[lay.index.get(v.node, -1) if v.node is not None else -1,
                        v.cls, v.message] for v in violations],
        "unreached": [_num(nid) for nid in lay.unreached] + _lost(tree),
    }


def _lost(tree: Tree) -> list:
    """Ids of the dump's ``lost`` nodes, if the parser keeps them."""
    lost = getattr(tree, "lost", None) or ()
    nodes = lost.values() if isinstance(lost, dict) else lost
    return [_num(getattr(n, "id", n)) for n in nodes]


def _script_json(value: object) -> str:
    """JSON safe inside a <script> element: no ``<`` at all."""
    return json.dumps(value, separators=(",", ":")).replace("<", "\\u003c")


def viewer_html(title: str, frames: list[dict], mode: str = "tree",
                extra: str = "") -> str:
    """The page: *frames* are :func:`tree_data` dicts (plus ``heading``,
    ``caption``, ``changed`` and ``newlinks`` in flipbook mode); *extra* is
    HTML put under the viewer."""
    page = TEMPLATE.read_text(encoding="utf-8")
    data = _script_json({"mode": mode, "frames": frames})
    for marker, value in (("__TITLE__", html.escape(title)),
                          ("__EXTRA__", extra),
                          ("__SCRIPT__", SCRIPT.read_text(encoding="utf-8"))):
        page = page.replace(marker, value, 1)
    head, sep, tail = page.rpartition("__DATA__")
    return head + data + tail


def write_viewer(tree: Tree, path: str | Path, title: str | None = None) -> Path:
    """Write the viewer page for *tree* to *path*."""
    path = Path(path)
    path.write_text(viewer_html(title or f"{tree.name}: {tree.count} nodes",
                                [tree_data(tree)]), encoding="utf-8")
    return path
