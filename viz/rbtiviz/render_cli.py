# SPDX-License-Identifier: GPL-2.0
"""Draw an rbtree-inspector dump: Graphviz, a direct SVG layout, or an
interactive HTML viewer.

    viz/render [DUMP|-] [-o FILE.svg|.png|.dot|.html] [--highlight ID,ID]
               [--max-depth N|all|auto] [--collapse N] [--violation]
               [--max-violations N|all] [--title TEXT]
               [--layout auto|dot|direct]
    viz/render --flipbook DIR
    viz/render --version

Reads DUMP (a saved ``dump`` file, or stdin for ``-``, or with no DUMP
when stdin is not a terminal) and writes FILE (format from its suffix),
or DOT text to stdout without ``-o``.
``.html`` is a single offline page to pan, zoom, search and fold the tree
in (any size; 100,000 nodes stay smooth).  SVG of trees above 300 nodes is
laid out directly (x = in-order rank, y = depth) unless ``--layout dot``.
``--violation`` outlines every node the checker blames, prints the
violations on stderr as ``rbti check`` does (``TREE: fail ...``, the
first ten, then ``TREE: … and N more violations``; ``--max-violations
N|all``, alias ``--max``) and makes the exit status 1 if there is one.

``--flipbook DIR`` draws the deferred flipbooks that ``rbti fuzz
--snapshots-every K --out DIR`` left under DIR (frame dumps, to be drawn
where Graphviz is fast) and prints the path of each tree's index.html.

Exit status (as rbti's): 0 drawn; 1 the dump does not parse, or (with
--violation) a violation was drawn, or (--flipbook) a frame's dump or a
frames.json is not one (a frame file that is a path, a link out of DIR);
2 a usage or environment error (bad argument, a file that cannot be read
or written, no Graphviz, dot failed, no such DIR, no flipbook under DIR,
no DUMP while stdin is a terminal); 70 an internal error (a bug, with its
traceback).

viz/render in the checkout and the installed rbti-render call
:func:`main` with their own name (:func:`parser` is the command line the
man page and the bash completion are made from).
"""
import argparse
import sys

from rbtilib import DUMP_FORMAT, RELEASE
from rbtilib.checker import SHOWN, notes
from rbtilib.cli.common import (EXIT_BUG, EXIT_FAIL, EXIT_OK, EXIT_USAGE,
                                Formatter, UsageError, at_least, count_or_all,
                                depth_or_word, error_text, read_saved_dump, typed,
                                with_hex)

from .flipbook import render_series
from .render import DIRECT_OVER, LAYOUTS, to_dot, violations_of, write_snapshot

DESCRIPTION = __doc__.split("\n\n")[0]
"""The parser's description: the first paragraph of this docstring."""


def _ids(text: str) -> list[int]:
    try:
        return [int(part, 10) for part in text.split(",") if part]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of node ids: {text!r}")


PROG = "viz/render"
"""The program's name in the checkout; installed, it is rbti-render."""
INSTALLED = "rbti-render"


def version(prog: str = PROG) -> str:
    return f"{prog} {RELEASE} (dump format {DUMP_FORMAT})"


def epilog(prog: str = PROG) -> str:
    rbti = "tools/rbti" if prog == PROG else "rbti"
    return f"""examples:
  {prog} saved.dump -o tree.svg
  {rbti} dump --raw santos | {prog} - -o santos.html
  {prog} --violation --max-depth 6 bad.dump -o bad.png
  {prog} --flipbook out/fuzz
"""


def fail(message: str, status: int, prog: str = PROG) -> int:
    """Say *message* the way rbti does (``PROG: message`` on stderr)."""
    print(f"{prog}: {message}", file=sys.stderr)
    return status


def flipbook(outdir: str, prog: str = PROG) -> int:
    """Draw the deferred flipbooks under *outdir*; return the exit status."""
    try:
        pages = render_series(outdir)
    except (OSError, RuntimeError) as err:
        return fail(error_text(err) if getattr(err, "filename", None)
                    else f"{outdir}: {err}", EXIT_USAGE, prog)
    except (ValueError, KeyError) as err:     # a frame that does not parse
        return fail(f"{outdir}: {err}", EXIT_FAIL, prog)
    if not pages:
        return fail(f"{outdir}: no flipbook left to draw", EXIT_USAGE, prog)
    for page in pages:
        print(page)
    return EXIT_OK


