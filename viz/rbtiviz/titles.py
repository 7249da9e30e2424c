# SPDX-License-Identifier: GPL-2.0
"""Words the drawings share: a count with its noun (:func:`plural`) and
the line that stands for a latch tree's undrawn copy 1
(:func:`copy1_note`), under the Graphviz picture's title
(:mod:`rbtiviz.render`) and the viewer's (:mod:`rbtiviz.viewer`)."""
from __future__ import annotations

from rbtilib.dump import Tree


def plural(n: int, what: str) -> str:
    """``1 node``, ``2 nodes``."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def copy1_note(tree: Tree) -> str | None:
    """The line that stands for a latch tree's copy 1, None on others."""
    copy = getattr(tree, "copy1", None)
    if copy is None:
        return None
    return (f"copy 1: {plural(len(copy.nodes), 'node')}, height "
            f"{copy.height} (checked, not drawn: this is copy 0)")
