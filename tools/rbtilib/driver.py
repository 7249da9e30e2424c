# SPDX-License-Identifier: GPL-2.0
"""Access to the inspector's debugfs files (kmod/DEBUGFS.md).

:class:`Debugfs` is the real driver; tests use an in-memory fake with the
same methods (``tests_support.trees.FakeDebugfs``).  Every failed write raises
:class:`DebugfsError`, which carries the errno's name (``EEXIST``, ...).
"""

import errno as _errno
import os

from .dump import Tree, parse_dump, parse_flags
from .record import record

DEFAULT_ROOT = "/sys/kernel/debug/rbtree_inspector"
DEFAULT_PARAMS = "/sys/module/rbtree_inspector/parameters"
FORMAT_LINE = "rbtree-inspector format 1"
WRITE_LIMIT = 256 * 1024
"""The largest write the module accepts (bigger ones fail with E2BIG)."""
STALE_RETRIES = 50
"""Reads of a dump that keeps ending in ``error stale`` before giving up."""


class DebugfsError(OSError):
    """A debugfs access failed; ``name`` is the errno's symbolic name."""

    def __init__(self, err: int, path: str, what: str = "") -> None:
        super().__init__(err, os.strerror(err), path)
        self.name = _errno.errorcode.get(err, str(err))
        self.what = what

    def __str__(self) -> str:
        what = f" ({self.what})" if self.what else ""
        return f"{self.filename}: {self.name}{what}"


@record(frozen=True)
class TreeInfo:
    """One line of the ``trees`` file."""

    name: str
    api: str
    flags: frozenset[str]


@record(frozen=True)
class CheckResult:
    """The module's ``check`` file: ok, or the first violation."""

    ok: bool
    cls: str | None = None
    node: int | None = None
    message: str = ""


def parse_trees(text: str) -> list[TreeInfo]:
    """Parse the ``trees`` file; ValueError on a bad format line."""
    lines = text.splitlines()
    if not lines or lines[0] != FORMAT_LINE:
        raise ValueError(f"trees: expected {FORMAT_LINE!r}, got "
                         f"{lines[0] if lines else ''!r}")
    out = []
    for lineno, line in enumerate(lines[1:], 2):
        fields = line.split()
        if len(fields) != 3:
            raise ValueError(f"trees line {lineno}: expected NAME API FLAGS")
        out.append(TreeInfo(fields[0], fields[1], parse_flags(fields[2])))
    return out


def parse_check(text: str) -> CheckResult:
    """Parse ``ok`` or ``fail CLASS node ID: message``."""
    text = text.strip()
    if text == "ok":
        return CheckResult(True)
    head, sep, message = text.partition(": ")
    fields = head.split()
    if not sep or len(fields) < 2 or fields[0] != "fail":
        raise ValueError(f"check: cannot parse {text!r}")
    node = None
    if len(fields) == 4 and fields[2] == "node" and fields[3] not in "-?":
        node = int(fields[3])
    return CheckResult(False, fields[1], node, message)


