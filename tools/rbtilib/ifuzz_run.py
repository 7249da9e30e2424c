# SPDX-License-Identifier: GPL-2.0
"""The interface fuzzer's guest side: running commands, deadlines, the
kernel log, reloading the module and shrinking by replay.

:func:`execute` runs one :class:`~.ifuzz.Cmd` (one open, one write(2),
reads to end of file) and returns the errno of the step that failed.
:func:`run_round` forks the writers (each its own seeded command list)
and the readers (``dump``, ``check``, ``stats``, ``trees`` of random
trees until the writers end); every process posts the command it is in
to a shared slot, and the parent fails a command that runs past the
deadline (which :func:`calibrate` scales by how slow the guest is).
Before each command a writer appends it to its journal (a file
of the host's output directory), so that a hang that kills the guest is
still attributable.  :func:`shrink_failure` replays a writer's list on
freshly loaded modules (rmmod, insmod between tries) to a 1-minimal
failing list (ddmin).
"""

import errno
import json
import mmap
import os
import random
import re
import signal
import struct
import subprocess
import sys
import time
from .record import factory, record

from .ifuzz import KILL_AFTER, Cmd, unexpected
from .ifuzz_script import line_of
from .shrink import ddmin

MODULE = "rbtree_inspector"
ROOT = "/sys/kernel/debug/rbtree_inspector"
PARAMS = f"/sys/module/{MODULE}/parameters"
DEFAULTS = {"allow_corrupt": "N", "max_nodes": "1048576",
            "max_total_nodes": "2097152", "max_dump_bytes": "268435456",
            "stress_seconds": "120"}
"""The module's parameters as loaded (DEBUGFS.md, "Module parameters")."""
SETUP = Cmd("w", "@stress_seconds", b"1")
"""Every list starts with it: a stress run lasts at most a second."""
CALIBRATION_READS = 400
"""Reads the calibration makes: ``trees``, then one tree's ``stats``,
``check`` and ``dump``, in turn."""
NOMINAL_SECONDS = 0.5
"""What the calibration takes in the debug guest (TCG) on a host that
runs nothing else (0.25 s for 200 reads on 2 cores, 6.1)."""
MAX_SLOWDOWN = 10.0
"""The most a deadline is scaled by: a command that hangs still fails
within ten times the deadline."""
REPORTS = re.compile(r"BUG:|WARNING:|Oops|KASAN|UBSAN|general protection|"
                     r"kernel BUG|INFO: task|lockdep|possible circular|"
                     r"suspicious RCU|watchdog:|rcu_sched|rcu_preempt|"
                     r"kmemleak|Call Trace")
SLOT = struct.Struct("ddd")          # busy, command index, start time
WORD = struct.Struct("d")


def errname(err: int) -> str:
    """The errno's name; EOPNOTSUPP (as DEBUGFS.md has it) for Linux's
    ENOTSUP, its alias."""
    if err == errno.EOPNOTSUPP:
        return "EOPNOTSUPP"
    return errno.errorcode.get(err, str(err))


def execute(cmd: Cmd, bufsize: int = 65536) -> tuple[str, str] | None:
    """Run *cmd*; None if every step succeeded, else (step, errno name)
    of the first that failed: step ``o`` (open), ``w`` or ``r``.  A short
    write is ``("w", "short")``.  The files are under :data:`ROOT` and
    :data:`PARAMS` (looked up at each call: tests point them elsewhere)."""
    path = os.path.join(PARAMS, cmd.path[1:]) if cmd.path.startswith("@") \
        else os.path.join(ROOT, cmd.path)
    if cmd.kind == "k":
        return _killed_write(path, cmd.data)
    mode = {"w": os.O_WRONLY, "r": os.O_RDONLY, "q": os.O_RDWR}[cmd.kind]
    try:
        fd = os.open(path, mode)
    except OSError as e:
        return "o", errname(e.errno)
    step = "w"
    try:
        if cmd.kind in "wq":
            if os.write(fd, cmd.data) != len(cmd.data):
                return "w", "short"
        step = "r"
        if cmd.kind in "rq":
            while os.read(fd, bufsize):
                pass
    except OSError as e:
        return step, errname(e.errno)
    finally:
        os.close(fd)
    return None


def _killed_write(path: str, data: bytes) -> tuple[str, str] | None:
    """Write *data* to *path* from a child, killed after KILL_AFTER
    seconds (a stress started, then stopped); None once it is reaped."""
    pid = os.fork()
    if pid == 0:
        try:
            os.write(os.open(path, os.O_WRONLY), data)
        finally:
            os._exit(0)
    time.sleep(KILL_AFTER)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return None


