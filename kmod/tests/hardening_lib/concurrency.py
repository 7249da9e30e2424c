# SPDX-License-Identifier: GPL-2.0
"""Many processes hammering the same trees and different trees at once.

Every worker runs mixed ``ops`` batches on every tree, each in a key block
of its own, so that the final state is determined although the order of
the workers' batches is not:

- worker *w*'s random keys lie in ``[lo_w, lo_w + span)`` and the blocks
  are disjoint and ascending, from S64_MIN up to S64_MAX;
- each worker first inserts a sentinel key ``lo_w + span`` that it never
  touches again, so that ``near`` of any key in its block is answered
  inside the block, by a node the worker's own model knows;
- hence every result line of every batch is predicted exactly by the
  worker's model (rbtilib.treerun.TreeRun, the fuzzer's own comparison),
  and at the end each tree must equal the concatenation of the workers'
  models, block by block.

Between batches the workers read dumps, ``check`` and ``stats`` of trees
that others are changing: a dump must read without error, start with its
``tree`` line and either be one whole state (``end N`` with N node lines,
``count`` and ``nodes`` equal to N, no ``lost`` line) or end with the one
line ``error stale`` (DEBUGFS.md), never a mix; ``check`` must say ``ok``
(it runs under the tree's lock).
"""

import json
import random
import re
import time
from dataclasses import dataclass

from rbtilib import fuzz, fuzzconfig
from rbtilib.driver import Debugfs, DebugfsError, TreeInfo
from rbtilib.opstream import generate
from rbtilib.treerun import TreeRun, default_model

from . import files, procs
from .tap import Reporter

S64_MIN = -(1 << 63)
S64_MAX = (1 << 63) - 1
MIX = (4, 3, 3, 2)
"""insert : find : erase : near weights (the fuzzer's default)."""

_END = re.compile(rb"\nend (\d+)\n\Z")
_STALE = b"\nerror stale\n"


@dataclass(frozen=True)
class Plan:
    """Sizes of a run."""

    workers: int
    ops_per_worker: int
    batch: int
    span: int
    dump_every: int
    timeout: float
    seed: int = 8


