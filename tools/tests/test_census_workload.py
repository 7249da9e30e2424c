# SPDX-License-Identifier: GPL-2.0
"""tools/census_workload.py's readiness by state: the census tests wait
until a thread of its PI part is blocked on the mutex (FUTEX_LOCK_PI, so
in its owner's pi_waiters), not for a fixed time alone."""

import os
import signal

import census_workload


def _fork(fn):
    pid = os.fork()
    if pid == 0:
        try:
            os.setpgid(0, 0)
            fn()
        finally:
            os._exit(0)
    return pid


def _stop(pid):
    os.killpg(pid, signal.SIGKILL)
    os.waitpid(pid, 0)


def test_the_pi_part_is_ready_once_a_thread_blocks_on_its_mutex():
    pid = _fork(census_workload.pi_waiters)
    try:
        assert census_workload.ready([pid], 30) is None
        assert census_workload.pi_blocked(pid) >= 1
    finally:
        _stop(pid)


def test_a_part_that_blocks_on_nothing_is_not_ready_and_says_so():
    pid = _fork(lambda: signal.pause())
    try:
        assert census_workload.pi_blocked(pid) == 0
        why = census_workload.ready([pid], 0.3)
        assert why and f"pid {pid}" in why and "blocked" in why
    finally:
        _stop(pid)


def test_a_process_gone_has_no_blocked_thread():
    pid = _fork(lambda: None)
    os.waitpid(pid, 0)
    assert census_workload.pi_blocked(pid) == 0
