# SPDX-License-Identifier: GPL-2.0
"""A layout computed directly from the tree, for trees of any size.

Graphviz ``dot`` draws small trees well but takes seconds at a few thousand
nodes and does not finish at 100,000.  Here x is the node's in-order rank
and y its depth, which is O(n) and needs no search: in a binary search
tree, two nodes next to each other in order are ancestor and descendant,
so nodes of one level are at least two columns apart and no two nodes
overlap.  Edges never cross either (a subtree occupies a contiguous range
of ranks).

:func:`layout` places the one shape walk's tree (:mod:`rbtilib.shape`, as
``rbtilib.show`` and the dot renderer draw it); :func:`to_svg`
writes it as SVG; :mod:`rbtiviz.viewer` draws it in the browser.
"""
from __future__ import annotations

import html

from rbtilib.checker import Violation, check
from rbtilib.dump import Tree, format_flags, number_text
from rbtilib.record import factory, record
from rbtilib.shape import Shape, unreached_line

from .copies import copies, label

DX, DY, RADIUS, MARGIN = 18, 44, 6, 24
"""SVG geometry: column width, level height, node radius, margin (px)."""

RED_FILL, BLACK_FILL = "#c62828", "#212121"
HIGHLIGHT_COLOR, VIOLATION_COLOR = "#1e88e5", "#ffb300"
CACHE_COLOR = "#8e24aa"
"""The ring of the cached leftmost and rightmost (as the viewer's)."""


@record
class Layout:
    """The drawn tree, nodes numbered by index in preorder.

    ``left``/``right``/``parent`` hold indices, -1 for none; only tree
    edges (the first link reaching a node) are children.  ``bad`` lists
    the other links: ``(index, side, target id, why)``.
    """

    ids: list = factory(list)
    index: dict = factory(dict)
    left: list = factory(list)
    right: list = factory(list)
    parent: list = factory(list)
    depth: list = factory(list)      # the root is 0
    rank: list = factory(list)       # in-order position
    bad: list = factory(list)
    unreached: list = factory(list)  # ids not reached

    @property
    def height(self) -> int:
        """Levels drawn."""
        return max(self.depth) + 1 if self.depth else 0


def layout(tree: Tree) -> Layout:
    """Rank and depth each node of the one shape walk (rbtilib.shape)."""
    lay = Layout()
    shape = Shape(tree)
    if shape.order:
        ids, index = shape.order, lay.index
        lay.ids = ids
        for i, nid in enumerate(ids):
            index[nid] = i
        n = len(ids)
        lay.left, lay.right, lay.parent = [-1] * n, [-1] * n, [-1] * n
        for i, nid in enumerate(ids):
            for side, kid in enumerate(shape.links[nid]):
                if kid is not None:
                    j = index[kid]
                    (lay.right if side else lay.left)[i] = j
                    lay.parent[j] = i
        lay.depth = [0] * n
        for j in range(1, n):               # preorder: parents first
            lay.depth[j] = lay.depth[lay.parent[j]] + 1
        lay.bad = [(index[b.node], "LR"[b.side], b.target, b.why)
                   for b in shape.bad]
        lay.rank = [0] * len(ids)
        rank = 0
        stack = []
        i = 0
        while stack or i >= 0:
            while i >= 0:
                stack.append(i)
                i = lay.left[i]
            i = stack.pop()
            lay.rank[i] = rank
            rank += 1
            i = lay.right[i]
    lay.unreached = shape.unreached()
    return lay


def _title_lines(tree: Tree, title: str | None, violations: list[Violation],
                 unreached: list) -> list[tuple[str, str]]:
    head = title if title is not None else (
        f"{tree.name} ({tree.api}: {format_flags(tree.flags)})")
    lines = [("t", head),
             ("", f"{tree.count} nodes \u00b7 height {tree.height}")]
    if getattr(tree, "copy1", None) is not None:
        lines.append(("", "a latch tree: copy 0 (left) and copy 1 (right), "
                      "each with its own links and colours"))
    line = unreached_line(unreached)
    if line:
        lines.append(("bad", line))
    if violations:
        v = violations[0]
        more = f" (+{len(violations) - 1} more)" if len(violations) > 1 else ""
        lines.append(("bad", f"{v}{more}"))
    return lines