def blocks(workers: int, span: int) -> list[tuple[int, int]]:
    """(lowest key, sentinel) for each worker, ascending and disjoint:
    the first block starts at S64_MIN, the last sentinel is S64_MAX and a
    block in the middle straddles 0."""
    step = (1 << 64) // workers
    out = []
    for w in range(workers):
        lo = S64_MIN + w * step
        if w == workers - 1:
            lo = S64_MAX - span
        elif w == workers // 2:
            lo = -(span // 2)
        out.append((lo, lo + span))
    assert all(a[1] < b[0] for a, b in zip(out, out[1:]))
    return out


def _framed(text: bytes, name: str) -> str:
    """What is wrong with a dump read while others change the tree, or ""
    if it is one whole state or ends in "error stale"."""
    if not text.startswith(f"tree {name}\n".encode()):
        return "no tree line first"
    if text.endswith(_STALE):
        body = text[:-len(_STALE)]
        if b"error stale" in body or b"\nend " in body:
            return "error stale after end, or twice"
        return ""
    m = _END.search(text)
    if not m:
        return "neither end nor error stale last"
    lines = text.decode().splitlines()
    nodes = sum(1 for line in lines if line.startswith("node "))
    lost = sum(1 for line in lines if line.startswith("lost "))
    want = {f"count {nodes}", f"nodes {nodes}"}
    have = {line for line in lines if line.split(" ")[0] in ("count", "nodes")}
    if int(m.group(1)) != nodes or lost or have != want:
        return f"mixed states: end {m.group(1)}, {nodes} node lines, " \
               f"{lost} lost, {sorted(have)}"
    return ""


def worker(plan: Plan, w: int, infos: list[TreeInfo],
           block: tuple[int, int], dfs: Debugfs | None = None) -> str:
    """One worker's run; returns JSON: its models, or the failure."""
    dfs = dfs or Debugfs()
    lo, sentinel = block
    rng = random.Random(plan.seed * 1000 + w)
    runs = {i.name: TreeRun(dfs, i, default_model) for i in infos}
    per_tree = plan.ops_per_worker // len(infos)
    gens = {}
    for n, info in enumerate(infos):
        failure = runs[info.name].run(["i"], [sentinel])
        if failure:
            return json.dumps({"error": f"sentinel: {failure}"})
        cfg = fuzzconfig.Config(
            ops=per_tree, seed=plan.seed * 1000 + w * 10 + n,
            keys=(lo, sentinel - 1), mix=MIX, batch=plan.batch,
            check_every=plan.batch,
            # Only this worker's block: no phases (they reach the s64 ends)
            # and no single-op files.
            key_mode="dense", phases=False, single=0)
        gens[info.name] = generate(cfg)
    ops = reads = 0
    batches = 0
    while gens:
        for name in list(gens):
            chunk = next(gens[name], None)
            if chunk is None:
                del gens[name]
                continue
            failure = runs[name].run(*chunk)
            if failure:
                return json.dumps({"error": str(failure)})
            ops += len(chunk[0])
            batches += 1
            if batches % plan.dump_every == 0:
                error = _read_concurrently(dfs, rng.choice(infos).name)
                if error:
                    return json.dumps({"error": error})
                reads += 1
    return json.dumps({
        "ops": ops + len(infos), "reads": reads,
        "items": {n: r.model.items() for n, r in runs.items()},
        "inserted": {n: len(r.seen) for n, r in runs.items()},
    })


def _read_concurrently(dfs: Debugfs, name: str) -> str:
    """Read dump, check and stats of a tree others are changing."""
    try:
        dump = dfs.dump_text(name).encode()
        check = dfs.check(name)
        stats = dfs.stats(name)
    except (DebugfsError, ValueError) as e:
        return f"{name}: concurrent read failed: {e}"
    problem = _framed(dump, name)
    if problem:
        return f"{name}: concurrent dump: {problem}: {dump[:60]!r} ... " \
               f"{dump[-60:]!r}"
    if not check.ok:
        return f"{name}: concurrent check says fail {check.cls} node " \
               f"{check.node}: {check.message}"
    if stats.get("corrupt") != 0:
        return f"{name}: stats say corrupt during the run"
    return ""


def run(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo],
        plan: Plan) -> None:
    """Start the workers, wait, and compare every tree with their models."""
    for info in infos:
        dfs.clear(info.name)
    before = {i.name: dfs.stats(i.name) for i in infos}
    spans = blocks(plan.workers, plan.span)
    t0 = time.monotonic()
    children = [procs.start(lambda w=w: worker(plan, w, infos, spans[w]))
                for w in range(plan.workers)]
    deadline = t0 + plan.timeout
    results = [procs.collect(pid, rfd, deadline) for pid, rfd in children]
    seconds = time.monotonic() - t0
    models = []
    total = 0
    for w, (status, text) in enumerate(results):
        try:
            res = json.loads(text) if status == 0 else {"error": text}
        except ValueError:
            res = {"error": f"bad output {text[:200]!r}"}
        if status == -9:
            res = {"error": f"killed after {plan.timeout:.0f} s"}
        ok = "error" not in res
        total += res.get("ops", 0)
        rep.ok(ok, f"worker {w} (keys {spans[w][0]}..{spans[w][1]}): "
               f"{res.get('ops', 0)} ops on {len(infos)} trees, "
               f"{res.get('reads', 0)} concurrent dump/check/stats reads, "
               "every result as its model predicts",
               res.get("error", "").splitlines())
        models.append(res if ok else None)
    rep.count("concurrency ops", total)
    rep.count("concurrency processes", plan.workers)
    rep.note(f"concurrency: {total} ops by {plan.workers} processes in "
             f"{seconds:.1f} s ({total / max(seconds, 1e-9):.0f} ops/s)")
    if None in models:
        rep.ok(False, "final contents (skipped: a worker failed)")
        return
    for info in infos:
        rep.expect(_final(dfs, info, models, before[info.name]),
                   f"{info.name}: after the run the tree is the workers' "
                   "models block by block, both checkers clean, stats "
                   "count/inserts/erases add up")


def _final(dfs: Debugfs, info: TreeInfo, models: list[dict],
           before: dict) -> list[str]:
    name = info.name
    snap = files.snapshot(dfs, name)
    bad = files.problems(snap)
    want = [tuple(kv) for m in models for kv in m["items"][name]]
    got = snap.items()
    if got != want:
        pos = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b),
                   min(len(got), len(want)))
        bad.append(f"{len(got)} nodes, models {len(want)}; first "
                   f"difference at {pos}: tree {got[pos:pos + 2]}, models "
                   f"{want[pos:pos + 2]}")
    stats = dfs.stats(name)
    inserted = sum(m["inserted"][name] for m in models)
    if stats["count"] != len(want):
        bad.append(f"stats count {stats['count']}, expected {len(want)}")
    if stats["inserts"] - before["inserts"] != inserted:
        bad.append(f"stats inserts grew by "
                   f"{stats['inserts'] - before['inserts']}, the workers "
                   f"inserted {inserted}")
    if "replace" not in info.flags and \
            stats["erases"] - before["erases"] != inserted - len(want):
        bad.append(f"stats erases grew by "
                   f"{stats['erases'] - before['erases']}, expected "
                   f"{inserted - len(want)}")
    return bad
