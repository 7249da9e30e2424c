# SPDX-License-Identifier: GPL-2.0
"""The interface fuzzer's commands: generating, judging, replay scripts.

A command is one write, read or write-then-read of one file of the
module's debugfs directory (``santos/insert``, ``trees``) or of one of
its parameters (``@allow_corrupt``).  :func:`generate` makes a seeded,
state-independent list of them over the trees a ``trees`` file names:
well-formed, boundary (0, -1, the s32/s64 limits, huge counts, empty,
whitespace) and malformed arguments, on every file.  :data:`ALLOWED`
is the set of errnos kmod/DEBUGFS.md documents for each file (a host test
holds it to the page); :func:`unexpected` judges one result.
:mod:`.ifuzz_script` writes a list as a replayable shell script and
reads it back.
The guest side (running, deadlines, shrinking) is :mod:`.ifuzz_run`.
"""

import random
import re
from .driver import TreeInfo
from .record import record

S64_MIN, S64_MAX = -(1 << 63), (1 << 63) - 1
S32_MIN, S32_MAX = -(1 << 31), (1 << 31) - 1
BOUNDARY_KEYS = (0, -1, 1, S32_MIN, S32_MAX, S64_MIN, S64_MAX,
                 S64_MIN + 1, S64_MAX - 1)
OUT_OF_RANGE = ("9223372036854775808", "-9223372036854775809",
                "18446744073709551616", "99999999999999999999999")
MALFORMED = ("", " ", "\n", "\t\n ", "x", "0x10", "1.5", "--1", "+-1",
             "1e3", "\r1", "1\r", "\x0b1", "\x0c", "1\x00", "\x00",
             "\xa0", "1 \x002", "\xff\xfe", "-", "+", "1,2", "1;2",
             "'1'", "１")
KILL_AFTER = 0.2
"""Seconds a ``k`` command's writer runs before it is killed."""
HUGE_WRITE = 300 * 1024
"""Bytes of the write that must fail with E2BIG (past 256 KiB)."""

KEY_SPAN = 48
"""Well-formed keys are mostly in [-8, KEY_SPAN): trees fill up and
queries hit."""

KNOWN_MAX = 64
"""Keys remembered a tree, for corruption targets and probes."""
PROBE_KEYS = 8
"""The newest keys whose points the probes after a corruption sweep."""

PROBE_SHARE = 0.3
"""The share of corruptions followed by probes (:meth:`Gen.probes`)."""
EPISODE_SHARE = 0.002
"""The share of commands that begin an episode (:meth:`Gen.episode`)."""
LINK_CORRUPTIONS = ("parent", "detach", "share", "cycle")
"""The corruptions that break links a query may follow."""
EPISODE_SPAN = 24
"""An episode's keys lie in [-4, EPISODE_SPAN]: its probes are few."""

CORRUPTIONS = ("color", "black", "key", "parent", "leftmost", "rightmost",
               "count", "aug", "value", "latch", "detach", "share", "cycle")
PARAMS = ("allow_corrupt", "max_nodes", "max_total_nodes",
          "max_dump_bytes", "stress_seconds")

