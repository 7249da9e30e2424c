# SPDX-License-Identifier: GPL-2.0
"""Bad input on every writable file of every tree (HARDENING.md, table 1).

Each tree starts from :data:`BASELINE`; after every write the tree's dump,
its ``check`` and its ``corrupt`` flag must be byte for byte what they
were (a tree that changed is reported and rebuilt, so one failure does
not hide the next).  Each input gives one result line covering all trees.
"""

import os
import time
from dataclasses import dataclass, field

from rbtilib.driver import Debugfs, DebugfsError, TreeInfo
from rbtilib.dump import parse_dump

from . import files
from .kernel import Param
from .tap import Reporter

S64_MIN = -(1 << 63)
S64_MAX = (1 << 63) - 1
WRITE_LIMIT = 256 * 1024

BASELINE = [S64_MIN, -1, 0, 1, 2, 5, 7, 8, 10, 12, 16, 34, 255, 1234,
            S64_MAX]
"""Every tree's contents during these tests.  Misparsed bad input would
hit one of them: ``10x`` -> 10, ``0x10`` -> 0 or 16, ``010`` as octal 8,
``1e3`` -> 1, an S64 overflow that wraps or saturates."""

KEY_FILES = ("insert", "find", "erase", "near")
READ_ONLY = ("dump", "stats", "check")
WRITE_ONLY = ("insert", "erase", "clear", "corrupt")

BAD_WRITES = [
    ("empty write", b""),
    ("one space", b" "),
    ("one newline", b"\n"),
    ("whitespace only", b" \t\n\v\f\r  \n"),
    ("NUL only", b"\0"),
    ("NUL then newline", b"\0\n"),
]
"""Rejected by every writable file with EINVAL: no command at all."""

BAD_KEYS = [
    ("letters", b"abc"),
    ("trailing junk", b"10x"),
    ("trailing junk after space-less sign", b"-10-"),
    ("leading junk", b"x10"),
    ("hex", b"0x10"),
    ("upper-case hex", b"0X1F"),
    ("hex digits", b"ff"),
    ("0o octal", b"0o7"),
    ("0b binary", b"0b1"),
    ("exponent", b"1e3"),
    ("fraction", b"1.5"),
    ("comma list", b"1,2"),
    ("underscore", b"1_000"),
    ("double minus", b"--1"),
    ("plus minus", b"+-1"),
    ("minus plus", b"-+1"),
    ("sign alone", b"-"),
    ("plus alone", b"+"),
    ("S64_MAX + 1", b"9223372036854775808"),
    ("S64_MIN - 1", b"-9223372036854775809"),
    ("U64_MAX", b"18446744073709551615"),
    ("2^64", b"18446744073709551616"),
    ("30 nines", b"9" * 30),
    ("-30 nines", b"-" + b"9" * 30),
    ("401-digit number", b"1" + b"0" * 400),
    ("embedded NUL", b"1\x002"),
    ("trailing NUL", b"10\0"),
    ("leading NUL", b"\x0010"),
    ("non-ASCII digit", "\u0661".encode()),
    ("byte 0xff", b"\xff"),
    ("key then byte 0x80", b"10\x80"),
    ("no-break space 0xa0 between digits", b"1\xa02"),
    ("key then byte 0xa0", b"10\xa0"),
    ("key then CR", b"10\r"),
    ("CRLF", b"10\r\n"),
    ("key then VT", b"10\v"),
    ("key then FF", b"10\f"),
]
"""Tokens that are not a key: EINVAL wherever a key is expected."""

ACCEPTED = [
    ("plain decimal", b"10", 10),
    ("trailing newline", b"10\n", 10),
    ("leading zero is decimal", b"010", 10),
    ("plus sign", b"+10", 10),
    ("surrounding whitespace", b" \t10 \n", 10),
    ("minus zero", b"-0", 0),
    ("plus zero", b"+0", 0),
    ("negative", b"-1", -1),
    ("1000 leading zeros", b"0" * 1000 + b"7", 7),
    ("S64_MAX", b"9223372036854775807", S64_MAX),
    ("S64_MIN", b"-9223372036854775808", S64_MIN),
    ("S64_MIN with a leading zero", b"-09223372036854775808", S64_MIN),
]
"""Valid single keys and the key each denotes (checked through find)."""

