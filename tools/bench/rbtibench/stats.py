# SPDX-License-Identifier: GPL-2.0
"""Paired ratios, bootstrap confidence intervals and the noise floor.

Variants run interleaved, so a variant's time in repetition r is compared
with the baseline's in the same repetition: the statistic of a cell is the
median of those paired ratios, and its 95 % interval the percentile
bootstrap of that median over repetitions.
"""
from __future__ import annotations

import statistics
import zlib
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass

from .results import Cell

CONFIDENCE = 0.95
RESAMPLES = 2000


@dataclass(frozen=True)
class Ratio:
    """A variant's time relative to another's in one cell."""

    ratio: float
    lo: float
    hi: float
    reps: int

    @property
    def half_width(self) -> float:
        """Largest distance from the ratio to an end of its interval, relative."""
        return max(self.hi - self.ratio, self.ratio - self.lo) / self.ratio

    def excludes(self, floor: float) -> bool:
        """The interval lies wholly outside 1 +- @floor."""
        return self.lo > 1 + floor or self.hi < 1 - floor


def bootstrap_median(values: list[float], seed: int = 1,
                     resamples: int = RESAMPLES) -> tuple[float, float, float]:
    """(median, lo, hi): the median and its percentile-bootstrap interval."""
    import numpy as np

    med = statistics.median(values)
    if len(values) < 2:
        return med, med, med
    rng = np.random.default_rng(seed)
    arr = np.asarray(values, dtype=float)
    meds = np.median(arr[rng.integers(0, len(arr), (resamples, len(arr)))], axis=1)
    tail = 100 * (1 - CONFIDENCE) / 2
    lo, hi = np.percentile(meds, [tail, 100 - tail])
    return med, float(lo), float(hi)


def per_op(cells: Iterable[Cell]) -> dict[tuple[str, str, str, int], list[float]]:
    """Time per operation of every repetition, by (variant, op, order, n)."""
    out: dict[tuple[str, str, str, int], list[float]] = defaultdict(list)
    for c in sorted(cells, key=lambda c: c.rep):
        out[(c.variant, c.op, c.order, c.n)].append(c.time / c.ops)
    return out


def paired(cells: Iterable[Cell], variant: str, baseline: str
           ) -> dict[tuple[str, str, int], list[float]]:
    """Per (op, order, n): @variant's time over @baseline's, per repetition."""
    times: dict[tuple[str, str, str, int], dict[int, int]] = defaultdict(dict)
    for c in cells:
        if c.variant in (variant, baseline):
            times[(c.variant, c.op, c.order, c.n)][c.rep] = c.time
    out = {}
    for (v, op, order, n), reps in times.items():
        if v != variant:
            continue
        base = times.get((baseline, op, order, n), {})
        ratios = [t / base[r] for r, t in sorted(reps.items()) if base.get(r)]
        if ratios:
            out[(op, order, n)] = ratios
    return out


def ratios(cells: list[Cell], variant: str, baseline: str
           ) -> dict[tuple[str, str, int], Ratio]:
    """Median paired ratio and its bootstrap interval, per (op, order, n)."""
    out = {}
    for key, values in paired(cells, variant, baseline).items():
        med, lo, hi = bootstrap_median(values, seed=zlib.crc32(repr((variant, baseline, key)).encode()))
        out[key] = Ratio(med, lo, hi, len(values))
    return out


def noise_floor(cells: list[Cell], pairs: Iterable[tuple[str, str, str]]
                ) -> tuple[dict[int, float], list[tuple[str, str, str, str, int, Ratio]]]:
    """Per tree size, the largest distance from 1 of the median ratio of
    code timed against identical code; and every such cell:
    (a, b, op, order, n, ratio).  Per size because what moves identical
    code apart -- its placement, what ran before it -- weighs most when
    everything is in the L1 cache and least when misses dominate."""
    floor: dict[int, float] = {}
    seen = []
    for a, b, op in pairs:
        for (cop, order, n), r in ratios(cells, a, b).items():
            if cop == op:
                seen.append((a, b, op, order, n, r))
                floor[n] = max(floor.get(n, 0.0), abs(r.ratio - 1))
    return floor, seen