# The errnos DEBUGFS.md documents, by file (reads and writes).  Every
# file may also give ENOMEM and EFAULT (the page's "Errnos every file may
# give"), every write EINVAL (empty, whitespace, NUL) and E2BIG (past
# 256 KiB).  A write to a file without a write method and a read of one
# without a read method get the VFS's EINVAL; a parameter write gets the
# kernel's param_set_*() errnos (EINVAL, ERANGE from kstrto*()).
ANY = frozenset({"ENOMEM", "EFAULT"})
ANY_WRITE = ANY | {"EINVAL", "E2BIG"}
ALLOWED = {
    ("insert", "w"): ANY_WRITE | {"EEXIST", "ENOSPC", "EUCLEAN"},
    ("find", "w"): ANY_WRITE | {"ENOENT", "EUCLEAN"},
    ("find", "r"): ANY | {"ENODATA"},
    ("erase", "w"): ANY_WRITE | {"ENOENT", "EUCLEAN"},
    ("near", "w"): ANY_WRITE | {"ENOENT", "EUCLEAN", "EOPNOTSUPP"},
    ("near", "r"): ANY | {"ENODATA"},
    ("dump", "r"): ANY | {"ENOBUFS"},
    ("stats", "r"): ANY,
    ("check", "r"): ANY,
    ("clear", "w"): ANY_WRITE,
    ("ops", "w"): ANY_WRITE | {"ENOSPC", "EUCLEAN", "ENOBUFS"},
    ("ops", "r"): ANY | {"ENODATA"},
    ("corrupt", "w"): ANY_WRITE | {"EPERM", "EUCLEAN", "ENOENT"},
    ("overlap", "w"): ANY_WRITE | {"EUCLEAN", "ENOBUFS"},
    ("overlap", "r"): ANY | {"ENODATA"},
    ("stress", "w"): ANY_WRITE | {"EBUSY", "EINTR"},
    ("stress", "r"): ANY | {"ENODATA"},
    ("trees", "r"): ANY,
    ("param", "w"): ANY_WRITE | {"ERANGE"},
}
VFS_EINVAL = frozenset({"EINVAL"})
"""A read of a write-only file, a write to a read-only one."""


@record(frozen=True)
class Cmd:
    """One command: KIND ``w`` (write), ``r`` (read), ``q`` (write,
    then read on the same descriptor) or ``k`` (write from a child
    process killed :data:`KILL_AFTER` seconds later); PATH relative to the debugfs
    directory, or ``@NAME`` for a module parameter; DATA the bytes
    written (b"" for a read)."""

    kind: str
    path: str
    data: bytes = b""

    @property
    def file(self) -> str:
        """The file's kind: ``insert``, ``trees``, ``param``..."""
        return "param" if self.path.startswith("@") else \
            self.path.rsplit("/", 1)[-1]

    @property
    def tree(self) -> str | None:
        return self.path.split("/", 1)[0] if "/" in self.path else None


def unexpected(cmd: Cmd, step: str, err: str) -> bool:
    """True if errno name *err* of the *step* (``w`` or ``r``) of *cmd* is
    one DEBUGFS.md does not document for that file."""
    allowed = ALLOWED.get((cmd.file, step))
    if allowed is None:
        return err not in VFS_EINVAL | ANY
    return err not in allowed