TOO_BIG = [WRITE_LIMIT + 1, 1 << 20, 16 << 20]
HUGE_MAPPED = 512 << 20
"""A write of this size comes from an untouched anonymous mapping (zero
pages): the module must refuse it by size without copying it."""

MAP_NORESERVE = 0x4000


@dataclass
class Bench:
    """The trees under test and their baseline snapshots."""

    rep: Reporter
    dfs: Debugfs
    infos: list[TreeInfo]
    base: dict = field(default_factory=dict)

    def path(self, tree: str, name: str) -> str:
        return self.dfs.path(tree, name)

    def reset(self, tree: str) -> None:
        """Rebuild *tree* as BASELINE and remember its snapshot."""
        self.dfs.clear(tree)
        self.dfs.insert(tree, BASELINE)
        self.base[tree] = files.snapshot(self.dfs, tree)

    def reset_all(self) -> list[str]:
        """Rebuild every tree; return problems with the new baselines."""
        out = []
        for info in self.infos:
            self.reset(info.name)
            snap = self.base[info.name]
            out += [f"{info.name}: {p}" for p in files.problems(snap)]
            if snap.keys() != sorted(BASELINE):
                out.append(f"{info.name}: baseline keys {snap.keys()}")
        return out

    def unchanged(self, tree: str, mode: bool = False) -> list[str]:
        """Problems if *tree* differs from its baseline (then rebuilt).

        The dump is compared byte for byte; the check verdict is a function
        of what the dump shows, so it is re-read only if the dump changed.
        Corrupt mode is not in the dump: *mode* also compares ``stats``.
        """
        base = self.base[tree]
        try:
            same = self.dfs.dump_text(tree) == base.dump
            if same and mode:
                same = str(self.dfs.stats(tree)["corrupt"]) == base.corrupt
        except DebugfsError:
            same = False
        if same:
            return []
        after, err = files.state(self.dfs, tree)
        self.reset(tree)
        if after is None:
            return [f"{tree}: cannot read state: {err}"]
        return [f"{tree}: {d}" for d in files.diff(base, after)]

    def trees(self, want=lambda info: True) -> list[TreeInfo]:
        return [i for i in self.infos if want(i)]

    def attempt(self, name: str, data, expect: str | set, desc: str,
                trees: list[TreeInfo] | None = None,
                offset: int | None = None) -> bool:
        """Write *data* to file *name* of each tree; expect *expect* and an
        unchanged tree; print one result line."""
        want = {expect} if isinstance(expect, str) else expect
        bad = []
        for info in trees if trees is not None else self.infos:
            got = files.write(self.path(info.name, name), data, offset)
            self.rep.count("bad inputs tried")
            if got not in want:
                bad.append(f"{info.name}: got {got}, expected "
                           f"{'/'.join(sorted(want))}")
            bad += self.unchanged(info.name, name == "corrupt")
        shown = "/".join(sorted(want))
        return self.rep.expect(bad, f"{name}: {desc} -> {shown}, "
                               "tree unchanged")


def run(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo]) -> None:
    """All bad-input tests (module loaded, allow_corrupt 0)."""
    from .badinput_limits import (accepted_forms, boundaries, extremes,
                                  sizes, small_reads, wrong_direction)
    bench = Bench(rep, dfs, infos)
    rep.expect(bench.reset_all(), "baseline (with S64_MIN and S64_MAX) "
               "inserted in one write on every tree, both checkers clean")
    for part in (key_files, insert_batches, ops_file, clear_file,
                 corrupt_file, sizes, boundaries, accepted_forms, extremes,
                 wrong_direction, small_reads):
        t0 = time.monotonic()
        part(bench)
        rep.note(f"{part.__name__}: {time.monotonic() - t0:.1f} s")


def key_files(bench: Bench) -> None:
    """insert, find, erase, near: bad writes and bad keys -> EINVAL."""
    for name in KEY_FILES:
        for desc, data in BAD_WRITES:
            bench.attempt(name, data, "EINVAL", desc)
        for desc, data in BAD_KEYS:
            bench.attempt(name, data, "EINVAL", f"{desc} {data[:24]!r}")
            bench.attempt(name, data + b"\n", "EINVAL",
                          f"{desc} with newline")
        if name != "insert":
            # On the Santos trees `near KEY HINTKEY` is valid (a hint).
            plain = [i for i in bench.infos
                     if name != "near" or not i.hints]
            bench.attempt(name, b"5 7", "EINVAL", "two keys", plain)
            bench.attempt(name, b"5\n7\n", "EINVAL", "two lines", plain)
            bench.attempt(name, b"- 1", "EINVAL", "sign, space, digit")
            if name == "near":
                bench.attempt(name, b"5 7 8", "EINVAL", "three keys")


