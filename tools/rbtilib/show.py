# SPDX-License-Identifier: GPL-2.0
"""``rbti show``: a tree drawn in the terminal, rotated like ``tree``.

The root is on the left, depth grows to the right and the nodes appear in
order from top to bottom, so the smallest key is on the first line::

    santos (santos: unique,leftmost,rightmost,count): 5 nodes, height 3, ok
        ┌── 10 B [leftmost]
    ┌── 20 R
    │   └── 30 B
    40 B
    └── 50 B [rightmost]

Each line is one node: its key, ``R``/``B`` (or the key in red or bold on
a colour terminal), ``#ID`` where its key is not unique in the tree (and
on nodes the checker blames, whose messages name ids), the augmented
value, ``[leftmost]``/``[rightmost]`` where the tree's cached pointers
point, and ``!! CLASS: message`` for each violation the checker blames on
it.  A link that is no edge of the tree (:mod:`rbtilib.shape`: a cycle, a
shared node, or an id missing from the dump) is a ``→ #ID (WHY)`` line,
and a node the walk does not reach an ``unreachable:`` line.  Subtrees
deeper than the depth limit are one ``… N nodes, keys A..B`` line each;
the nodes on the way to a blamed node are always drawn.

The drawing is computed in one pass over the nodes (O(n)): a 1,000-node
tree takes a few milliseconds on the host.
"""

from __future__ import annotations

import argparse
import os
import sys

from . import checker
from .cli import EXIT_FAIL, EXIT_OK, is_saved_dump, read_saved_dump, tree_infos
from .dump import Tree, format_flags, parse_dump
from .record import factory, record
from .shape import UNREACHABLE, WORDS, Shape

RED, BOLD, WARN, RESET = "\x1b[31;1m", "\x1b[1m", "\x1b[33;1m", "\x1b[0m"
NOT_TTY_LINES = 2000
"""Line budget of ``--max-depth auto`` when the size of no terminal is known."""


@record
class _Shape:
    """The tree as drawn: the one shape walk (:mod:`rbtilib.shape`)."""

    depth: dict = factory(dict)     # id -> depth (root 1)
    kids: dict = factory(dict)      # id -> (left, right)
    size: dict = factory(dict)
    low: dict = factory(dict)       # smallest key below
    high: dict = factory(dict)
    order: list = factory(list)     # preorder
    unreached: list = factory(list)


# A child slot: None (NIL), ("node", id) or ("bad", id, why).

def _shape(tree: Tree) -> _Shape:
    walk = Shape(tree)
    bad = walk.bad_by_node()
    shape = _Shape(depth=walk.depths(), size=walk.sizes(), order=walk.order,
                   unreached=walk.unreached())
    nodes = tree.nodes
    for nid in reversed(shape.order):
        links, faults = walk.links[nid], bad.get(nid, (None, None))
        shape.kids[nid] = tuple(
            ("node", kid) if kid is not None else
            ("bad", faults[side].target, faults[side].why) if faults[side]
            else None for side, kid in enumerate(links))
        key = nodes[nid].key
        low, high = key, key
        for kid in links:
            if kid is not None:
                low = min(low, shape.low[kid])
                high = max(high, shape.high[kid])
        shape.low[nid], shape.high[nid] = low, high
    return shape


def _fit_depth(shape: _Shape, budget: int) -> int | None:
    """The largest depth limit whose drawing has at most *budget* lines.

    None: everything fits.
    """
    per_depth: dict = {}
    for d in shape.depth.values():
        per_depth[d] = per_depth.get(d, 0) + 1
    if len(shape.depth) <= budget:
        return None
    lines = 0
    best = 1
    for d in range(1, max(per_depth) + 1):
        lines += per_depth.get(d, 0)
        if lines + per_depth.get(d + 1, 0) > budget:
            break
        best = d
    return best


def _keep(tree: Tree, shape: _Shape, blamed) -> set:
    """Blamed nodes and every node above them: never folded away."""
    up = {}
    for nid, slots in shape.kids.items():
        for slot in slots:
            if slot and slot[0] == "node":
                up[slot[1]] = nid
    keep = set()
    for nid in blamed:
        while nid in shape.depth and nid not in keep:
            keep.add(nid)
            nid = up.get(nid)
    return keep


