# SPDX-License-Identifier: GPL-2.0
"""The host's stand-in of the module: :class:`FakeDebugfs`, the driver's
methods in memory over :class:`~tests_support.trees.RBTree`, with the
semantics kmod/DEBUGFS.md gives each tree (the rbtree family's too:
values, intervals and overlap queries, two latch copies, the ``stress``
file's reply)."""

import errno
import itertools
from typing import Callable

from rbtilib.driver import CheckResult, DebugfsError, TreeInfo, parse_check
from rbtilib.dump import Tree, format_dump
from tests_support import refcheck
from tests_support.trees import CONTRACT_TREES, RBTree, corrupt_tree

COUNTERS = ("inserts", "erases", "finds", "nears", "overlaps")


def parse_op(info: TreeInfo, line: str) -> tuple | None:
    """``(op, key, arg)`` of one ``ops`` line of a tree of *info*, None if
    the module would take the batch as EINVAL."""
    words = line.split()
    if not words:
        return None
    code, args = words[0], words[1:]
    try:
        nums = [int(w) for w in args]
    except ValueError:
        return None
    interval = info.interval
    if code in ("I", "N"):
        # Hinted: Santos trees only (the hint changes no result).
        ok = info.hints and len(nums) == 2
        return (code, nums[0], None) if ok else None
    pair = ((code == "i" and info.valued)
            or (interval and code in ("e", "o")))
    if code not in "ifeno" or len(code) != 1 or \
            len(nums) != (2 if pair else 1) or \
            (code == "o" and not interval) or \
            (code == "n" and not info.has_near) or \
            (interval and pair and nums[0] > nums[1]):
        return None
    return code, nums[0], nums[1] if pair else None


