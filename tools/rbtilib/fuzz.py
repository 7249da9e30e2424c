# SPDX-License-Identifier: GPL-2.0
"""Model-based fuzzer: random op batches on every tree, checked against
:class:`~rbtilib.model.Model` and the invariant checker.

The op sequence depends on the seed only.  It goes to the module in large
``ops`` batches; every result line is compared with the model (keys always,
node ids wherever the model knows them), and every *check_every* ops each
tree's dump is compared with the model and checked by both the Python
checker and the module's ``check`` file.  On a failure the op list is
shrunk by ddmin and written as a JSON repro (``rbti replay``).

With ``snapshots_every`` K and an ``out`` directory, batches also end at
every K ops, and after each the tree's dump goes into a deferred flipbook
(:class:`rbtiviz.flipbook.Series`, ``out/TREE/``) with the ops and results
that led to it; ``viz/render --flipbook OUT`` draws it later, where
Graphviz is fast (not in the emulated guest).
"""

import itertools
import json
import os
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Callable, Iterator

from . import checker
from .driver import WRITE_LIMIT, DebugfsError, TreeInfo
from .dump import Tree, format_dump, inorder, parse_dump
from .model import Model
from .shrink import ddmin

OP_CODES = "ifen"
BATCH_OPS = 16384
"""Ops per write; the batch is split further if it would pass 256 KiB."""
CAPTION_OPS = 60
"""Ops listed in a flipbook frame's caption; more are elided in the middle."""


@dataclass
class Config:
    """A fuzz run's parameters (see ``rbti fuzz --help``)."""

    ops: int = 10000
    seed: int = 1
    check_every: int = 1000
    keys: tuple[int, int] = (0, 255)
    mix: tuple[int, int, int, int] = (4, 3, 3, 2)
    out: str | None = None
    snapshots_every: int = 0
    batch: int = BATCH_OPS
    progress: float = 10.0
    shrink_tests: int = 3000


@dataclass
class Failure:
    """A disagreement with the model or a broken invariant."""

    tree: str
    kind: str                   # mismatch, errno, contents, check, module
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
    seconds: float = 0.0
    driver_seconds: float = 0.0
    trees: list[str] = field(default_factory=list)


def parse_keys(text: str) -> tuple[int, int]:
    """Parse ``LO:HI`` (inclusive)."""
    lo, sep, hi = text.partition(":")
    if not sep or int(lo) > int(hi):
        raise ValueError(f"bad key range {text!r}, expected LO:HI")
    return int(lo), int(hi)


def parse_mix(text: str) -> tuple[int, int, int, int]:
    """Parse ``i:f:e:n`` weights."""
    parts = [int(p) for p in text.split(":")]
    if len(parts) != 4 or min(parts) < 0 or not sum(parts):
        raise ValueError(f"bad mix {text!r}, expected i:f:e:n weights")
    return tuple(parts)


def frames_every(config: Config) -> int:
    """Ops between flipbook frames: snapshots_every if out is set, else 0."""
    return config.snapshots_every if config.out else 0


def generate(config: Config) -> Iterator[tuple[list[str], list[int]]]:
    """Yield the seed's op sequence as (codes, keys) chunks.

    Chunks end at every check point and every flipbook frame; the sequence
    itself does not depend on the chunking (codes and keys come from two
    generators).
    """
    rng = random.Random(config.seed)
    code_rng = random.Random(rng.getrandbits(64))
    key_rng = random.Random(rng.getrandbits(64))
    weights = list(itertools.accumulate(config.mix))
    keys = range(config.keys[0], config.keys[1] + 1)
    frames = frames_every(config)
    done = 0
    while done < config.ops:
        step = config.check_every - done % config.check_every
        if frames:
            step = min(step, frames - done % frames)
        n = min(config.batch, step, config.ops - done)
        yield (code_rng.choices(OP_CODES, cum_weights=weights, k=n),
               key_rng.choices(keys, k=n))
        done += n


def batches(codes: list[str], keys: list[int]) -> Iterator[tuple[int, str]]:
    """Split ops into ``(start, text)`` writes below the 256 KiB limit."""
    text = "".join([f"{c} {k}\n" for c, k in zip(codes, keys)])
    if len(text) < WRITE_LIMIT or len(codes) == 1:
        yield 0, text
        return
    half = len(codes) // 2
    yield from batches(codes[:half], keys[:half])
    for start, part in batches(codes[half:], keys[half:]):
        yield half + start, part


