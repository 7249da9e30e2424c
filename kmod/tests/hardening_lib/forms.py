# SPDX-License-Identifier: GPL-2.0
"""How a tree takes keys (kmod/DEBUGFS.md, "Input"): plain keys, or on a
``value`` tree ``KEY VALUE`` pairs (an ``interval`` tree's [START, LAST],
erased by both).  The sections that run on every tree write through these;
each node's VALUE here is its KEY (a one-point interval on interval trees).
"""

from rbtilib.driver import TreeInfo

PLAIN_ONLY = frozenset({"value", "latch"})
"""Flags of the trees a section written byte for byte for plain keys
leaves out: a value tree's insert takes KEY VALUE pairs (so ``1 2 3`` is
EINVAL there and ``1 2`` one node), and interval and latch trees have no
``near`` (EOPNOTSUPP).  Their input forms and errors are debugfs-shell's
(kmod/tests/debugfs-family.sh)."""


def plain(infos: list[TreeInfo]) -> list[TreeInfo]:
    """The trees whose writes are single keys and whose queries are the
    contract trees' (mainline_cached and mainline_rcu among them)."""
    return [i for i in infos if not i.flags & PLAIN_ONLY]


def keys_text(info: TreeInfo, keys: list[int]) -> bytes:
    """An ``insert`` write of *keys* on *info*'s tree."""
    if "value" in info.flags:
        return " ".join(f"{k} {k}" for k in keys).encode()
    return " ".join(map(str, keys)).encode()


def values(info: TreeInfo, keys: list[int]) -> list[int] | None:
    """The VALUEs Debugfs.insert() takes with *keys*, or None."""
    return list(keys) if "value" in info.flags else None


def op(info: TreeInfo, what: str, key: int) -> str:
    """One ``ops`` line: ``i``, ``f`` or ``e`` of *key*."""
    if what == "i" and "value" in info.flags or \
            what == "e" and "interval" in info.flags:
        return f"{what} {key} {key}"
    return f"{what} {key}"


def tree_files(info: TreeInfo) -> set[str]:
    """The files of *info*'s debugfs directory (DEBUGFS.md's table)."""
    out = {"insert", "find", "erase", "near", "dump", "stats", "check",
           "clear", "ops", "corrupt"}
    if "interval" in info.flags:
        out.add("overlap")
    if info.flags & {"latch", "lockless"}:
        out.add("stress")
    return out
