# SPDX-License-Identifier: GPL-2.0
"""Memory: the max_nodes limit (ENOSPC) and allocation failure (ENOMEM).

Allocation failure is injected with failslab, two ways:

- ``/proc/thread-self/fail-nth``: the N-th fault-injection site this
  thread passes fails.  For N = 1, 2, ... the same write is retried until
  it no longer reaches an N-th site, so every allocation the write makes
  is failed once (with kmemleak on, every slab allocation is followed by
  kmemleak's own, whose failure the kernel absorbs: those writes succeed).
- failslab's ``probability`` 100, ``times`` 1, ``task-filter`` Y and this
  thread's ``make-it-fail``: the first allocation of the write fails.

A failed write must return ENOMEM and leave the tree byte for byte as it
was; a write that succeeds must have applied everything.  A failed read
of ``dump``, ``check`` or ``stats`` must return ENOMEM and nothing else,
and the next read on the same descriptor the whole text.  Leaks on the
error paths are caught by the final kmemleak scan (lifecycle).
"""

import os

from rbtilib.driver import Debugfs, TreeInfo

from . import files
from .kernel import FailNth, Failslab, MakeItFail, Param
from .tap import Reporter

MAX_SITES = 400
"""Give up on a write that still reaches an N-th site past this."""


def max_nodes(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo],
              limit: int) -> None:
    """ENOSPC at the limit through insert and ops; nothing applied."""
    with Param("max_nodes", str(limit)):
        for info in infos:
            rep.expect(_max_nodes_tree(dfs, info, limit),
                       f"{info.name}: max_nodes {limit}: insert and ops "
                       "stop at the limit with ENOSPC, nothing applied")
        rep.count("bad inputs tried", 6 * len(infos))
    bad = []
    for info in infos:
        dfs.clear(info.name)
        keys = list(range(limit + 1))
        got = files.write(dfs.path(info.name, "insert"),
                          " ".join(map(str, keys)).encode())
        if got != "ok":
            bad.append(f"{info.name}: {limit + 1} keys after restoring "
                       f"max_nodes: {got}")
        dfs.clear(info.name)
    rep.expect(bad, "max_nodes restored: the limit is gone again")


def _max_nodes_tree(dfs: Debugfs, info: TreeInfo, limit: int) -> list[str]:
    name = info.name
    bad = []
    dfs.clear(name)
    dfs.insert(name, list(range(limit - 5)))
    new = [str(k).encode() for k in range(1000, 1006)]

    def step(fname: str, data: bytes, want: str) -> None:
        before = files.snapshot(dfs, name)
        if fname == "ops":
            fd = files.ops_fd(dfs.path(name, "ops"))
            try:
                got = files.write_fd(fd, data)
            finally:
                os.close(fd)
        else:
            got = files.write(dfs.path(name, fname), data)
        if got != want:
            bad.append(f"{fname} {data[:40]!r}: {got}, expected {want}")
        if want != "ok":
            bad.extend(files.diff(before, files.snapshot(dfs, name)))

    step("insert", b" ".join(new), "ENOSPC")           # 6 > 5 free
    step("ops", b"\n".join(b"i " + k for k in new), "ENOSPC")
    step("insert", b" ".join(new[:5]), "ok")           # exactly full
    step("insert", new[5], "ENOSPC")
    step("ops", b"i " + new[5], "ENOSPC")
    step("ops", b"e 0\ni " + new[5], "ENOSPC")        # "could" exceed
    step("ops", b"f 1\nn 1\n", "ok")                   # no insert: fine
    step("erase", b"0", "ok")
    step("ops", b"i " + new[5], "ok")
    snap = files.snapshot(dfs, name)
    if len(snap.keys()) != limit:
        bad.append(f"{len(snap.keys())} nodes at the end, expected {limit}")
    bad += files.problems(snap)
    dfs.clear(name)
    return bad


def failslab(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo],
             nkeys: int) -> None:
    """Every allocation of an insert and of an ops write, failed in turn."""
    if not Failslab.available():
        rep.ok(False, "failslab: /sys/kernel/debug/failslab is missing "
               "(CONFIG_FAILSLAB, CONFIG_FAULT_INJECTION_DEBUG_FS)")
        return
    with Failslab() as slab:
        nth = FailNth()
        try:
            for info in infos:
                for kind in ("insert", "ops"):
                    rep.expect(*_each_site(rep, dfs, info, kind, nkeys, nth))
            for info in infos:
                for fname in READ_FILES:
                    rep.expect(*_each_read_site(rep, dfs, info, fname, nth))
            # A dump naming a pointer it did not follow (a corrupted
            # parent) sorts the tree's nodes by address: one more site.
            with Param("allow_corrupt", "1"):
                info = infos[0]
                rep.expect(*_each_read_site(rep, dfs, info, "dump", nth,
                                            corrupt="parent 4"))
        finally:
            nth.close()
        for info in infos:
            rep.expect(_task_filter(dfs, info, slab, nkeys),
                       f"{info.name}: failslab probability 100, times 1, "
                       "task-filter + make-it-fail: insert -> ENOMEM, tree "
                       "unchanged, the failure was used")


def _batch(kind: str, keys: list[int]) -> bytes:
    if kind == "insert":
        return " ".join(map(str, keys)).encode()
    lines = [f"i {k}" for k in keys]
    lines += [f"f {keys[0]}", f"n {keys[0]}", f"e {keys[-1]}"]
    return "\n".join(lines).encode() + b"\n"


