# SPDX-License-Identifier: GPL-2.0
"""What the rbti subcommands share: exit codes, errors, tree selection,
output (JSON, colour) and the help formatter.

Every subcommand that works on trees chooses them the same way: ``TREE...``
(names from the ``trees`` file; where saved dumps are accepted, also
``FILE`` or ``-`` for stdin) or ``--all``.  An argument is a saved dump if
it is ``-``, contains a ``/`` or a ``.``, or names an existing file.
:func:`environment_error` says why debugfs cannot be read, telling apart
"not root", "debugfs not mounted" and "module not loaded".
"""

import argparse
import os
import re
import sys

from .. import jsondoc
from ..dump import DumpError, Tree, parse_dump, read_dump_file

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_CHANGED, EXIT_BUG = 0, 1, 2, 3, 70
"""0 ok; 1 a tree failed (a violation, a dump that does not parse, a fuzz
failure); 2 a usage or environment error; 3 (``kernel``, ``verify``,
``census``) incomplete: a tree kept changing while it was read, or could
not be read (a census also: was left unread at its time limit);
70 (EX_SOFTWARE) a bug in rbti."""

class UsageError(Exception):
    """A bad argument or an unusable environment: exit status 2."""


class Formatter(argparse.HelpFormatter):
    """argparse's formatter: paragraphs wrapped to the terminal, indented
    lines (examples) kept as they are, sized without importing shutil.

    argparse builds a formatter for every add_argument() and the default
    one imports shutil (and so bz2 and lzma) for the terminal width: a
    cost every rbti command pays in the TCG guest, for nothing.
    """

    def __init__(self, prog, **kwargs) -> None:
        if kwargs.get("width") is None:
            try:
                width = int(os.environ["COLUMNS"])
            except (KeyError, ValueError):
                try:
                    width = os.get_terminal_size(
                        sys.__stdout__.fileno()).columns
                except (AttributeError, OSError, ValueError):
                    width = 80
            kwargs["width"] = max(width - 2, 11)
        super().__init__(prog, **kwargs)

    def _fill_text(self, text, width, indent):
        out = []
        for para in text.strip("\n").split("\n\n"):
            lines = para.splitlines()
            if not any(line[:1].isspace() for line in lines):
                out.append(super()._fill_text(para, width, indent))
            elif len(lines) > 1 and _ITEM.match(lines[1]) and all(
                    _ITEM.match(line) or line.startswith("     ")
                    for line in lines[2:]):
                out.append(_fill_items(lines, width, indent))
            else:               # examples: as they are
                out.append("\n".join(indent + line for line in lines))
        return "\n\n".join(out)


_ITEM = re.compile(r"(  [0-9]+ +)\S")
"""A line of a list of exit statuses: ``  N  text``."""


def _fill_items(lines: list, width: int, indent: str) -> str:
    """A heading and ``  N  text`` items (with continuation lines),
    each item wrapped under its own text."""
    import textwrap
    items: list = []
    for line in lines[1:]:
        if _ITEM.match(line):
            items.append([line])
        else:
            items[-1].append(line.strip())
    out = [indent + lines[0]]
    for item in items:
        head = _ITEM.match(item[0]).group(1)
        out.append(textwrap.fill(
            " ".join([item[0][len(head):]] + item[1:]), width,
            initial_indent=indent + head,
            subsequent_indent=indent + " " * len(head)))
    return "\n".join(out)


def typed(convert, what: str):
    """An argparse type from *convert*: its ValueError or OSError becomes
    a usage error naming *what* and the text."""
    def parse(text: str):
        try:
            return convert(text)
        except (ValueError, OSError) as e:
            message = str(e)
            if text not in message:
                message = f"bad {what} {text!r}: {message}"
            raise argparse.ArgumentTypeError(message) from None
    parse.__name__ = what
    return parse


def at_least(low: int):
    """A converter of decimal numbers of at least *low*."""
    def parse(text: str) -> int:
        value = int(text, 10)
        if value < low:
            raise ValueError(f"must be at least {low}")
        return value
    return parse


def count_or_all(text: str) -> int | None:
    """A converter of a count of at least 1, or ``all`` (None: no
    limit): ``--max-violations`` (alias ``--max``) of check and
    viz/render."""
    return None if text == "all" else at_least(1)(text)


