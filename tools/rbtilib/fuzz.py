# SPDX-License-Identifier: GPL-2.0
"""Model-based fuzzer: random op batches on every tree, checked against
:class:`~rbtilib.model.Model` and both invariant checkers.

The op stream (phases, keys, single-op routes, hints) is
:mod:`~rbtilib.opstream`'s; here each chunk of it goes to every tree.

Every result line is compared with the model (keys always, node ids
wherever the model knows them); any reply that does not parse is a
failure too.  After every ``ops`` batch the module's own ``check`` runs
(cheap, in the kernel); the dump is compared with the model, checked by
the Python checker and ``stats`` compared with the model every
*check_every* ops, or every N ops on a tree of N nodes if that is more
(so the cost stays linear), and at the end.  On a failure the op list is
shrunk (ddmin, then keys renamed to small ranks) and written as a JSON
repro (``rbti replay``).

With ``snapshots_every`` K and an ``out`` directory, batches also end at
every K ops, and after each the tree's dump goes into a deferred flipbook
(:class:`rbtiviz.flipbook.Series`, ``out/TREE/``) with the ops and results
that led to it; ``viz/render --flipbook OUT`` draws it later, where
Graphviz is fast (not in the emulated guest).
"""

import json
import os
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

from . import checker
from .driver import DebugfsError, TreeInfo
from .dump import S64_MAX, Tree, format_dump, inorder, parse_dump
from .model import Model
from .opstream import (BATCH_OPS, HINT_CODES, batches, frames_every,
                       generate, resolve_seed, routes)
from .shrink import ddmin

CAPTION_OPS = 60
"""Ops listed in a flipbook frame's caption; more are elided in the middle."""


@dataclass
class Config:
    """A fuzz run's parameters (see ``rbti fuzz --help``).

    *seed* None picks a random seed
    (:func:`~rbtilib.opstream.resolve_seed`).  *key_mode* ``dense`` with
    *phases* False is the plain uniform mix of old.
    """

    ops: int = 10000
    seed: int | None = None
    check_every: int = 1000
    keys: tuple[int, int] = (0, 255)
    mix: tuple[int, int, int, int] = (4, 3, 3, 2)
    out: str | None = None
    snapshots_every: int = 0
    batch: int = BATCH_OPS
    progress: float = 10.0
    shrink_tests: int = 3000
    key_mode: str = "mixed"
    phases: bool = True
    single: int = 128
    grow: int = 0
    module_check: bool = True
    hint: int = 4


@dataclass
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


@dataclass
class Stats:
    """What a run did."""

    ops: int = 0
    checks: int = 0
    module_checks: int = 0
    single_ops: int = 0
    max_nodes: int = 0
    seconds: float = 0.0
    driver_seconds: float = 0.0
    trees: list[str] = field(default_factory=list)


COUNTERS = ("inserts", "erases", "finds", "nears")
"""The ``stats`` counters the fuzzer predicts."""