class Gen:
    """A seeded generator of commands over *trees*.

    *exclude* holds ``(tree flag, corruption)`` pairs never generated
    (``("interval", "parent")``: the known hang, see the fuzzer's
    --exclude).
    """

    WEIGHTS = {"insert": 14, "find": 8, "erase": 8, "near": 6, "ops": 8,
               "overlap": 5, "dump": 4, "stats": 2, "check": 4, "clear": 2,
               "corrupt": 6, "stress": 1}

    def __init__(self, seed, trees: list[TreeInfo],
                 exclude: frozenset = frozenset(),
                 stress_max: int = 3000) -> None:
        self.rng = random.Random(seed)
        self.trees = trees
        self.exclude = exclude
        self.stress_max = stress_max
        self.bad = 0.0
        self.tree = None
        self.stick = 0.6
        # Keys (interval starts and ends) this list inserted into each
        # tree, newest last: corruptions aim at them, and the probes
        # after a corruption sweep the points around them.
        self.known: dict[str, list[tuple[int, int]]] = {}
        self.pending: list[Cmd] = []
        self.turns: list[TreeInfo] = []

    # Arguments -------------------------------------------------------

    def key(self) -> int:
        r = self.rng.random()
        if r < 0.9:
            return self.rng.randrange(-8, KEY_SPAN)
        if r < 0.97:
            return self.rng.choice(BOUNDARY_KEYS)
        return self.rng.randrange(S64_MIN, S64_MAX)

    def word(self, valid: str) -> str:
        """*valid*, or in a command picked to be bad (:attr:`bad`) now
        and then an out-of-range or malformed token."""
        r = self.rng.random()
        if r >= self.bad:
            return valid
        if r < self.bad / 2:
            return self.rng.choice(OUT_OF_RANGE)
        return self.rng.choice(MALFORMED)

    def sep(self) -> str:
        return self.rng.choice((" ", " ", " ", "  ", "\t", "\n"))

    def join(self, words: list) -> str:
        text = ""
        for i, w in enumerate(words):
            text += (self.sep() if i else "") + w
        if self.rng.random() < 0.5:
            text += "\n"
        if self.rng.random() < 0.05:
            text = self.sep() + text + self.sep()
        return text

    def interval(self) -> tuple[int, int]:
        a = self.key()
        if self.rng.random() < 0.1:
            return a, self.key()
        # Short and wide intervals: a query's iter_next then climbs past
        # short ones that end before it, after wide ones that reach it.
        b = a + self.rng.choice((self.rng.randrange(0, 4),
                                 self.rng.randrange(4, 40)))
        return a, min(b, S64_MAX) if b > a else a

    def count(self) -> int:
        r = self.rng.random()
        if r < 0.9:
            return self.rng.randrange(1, 9)
        if r < 0.99:
            return self.rng.randrange(9, 200)
        return self.rng.randrange(200, 1200)

    def remember(self, tree: TreeInfo, a: int, b: int) -> None:
        known = self.known.setdefault(tree.name, [])
        known.append((a, b))
        del known[:-KNOWN_MAX]

    def keys_text(self, tree: TreeInfo) -> str:
        words = []
        for _ in range(self.count()):
            if tree.interval:
                a, b = self.interval()
                self.remember(tree, a, b)
                words += [str(a), str(b)]
            elif tree.valued:
                words += [str(self.key()), str(self.key())]
            elif tree.hints and self.rng.random() < 0.1:
                words.append(f"{self.key()}@{self.key()}")
            else:
                k = self.key()
                self.remember(tree, k, k)
                words.append(str(k))
        if self.rng.random() < 0.03 and words:
            words.pop()                       # odd pairs, a cut interval
        return self.join([self.word(w) for w in words])

    def one_key(self, tree: TreeInfo, hinted: bool = False) -> str:
        words = [str(self.key())]
        if hinted and tree.hints and self.rng.random() < 0.2:
            words.append(str(self.key()))
        if self.rng.random() < 0.03:
            words.append(str(self.key()))     # one key too many
        return self.join([self.word(w) for w in words])

    def pair(self) -> str:
        return self.join([self.word(str(v)) for v in self.interval()])

    def erase_arg(self, tree: TreeInfo) -> str:
        return self.pair() if tree.interval else self.one_key(tree)

    def ops_text(self, tree: TreeInfo) -> str:
        # Mostly operations the tree has: a batch with one it lacks is
        # all EINVAL.
        ops = "iiiffee" + ("o" if tree.interval else "") + \
            ("n" if tree.has_near else "") + ("IN" if tree.hints else "")
        if self.rng.random() < 0.05:
            ops = "iiiffeenoIN"
        lines = []
        for _ in range(self.count() * 2):
            op = self.rng.choice(ops)
            if op == "i" and tree.valued:
                a, b = self.interval()
                args = [a, b]
            elif op in "eo" and tree.interval:
                args = list(self.interval())
            elif op in "IN":
                args = [self.key(), self.key()]
            elif op == "o":
                args = list(self.interval())
            else:
                args = [self.key()]
            words = [op] + [self.word(str(a)) for a in args]
            if self.rng.random() < 0.02:
                words = [self.rng.choice(("x", "ii", "", "f f", "i"))]
            lines.append(" ".join(words))
        if self.rng.random() < 0.1:
            lines.insert(self.rng.randrange(len(lines) + 1), "")
        return "\n".join(lines) + self.rng.choice(("", "\n"))

    def corrupt_arg(self, tree: TreeInfo) -> str:
        names = [c for c in CORRUPTIONS
                 if not any(f in tree.flags and c == bad
                            for f, bad in self.exclude)]
        name = self.rng.choice(names)
        known = self.known.get(tree.name)
        # Mostly a node this list inserted: a random key is seldom in
        # the tree, and a corruption that finds no node breaks nothing.
        target = self.rng.choice(known)[0] if known and \
            self.rng.random() < 0.8 else self.key()
        if name in ("leftmost", "rightmost", "count"):
            words = [name]
        elif name == "key":
            words = [name, str(target), str(self.key())]
        else:
            words = [name, str(target)]
        if self.rng.random() < 0.05:
            words = [self.rng.choice(("bogus", name, ""))]   # no KEY
        return self.join([self.word(w) for w in words])

    def stress_arg(self) -> str:
        r = self.rng.random()
        if r < 0.85:
            return str(self.rng.randrange(1, self.stress_max + 1))
        return self.rng.choice(("0", "-1", "1000000001", "1000000000",
                                str(S64_MAX), "", "x", "1 2"))

    def param_cmd(self) -> Cmd:
        name = self.rng.choice(PARAMS)
        if name == "allow_corrupt":
            value = self.rng.choice(("1", "1", "0", "Y", "N", "y", "n",
                                     "2", "-1", "", "yes"))
        elif name == "stress_seconds":
            # Never more than the deadline allows: a stress run lasts up
            # to stress_seconds.
            value = self.rng.choice(("0", "1", "1", "2", "-1", "x",
                                     "4294967296", ""))
        else:
            value = self.rng.choice((
                "0", "1", "16", "100", "4096", "1048576", "2097152",
                "268435456", "-1", "18446744073709551615",
                "18446744073709551616", "x", "0x10", ""))
            if self.rng.random() < 0.5:       # back to the default
                value = {"max_nodes": "1048576",
                         "max_total_nodes": "2097152"}.get(name, value)
            if name == "max_dump_bytes" and value in ("0", "1", "16"):
                value = self.rng.choice((value, "268435456"))
        return Cmd("w", "@" + name, value.encode())

    # Commands --------------------------------------------------------

    def probes(self, tree: TreeInfo) -> list[Cmd]:
        """The queries that follow a corruption of *tree*: every point
        around the newest keys it holds (each start and end, one before
        and one after), each as a find, near or overlap, and one overlap
        over all of them, so that whatever node the corruption hit, some query
        reaches it, and one that loops there is caught."""
        points: set[int] = set()
        for a, b in self.known.get(tree.name, [])[-PROBE_KEYS:]:
            points.update((a - 1, a, b, b + 1))
        points = sorted(p for p in points if S64_MIN <= p <= S64_MAX)
        queries = [f for f in ("find", "near", "overlap") if f in tree.files]
        cmds = []
        for p in points if queries else ():
            name = self.rng.choice(queries)
            data = f"{p} {p}" if name == "overlap" else str(p)
            cmds.append(Cmd("q", f"{tree.name}/{name}", data.encode()))
        if "overlap" in tree.files and points:
            cmds.append(Cmd("q", f"{tree.name}/overlap",
                            f"{points[0]} {points[-1]}".encode()))
        return cmds

    def episode(self, tree: TreeInfo) -> list[Cmd]:
        """A small tree of a few keys (short and wide intervals on an
        interval tree) and, for each corruption that breaks a link
        (:data:`LINK_CORRUPTIONS`; ``parent`` once for every node, the
        others for one node), the tree built afresh, that corruption,
        then a query at every point around the keys (one before each
        key, each key, one after each end; find, near and overlap in
        turn).  A loop that needs one node's neighbourhood and one query
        point (the interval hang: a wide interval under a short node
        whose parent link is broken, a point past the short one) is met
        far more often than in a large tree of random commands."""
        name = tree.name
        queries = [q for q in ("find", "near", "overlap") if q in tree.files]
        self.known.pop(name, None)
        keys = []
        starts = self.rng.sample(range(-4, EPISODE_SPAN),
                                 self.rng.randrange(3, 8))
        for a in starts:
            b = a if not tree.interval else \
                min(EPISODE_SPAN, a + self.rng.choice(
                    (self.rng.randrange(0, 3),
                     self.rng.randrange(3, EPISODE_SPAN))))
            self.remember(tree, a, b)
            keys += [a, b] if tree.valued else [a]
        insert = " ".join(map(str, keys)).encode()
        points = sorted({p for a, b in self.known[name]
                         for p in (a - 1, a, b, b + 1)})
        probes = [Cmd("q", f"{name}/{queries[n % len(queries)]}",
                      (f"{p} {p}" if queries[n % len(queries)] == "overlap"
                       else str(p)).encode())
                  for n, p in enumerate(points if queries else ())]
        cmds = [Cmd("w", "@allow_corrupt", b"1")]
        for how in LINK_CORRUPTIONS:
            if any(f in tree.flags and how == bad for f, bad in self.exclude):
                continue
            targets = starts if how == "parent" else \
                [self.rng.choice(starts)]
            for target in targets:
                cmds += [Cmd("w", f"{name}/clear", b"1"),
                         Cmd("w", f"{name}/insert", insert),
                         Cmd("w", f"{name}/corrupt",
                             f"{how} {target}".encode())] + probes
        return cmds

    def command(self) -> Cmd:
        if self.pending:
            return self.pending.pop(0)
        if self.rng.random() < EPISODE_SHARE:
            # The trees in turn, in an order of this list's own.
            if not self.turns:
                self.turns = [t for t in self.trees
                              if {"corrupt", "clear", "insert"}
                              <= set(t.files)]
                self.rng.shuffle(self.turns)
            if self.turns:
                self.pending = self.episode(self.turns.pop())
                return self.pending.pop(0)
        cmd = self.next_command()
        if cmd.kind == "w" and cmd.path.endswith("/corrupt"):
            tree = next((t for t in self.trees
                         if cmd.path == f"{t.name}/corrupt"), None)
            if tree is not None and self.rng.random() < PROBE_SHARE:
                self.pending = self.probes(tree)
        elif cmd.kind == "w" and cmd.path.endswith("/clear"):
            self.known.pop(cmd.path.split("/")[0], None)
        return cmd

    def next_command(self) -> Cmd:
        # Nine commands in ten well-formed (boundary keys included), one
        # with some tokens out of range or malformed.
        self.bad = 0.0 if self.rng.random() < 0.9 else 0.3
        r = self.rng.random()
        if r < 0.01:
            return Cmd("r", "trees")
        if r < 0.03:
            return self.param_cmd()
        if r < 0.035:
            return Cmd("w", "trees", b"1")
        # Runs of commands on one tree: a corruption and the queries
        # after it, an insert and the erase of its keys.
        if self.tree is None or self.rng.random() >= self.stick:
            self.tree = self.rng.choice(self.trees)
        tree = self.tree
        files = sorted(f for f in tree.files if f in self.WEIGHTS)
        name = self.rng.choices(files, [self.WEIGHTS[f] for f in files])[0]
        path = f"{tree.name}/{name}"
        if self.rng.random() < 0.003:
            return Cmd("w", path, b"1" * HUGE_WRITE)
        if self.rng.random() < 0.01:
            return Cmd("w", path, self.rng.choice(MALFORMED).encode(
                "utf-8", "surrogatepass"))
        return self.tree_command(tree, name, path)

    def tree_command(self, tree: TreeInfo, name: str, path: str) -> Cmd:
        if name in ("dump", "stats", "check"):
            if self.rng.random() < 0.02:
                return Cmd("w", path, b"1")          # a read-only file
            return Cmd("r", path)
        if name == "insert":
            return Cmd("w", path, self.keys_text(tree).encode())
        if name == "erase":
            return Cmd("w", path, self.erase_arg(tree).encode())
        if name in ("find", "near"):
            if self.rng.random() < 0.05:
                return Cmd("r", path)
            return Cmd("q", path,
                       self.one_key(tree, name == "near").encode())
        if name == "overlap":
            return Cmd("q", path, self.pair().encode())
        if name == "ops":
            return Cmd("q", path, self.ops_text(tree).encode())
        if name == "clear":
            return Cmd("w", path, self.word("1").encode())
        if name == "corrupt":
            return Cmd("w", path, self.corrupt_arg(tree).encode())
        if name == "stress":
            if self.rng.random() < 0.3:
                # Start a long stress and stop it: the writer is killed.
                return Cmd("k", path, b"1000000000")
            return Cmd("q", path, self.stress_arg().encode())
        raise ValueError(f"no generator for {path}")

    def commands(self, n: int) -> list[Cmd]:
        return [self.command() for _ in range(n)]


def generate(seed, trees: list[TreeInfo], n: int,
             exclude: frozenset = frozenset()) -> list[Cmd]:
    """*n* commands of generator *seed* over *trees*."""
    return Gen(seed, trees, exclude).commands(n)
