# SPDX-License-Identifier: GPL-2.0
"""Every program the benchmark runs, under a time limit."""

from __future__ import annotations

import os
import signal
import subprocess

GRACE = 10
"""Seconds between SIGTERM and SIGKILL."""


class TimedOut(subprocess.SubprocessError):
    """A program ran past its limit (and was stopped)."""


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def run(cmd: list[str], limit: float, **kwargs) -> subprocess.CompletedProcess:
    """subprocess.run(cmd, **kwargs) with a time limit.

    The program runs in a process group of its own; at *limit* seconds the
    group gets SIGTERM, GRACE s later SIGKILL (so no child of it is left
    holding a pipe), and TimedOut is raised.  It is stopped the same way if
    this process is interrupted meanwhile.  check=True is the default.
    """
    check = kwargs.pop("check", True)
    stdin = kwargs.pop("input", None)
    if kwargs.pop("capture_output", False):
        kwargs.setdefault("stdout", subprocess.PIPE)
        kwargs.setdefault("stderr", subprocess.PIPE)
    if stdin is not None:
        kwargs["stdin"] = subprocess.PIPE
    with subprocess.Popen(cmd, process_group=0, **kwargs) as proc:
        try:
            out, err = proc.communicate(stdin, timeout=limit)
        except BaseException as e:
            _signal_group(proc, signal.SIGTERM)
            try:
                proc.communicate(timeout=GRACE)
            except subprocess.TimeoutExpired:
                _signal_group(proc, signal.SIGKILL)
                proc.communicate()
            if isinstance(e, subprocess.TimeoutExpired):
                raise TimedOut(f"{cmd[0]} did not finish in {limit:g} s and "
                               "was stopped") from None
            raise
    done = subprocess.CompletedProcess(cmd, proc.returncode, out, err)
    if check:
        done.check_returncode()
    return done
