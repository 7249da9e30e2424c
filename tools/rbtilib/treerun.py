# SPDX-License-Identifier: GPL-2.0
"""One tree under test: ops applied through the driver, every reply
checked against :class:`~rbtilib.model.Model`.

:class:`TreeRun` is the comparison the fuzzer, the shrinker's replays and
the concurrency test (kmod/tests/hardening_lib) share.  Every result line
is compared with the model (keys always, node ids wherever the model
knows them); any reply that does not parse is a failure too.  After every
``ops`` batch the module's own ``check`` runs (cheap, in the kernel);
:meth:`TreeRun.check` compares the dump with the model, runs the Python
checker and compares ``stats`` with the model.  A disagreement is a
:class:`Failure`.
"""

import time
from typing import Callable

from . import checker
from .driver import DebugfsError, TreeInfo
from .dump import S64_MAX, Tree, inorder, parse_dump
from .model import Model
from .opstream import (batches, effective, last_of, op_text, query_last,
                       routes, value_of)
from .record import record


@record
class Failure:
    """A disagreement with the model or a broken invariant."""

    tree: str
    kind: str           # mismatch, errno, contents, check, module, stats,
                        # dump, reply
    message: str
    index: int                  # ops applied to this tree when found
    what: str = ""              # op code or check class (for shrinking)
    highlight: tuple[int, ...] = ()
    dump: Tree | None = None

    def same_as(self, other: "Failure") -> bool:
        """True if *other* is the same kind of failure (ddmin's oracle)."""
        return (self.kind, self.what) == (other.kind, other.what)

    def __str__(self) -> str:
        return (f"{self.tree}: {self.kind} after {self.index} ops: "
                f"{self.message}")


COUNTERS = ("inserts", "erases", "finds", "nears", "overlaps")
"""The ``stats`` counters the fuzzer predicts."""