def depth_or_word(text: str) -> int | str:
    """A converter of ``--max-depth`` (rbti show, viz/render): a depth of
    at least 1, ``all`` or ``auto``."""
    if text in ("all", "auto"):
        return text
    try:
        value = int(text, 10)
    except ValueError:
        raise ValueError("expected a number, 'all' or 'auto'") from None
    if value < 1:
        raise ValueError("must be at least 1")
    return value


def seconds(text: str) -> float:
    """A converter of a time in seconds, more than 0 and finite."""
    import math
    value = float(text)
    if not math.isfinite(value) or value <= 0:
        raise ValueError("must be a number of seconds above 0")
    return value


def add_selection(p, files: bool = False, what: str = "trees") -> None:
    """The tree selection every subcommand shares: ``TREE...`` (with
    *files*, ``TREE|FILE|-``) or ``--all``."""
    p.add_argument("trees", nargs="*",
                   metavar="TREE|FILE|-" if files else "TREE",
                   help="trees by name" + (", saved dumps (FILE), or - for "
                                           "stdin" if files else ""))
    p.add_argument("--all", action="store_true", help=f"every one of the {what}")


def add_json(p, what: str = "the result") -> None:
    """``--json``: *what* as one JSON document on stdout (docs/json.md)."""
    p.add_argument("--json", action="store_true",
                   help=f"print {what} as one JSON document (docs/json.md)")


def add_hex(p) -> None:
    """``--hex``: keys and aug values in hexadecimal, for any tree."""
    p.add_argument("--hex", action="store_true",
                   help="print keys and aug values in hexadecimal (trees "
                   "whose dump has a 'hex' line, such as kernel address "
                   "trees, are printed so anyway)")


def with_hex(tree: Tree, args) -> Tree:
    """*tree*, its keys and augs marked hex if ``--hex`` was given."""
    if getattr(args, "hex", False) and tree is not None:
        tree.hex = frozenset({"key"} | ({"aug"} if tree.aug else set()))
    return tree


def dump_reader(p, func, json_what: str, hex: bool = True,
                apart: tuple = (), validate=None) -> None:
    """Finish the parser *p* of a command that reads live trees and saved
    dumps: ``--hex`` (if *hex*), ``--json``, and its defaults; the
    selection is checked, with *apart* (see :func:`check_selection`) and
    then *validate* ``(args, error)``."""
    if hex:
        add_hex(p)
    add_json(p, json_what)

    def check(args, error) -> None:
        check_selection(args, error, apart)
        if validate is not None:
            validate(args, error)
    p.set_defaults(func=func, needs_debugfs=needs_debugfs, validate=check)


def check_selection(args, error, apart: tuple = ()) -> None:
    """Exactly one of ``TREE...`` and ``--all`` (FILEs may join --all);
    no two options of a pair in *apart* (dests) together."""
    live = [t for t in args.trees if not is_saved_dump(t)]
    if not args.all and not args.trees:
        error("give TREE... or --all")
    if args.all and live:
        error(f"--all takes no tree names (got {', '.join(live)})")
    for a, b in apart:
        if getattr(args, a) not in (None, False) and \
                getattr(args, b) not in (None, False):
            error(f"--{a.replace('_', '-')} and --{b.replace('_', '-')} "
                  "do not go together")


def needs_debugfs(args) -> bool:
    """True if the selection names a live tree."""
    return args.all or any(not is_saved_dump(t) for t in args.trees)


def color_wanted(choice: str, stream) -> bool:
    """``--color`` *choice* resolved: ``auto`` is colour on a terminal
    unless NO_COLOR is set (https://no-color.org) or TERM is dumb."""
    if choice != "auto":
        return choice == "always"
    return (stream.isatty() and not os.environ.get("NO_COLOR")
            and os.environ.get("TERM") != "dumb")


def print_json(command: str, body: dict) -> None:
    """Print *body* as the ``--json`` document of *command*."""
    print(jsondoc.document(command, body))


