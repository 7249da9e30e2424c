# SPDX-License-Identifier: GPL-2.0
"""Access to the inspector's debugfs files (kmod/DEBUGFS.md).

:class:`Debugfs` is the real driver; tests use an in-memory fake with the
same methods (``tests_support.fake.FakeDebugfs``).  Every failed write
raises :class:`DebugfsError`, which carries the errno's name (``EEXIST``,
...).
"""

import errno as _errno
import os

from .dump import Tree, parse_dump, parse_flags
from .dumptypes import TreeKind
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
class TreeInfo(TreeKind):
    """One line of the ``trees`` file; what the tree can do is its
    :class:`~rbtilib.dumptypes.TreeKind` properties."""

    name: str
    api: str
    flags: frozenset[str]
    listed: tuple[str, ...] | None = None
    """The files of the tree's directory as a caller listed them
    (tools/ifuzz); None: those of its kind."""

    @property
    def files(self) -> tuple[str, ...]:
        return super().files if self.listed is None else self.listed


@record(frozen=True)
class CheckResult:
    """The module's ``check`` file: ok, or the first violation."""

    ok: bool
    cls: str | None = None
    node: int | None = None
    message: str = ""


class ReplyError(ValueError):
    """A file of the module that does not read as the contract says (a
    module of another version, or a broken one)."""


def parse_trees(text: str) -> list[TreeInfo]:
    """Parse the ``trees`` file; ReplyError on a bad format line."""
    lines = text.splitlines()
    if not lines or lines[0] != FORMAT_LINE:
        raise ReplyError(f"trees: expected {FORMAT_LINE!r}, got "
                         f"{lines[0] if lines else ''!r}")
    out = []
    for lineno, line in enumerate(lines[1:], 2):
        fields = line.split()
        if len(fields) != 3:
            raise ReplyError(f"trees line {lineno}: expected NAME API FLAGS")
        try:
            flags = parse_flags(fields[2])
        except ValueError as e:
            raise ReplyError(f"trees line {lineno}: {e}") from None
        out.append(TreeInfo(fields[0], fields[1], flags))
    return out


def parse_check(text: str) -> CheckResult:
    """Parse ``ok`` or ``fail CLASS node ID: message``."""
    text = text.strip()
    if text == "ok":
        return CheckResult(True)
    head, sep, message = text.partition(": ")
    fields = head.split()
    if not sep or len(fields) < 2 or fields[0] != "fail":
        raise ReplyError(f"check: cannot parse {text!r}")
    node = None
    if len(fields) == 4 and fields[2] == "node" and fields[3] not in "-?":
        try:
            node = int(fields[3])
        except ValueError:
            raise ReplyError(f"check: bad node {fields[3]!r}") from None
    return CheckResult(False, fields[1], node, message)


def parse_stats(text: str) -> dict[str, int]:
    """Parse ``key value`` lines."""
    out = {}
    for line in text.splitlines():
        key, _, value = line.partition(" ")
        try:
            out[key] = int(value)
        except ValueError:
            raise ReplyError(f"stats: cannot parse {line!r}") from None
    return out


def parse_overlap(text: str) -> list[tuple]:
    """Parse the ``overlap`` file: ``ID START LAST`` lines, ``end N``."""
    lines = text.splitlines()
    if not lines or lines[-1] != f"end {len(lines) - 1}":
        raise ReplyError(f"overlap: expected 'end {max(len(lines) - 1, 0)}'"
                         f" last, got {lines[-1] if lines else ''!r}")
    out = []
    for line in lines[:-1]:
        try:
            nid, start, last = (int(w) for w in line.split(" "))
        except ValueError:
            raise ReplyError(f"overlap: cannot parse {line!r}") from None
        out.append((nid, start, last))
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
        return self.exchange(tree, "ops", batch)

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

    def insert(self, tree: str, keys: list[int],
               values: list[int] | None = None) -> None:
        """Insert *keys* (all or none); on a ``value`` tree each with its
        VALUE from *values* (``KEY VALUE`` pairs; LAST of an interval)."""
        if values is None:
            self.write(tree, "insert", " ".join(map(str, keys)))
        else:
            self.write(tree, "insert", "\n".join(
                f"{k} {v}" for k, v in zip(keys, values, strict=True)))

    def erase(self, tree: str, key: int, last: int | None = None) -> None:
        """Erase one node with *key* (on an interval tree the first
        [*key*, *last*])."""
        self.write(tree, "erase", str(key) if last is None
                   else f"{key} {last}")

    def lookup(self, tree: str, name: str, key: int) -> list[int]:
        """``find`` or ``near``: the result's fields, ``[id, key]`` or
        ``[id, key, value]`` on a ``value`` tree.

        The write and the read go through one descriptor, whose answer is
        its own: a read on a descriptor of its own would take the tree's
        last result, which another process's lookup may have replaced in
        between (qemu/kcsan-guest's readers)."""
        fields = self.exchange(tree, name, str(key)).split()
        if len(fields) not in (2, 3):
            raise ReplyError(f"{name}: expected ID KEY [VALUE], got "
                             f"{' '.join(fields)!r}")
        return [int(f) for f in fields]

    def query(self, tree: str, name: str, key: int) -> tuple[int, int]:
        """``find`` or ``near``: return ``(id, key)`` of the result."""
        nid, found = self.lookup(tree, name, key)[:2]
        return nid, found

    def exchange(self, tree: str, name: str, text: str) -> str:
        """Write *text* to a per-descriptor file (``ops``, ``overlap``,
        ``stress``) and read its reply on the same descriptor."""
        path = self.path(tree, name)
        try:
            with open(path, "r+b", buffering=0) as f:
                _write_all(f.fileno(), path, text.encode())
                return _read_all(f.fileno()).decode()
        except DebugfsError:
            raise
        except OSError as e:
            raise DebugfsError(e.errno or 0, path) from None

    def overlap(self, tree: str, start: int, last: int) -> list[tuple]:
        """The ``overlap`` file of an interval tree: ``(id, start, last)``
        of every stored interval meeting [*start*, *last*], in the
        kernel's iteration order."""
        return parse_overlap(self.exchange(tree, "overlap",
                                           f"{start} {last}"))

    def stress(self, tree: str, lookups: int) -> dict[str, int]:
        """Run the ``stress`` file's lockless-lookup stress (*lookups*
        lookups in all); its ``key value`` result."""
        return parse_stats(self.exchange(tree, "stress", str(lookups)))

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
