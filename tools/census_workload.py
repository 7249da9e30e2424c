# SPDX-License-Identifier: GPL-2.0
"""A workload that fills the kernel's trees, for tools/census-tests.

Each part runs in its own child process until killed: threads blocked
on a priority-inheritance mutex (the owner's ``pi_waiters``, the lock's
``waiters``), sleepers and interval timers (hrtimer queues, the posix CPU
timers), vmalloc churn (init_module()'s buffer), an epoll instance over
pipes, processes sharing a file mapping (``address_space.i_mmap``) and
forked anonymous memory (``anon_vma``), and walks of /sys and /proc
(kernfs and procfs nodes, proc inodes).  Linux x86-64 only; the guest's.
"""

import ctypes
import mmap
import os
import random
import select
import signal
import threading
import time

PTHREAD_PRIO_INHERIT = 1
NR_INIT_MODULE = 175        # x86_64


def pi_waiters(threads: int = 3) -> None:
    """One thread holds a PI mutex; *threads* others block on it (in the
    kernel: FUTEX_LOCK_PI, rt_mutex waiters); every few seconds it lets
    go and takes it again, so the waiters change."""
    libc = ctypes.CDLL(None, use_errno=True)
    attr = ctypes.create_string_buffer(64)
    mutex = ctypes.create_string_buffer(64)
    libc.pthread_mutexattr_init(attr)
    libc.pthread_mutexattr_setprotocol(attr, PTHREAD_PRIO_INHERIT)
    libc.pthread_mutex_init(mutex, attr)

    def waiter() -> None:
        while True:
            libc.pthread_mutex_lock(mutex)
            time.sleep(0.01)
            libc.pthread_mutex_unlock(mutex)

    def holder() -> None:
        while True:
            libc.pthread_mutex_lock(mutex)
            time.sleep(2.0)
            libc.pthread_mutex_unlock(mutex)
            time.sleep(0.05)
    for fn in [holder] + [waiter] * threads:
        threading.Thread(target=fn, daemon=True).start()
    while True:
        time.sleep(60)


def timers() -> None:
    """Sleepers of several lengths and a CPU-time interval timer."""
    signal.signal(signal.SIGPROF, lambda *a: None)
    signal.setitimer(signal.ITIMER_PROF, 0.05, 0.05)
    for delay in (0.003, 0.5, 30.0):
        threading.Thread(target=lambda d=delay: [time.sleep(d)
                                                 for _ in iter(int, 1)],
                         daemon=True).start()
    while True:
        end = time.monotonic() + 0.002
        while time.monotonic() < end:
            pass
        time.sleep(0.05)


def vmalloc() -> None:
    """init_module() vmallocs its buffer before copying it in; a NULL
    buffer fails the copy (EFAULT) and vfrees it."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long
    while True:
        size = random.choice((64 << 10, 256 << 10, 1 << 20))
        libc.syscall(NR_INIT_MODULE, ctypes.c_void_p(0),
                     ctypes.c_ulong(size), b"")
        time.sleep(0.05)


def epoll_pipes(pipes: int = 8) -> None:
    """An epoll instance over the read ends of pipes, written to."""
    ep = select.epoll()
    ends = [os.pipe() for _ in range(pipes)]
    for r, _ in ends:
        ep.register(r, select.EPOLLIN)
    while True:
        r, w = random.choice(ends)
        os.write(w, b"x")
        for fd, _ in ep.poll(0.05):
            os.read(fd, 64)
        time.sleep(0.02)


def shared_maps(path: str, procs: int = 4) -> None:
    """*procs* processes mapping pieces of one file MAP_SHARED (vmas in
    its i_mmap) and touching forked anonymous memory (anon_vmas)."""
    with open(path, "wb") as f:
        f.truncate(1 << 20)
    fd = os.open(path, os.O_RDWR)
    anon = mmap.mmap(-1, 1 << 16)
    anon[:1] = b"a"
    for i in range(procs):
        if os.fork() == 0:
            maps = [mmap.mmap(fd, 1 << 16, offset=(i * j % 16) << 16)
                    for j in range(1, 4)]
            anon[:1] = bytes([i])
            while True:
                for m in maps:
                    m[:1] = b"y"
                time.sleep(0.5)
    maps = [mmap.mmap(fd, 1 << 20)]
    while True:
        maps[0][:1] = b"z"
        time.sleep(1)


def walks() -> None:
    """Walk /sys and /proc again and again."""
    while True:
        for top in ("/sys/devices", "/sys/kernel", "/proc/sys", "/proc"):
            for n, (_, dirs, _) in enumerate(os.walk(top)):
                if n > 50:
                    break
                if top == "/proc":
                    dirs[:] = [d for d in dirs if not d.isdigit()][:20]
            time.sleep(1)


def start(tmpdir: str) -> list:
    """Start every part; returns their pids (see stop())."""
    parts = [(pi_waiters, ()), (timers, ()), (vmalloc, ()),
             (epoll_pipes, ()),
             (shared_maps, (os.path.join(tmpdir, "census-shared"),)),
             (walks, ())]
    pids = []
    for fn, args in parts:
        pid = os.fork()
        if pid == 0:
            try:
                os.setpgid(0, 0)
                fn(*args)
            finally:
                os._exit(0)
        pids.append(pid)
    return pids


FUTEX = 202                 # x86_64
FUTEX_LOCK_PI = (6, 13)     # FUTEX_LOCK_PI, FUTEX_LOCK_PI2
FUTEX_CMD_MASK = 0x7f       # less FUTEX_PRIVATE_FLAG, FUTEX_CLOCK_REALTIME


def pi_blocked(pid: int) -> int:
    """How many threads of process *pid* are blocked in FUTEX_LOCK_PI (each
    in its lock owner's pi_waiters), from /proc/PID/task/TID/syscall."""
    n = 0
    try:
        tids = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return 0
    for tid in tids:
        try:
            with open(f"/proc/{pid}/task/{tid}/syscall") as f:
                words = f.read().split()
        except OSError:
            continue
        try:
            if len(words) > 2 and int(words[0]) == FUTEX and \
                    int(words[2], 16) & FUTEX_CMD_MASK in FUTEX_LOCK_PI:
                n += 1
        except ValueError:
            continue
    return n


def ready(pids: list, timeout: float) -> str | None:
    """Wait, at most *timeout* seconds, until the parts started by
    :func:`start` show what the census looks for: a thread of the PI part
    blocked on its mutex (the part's threads start after its fork and run
    when the scheduler lets them: a busy machine may take seconds).  None
    when it does, else what is still missing."""
    end = time.monotonic() + timeout
    while True:
        if pi_blocked(pids[0]) > 0:
            return None
        if time.monotonic() >= end:
            return (f"after {timeout:.0f} s no thread of the PI part (pid "
                    f"{pids[0]}) is blocked on its mutex")
        time.sleep(0.1)


def stop(pids: list) -> None:
    """Kill each part and its children (each part is its own group)."""
    for pid in pids:
        try:
            os.killpg(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