def insert_batches(bench: Bench) -> None:
    """Many keys in one insert with one bad key in the middle."""
    new = [str(k).encode() for k in range(1000, 2000)]
    for desc, data in BAD_KEYS:
        keys = new[:500] + [data] + new[500:]
        bench.attempt("insert", b" ".join(keys), "EINVAL",
                      f"1001 keys, key 501 {desc}")
    keys = new[:500] + [b"10"] + new[500:]
    bench.attempt("insert", b" ".join(keys), "EEXIST",
                  "1001 keys, key 501 present",
                  bench.trees(lambda i: i.rejects_present))
    keys = new[:500] + [b"1499"] + new[500:]
    bench.attempt("insert", b"\n".join(keys), "EEXIST",
                  "1001 keys, key 501 repeated within the write",
                  bench.trees(lambda i: i.rejects_present))


def ops_file(bench: Bench) -> None:
    """ops: bad batches fail whole (EINVAL), results stay ENODATA."""
    pre = b"i 61\n"        # would be applied if the batch half-ran
    for desc, data in BAD_WRITES:
        bench.attempt("ops", data, "EINVAL", desc)
    for desc, data in BAD_KEYS:
        for code in b"ifen":
            line = bytes([code]) + b" " + data + b"\n"
            bench.attempt("ops", pre + line + b"f 61\n", "EINVAL",
                          f"line 2 {chr(code)} {desc}")
    bad_lines = [
        ("unknown command x", b"x 5"), ("upper-case I", b"I 5"),
        ("word command", b"insert 5"), ("no space", b"i5"),
        ("doubled command", b"ii 5"), ("key without command", b"5"),
        ("i without key", b"i"), ("i with two keys", b"i 5 6"),
        ("f without key", b"f"), ("f with two keys", b"f 5 6"),
        ("e without key", b"e"), ("e with two keys", b"e 5 6"),
        ("n without key", b"n"), ("n with three keys", b"n 5 6 7"),
        ("NUL inside a line", b"i 5\0"), ("NUL line", b"\0"),
        ("command then NUL key", b"f \0"), ("sign, space, digit", b"i - 5"),
    ]
    for desc, line in bad_lines:
        bench.attempt("ops", pre + line + b"\n", "EINVAL",
                      f"line 2: {desc}")
    lines = [f"i {k}".encode() for k in range(1000, 2000)]
    bench.attempt("ops", b"\n".join(lines[:500] + [b"i 1x"] + lines[500:]),
                  "EINVAL", "1001 lines, line 501 bad key")
    bench.attempt("ops", b"\n".join(lines[:500] + [b"q 1"] + lines[500:]),
                  "EINVAL", "1001 lines, line 501 unknown command")
    ops_results(bench)


def ops_results(bench: Bench) -> None:
    """Reading ops results: ENODATA before a batch and after a failed one;
    a batch split over two writes fails in both halves."""
    bad = []
    for info in bench.infos:
        fd = files.ops_fd(bench.path(info.name, "ops"))
        try:
            got, _ = files.read_fd(fd)
            if got != "ENODATA":
                bad.append(f"{info.name}: fresh fd read gave {got}")
            got = files.write_fd(fd, b"i 61\nx 1\n")
            got2, _ = files.read_fd(fd)
            if (got, got2) != ("EINVAL", "ENODATA"):
                bad.append(f"{info.name}: failed batch then read: {got}, "
                           f"{got2} (expected EINVAL, ENODATA)")
            # One command split over two write() calls: each is a
            # command of its own, both malformed.
            for part in (b"i 61\nf", b" 61\n"):
                got = files.write_fd(fd, part)
                if got != "EINVAL":
                    bad.append(f"{info.name}: split batch {part!r}: {got}")
            bench.rep.count("bad inputs tried", 4)
        finally:
            os.close(fd)
        bad += bench.unchanged(info.name)
    bench.rep.expect(bad, "ops: read before any batch and after a failed "
                     "one -> ENODATA; a batch split over two writes -> "
                     "EINVAL twice, tree unchanged")