class TreeRun:
    """One tree under test: its driver, its model and what it has done."""

    def __init__(self, driver, info: TreeInfo,
                 model_factory: Callable[[TreeInfo], Model]) -> None:
        self.driver = driver
        self.info = info
        self.model = model_factory(info)
        self.seen: set = set()
        self.done = 0
        self.driver_seconds = 0.0
        self.recent: list[tuple[str, int, str]] | None = None
        """If a list, run() appends (code, key, result line) to it."""

    def fail(self, kind: str, message: str, what: str = "",
             highlight: tuple = (), dump: Tree | None = None) -> Failure:
        """A Failure of this tree, after the ops applied so far."""
        return Failure(self.info.name, kind, message, self.done, what,
                       highlight, dump)

    def run(self, codes: list[str], keys: list[int],
            text: str | None = None) -> Failure | None:
        """Apply one batch (already formatted as *text* if given)."""
        if text is None:
            for start, part in batches(codes, keys):
                end = start + part.count("\n")
                failure = self.run(codes[start:end], keys[start:end], part)
                if failure:
                    return failure
            return None
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

    def _compare(self, codes: list[str], keys: list[int],
                 lines: list[str]) -> Failure | None:
        """Check each result line against the model (the hot loop)."""
        model = self.model
        find, near = model.find, model.near
        for code, key, line in zip(codes, keys, lines):
            self.done += 1
            if code == "f":
                nid = find(key)
                want = "ENOENT" if nid is None else f"found {nid} {key}"
            elif code == "n":
                got = near(key)
                want = "ENOENT" if got is None else f"near {got[0]} {got[1]}"
            elif code == "e":
                nid = find(key)
                if nid is None:
                    want = "ENOENT"
                elif model.erase_any and line.startswith("erased "):
                    gone = int(line[7:])
                    if gone not in model.ids[key]:
                        want = f"erased <one of {model.ids[key]}>"
                    else:
                        model.erase(key, gone)
                        continue
                else:
                    want = f"erased {nid}"
                    if line == want:
                        model.erase(key)
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
                nid = int(words[1])
                if nid not in self.seen:
                    self.seen.add(nid)
                    model.add(key, nid)
                    return None
            return "ok <new id>"
        old = model.find(key)
        if len(words) == 3 and words[0] == "replaced" and \
                int(words[2]) == old and int(words[1]) not in self.seen:
            self.seen.add(int(words[1]))
            model.swap(key, int(words[1]))
            return None
        return f"replaced <new id> {old}"

    def _mismatch(self, code: str, key: int, line: str,
                  want: str) -> Failure:
        ids = tuple(int(w) for w in line.split()[1:2] if w.lstrip("-").isdigit())
        ids += tuple(self.model.ids.get(key, ())[:1])
        return self.fail("mismatch", f"op {self.done} '{code} {key}': "
                         f"module says {line!r}, model expects {want!r}",
                         code, ids)

    def check(self) -> Failure | None:
        """Compare the dump with the model; run both checkers."""
        t0 = time.perf_counter()
        try:
            text = self.driver.dump_text(self.info.name)
            module = self.driver.check(self.info.name)
        except DebugfsError as e:
            return self.fail("errno", f"dump/check failed: {e}", e.name)
        self.driver_seconds += time.perf_counter() - t0
        try:
            tree = parse_dump(text)
        except ValueError as e:
            return self.fail("dump", str(e), "parse")
        found = checker.first_violation(tree)
        if found:
            return self.fail("check", str(found), found.cls,
                             (found.node,) if found.node else (), tree)
        if not module.ok:
            return self.fail("module", f"module check says fail {module.cls} "
                             f"node {module.node}: {module.message}; the "
                             "Python checker finds nothing", module.cls,
                             (module.node,) if module.node else (), tree)
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
        return None


def default_model(info: TreeInfo) -> Model:
    """The reference model for a tree of *info*'s kind."""
    return Model(info.flags, info.api)


def replay_ops(driver, info: TreeInfo, ops: list[tuple[str, int]],
               model_factory: Callable[[TreeInfo], Model] = default_model
               ) -> Failure | None:
    """Clear the tree, apply *ops*, check; return the failure, if any."""
    driver.clear(info.name)
    run = TreeRun(driver, info, model_factory)
    if ops:
        failure = run.run([c for c, _ in ops], [k for _, k in ops])
        if failure:
            return failure
    return run.check()


def shrink(driver, info: TreeInfo, ops: list[tuple[str, int]],
           failure: Failure,
           model_factory: Callable[[TreeInfo], Model] = default_model,
           max_tests: int = 3000) -> tuple[list, Failure]:
    """ddmin *ops* to a minimal list that fails like *failure* does."""
    last = {"failure": failure}

    def fails(sub: list) -> bool:
        got = replay_ops(driver, info, sub, model_factory)
        if got is not None and got.same_as(failure):
            last["failure"] = got
            return True
        return False

    if not fails(ops):
        return ops, failure
    small = ddmin(ops, fails, max_tests)
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
        for info in self.infos:
            self.driver.clear(info.name)
        runs = [TreeRun(self.driver, info, self.model_factory)
                for info in self.infos]
        start = last_note = time.perf_counter()
        done = 0
        failure = None
        books = self._flipbooks(runs)
        try:
            for codes, keys in generate(cfg):
                self.history.extend(zip(codes, keys))
                applied = len(self.history)
                parts = list(batches(codes, keys))
                for run in runs:
                    for pos, text in parts:
                        end = pos + text.count("\n")
                        failure = run.run(codes[pos:end], keys[pos:end], text)
                        if failure:
                            break
                    if not failure and (applied % cfg.check_every == 0
                                        or applied == cfg.ops):
                        failure = run.check()
                        self.stats.checks += 2
                    if failure:
                        break
                    if books:
                        self._frame(run, books[run.info.name])
                done += len(codes) * len(runs)
                if failure:
                    break
                now = time.perf_counter()
                if cfg.progress and now - last_note >= cfg.progress:
                    last_note = now
                    self._say(f"{done}/{cfg.ops * len(runs)} ops, "
                              f"{done / (now - start):.0f} ops/s")
        finally:
            for series in books.values():
                series.close()
        if books:
            self._say(f"flipbook frames (dumps) in {cfg.out}/<tree>/; draw "
                      f"them with viz/render --flipbook {cfg.out}")
        self.stats.ops = done
        self.stats.seconds = time.perf_counter() - start
        self.stats.driver_seconds = sum(r.driver_seconds for r in runs)
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
                                    self.config.shrink_tests)
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
                f"{rate:.0f} ops/s, {s.checks} checks, "
                f"trees {','.join(s.trees)}, seed {self.config.seed}")