def to_svg(tree: Tree, highlight=(), highlight_violation: bool = False,
           title: str | None = None,
           violations: list[Violation] | None = None) -> str:
    """SVG text of *tree* in the direct layout.

    Red and black circles, keys under them (with ``#ID`` on ``dup`` trees)
    and below the key the aug value and the VALUE where the tree has them
    (``max=7``, ``value=3``, named as ``rbti show`` names them), thin
    edges; the cached leftmost and rightmost get a purple ring marked L or
    R; *highlight* ids get a blue ring, and with
    *highlight_violation* the nodes the checker blames an amber one and
    the first violation goes under the title.  Links that are not tree
    edges (a corrupted tree) are short dashed red stubs labelled with the
    target id.  A latch tree is drawn twice, side by side under a line
    each (:mod:`rbtiviz.copies`): copy 0, then copy 1 with its own links
    and colours and the violations found in it.
    """
    if highlight_violation and violations is None:
        violations = check(tree)
    violations = violations if highlight_violation else []
    parts = copies(tree, violations)
    lays = [layout(part.tree) for part in parts]
    titles = _title_lines(tree, title, violations, lays[0].unreached)
    heads = [label(part, highlight_violation) for part in parts]
    top = MARGIN + 22 * len(titles) + 10 + (18 if heads[0] else 0)
    x0s, x = [], MARGIN
    for lay, head in zip(lays, heads):
        x0s.append(x)
        # A copy's column is as wide as its line (7 px a character).
        x += max(DX * max(len(lay.ids), 1), 7 * len(head or "")) + 2 * MARGIN
    width = max(x - MARGIN, 480)
    height = top + DY * max(max(lay.height for lay in lays), 1) + MARGIN
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" '
           f'height="{height}" viewBox="0 0 {width} {height}" '
           'font-family="DejaVu Sans,Helvetica,Arial,sans-serif">',
           "<style>.r{fill:" + RED_FILL + "}.b{fill:" + BLACK_FILL + "}"
           ".e{stroke:#757575;stroke-width:1;fill:none}"
           ".k{font-size:8px;text-anchor:middle;fill:#212121}"
           ".a{font-size:7px;fill:#616161}"
           ".c{font-size:9px;font-weight:bold;fill:" + CACHE_COLOR + "}"
           ".t{font-size:16px;font-weight:bold}.bad{fill:" + RED_FILL + "}"
           ".x{stroke:" + RED_FILL + ";stroke-dasharray:3 2;fill:none}"
           ".p{font-size:12px;fill:#424242}"
           "</style>",
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for row, (cls, text) in enumerate(titles):
        out.append(f'<text x="{MARGIN}" y="{MARGIN + 16 + 22 * row}" '
                   f'class="{cls}">{html.escape(text)}</text>')
    for part, lay, x0, head in zip(parts, lays, x0s, heads):
        if head:
            out.append(f'<text x="{x0}" y="{top - 14}" class="p">'
                       f"{html.escape(head)}</text>")
        out.extend(_panel(part.tree, lay, x0, top, set(highlight),
                          {v.node for v in part.violations if v.node is not None}))
    out.append("</svg>")
    return "\n".join(out) + "\n"


def _panel(tree: Tree, lay: Layout, x0: int, top: int, wanted: set,
           blamed: set) -> list[str]:
    """The SVG elements of one tree (one copy of a latch tree) laid out
    by *lay*, its leftmost column at *x0*, its root's level at *top*."""
    out, n, nodes = [], len(lay.ids), tree.nodes
    xs = [x0 + DX * r + DX // 2 for r in lay.rank]
    ys = [top + DY * d + RADIUS for d in lay.depth]
    path = []
    for j in range(1, n):
        i = lay.parent[j]
        path.append(f"M{xs[i]} {ys[i]}L{xs[j]} {ys[j]}")
    if path:
        out.append(f'<path class="e" d="{"".join(path)}"/>')
    stubs = []
    for i, side, target, why in lay.bad:
        x2 = xs[i] + (-DX if side == "L" else DX)
        stubs.append(f"M{xs[i]} {ys[i]}L{x2} {ys[i] + DY // 2}")
        out.append(f'<text x="{x2}" y="{ys[i] + DY // 2 + 10}" class="k bad">'
                   f"#{target}? {why}</text>")
    if stubs:
        out.append(f'<path class="x" d="{"".join(stubs)}"/>')
    show_id = "dup" in tree.flags
    circles, labels, rings = [], [], []
    cached = {getattr(tree, which): letter for which, letter in
              (("leftmost", "L"), ("rightmost", "R")) if which in tree.flags}
    for i, nid in enumerate(lay.ids):
        node = nodes[nid]
        key = number_text(tree, "key", node.key)
        x, y = xs[i], ys[i]
        circles.append(f'<circle cx="{x}" cy="{y}" r="{RADIUS}" '
                       f'class="{"r" if node.color == "R" else "b"}">'
                       f"<title>#{nid} key {key}</title></circle>")
        under = f"{key}#{nid}" if show_id or nid in blamed else key
        labels.append(f'<text x="{x}" y="{y + RADIUS + 9}" class="k">'
                      f"{under}</text>")
        small = []
        if node.aug is not None:
            small.append(f"{tree.aug or 'aug'}={number_text(tree, 'aug', node.aug)}")
        if node.value is not None:
            small.append(f"{tree.value or 'value'}={node.value}")
        for row, text in enumerate(small, 1):
            labels.append(f'<text x="{x}" y="{y + RADIUS + 9 + 8 * row}" '
                          f'class="k a">{html.escape(text)}</text>')
        if nid in cached:
            side = -1 if cached[nid] == "L" else 1
            rings.append(f'<circle cx="{x}" cy="{y}" r="{RADIUS + 6}" fill="none" '
                         f'stroke="{CACHE_COLOR}" stroke-width="1.5">'
                         f"<title>cached {'leftmost' if side < 0 else 'rightmost'}"
                         "</title></circle>")
            labels.append(f'<text x="{x + side * (RADIUS + 8)}" y="{y + 3}" '
                          f'class="c" text-anchor="{"end" if side < 0 else "start"}">'
                          f"{cached[nid]}</text>")
        ring = HIGHLIGHT_COLOR if nid in wanted else \
            VIOLATION_COLOR if nid in blamed else None
        if ring:
            rings.append(f'<circle cx="{x}" cy="{y}" r="{RADIUS + 3}" '
                         f'fill="none" stroke="{ring}" stroke-width="3"/>')
    return out + circles + rings + labels
