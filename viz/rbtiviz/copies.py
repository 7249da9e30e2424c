# SPDX-License-Identifier: GPL-2.0
"""A latch tree's two copies, each a tree of its own to draw.

A latch tree's dump holds copy 0 (its node lines) and copy 1 (the ``copy
1`` section: the same nodes, ids and keys, with copy 1's own root, links
and colours; kmod/DEBUGFS.md).  Lockless readers use either copy, so when
the two differ the drawing must show both: the Graphviz and direct SVG
pictures (:mod:`rbtiviz.render`, :mod:`rbtiviz.layout`) draw them side by
side, the viewer and the flipbook (:mod:`rbtiviz.viewer`) switch between
them.  :func:`copies` splits the tree and the checker's violations as
``rbti show`` does: those of copy 1 (their message starts ``copy 1: ``) on
copy 1, the others (``latch`` included) on copy 0.
"""
from __future__ import annotations

from rbtilib.dump import Tree
from rbtilib.record import record
from rbtilib.record import replace as record_replace

from .titles import plural

COPY1 = "copy 1: "
"""How the checker's messages about copy 1 start."""


@record(frozen=True)
class Copy:
    """One copy to draw: its number (None: not a latch tree), the tree and
    the violations found in it."""

    number: int | None
    tree: Tree
    violations: list


def copies(tree: Tree, violations: list | None = None) -> list[Copy]:
    """``[Copy(None, tree, violations)]`` for a tree with no copy 1, else
    copy 0 and copy 1 (*violations* split between them)."""
    violations = list(violations or ())
    copy = getattr(tree, "copy1", None)
    if copy is None:
        return [Copy(None, tree, violations)]
    first = record_replace(tree, copy1=None)
    second = record_replace(tree, copy1=None, root=copy.root, height=copy.height,
                            nodes=copy.nodes, lost={}, error=copy.error,
                            allocated=None, leftmost=None, rightmost=None)
    ours = [v for v in violations if not v.message.startswith(COPY1)]
    theirs = [v for v in violations if v.message.startswith(COPY1)]
    return [Copy(0, first, ours), Copy(1, second, theirs)]


def label(part: Copy, checked: bool = True) -> str | None:
    """``copy 1: 2 nodes, height 2, ok`` (*checked*: with its verdict);
    None for a tree that is no latch tree."""
    if part.number is None:
        return None
    text = (f"copy {part.number}: {plural(len(part.tree.nodes), 'node')}, "
            f"height {part.tree.height}")
    if checked:
        n = len(part.violations)
        text += ", ok" if not n else f", {plural(n, 'violation')}"
    return text
