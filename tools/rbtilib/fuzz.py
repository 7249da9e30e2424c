# SPDX-License-Identifier: GPL-2.0
"""Model-based fuzzer: random op batches on every tree, checked against
:class:`~rbtilib.model.Model` and both invariant checkers.

This room holds the run's :class:`Stats`, the flipbook frames and
:class:`Fuzzer`, which runs a :class:`~rbtilib.fuzzconfig.Config`: it
feeds the seed's op stream (:mod:`~rbtilib.opstream`) to every tree,
each through a :class:`~rbtilib.treerun.TreeRun` that compares every
reply with the model, and hands a failure to the shrinker
(:mod:`~rbtilib.shrink`).
The dump is compared with the model, checked by the Python checker
and ``stats`` compared with the model every *check_every* ops, or every N
ops on a tree of N nodes if that is more (so the cost stays linear), and
at the end.  On a failure the op list is shrunk (ddmin, then keys renamed
to small ranks) and written as a JSON repro (``rbti replay``).

With *jobs* N > 1 the trees are dealt round-robin to N forked processes,
each feeding the same op stream to its own trees (the module has a lock
per tree, so they run on the guest's CPUs at once); every tree still gets
every op and every check, and a failure is shrunk in the process that
found it (the other workers run to their end; the first failure in tree
order is the run's).

With ``snapshots_every`` K and an ``out`` directory, batches also end at
every K ops, and after each the tree's dump goes into a deferred flipbook
(``out/TREE/``) with the ops and results that led to it; ``viz/render
--flipbook OUT`` draws it later, where Graphviz is fast (not in the
emulated guest).  The flipbook and a failure's SVG snapshot are written
by :class:`Writers` the caller hands in (``rbti`` hands rbtiviz's:
rbtiviz depends on rbtilib, never the other way round).
"""

import os
import pickle
import sys
import time
import traceback
from typing import Callable

from .driver import DebugfsError, TreeInfo
from .dump import Tree
from .model import Model
from .fuzzconfig import Config
from .opstream import batches, frames_every, generate, resolve_seed
from .record import factory, record, replace
from .shrink import shrink, write_repro
from .treerun import Failure, TreeRun, default_model

CAPTION_OPS = 60
"""Ops listed in a flipbook frame's caption; more are elided in the middle."""


def resolve_jobs(jobs: int) -> int:
    """*jobs* processes, or one per CPU this process may run on if 0."""
    if jobs < 0:
        raise ValueError(f"jobs must be 0 (one per CPU) or more, not {jobs}")
    return jobs or len(os.sched_getaffinity(0))


@record
class Stats:
    """What a run did."""

    ops: int = 0
    checks: int = 0
    module_checks: int = 0
    single_ops: int = 0
    max_nodes: int = 0
    seconds: float = 0.0
    driver_seconds: float = 0.0
    trees: list[str] = factory(list)


@record
class Writers:
    """How a run draws, handed in by its caller; None: not drawn.

    *snapshot* ``(tree, path, highlight)`` writes an SVG of a failure's
    tree; *flipbook* ``(out, tree name, every)`` returns a deferred
    flipbook with ``add(tree, caption, highlight, ops=N)`` and
    ``close()`` (:func:`rbtiviz.writers.fuzz_writers` gives both).
    """

    snapshot: Callable | None = None
    flipbook: Callable | None = None


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



STDERR = object()
"""Fuzzer's default log: whatever sys.stderr is when the Fuzzer is made."""


