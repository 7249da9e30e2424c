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

from rbtilib.opstream import op_text

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
    dialects = {info.name: info.dialect for info in driver.trees()}
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


def from_dumps(outdir: str | Path, files: list[str], name: str | None = None,
               fmt: str = "svg") -> Path:
    """A flipbook of saved dumps, one frame each in the order given, drawn
    at once under ``outdir/NAME/`` (NAME: the first dump's tree, or
    *name*); return its ``index.html``. The caption of a frame is its
    file's name. Raises OSError or ValueError (a bad dump, dumps of trees
    of different APIs)."""
    from rbtilib.dump import parse_dump, read_dump_file
    trees = []
    for file in files:
        try:
            trees.append(parse_dump(read_dump_file(file)))
        except ValueError as e:
            raise ValueError(f"{file}: {e}") from None
    if not trees:
        raise ValueError("no dump given")
    apis = {t.api for t in trees}
    if len(apis) > 1:
        raise ValueError(f"dumps of different APIs ({', '.join(sorted(apis))})"
                         ": one flipbook is one tree")
    with Series(outdir, name or trees[0].name, every=1, fmt=fmt) as series:
        for file, tree in zip(files, trees):
            series.add(tree, Path(file).name)
    return series.close()


USAGE = """\
usage: viz/walkthrough OUTDIR [TREE...]
       viz/walkthrough --dumps OUTDIR [--name NAME] FILE...
       viz/walkthrough --version

  OUTDIR [TREE...]     in the guest, as root, with the module loaded: build
                       a small tree and tear it down on each live tree (all
                       by default), one operation a frame, and leave the
                       frames under OUTDIR for viz/render --flipbook OUTDIR
  --dumps OUTDIR FILE...
                       on any machine: a flipbook of saved dumps (rbti dump
                       --raw, rbti kernel, rbti fuzz's frames), one frame a
                       file in the order given, drawn at once under
                       OUTDIR/NAME/ (NAME: the first dump's tree, or
                       --name); prints its index.html
  --version            the release and the dump format it reads
  -h, --help           this text

Exit status: 0 done, 1 a tree, dump or file could not be read or drawn,
2 a usage error.
"""


PROG = "viz/walkthrough"
"""The program's name in the checkout; installed, it is rbti-walkthrough."""


def usage(prog: str = PROG) -> str:
    """:data:`USAGE` with *prog*'s name (and, installed, rbti-render's)."""
    if prog == PROG:
        return USAGE
    return USAGE.replace(PROG, prog).replace("viz/render", "rbti-render")


def main(argv: list[str], prog: str = PROG) -> int:
    """``viz/walkthrough OUTDIR [TREE...]``: every tree by default;
    ``viz/walkthrough --dumps OUTDIR [--name NAME] FILE...``: saved dumps.
    *prog*: the name it is run by (rbti-walkthrough, installed)."""
    import sys

    text = usage(prog)
    if argv[:1] in (["-h"], ["--help"]):
        print(text, end="")
        return 0
    if argv == ["--version"]:
        from rbtilib import DUMP_FORMAT, RELEASE
        print(f"{prog} {RELEASE} (dump format {DUMP_FORMAT})")
        return 0
    if argv[:1] == ["--dumps"]:
        rest, name = argv[1:], None
        if "--name" in rest:
            i = rest.index("--name")
            if i + 1 >= len(rest):
                print(text, end="", file=sys.stderr)
                return 2
            name = rest[i + 1]
            rest = rest[:i] + rest[i + 2:]
        if len(rest) < 2 or any(r.startswith("-") and r != "-" for r in rest):
            print(text, end="", file=sys.stderr)
            return 2
        try:
            print(from_dumps(rest[0], rest[1:], name))
        except (OSError, ValueError) as e:
            print(f"walkthrough: {e}", file=sys.stderr)
            return 1
        return 0
    from rbtilib.driver import Debugfs, DebugfsError
    if not argv or argv[0].startswith("-"):
        print(text, end="", file=sys.stderr)
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
