# SPDX-License-Identifier: GPL-2.0
"""rbtiviz: Graphviz pictures and flipbooks of rbtree-inspector trees.

:mod:`rbtiviz.render` draws one parsed dump (DOT, SVG, PNG);
:mod:`rbtiviz.flipbook` writes a series of them with an offline HTML
flipbook.  Needs ``rbtilib`` (tools/) importable: the one dump parser and
the one invariant checker.
"""
from .flipbook import Series, render_series
from .render import to_dot, write_snapshot

__all__ = ["Series", "render_series", "to_dot", "write_snapshot"]
