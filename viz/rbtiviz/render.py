# SPDX-License-Identifier: GPL-2.0
"""Graphviz rendering of rbtree-inspector trees.

A :class:`rbtilib.dump.Tree` (parsed once by ``rbtilib.dump.parse_dump``) is
turned into DOT text by :func:`to_dot` and into an SVG/PNG/DOT file by
:func:`write_snapshot`, which runs Graphviz ``dot``.

The drawing follows the child pointers from the root, like the dump does:

- every node is a circle filled red or black, labelled with its key, plus
  ``#ID`` on ``dup`` trees (where keys repeat) and on outlined nodes (so that
  a checker message, which names ids, points at a visible label), and the
  augmented value on augmented trees (named by its rule: ``size``,
  ``max``, ``interval-last``) and the node's VALUE on the rbtree family's
  trees that have one (``value``, or ``last``: the interval is [KEY,
  last]);
- every missing child is a small NIL point, so a lone child is visibly a
  left or a right one and a full drawing has exactly ``n + 1`` NIL leaves;
- children are ordered (``ordering=out``): the left edge is always emitted
  before the right one, so the left child is drawn on the left;
- highlighted node ids get a thick blue outline; with
  ``highlight_violation=True`` every node named by ``rbtilib.checker.check``
  gets a thick amber outline and the first violation is printed under the
  title;
- ``max_depth`` and ``collapse_over`` replace subtrees by a dashed
  ``… N nodes`` box (with their key range) so that big trees stay readable.

DOT node names: ``n<ID>`` for tree nodes, ``nil_<ID>_<L|R>`` for NIL leaves,
``sub_<ID>`` for a box standing for the subtree rooted at node ``ID``,
``gone_<ID>_<L|R>`` for a child pointer that is no edge of the tree
(:mod:`rbtilib.shape`: a cycle, a shared node or an id missing from the dump,
labelled with the fault's word; only on a corrupted tree).  Nodes the walk
does not reach are listed under the title.

A latch tree is drawn twice, side by side in two boxes, as ``rbti show``
draws it: copy 0 on the left, copy 1 on the right with its own links and
colours (:mod:`rbtiviz.copies`), each box titled with its size, height
and, with ``highlight_violation``, its verdict; a violation found in copy
1 (its message starts ``copy 1:``) is marked on copy 1's node.  Copy 1's
DOT names start ``c1_`` (``c1_n<ID>``, ``c1_nil_<ID>_L``, ...).
"""
from __future__ import annotations

import html
import shutil
import subprocess
from pathlib import Path
from typing import Collection, Iterable, Iterator

from rbtilib.checker import Violation, check, node_words
from rbtilib.dump import Node, Tree, format_flags, number_text
from rbtilib.record import record
from rbtilib.shape import MISSING, WORDS, Shape, unreached_line

from .copies import copies, label
from .titles import plural

RED_FILL = "#c62828"
BLACK_FILL = "#212121"
NODE_FONT_COLOR = "white"
HIGHLIGHT_COLOR = "#1e88e5"
VIOLATION_COLOR = "#ffb300"
HIGHLIGHT_PENWIDTH = 5
BOX_FILL = "#eeeeee"
NIL_COLOR = "#9e9e9e"
FONT = "DejaVu Sans,Helvetica,Arial,sans-serif"
PNG_DPI = 110
DOT_TIMEOUT = 120
"""Seconds Graphviz may take before it is killed: dot's layout of some
trees (a 5,000-node chain, say) does not finish in minutes."""

FORMATS = ("svg", "png", "dot", "html")
LAYOUTS = ("auto", "dot", "direct")
DIRECT_OVER = 300
"""``layout="auto"`` draws SVG of trees with more nodes than this directly
(:mod:`rbtiviz.layout`) instead of through Graphviz: dot takes ~2 s at
1,000 nodes and does not finish at 100,000."""

LEFT, RIGHT = "L", "R"


@record(frozen=True)
class _Child:
    """One child slot of a drawn node: which side, and what hangs there."""

    parent: int
    side: str
    target: int | None


def black_height(tree: Tree) -> int | None:
    """Black nodes on the path from the root to its leftmost NIL.

    This is presentation only (the title shows it); whether all paths agree
    is the checker's ``black-height`` rule. ``None`` if the path leaves the
    dumped nodes or loops (a corrupted tree), 0 for an empty tree.
    """
    blacks = 0
    seen: set[int] = set()
    cur = tree.root
    while cur is not None:
        node = tree.nodes.get(cur)
        if node is None or cur in seen:
            return None
        seen.add(cur)
        blacks += node.color == "B"
        cur = node.left
    return blacks


