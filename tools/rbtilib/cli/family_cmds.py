# SPDX-License-Identifier: GPL-2.0
"""``rbti overlap`` and ``rbti stress``: the query and the stress run of
the rbtree family's trees (kmod/DEBUGFS.md, the ``overlap`` and ``stress``
files)."""

from ..driver import TreeInfo
from ..dump import parse_int
from .common import (EXIT_FAIL, EXIT_OK, UsageError, add_json, print_json,
                     tree_infos, typed)

STRESS_MAX = 1000000000
"""The most lookups one write of a ``stress`` file takes."""


def _one(driver, name: str, flags: set, what: str) -> TreeInfo:
    """The live tree *name*; UsageError unless it has one of *flags*."""
    info = tree_infos(driver, [name])[0]
    if not flags & info.flags:
        raise UsageError(f"{name} has no {what} file (a tree flagged "
                         f"{' or '.join(sorted(flags))} has one)")
    return info


def cmd_overlap(args, driver) -> int:
    """Print the stored intervals that overlap [START, LAST]."""
    if args.start > args.last:
        raise UsageError(f"START {args.start} is after LAST {args.last}")
    info = _one(driver, args.tree, {"interval"}, "overlap")
    found = driver.overlap(info.name, args.start, args.last)
    if args.json:
        print_json("overlap", {"ok": True, "tree": info.name,
                               "start": args.start, "last": args.last,
                               "intervals": [{"id": i, "start": s,
                                              "last": last}
                                             for i, s, last in found]})
        return EXIT_OK
    for nid, start, last in found:
        print(f"#{nid} [{start}, {last}]")
    print(f"{len(found)} interval{'s' if len(found) != 1 else ''} overlap "
          f"[{args.start}, {args.last}]")
    return EXIT_OK


def cmd_stress(args, driver) -> int:
    """Run the lockless-lookup stress; exit 1 unless it says ok 1."""
    info = _one(driver, args.tree, {"latch", "lockless"}, "stress")
    got = driver.stress(info.name, args.lookups)
    ok = got.get("ok") == 1
    if args.json:
        print_json("stress", {"ok": ok, "tree": info.name, "result": got})
    else:
        print(f"{info.name}: " + ", ".join(f"{k} {v}" for k, v in
                                           got.items()))
    return EXIT_OK if ok else EXIT_FAIL


def _s64(text: str) -> int:
    return parse_int(text)


def _lookups(text: str) -> int:
    return parse_int(text, 1, STRESS_MAX)


def add_overlap(sub) -> None:
    p = sub.add_parser(
        "overlap", help="stored intervals overlapping [START, LAST]",
        description="Ask an interval tree (flag 'interval') for every "
        "stored interval [START_n, LAST_n] that overlaps the closed "
        "interval [START, LAST], in the kernel's iteration order "
        "(iter_first/iter_next: by START, equal STARTs as inserted).",
        epilog="""examples:
  rbti overlap interval 10 20
  rbti overlap --json interval 0 0
""")
    p.add_argument("tree", metavar="TREE")
    p.add_argument("start", metavar="START", type=typed(_s64, "START"))
    p.add_argument("last", metavar="LAST", type=typed(_s64, "LAST"))
    add_json(p, "the intervals")
    p.set_defaults(func=cmd_overlap)


def add_stress(sub) -> None:
    p = sub.add_parser(
        "stress", help="lockless lookups under concurrent writers",
        description="Run the stress file of a tree flagged latch or "
        "lockless: LOOKUPS lockless lookups of present and absent keys by "
        "one reader per CPU while writers insert and erase other keys, on "
        "a private tree of the same API.  Prints the file's counters; exit "
        "1 unless it says ok 1.",
        epilog="""examples:
  rbti stress latch 1000000
  rbti stress --json mainline_rcu 100000
""")
    p.add_argument("tree", metavar="TREE")
    p.add_argument("lookups", metavar="LOOKUPS",
                   type=typed(_lookups, "LOOKUPS"))
    add_json(p, "the counters")
    p.set_defaults(func=cmd_stress)