class _Style:
    def __init__(self, color: bool) -> None:
        self.color = color

    def key(self, node) -> str:
        if not self.color:
            return f"{node.key} {node.color}"
        return f"{RED if node.color == 'R' else BOLD}{node.key}{RESET}"

    def warn(self, text: str) -> str:
        return f"{WARN}{text}{RESET}" if self.color else text


def render(tree: Tree, color: bool = False, max_depth: int | None = None,
           violations: list | None = None) -> str:
    """Draw *tree* as text (see the module docstring).

    @max_depth: fold subtrees below this depth (root: 1), None for all.
    @violations: the checker's list (computed if None).
    """
    if violations is None:
        violations = checker.check(tree)
    style = _Style(color)
    nodes = tree.nodes
    shape = _shape(tree)
    blamed: dict = {}
    for v in violations:
        if v.node is not None:
            blamed.setdefault(v.node, []).append(v)
    keep = _keep(tree, shape, blamed) if max_depth is not None else set()
    key_count: dict = {}
    for node in nodes.values():
        key_count[node.key] = key_count.get(node.key, 0) + 1
    cached = {}
    for which in ("leftmost", "rightmost"):
        ref = getattr(tree, which)
        if which in tree.flags and ref is not None:
            cached.setdefault(ref, []).append(which)
    aug_name = tree.aug or "aug"

    def label(nid: int) -> str:
        node = nodes[nid]
        parts = [style.key(node)]
        if key_count[node.key] > 1 or nid in blamed:
            parts.append(f"#{nid}")
        if node.aug is not None:
            parts.append(f"{aug_name}={node.aug}")
        for which in cached.get(nid, ()):
            parts.append(f"[{which}]")
        for v in blamed.get(nid, ()):
            parts.append(style.warn(f"!! {v.cls}: {v.message}"))
        return " ".join(parts)

    def folded(nid: int) -> str:
        # Blamed nodes and their ancestors are never folded (keep).
        n = shape.size[nid]
        return (f"… {n} node{'s' if n != 1 else ''}, keys "
                f"{shape.low[nid]}..{shape.high[nid]}")

    title = (f"{tree.name} ({tree.api}: {format_flags(tree.flags)}): "
             f"{tree.count} node{'s' if tree.count != 1 else ''}, "
             f"height {tree.height}")
    title += ", ok" if not violations else style.warn(
        f", {len(violations)} violation{'s' if len(violations) != 1 else ''}")
    out = [title]
    if tree.root is None:
        out.append("(empty)")
    elif tree.root not in nodes:
        out.append(style.warn(f"→ #{tree.root} (root not in the dump)"))
    else:
        # Work items: ("n", id, prefix, side) expands a node; ("l", text)
        # is a finished line.  Left subtree, the node, then right subtree.
        stack: list = [("n", tree.root, "", "")]
        while stack:
            item = stack.pop()
            if item[0] == "l":
                out.append(item[1])
                continue
            _, nid, prefix, side = item
            conn = {"": "", "L": "┌── ", "R": "└── "}[side]
            # The bar from a node to its parent runs past the subtree on
            # the parent's side: the right one of a left child, and so on.
            left_prefix = prefix + {"": "", "L": "    ", "R": "│   "}[side]
            right_prefix = prefix + {"": "", "L": "│   ", "R": "    "}[side]
            if (max_depth is not None and shape.depth[nid] > max_depth
                    and nid not in keep and shape.size[nid] > 1):
                out.append(prefix + conn + folded(nid))
                continue
            todo = []
            left, right = shape.kids[nid]
            for slot, kid_prefix, kid_side in ((left, left_prefix, "L"),
                                               (right, right_prefix, "R")):
                if slot is None:
                    todo.append(None)
                elif slot[0] == "bad":
                    kconn = "┌── " if kid_side == "L" else "└── "
                    todo.append(("l", kid_prefix + kconn + style.warn(
                        f"→ #{slot[1]} ({slot[2]})")))
                else:
                    todo.append(("n", slot[1], kid_prefix, kid_side))
            if todo[1]:
                stack.append(todo[1])
            stack.append(("l", prefix + conn + label(nid)))
            if todo[0]:
                stack.append(todo[0])
    for nid in shape.unreached:
        out.append(style.warn(f"{WORDS[UNREACHABLE]}: ")
                   + label_free(nodes[nid], style))
    lost = getattr(tree, "lost", None) or ()
    for node in (lost.values() if isinstance(lost, dict) else lost):
        out.append(style.warn("lost: ") + label_free(node, style))
    for v in violations:
        if v.node is None or v.node not in shape.depth:
            out.append(style.warn(str(v)))
    return "\n".join(out) + "\n"