class TreeRun:
    """One tree under test: its driver, its model and what it has done."""

    def __init__(self, driver, info: TreeInfo,
                 model_factory: Callable[[TreeInfo], Model],
                 module_check: bool = True) -> None:
        self.driver = driver
        self.info = info
        self.model = model_factory(info)
        self.module_check = module_check
        self.hints = info.api == "santos"
        """Whether hinted ops carry their hint (the Santos API has
        insert_near and find_near)."""
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
                parts = list(batches(codes, keys, self.hints))
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
                                                         self.hints))))
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
                         f"node {module.node}: {module.message}", module.cls,
                         (module.node,) if module.node is not None else (),
                         tree)

    def _compare(self, codes: list[str], keys: list[int],
                 lines: list[str]) -> Failure | None:
        """Check each result line against the model (the hot loop)."""
        model = self.model
        find, near = model.find, model.near
        counted = self.counted
        for code, key, line in zip(codes, keys, lines):
            self.done += 1
            self.since_check += 1
            op = HINT_CODES.get(code, code)
            if op == "f":
                counted["finds"] += 1
                nid = find(key)
                want = "ENOENT" if nid is None else f"found {nid} {key}"
            elif op == "n":
                counted["nears"] += 1
                got = near(key)
                want = "ENOENT" if got is None else f"near {got[0]} {got[1]}"
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
                    model.add(key, nid)
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
        present = model.find(key) is not None
        if (code == "i" and present and model.dup) or \
                (code == "e" and model.erase_any and
                 len(model.ids.get(key, ())) > 1):
            # The file's reply does not name the node: keep the model
            # exact by sending this one through ops.
            return self._ops([code], [key], f"{code} {key}\n")
        self.single_ops += 1
        self.done += 1
        self.since_check += 1
        t0 = time.perf_counter()
        got: str
        try:
            if code == "i":
                drv.insert(name, [key])
                nid, found = drv.query(name, "find", key)
                self.counted["finds"] += 1
                got = f"inserted, find says {nid} {found}"
            elif code == "e":
                drv.erase(name, key)
                got = "erased"
            else:
                nid, found = drv.query(name, "find" if code == "f"
                                       else "near", key)
                got = f"{nid} {found}"
        except DebugfsError as e:
            got = e.name
        self.driver_seconds += time.perf_counter() - t0
        if self.recent is not None:
            self.recent.append((code.upper(), key, got))
        if code == "f" or code == "n":
            self.counted["finds" if code == "f" else "nears"] += 1
            if code == "f":
                nid = model.find(key)
                want = "ENOENT" if nid is None else f"{nid} {key}"
            else:
                near = model.near(key)
                want = "ENOENT" if near is None else f"{near[0]} {near[1]}"
        elif code == "e":
            want = "ENOENT" if not present else "erased"
            if got == want and present:
                model.erase(key)
                self.counted["erases"] += 1
        else:
            expect = model.insert(key)
            if expect == "EEXIST":
                want = "EEXIST"
            else:
                want = f"inserted, find says <new id> {key}"
                words = got.split()
                if got.startswith("inserted, find says ") and \
                        int(words[4]) == key and \
                        int(words[3]) not in self.seen:
                    nid = int(words[3])
                    self.seen.add(nid)
                    if expect == "ok":
                        model.add(key, nid)
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
                             f"node {module.node}: {module.message}; the "
                             "Python checker finds nothing", module.cls,
                             (module.node,) if module.node is not None
                             else (), tree)
        got = [(n.key, n.id) for n in inorder(tree)]
        want = self.model.items()
        if got != want:
            diff = next((i for i, (a, b) in enumerate(zip(got, want))
                         if a != b), min(len(got), len(want)))
            return self.fail("contents", f"dump has {len(got)} nodes, model "
                             f"{len(want)}; first difference at position "
                             f"{diff}: dump {got[diff:diff + 3]}, model "
                             f"{want[diff:diff + 3]}", "contents",
                             tuple(nid for _, nid in got[diff:diff + 1]),
                             tree)
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
            if name in stats and stats[name] != value:
                return self.fail("stats", f"stats {name} is {stats[name]}, "
                                 f"expected {value}", name, (), tree)
        return None


def _id(text: str) -> int:
    """A node id in a reply; ValueError unless decimal 0..2^63-1."""
    if not (text.isascii() and text.isdigit()) or \
            (len(text) > 1 and text[0] == "0") or int(text) > S64_MAX:
        raise ValueError(f"bad node id {text!r}")
    return int(text)


def default_model(info: TreeInfo) -> Model:
    """The reference model for a tree of *info*'s kind."""
    return Model(info.flags, info.api)


def replay_ops(driver, info: TreeInfo, ops: list[tuple[str, int]],
               model_factory: Callable[[TreeInfo], Model] = default_model,
               module_check: bool = True) -> Failure | None:
    """Clear the tree, apply *ops*, check; return the failure, if any."""
    driver.clear(info.name)
    run = TreeRun(driver, info, model_factory, module_check)
    failure = run.start()
    if failure:
        return failure
    if ops:
        failure = run.run([c for c, _ in ops], [k for _, k in ops])
        if failure:
            return failure
    return run.check()


