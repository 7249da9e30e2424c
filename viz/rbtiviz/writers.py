# SPDX-License-Identifier: GPL-2.0
"""What the fuzzer draws with: rbtiviz's flipbooks and snapshots as the
:class:`rbtilib.fuzz.Writers` that ``rbti fuzz`` hands
:class:`rbtilib.fuzz.Fuzzer` (rbtiviz depends on rbtilib, never the other
way round).  The drawing modules are imported when first used, so a run
that draws nothing does not load them."""
from __future__ import annotations

from rbtilib.dump import Tree
from rbtilib.fuzz import Writers


def snapshot(tree: Tree, path: str, highlight=()) -> None:
    """An SVG of a failure's *tree* at *path*."""
    from .render import write_snapshot
    write_snapshot(tree, path, highlight=highlight, fmt="svg")


def flipbook(out: str, name: str, every: int):
    """A deferred flipbook of tree *name* under *out* (dumps now, pictures
    when ``viz/render --flipbook`` draws it)."""
    from .flipbook import Series
    return Series(out, name, every=every, render=False)


def fuzz_writers() -> Writers:
    """Both writers, for :class:`rbtilib.fuzz.Fuzzer`."""
    return Writers(snapshot=snapshot, flipbook=flipbook)