def label_free(node, style: _Style) -> str:
    """A node that is not in the drawing: key, colour and id."""
    aug = "" if node.aug is None else f" aug={node.aug}"
    return f"{style.key(node)} #{node.id}{aug}"


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


def _depth_arg(text: str) -> int | str:
    if text in ("all", "auto"):
        return text
    try:
        int(text, 10)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected a number, 'all' or 'auto', not {text!r}") from None
    return _positive_int(text)


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


def max_depth_for(tree: Tree, choice: int | str, rows: int | None) -> int | None:
    """Resolve ``--max-depth``: a number, ``all`` or ``auto`` (fit *rows*
    minus the title and watch's header, or NOT_TTY_LINES when no terminal
    size is known)."""
    if choice == "all":
        return None
    if choice != "auto":
        return choice
    # The title line, and watch's two header lines.
    budget = max(3, rows - 3) if rows else NOT_TTY_LINES
    return _fit_depth(_shape(tree), budget)


def _draw(args, driver, rows: int | None, color: bool) -> tuple[int, str]:
    """One drawing of ``args.tree``: (exit status, text)."""
    if is_saved_dump(args.tree):
        tree, error = read_saved_dump(args.tree)
        if tree is None:
            return EXIT_FAIL, f"{args.tree}: {error}\n"
    else:
        tree_infos(driver, [args.tree])
        tree = parse_dump(driver.dump_text(args.tree))
    depth = max_depth_for(tree, args.max_depth, rows)
    return EXIT_OK, render(tree, color=color, max_depth=depth)


def cmd_show(args, driver) -> int:
    """Draw a live tree or a saved dump in the terminal."""
    color = args.color == "always" or (args.color == "auto" and
                                       sys.stdout.isatty() and
                                       os.environ.get("TERM") != "dumb")
    rows = _terminal_lines(sys.stdout)
    if args.watch is None:
        status, text = _draw(args, driver, rows, color)
        (sys.stdout if status == EXIT_OK else sys.stderr).write(text)
        return status
    return _watch(args, driver, rows, color)


def _watch(args, driver, rows: int | None, color: bool) -> int:
    """``--watch``: redraw every ``args.watch`` seconds in one process, so
    a refresh costs the reading and drawing, not Python's start (most of
    a ``watch -n1 rbti show`` in the TCG guest).  A frame that fails (the
    module unloaded, the file gone) shows the error and the next one
    tries again.  Stops after ``args.frames`` frames, or at Ctrl-C."""
    import time
    from .cli import UsageError
    from .driver import DebugfsError
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
            head = (f"Every {args.watch:g}s: rbti show {args.tree}"
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


def _seconds_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"expected seconds, not {text!r}") from None
    if not 0 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"must be 0 to 3600, not {text}")
    return value


def add_parser(sub) -> None:
    """The ``show`` subcommand (see rbti's COMMANDS)."""
    p = sub.add_parser(
        "show", help="draw a tree in the terminal",
        description="Draw a live tree (TREE) or a saved dump (FILE, or - "
        "for stdin) rotated: root on the left, keys in order from top to "
        "bottom, with colours, ids where keys repeat, aug values, the "
        "cached leftmost/rightmost and the checker's violations.  Exit 0 "
        "when drawn (use 'rbti check' for a verdict).")
    p.add_argument("tree", metavar="TREE|FILE|-")
    p.add_argument("--color", choices=("auto", "always", "never"),
                   default="auto", help="red nodes in red (default: auto, "
                   "when stdout is a terminal; otherwise R/B markers)")
    p.add_argument("--max-depth", type=_depth_arg, default="auto",
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
    p.set_defaults(func=cmd_show, validate=_validate,
                   needs_debugfs=lambda args: not is_saved_dump(args.tree))


def _validate(args, error) -> None:
    """Arguments that only make sense together (argparse's *error* exits 2)."""
    if args.frames is not None and args.watch is None:
        error("--frames needs --watch")
    if args.watch is not None and args.tree == "-":
        error("--watch cannot redraw standard input: give a TREE or FILE")
