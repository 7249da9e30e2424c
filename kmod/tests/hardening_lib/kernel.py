# SPDX-License-Identifier: GPL-2.0
"""The guest kernel's side: loading the module, its parameters, kmemleak
and slab fault injection.

Loading and unloading use the finit_module(2) and delete_module(2)
system calls directly (through ctypes), so that every failure comes back
as its exact errno and no tool is forked 100 times under TCG.
"""

import ctypes
import errno
import os
import platform
import time
from dataclasses import dataclass, field

MODULE = "rbtree_inspector"
SYSFS = f"/sys/module/{MODULE}"
PARAMS = f"{SYSFS}/parameters"
DEBUGFS = "/sys/kernel/debug"
KMEMLEAK = f"{DEBUGFS}/kmemleak"
FAILSLAB = f"{DEBUGFS}/failslab"
FAIL_NTH = "/proc/thread-self/fail-nth"
MAKE_IT_FAIL = "/proc/thread-self/make-it-fail"

KMEMLEAK_MIN_AGE = 5.0
"""kmemleak reports no object younger than this (seconds)."""

_SYSCALLS = {"x86_64": (313, 176)}    # finit_module, delete_module
_libc = ctypes.CDLL(None, use_errno=True)


def _syscall_numbers() -> tuple[int, int]:
    try:
        return _SYSCALLS[platform.machine()]
    except KeyError:
        raise RuntimeError(f"no syscall numbers for {platform.machine()}") \
            from None


def errname(err: int) -> str:
    """``EINVAL`` for errno.EINVAL; ``ok`` for 0."""
    return "ok" if err == 0 else errno.errorcode.get(err, str(err))


def load(path: str, params: str = "") -> str:
    """finit_module(2) *path* with *params*; ``ok`` or the errno's name."""
    nr, _ = _syscall_numbers()
    fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        ret = _libc.syscall(nr, ctypes.c_int(fd),
                            ctypes.c_char_p(params.encode()), ctypes.c_int(0))
        return "ok" if ret == 0 else errname(ctypes.get_errno())
    finally:
        os.close(fd)


def unload(name: str = MODULE) -> str:
    """delete_module(2), non-blocking; ``ok`` or the errno's name."""
    _, nr = _syscall_numbers()
    ret = _libc.syscall(nr, ctypes.c_char_p(name.encode()),
                        ctypes.c_uint(os.O_NONBLOCK))
    return "ok" if ret == 0 else errname(ctypes.get_errno())


def loaded(name: str = MODULE) -> bool:
    """True if /proc/modules lists *name* as Live."""
    with open("/proc/modules") as f:
        for line in f:
            fields = line.split()
            if fields[0] == name:
                return fields[4] == "Live"
    return False


def refcnt(name: str = MODULE) -> int:
    """The module's reference count (open debugfs files hold one each)."""
    with open(f"/sys/module/{name}/refcnt") as f:
        return int(f.read())


def holders(name: str = MODULE) -> list[str]:
    """Modules that depend on *name* (they block its unloading)."""
    try:
        return os.listdir(f"/sys/module/{name}/holders")
    except FileNotFoundError:
        return []


def get_param(name: str) -> str:
    """A module parameter's value."""
    with open(os.path.join(PARAMS, name)) as f:
        return f.read().strip()


def set_param(name: str, value: str) -> None:
    """Write a module parameter (OSError on failure)."""
    fd = os.open(os.path.join(PARAMS, name), os.O_WRONLY)
    try:
        os.write(fd, value.encode())
    finally:
        os.close(fd)


class Param:
    """Context manager: set a module parameter, restore it on exit."""

    def __init__(self, name: str, value: str) -> None:
        self.name, self.value = name, value
        self.saved = ""

    def __enter__(self) -> "Param":
        self.saved = get_param(self.name)
        set_param(self.name, self.value)
        return self

    def __exit__(self, *exc) -> None:
        set_param(self.name, self.saved)


def kmemleak_available() -> bool:
    """True if the kernel has kmemleak (the debug flavour)."""
    return os.path.exists(KMEMLEAK)


