# SPDX-License-Identifier: GPL-2.0
"""Bad input, the sizes and limits part (HARDENING.md, table 1): writes of
every size around the 256 KiB limit, numbers at and past the s64 bounds,
the accepted spellings of a number, huge and wrong-direction accesses,
small and fresh reads. The harness (:class:`~.badinput.Bench`, the
baseline, the per-file tests) is :mod:`.badinput`.
"""

import errno
import mmap
import os

from rbtilib.driver import Debugfs, TreeInfo

from . import files, forms
from .badinput import (ACCEPTED, BASELINE, HUGE_MAPPED, KEY_FILES,
                       MAP_NORESERVE, READ_ONLY, S64_MAX, S64_MIN, TOO_BIG,
                       WRITE_LIMIT, WRITE_ONLY, Bench)
from .kernel import errname
from .tap import Reporter


def _huge_zero_buffer(size: int):
    """A read-only view of *size* bytes of untouched anonymous memory."""
    return mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS
                     | MAP_NORESERVE, prot=mmap.PROT_READ)


def sizes(bench: Bench) -> None:
    """E2BIG above 256 KiB on every writable file; 256 KiB itself is fine."""
    names = KEY_FILES + ("clear", "ops", "corrupt")
    for size in TOO_BIG:
        for name in names:
            unit = b"f 10\n" if name == "ops" else b"1 "
            data = (unit * (size // len(unit) + 1))[:size]
            bench.attempt(name, data, "E2BIG", f"{size}-byte write")
    huge = _huge_zero_buffer(HUGE_MAPPED)
    try:
        for name in names:
            bench.attempt(name, huge, "E2BIG",
                          f"{HUGE_MAPPED >> 20} MiB write of NULs")
    finally:
        huge.close()
    exact_limit(bench)


def exact_limit(bench: Bench) -> None:
    """Writes of exactly 256 KiB are accepted and applied whole."""
    bad = []
    pad = b" " * (WRITE_LIMIT - 3) + b"10\n"
    for info in bench.infos:
        got = files.write(bench.path(info.name, "find"), pad)
        if got != "ok":
            bad.append(f"{info.name}: find, 256 KiB: {got}")
        # 2000 keys with a long run of blanks in the middle, 256 KiB in all.
        keys = [str(k) for k in range(100000, 102000)]
        head = " ".join(keys[:1000]).encode()
        tail = " ".join(keys[1000:]).encode() + b"\n"
        data = head + b" \t" * ((WRITE_LIMIT - len(head) - len(tail)) // 2)
        data = data + b" " * (WRITE_LIMIT - len(data) - len(tail)) + tail
        assert len(data) == WRITE_LIMIT
        got = files.write(bench.path(info.name, "insert"), data)
        if got != "ok":
            bad.append(f"{info.name}: insert, 256 KiB with {len(keys)} "
                       f"keys: {got}")
        else:
            snap = files.snapshot(bench.dfs, info.name)
            want = sorted(BASELINE + [int(k) for k in keys])
            if snap.keys() != want:
                bad.append(f"{info.name}: after 256 KiB insert: "
                           f"{len(snap.keys())} keys, want {len(want)}")
            bad += [f"{info.name}: {p}" for p in files.problems(snap)]
        bench.reset(info.name)
    bench.rep.expect(bad, "find and insert: a write of exactly 256 KiB is "
                     "accepted and applied whole")


def boundaries(bench: Bench) -> None:
    """Write boundaries: a command split over two writes is two commands;
    pwrite at any offset is a write; the position does not move."""
    bad = []
    for info in bench.infos:
        name = info.name
        path = bench.path(name, "insert")
        fd = os.open(path, os.O_WRONLY)
        try:
            got = [files.write_fd(fd, b"77"), files.write_fd(fd, b"88\n")]
            got += [files.write_fd(fd, b"-"), files.write_fd(fd, b"66")]
            for i, off in enumerate((1, 4095, 4097, (1 << 40) + 3)):
                got.append(files.write_fd(fd, str(62 + i).encode(), off))
            got.append(files.write_fd(fd, b"99", -1))
            try:
                pos = os.lseek(fd, 0, os.SEEK_CUR)
            except OSError:
                pos = 0         # not seekable: nothing to advance
        finally:
            os.close(fd)
        bench.rep.count("bad inputs tried", 9)
        want = ["ok", "ok", "EINVAL", "ok", "ok", "ok", "ok", "ok", "EINVAL"]
        if got != want:
            bad.append(f"{name}: outcomes {got}, expected {want}")
        if pos != 0:
            bad.append(f"{name}: file position {pos} after writes")
        keys = files.snapshot(bench.dfs, name).keys()
        want_keys = sorted(BASELINE + [77, 88, 66, 62, 63, 64, 65])
        if keys != want_keys:
            extra = sorted(set(keys) ^ set(want_keys))
            bad.append(f"{name}: keys differ from the expected by {extra}")
        bench.reset(name)
    bench.rep.expect(bad, "insert: '77' + '88' is two keys, '-' + '66' is "
                     "EINVAL then 66, pwrite at offsets 1, 4095, 4097, 2^40+3"
                     " inserts, offset -1 EINVAL, position stays 0")
    bad = []
    for info in bench.infos:
        fd = files.ops_fd(bench.path(info.name, "ops"))
        try:
            out = []
            for line, off in ((b"i 71\n", None), (b"f 71\n", 3),
                              (b"e 71\n", 1 << 33)):
                got = files.write_fd(fd, line, off)
                files.rewind(fd)
                res = files.read_fd(fd)
                out.append((got, res[0], res[1].decode().split()[:1]))
        finally:
            os.close(fd)
        want = [("ok", "ok", ["ok"]), ("ok", "ok", ["found"]),
                ("ok", "ok", ["erased"])]
        if out != want:
            bad.append(f"{info.name}: {out}, expected {want}")
        bad += [f"{info.name}: {p}" for p in
                files.problems(files.snapshot(bench.dfs, info.name))]
        bench.reset(info.name)
    bench.rep.expect(bad, "ops: three one-line batches on one fd (two by "
                     "pwrite at odd offsets) each run and each read back")
    bad = []
    for info in bench.infos:
        fd = files.ops_fd(bench.path(info.name, "ops"))
        try:
            got = files.write_fd(fd, b"\n\n i 73 \n\t\n\nf 73\t\ne 73")
            res = files.read_fd(fd)
        finally:
            os.close(fd)
        words = [line.split()[0] for line in res[1].decode().splitlines()]
        if (got, res[0], words) != ("ok", "ok", ["ok", "found", "erased"]):
            bad.append(f"{info.name}: {got}, {res}")
        if files.snapshot(bench.dfs, info.name).items() != \
                bench.base[info.name].items():
            bad.append(f"{info.name}: contents differ after i/e 73")
        bench.reset(info.name)
    bench.rep.expect(bad, "ops: blank lines, tabs and a last line "
                     "without newline: three ops run")


def accepted_forms(bench: Bench) -> None:
    """Valid key spellings: find reports the key they denote."""
    for desc, data, key in ACCEPTED:
        bad = []
        for info in bench.infos:
            base = dict((k, i) for k, i in
                        reversed(bench.base[info.name].items()))
            got = files.write(bench.path(info.name, "find"), data)
            res = files.read(bench.path(info.name, "find"))
            want = ("ok", "ok", f"{base[key]} {key}")
            have = (got, res[0], res[1].decode(errors="replace").strip())
            if have != want:
                bad.append(f"{info.name}: {have}, expected {want}")
            bad += bench.unchanged(info.name)
        bench.rep.count("valid inputs tried", len(bench.infos))
        bench.rep.expect(bad, f"find: {desc} {data[:24]!r} is key {key}")
    bad = []
    for info in bench.infos:
        name = info.name
        got = [files.write(bench.path(name, "insert"), b"+0077\n"),
               files.write(bench.path(name, "near"), b"076"),
               files.write(bench.path(name, "erase"), b" 077 ")]
        near = files.read(bench.path(name, "near"))[1].decode().split()
        if got != ["ok"] * 3 or near[1:] != ["77"]:
            bad.append(f"{name}: insert/near/erase gave {got}, near {near}")
        if files.snapshot(bench.dfs, name).items() != \
                bench.base[name].items():
            bad.append(f"{name}: contents differ after insert+erase of 77")
        bench.reset(name)
    bench.rep.expect(bad, "insert '+0077', near '076', erase ' 077 ' all "
                     "denote 77")


def extremes(bench: Bench) -> None:
    """S64_MIN and S64_MAX through every key file."""
    bad = []
    lo, hi = str(S64_MIN), str(S64_MAX)
    for info in bench.infos:
        name = info.name
        path = lambda f: bench.path(name, f)    # noqa: E731
        bench.dfs.clear(name)
        steps = [
            ("insert", f"{lo} {hi}", None),
            ("find", lo, lo), ("find", hi, hi),
            ("near", lo, hi), ("near", str(S64_MAX - 1), hi),
            ("near", hi, "ENOENT"),
            ("erase", lo, None), ("near", lo, hi), ("erase", hi, None),
            ("find", hi, "ENOENT"),
        ]
        for fname, arg, want in steps:
            got = files.write(path(fname), arg.encode())
            if want == "ENOENT" or want is None:
                if got != (want or "ok"):
                    bad.append(f"{name}: {fname} {arg}: {got}, "
                               f"expected {want or 'ok'}")
                continue
            res = files.read(path(fname))[1].decode().split()
            if got != "ok" or res[1:] != [want]:
                bad.append(f"{name}: {fname} {arg}: {got} {res}, expected "
                           f"key {want}")
        if files.snapshot(bench.dfs, name).keys():
            bad.append(f"{name}: not empty after erasing both")
        bench.reset(name)
    bench.rep.expect(bad, "S64_MIN and S64_MAX: inserted, found, near "
                     "crosses the whole range, near S64_MAX is ENOENT, erased")


def wrong_direction(bench: Bench) -> None:
    """Writing a read-only file or reading a write-only one: EINVAL."""
    bad = []
    for info in bench.infos:
        for name in READ_ONLY:
            got = files.write(bench.path(info.name, name), b"1")
            if got != "EINVAL":
                bad.append(f"{info.name}/{name}: write gave {got}")
        for name in WRITE_ONLY:
            got, _ = files.read(bench.path(info.name, name))
            if got != "EINVAL":
                bad.append(f"{info.name}/{name}: read gave {got}")
        bench.rep.count("bad inputs tried", len(READ_ONLY) + len(WRITE_ONLY))
        bad += bench.unchanged(info.name)
    got = files.write(bench.dfs.path(None, "trees"), b"1")
    if got != "EINVAL":
        bad.append(f"trees: write gave {got}")
    bench.rep.expect(bad, "write to trees/dump/stats/check and read of "
                     "insert/erase/clear/corrupt -> EINVAL")


def fresh_reads(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo]) -> None:
    """find/near/ops read before any successful query: ENODATA, also after
    failed queries; then a query's result is kept until the next success.
    (Interval and latch trees have no near: EOPNOTSUPP; a value tree's
    result carries the VALUE.)"""
    bad = []
    for info in infos:
        name = info.name
        path = lambda f: dfs.path(name, f)      # noqa: E731
        got = [files.read(path("find"))[0], files.read(path("near"))[0]]
        got += [files.write(path("find"), b"424242"),
                files.write(path("near"), str(S64_MAX).encode()),
                files.write(path("find"), b"x"),
                files.read(path("find"))[0], files.read(path("near"))[0]]
        fd = files.ops_fd(path("ops"))
        try:
            got.append(files.read_fd(fd)[0])
        finally:
            os.close(fd)
        # (files.write() names EOPNOTSUPP, 95 on Linux, ENOTSUP.)
        near = "ENOENT" if info.has_near else errname(errno.EOPNOTSUPP)
        want = ["ENODATA", "ENODATA", "ENOENT", near, "EINVAL",
                "ENODATA", "ENODATA", "ENODATA"]
        if got != want:
            bad.append(f"{name}: {got}, expected {want}")
        rep.count("bad inputs tried", len(got))
        dfs.clear(name)
        dfs.insert(name, [5, 9], forms.values(info, [5, 9]))
        nid = dict(files.snapshot(dfs, name).items())[5]
        got = [files.write(path("find"), b"5"),
               files.write(path("find"), b"6"),
               files.read(path("find"))[1].decode().strip()]
        found = f"{nid} 5" + (" 5" if info.valued else "")
        if got != ["ok", "ENOENT", found]:
            bad.append(f"{name}: find 5, find 6, read: {got}")
        dfs.clear(name)
    rep.expect(bad, "fresh module: reading find, near and ops before any "
               "query -> ENODATA, still after ENOENT/EINVAL queries; a "
               "failed find keeps the last result")


def small_reads(bench: Bench) -> None:
    """Every readable file read 1 byte per read(2), and from odd offsets,
    gives exactly the bytes of one whole read."""
    bad = []
    for info in bench.infos:
        name = info.name
        files.write(bench.path(name, "find"), b"10")
        files.write(bench.path(name, "near"), b"10")
        paths = [bench.path(name, f) for f in
                 ("dump", "stats", "check", "find", "near")]
        for path in paths + [bench.dfs.path(None, "trees")]:
            whole = files.read(path)
            fd = os.open(path, os.O_RDONLY)
            try:
                parts = []
                while chunk := os.read(fd, 1):
                    parts.append(chunk)
                odd = {off: os.pread(fd, 1 << 16, off)
                       for off in (1, 7, len(whole[1]) - 1, len(whole[1]),
                                   len(whole[1]) + 4096)}
            finally:
                os.close(fd)
            if whole[0] != "ok" or b"".join(parts) != whole[1]:
                bad.append(f"{path}: byte-wise read differs from a whole "
                           f"read ({whole[0]})")
            for off, data in odd.items():
                if data != whole[1][off:]:
                    bad.append(f"{path}: pread at {off}: {data[:40]!r}, "
                               f"expected {whole[1][off:][:40]!r}")
        bad += bench.unchanged(name)
    bench.rep.expect(bad, "dump/stats/check/find/near/trees: read 1 byte at "
                     "a time and pread at odd offsets and past the end give "
                     "the bytes of one whole read")
