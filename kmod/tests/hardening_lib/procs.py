# SPDX-License-Identifier: GPL-2.0
"""Forked helper processes that report back one text over a pipe."""

import os
import signal
import sys
import time
import traceback
from typing import Callable


def start(fn: Callable[[], str]) -> tuple[int, int]:
    """Fork; the child runs *fn* and writes its result to a pipe.

    Returns (pid, read end).  The child never returns into the caller:
    it exits 0 after writing the result, 1 after writing a traceback.
    """
    rfd, wfd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(rfd)
        status = 0
        try:
            text = fn()
        except BaseException:
            text = traceback.format_exc()
            status = 1
        try:
            data = text.encode()
            while data:
                data = data[os.write(wfd, data):]
        finally:
            os._exit(status)
    os.close(wfd)
    return pid, rfd


def collect(pid: int, rfd: int, deadline: float | None = None) -> \
        tuple[int, str]:
    """Read a child's result and reap it: (exit status, text).

    Past *deadline* (time.monotonic()) the child is killed (SIGKILL, by
    its pid) and the status is -9.
    """
    parts = []
    os.set_blocking(rfd, deadline is None)
    while True:
        if deadline is not None and time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            break
        try:
            chunk = os.read(rfd, 1 << 16)
        except BlockingIOError:
            time.sleep(0.2)
            continue
        if not chunk:
            break
        parts.append(chunk)
    os.close(rfd)
    _, status = os.waitpid(pid, 0)
    code = os.waitstatus_to_exitcode(status)
    return code, b"".join(parts).decode(errors="replace")


def in_child(fn: Callable[[], str]) -> tuple[int, str]:
    """Run *fn* in a forked child and wait for it: (status, text)."""
    return collect(*start(fn))
