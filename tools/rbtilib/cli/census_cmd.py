# SPDX-License-Identifier: GPL-2.0
"""``rbti census`` (the work is :mod:`rbtilib.kernel.census`)."""

from .common import add_json, seconds, typed

COMMANDS = ("census",)


def _run(args, prog=None) -> int:
    from ..kernel import census_cmd
    return census_cmd.run(args, prog)


def add_census(sub) -> None:
    """Add the ``census`` subcommand to *sub*."""
    from .kernel_cmd import _common
    p = sub.add_parser(
        "census", help="find every red-black tree in the kernel (drgn), "
        "check each, print a line per kind (exit 1 on a violation, 3 if "
        "incomplete)",
        description="Find the red-black trees of the running kernel (drgn "
        "over /proc/kcore) or of a crash dump: global and per-CPU "
        "variables by type, tasks and their files (epoll, address "
        "spaces), slab caches, kernfs and procfs directories, vmalloc's "
        "nodes and the rbtree_inspector's trees.  Each tree is read "
        "through child pointers only, re-read until two reads agree, and "
        "checked: structure (colours, black height, parent links, cycles, "
        "shared nodes, the leftmost cache), and for the kinds whose order "
        "rbti knows, key order and augments.  Prints a line per kind: "
        "where its trees were found, how many, their nodes, the deepest, "
        "the trees with a violation, the trees that kept changing and "
        "those that could not be read.",
        epilog="""exit status:
  0  every tree found was read, and none has a violation
  1  a tree has a violation (whatever else the census found)
  2  a usage or environment error: no debug info, no /proc/kcore, a core
     dump that is not one
  3  incomplete, no violation: a tree kept changing while it was read
     (--attempts reads without two that agree), could not be read, or
     was left unread at --time-limit; an 'incomplete:' line under the
     table and the JSON document ("complete": false) give the counts

examples:
  rbti census
  rbti census --kind timerqueue_head.rb_root --kind kernfs
  rbti census --json --out out/census
  rbti census --core guest.core --vmlinux vmlinux
  rbti census --core /var/crash/202401011200/dump.202401011200
""")
    p.add_argument("--kind", action="append", metavar="NAME",
                   help="only kinds whose name contains NAME (repeatable), "
                   "e.g. cfs_rq.tasks_timeline, kernfs")
    p.add_argument("--out", metavar="DIR", help="write every non-empty tree "
                   "read as DIR/NNNNN-NAME.dump and an index page DIR/index.html")
    p.add_argument("--time-limit", type=typed(seconds, "--time-limit"),
                   metavar="SECS",
                   help="stop reading trees after SECS seconds (the "
                   "table says how many were left; exit 3)")
    p.add_argument("--verbose", action="store_true",
                   help="print the routes' notes too")
    add_json(p, "the census")
    _common(p)
    p.set_defaults(func=_run)
