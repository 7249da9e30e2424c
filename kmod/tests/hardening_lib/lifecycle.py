# SPDX-License-Identifier: GPL-2.0
"""Load/unload cycles, unloading under fire and with files held open, and
the final kmemleak scan.

What debugfs in 6.1 does with a held file (fs/debugfs/file.c): opening a
file takes a reference on the module that owns its file_operations
(``fops_get``), so while any inspector file is open delete_module(2)
fails with EWOULDBLOCK (EAGAIN) and the open descriptors keep working;
after the last close the module unloads.  Directories and sysfs
parameter files do not pin the module: after the unload a held directory
descriptor finds nothing (ENOENT) and a held parameter file reads ENODEV.
"""

import json
import os
import random
import time

from rbtilib.driver import Debugfs, TreeInfo

from . import files, forms, kernel, procs
from .tap import Reporter

UNLOAD_PATIENCE = 30.0
"""Seconds of delete_module retries while another process holds files."""

DEFAULTS = {"max_nodes": {"1048576"}, "max_total_nodes": {"2097152"},
            "allow_corrupt": {"0", "N"}}
"""The module's parameter defaults (DEBUGFS.md; a bool reads N)."""


def expect_gone(dfs: Debugfs) -> list[str]:
    """Problems if any trace of the module is left after unloading."""
    bad = []
    if kernel.loaded():
        bad.append("still in /proc/modules")
    if os.path.exists(dfs.root):
        bad.append(f"{dfs.root} still exists")
    if os.path.exists(kernel.SYSFS):
        bad.append(f"{kernel.SYSFS} still exists")
    return bad


def reload(ko: str, params: str = "") -> list[str]:
    """Unload (if loaded) and load *ko* with *params*; return problems."""
    bad = []
    if kernel.loaded():
        got = kernel.unload()
        if got != "ok":
            return [f"unload: {got}"]
    got = kernel.load(ko, params)
    if got != "ok":
        bad.append(f"load {params!r}: {got}")
    return bad


def populate(dfs: Debugfs, infos: list[TreeInfo], rng: random.Random,
             nkeys: int) -> int:
    """Insert *nkeys* random distinct keys into every tree; return nodes."""
    total = 0
    for info in infos:
        keys = rng.sample(range(-(1 << 40), 1 << 40), nkeys)
        dfs.insert(info.name, keys, forms.values(info, keys))
        total += nkeys
    return total


def cycles(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo], ko: str,
           count: int, nkeys: int) -> None:
    """*count* unload/load cycles, each unloading populated trees."""
    rng = random.Random(100)
    bad = []
    freed = 0
    t0 = time.monotonic()
    names = [i.name for i in infos]
    for n in range(count):
        freed += sum(dfs.stats(name)["count"] for name in names)
        got = kernel.unload()
        if got != "ok":
            bad.append(f"cycle {n}: unload: {got}")
            break
        gone = expect_gone(dfs)
        if gone:
            bad += [f"cycle {n}: after unload: {g}" for g in gone]
        got = kernel.load(ko)
        if got != "ok":
            bad.append(f"cycle {n}: load: {got}")
            break
        if not set(names) <= {i.name for i in dfs.trees()}:
            bad.append(f"cycle {n}: trees are {dfs.trees()}")
        if n % 10 == 0:
            for name in names:
                stats = dfs.stats(name)
                if stats["count"] or dfs.read(name, "check") != "ok\n":
                    bad.append(f"cycle {n}: {name} not empty and ok after "
                               f"load: {stats}")
        populate(dfs, infos, rng, nkeys)
    seconds = time.monotonic() - t0
    rep.count("load/unload cycles", count)
    rep.count("nodes freed by unloading", freed)
    rep.expect(bad, f"{count} unload/load cycles, each unloading populated "
               f"trees ({freed} nodes freed in all, {seconds:.0f} s)")