def calibrate(tree: str | None) -> tuple[float, float]:
    """How slow the guest is now: ``(factor, seconds)``, *seconds* the
    time :data:`CALIBRATION_READS` small reads of debugfs files (of
    *tree*, freshly loaded, if given) take, *factor* that over
    :data:`NOMINAL_SECONDS`, at least 1 and at most
    :data:`MAX_SLOWDOWN`: what a deadline is multiplied by.  A busy host
    stalls the guest, and its commands with it, for as long as it
    likes; the deadline stretches with the slowness measured in the same
    boot, and a hang still fails."""
    paths = ["trees"] + [f"{tree}/{name}" for name in ("stats", "check",
                                                       "dump") if tree]
    t0 = time.monotonic()
    for i in range(CALIBRATION_READS):
        execute(Cmd("r", paths[i % len(paths)]))
    secs = time.monotonic() - t0
    return min(MAX_SLOWDOWN, max(1.0, secs / NOMINAL_SECONDS)), secs


def bad_result(cmd: Cmd, res: tuple[str, str] | None) -> str | None:
    """Why *res* (of :func:`execute`) is a failure, or None."""
    if res is None:
        return None
    step, err = res
    if step == "o" or err == "short" or unexpected(cmd, step, err):
        return f"{err} on the {'open write read'.split()['owr'.index(step)]}"
    return None


class Kmsg:
    """New kernel log lines since the last :meth:`reports` (/dev/kmsg)."""

    def __init__(self) -> None:
        try:
            self.fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
            os.lseek(self.fd, 0, os.SEEK_END)
        except OSError:
            self.fd = None

    def reports(self) -> list[str]:
        """The lines logged since the last call that are kernel reports."""
        out = []
        while self.fd is not None:
            try:
                rec = os.read(self.fd, 8192).decode(errors="replace")
            except BlockingIOError:
                break
            except OSError as e:
                if e.errno == errno.EPIPE:        # overwritten: go on
                    continue
                break
            text = rec.split(";", 1)[-1].rstrip("\n")
            if REPORTS.search(text):
                out.append(text)
        return out


def run(argv: list[str], timeout: float = 60) -> tuple[int, str]:
    try:
        p = subprocess.run(argv, capture_output=True, text=True,
                           timeout=timeout)
        return p.returncode, (p.stdout + p.stderr).strip()
    except subprocess.TimeoutExpired:
        return 124, f"{argv[0]} timed out after {timeout} s"


def unload() -> str | None:
    """rmmod the module; None, or why it failed."""
    code, text = run(["rmmod", MODULE])
    return None if code == 0 else f"rmmod exit {code}: {text}"


def load(ko: str) -> str | None:
    code, text = run(["insmod", ko])
    return None if code == 0 else f"insmod exit {code}: {text}"


def reload(ko: str) -> str | None:
    """A fresh module: rmmod (if loaded), insmod; None or why not."""
    if os.path.isdir(f"/sys/module/{MODULE}"):
        why = unload()
        if why:
            return why
    return load(ko)


@record
class Outcome:
    """What a round found."""

    commands: int = 0
    reads: int = 0
    errnos: dict = factory(dict)
    failures: list = factory(list)   # (worker, index, why)
    hang: tuple | None = None                       # (worker, index, secs)
    stuck_pid: int = 0                              # the process that hung


def _slot(buf: mmap.mmap, i: int, busy: float, index: float) -> None:
    """Post process *i*'s state: the index and start first, busy last
    (each an aligned 8-byte store, seen in order on x86)."""
    off = i * SLOT.size
    if busy:
        WORD.pack_into(buf, off + 8, index)
        WORD.pack_into(buf, off + 16, time.monotonic())
    WORD.pack_into(buf, off, busy)


def _overdue(buf: mmap.mmap, i: int, deadline: float) -> tuple | None:
    """(index, seconds) if process *i* is in a command begun more than
    *deadline* seconds ago, seen the same on two reads."""
    off = i * SLOT.size
    first = SLOT.unpack_from(buf, off)
    time.sleep(0.01)
    second = SLOT.unpack_from(buf, off)
    busy, index, start = second
    secs = time.monotonic() - start
    if busy == 1 and first == second and start > 0 and secs > deadline:
        return int(index), secs
    return None


def _writer(i: int, cmds: list[Cmd], buf, journal: str | None,
            result: str) -> None:
    fails, counts = [], {}
    jfd = os.open(journal, os.O_WRONLY | os.O_CREAT | os.O_APPEND,
                  0o644) if journal else None
    for n, cmd in enumerate(cmds):
        if jfd is not None:
            os.write(jfd, f"{time.monotonic():.6f} {n} "
                     f"{line_of(cmd)[:200]}\n".encode())
        _slot(buf, i, 1, n)
        res = execute(cmd)
        _slot(buf, i, 0, n)
        key = f"{cmd.file} {res[1] if res else 'ok'}"
        counts[key] = counts.get(key, 0) + 1
        why = bad_result(cmd, res)
        if why:
            fails.append((n, f"{line_of(cmd)[:120]}: {why}"))
            if len(fails) >= 20:
                break
    with open(result, "w") as f:
        json.dump({"fails": fails, "counts": counts, "n": n + 1}, f)