def parser(prog: str = PROG) -> argparse.ArgumentParser:
    """The command line of *prog* (viz/render, or the installed rbti-render)."""
    ap = argparse.ArgumentParser(prog=prog, description=DESCRIPTION,
                                 epilog=epilog(prog), formatter_class=Formatter)
    ap.add_argument("--version", action="version", version=version(prog))
    ap.add_argument("dump", nargs="?",
                    help="dump file, or - for stdin (the default when stdin is not a "
                    "terminal)")
    ap.add_argument("-o", "--output",
                    help="output file: .svg, .png, .dot or .html (default: DOT on stdout)")
    ap.add_argument("--layout", choices=LAYOUTS, default="auto",
                    help="SVG layout: dot (Graphviz), direct (in-order rank x depth), "
                    f"or auto (direct above {DIRECT_OVER} nodes; the default)")
    ap.add_argument("--highlight", type=_ids, default=[], metavar="ID,ID",
                    help="node ids to outline in blue")
    ap.add_argument("--max-depth", type=typed(depth_or_word, "depth"), default="auto",
                    metavar="N|all|auto",
                    help="draw N levels at most; all, or auto (the default: a picture "
                    "is not cut to a screen), draws every level")
    ap.add_argument("--collapse", type=typed(at_least(1), "--collapse"), metavar="N",
                    help="draw subtrees of more than N nodes as one box")
    ap.add_argument("--violation", action="store_true",
                    help="outline the nodes the checker blames (amber) and list violations")
    ap.add_argument("--max-violations", "--max", dest="max_violations",
                    type=typed(count_or_all, "count"), default=SHOWN, metavar="N|all",
                    help=f"with --violation, violations to print (default {SHOWN}, as rbti "
                    "check; 'all' for every one); a last line says how many more there are")
    ap.add_argument("--title", help="replace the first title line")
    ap.add_argument("--hex", action="store_true",
                    help="keys and aug values in hexadecimal (a dump with a 'hex' "
                    "line, such as a kernel address tree's, is drawn so anyway)")
    ap.add_argument("--flipbook", metavar="DIR",
                    help="draw the deferred flipbooks under DIR, print their index pages")
    return ap


def main(argv: list[str], prog: str = PROG) -> int:
    """Parse the command line, draw, return the exit status."""
    ap = parser(prog)
    args = ap.parse_args(argv)
    if args.flipbook is not None:
        if args.dump is not None or args.output or args.highlight or args.violation or \
                args.max_depth != "auto" or args.collapse or args.title or \
                args.layout != "auto" or args.hex or args.max_violations != SHOWN:
            ap.error("--flipbook takes no dump and no drawing options")
        return flipbook(args.flipbook, prog)
    if args.dump is None:
        if sys.stdin.isatty():
            ap.error("give a DUMP (a file, or - to read the dump from stdin)")
        args.dump = "-"

    try:
        return draw(ap, args)
    except Exception:           # pylint: disable=broad-except
        import traceback
        traceback.print_exc()
        return fail(f"internal error (a bug in {prog}, not in the tree): "
                    "please report it with the traceback above", EXIT_BUG, prog)


def draw(ap, args) -> int:
    """Draw one dump as *args* say; return the exit status."""
    prog = ap.prog
    try:
        tree, error = read_saved_dump(args.dump)
    except UsageError as err:
        return fail(str(err), EXIT_USAGE, prog)
    if tree is None:
        return fail(f"{args.dump}: fail dump: {error}", EXIT_FAIL, prog)
    with_hex(tree, args)
    found = violations_of(tree) if args.violation else []
    if args.violation:
        for note in notes(tree):
            print(f"{tree.name}: note: {note}", file=sys.stderr)
    shown = found[:args.max_violations]
    for violation in shown:
        print(f"{tree.name}: {violation}", file=sys.stderr)
    if len(found) > len(shown):
        more = len(found) - len(shown)
        print(f"{tree.name}: … and {more} more violation{'s' if more != 1 else ''} "
              "(--max-violations all prints them)", file=sys.stderr)
    depth = args.max_depth if isinstance(args.max_depth, int) else None
    opts = dict(highlight=args.highlight, max_depth=depth,
                collapse_over=args.collapse, title=args.title,
                highlight_violation=args.violation)
    try:
        if args.output is None:
            if args.layout == "direct":
                ap.error("--layout direct needs -o FILE.svg")
            sys.stdout.write(to_dot(tree, **opts))
        else:
            write_snapshot(tree, args.output, layout=args.layout, **opts)
    except (OSError, ValueError, RuntimeError) as err:
        # A file that cannot be written, an unknown format, no dot, dot
        # failing: nothing wrong with the tree.
        return fail(error_text(err), EXIT_USAGE, prog)
    return EXIT_FAIL if found else EXIT_OK