def with_params(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo],
                ko: str) -> None:
    """Load-time parameters: max_nodes=5 enforced, then defaults again."""
    bad = reload(ko, "max_nodes=5")
    if not bad:
        if kernel.get_param("max_nodes") != "5":
            bad.append(f"max_nodes reads {kernel.get_param('max_nodes')}")
        for info in infos:
            got = [files.write(dfs.path(info.name, "insert"),
                               forms.keys_text(info, [1, 2, 3, 4, 5])),
                   files.write(dfs.path(info.name, "insert"),
                               forms.keys_text(info, [6]))]
            if got != ["ok", "ENOSPC"]:
                bad.append(f"{info.name}: 5 keys then 1: {got}")
    bad += reload(ko)
    if not bad:
        params = {p: kernel.get_param(p) for p in DEFAULTS}
        if any(v not in DEFAULTS[p] for p, v in params.items()):
            bad.append(f"parameters after a plain load: {params}")
    rep.expect(bad, "load with max_nodes=5: the sixth node is ENOSPC; a "
               "plain load restores the default parameters")


def _hammer(dfs: Debugfs, infos: list[TreeInfo], stop_path: str) -> str:
    """Open, write, read and close inspector files until *stop_path*
    exists; return JSON counts of every outcome."""
    rng = random.Random(os.getpid())
    seen: dict = {}
    n = 0
    while not os.path.exists(stop_path):
        info = rng.choice(infos)
        name = info.name
        key = rng.randrange(1 << 30)
        what = rng.randrange(3)
        try:
            if what == 0:
                out = dfs.ops(name, "".join(forms.op(info, w, key) + "\n"
                                            for w in "ife"))
                got = "ok" if len(out.splitlines()) == 3 else f"bad {out!r}"
            elif what == 1:
                got = files.read(dfs.path(name, "dump"))[0]
            else:
                got = files.write(dfs.path(name, "find"), str(key).encode())
                got = "ok" if got == "ENOENT" else got
        except OSError as e:
            got = kernel.errname(e.errno or 0)
        seen[got] = seen.get(got, 0) + 1
        n += 1
    return json.dumps(seen)


def unload_under_fire(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo],
                      ko: str, count: int, tmpdir: str) -> None:
    """Unload/load while another process uses the files nonstop."""
    stop = os.path.join(tmpdir, "hardening-stop")
    if os.path.exists(stop):
        os.unlink(stop)
    child = procs.start(lambda: _hammer(dfs, infos, stop))
    bad = []
    busy = 0
    try:
        for n in range(count):
            time.sleep(0.05)
            give_up = time.monotonic() + UNLOAD_PATIENCE
            while True:
                got = kernel.unload()
                if got != "EAGAIN" or time.monotonic() > give_up:
                    break
                busy += 1
                time.sleep(0.001 * random.random())
            if got != "ok":
                bad.append(f"round {n}: unload: {got}")
                break
            time.sleep(0.05)
            got = kernel.load(ko)
            if got != "ok":
                bad.append(f"round {n}: load: {got}")
                break
    finally:
        with open(stop, "w"):
            pass
        status, text = procs.collect(*child, time.monotonic() + 120)
        os.unlink(stop)
    try:
        seen = json.loads(text) if status == 0 else {}
    except ValueError:
        seen = {}
    if status != 0:
        bad.append(f"hammer process: status {status}: {text[-300:]}")
    allowed = {"ok", "ENOENT", "ENXIO"}
    odd = {k: v for k, v in seen.items() if k not in allowed}
    if odd:
        bad.append(f"hammer saw unexpected outcomes {odd}")
    if not seen.get("ENOENT") and not seen.get("ENXIO"):
        bad.append(f"hammer never saw the files gone: {seen}")
    rep.count("load/unload cycles", count)
    rep.expect(bad, f"{count} unload/load rounds while a process opens, "
               f"writes and reads files nonstop: unload is EAGAIN while it "
               f"holds a file ({busy} times), the process sees only "
               f"ok/ENOENT/ENXIO ({seen})")


