# SPDX-License-Identifier: GPL-2.0
"""Long writes give the CPU up: the largest writes (256 KiB: 131072
inserts, or 65536 ``ops`` lines) run their loops under the tree's mutex,
which must call cond_resched() now and then (rbti_cond_resched(), every
1024 steps).

The debug kernel is PREEMPT_VOLUNTARY: code in the kernel is not preempted,
so a loop without cond_resched() keeps its CPU until the write returns.
A SCHED_FIFO process pinned to the writer's CPU wakes every 2 ms: each
cond_resched() of the loop lets it run once (its timer has long expired:
1024 steps take 20-60 ms on the TCG guest), so it must wake at least once
per 2048 steps of the write (half the cond_resched() calls), or once per
8 ms of it if the machine is faster than that.  A count, not a time: a
busy host stalls the whole guest and stretches every wait, but cannot
take wake-ups away.  The longest wait is reported as a figure.

Measured without the cond_resched() calls (6.1 debug guest, TCG): the
65536 erases hold the CPU 1.3-3.5 s, and the ticker wakes 6 times instead
of 32 or more.  The insert writes allocate their nodes before taking the
lock (and the allocator gives the CPU up), so only the erase batch is
sure to fail without the fix.  A write too short to expect 8 wake-ups is
a skip.  Lockdep and every other detector must stay quiet (run-in-guest's
check of the kernel log).
"""

import os
import select
import time

from rbtilib.driver import Debugfs, TreeInfo

from . import files
from .tap import Reporter

CPU = 0
"""The CPU the writer and the ticker share."""
TICK = 0.002
"""The ticker's sleep (seconds)."""
MIN_WAKEUPS = 8
"""Fewest wake-ups a write must let us expect to tell anything."""
WRITES = (
    # file, what, steps under the lock, data
    ("insert", "131072 inserts", 131072, b"1 " * 131072),
    ("ops", "65536 inserts", 65536, b"i 1\n" * 65536),
    ("ops", "65536 erases", 65536, b"e 1\n" * 65536),
)
NODES_AFTER = 131072
TREES = ("santos_dup", "overstreet_dup")


def run(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo],
        trees: tuple = TREES) -> None:
    """Every long write on each of *trees* (equal-key trees: every insert
    of key 1 adds a node), watched by the ticker."""
    names = {info.name for info in infos}
    affinity = os.sched_getaffinity(0)
    try:
        os.sched_setaffinity(0, {CPU})
        for tree in trees:
            if tree not in names:
                rep.ok(False, f"{tree}: no such tree")
                continue
            dfs.clear(tree)
            for fname, what, steps, data in WRITES:
                _watched_write(rep, dfs, tree, fname, what, steps, data)
            rep.ok(dfs.stats(tree).get("count") == NODES_AFTER
                   and dfs.check(tree).ok,
                   f"{tree}: after them, {NODES_AFTER} nodes and a valid "
                   "tree")
            dfs.clear(tree)
    finally:
        os.sched_setaffinity(0, affinity)


def _watched_write(rep: Reporter, dfs: Debugfs, tree: str, fname: str,
                   what: str, steps: int, data: bytes) -> None:
    """One write of *data* (*steps* under the lock) to *fname*, with the
    ticker on the same CPU."""
    ticker = Ticker()
    try:
        t0 = time.monotonic()
        got = files.write(dfs.path(tree, fname), data)
        took = time.monotonic() - t0
    finally:
        wakeups, wait = ticker.stop()
    rep.count("long writes watched")
    want = min(steps // 2048, int(took / (4 * TICK)))
    rep.note(f"{tree} {fname} {what}: {took:.3f} s, {wakeups} wake-ups "
             f"(at least {want}), longest wait {wait * 1000:.1f} ms")
    desc = (f"{tree}: one 256 KiB {fname} write of {what} lets a task on "
            "its CPU run every 2048 steps")
    if got == "ok" and want < MIN_WAKEUPS:
        rep.skip(desc, f"the write took {took:.3f} s, too short to expect "
                 f"{MIN_WAKEUPS} wake-ups")
        return
    rep.ok(got == "ok" and wakeups >= want, desc,
           [f"write: {got}, {took:.3f} s; the ticker woke {wakeups} times "
            f"during it, at least {want} expected"])


class Ticker:
    """A child process on CPU, SCHED_FIFO, waking every TICK seconds; it
    reports how often it woke and the longest time past its tick that it
    had to wait."""

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

    def stop(self) -> tuple[int, float]:
        """End the ticker: its wake-ups, and the longest wait (seconds)."""
        os.close(self.stop_w)
        out = b""
        while chunk := os.read(self.res_r, 64):
            out += chunk
        os.close(self.res_r)
        os.waitpid(self.pid, 0)
        try:
            wakeups, wait = out.decode().split()
            return int(wakeups), float(wait)
        except ValueError:
            return 0, float("inf")


def _tick(stop: int, res: int) -> int:
    """The child's loop: sleep TICK until *stop* closes; write the result."""
    worst = 0.0
    wakeups = 0
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
            wakeups += 1
        os.write(res, f"{wakeups} {worst:.6f}".encode())
        return 0
    except OSError:
        return 1
