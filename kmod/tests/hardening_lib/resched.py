# SPDX-License-Identifier: GPL-2.0
"""Long writes give the CPU up: the largest writes (256 KiB: 131072
inserts, or 65536 ``ops`` lines) run their loops under the tree's mutex,
which must call cond_resched() now and then (rbti_cond_resched(), every
1024 steps).

The debug kernel is PREEMPT_VOLUNTARY: code in the kernel is not preempted,
so a loop without cond_resched() keeps its CPU until the write returns.
The soft-lockup detector is set to its shortest threshold here
(watchdog_thresh 1: a report after 2 s, which panics the debug guest and
fails the run).  It also measures the wait directly: a SCHED_FIFO process
pinned to the writer's CPU wakes every 2 ms and records the longest time it
had to wait, which must stay under MAX_WAIT.  With cond_resched() that is
about 1024 steps (40-120 ms on the TCG guest); without it, the whole
locked loop.

Measured without the cond_resched() calls (6.1 debug guest, TCG): the
locked parts of the insert writes take about 0.3 s (their nodes are
allocated before the lock), within MAX_WAIT, so they only guard against
worse; 65536 erases hold the CPU for 1.3-3.5 s, and the soft-lockup
detector panics the guest ("CPU#0 stuck for 3s").  So the erase batch is
the one that fails without the fix; if it takes under LONG_ENOUGH (a
machine too fast for it to matter) its result is a skip.  Lockdep and
every other detector must stay quiet (run-in-guest's check of the kernel
log).
"""

import os
import select
import time

from rbtilib.driver import Debugfs, TreeInfo

from . import files
from .tap import Reporter

WATCHDOG = "/proc/sys/kernel/watchdog_thresh"
CPU = 0
"""The CPU the writer and the ticker share."""
TICK = 0.002
"""The ticker's sleep (seconds)."""
MAX_WAIT = 0.5
"""Longest wait past its tick the ticker may see (seconds): 4 times the
worst seen with cond_resched(), a third of the erase loop without it."""
LONG_ENOUGH = 1.0
"""Shortest write that makes the test mean something (seconds)."""
WRITES = (
    # file, what, data, must it take LONG_ENOUGH to tell
    ("insert", "131072 inserts", b"1 " * 131072, False),
    ("ops", "65536 inserts", b"i 1\n" * 65536, False),
    ("ops", "65536 erases", b"e 1\n" * 65536, True),
)
NODES_AFTER = 131072
TREES = ("santos_dup", "overstreet_dup")


def run(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo]) -> None:
    """Every long write on each equal-key tree, watched by the ticker."""
    names = {info.name for info in infos}
    with open(WATCHDOG) as f:
        saved = f.read().strip()
    affinity = os.sched_getaffinity(0)
    try:
        with open(WATCHDOG, "w") as f:
            f.write("1")
        os.sched_setaffinity(0, {CPU})
        for tree in TREES:
            if tree not in names:
                rep.ok(False, f"{tree}: no such tree")
                continue
            dfs.clear(tree)
            for fname, what, data, long in WRITES:
                _watched_write(rep, dfs, tree, fname, what, data, long)
            rep.ok(dfs.stats(tree).get("count") == NODES_AFTER
                   and dfs.check(tree).ok,
                   f"{tree}: after them, {NODES_AFTER} nodes and a valid "
                   "tree")
            dfs.clear(tree)
    finally:
        os.sched_setaffinity(0, affinity)
        with open(WATCHDOG, "w") as f:
            f.write(saved)
    with open(WATCHDOG) as f:
        back = f.read().strip()
    rep.ok(back == saved and int(saved) > 1,
           f"watchdog_thresh set back to {saved} (more than the 1 s used)")


def _watched_write(rep: Reporter, dfs: Debugfs, tree: str, fname: str,
                   what: str, data: bytes, long: bool) -> None:
    """One write of *data* to *fname*, with the ticker on the same CPU;
    if *long*, a write shorter than LONG_ENOUGH is a skip."""
    ticker = Ticker()
    try:
        t0 = time.monotonic()
        got = files.write(dfs.path(tree, fname), data)
        took = time.monotonic() - t0
    finally:
        wait = ticker.stop()
    rep.count("long writes watched")
    rep.note(f"{tree} {fname} {what}: {took:.3f} s, longest wait "
             f"{wait * 1000:.1f} ms")
    desc = (f"{tree}: one 256 KiB {fname} write of {what}: the CPU given "
            f"up within {MAX_WAIT * 1000:.0f} ms")
    if got == "ok" and long and took < LONG_ENOUGH:
        rep.skip(desc, f"the write took {took:.3f} s, under the "
                 f"{LONG_ENOUGH} s that can tell a loop that never gives "
                 "the CPU up")
        return
    rep.ok(got == "ok" and wait <= MAX_WAIT, desc,
           [f"write: {got}, {took:.3f} s; longest wait of a task on its "
            f"CPU: {wait * 1000:.1f} ms"])


class Ticker:
    """A child process on CPU, SCHED_FIFO, waking every TICK seconds; it
    reports the longest time past its tick that it had to wait."""

    def __init__(self) -> None:
        self.stop_r, self.stop_w = os.pipe()
        self.res_r, res_w = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            os.close(self.stop_w)
            os.close(self.res_r)
            os._exit(_tick(self.stop_r, res_w))
        os.close(self.stop_r)
        os.close(res_w)
        # Ready: the child is on its CPU, at its priority, ticking.
        os.read(self.res_r, 1)

    def stop(self) -> float:
        """End the ticker; the longest wait it saw (seconds)."""
        os.close(self.stop_w)
        out = b""
        while chunk := os.read(self.res_r, 64):
            out += chunk
        os.close(self.res_r)
        os.waitpid(self.pid, 0)
        try:
            return float(out.decode())
        except ValueError:
            return float("inf")


def _tick(stop: int, res: int) -> int:
    """The child's loop: sleep TICK until *stop* closes; write the result."""
    worst = 0.0
    try:
        os.sched_setaffinity(0, {CPU})
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
        os.write(res, b"r")
        while True:
            t0 = time.monotonic()
            ready, _, _ = select.select([stop], [], [], TICK)
            worst = max(worst, time.monotonic() - t0 - TICK)
            if ready:
                break
        os.write(res, f"{worst:.6f}".encode())
        return 0
    except OSError:
        return 1
