# SPDX-License-Identifier: GPL-2.0
"""Single write(2)s with their outcome, and snapshots of a tree's state.

Every helper returns an outcome string, ``ok`` or the errno's name, so
that a table can say what each input must give.  Writes go through
os.open/os.write/os.pwrite: one call is one write(2), as the contract
needs (every write is one command).
"""

import os
from dataclasses import dataclass

from rbtilib import checker
from rbtilib.driver import Debugfs, DebugfsError
from rbtilib.dump import inorder, parse_dump

from .kernel import errname


def write(path: str, data, offset: int | None = None) -> str:
    """Open *path*, make one write(2) (pwrite at *offset*), close."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        return write_fd(fd, data, offset)
    finally:
        os.close(fd)


def write_fd(fd: int, data, offset: int | None = None) -> str:
    """One write(2) or pwrite(2) on *fd*: ``ok`` (all of it) or the errno.

    A short write is an outcome of its own: the module must take all of
    a command or none of it.
    """
    try:
        if offset is None:
            done = os.write(fd, data)
        else:
            done = os.pwrite(fd, data, offset)
    except OSError as e:
        return errname(e.errno or 0)
    if done != len(data):
        return f"short write ({done} of {len(data)} bytes)"
    return "ok"


def read_fd(fd: int, size: int = 1 << 20) -> tuple[str, bytes]:
    """read(2) until EOF on *fd*: (outcome, data)."""
    parts = []
    try:
        while True:
            chunk = os.read(fd, size)
            if not chunk:
                return "ok", b"".join(parts)
            parts.append(chunk)
    except OSError as e:
        return errname(e.errno or 0), b"".join(parts)


def rewind(fd: int) -> None:
    """Seek *fd* back to 0 before reading new results (if seekable)."""
    try:
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        pass


def read(path: str) -> tuple[str, bytes]:
    """Open *path* read-only and read it whole: (outcome, data)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError as e:
        return errname(e.errno or 0), b""
    try:
        return read_fd(fd)
    finally:
        os.close(fd)


def ops_fd(path: str) -> int:
    """A read-write descriptor on an ``ops`` file (results are per fd)."""
    return os.open(path, os.O_RDWR | os.O_CLOEXEC)


@dataclass(frozen=True)
class Snapshot:
    """A tree's observable state: its dump and its module check."""

    dump: str
    check: str
    corrupt: str = "0"

    def keys(self) -> list[int]:
        """Keys in order."""
        return [n.key for n in inorder(parse_dump(self.dump))]

    def items(self) -> list[tuple[int, int]]:
        """(key, id) pairs in order."""
        return [(n.key, n.id) for n in inorder(parse_dump(self.dump))]


def snapshot(dfs: Debugfs, tree: str) -> Snapshot:
    """Read *tree*'s dump, check and corrupt flag (DebugfsError on failure)."""
    return Snapshot(dfs.dump_text(tree), dfs.read(tree, "check"),
                    str(dfs.stats(tree).get("corrupt")))


def problems(snap: Snapshot) -> list[str]:
    """What is wrong with a snapshot: checker violations, module verdict."""
    try:
        tree = parse_dump(snap.dump)
    except ValueError as e:
        return [f"dump does not parse: {e}"]
    out = [str(v) for v in checker.check(tree)]
    if snap.check.strip() != "ok":
        out.append(f"module check: {snap.check.strip()}")
    return out


def diff(before: Snapshot, after: Snapshot) -> list[str]:
    """Describe how *after* differs from *before* (empty: identical)."""
    if before == after:
        return []
    out = []
    if before.corrupt != after.corrupt:
        out.append(f"stats corrupt was {before.corrupt}, now {after.corrupt}")
    if before.check != after.check:
        out.append(f"check was {before.check.strip()!r}, now "
                   f"{after.check.strip()!r}")
    if before.dump != after.dump:
        try:
            was, now = before.items(), after.items()
        except ValueError as e:
            return out + [f"dump changed and does not parse: {e}"]
        gone = sorted(set(was) - set(now))
        new = sorted(set(now) - set(was))
        out.append(f"dump changed: {len(was)} -> {len(now)} nodes; gone "
                   f"(key, id) {gone[:5]}, new {new[:5]}"
                   if gone or new else
                   "dump changed (same nodes, different shape or header)")
    return out


def state(dfs: Debugfs, tree: str) -> tuple[Snapshot | None, str]:
    """Like :func:`snapshot`, but (None, reason) instead of raising."""
    try:
        return snapshot(dfs, tree), ""
    except DebugfsError as e:
        return None, str(e)
