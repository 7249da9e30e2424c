# SPDX-License-Identifier: GPL-2.0
"""``rbti show``: trees drawn in the terminal (the drawing is
:mod:`rbtilib.show`)."""

import argparse
import os
import sys

from .. import checker, jsondoc
from ..show import NOT_TTY_LINES, max_depth_for, render
from .common import (EXIT_FAIL, EXIT_OK, UsageError, add_selection,
                     color_wanted, depth_or_word, dump_reader, print_json,
                     sources, typed)


def _positive_int(text: str) -> int:
    """argparse type: a decimal number of at least 1."""
    try:
        value = int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number, not {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected seconds, not {text!r}") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"must be 0 to 3600, not {text}")
    return value


def _terminal_lines(stream) -> int | None:
    """Rows available: the tty's, or $LINES (``watch`` sets it), or None."""
    if "LINES" in os.environ:
        try:
            return int(os.environ["LINES"])
        except ValueError:
            pass
    if stream.isatty():
        try:
            return os.get_terminal_size(stream.fileno()).lines
        except (OSError, ValueError):
            return None
    return None


def _draw(args, driver, rows: int | None, color: bool,
          errors=None) -> tuple[int, str]:
    """One drawing of the selected trees: (exit status, text).  A dump
    that does not parse is a ``NAME: fail dump: ...`` line (on *errors*
    if given, else in the text) and status 1; the other trees are
    drawn."""
    status, text = EXIT_OK, []
    for label, tree, error, _ in sources(args, driver):
        if tree is None:
            status = EXIT_FAIL
            (errors.write if errors else text.append)(
                f"{label}: fail dump: {error}\n")
            continue
        depth = max_depth_for(tree, args.max_depth, rows)
        text.append(render(tree, color=color, max_depth=depth))
    return status, "".join(text)


def _violations(args, driver) -> int:
    """``--json``: the checker's violations show would mark."""
    status, trees = EXIT_OK, []
    for label, tree, error, _ in sources(args, driver):
        found = checker.check(tree) if tree is not None else []
        status = max(status, EXIT_FAIL if tree is None else EXIT_OK)
        trees.append({"tree": label, "error": error,
                      "nodes": None if tree is None else len(tree.nodes),
                      "height": None if tree is None else tree.height,
                      "violations": [jsondoc.violation(v) for v in found]})
    print_json("show", {"trees": trees})
    return status


def cmd_show(args, driver) -> int:
    """Draw live trees or saved dumps in the terminal."""
    if args.json:
        return _violations(args, driver)
    color = color_wanted(args.color, sys.stdout)
    rows = _terminal_lines(sys.stdout)
    if args.watch is None:
        status, text = _draw(args, driver, rows, color, sys.stderr)
        sys.stdout.write(text)
        return status
    return _watch(args, driver, rows, color)


def _watch(args, driver, rows: int | None, color: bool) -> int:
    """``--watch``: redraw every ``args.watch`` seconds in one process, so
    a refresh costs the reading and drawing, not Python's start (most of
    a ``watch -n1 rbti show`` in the TCG guest).  A frame that fails (the
    module unloaded, the file gone) shows the error and the next one
    tries again.  Stops after ``args.frames`` frames, or at Ctrl-C."""
    import time
    from ..driver import DebugfsError
    tty = sys.stdout.isatty()
    frames = 0
    status = EXIT_OK
    try:
        while True:
            start = time.monotonic()
            try:
                status, text = _draw(args, driver, rows and rows - 1, color)
            except (DebugfsError, OSError, UsageError) as e:
                if not frames:
                    raise           # a bad argument: exit 2 at once
                status, text = EXIT_FAIL, f"rbti show: {e}\n"
            head = (f"Every {args.watch:g}s: rbti show "
                    f"{' '.join(args.trees) or '--all'}"
                    f"  {time.strftime('%H:%M:%S')}\n")
            # Home and clear on a terminal; a blank line between frames
            # when the output is a file or a pipe.
            sys.stdout.write(("\x1b[H\x1b[2J" if tty else
                              "\n" if frames else "") + head + text)
            sys.stdout.flush()
            frames += 1
            if args.frames and frames >= args.frames:
                return status
            time.sleep(max(0.0, args.watch - (time.monotonic() - start)))
    except KeyboardInterrupt:
        return EXIT_OK
    except BrokenPipeError:
        # The reader went away (| head): stop quietly, and keep Python's
        # exit from failing on the flush of the dead pipe.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK


def add_show(sub) -> None:
    """The ``show`` subcommand."""
    p = sub.add_parser(
        "show", help="draw trees in the terminal",
        description="Draw live trees or saved dumps rotated: root on the "
        "left, keys in order from top to bottom, with colours, ids where "
        "keys repeat, aug values, the cached leftmost/rightmost and the "
        "checker's violations.  Exit 0 when drawn, 1 if a dump does not "
        "parse (use 'rbti check' for a verdict).",
        epilog="""examples:
  rbti show santos
  rbti show --max-depth all saved.dump
  rbti show --watch 1 santos
  rbti show --json santos      # the violations only
""")
    add_selection(p, files=True)
    p.add_argument("--color", choices=("auto", "always", "never"),
                   default="auto", help="red nodes in red (default: auto, "
                   "when stdout is a terminal and NO_COLOR is not set; "
                   "otherwise R/B markers)")
    p.add_argument("--max-depth", type=typed(depth_or_word, "depth"),
                   default="auto",
                   metavar="N|all|auto",
                   help="fold subtrees below depth N; auto (default) fits "
                   "the terminal's height ($LINES under watch), or "
                   f"{NOT_TTY_LINES} lines when not on a terminal")
    p.add_argument("--watch", type=_seconds_arg, metavar="SECS",
                   help="redraw every SECS seconds, like watch(1) but in "
                   "one process (a refresh does not pay Python's start); "
                   "Ctrl-C stops")
    p.add_argument("--frames", type=_positive_int, metavar="N",
                   help="with --watch, stop after N drawings")
    dump_reader(p, cmd_show, "the checker's violations (no drawing)",
                apart=(("watch", "json"),), validate=_validate)


def _validate(args, error) -> None:
    """Arguments that only make sense together (argparse's *error* exits 2)."""
    if args.frames is not None and args.watch is None:
        error("--frames needs --watch")
    if args.watch is not None and "-" in args.trees:
        error("--watch cannot redraw standard input: give a TREE or FILE")
