# SPDX-License-Identifier: GPL-2.0
"""``rbti census``: open the kernel, run the census, print it."""

import sys

from . import KernelError
from .census import EXIT_USAGE, blame_lines, run_census
from .census_out import document, write_out
from .debuginfo import DrgnMemory, open_program


_SAID: set = set()


def say_checker(c) -> None:
    """Say on stderr, once a process, that the census checked in Python
    (no C core: why)."""
    if c.checker != "python" or c.core in _SAID:
        return
    _SAID.add(c.core)
    print(f"rbti census: checking in Python: the C core is not available "
          f"({c.core})", file=sys.stderr)


def print_census(c, args) -> None:
    from .census import table
    if getattr(args, "json", False):
        print(document(c))
        return
    sys.stdout.write(table(c))
    for line in blame_lines(c):
        print(line)
    if getattr(args, "verbose", False):
        for note in c.notes:
            print(f"# {note}")


def run(args, prog=None) -> int:
    """Run ``census``; return the exit status: 1 if a tree has a
    violation, 2 on an error (no debug info, no /proc/kcore), 3 if the
    census is incomplete (:meth:`Census.status`)."""
    try:
        if prog is None:
            prog = open_program(args)
        c = run_census(prog, DrgnMemory(prog), args,
                       progress=sys.stderr.isatty() and
                       not getattr(args, "json", False))
    except KernelError as e:
        print(f"rbti census: {e}", file=sys.stderr)
        return EXIT_USAGE
    say_checker(c)
    if getattr(args, "out", None):
        try:
            write_out(c, args.out)
        except OSError as e:
            print(f"rbti census: {args.out}: {e}", file=sys.stderr)
            return EXIT_USAGE
    print_census(c, args)
    return c.status()