class FakeDebugfs:
    """An in-memory stand-in for :class:`~rbtilib.driver.Debugfs`.

    With *allocated* (the default) its dumps have the contract's ``nodes``
    line, like the module's; without it, they have none, like a dump
    without a node list.

    *fault*, if given, is called as ``fault(tree, op, key, line)`` (op
    ``I`` or ``N`` for a hinted insert or near) for
    every ops result line and returns the line to report, so tests can
    make the "module" wrong on purpose.
    """

    def __init__(self, infos: list[TreeInfo] = CONTRACT_TREES,
                 max_nodes: int = 1 << 20,
                 fault: Callable[[str, str, int, str], str] | None = None,
                 allocated: bool = True) -> None:
        self.allocated = allocated
        self.infos = {info.name: info for info in infos}
        # The kernel it stands for: one with mainline_rcu is a 6.12 one
        # (kmod/tests/module-trees).
        self.release = "6.12.0" if "mainline_rcu" in self.infos else "6.1.0"
        self.max_nodes = max_nodes
        self.fault = fault
        self.params = {"allow_corrupt": "0", "max_nodes": str(max_nodes)}
        self._ids = itertools.count(1)
        self._trees = {name: RBTree(info.dup)
                       for name, info in self.infos.items()}
        self._corrupt: dict = {}
        self.counters = {name: dict.fromkeys(COUNTERS, 0)
                         for name in self.infos}

    def available(self) -> bool:
        return True

    def trees(self) -> list[TreeInfo]:
        return list(self.infos.values())

    def _tree(self, name: str, writing: bool = True) -> RBTree:
        if name not in self._trees:
            raise DebugfsError(errno.ENOENT, name)
        if writing and name in self._corrupt:
            raise DebugfsError(errno.EUCLEAN, name, "corrupt mode")
        return self._trees[name]

    def ops(self, name: str, batch: str) -> str:
        rb = self._tree(name)
        info = self.infos[name]
        parsed = []
        for line in batch.split("\n"):
            if not line.split():
                continue
            op = parse_op(info, line)
            if op is None:
                raise DebugfsError(errno.EINVAL, name, line)
            parsed.append(op)
        if not parsed:
            raise DebugfsError(errno.EINVAL, name, "empty batch")
        inserts = sum(op in ("i", "I") for op, _, _ in parsed)
        if rb.count + inserts > self.max_nodes:
            raise DebugfsError(errno.ENOSPC, name)
        out = []
        for op, key, arg in parsed:
            line = self._op(rb, info, op.lower(), key, arg)
            if self.fault:
                line = self.fault(name, op, key, line)
            out.append(line + "\n")
        return "".join(out)

    def _op(self, rb: RBTree, info: TreeInfo, op: str, key: int,
            arg: int | None) -> str:
        line = self._do(rb, info, op, key, arg)
        counters = self.counters[info.name]
        if op in "fno":
            counters[{"f": "finds", "n": "nears", "o": "overlaps"}[op]] += 1
        elif line.startswith(("ok ", "replaced ")):
            counters["inserts"] += 1
        elif line.startswith("erased "):
            counters["erases"] += 1
        return line

    def _do(self, rb: RBTree, info: TreeInfo, op: str, key: int,
            arg: int | None = None) -> str:
        if op == "i":
            nid = next(self._ids)
            old = rb.insert(key, nid, arg)
            if old is None:
                return f"ok {nid}"
            if "replace" in info.flags:
                rb.replace(old, nid)
                return f"replaced {nid} {old.id}"
            return "EEXIST"
        if op == "o":
            found = rb.overlap(key, arg)
            return " ".join(["overlap", str(len(found))]
                            + [str(n.id) for n in found])
        if op == "e" and arg is not None:
            node = rb.find_interval(key, arg)
        else:
            node = rb.greater(key) if op == "n" else rb.find_first(key)
        if node is None:
            return "ENOENT"
        if op == "e":
            rb.erase(node)
            return f"erased {node.id}"
        value = f" {node.value}" if info.valued else ""
        return (f"{'near' if op == 'n' else 'found'} {node.id} {node.key}"
                f"{value}")

    def dump(self, name: str) -> Tree:
        if name in self._corrupt:
            return self._corrupt[name]
        tree = self._tree(name, False).to_tree(self.infos[name])
        if self.allocated:
            tree.allocated = len(tree.nodes)
        return tree

    def dump_text(self, name: str) -> str:
        return format_dump(self.dump(name))

    def check(self, name: str) -> CheckResult:
        if name not in self._corrupt and \
                type(self).dump is FakeDebugfs.dump:
            # The fake's own trees are valid by construction (RBTree is
            # checked by test_checker); skip the O(n) walk the fuzzer
            # would otherwise pay after every batch.
            return CheckResult(True)
        # The module's check, as a second implementation would give it:
        # never the Python checker that the tests hold it against.
        return parse_check(refcheck.check(self.dump(name)))

    def stats(self, name: str) -> dict[str, int]:
        tree = self.dump(name)
        return {"count": tree.count, "height": tree.height,
                **self.counters[name], "max_nodes": self.max_nodes,
                "corrupt": int(name in self._corrupt)}

    def clear(self, name: str) -> None:
        info = self.infos[name]
        self._trees[name] = RBTree(info.dup)
        self._corrupt.pop(name, None)

    def corrupt(self, name: str, command: str) -> None:
        if self.params["allow_corrupt"] != "1":
            raise DebugfsError(errno.EPERM, name)
        tree = self.dump(name)
        self._tree(name)
        self._corrupt[name] = corrupt_tree(tree, command)

    def insert(self, name: str, keys: list[int],
               values: list[int] | None = None) -> None:
        rb, info = self._tree(name), self.infos[name]
        if info.valued != (values is not None) or \
                (values is not None and len(values) != len(keys)):
            raise DebugfsError(errno.EINVAL, name, "KEY VALUE pairs")
        if info.rejects_present and (
                len(set(keys)) != len(keys)
                or any(rb.find_first(k) for k in keys)):
            raise DebugfsError(errno.EEXIST, name)
        pairs = zip(keys, values or [None] * len(keys))
        self.ops(name, "\n".join(f"i {k}" if v is None else f"i {k} {v}"
                                 for k, v in pairs))

    def erase(self, name: str, key: int, last: int | None = None) -> None:
        text = f"e {key}" if last is None else f"e {key} {last}"
        if self.ops(name, text).startswith("ENOENT"):
            raise DebugfsError(errno.ENOENT, name)

    def lookup(self, name: str, what: str, key: int) -> list[int]:
        info = self.infos.get(name)
        if info and what == "near" and not info.has_near:
            raise DebugfsError(errno.EOPNOTSUPP, name)
        line = self.ops(name, f"{what[0]} {key}").split()
        if line[0] == "ENOENT":
            raise DebugfsError(errno.ENOENT, name)
        return [int(w) for w in line[1:]]

    def query(self, name: str, what: str, key: int) -> tuple[int, int]:
        nid, found = self.lookup(name, what, key)[:2]
        return nid, found

    def overlap(self, name: str, start: int, last: int) -> list[tuple]:
        rb, info = self._tree(name, False), self.infos[name]
        if "overlap" not in info.files:
            raise DebugfsError(errno.ENOENT, name, "no overlap file")
        if start > last:
            raise DebugfsError(errno.EINVAL, name, "START > LAST")
        self.counters[name]["overlaps"] += 1
        return [(n.id, n.key, n.value) for n in rb.overlap(start, last)]

    def stress(self, name: str, lookups: int) -> dict[str, int]:
        info = self.infos[name]
        if "stress" not in info.files:
            raise DebugfsError(errno.ENOENT, name, "no stress file")
        if not 1 <= lookups <= 1000000000:
            raise DebugfsError(errno.EINVAL, name, "bad count")
        return {"lookups": lookups, "present": (lookups + 1) // 2,
                "absent": lookups // 2, "retries": 0, "worst_retry": 0,
                "wrong": 0, "absent_found": 0, "missed": 0,
                "writes": lookups // 10, "timeout": 0, "ok": 1}

    def get_param(self, name: str) -> str:
        return self.params[name]

    def set_param(self, name: str, value: str) -> None:
        self.params[name] = value
