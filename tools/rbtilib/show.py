# SPDX-License-Identifier: GPL-2.0
"""``rbti show``: a tree drawn in the terminal, rotated like ``tree``.

The root is on the left, depth grows to the right and the nodes appear in
order from top to bottom, so the smallest key is on the first line::

    santos (santos: unique,leftmost,rightmost,count): 5 nodes, height 3, ok
        ┌── 10 B [leftmost]
    ┌── 20 R
    │   └── 30 B
    40 B
    └── 50 B [rightmost]

Each line is one node: its key, ``R``/``B`` (or the key in red or bold on
a colour terminal), ``#ID`` where its key is not unique in the tree (and
on nodes the checker blames, whose messages name ids), the augmented
value by its rule's name (``size=3``, ``max=70``, ``interval-last=90``),
the node's VALUE on a tree of the rbtree family that has one
(``value=5``; ``last=25``, the end of the interval [KEY, LAST]),
``[leftmost]``/``[rightmost]`` where the tree's cached pointers point,
and ``!! CLASS: message`` for each violation the checker blames on it.
A latch tree is drawn twice: copy 0, then copy 1 (its own colours and
links) under a ``copy 1:`` title; violations found in copy 1 are drawn
on it.  A link that is no edge of the tree (:mod:`rbtilib.shape`: a cycle, a
shared node, or an id missing from the dump) is a ``→ #ID (WHY)`` line,
and a node the walk does not reach an ``unreachable:`` line.  Subtrees
deeper than the depth limit are one ``… N nodes, keys A..B`` line each;
the nodes on the way to the first ten blamed nodes
(:data:`~rbtilib.checker.SHOWN`) are drawn whatever their depth, a fold
hiding other blamed nodes ends in ``!! N violations``, and a last line
says how many violations the drawing leaves out (``… and N more
violations not drawn``).  Lines deeper than :data:`INDENT_CAP` levels
start with ``⋯`` in place of the levels above: the drawing of a
corrupted chain of any depth stays linear in its size.

The drawing is computed in one pass over the nodes (O(n)): a 1,000-node
tree takes a few milliseconds on the host.
"""

from __future__ import annotations

from . import checker
from .dump import Tree, format_flags, number_text
from .record import factory, record
from .record import replace as record_replace
from .shape import UNREACHABLE, WORDS, Shape

RED, BOLD, WARN, RESET = "\x1b[31;1m", "\x1b[1m", "\x1b[33;1m", "\x1b[0m"
NOT_TTY_LINES = 2000
"""Line budget of ``--max-depth auto`` when the size of no terminal is known."""


@record
class _Shape:
    """The tree as drawn: the one shape walk (:mod:`rbtilib.shape`)."""

    depth: dict = factory(dict)     # id -> depth (root 1)
    kids: dict = factory(dict)      # id -> (left, right)
    size: dict = factory(dict)
    low: dict = factory(dict)       # smallest key below
    high: dict = factory(dict)
    order: list = factory(list)     # preorder
    unreached: list = factory(list)


# A child slot: None (NIL), ("node", id) or ("bad", id, why).

def _shape(tree: Tree) -> _Shape:
    walk = Shape(tree)
    bad = walk.bad_by_node()
    shape = _Shape(depth=walk.depths(), size=walk.sizes(), order=walk.order,
                   unreached=walk.unreached())
    nodes = tree.nodes
    for nid in reversed(shape.order):
        links, faults = walk.links[nid], bad.get(nid, (None, None))
        shape.kids[nid] = tuple(
            ("node", kid) if kid is not None else
            ("bad", faults[side].target, faults[side].why) if faults[side]
            else None for side, kid in enumerate(links))
        key = nodes[nid].key
        low, high = key, key
        for kid in links:
            if kid is not None:
                low = min(low, shape.low[kid])
                high = max(high, shape.high[kid])
        shape.low[nid], shape.high[nid] = low, high
    return shape


def _fit_depth(shape: _Shape, budget: int) -> int | None:
    """The largest depth limit whose drawing has at most *budget* lines.

    None: everything fits.
    """
    per_depth: dict = {}
    for d in shape.depth.values():
        per_depth[d] = per_depth.get(d, 0) + 1
    if len(shape.depth) <= budget:
        return None
    lines = 0
    best = 1
    for d in range(1, max(per_depth) + 1):
        lines += per_depth.get(d, 0)
        if lines + per_depth.get(d + 1, 0) > budget:
            break
        best = d
    return best


