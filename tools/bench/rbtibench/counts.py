# SPDX-License-Identifier: GPL-2.0
"""Deterministic counts per operation, from valgrind's cache and branch
simulator (cachegrind's, run as callgrind for its client requests: the
benchmark zeroes the counters before each operation and dumps them after,
``rbtree-bench -c``; valgrind 3.19's cachegrind has no such requests).

These do not move with machine noise.  The simulated caches are fixed
(:data:`CACHES`) so that runs on different machines compare; the branch
predictor is valgrind's (2-bit counters, a simple indirect-target table,
no return stack): the cost that retpolines and safe RET add by defeating
return prediction shows in time, their instructions show here.
"""
from __future__ import annotations

import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from . import proc

# A Zen-like hierarchy, fixed: 32 KiB I1, 48 KiB D1, 32 MiB LL.
CACHES = ["--I1=32768,8,64", "--D1=49152,12,64", "--LL=33554432,16,64"]
VALGRIND_LIMIT = 1800
"""Seconds one binary's run under callgrind may take (every variant and
operation at the count sizes, some 50 times slower than natively)."""
EVENTS = ("Ir", "Bc", "Bcm", "Bi", "Bim", "D1m", "LLm")


@dataclass(frozen=True)
class Counts:
    """Events of one operation over a whole set, per operation."""

    variant: str
    op: str
    order: str
    n: int
    per_op: dict[str, float]


def parse_dump(text: str) -> Counts | None:
    """The cell and its counts from one callgrind dump, or None if the dump
    is not a cell's (the final dump at exit)."""
    trigger = re.search(r"^desc: Trigger: Client Request: cell (\S+) (\S+) (\S+) (\d+)$",
                        text, re.M)
    events = re.search(r"^events: (.*)$", text, re.M)
    totals = re.search(r"^(?:totals|summary): (.*)$", text, re.M)
    if not (trigger and events and totals):
        return None
    values = dict(zip(events.group(1).split(), map(int, totals.group(1).split())))
    variant, op, order, n = trigger.groups()
    n = int(n)
    derived = {
        "Ir": values.get("Ir", 0), "Bc": values.get("Bc", 0),
        "Bcm": values.get("Bcm", 0), "Bi": values.get("Bi", 0),
        "Bim": values.get("Bim", 0),
        "D1m": values.get("D1mr", 0) + values.get("D1mw", 0),
        "LLm": values.get("DLmr", 0) + values.get("DLmw", 0),
    }
    return Counts(variant, op, order, n, {k: v / n for k, v in derived.items()})


def measure(binary: Path, sizes: list[int], seed: int = 1) -> list[Counts]:
    """Run @binary once under callgrind with the cache and branch simulators
    (one repetition after a warm-up, one pass per cell) and read its dumps."""
    with tempfile.TemporaryDirectory(prefix="rbti-cg-") as tmp:
        out = Path(tmp) / "cg.out"
        proc.run(["valgrind", "--tool=callgrind", "--cache-sim=yes",
                  "--branch-sim=yes", *CACHES, f"--callgrind-out-file={out}",
                  str(binary), "-c", "-n", ",".join(map(str, sizes)),
                  "-r", "1", "-m", "1", "-s", str(seed)],
                 VALGRIND_LIMIT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        found = [parse_dump(p.read_text(errors="replace"))
                 for p in sorted(Path(tmp).glob("cg.out.*"))]
    return [c for c in found if c is not None]
