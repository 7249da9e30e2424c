# SPDX-License-Identifier: GPL-2.0
"""rbtiviz: Graphviz pictures and flipbooks of rbtree-inspector trees.

:mod:`rbtiviz.render` draws one parsed dump (DOT, SVG, PNG);
:mod:`rbtiviz.layout` places big trees directly; :mod:`rbtiviz.flipbook`
writes a series of them with an offline HTML flipbook;
:mod:`rbtiviz.writers` hands the fuzzer its flipbooks and snapshots.
Needs ``rbtilib`` (tools/) importable: the one dump parser, the one shape
walk and the one invariant checker; rbtilib never imports rbtiviz.  The
package imports none of its modules itself, so using one loads only it.
"""