def _reader(i: int, seed, trees: list[str], buf, result: str) -> None:
    rng = random.Random(seed)
    fails, n = [], 0
    while SLOT.unpack_from(buf, 0)[0] != 2:     # slot 0 busy 2: stop
        path = rng.choice(["trees"] + [f"{t}/{f}" for t in trees
                                       for f in ("dump", "check", "stats")])
        cmd = Cmd("r", path)
        _slot(buf, i, 1, n)
        res = execute(cmd, bufsize=rng.choice((64, 4096, 65536)))
        _slot(buf, i, 0, n)
        why = bad_result(cmd, res)
        if why:
            fails.append((n, f"r {path}: {why}"))
        n += 1
    with open(result, "w") as f:
        json.dump({"fails": fails[:20], "counts": {}, "n": n}, f)


def run_round(lists: list[list[Cmd]], trees: list[str], readers: int,
              seed, deadline: float, journal_dir: str | None,
              tmp: str, on_hang=None) -> Outcome:
    """Run the writers' *lists* and *readers* readers at once; the
    parent watches every process's command against *deadline* seconds.
    On a command past it, *on_hang(worker, index, seconds)* is called
    (it should report at once: the kernel may die soon) and the round
    returns without waiting for the stuck process."""
    nproc = 1 + len(lists) + readers          # slot 0: control
    buf = mmap.mmap(-1, SLOT.size * nproc)
    pids = {}
    for i in range(1, nproc):
        result = os.path.join(tmp, f"result-{i}.json")
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                if i <= len(lists):
                    journal = (os.path.join(journal_dir, f"journal-{i - 1}")
                               if journal_dir else None)
                    _writer(i, lists[i - 1], buf, journal, result)
                else:
                    _reader(i, f"{seed}:reader:{i}", trees, buf, result)
            except BaseException as e:        # noqa: B036 - report, exit
                print(f"# ifuzz: process {i}: {e!r}", file=sys.stderr)
                code = 3
            os._exit(code)
        pids[pid] = i
    out = Outcome()
    writers_left = len(lists)
    alive = dict(pids)
    while alive:
        time.sleep(0.1)
        for pid in list(alive):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                i = alive.pop(pid)
                if status:
                    out.failures.append((i - 1, -1,
                                         f"process {i} exit status {status}"))
                if i <= len(lists):
                    writers_left -= 1
        if writers_left == 0:
            WORD.pack_into(buf, 0, 2)
        for i in range(1, nproc):
            late = _overdue(buf, i, deadline) if i in alive.values() \
                else None
            if late:
                index, secs = late
                out.hang = (i - 1, index, secs)
                out.stuck_pid = next(p for p, j in alive.items() if j == i)
                if on_hang:
                    on_hang(i - 1, index, secs)
                for pid, j in alive.items():
                    if j != i:
                        os.kill(pid, signal.SIGKILL)
                return out
    for i in range(1, nproc):
        try:
            with open(os.path.join(tmp, f"result-{i}.json")) as f:
                res = json.load(f)
        except (OSError, ValueError):
            continue
        if i <= len(lists):
            out.commands += res["n"]
            for k, v in res["counts"].items():
                out.errnos[k] = out.errnos.get(k, 0) + v
        else:
            out.reads += res["n"]
        out.failures += [(i - 1, n, why) for n, why in res["fails"]]
    return out


def merged(lists: list[list[Cmd]], journal_dir: str) -> list[Cmd]:
    """Every writer's commands that began, in the order they began (by
    the times of their journals): the interleaving a hang came from."""
    began = []
    for w in range(len(lists)):
        try:
            with open(os.path.join(journal_dir, f"journal-{w}")) as f:
                for line in f:
                    t, n, _ = line.split(" ", 2)
                    began.append((float(t), w, int(n)))
        except (OSError, ValueError):
            continue
    return [lists[w][n] for _, w, n in sorted(began)]


def replay_fails(cmds: list[Cmd], ko: str, kind: str, match: str,
                 deadline: float) -> bool:
    """Replay *cmds* alone on a freshly loaded module: True if the
    failure *kind* shows (``errno``: a result *match* names; ``report``:
    a kernel report; ``unload``: rmmod fails)."""
    if reload(ko):
        return False
    kmsg = Kmsg()
    hit = False
    for cmd in cmds:
        why = bad_result(cmd, execute(cmd))
        if why and kind == "errno" and f"{cmd.file}: {why}" == match:
            hit = True
    if kind == "report" and kmsg.reports():
        hit = True
    if kind == "unload" and unload():
        hit = True
    return hit


def shrink_failure(cmds: list[Cmd], ko: str, kind: str, match: str,
                   deadline: float, max_tests: int,
                   budget: float) -> list[Cmd] | None:
    """The smallest list of *cmds* (their first stays: the setup) that
    still fails as *kind*/*match* on fresh modules, or None if the full
    list does not fail alone."""
    t0 = time.monotonic()
    body = cmds[1:]

    def fails(part: list) -> bool:
        if time.monotonic() - t0 > budget:
            return False
        return replay_fails(cmds[:1] + part, ko, kind, match, deadline)

    if not fails(body):
        return None
    return cmds[:1] + ddmin(body, fails, max_tests=max_tests)