def _children(node: Node) -> tuple[_Child, _Child]:
    return (_Child(node.id, LEFT, node.left), _Child(node.id, RIGHT, node.right))


def _quote(value: str) -> str:
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return '"' + escaped + '"'


class _Html(str):
    """An HTML-like Graphviz label body (written as <...>, not quoted)."""


def _attrs(**attrs: str | int | float) -> str:
    """A DOT attribute list, quoting every value but HTML labels."""
    parts = []
    for name, value in attrs.items():
        text = f"<{value}>" if isinstance(value, _Html) else _quote(str(value))
        parts.append(f"{name}={text}")
    return "[" + ", ".join(parts) + "]"


def _node_label(tree: Tree, node: Node, show_id: bool) -> _Html:
    """Key in bold; ``#ID`` (if asked) and the aug value in small print."""
    small = []
    if show_id:
        small.append(f"#{node.id}")
    if node.aug is not None:
        small.append(f"{html.escape(tree.aug or 'aug')} "
                     f"{number_text(tree, 'aug', node.aug)}")
    if node.value is not None:
        small.append(f"{html.escape(tree.value or 'value')} "
                     f"{number_text(tree, 'value', node.value)}")
    lines = [f"<B>{number_text(tree, 'key', node.key)}</B>"] + [f'<FONT POINT-SIZE="9">{s}</FONT>' for s in small]
    return _Html("<BR/>".join(lines))


def _title(tree: Tree, title: str | None, violations: list[Violation],
           shape: Shape) -> _Html:
    head = title if title is not None else (
        f"{tree.name} ({tree.api}: {format_flags(tree.flags)})")
    bh = black_height(tree)
    stats = (f"{plural(tree.count, 'node')} \u00b7 height {tree.height} \u00b7 "
             f"black height {'?' if bh is None else bh}")
    lines = [f'<FONT POINT-SIZE="16"><B>{html.escape(head)}</B></FONT>',
             html.escape(stats)]
    if tree.error:
        lines.append(f'<FONT COLOR="{RED_FILL}">dump error: {html.escape(tree.error)}</FONT>')
    if getattr(tree, "copy1", None) is not None:
        lines.append("a latch tree: copy 0 (left) and copy 1 (right), each with "
                     "its own links and colours")
    unreached = unreached_line(shape.unreached())
    if unreached:
        lines.append(f'<FONT COLOR="{RED_FILL}">{html.escape(unreached)}</FONT>')
    if violations:
        first = violations[0]
        where = "" if first.node is None else \
            f" {node_words(first.node, first.key)}"
        more = f" (+{len(violations) - 1} more)" if len(violations) > 1 else ""
        lines.append(f'<FONT COLOR="{RED_FILL}">{html.escape(first.cls)}{where}: '
                     f"{html.escape(first.message)}{more}</FONT>")
    return _Html("<BR/>".join(lines))


def _edge(tail: str, head: str, **extra: str | int | float) -> str:
    return f"  {tail} -> {head}" + (f" {_attrs(**extra)}" if extra else "") + ";"


def _nil(name: str) -> str:
    return f"  {name} " + _attrs(shape="point", width=0.07, color=NIL_COLOR,
                                 fillcolor=NIL_COLOR) + ";"


def _box(tree: Tree, name: str, nodes: list[Node], outline: str | None) -> str:
    keys = [number_text(tree, "key", k) for k in (min(n.key for n in nodes),
                                                    max(n.key for n in nodes))]
    attrs: dict[str, str | int] = {
        "shape": "box", "style": "rounded,filled,dashed", "fontcolor": BLACK_FILL,
        "fontsize": 11, "label": f"\u2026 {plural(len(nodes), 'node')}\n{keys[0]}..{keys[1]}",
    }
    if outline is not None:
        attrs.update(color=outline, penwidth=HIGHLIGHT_PENWIDTH)
    return f"  {name} {_attrs(**attrs)};"


def _gone(name: str, target: int, why: str) -> str:
    return f"  {name} " + _attrs(shape="box", style="dashed", color=RED_FILL,
                                 fontcolor=RED_FILL, fontsize=10,
                                 label=f"#{target}?\n{why}") + ";"


def _tree_node(tree: Tree, node: Node, outline: str | None, p: str = "") -> str:
    fill = RED_FILL if node.color == "R" else BLACK_FILL
    # Ids tell equal keys apart and match outlined nodes to messages.
    label = _node_label(tree, node, "dup" in tree.flags or outline is not None)
    attrs: dict[str, str | int] = {"label": label, "fillcolor": fill, "color": fill}
    if "<BR/>" in label:        # two or three lines: a rounded box stays compact
        attrs.update(shape="box", style="rounded,filled", margin="0.08,0.03")
    if outline is not None:
        attrs.update(color=outline, penwidth=HIGHLIGHT_PENWIDTH)
    return f"  {p}n{node.id} {_attrs(**attrs)};"


