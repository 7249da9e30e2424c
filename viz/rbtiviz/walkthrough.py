# SPDX-License-Identifier: GPL-2.0
"""A small tree built and torn down one operation a frame: the demo's
flipbooks (``make run``).

:func:`walk` inserts :data:`INSERTS` into each tree, one write of the
``ops`` file at a time, then erases :data:`ERASES`, and adds the dump after
every operation to a deferred :class:`rbtiviz.flipbook.Series` (one frame
per operation, the empty tree first).  ``viz/render --flipbook DIR`` then
draws the frames and names, in each caption, the rotations and recolours
that the operation made (:mod:`rbtiviz.diff`).

Each op is written in its tree's dialect, as the fuzzer writes it
(:func:`rbtilib.opstream.op_text`): a ``value`` tree's insert carries a
VALUE (an ``interval`` tree's its LAST), and an ``interval`` tree erases
``START LAST``. The keys are chosen to show every case: rotations left
and right, single and double, on the way up and on the way down, and a
key inserted twice
(``EEXIST`` on a unique tree, a second node on a ``dup`` tree, a new node
in the old one's place on a ``replace`` tree).
"""
from __future__ import annotations

from pathlib import Path

from rbtilib.opstream import dialect_of, op_text

from .flipbook import Series

INSERTS = (10, 20, 30, 15, 25, 5, 1, 40, 35, 28, 27, 12, 25)
ERASES = (20, 5, 30, 10, 1, 25, 40, 15, 35, 12, 28, 27, 25)


def walk(driver, names: list[str], outdir: str | Path,
         inserts=INSERTS, erases=ERASES) -> list[Path]:
    """Run the walk-through on each tree of *names* (cleared first) through
    *driver* (:class:`rbtilib.driver.Debugfs` or the test fake); return the
    paths of the series' ``frames.json``."""
    return list(walk_each(driver, names, outdir, inserts, erases))


def walk_each(driver, names: list[str], outdir: str | Path,
              inserts=INSERTS, erases=ERASES):
    """:func:`walk`, yielding each tree's ``frames.json`` when it is done."""
    dialects = {info.name: dialect_of(info) for info in driver.trees()}
    for name in names:
        driver.clear(name)
        with Series(outdir, name, every=1, render=False) as series:
            series.add(driver.dump(name), "clear")
            for op, key in [("i", k) for k in inserts] + [("e", k) for k in erases]:
                line = op_text(op, key, dialects[name]).strip()
                result = driver.ops(name, line + "\n").strip()
                series.add(driver.dump(name), f"{line} -> {result}")
        path = series.close()
        driver.clear(name)
        yield path


def main(argv: list[str]) -> int:
    """``viz/walkthrough OUTDIR [TREE...]``: every tree by default."""
    import sys

    from rbtilib.driver import Debugfs, DebugfsError
    if not argv or argv[0].startswith("-"):
        print("usage: viz/walkthrough OUTDIR [TREE...]")
        return 2
    driver = Debugfs()
    try:
        names = argv[1:] or [info.name for info in driver.trees()]
        for path in walk_each(driver, names, argv[0]):
            print(path.parent, flush=True)
    except (DebugfsError, OSError) as e:
        print(f"walkthrough: {e}", file=sys.stderr)
        return 1
    return 0
