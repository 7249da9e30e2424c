# SPDX-License-Identifier: GPL-2.0
"""Words the drawings share: a count with its noun (:func:`plural`), in
the titles of the Graphviz picture (:mod:`rbtiviz.render`), the direct
SVG (:mod:`rbtiviz.layout`), a latch tree's copies
(:mod:`rbtiviz.copies`) and the flipbook's summary."""
from __future__ import annotations


def plural(n: int, what: str) -> str:
    """``1 node``, ``2 nodes``."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"