def _each_site(rep: Reporter, dfs: Debugfs, info: TreeInfo, kind: str,
               nkeys: int, nth: FailNth) -> tuple[list[str], str]:
    """Fail site 1, 2, ... of one write; return (problems, description)."""
    name = info.name
    dfs.clear(name)
    dfs.insert(name, list(range(0, 40, 2)))
    keys = list(range(1, 2 * nkeys, 2))
    data = _batch(kind, keys)
    applied = keys if kind == "insert" else keys[:-1]
    bad = []
    enomem = 0
    site = 0
    path = dfs.path(name, kind)
    while site < MAX_SITES:
        site += 1
        before = files.snapshot(dfs, name)
        fd = os.open(path, os.O_RDWR if kind == "ops" else os.O_WRONLY)
        try:
            nth.arm(site)
            got = files.write_fd(fd, data)
            fired = nth.disarm()
            results = files.read_fd(fd) if kind == "ops" else ("ok", b"")
        finally:
            os.close(fd)
        rep.count("injected allocation failures", int(fired))
        after = files.snapshot(dfs, name)
        if got == "ENOMEM":
            enomem += 1
            bad += [f"site {site}: ENOMEM but {d}"
                    for d in files.diff(before, after)]
            if kind == "ops" and results[0] != "ENODATA":
                bad.append(f"site {site}: results after ENOMEM: {results}")
            continue
        if got != "ok":
            bad.append(f"site {site}: {got}, expected ENOMEM or ok")
            break
        want = sorted(before.keys() + applied)
        if after.keys() != want:
            bad.append(f"site {site}: write succeeded but the keys are "
                       f"{after.keys()}, expected {want}")
        if kind == "ops" and len(results[1].splitlines()) != len(keys) + 3:
            bad.append(f"site {site}: write succeeded but results are "
                       f"{results}")
        bad += [f"site {site}: {p}" for p in files.problems(after)]
        for k in applied:
            dfs.erase(name, k)
        if files.snapshot(dfs, name).items() != before.items():
            bad.append(f"site {site}: cannot restore the tree")
        if not fired or bad:
            break
    else:
        bad.append(f"the write still reaches site {MAX_SITES}")
    if not enomem:
        bad.append("no injected failure gave ENOMEM")
    dfs.clear(name)
    return bad, (f"{name}: {kind} of {nkeys} keys with allocation site "
                 f"1..{site - 1} failed in turn: {enomem} x ENOMEM, tree "
                 "unchanged each time, applied whole otherwise")


READ_FILES = ("dump", "check", "stats")


def _comparable(fname: str, text: bytes) -> bytes:
    """*text* without what changes between two reads of an unchanged tree:
    stats' ``dump_lines`` grows each time a dump text is built."""
    if fname != "stats":
        return text
    return b"".join(line for line in text.splitlines(keepends=True)
                    if not line.startswith(b"dump_lines "))


def _each_read_site(rep: Reporter, dfs: Debugfs, info: TreeInfo, fname: str,
                    nth: FailNth, corrupt: str = "") -> tuple[list[str], str]:
    """Fail site 1, 2, ... of a read of *fname*, each on a fresh open."""
    name = info.name
    dfs.clear(name)
    dfs.insert(name, list(range(0, 40, 2)))
    if corrupt:
        dfs.corrupt(name, corrupt)
    path = dfs.path(name, fname)
    before = files.snapshot(dfs, name)
    with open(path, "rb") as f:
        want = _comparable(fname, f.read())
    bad = []
    enomem = 0
    site = 0
    while site < MAX_SITES:
        site += 1
        fd = os.open(path, os.O_RDONLY)
        try:
            nth.arm(site)
            got, data = files.read_fd(fd)
            fired = nth.disarm()
            again = files.read_fd(fd) if got == "ENOMEM" else None
        finally:
            os.close(fd)
        rep.count("injected allocation failures", int(fired))
        if got == "ENOMEM":
            enomem += 1
            if data:
                bad.append(f"site {site}: ENOMEM after {len(data)} bytes")
            if again is None or again[0] != "ok" or \
                    _comparable(fname, again[1]) != want:
                bad.append(f"site {site}: the read after ENOMEM gave "
                           f"{again and again[0]}, not the whole text")
        elif got != "ok":
            bad.append(f"site {site}: {got}, expected ENOMEM or ok")
        elif _comparable(fname, data) != want:
            bad.append(f"site {site}: read succeeded with another text")
        bad += [f"site {site}: {d}"
                for d in files.diff(before, files.snapshot(dfs, name))]
        if not fired or bad:
            break
    else:
        bad.append(f"the read still reaches site {MAX_SITES}")
    if not enomem:
        bad.append("no injected failure gave ENOMEM")
    dfs.clear(name)
    what = f"{corrupt} corrupted, " if corrupt else ""
    return bad, (f"{name}: {what}read of {fname} with allocation site "
                 f"1..{site - 1} failed in turn: {enomem} x ENOMEM and "
                 "nothing else, the next read whole, tree unchanged")


def _task_filter(dfs: Debugfs, info: TreeInfo, slab: Failslab,
                 nkeys: int) -> list[str]:
    name = info.name
    dfs.clear(name)
    dfs.insert(name, [0, 2, 4])
    before = files.snapshot(dfs, name)
    fd = os.open(dfs.path(name, "insert"), os.O_WRONLY)
    make_it_fail = MakeItFail()
    try:
        slab.arm_task(1)
        with make_it_fail:
            got = files.write_fd(fd, _batch("insert", list(range(1, nkeys))))
        left = slab.disarm_task()
    finally:
        os.close(fd)
    bad = [] if got == "ENOMEM" else [f"insert gave {got}, expected ENOMEM"]
    if left != 0:
        bad.append(f"failslab times is {left}: the failure was not used")
    bad += files.diff(before, files.snapshot(dfs, name))
    dfs.clear(name)
    return bad
