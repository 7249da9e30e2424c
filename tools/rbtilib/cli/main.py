# SPDX-License-Identifier: GPL-2.0
"""rbti's parser and main(): the subcommands put together."""

import argparse
import sys

from .. import DUMP_FORMAT, RELEASE
from ..driver import (DEFAULT_PARAMS, DEFAULT_ROOT, Debugfs, DebugfsError,
                      ReplyError)
from ..jsondoc import SCHEMA
from . import family_cmds, fuzz_cmd, kernel_cmd, show_cmd, tree_cmds
from . import census_cmd, doctor_cmd
from .common import (EXIT_BUG, EXIT_USAGE, Formatter, UsageError,
                     environment_error)

VERSION = f"rbti {RELEASE} (dump format {DUMP_FORMAT}, JSON schema {SCHEMA})"

DESCRIPTION = """Inspect, check and fuzz the rbtree_inspector module's \
trees.

Live trees are read from debugfs (as root, with the module loaded); \
check, dump and show also take saved dumps (a FILE, or - for stdin), \
which need neither.  Every command that works on trees takes TREE... or \
--all.

exit status:
  0  ok
  1  a tree failed: a violation, a dump that does not parse, a fuzz
     failure
  2  a usage or environment error: a bad argument, not root, no debugfs,
     no module, an unknown tree, a file that cannot be read
  3  kernel, verify, census: incomplete, no violation: a tree kept
     changing while it was read, or could not be read (census: or was
     left unread at --time-limit)
  70 an internal error: a bug in rbti (its traceback is printed)
"""

EPILOG = """examples:
  rbti trees
  rbti check --all
  rbti show santos
  rbti COMMAND --help
"""

COMMANDS = [tree_cmds.add_trees, tree_cmds.add_dump, tree_cmds.add_check,
            show_cmd.add_show, fuzz_cmd.add_fuzz, fuzz_cmd.add_replay,
            family_cmds.add_overlap, family_cmds.add_stress,
            kernel_cmd.add_arguments, census_cmd.add_census,
            doctor_cmd.add_doctor]
"""One function per subcommand: it adds the subparser and sets ``func``
(``func(args, driver) -> exit status``) and optionally ``needs_debugfs``
(``args -> bool``, default True) and ``validate`` (``(args, error)``,
checks that need several arguments; *error* exits 2 with the usage)."""


class _Subparsers:
    """The subparsers as they are added, by name (argparse keeps them in
    a private attribute)."""

    def __init__(self, action) -> None:
        self.action = action
        self.parsers: dict[str, argparse.ArgumentParser] = {}

    def add_parser(self, name: str, **kwargs):
        kwargs.setdefault("formatter_class", Formatter)
        p = self.action.add_parser(name, **kwargs)
        self.parsers[name] = p
        return p


def build() -> tuple[argparse.ArgumentParser, dict]:
    """The command line: the top parser and the subparsers by name."""
    top = argparse.ArgumentParser(
        prog="rbti", description=DESCRIPTION, epilog=EPILOG,
        formatter_class=Formatter)
    top.add_argument("--version", action="version", version=VERSION)
    top.add_argument("--root", default=DEFAULT_ROOT,
                     help="debugfs directory (default %(default)s)")
    top.add_argument("--params", default=DEFAULT_PARAMS,
                     help="module parameter directory (default %(default)s)")
    sub = _Subparsers(top.add_subparsers(dest="command", required=True,
                                         metavar="COMMAND"))
    for add in COMMANDS:
        add(sub)
    for name, p in sub.parsers.items():
        p.set_defaults(kernel=name in kernel_cmd.COMMANDS +
                       census_cmd.COMMANDS)
    return top, sub.parsers


def parser() -> argparse.ArgumentParser:
    """The top parser."""
    return build()[0]


def _range_values_joined(argv: list[str]) -> list[str]:
    """``--keys -5:5`` as ``--keys=-5:5``: argparse takes a value that
    starts with '-' and is not a plain number for an option."""
    out: list[str] = []
    for arg in argv:
        if out and out[-1] == "--keys" and arg.startswith("-") and \
                ":" in arg:
            out[-1] = f"--keys={arg}"
        else:
            out.append(arg)
    return out


def main(argv: list[str] | None = None, driver=None,
         fuzz_writers=None) -> int:
    """Run the command line; return the exit status.

    *driver* replaces the debugfs driver (tests pass a fake).
    *fuzz_writers* ``() -> rbtilib.fuzz.Writers | None`` gives the fuzzer
    its flipbook and snapshot writers (tools/rbti hands rbtiviz's: rbtilib
    never imports rbtiviz).
    """
    top, subs = build()
    args = top.parse_args(_range_values_joined(
        sys.argv[1:] if argv is None else argv))
    args.fuzz_writers = fuzz_writers
    validate = getattr(args, "validate", None)
    if validate is not None:
        validate(args, subs[args.command].error)
    if driver is None and not args.kernel:
        driver = Debugfs(args.root, args.params)
    needs = getattr(args, "needs_debugfs", None)
    try:
        if args.kernel:         # drgn, no debugfs driver
            return args.func(args)
        if (needs is None or needs(args)) and not driver.available():
            raise UsageError(environment_error(args.root, args.params))
        return args.func(args, driver)
    except (UsageError, DebugfsError) as e:
        print(f"rbti: {e}", file=sys.stderr)
        return EXIT_USAGE
    except ReplyError as e:
        print(f"rbti: the module's {e} (is it of this rbti's version?)",
              file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:
        return EXIT_USAGE
    except Exception:           # pylint: disable=broad-except
        return internal_error(args.command)


def internal_error(command: str) -> int:
    """A bug: say so and print the traceback, with a status of its own
    (Python's 1 would read as a failed tree)."""
    import traceback
    traceback.print_exc()
    print(f"rbti {command}: internal error (a bug in rbti, not in the "
          "tree): please report it with the traceback above",
          file=sys.stderr)
    return EXIT_BUG