@record(frozen=True)
class _Marks:
    """Which nodes to outline: asked for by the caller, or named by the checker."""

    highlight: frozenset[int]
    flagged: frozenset[int]

    def outline(self, ids: Collection[int]) -> str | None:
        """Outline colour for a node (or a box holding ``ids``), None if plain."""
        if not self.highlight.isdisjoint(ids):
            return HIGHLIGHT_COLOR
        if not self.flagged.isdisjoint(ids):
            return VIOLATION_COLOR
        return None


def _body(tree: Tree, shape: Shape, marks: _Marks, max_depth: int | None,
          collapse_over: int | None, p: str = "") -> Iterator[str]:
    """DOT statements for the nodes and edges, walking preorder from the
    root; every DOT name starts with *p* (a latch tree's copy 1: ``c1_``)."""
    if tree.root is None:
        yield _nil(f"{p}nil_root")
        return
    if tree.root not in tree.nodes:
        yield _gone(f"{p}gone_root", tree.root, WORDS[MISSING])
        return
    size = shape.sizes()
    bad = shape.bad_by_node()
    keep = shape.ancestors_of(marks.highlight | marks.flagged)

    def boxed(node_id: int, depth: int) -> bool:
        if max_depth is not None and depth > max_depth:
            return True
        return (collapse_over is not None and node_id != tree.root
                and node_id not in keep and size[node_id] > collapse_over)

    stack: list[tuple[int, int]] = [(tree.root, 1)]
    while stack:
        node_id, depth = stack.pop()
        if boxed(node_id, depth):
            inside = list(shape.subtree(node_id))
            yield _box(tree, f"{p}sub_{node_id}", [tree.nodes[i] for i in inside],
                       marks.outline(inside))
            continue
        node = tree.nodes[node_id]
        yield _tree_node(tree, node, marks.outline({node_id}), p)
        tail = f"{p}n{node_id}"
        below = []
        for child in _children(node):
            if child.side == RIGHT and (node.left, node.right) != (None, None):
                # An invisible middle child pushes a lone child off-centre.
                yield f"  {p}mid_{node_id} " + _attrs(style="invis", label="", width=0.1) + ";"
                yield _edge(tail, f"{p}mid_{node_id}", style="invis")
            if child.target is None:
                name = f"{p}nil_{node_id}_{child.side}"
                yield _nil(name)
                yield _edge(tail, name, color=NIL_COLOR)
            elif shape.links[node_id][child.side == RIGHT] != child.target:
                name = f"{p}gone_{node_id}_{child.side}"
                yield _gone(name, child.target,
                            bad[node_id][child.side == RIGHT].why)
                yield _edge(tail, name, color=RED_FILL, style="dashed")
            else:
                head = "sub_" if boxed(child.target, depth + 1) else "n"
                yield _edge(tail, f"{p}{head}{child.target}")
                below.append((child.target, depth + 1))
        stack.extend(reversed(below))


def violations_of(tree: Tree) -> list[Violation]:
    """Everything ``rbtilib.checker.check`` reports for ``tree``."""
    return list(check(tree))


def to_dot(tree: Tree, highlight: Iterable[int] = (), max_depth: int | None = None,
           collapse_over: int | None = None, title: str | None = None,
           highlight_violation: bool = False) -> str:
    """Return DOT text drawing ``tree``.

    @highlight: node ids to outline in blue.
    @max_depth: draw at most this many levels (the root is level 1); deeper
        subtrees become ``… N nodes`` boxes.
    @collapse_over: a subtree of more than this many nodes becomes a box,
        except the root and the nodes on the way to a highlighted (or, with
        highlight_violation, flagged) node, which stay expanded.
    @title: replaces the first title line (name, api and flags).
    @highlight_violation: outline in amber every node the checker names and
        print the first violation under the title.
    """
    if max_depth is not None and max_depth < 1:
        raise ValueError(f"max_depth must be at least 1, not {max_depth}")
    if collapse_over is not None and collapse_over < 1:
        raise ValueError(f"collapse_over must be at least 1, not {collapse_over}")
    wanted = frozenset(highlight)
    violations = violations_of(tree) if highlight_violation else []
    flagged = frozenset(v.node for v in violations if v.node is not None) - wanted
    shape = Shape(tree)
    lines = [
        f"digraph {_quote('rbtree ' + tree.name)} {{",
        "  graph " + _attrs(ordering="out", nodesep=0.3, ranksep=0.4, labelloc="t",
                            fontname=FONT, fontsize=12, bgcolor="white", margin=0.2,
                            label=_title(tree, title, violations, shape)) + ";",
        "  node " + _attrs(shape="circle", style="filled", fontname=FONT, fontsize=13,
                           fontcolor=NODE_FONT_COLOR, width=0.5, margin=0.03,
                           penwidth=1.5, fillcolor=BOX_FILL) + ";",
        "  edge " + _attrs(arrowhead="none", color="#616161", penwidth=1.3) + ";",
    ]
    parts = copies(tree, violations)
    if len(parts) == 1:
        lines.extend(_body(tree, shape, _Marks(wanted, flagged), max_depth,
                           collapse_over))
    for part in parts if len(parts) > 1 else ():
        # A latch tree: each copy in a box of its own, side by side.
        mine = frozenset(v.node for v in part.violations if v.node is not None)
        lines.append(f"  subgraph cluster_copy{part.number} {{")
        lines.append("    graph " + _attrs(label=label(part, highlight_violation),
                                           labelloc="t", style="dashed",
                                           color=NIL_COLOR) + ";")
        lines.extend("  " + s for s in _body(
            part.tree, shape if part.number == 0 else Shape(part.tree),
            _Marks(wanted, mine - wanted), max_depth, collapse_over,
            f"c{part.number}_" if part.number else ""))
        lines.append("  }")
    lines.append("}")
    return "\n".join(lines) + "\n"