def clear_file(bench: Bench) -> None:
    """clear: needs exactly one token."""
    for desc, data in BAD_WRITES:
        bench.attempt("clear", data, "EINVAL", desc)
    for desc, data in [("two tokens", b"1 2"), ("two lines", b"1\n1\n"),
                       ("embedded NUL", b"1\x001"), ("trailing NUL", b"1\0"),
                       ("leading NUL", b"\x001")]:
        bench.attempt("clear", data, "EINVAL", desc)


def corrupt_file(bench: Bench) -> None:
    """corrupt: EPERM while allow_corrupt is 0; bad commands EINVAL (or
    ENOENT for an absent key) while it is 1; never corrupt mode."""
    commands = [b"color 5", b"black 5", b"key 5 6", b"key 5 1000",
                b"parent 5", b"leftmost", b"rightmost", b"count", b"aug 5",
                b"color 424242", b"foo", b"color"]
    for cmd in commands:
        bench.attempt("corrupt", cmd, "EPERM", f"allow_corrupt 0: {cmd!r}")
    for desc, data in BAD_WRITES:
        bench.attempt("corrupt", data, {"EPERM", "EINVAL"},
                      f"allow_corrupt 0: {desc}")
    with Param("allow_corrupt", "1"):
        corrupt_bad_commands(bench)


def corrupt_bad_commands(bench: Bench) -> None:
    """Malformed or inapplicable corrupt commands (allow_corrupt 1)."""
    for desc, data in BAD_WRITES:
        bench.attempt("corrupt", data, "EINVAL", desc)
    malformed = [
        ("unknown command", b"foo 5"), ("upper case", b"COLOR 5"),
        ("color without key", b"color"), ("color with two keys", b"color 5 7"),
        ("black without key", b"black"), ("key with one key", b"key 5"),
        ("key with three keys", b"key 5 6 7"), ("parent without key", b"parent"),
        ("count with a key", b"count 5"), ("leftmost with a key", b"leftmost 5"),
        ("rightmost with a key", b"rightmost 5"), ("aug without key", b"aug"),
        ("NUL after command", b"color 5\0"), ("NUL in command", b"col\0or 5"),
        ("two commands", b"color 5\ncolor 7"),
    ]
    malformed += [(f"color, {d}", b"color " + k) for d, k in BAD_KEYS[:12]]
    malformed += [(f"key NEWKEY {d}", b"key 5 " + k) for d, k in BAD_KEYS[:8]]
    for desc, data in malformed:
        bench.attempt("corrupt", data, "EINVAL", desc)
    for cmd in (b"color 424242", b"black 424242", b"key 424242 1",
                b"parent 424242"):
        bench.attempt("corrupt", cmd, "ENOENT", f"absent key: {cmd!r}")
    bench.attempt("corrupt", b"aug 424242", "ENOENT", "absent key: aug",
                  bench.trees(lambda i: i.augmented))
    for flag, cmd in (("leftmost", b"leftmost"), ("rightmost", b"rightmost"),
                      ("count", b"count"), ("augmented", b"aug 5")):
        bench.attempt("corrupt", cmd, "EINVAL",
                      f"{cmd.decode()} on a tree without {flag}",
                      bench.trees(lambda i, f=flag: f not in i.flags))
    # The root is black in every valid tree.
    bad = []
    for info in bench.infos:
        keys = bench.base[info.name].items()
        root = parse_dump(bench.base[info.name].dump).root
        key = next(k for k, i in keys if i == root)
        got = files.write(bench.path(info.name, "corrupt"),
                          f"black {key}".encode())
        bench.rep.count("bad inputs tried")
        if got != "EINVAL":
            bad.append(f"{info.name}: black <root key {key}>: {got}")
        bad += bench.unchanged(info.name, True)
    bench.rep.expect(bad, "corrupt: black on a black node (the root) -> "
                     "EINVAL, tree unchanged")


# fresh_reads is run as badinput.fresh_reads (kmod/tests/hardening).
from .badinput_limits import fresh_reads  # noqa: E402,F401