def _keep(shape: _Shape, blamed, max_depth: int) -> tuple[set, dict]:
    """Which nodes deeper than *max_depth* stay drawn, and what folding
    hides: ``(keep, hidden)``.

    *blamed* maps node ids to their violations in the checker's order.
    The first :data:`~rbtilib.checker.SHOWN` blamed nodes below the depth
    limit, and every node above them, are never folded; *hidden* maps each
    node to the number of violations blamed on its subtree and not drawn
    (the fold line's ``!!``).  A deep corrupted tree, where every node is
    blamed, so draws at most SHOWN paths: output and memory grow no faster
    than the tree (O(n) together), not as its depth times its size.
    """
    up = {}
    for nid, slots in shape.kids.items():
        for slot in slots:
            if slot and slot[0] == "node":
                up[slot[1]] = nid
    keep: set = set()
    hidden: dict = {}
    kept = 0
    for nid, found in blamed.items():
        if shape.depth.get(nid, 0) <= max_depth:
            continue
        if kept < checker.SHOWN:
            kept += 1
            while nid in shape.depth and nid not in keep:
                keep.add(nid)
                nid = up.get(nid)
        else:
            hidden[nid] = hidden.get(nid, 0) + len(found)
    if hidden:
        for nid in reversed(shape.order):       # children before parents
            if nid in hidden and nid in up:
                hidden[up[nid]] = hidden.get(up[nid], 0) + hidden[nid]
    return keep, hidden


INDENT_CAP = 32
"""Levels of indent drawn: a line deeper than this starts with ``⋯``
in place of the levels above the last INDENT_CAP - 1, so that a line's
length, and the drawing of a deep chain, stays linear in its depth."""


def _indent(prefix: str, unit: str) -> str:
    """*prefix* one level deeper (*unit*, 4 characters), cut to
    :data:`INDENT_CAP` levels."""
    if len(prefix) < 4 * INDENT_CAP:
        return prefix + unit
    return "⋯   " + prefix[8:] + unit


class _Style:
    def __init__(self, color: bool, tree: Tree) -> None:
        self.color = color
        self.tree = tree

    def num(self, field: str, value: int) -> str:
        """A key or aug value, in hex where the dump says (its hex line)."""
        return number_text(self.tree, field, value)

    def key(self, node) -> str:
        key = self.num("key", node.key)
        if not self.color:
            return f"{key} {node.color}"
        return f"{RED if node.color == 'R' else BOLD}{key}{RESET}"

    def warn(self, text: str) -> str:
        return f"{WARN}{text}{RESET}" if self.color else text


