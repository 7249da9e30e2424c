# SPDX-License-Identifier: GPL-2.0
"""Parse the output of rbtree-bench / rbtree_bench.ko (format: kmod/bench/bench.h).

A run is a list of cells, one per (variant, operation, order, size,
repetition).  :func:`summarize` reduces the repetitions of each cell to a
median and a spread, and its ratio to the baseline variant; since the
variants run interleaved, the ratio is taken per repetition (variant and
baseline measured moments apart) and then reduced.  :func:`disagreements`
lists every cell whose result digest differs from the baseline's.
"""
from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

FORMAT_VERSION = 1
BASELINE = "open"
OPS = ("insert", "find_hit", "find_miss", "greater", "walk", "erase")
ORDERS = ("random", "sequential")
# Operations whose digest is known whatever the tree: nothing found, nothing left.
KNOWN_DIGESTS = {"find_miss": "0", "erase": "0"}
# What bench_cycle() reports when the passes of a repetition disagree.
BAD_DIGEST = "bad"


class BenchFormatError(ValueError):
    """A line of benchmark output that does not follow the format."""

    def __init__(self, lineno: int, line: str, why: str) -> None:
        super().__init__(f"line {lineno}: {why}: {line!r}")


@dataclass(frozen=True)
class Cell:
    """One timed operation of one repetition."""

    variant: str
    op: str
    order: str
    n: int
    rep: int
    ops: int
    time: int
    check: str

    @property
    def key(self) -> tuple[str, str, int]:
        """The cell's place in a table: operation, order, size."""
        return (self.op, self.order, self.n)


@dataclass
class Run:
    """A whole benchmark run."""

    meta: dict[str, str] = field(default_factory=dict)
    variants: list[str] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)

    @property
    def clock(self) -> str:
        """Unit of the cells' times: "ns" or "cycles"."""
        return self.meta.get("clock", "ns")


def parse_run(lines: Iterable[str]) -> Run:
    """Parse benchmark output; raise :class:`BenchFormatError` on bad input."""
    run = Run()
    seen_header = seen_end = False
    for lineno, raw in enumerate(lines, 1):
        line = raw.rstrip("\n")
        if not line.strip():
            continue
        words = line.split(" ")
        kind = words[0]
        if seen_end:
            raise BenchFormatError(lineno, line, "text after 'end'")
        if not seen_header:
            if words != ["rbtree-bench", str(FORMAT_VERSION)]:
                raise BenchFormatError(lineno, line, "expected header 'rbtree-bench 1'")
            seen_header = True
        elif kind == "meta" and len(words) >= 3:
            run.meta[words[1]] = " ".join(words[2:])
        elif kind == "variant" and len(words) == 2:
            run.variants.append(words[1])
        elif kind == "cell" and len(words) == 9:
            run.cells.append(_parse_cell(lineno, line, words[1:]))
        elif kind == "end" and len(words) == 1:
            seen_end = True
        else:
            raise BenchFormatError(lineno, line, f"unknown or malformed '{kind}' record")
    if not seen_end:
        raise BenchFormatError(0, "", "output ends without 'end' (benchmark cut short?)")
    return run


def _parse_cell(lineno: int, line: str, fields: list[str]) -> Cell:
    variant, op, order, n, rep, ops, time, check = fields
    if op not in OPS or order not in ORDERS:
        raise BenchFormatError(lineno, line, "unknown operation or order")
    try:
        int(check, 16)
        cell = Cell(variant, op, order, int(n), int(rep), int(ops), int(time), check)
    except ValueError as err:
        raise BenchFormatError(lineno, line, f"bad number ({err})") from None
    if cell.ops <= 0:
        raise BenchFormatError(lineno, line, "no operations timed")
    return cell


@dataclass(frozen=True)
class Summary:
    """Statistics of one cell over its repetitions."""

    variant: str
    op: str
    order: str
    n: int
    reps: int
    per_op: float  # median time per operation, in the run's clock unit
    per_op_min: float
    per_op_max: float
    ratio: float | None  # median of per-repetition ratios to the baseline
    ratio_min: float | None
    ratio_max: float | None

    @property
    def spread(self) -> float:
        """Range of the per-operation times, relative to the median."""
        return (self.per_op_max - self.per_op_min) / self.per_op if self.per_op else 0.0


def _by_cell(run: Run) -> dict[tuple[str, str, str, int], dict[int, Cell]]:
    cells: dict[tuple[str, str, str, int], dict[int, Cell]] = defaultdict(dict)
    for cell in run.cells:
        cells[(cell.variant, *cell.key)][cell.rep] = cell
    return cells


def summarize(run: Run, baseline: str = BASELINE) -> list[Summary]:
    """One :class:`Summary` per (variant, operation, order, size), in output order."""
    cells = _by_cell(run)
    out = []
    for (variant, op, order, n), reps in cells.items():
        per_op = [c.time / c.ops for c in reps.values()]
        base = cells.get((baseline, op, order, n), {})
        ratios = [c.time / base[r].time for r, c in reps.items()
                  if r in base and base[r].time > 0]
        out.append(Summary(
            variant, op, order, n, len(reps),
            statistics.median(per_op), min(per_op), max(per_op),
            statistics.median(ratios) if ratios else None,
            min(ratios) if ratios else None,
            max(ratios) if ratios else None))
    return out


def disagreements(run: Run, baseline: str = BASELINE) -> Iterator[str]:
    """Describe every result that differs from the baseline's, or is missing.

    A variant that lacks an operation the baseline has (mainline has no
    "greater") is not a disagreement; a missing repetition is.
    """
    cells = _by_cell(run)
    variants = run.variants or sorted({c.variant for c in run.cells})
    if baseline not in variants:
        yield f"baseline variant {baseline!r} missing from the run"
        return
    for (variant, op, order, n), reps in sorted(cells.items()):
        where = f"{variant} {op} {order} n={n}"
        base = cells.get((baseline, op, order, n))
        if base is None:
            yield f"{where}: baseline {baseline} has no such cell"
            continue
        if set(reps) != set(base):
            yield f"{where}: repetitions {sorted(reps)} != baseline's {sorted(base)}"
        for rep in sorted(set(reps) & set(base)):
            mine, theirs = reps[rep].check, base[rep].check
            if mine != theirs:
                yield f"{where} rep {rep}: digest {mine} != {baseline}'s {theirs}"
            if mine == BAD_DIGEST:
                yield f"{where} rep {rep}: passes of one repetition disagree"
            if op in KNOWN_DIGESTS and mine != KNOWN_DIGESTS[op]:
                yield f"{where} rep {rep}: digest {mine}, expected {KNOWN_DIGESTS[op]}"
    for variant in variants:
        if not any(c.variant == variant for c in run.cells):
            yield f"{variant}: no cells at all"


def digests(run: Run) -> dict[tuple[str, str, str, int, int], str]:
    """Digest of every cell, keyed by (variant, op, order, n, rep)."""
    return {(c.variant, c.op, c.order, c.n, c.rep): c.check for c in run.cells}


def cell_digests(run: Run) -> dict[tuple[str, str, str, int], str]:
    """Digest of every (variant, op, order, n), if all its repetitions agree
    ("mixed" if they do not); independent of repetitions and passes."""
    seen: dict[tuple[str, str, str, int], set[str]] = defaultdict(set)
    for c in run.cells:
        seen[(c.variant, c.op, c.order, c.n)].add(c.check)
    return {k: v.pop() if len(v) == 1 else "mixed" for k, v in seen.items()}