class Fuzzer:
    """Runs one :class:`Config` on *infos* through *driver*."""

    def __init__(self, driver, infos: list[TreeInfo], config: Config,
                 model_factory: Callable[[TreeInfo], Model] = default_model,
                 log=STDERR, writers: Writers | None = None) -> None:
        self.driver = driver
        self.writers = writers or Writers()
        self.infos = infos
        self.config = config
        self.model_factory = model_factory
        # Looked up now, not when this module was imported: sys.stderr may
        # have been replaced since (pytest's capture, a redirection).
        self.log = sys.stderr if log is STDERR else log
        self.stats = Stats(trees=[i.name for i in infos])
        self.history: list = []
        self.repro: str | None = None
        self.shrunk: list | None = None
        self.label = ""
        """Set in a worker process: its trees, ahead of what it says."""
        self.runs: list[TreeRun] = []
        """The trees' runs, their counts (in this process: none after a
        run in worker processes)."""

    def _say(self, text: str) -> None:
        if self.log:
            print(f"rbti fuzz{self.label}: {text}", file=self.log,
                  flush=True)

    def run(self) -> Failure | None:
        """Fuzz; on failure shrink it, write the repro and return it."""
        cfg = self.config
        if not self.label:
            self._say(f"seed {resolve_seed(cfg)} (rerun with --seed "
                      f"{cfg.seed})")
        if cfg.jobs > 1 and len(self.infos) > 1:
            return self._run_jobs()
        failure = None
        runs = self.runs = []
        for info in self.infos:
            self.driver.clear(info.name)
            run = TreeRun(self.driver, info, self.model_factory,
                          cfg.module_check, cfg.shared)
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
                parts: dict = {}    # dialect -> batches, formatted once
                for run in runs:
                    if not single and run.dialect not in parts:
                        parts[run.dialect] = list(batches(codes, keys,
                                                          run.dialect))
                    failure = run.run(codes, keys, parts.get(run.dialect))
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

    def _run_jobs(self) -> Failure | None:
        """Deal the trees to config.jobs forked workers; gather their
        stats and the first failure (in tree order)."""
        cfg = self.config
        jobs = min(cfg.jobs, len(self.infos))
        groups = [self.infos[i::jobs] for i in range(jobs)]
        start = time.perf_counter()
        for stream in (sys.stdout, sys.stderr, self.log):
            if stream:
                stream.flush()
        workers = [(group, *self._fork(group)) for group in groups]
        failure = None
        errors = []
        for group, pid, fd in workers:
            with os.fdopen(fd, "rb") as f:
                data = f.read()
            _, status = os.waitpid(pid, 0)
            names = ",".join(i.name for i in group)
            try:
                stats, found, repro, shrunk = pickle.loads(data)
            except Exception:       # pylint: disable=broad-except
                errors.append(f"worker for {names} ended without a result "
                              f"(wait status {status})")
                continue
            if isinstance(stats, str):
                errors.append(f"worker for {names} failed:\n{stats}")
                continue
            self._merge(stats)
            if found and not failure:
                failure, self.repro, self.shrunk = found, repro, shrunk
        self.stats.seconds = time.perf_counter() - start
        if errors:
            raise RuntimeError("; ".join(errors))
        return failure

    def _fork(self, group: list[TreeInfo]) -> tuple[int, int]:
        """Start a worker on *group*; return its pid and the read end of
        the pipe its result comes back on."""
        rfd, wfd = os.pipe()
        pid = os.fork()
        if pid:
            os.close(wfd)
            return pid, rfd
        os.close(rfd)
        try:
            worker = Fuzzer(self.driver, group,
                            replace(self.config, jobs=1),
                            self.model_factory, self.log, self.writers)
            worker.label = f" [{','.join(i.name for i in group)}]"
            found = worker.run()
            data = pickle.dumps((worker.stats, found, worker.repro,
                                 worker.shrunk))
        except BaseException:       # pylint: disable=broad-except
            data = pickle.dumps((traceback.format_exc(), None, None, None))
        try:
            with os.fdopen(wfd, "wb") as f:
                f.write(data)
        finally:
            os._exit(0)             # no atexit, no pytest, no finally above

    def _merge(self, stats: Stats) -> None:
        """Add a worker's counts to this run's."""
        mine = self.stats
        mine.ops += stats.ops
        mine.checks += stats.checks
        mine.module_checks += stats.module_checks
        mine.single_ops += stats.single_ops
        mine.max_nodes = max(mine.max_nodes, stats.max_nodes)
        mine.driver_seconds += stats.driver_seconds

    def _flipbooks(self, runs: list[TreeRun]) -> dict:
        """A deferred flipbook Series per tree, if frames are asked for."""
        every = frames_every(self.config)
        if not every:
            return {}
        if self.writers.flipbook is None:
            self._say("no flipbook writer (rbtiviz not importable): no "
                      "flipbook frames")
            return {}
        books = {}
        for run in runs:
            run.recent = []
            books[run.info.name] = self.writers.flipbook(
                self.config.out, run.info.name, every)
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
                                    self.config.shrink_tests, self._say,
                                    self.config.shared)
        self._say(f"shrunk to {len(self.shrunk)} ops: {final}")
        if final.dump is None:
            final.dump = failure.dump
        out = self.config.out or "out/fuzz"
        try:
            self.repro = write_repro(out, self.config, info, self.shrunk,
                                     final, len(ops), self.writers.snapshot)
            self._say(f"repro written to {self.repro}")
        except OSError as e:
            self._say(f"cannot write repro to {out}: {e}")
        return final

    def summary(self) -> str:
        """One line: ops, rate, checks, trees, seed."""
        s = self.stats
        rate = s.ops / s.seconds if s.seconds else 0.0
        jobs = min(self.config.jobs, len(s.trees))
        where = f" in {jobs} processes" if jobs > 1 else ""
        return (f"{s.ops} ops ({self.config.ops} x {len(s.trees)} trees"
                f"{where}) in "
                f"{s.seconds:.1f} s ({s.driver_seconds:.1f} s in debugfs), "
                f"{rate:.0f} ops/s, {s.module_checks} module checks, "
                f"{s.checks} full checks, {s.single_ops} single-file ops, "
                f"largest tree {s.max_nodes} nodes, "
                f"trees {','.join(s.trees)}, seed {self.config.seed}")