def rank_keys(ops: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """*ops* with every key replaced by its rank among the keys (order
    and equality kept): small numbers for a repro."""
    rank = {key: i for i, key in enumerate(sorted({k for _, k in ops}))}
    return [(code, rank[key]) for code, key in ops]


def shrink(driver, info: TreeInfo, ops: list[tuple[str, int]],
           failure: Failure,
           model_factory: Callable[[TreeInfo], Model] = default_model,
           max_tests: int = 3000,
           progress: Callable[[str], None] | None = None
           ) -> tuple[list, Failure]:
    """ddmin *ops* to a minimal list that fails like *failure* does, then
    rename its keys to small ranks if it still fails that way.

    Each distinct op list is replayed once (memoized).  *progress* gets a
    line every 100 replays.
    """
    last = {"failure": failure}
    memo: dict = {}

    def fails(sub: list) -> bool:
        sub = tuple(sub)
        if sub in memo:
            return memo[sub]
        got = replay_ops(driver, info, list(sub), model_factory)
        memo[sub] = got is not None and got.same_as(failure)
        if memo[sub]:
            last["failure"] = got
        if progress and len(memo) % 100 == 0:
            best = min((len(k) for k, v in memo.items() if v),
                       default=len(ops))
            progress(f"shrinking: {len(memo)} replays, smallest failing "
                     f"{best} of {len(ops)} ops")
        return memo[sub]

    if not fails(ops):
        return ops, failure
    small = ddmin(ops, fails, max_tests)
    ranked = rank_keys(small)
    if ranked != small and fails(ranked):
        small = ranked
    final = replay_ops(driver, info, small, model_factory)
    driver.clear(info.name)
    return small, final or last["failure"]


def _render_module():
    """The viz helper's renderer, or None if viz is not available."""
    try:
        from rbtiviz import render
    except ImportError:
        return None
    return render


def _flipbook_module():
    """The viz helper's flipbooks, or None if viz is not available."""
    try:
        from rbtiviz import flipbook
    except ImportError:
        return None
    return flipbook


def frame_caption(ops: list[tuple[str, int, str]]) -> str:
    """``i 5 -> ok 12; f 3 -> ENOENT``, the middle elided past CAPTION_OPS."""
    text = [f"{code} {key} -> {line}" for code, key, line in ops]
    if len(text) > CAPTION_OPS:
        half = CAPTION_OPS // 2
        text[half:-half] = [f"... {len(text) - 2 * half} more ops ..."]
    return "; ".join(text)


def inserted_ids(ops: list[tuple[str, int, str]], tree: Tree) -> list[int]:
    """Ids of the nodes *ops* inserted that are still in *tree*."""
    ids = (int(line.split()[1]) for _, _, line in ops
           if line.startswith(("ok ", "replaced ")))
    return sorted({nid for nid in ids if nid in tree.nodes})


def write_snapshot(tree: Tree, path: str, highlight: tuple = ()) -> str | None:
    """Render *tree* to *path* (SVG) via viz; None if unavailable."""
    render = _render_module()
    if render is None:
        return None
    try:
        render.write_snapshot(tree, path, highlight=highlight, fmt="svg")
    except Exception as e:          # a broken snapshot must not hide a bug
        print(f"rbti: snapshot failed: {e}", file=sys.stderr)
        return None
    return path


def write_repro(out: str, config: Config, info: TreeInfo, ops: list,
                failure: Failure, original: int) -> str:
    """Write the repro JSON, dump and snapshot; return the JSON's path."""
    os.makedirs(out, exist_ok=True)
    base = os.path.join(out, f"{info.name}-seed{config.seed}")
    with open(base + ".json", "w") as f:
        json.dump({"rbti-repro": 1, "seed": config.seed, "tree": info.name,
                   "api": info.api, "flags": sorted(info.flags),
                   "failure": str(failure), "kind": failure.kind,
                   "what": failure.what, "original_ops": original,
                   "ops": [[c, k] for c, k in ops]}, f, indent=1)
        f.write("\n")
    if failure.dump is not None:
        with open(base + ".dump", "w") as f:
            f.write(format_dump(failure.dump))
        write_snapshot(failure.dump, base + ".svg", failure.highlight)
    return base + ".json"


def read_repro(path: str) -> dict:
    """Load a repro file; ValueError if it is not one."""
    with open(path) as f:
        data = json.load(f)
    if data.get("rbti-repro") != 1 or "tree" not in data or "ops" not in data:
        raise ValueError(f"{path}: not an rbti repro file")
    data["ops"] = [(str(c), int(k)) for c, k in data["ops"]]
    return data


class Fuzzer:
    """Runs one :class:`Config` on *infos* through *driver*."""

    def __init__(self, driver, infos: list[TreeInfo], config: Config,
                 model_factory: Callable[[TreeInfo], Model] = default_model,
                 log=sys.stderr) -> None:
        self.driver = driver
        self.infos = infos
        self.config = config
        self.model_factory = model_factory
        self.log = log
        self.stats = Stats(trees=[i.name for i in infos])
        self.history: list = []
        self.repro: str | None = None
        self.shrunk: list | None = None

    def _say(self, text: str) -> None:
        if self.log:
            print(f"rbti fuzz: {text}", file=self.log, flush=True)

    def run(self) -> Failure | None:
        """Fuzz; on failure shrink it, write the repro and return it."""
        cfg = self.config
        self._say(f"seed {resolve_seed(cfg)} (rerun with --seed "
                  f"{cfg.seed})")
        failure = None
        runs = []
        for info in self.infos:
            self.driver.clear(info.name)
            run = TreeRun(self.driver, info, self.model_factory,
                          cfg.module_check)
            runs.append(run)
            failure = failure or run.start()
        start = last_note = time.perf_counter()
        done = 0
        books = self._flipbooks(runs)
        try:
            for codes, keys in (generate(cfg) if not failure else ()):
                self.history.extend(zip(codes, keys))
                applied = len(self.history)
                single = any(c.isupper() for c in codes)
                parts: dict = {}        # hints -> batches, formatted once
                for run in runs:
                    if not single and run.hints not in parts:
                        parts[run.hints] = list(batches(codes, keys,
                                                        run.hints))
                    failure = run.run(codes, keys, parts.get(run.hints))
                    if not failure and (run.due(cfg.check_every)
                                        or applied == cfg.ops):
                        failure = run.check()
                        self.stats.checks += 1
                    if failure:
                        break
                    if books:
                        self._frame(run, books[run.info.name])
                done += len(codes) * len(runs)
                self.stats.max_nodes = max(self.stats.max_nodes,
                                           max(len(r.model) for r in runs))
                if failure:
                    break
                now = time.perf_counter()
                if cfg.progress and now - last_note >= cfg.progress:
                    last_note = now
                    self._say(f"{done}/{cfg.ops * len(runs)} ops, "
                              f"{done / (now - start):.0f} ops/s, largest "
                              f"tree {self.stats.max_nodes} nodes")
        finally:
            for series in books.values():
                series.close()
        if books:
            self._say(f"flipbook frames (dumps) in {cfg.out}/<tree>/; draw "
                      f"them with viz/render --flipbook {cfg.out}")
        self.stats.ops = done
        self.stats.seconds = time.perf_counter() - start
        self.stats.driver_seconds = sum(r.driver_seconds for r in runs)
        self.stats.module_checks = sum(r.module_checks for r in runs)
        self.stats.single_ops = sum(r.single_ops for r in runs)
        if failure:
            failure = self._report(failure)
        return failure

    def _flipbooks(self, runs: list[TreeRun]) -> dict:
        """A deferred flipbook Series per tree, if frames are asked for."""
        every = frames_every(self.config)
        if not every:
            return {}
        flipbook = _flipbook_module()
        if flipbook is None:
            self._say("rbtiviz not importable: no flipbook frames")
            return {}
        books = {}
        for run in runs:
            run.recent = []
            books[run.info.name] = flipbook.Series(
                self.config.out, run.info.name, every=every, render=False)
        return books

    def _frame(self, run: TreeRun, series) -> None:
        """At every K ops (and the last), add the tree's dump to *series*."""
        done = len(self.history)
        if not run.recent or (done % self.config.snapshots_every
                              and done != self.config.ops):
            return
        try:
            tree = self.driver.dump(run.info.name)
        except (DebugfsError, ValueError) as e:
            # Keep the ops: the next frame lists them.
            self._say(f"{run.info.name}: no frame after {done} ops: {e}")
            return
        ops, run.recent = run.recent, []
        series.add(tree, frame_caption(ops), inserted_ids(ops, tree),
                   ops=len(ops))

    def _report(self, failure: Failure) -> Failure:
        info = next(i for i in self.infos if i.name == failure.tree)
        ops = self.history[:failure.index]
        self._say(f"FAILED {failure}")
        self._say(f"shrinking {len(ops)} ops ...")
        self.shrunk, final = shrink(self.driver, info, ops, failure,
                                    self.model_factory,
                                    self.config.shrink_tests, self._say)
        self._say(f"shrunk to {len(self.shrunk)} ops: {final}")
        if final.dump is None:
            final.dump = failure.dump
        out = self.config.out or "out/fuzz"
        try:
            self.repro = write_repro(out, self.config, info, self.shrunk,
                                     final, len(ops))
            self._say(f"repro written to {self.repro}")
        except OSError as e:
            self._say(f"cannot write repro to {out}: {e}")
        return final

    def summary(self) -> str:
        """One line: ops, rate, checks, trees, seed."""
        s = self.stats
        rate = s.ops / s.seconds if s.seconds else 0.0
        return (f"{s.ops} ops ({self.config.ops} x {len(s.trees)} trees) in "
                f"{s.seconds:.1f} s ({s.driver_seconds:.1f} s in debugfs), "
                f"{rate:.0f} ops/s, {s.module_checks} module checks, "
                f"{s.checks} full checks, {s.single_ops} single-file ops, "
                f"largest tree {s.max_nodes} nodes, "
                f"trees {','.join(s.trees)}, seed {self.config.seed}")
