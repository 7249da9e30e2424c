# SPDX-License-Identifier: GPL-2.0
"""The shrinker and its repro files.

On a failure the fuzzer's op list is shrunk by delta debugging
(:func:`ddmin`, each candidate replayed on a cleared tree by
:func:`replay_ops`), then its keys renamed to small ranks
(:func:`rank_keys`), and written as a JSON repro with the tree's dump and,
if the caller hands in a writer, an SVG snapshot (:func:`write_repro`);
``rbti replay`` reads it back (:func:`read_repro`).
"""

import json
import os
import sys
from typing import Callable, Sequence

from .driver import TreeInfo
from .dump import format_dump
from .fuzzconfig import Config
from .model import Model
from .treerun import Failure, TreeRun, default_model


def ddmin(items: Sequence, fails: Callable[[list], bool],
          max_tests: int | None = None) -> list:
    """Return a 1-minimal sublist of *items* for which *fails* is true.

    Zeller's ddmin: try each of n chunks and each complement, refine n.
    *fails(items)* must be true on entry.  The order of items is kept.
    With *max_tests*, stop after that many calls and return the smallest
    failing list found so far.
    """
    current = list(items)
    n = 2
    tests = 0
    while len(current) >= 2:
        size = len(current)
        bounds = [size * i // n for i in range(n + 1)]
        chunks = [current[bounds[i]:bounds[i + 1]] for i in range(n)]
        reduced = False
        for i, chunk in enumerate(chunks):
            if max_tests is not None and tests >= max_tests:
                return current
            tests += 1
            if chunk and fails(chunk):
                current, n, reduced = chunk, 2, True
                break
        if not reduced and n > 2:
            for i in range(n):
                if max_tests is not None and tests >= max_tests:
                    return current
                complement = [x for j, c in enumerate(chunks) if j != i
                              for x in c]
                tests += 1
                if fails(complement):
                    current, n, reduced = complement, max(n - 1, 2), True
                    break
        if not reduced:
            if n >= size:
                break
            n = min(size, 2 * n)
    if len(current) == 1 and (max_tests is None or tests < max_tests):
        if fails([]):
            return []
    return current


def replay_ops(driver, info: TreeInfo, ops: list[tuple[str, int]],
               model_factory: Callable[[TreeInfo], Model] = default_model,
               module_check: bool = True,
               shared: tuple[str, ...] = ()) -> Failure | None:
    """Clear the tree, apply *ops*, check; return the failure, if any.
    *shared*: as :attr:`rbtilib.treerun.TreeRun.shared`."""
    driver.clear(info.name)
    run = TreeRun(driver, info, model_factory, module_check, shared)
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
           progress: Callable[[str], None] | None = None,
           shared: tuple[str, ...] = ()
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
        got = replay_ops(driver, info, list(sub), model_factory,
                         shared=shared)
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
    final = replay_ops(driver, info, small, model_factory, shared=shared)
    driver.clear(info.name)
    return small, final or last["failure"]


def write_repro(out: str, config: Config, info: TreeInfo, ops: list,
                failure: Failure, original: int,
                snapshot: Callable | None = None) -> str:
    """Write the repro JSON, the dump and (with a *snapshot* writer,
    ``(tree, path, highlight)``) an SVG of it; return the JSON's path."""
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
        if snapshot is not None:
            try:
                snapshot(failure.dump, base + ".svg", failure.highlight)
            except Exception as e:  # noqa: BLE001 (must not hide the bug)
                print(f"rbti: snapshot failed: {e}", file=sys.stderr)
    return base + ".json"


def _no_constant(name: str):
    """json's parse_constant: ``NaN``, ``Infinity`` and ``-Infinity`` are
    no JSON (RFC 8259), and never in a repro file."""
    raise ValueError(f"{name} is not a JSON number")


def read_repro(path: str) -> dict:
    """Load a repro file; ValueError if it is not one (including JSON
    with NaN or Infinity, nesting deeper than Python's recursion limit,
    or a key that is not an integer); OSError if it cannot be read."""
    try:
        with open(path, encoding="utf-8") as f:
            data = json.load(f, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"{path}: not an rbti repro file (JSON nested "
                         "too deeply)") from None
    except ValueError as e:     # JSONDecodeError, UnicodeDecodeError
        raise ValueError(f"{path}: not an rbti repro file ({e})") from None
    if not isinstance(data, dict) or data.get("rbti-repro") != 1 or \
            not isinstance(data.get("tree"), str) or "ops" not in data:
        raise ValueError(f"{path}: not an rbti repro file")
    try:
        ops = [(c, k) for c, k in data["ops"]]
    except (TypeError, ValueError):
        ops = None
    if ops is None or not all(isinstance(c, str) and type(k) is int
                              for c, k in ops):
        raise ValueError(f"{path}: not an rbti repro file (bad ops: each "
                         "is [COMMAND, INTEGER KEY])")
    data["ops"] = ops
    return data