def dot_binary() -> str:
    """Path of Graphviz ``dot``; raises FileNotFoundError if absent."""
    found = shutil.which("dot") or ("/usr/bin/dot" if Path("/usr/bin/dot").exists() else None)
    if found is None:
        raise FileNotFoundError("Graphviz 'dot' not found on PATH (apt-get install graphviz)")
    return found


def format_of(path: str | Path, fmt: str | None = None) -> str:
    """The output format: ``fmt`` if given, else from the file suffix."""
    fmt = fmt or Path(path).suffix.lstrip(".").lower()
    if fmt not in FORMATS:
        raise ValueError(f"{path}: unknown output format {fmt!r}, "
                         f"want one of {', '.join(FORMATS)}")
    return fmt


def run_dot(dot_text: str, fmt: str, timeout: float = DOT_TIMEOUT) -> bytes:
    """Lay out ``dot_text`` with Graphviz and return the ``fmt`` output.

    RuntimeError if dot fails, or takes more than *timeout* seconds (it
    is killed then).
    """
    cmd = [dot_binary(), f"-T{fmt}"]
    if fmt == "png":
        cmd.append(f"-Gdpi={PNG_DPI}")
    try:
        proc = subprocess.run(cmd, input=dot_text.encode(), capture_output=True,
                              check=False, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise RuntimeError(f"dot -T{fmt} did not finish in {timeout:g} s and was "
                           "killed; draw an svg or html (laid out directly), or "
                           "use --max-depth or --collapse") from None
    if proc.returncode != 0:
        raise RuntimeError(f"dot -T{fmt} failed ({proc.returncode}): "
                           f"{proc.stderr.decode(errors='replace').strip()}")
    return proc.stdout


def write_snapshot(tree: Tree, path: str | Path, highlight: Iterable[int] = (),
                   fmt: str | None = None, layout: str = "auto", **opts) -> Path:
    """Render ``tree`` to ``path`` (svg, png, dot or html, from ``fmt`` or
    the suffix).

    ``html`` is the interactive viewer (:mod:`rbtiviz.viewer`).  For the
    others ``opts`` go to :func:`to_dot` (max_depth, collapse_over, title,
    highlight_violation); *layout* ``direct`` (or ``auto`` for an SVG of
    more than DIRECT_OVER nodes without max_depth or collapse_over) draws
    the SVG with :func:`rbtiviz.layout.to_svg` instead of Graphviz.
    Returns the path written.
    """
    from .layout import to_svg
    from .viewer import write_viewer

    path = Path(path)
    fmt = format_of(path, fmt)
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}, want one of {', '.join(LAYOUTS)}")
    if fmt == "html":
        return write_viewer(tree, path, title=opts.get("title"))
    direct = layout == "direct" or (
        layout == "auto" and fmt == "svg" and len(tree.nodes) > DIRECT_OVER
        and not opts.get("max_depth") and not opts.get("collapse_over"))
    if direct:
        if fmt != "svg":
            raise ValueError(f"{path}: the direct layout writes svg (or html), not {fmt}")
        data = to_svg(tree, highlight=highlight, title=opts.get("title"),
                      highlight_violation=opts.get("highlight_violation", False)).encode()
    else:
        text = to_dot(tree, highlight=highlight, **opts)
        data = text.encode() if fmt == "dot" else run_dot(text, fmt)
    path.write_bytes(data)
    return path