def render(tree: Tree, color: bool = False, max_depth: int | None = None,
           violations: list | None = None) -> str:
    """Draw *tree* as text (see the module docstring).

    @max_depth: fold subtrees below this depth (root: 1), None for all.
    @violations: the checker's list (computed if None).
    """
    if violations is None:
        violations = checker.check(tree)
    if tree.copy1 is not None:
        return _latch(tree, color, max_depth, violations)
    style = _Style(color, tree)
    nodes = tree.nodes
    shape = _shape(tree)
    blamed: dict = {}
    for v in violations:
        if v.node is not None:
            blamed.setdefault(v.node, []).append(v)
    keep, hidden = _keep(shape, blamed, max_depth) \
        if max_depth is not None else (set(), {})
    hidden_total = sum(len(blamed[nid]) for nid in hidden
                       if nid in blamed and nid not in keep and
                       shape.depth[nid] > (max_depth or 0))
    key_count: dict = {}
    for node in nodes.values():
        key_count[node.key] = key_count.get(node.key, 0) + 1
    cached = {}
    for which in ("leftmost", "rightmost"):
        ref = getattr(tree, which)
        if which in tree.flags and ref is not None:
            cached.setdefault(ref, []).append(which)
    aug_name = tree.aug or "aug"

    def label(nid: int) -> str:
        node = nodes[nid]
        parts = [style.key(node)]
        if key_count[node.key] > 1 or nid in blamed:
            parts.append(f"#{nid}")
        if node.aug is not None:
            parts.append(f"{aug_name}={style.num('aug', node.aug)}")
        if node.value is not None:
            parts.append(f"{tree.value}={style.num('value', node.value)}")
        for which in cached.get(nid, ()):
            parts.append(f"[{which}]")
        for v in blamed.get(nid, ()):
            parts.append(style.warn(f"!! {v.cls}: {v.message}"))
        return " ".join(parts)

    def folded(nid: int) -> str:
        # The first SHOWN blamed nodes and their ancestors are never
        # folded (keep); the others are counted on the fold.
        n = shape.size[nid]
        text = (f"… {n} node{'s' if n != 1 else ''}, keys "
                f"{style.num('key', shape.low[nid])}.."
                f"{style.num('key', shape.high[nid])}")
        if hidden.get(nid):
            text += style.warn(f" !! {hidden[nid]} violation"
                               f"{'s' if hidden[nid] != 1 else ''}")
        return text

    title = (f"{tree.name} ({tree.api}: {format_flags(tree.flags)}): "
             f"{tree.count} node{'s' if tree.count != 1 else ''}, "
             f"height {tree.height}")
    title += ", ok" if not violations else style.warn(
        f", {len(violations)} violation{'s' if len(violations) != 1 else ''}")
    out = [title]
    if tree.root is None:
        out.append("(empty)")
    elif tree.root not in nodes:
        out.append(style.warn(f"→ #{tree.root} (root not in the dump)"))
    else:
        # Work items: ("n", id, prefix, side) expands a node; ("l", text)
        # is a finished line.  Left subtree, the node, then right subtree.
        stack: list = [("n", tree.root, "", "")]
        while stack:
            item = stack.pop()
            if item[0] == "l":
                out.append(item[1])
                continue
            _, nid, prefix, side = item
            conn = {"": "", "L": "┌── ", "R": "└── "}[side]
            # The bar from a node to its parent runs past the subtree on
            # the parent's side: the right one of a left child, and so on.
            left_prefix = _indent(prefix, {"": "", "L": "    ",
                                           "R": "│   "}[side])
            right_prefix = _indent(prefix, {"": "", "L": "│   ",
                                            "R": "    "}[side])
            if (max_depth is not None and shape.depth[nid] > max_depth
                    and nid not in keep and (shape.size[nid] > 1 or
                                             nid in hidden)):
                out.append(prefix + conn + folded(nid))
                continue
            todo = []
            left, right = shape.kids[nid]
            for slot, kid_prefix, kid_side in ((left, left_prefix, "L"),
                                               (right, right_prefix, "R")):
                if slot is None:
                    todo.append(None)
                elif slot[0] == "bad":
                    kconn = "┌── " if kid_side == "L" else "└── "
                    todo.append(("l", kid_prefix + kconn + style.warn(
                        f"→ #{slot[1]} ({slot[2]})")))
                else:
                    todo.append(("n", slot[1], kid_prefix, kid_side))
            if todo[1]:
                stack.append(todo[1])
            stack.append(("l", prefix + conn + label(nid)))
            if todo[0]:
                stack.append(todo[0])
    for nid in shape.unreached:
        out.append(style.warn(f"{WORDS[UNREACHABLE]}: ")
                   + label_free(nodes[nid], style))
    lost = getattr(tree, "lost", None) or ()
    for node in (lost.values() if isinstance(lost, dict) else lost):
        out.append(style.warn("lost: ") + label_free(node, style))
    out.extend(style.warn(f"note: {note}") for note in checker.notes(tree))
    apart = [v for v in violations
             if v.node is None or v.node not in shape.depth]
    out.extend(style.warn(str(v)) for v in apart[:checker.SHOWN])
    more = max(0, len(apart) - checker.SHOWN) + hidden_total
    if more:
        out.append(style.warn(
            f"… and {more} more violation{'s' if more != 1 else ''} "
            f"not drawn (rbti check --max-violations {len(violations)} "
            f"lists all {len(violations)})"))
    return "\n".join(out) + "\n"


def label_free(node, style: _Style) -> str:
    """A node that is not in the drawing: key, colour and id."""
    aug = "" if node.aug is None else f" aug={style.num('aug', node.aug)}"
    value = "" if node.value is None else f" value={node.value}"
    return f"{style.key(node)} #{node.id}{aug}{value}"


def _latch(tree: Tree, color: bool, max_depth: int | None,
           violations: list) -> str:
    """A latch tree: copy 0 with its violations (``latch`` included),
    then copy 1 with those found in it."""
    copy = tree.copy1
    ours = [v for v in violations if not v.message.startswith("copy 1: ")]
    theirs = [v for v in violations if v.message.startswith("copy 1: ")]
    first = record_replace(tree, copy1=None)
    second = record_replace(tree, copy1=None, root=copy.root,
                            height=copy.height, nodes=copy.nodes, lost={},
                            error=copy.error)
    text = render(first, color, max_depth, ours)
    lines = render(second, color, max_depth, theirs).split("\n")
    lines[0] = f"copy 1: {len(copy.nodes)} nodes, height {copy.height}" + (
        ", ok" if not theirs else f", {len(theirs)} violation"
        f"{'s' if len(theirs) != 1 else ''}")
    return text + "\n".join(lines)


def max_depth_for(tree: Tree, choice: int | str, rows: int | None) -> int | None:
    """Resolve ``--max-depth``: a number, ``all`` or ``auto`` (fit *rows*
    minus the title and watch's header, or NOT_TTY_LINES when no terminal
    size is known)."""
    if choice == "all":
        return None
    if choice != "auto":
        return choice
    # The title line, and watch's two header lines.
    budget = max(3, rows - 3) if rows else NOT_TTY_LINES
    return _fit_depth(_shape(tree), budget)
