# SPDX-License-Identifier: GPL-2.0
"""How a tree takes keys (kmod/DEBUGFS.md, "Input"): plain keys, or on a
``value`` tree ``KEY VALUE`` pairs (an ``interval`` tree's [START, LAST],
erased by both).  The sections that run on every tree write through these;
each node's VALUE here is its KEY (a one-point interval on interval trees).
"""

from rbtilib.driver import TreeInfo


def plain(infos: list[TreeInfo]) -> list[TreeInfo]:
    """The trees whose writes are single keys and whose queries are the
    contract trees' (mainline_cached and mainline_rcu among them).

    The trees a section written byte for byte for plain keys leaves out:
    a value tree's insert takes KEY VALUE pairs (so ``1 2 3`` is EINVAL
    there and ``1 2`` one node), and interval and latch trees have no
    ``near`` (EOPNOTSUPP).  Their input forms and errors are
    debugfs-shell's (kmod/tests/debugfs-family.sh)."""
    return [i for i in infos if not i.valued and not i.latch]


def keys_text(info: TreeInfo, keys: list[int]) -> bytes:
    """An ``insert`` write of *keys* on *info*'s tree."""
    if info.valued:
        return " ".join(f"{k} {k}" for k in keys).encode()
    return " ".join(map(str, keys)).encode()


def values(info: TreeInfo, keys: list[int]) -> list[int] | None:
    """The VALUEs Debugfs.insert() takes with *keys*, or None."""
    return list(keys) if info.valued else None


def op(info: TreeInfo, what: str, key: int) -> str:
    """One ``ops`` line: ``i``, ``f`` or ``e`` of *key*."""
    if what == "i" and info.valued or what == "e" and info.interval:
        return f"{what} {key} {key}"
    return f"{what} {key}"