def tree_infos(driver, names: list[str] | None):
    """TreeInfo for *names* (all trees if None); UsageError if unknown."""
    infos = driver.trees()
    if not names:
        return infos
    by_name = {i.name: i for i in infos}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise UsageError(f"unknown tree {', '.join(unknown)} (have: "
                         f"{', '.join(by_name)})")
    return [by_name[n] for n in names]


def is_saved_dump(arg: str) -> bool:
    """True if *arg* names a saved dump rather than a live tree: ``-``, a
    path, an existing file, or a name with a dot (the module's trees are
    named like C identifiers), so that a mistyped ``x.dump`` is reported as
    a missing file, not as a tree debugfs lacks."""
    return arg == "-" or "/" in arg or "." in arg or os.path.isfile(arg)


def error_text(err: Exception) -> str:
    """*err* as rbti says it: ``PATH: strerror`` for an OSError, not
    Python's ``[Errno 2] ...``."""
    if isinstance(err, OSError) and err.strerror:
        return f"{err.filename}: {err.strerror}" if err.filename \
            else err.strerror
    return str(err)


def read_saved_dump(arg: str) -> tuple[Tree | None, str | None]:
    """Parse the dump in file *arg* (``-``: stdin).

    Returns ``(tree, None)``, or ``(None, message)`` for a malformed dump;
    raises UsageError if the file cannot be read.
    """
    try:
        text = read_dump_file(arg)
    except OSError as e:
        raise UsageError(f"{arg}: {e.strerror or e}") from None
    try:
        return parse_dump(text), None
    except DumpError as e:
        return None, str(e)


def sources(args, driver):
    """The selected trees in argument order (``--all``: every live tree
    after the files): ``(label, tree, error, info)`` each, *tree* None and
    *error* the parser's message for a dump that does not parse (one bad
    tree does not stop the others).  Unknown tree names are a UsageError
    before anything is read."""
    live = [t for t in args.trees if not is_saved_dump(t)]
    infos = {i.name: i for i in (tree_infos(driver, live or None)
                                 if args.all or live else [])}
    names = list(args.trees) + ([] if not args.all else
                                [n for n in infos if n not in args.trees])
    for arg in names:
        if is_saved_dump(arg):
            tree, error = read_saved_dump(arg)
            yield (tree.name if tree else arg), with_hex(tree, args), \
                error, None
            continue
        try:
            tree, error = parse_dump(driver.dump_text(arg)), None
        except DumpError as e:
            tree, error = None, str(e)
        yield arg, with_hex(tree, args), error, infos[arg]


def _debugfs_mounted(path: str, mounts: str) -> bool:
    """True if a debugfs is mounted at *path* according to /proc/mounts."""
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2] == "debugfs" and \
                os.path.normpath(fields[1]) == os.path.normpath(path):
            return True
    return False


def environment_error(root: str, params: str, euid: int | None = None,
                      mounts: str | None = None) -> str:
    """Why ``ROOT/trees`` cannot be read: the first cause that applies.

    *euid* and *mounts* (the text of /proc/mounts) default to this
    process's; tests pass their own.
    """
    euid = os.geteuid() if euid is None else euid
    if mounts is None:
        try:
            with open("/proc/mounts", encoding="utf-8") as f:
                mounts = f.read()
        except OSError:
            mounts = ""
    trees = os.path.join(root, "trees")
    try:
        os.stat(trees)
    except PermissionError:
        return (f"not root: {trees} is readable by root only (debugfs); "
                "run rbti as root")
    except OSError:
        pass
    else:
        return f"{trees}: not a readable file"
    mount_point = os.path.dirname(os.path.normpath(root))
    if not _debugfs_mounted(mount_point, mounts):
        if euid != 0 and not os.access(mount_point, os.R_OK | os.X_OK):
            return (f"not root: {mount_point} is readable by root only; "
                    "run rbti as root")
        return (f"debugfs not mounted at {mount_point}: mount -t debugfs "
                f"none {mount_point}")
    if not os.path.isdir(os.path.dirname(os.path.normpath(params))):
        return ("module not loaded: no "
                f"{os.path.dirname(os.path.normpath(params))}; "
                "insmod rbtree_inspector.ko")
    return (f"{trees} not found, though rbtree_inspector is loaded and "
            f"debugfs is mounted at {mount_point}")