class TreeRun:
    """One tree under test: its driver, its model and what it has done."""

    def __init__(self, driver, info: TreeInfo,
                 model_factory: Callable[[TreeInfo], Model],
                 module_check: bool = True,
                 shared: tuple[str, ...] = ()) -> None:
        self.driver = driver
        self.info = info
        self.model = model_factory(info)
        self.module_check = module_check
        self.shared = shared
        """Counters of :data:`COUNTERS` that other processes bump too
        while this run goes on (readers writing ``find`` on the same
        tree): ``stats`` must show at least this run's own count of them,
        not exactly; whoever ran the others compares the exact total once
        they have stopped (qemu/kcsan-guest)."""
        self.dialect = info.dialect
        """How the tree reads the op stream (:attr:`~rbtilib.dumptypes.
        TreeKind.dialect`): hints on the Santos trees (insert_near and
        find_near), values and intervals on the family's trees."""
        self.hints = self.dialect == "hints"
        self.valued = info.valued
        self.interval = info.interval
        self.seen: set = set()
        self.done = 0
        self.since_check = 0
        self.module_checks = 0
        self.single_ops = 0
        self.driver_seconds = 0.0
        self.counted = dict.fromkeys(COUNTERS, 0)
        self.base: dict | None = None
        self.recent: list[tuple[str, int, str]] | None = None
        """If a list, run() appends (code, key, result line) to it."""

    def fail(self, kind: str, message: str, what: str = "",
             highlight: tuple = (), dump: Tree | None = None) -> Failure:
        """A Failure of this tree, after the ops applied so far."""
        return Failure(self.info.name, kind, message, self.done, what,
                       highlight, dump)

    def start(self) -> Failure | None:
        """Read the counters the run's ``stats`` are compared with."""
        try:
            self.base = self.driver.stats(self.info.name)
        except DebugfsError as e:
            return self.fail("errno", f"stats failed: {e}", e.name)
        except ValueError as e:
            return self.fail("reply", f"stats: {e}", "stats")
        return None

    def run(self, codes: list[str], keys: list[int],
            parts: list | None = None) -> Failure | None:
        """Apply one batch of ops, then the module's check.

        *parts*: ``batches(codes, keys)`` if all go through ``ops``
        (formatted once for every tree).
        """
        try:
            if parts is None and not any(c.isupper() for c in codes):
                parts = list(batches(codes, keys, self.dialect))
            if parts is not None:
                failure = self._parts(codes, keys, parts)
                if failure:
                    return failure
                codes = []
            for start, end in routes(codes):
                sub, subkeys = codes[start:end], keys[start:end]
                failure = (self._singles(sub, subkeys) if sub[0].isupper()
                           else self._parts(sub, subkeys,
                                            list(batches(sub, subkeys,
                                                         self.dialect))))
                if failure:
                    return failure
        except ValueError as e:
            failure = self.fail("reply", f"op {self.done + 1}: unparseable "
                                f"module reply: {e}", "reply")
            failure.index += 1
            return failure
        return self._module_check() if self.module_check else None

    def _parts(self, codes: list[str], keys: list[int],
               parts: list) -> Failure | None:
        for pos, text in parts:
            end = pos + text.count("\n")
            failure = self._ops(codes[pos:end], keys[pos:end], text)
            if failure:
                return failure
        return None

    def _ops(self, codes: list[str], keys: list[int],
             text: str) -> Failure | None:
        """One ``ops`` write, its results, then the module's check."""
        t0 = time.perf_counter()
        try:
            out = self.driver.ops(self.info.name, text)
        except DebugfsError as e:
            failure = self.fail("errno", f"ops write failed: {e}", e.name)
            failure.index += len(codes)     # the whole batch failed
            return failure
        self.driver_seconds += time.perf_counter() - t0
        lines = out.split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        if self.recent is not None:
            self.recent.extend(zip(codes, keys, lines))
        if len(lines) != len(codes):
            failure = self.fail("mismatch", f"{len(codes)} ops but "
                                f"{len(lines)} result lines", "lines")
            failure.index += len(codes)
            return failure
        return self._compare(codes, keys, lines)

    def _module_check(self) -> Failure | None:
        t0 = time.perf_counter()
        try:
            module = self.driver.check(self.info.name)
        except DebugfsError as e:
            return self.fail("errno", f"check failed: {e}", e.name)
        self.driver_seconds += time.perf_counter() - t0
        self.module_checks += 1
        if module.ok:
            return None
        try:
            tree = self.driver.dump(self.info.name)
        except (DebugfsError, ValueError):
            tree = None                 # the repro still has the ops
        return self.fail("module", f"module check says fail {module.cls} "
                         f"{_module_node(module, tree)}: {module.message}",
                         module.cls,
                         (module.node,) if module.node is not None else (),
                         tree)

    def _compare(self, codes: list[str], keys: list[int],
                 lines: list[str]) -> Failure | None:
        """Check each result line against the model (the hot loop)."""
        model = self.model
        find, near = model.find, model.near
        counted = self.counted
        dialect, interval = self.dialect, self.interval
        tail = self._tail
        for code, key, line in zip(codes, keys, lines):
            self.done += 1
            self.since_check += 1
            op = effective(code, dialect)
            if op == "f":
                counted["finds"] += 1
                nid = find(key)
                want = "ENOENT" if nid is None else \
                    f"found {nid} {key}{tail(nid)}"
            elif op == "n":
                counted["nears"] += 1
                got = near(key)
                want = "ENOENT" if got is None else \
                    f"near {got[0]} {got[1]}{tail(got[0])}"
            elif op == "o":
                counted["overlaps"] += 1
                failure = self._overlap(code, key, line)
                if failure:
                    return failure
                continue
            elif op == "e" and interval:
                nid = model.find_exact(key, last_of(key))
                want = "ENOENT" if nid is None else f"erased {nid}"
                if nid is not None and line == want:
                    model.erase(key, value=last_of(key))
                    counted["erases"] += 1
                    continue
            elif op == "e":
                nid = find(key)
                if nid is None:
                    want = "ENOENT"
                elif model.erase_any and line.startswith("erased "):
                    gone = int(line[7:])
                    if gone not in model.ids[key]:
                        want = f"erased <one of {model.ids[key]}>"
                    else:
                        model.erase(key, gone)
                        counted["erases"] += 1
                        continue
                else:
                    want = f"erased {nid}"
                    if line == want:
                        model.erase(key)
                        counted["erases"] += 1
                        continue
            else:
                want = self._insert(key, line)
                if want is None:
                    continue
            if line != want:
                return self._mismatch(code, key, line, want)
        return None

    def _tail(self, nid: int) -> str:
        """`` VALUE`` of node *nid* in a result line on a value tree."""
        return f" {self.model.values[nid]}" if self.valued else ""

    def _value(self, key: int) -> int | None:
        """The VALUE an insert of *key* carries in this tree's dialect."""
        if not self.valued:
            return None
        return last_of(key) if self.interval else value_of(key)

    def _overlap(self, code: str, key: int, line: str) -> Failure | None:
        """An overlap query's ``overlap N ID...`` against the model: the
        same set, then the same order (the kernel's iter_next order)."""
        want = self.model.overlap(key, query_last(key))
        text = " ".join(["overlap", str(len(want)), *map(str, want)])
        if line == text:
            return None
        words = line.split()
        got = [_id(w) for w in words[2:]] if words[:1] == ["overlap"] \
            else None
        if got is None or words[1] != str(len(got)):
            return self._mismatch(code, key, line, text)
        if sorted(got) != sorted(want):
            return self._mismatch(code, key, line, text)
        if got != want:
            failure = self._mismatch(code, key, line, text)
            failure.what = "overlap-order"
            failure.message += " (same set, another order)"
            return failure
        return None

    def _insert(self, key: int, line: str) -> str | None:
        """Check an insert result; None if it matches (model updated)."""
        model = self.model
        expect = model.insert(key)
        if expect == "EEXIST":
            return None if line == "EEXIST" else "EEXIST"
        words = line.split()
        if expect == "ok":
            if len(words) == 2 and words[0] == "ok":
                nid = _id(words[1])
                if nid not in self.seen:
                    self.seen.add(nid)
                    model.add(key, nid, self._value(key))
                    self.counted["inserts"] += 1
                    return None
            return "ok <new id>"
        old = model.find(key)
        if len(words) == 3 and words[0] == "replaced" and \
                _id(words[2]) == old and _id(words[1]) not in self.seen:
            self.seen.add(_id(words[1]))
            model.swap(key, _id(words[1]))
            self.counted["inserts"] += 1
            return None
        return f"replaced <new id> {old}"

    def _mismatch(self, code: str, key: int, line: str,
                  want: str) -> Failure:
        ids = tuple(int(w) for w in line.split()[1:2]
                    if w.isascii() and w.isdigit())
        ids += tuple(self.model.ids.get(key, ())[:1])
        return self.fail("mismatch", f"op {self.done} '{code} {key}': "
                         f"module says {line!r}, model expects {want!r}",
                         code, ids)

    def _singles(self, codes: list[str], keys: list[int]) -> Failure | None:
        """Ops through the single-op files, one by one."""
        for code, key in zip(codes, keys):
            failure = self._single(code.lower(), key)
            if failure:
                return failure
        return None

    def _single(self, code: str, key: int) -> Failure | None:
        model, name, drv = self.model, self.info.name, self.driver
        op = effective(code, self.dialect)
        present = model.find(key) is not None
        if (op == "i" and present and model.dup) or \
                (op == "e" and model.erase_any and
                 len(model.ids.get(key, ())) > 1):
            # The file's reply does not name the node: keep the model
            # exact by sending this one through ops.
            return self._ops([code], [key], op_text(code, key,
                                                    self.dialect))
        self.single_ops += 1
        self.done += 1
        self.since_check += 1
        t0 = time.perf_counter()
        got: str
        value = self._value(key)
        try:
            if op == "i":
                if value is None:
                    drv.insert(name, [key])
                else:
                    drv.insert(name, [key], [value])
                found = drv.lookup(name, "find", key)
                self.counted["finds"] += 1
                got = "inserted, find says " + " ".join(map(str, found))
            elif op == "e":
                if self.interval:
                    drv.erase(name, key, value)
                else:
                    drv.erase(name, key)
                got = "erased"
            elif op == "o":
                found = drv.overlap(name, key, query_last(key))
                got = " ".join(["overlap", str(len(found))]
                               + [str(f[0]) for f in found])
            else:
                found = drv.lookup(name, "find" if op == "f" else "near",
                                   key)
                got = " ".join(map(str, found))
        except DebugfsError as e:
            got = e.name
        self.driver_seconds += time.perf_counter() - t0
        if self.recent is not None:
            self.recent.append((code.upper(), key, got))
        if op == "o":
            self.counted["overlaps"] += 1
            return self._overlap(code.upper(), key, got)
        if op == "f" or op == "n":
            self.counted["finds" if op == "f" else "nears"] += 1
            if op == "f":
                nid = model.find(key)
                want = "ENOENT" if nid is None else \
                    f"{nid} {key}{self._tail(nid)}"
            else:
                near = model.near(key)
                want = "ENOENT" if near is None else \
                    f"{near[0]} {near[1]}{self._tail(near[0])}"
        elif op == "e":
            if self.interval:
                present = model.find_exact(key, value) is not None
            want = "ENOENT" if not present else "erased"
            if got == want and present:
                model.erase(key, value=value if self.interval else None)
                self.counted["erases"] += 1
        else:
            expect = model.insert(key)
            tail = "" if value is None else f" {value}"
            if expect == "EEXIST":
                want = "EEXIST"
            else:
                want = f"inserted, find says <new id> {key}{tail}"
                words = got.split()
                if got.startswith("inserted, find says ") and \
                        int(words[4]) == key and \
                        " ".join(words[5:]) == tail.strip() and \
                        int(words[3]) not in self.seen:
                    nid = int(words[3])
                    self.seen.add(nid)
                    if expect == "ok":
                        model.add(key, nid, value)
                    else:
                        model.swap(key, nid)
                    self.counted["inserts"] += 1
                    return None
        if got != want:
            return self._mismatch(code.upper(), key, got, want)
        return None

    def due(self, every: int) -> bool:
        """True if a full check is due: *every* ops, or as many ops as the
        tree has nodes if that is more (a check costs O(nodes))."""
        return self.since_check >= max(every, len(self.model))

    def check(self) -> Failure | None:
        """Compare the dump and stats with the model; run both checkers."""
        self.since_check = 0
        t0 = time.perf_counter()
        try:
            text = self.driver.dump_text(self.info.name)
            module = self.driver.check(self.info.name)
            stats = self.driver.stats(self.info.name)
        except DebugfsError as e:
            return self.fail("errno", f"dump/check/stats failed: {e}",
                             e.name)
        except ValueError as e:
            return self.fail("reply", f"check or stats: {e}", "reply")
        self.driver_seconds += time.perf_counter() - t0
        try:
            tree = parse_dump(text)
        except ValueError as e:
            return self.fail("dump", str(e), "parse")
        found = checker.first_violation(tree)
        if found:
            return self.fail("check", str(found), found.cls,
                             (found.node,) if found.node is not None else (),
                             tree)
        if not module.ok:
            return self.fail("module", f"module check says fail {module.cls} "
                             f"{_module_node(module, tree)}: "
                             f"{module.message}; the "
                             "Python checker finds nothing", module.cls,
                             (module.node,) if module.node is not None
                             else (), tree)
        values = self.model.values
        got = [(n.key, n.id, n.value) for n in inorder(tree)]
        want = [(key, nid, values.get(nid)) for key, nid in
                self.model.items()]
        if got != want:
            diff = next((i for i, (a, b) in enumerate(zip(got, want))
                         if a != b), min(len(got), len(want)))
            return self.fail("contents", f"dump has {len(got)} nodes, model "
                             f"{len(want)}; first difference at position "
                             f"{diff}: dump {got[diff:diff + 3]}, model "
                             f"{want[diff:diff + 3]}", "contents",
                             tuple(g[1] for g in got[diff:diff + 1]),
                             tree)
        if tree.aug in ("max", "interval-last") and tree.root is not None \
                and tree.nodes[tree.root].aug != self.model.top():
            return self.fail("contents", f"root aug is "
                             f"{tree.nodes[tree.root].aug}, the model's "
                             f"largest {tree.value} {self.model.top()}",
                             "augment", (tree.root,), tree)
        return self._stats(stats, tree)

    def _stats(self, stats: dict, tree: Tree) -> Failure | None:
        """``stats`` against the model and the dump."""
        want = {"count": len(self.model), "height": tree.height,
                "corrupt": 0}
        if self.base is not None:
            for name, n in self.counted.items():
                if name in self.base:
                    want[name] = self.base[name] + n
        for name, value in want.items():
            if name not in stats:
                continue
            if name in self.shared and stats[name] >= value:
                continue
            if stats[name] != value:
                least = "at least " if name in self.shared else ""
                return self.fail("stats", f"stats {name} is {stats[name]}, "
                                 f"expected {least}{value}", name, (), tree)
        return None


def _module_node(module, tree: Tree | None) -> str:
    """The node the module's check blames, as rbti names nodes
    (:func:`rbtilib.checker.node_words`: ``node #ID (key K)``)."""
    key = checker.key_text(tree, module.node) if tree is not None else None
    return checker.node_words(module.node, key)


def _id(text: str) -> int:
    """A node id in a reply; ValueError unless decimal 0..2^63-1."""
    if not (text.isascii() and text.isdigit()) or \
            (len(text) > 1 and text[0] == "0") or int(text) > S64_MAX:
        raise ValueError(f"bad node id {text!r}")
    return int(text)


def default_model(info: TreeInfo) -> Model:
    """The reference model for a tree of *info*'s kind."""
    return Model(info.flags, info.api)