def held_open(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo],
              ko: str) -> None:
    """delete_module while files are held open, then after closing them."""
    name = infos[0].name
    dfs.clear(name)
    dfs.insert(name, list(range(2000)))
    base = kernel.refcnt()
    fds = {
        "insert": os.open(dfs.path(name, "insert"), os.O_WRONLY),
        "dump": os.open(dfs.path(name, "dump"), os.O_RDONLY),
        "ops": os.open(dfs.path(name, "ops"), os.O_RDWR),
        "find": os.open(dfs.path(name, "find"), os.O_RDWR),
    }
    bad = []
    head = os.read(fds["dump"], 100)          # a dump half read
    files.write_fd(fds["ops"], b"i 5000\n")
    files.write_fd(fds["find"], b"5")
    if kernel.refcnt() != base + len(fds):
        bad.append(f"refcnt {kernel.refcnt()} with {len(fds)} files open, "
                   f"{base} before")
    got = kernel.unload()
    if got == "ok":
        # The module is gone but its files are still open: the close below
        # runs their release method, which was freed with the module.
        rep.ok(False, "held files: delete_module succeeded with files open "
               "(debugfs fops without .owner = THIS_MODULE?)",
               [f"reads now give {files.read_fd(fds['dump'])[0]}"])
        for fd in fds.values():
            os.close(fd)
        kernel.load(ko)
        return
    if got != "EAGAIN":
        bad.append(f"unload with files open: {got}, expected EAGAIN")
    if not kernel.loaded():
        bad.append("module not Live after the refused unload")
    inserted = files.write_fd(fds["insert"], b"5001")
    rest = files.read_fd(fds["dump"])
    res = [inserted, rest[0], files.read_fd(fds["ops"])[0],
           files.write_fd(fds["find"], b"5001")]
    if res != ["ok"] * 4:
        bad.append(f"held descriptors after the refused unload: {res}")
    if not head.startswith(f"tree {name}\n".encode()) or \
            not head.endswith(b"\n"):
        bad.append(f"dump head {head!r} (whole lines expected)")
    # The tree changed between the two reads of that dump.
    if rest[1] != b"error stale\n":
        bad.append(f"rest of the half-read dump {rest[1][:80]!r}, "
                   "expected error stale")
    for fd in fds.values():
        os.close(fd)
    if kernel.refcnt() != base:
        bad.append(f"refcnt {kernel.refcnt()} after closing, {base} before")
    got = kernel.unload()
    if got != "ok":
        bad.append(f"unload after closing: {got}")
    rep.expect(bad, f"{len(fds)} files held open (a dump half read, then "
               "error stale after an insert, ops "
               "with results): unload -> EAGAIN, module live, every held "
               "descriptor still works; after closing them unload succeeds")
    if kernel.loaded():
        return
    bad = reload(ko)
    dirfd = os.open(os.path.join(dfs.root, name), os.O_RDONLY)
    param = os.open(os.path.join(kernel.PARAMS, "max_nodes"), os.O_RDONLY)
    got = kernel.unload()
    if got != "ok":
        bad.append(f"unload with a directory and a parameter open: {got}")
    try:
        os.close(os.open("dump", os.O_RDONLY, dir_fd=dirfd))
        bad.append("openat(held directory, dump) succeeded after unload")
    except OSError as e:
        if kernel.errname(e.errno or 0) != "ENOENT":
            bad.append(f"openat(held directory, dump): {e}")
    try:
        os.pread(param, 64, 0)
        bad.append("read of a held parameter file succeeded after unload")
    except OSError as e:
        if kernel.errname(e.errno or 0) != "ENODEV":
            bad.append(f"read of a held parameter file: {e}")
    os.close(dirfd)
    os.close(param)
    rep.expect(bad, "a held tree directory and parameter file do not pin "
               "the module: unload succeeds, then openat() -> ENOENT and "
               "the parameter read -> ENODEV, closing is harmless")


def kmemleak(rep: Reporter) -> None:
    """With the module unloaded, kmemleak must find nothing."""
    if not kernel.kmemleak_available():
        rep.ok(False, "kmemleak: /sys/kernel/debug/kmemleak is missing "
               "(the debug kernel is required)")
        return
    report = kernel.kmemleak_scan()
    leaks = report.count("unreferenced object")
    rep.count("kmemleak leaks found", leaks)
    rep.ok(not report.strip(), "kmemleak scan after unloading: no "
           "unreferenced object", report.splitlines())