def kmemleak_scan() -> str:
    """Wait out kmemleak's minimum age, scan, and return its report.

    The report lists every unreferenced object found so far; empty means
    no leak.
    """
    time.sleep(KMEMLEAK_MIN_AGE + 1.0)
    with open(KMEMLEAK, "w") as f:
        f.write("scan")
    with open(KMEMLEAK) as f:
        return f.read()


@dataclass
class Failslab:
    """Context manager: make failslab quiet and able to fail GFP_KERNEL.

    On entry: ``verbose`` 0 (no "FAULT_INJECTION" message, no stack dump:
    the harness fails a run on any ``Call Trace:``), ``ignore-gfp-wait`` N
    (failslab skips sleeping allocations by default, and the module's are
    GFP_KERNEL), and ``probability`` 0, so that nothing fails except what
    :class:`FailNth` or :meth:`arm_task` asks for.  Every setting touched
    is restored on exit.
    """

    root: str = FAILSLAB
    saved: dict = field(default_factory=dict)

    KNOBS = ("verbose", "ignore-gfp-wait", "probability", "times",
             "interval", "space", "task-filter")

    @staticmethod
    def available(root: str = FAILSLAB) -> bool:
        """True if failslab's debugfs directory exists."""
        return os.path.isdir(root)

    def _path(self, knob: str) -> str:
        return os.path.join(self.root, knob)

    def get(self, knob: str) -> str:
        """A failslab setting."""
        with open(self._path(knob)) as f:
            return f.read().strip()

    def set(self, knob: str, value: str) -> None:
        """Change a failslab setting (saved first, for restoring)."""
        if knob not in self.saved:
            self.saved[knob] = self.get(knob)
        with open(self._path(knob), "w") as f:
            f.write(value)

    def __enter__(self) -> "Failslab":
        self.set("verbose", "0")
        self.set("probability", "0")
        self.set("ignore-gfp-wait", "N")
        return self

    def arm_task(self, times: int) -> None:
        """Fail the next *times* slab allocations of tasks that have
        make-it-fail set (probability 100, task-filter Y)."""
        self.set("task-filter", "Y")
        self.set("interval", "1")
        self.set("space", "0")
        self.set("times", str(times))
        self.set("probability", "100")

    def disarm_task(self) -> int:
        """Stop failing; return how many of the armed failures are left."""
        self.set("probability", "0")
        return int(self.get("times"))

    def __exit__(self, *exc) -> None:
        # Probability first: nothing may fail while the rest is restored.
        for knob in sorted(self.saved, key=lambda k: k != "probability"):
            with open(self._path(knob), "w") as f:
                f.write(self.saved[knob])
        self.saved.clear()


class MakeItFail:
    """Context manager: this thread's make-it-fail flag, set then cleared.

    Both writes go through descriptors opened beforehand, so that no slab
    allocation of ours other than the one under test can be failed.
    """

    def __init__(self) -> None:
        self.fd = os.open(MAKE_IT_FAIL, os.O_WRONLY | os.O_CLOEXEC)

    def __enter__(self) -> "MakeItFail":
        os.write(self.fd, b"1")
        return self

    def __exit__(self, *exc) -> None:
        os.write(self.fd, b"0")
        os.close(self.fd)


class FailNth:
    """``/proc/thread-self/fail-nth``: fail exactly the N-th fault-injection
    site this thread passes, whatever failslab's probability says.

    Each slab allocation passes one site; with kmemleak on, kmemleak's own
    bookkeeping allocation right after it passes another (its failure only
    makes kmemleak fall back to its reserve pool).
    """

    def __init__(self) -> None:
        self.fd = os.open(FAIL_NTH, os.O_RDWR | os.O_CLOEXEC)

    def arm(self, nth: int) -> None:
        """Fail the *nth* site from now on."""
        os.write(self.fd, str(nth).encode())

    def disarm(self) -> bool:
        """Cancel; return True if the armed failure happened."""
        left = int(os.pread(self.fd, 32, 0))
        os.write(self.fd, b"0")
        return left == 0

    def close(self) -> None:
        """Close the control file (disarming first)."""
        os.write(self.fd, b"0")
        os.close(self.fd)