def parse_stats(text: str) -> dict[str, int]:
    """Parse ``key value`` lines."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        out[key] = int(value)
    return out


class Debugfs:
    """The inspector's files under *root* (and its module parameters)."""

    def __init__(self, root: str = DEFAULT_ROOT,
                 params: str = DEFAULT_PARAMS) -> None:
        self.root = root
        self.params = params

    def path(self, tree: str | None, name: str) -> str:
        """Path of a top-level file (*tree* None) or a per-tree file."""
        if tree is None:
            return os.path.join(self.root, name)
        return os.path.join(self.root, tree, name)

    def read(self, tree: str | None, name: str) -> str:
        """Read a whole file; DebugfsError on failure."""
        path = self.path(tree, name)
        try:
            with open(path, "rb", buffering=0) as f:
                return _read_all(f.fileno()).decode()
        except OSError as e:
            raise DebugfsError(e.errno or 0, path) from None

    def write(self, tree: str | None, name: str, data: str) -> None:
        """Write *data* in one write(2); DebugfsError on failure."""
        path = self.path(tree, name)
        try:
            fd = os.open(path, os.O_WRONLY)
        except OSError as e:
            raise DebugfsError(e.errno or 0, path) from None
        try:
            _write_all(fd, path, data.encode())
        finally:
            os.close(fd)

    def available(self) -> bool:
        """True if the inspector's debugfs directory exists."""
        return os.path.isfile(self.path(None, "trees"))

    def trees(self) -> list[TreeInfo]:
        """The trees the module exposes."""
        return parse_trees(self.read(None, "trees"))

    def ops(self, tree: str, batch: str) -> str:
        """Run an ops batch; return the result text (one line per op)."""
        path = self.path(tree, "ops")
        try:
            with open(path, "r+b", buffering=0) as f:
                _write_all(f.fileno(), path, batch.encode())
                return _read_all(f.fileno()).decode()
        except DebugfsError:
            raise
        except OSError as e:
            raise DebugfsError(e.errno or 0, path) from None

    def dump_text(self, tree: str) -> str:
        """The raw ``dump`` file, read again while it ends in ``error
        stale`` (the tree changed between two reads: DEBUGFS.md), at most
        :data:`STALE_RETRIES` times."""
        for _ in range(STALE_RETRIES):
            text = self.read(tree, "dump")
            if not text.endswith("error stale\n"):
                return text
        raise DebugfsError(_errno.EAGAIN, self.path(tree, "dump"),
                           f"still stale after {STALE_RETRIES} reads")

    def dump(self, tree: str) -> Tree:
        """The parsed ``dump`` file."""
        return parse_dump(self.dump_text(tree))

    def check(self, tree: str) -> CheckResult:
        """The module's own verdict on the tree."""
        return parse_check(self.read(tree, "check"))

    def stats(self, tree: str) -> dict[str, int]:
        """The ``stats`` file as a dict."""
        return parse_stats(self.read(tree, "stats"))

    def clear(self, tree: str) -> None:
        """Free every node (and leave corrupt mode)."""
        self.write(tree, "clear", "1")

    def corrupt(self, tree: str, command: str) -> None:
        """Write a ``corrupt`` command (needs allow_corrupt)."""
        self.write(tree, "corrupt", command)

    def insert(self, tree: str, keys: list[int]) -> None:
        """Insert *keys* (all or none)."""
        self.write(tree, "insert", " ".join(map(str, keys)))

    def erase(self, tree: str, key: int) -> None:
        """Erase one node with *key*."""
        self.write(tree, "erase", str(key))

    def query(self, tree: str, name: str, key: int) -> tuple[int, int]:
        """``find`` or ``near``: return ``(id, key)`` of the result."""
        self.write(tree, name, str(key))
        nid, found = self.read(tree, name).split()
        return int(nid), int(found)

    def get_param(self, name: str) -> str:
        """Read a module parameter."""
        with open(os.path.join(self.params, name)) as f:
            return f.read().strip()

    def set_param(self, name: str, value: str) -> None:
        """Set a module parameter."""
        path = os.path.join(self.params, name)
        try:
            with open(path, "w") as f:
                f.write(value)
        except OSError as e:
            raise DebugfsError(e.errno or 0, path) from None


def _write_all(fd: int, path: str, data: bytes) -> None:
    """One write(2) of *data*: the module takes each write as a command."""
    try:
        done = os.write(fd, data)
    except OSError as e:
        raise DebugfsError(e.errno or 0, path) from None
    if done != len(data):
        raise DebugfsError(_errno.EIO, path,
                           f"short write: {done} of {len(data)} bytes")


def _read_all(fd: int) -> bytes:
    """read(2) until EOF."""
    parts = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            return b"".join(parts)
        parts.append(chunk)
