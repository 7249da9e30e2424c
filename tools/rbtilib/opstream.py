# SPDX-License-Identifier: GPL-2.0
"""The fuzzer's operation stream: what ops, on which keys, in what order.

The op sequence depends on the seed only (a random one unless given:
:func:`resolve_seed`).  It is made of phases (:class:`OpStream`): mixed ops
on dense, full-s64 (biased to S64_MIN, S64_MAX, 0, +-1) or clustered
keys, growth of large trees, draining to empty, ascending and descending
runs, heavy erasing, and ``near``/``find`` at and beyond the extremes.
:func:`generate` cuts it into chunks of *batch* ops (and at flipbook
frames), and :func:`batches` formats a chunk as ``ops`` writes.  About
one op in *single* goes through the single-op files (``insert``,
``find``, ``erase``, ``near``) instead, written as an upper-case code
(``I 5``; :func:`routes` splits a chunk by route).  About one insert or
near in *hint* is hinted (code ``h`` or ``m``): on the Santos trees it goes
as ``I KEY HINTKEY`` or ``N KEY HINTKEY``, so that the climb from a hint
(insert_near, find_near) is fuzzed too, and on the other trees as a plain
``i`` or ``n`` (:func:`op_text`).  The hint key is a function of the key
alone (:func:`hint_of`), so a shrunk repro keeps its hints.

The rbtree family's trees read the same stream in their own
*dialect* (:attr:`~rbtilib.dumptypes.TreeKind.dialect`,
:func:`op_text`): on a ``value`` tree an insert carries VALUE = :func:`value_of` (KEY); on an ``interval`` tree
inserts and erases carry LAST = :func:`last_of` (START) and a near is an
overlap query ``o START LAST`` with LAST = :func:`query_last` (START);
on a ``latch`` tree (no near in its API) a near is a find.  Each of
these is a function of the key alone, like the hints, so a shrunk repro
replays the same values.
"""

import itertools
import random
from typing import Iterator

from .driver import WRITE_LIMIT
from .dump import S64_MAX, S64_MIN
from .fuzzconfig import Config

OP_CODES = "ifen"
HINT_CODES = {"h": "i", "m": "n"}
"""Hinted insert and near, and the plain op each is on a tree without
hints (and in the model)."""
HINT_OFFSETS = (0, -1, 1, -2, 2, -3, 3, -5, 5, -9, 9, -17, 17, -40, 40,
                -1000)
"""Hint key minus key, picked by a hash of the key: mostly near neighbours,
which on dense and clustered keys are often present, so the climb starts
low in the tree and stops at various heights."""
SINGLE_CODES = "IFEN"
"""Upper case: the same op through the single-op file (``insert`` ...)."""
SPECIAL_KEYS = (S64_MIN, S64_MIN + 1, -1, 0, 1, S64_MAX - 1, S64_MAX)
"""Keys the full-range generator favours."""
KEY_MODES = ("mixed", "dense", "full", "cluster")
PHASES = ("mixed", "grow", "drain", "ascending", "descending", "erase",
          "pop", "edges")
PHASE_WEIGHTS = (40, 6, 5, 6, 6, 8, 8, 3)
POP_EVERY = 1500
"""With phases, a short ``pop`` phase (erasing the minimum or the maximum,
where the caches change) comes at least every this many ops: left to
chance, a 10,000-op run could erase no maximum of a large tree while
others remained (seed 2 did not, and a stale rightmost cache survived)."""


def resolve_seed(config: Config) -> int:
    """Give *config* a random seed if it has none; return the seed."""
    if config.seed is None:
        config.seed = random.SystemRandom().randrange(1 << 32)
    return config.seed


def parse_keys(text: str) -> tuple[int, int]:
    """Parse ``LO:HI`` (inclusive, within s64)."""
    lo, sep, hi = text.partition(":")
    try:
        lo, hi = int(lo), int(hi)
    except ValueError:
        raise ValueError(f"bad key range {text!r}, expected LO:HI") from None
    if not sep or lo > hi or lo < S64_MIN or hi > S64_MAX:
        raise ValueError(f"bad key range {text!r}, expected LO:HI within "
                         "s64")
    return lo, hi


def parse_mix(text: str) -> tuple[int, int, int, int]:
    """Parse ``i:f:e:n`` weights."""
    parts = [int(p) for p in text.split(":")]
    if len(parts) != 4 or min(parts) < 0 or not sum(parts):
        raise ValueError(f"bad mix {text!r}, expected i:f:e:n weights")
    return tuple(parts)


def frames_every(config: Config) -> int:
    """Ops between flipbook frames: snapshots_every if out is set, else 0."""
    return config.snapshots_every if config.out else 0


def _clamp(key: int) -> int:
    return S64_MIN if key < S64_MIN else S64_MAX if key > S64_MAX else key


def hint_of(key: int) -> int:
    """The hint key of a hinted op on *key* (a function of *key* only)."""
    mixed = ((key * 0x9E3779B97F4A7C15) >> 24) & 0xFFFF
    return _clamp(key + HINT_OFFSETS[mixed % len(HINT_OFFSETS)])


DIALECTS = ("plain", "hints", "value", "interval", "latch")


def _mix(key: int, salt: int) -> int:
    """16 bits of a hash of *key* (and *salt*)."""
    return (((key + salt) * 0x9E3779B97F4A7C15) >> 24) & 0xFFFF


def value_of(key: int) -> int:
    """VALUE of an insert of *key* on a ``value`` tree: small values
    (many equal), far ones and the extremes, so that the maximum moves
    through rotations."""
    mixed = _mix(key, 1)
    if mixed % 16 == 0:
        return (S64_MIN, S64_MAX, 0, -1)[mixed // 16 % 4]
    if mixed % 4 == 0:
        return _clamp(key * 3 + mixed)
    return mixed % 200 - 100


def last_of(key: int) -> int:
    """LAST of an insert of START *key* on an ``interval`` tree (>= key):
    points, short and long intervals, some up to S64_MAX."""
    mixed = _mix(key, 2)
    if mixed % 8 == 0:
        return key
    if mixed % 128 == 1:
        # Rare: every later query overlaps these, and replies grow.
        return S64_MAX
    return _clamp(key + (mixed % 64 if mixed % 4 else mixed * 256))


def query_last(key: int) -> int:
    """LAST of an overlap query from *key* (>= key)."""
    mixed = _mix(key, 3)
    if mixed % 4 == 0:
        return key
    return _clamp(key + mixed % 300)


def effective(code: str, dialect: str) -> str:
    """The op (lower case, ``i f e n o``) a *code* runs on a tree of
    *dialect*."""
    code = HINT_CODES.get(code.lower(), code.lower())
    if code == "n" and dialect in ("interval", "latch"):
        return "o" if dialect == "interval" else "f"
    return code


def op_text(code: str, key: int, dialect: "str | bool") -> str:
    """The ``ops`` line of one op in a tree's *dialect* (True: ``hints``,
    False: ``plain``): hinted ops carry their hint key on a tree with
    hints and are plain ops elsewhere; see the module docstring for the
    family's dialects."""
    if dialect is True or dialect is False:
        dialect = "hints" if dialect else "plain"
    if code in HINT_CODES:
        if dialect == "hints":
            return f"{HINT_CODES[code].upper()} {key} {hint_of(key)}\n"
        code = HINT_CODES[code]
    if dialect in ("plain", "hints"):
        return f"{code} {key}\n"
    op = effective(code, dialect)
    if op == "i" and dialect != "latch":
        second = last_of(key) if dialect == "interval" else value_of(key)
        return f"i {key} {second}\n"
    if op == "e" and dialect == "interval":
        return f"e {key} {last_of(key)}\n"
    if op == "o":
        return f"o {key} {query_last(key)}\n"
    return f"{op} {key}\n"


class OpStream:
    """The seed's ops, phase by phase.

    It keeps the multiset of keys a ``dup`` tree would hold (every insert
    adds, every erase of a present key removes one), so that phases can
    erase present keys, drain the trees and probe around the extremes.
    """

    def __init__(self, config: Config) -> None:
        self.config = config
        rng = random.Random(config.seed)
        self.rng = random.Random(rng.getrandbits(64))
        self.code_rng = random.Random(rng.getrandbits(64))
        self.key_rng = random.Random(rng.getrandbits(64))
        self.hint_rng = random.Random(rng.getrandbits(64))
        self.present: list = []         # distinct keys
        self.where: dict = {}           # key -> index in present
        self.counts: dict = {}          # key -> nodes a dup tree has
        self.weights = list(itertools.accumulate(config.mix))
        self.centers = [0]

    # -- the shadow multiset ------------------------------------------
    def _add(self, key: int) -> None:
        n = self.counts.get(key, 0)
        self.counts[key] = n + 1
        if not n:
            self.where[key] = len(self.present)
            self.present.append(key)

    def _remove(self, key: int) -> None:
        n = self.counts.get(key, 0)
        if not n:
            return
        if n > 1:
            self.counts[key] = n - 1
            return
        del self.counts[key]
        pos = self.where.pop(key)
        last = self.present.pop()
        if last != key:
            self.present[pos] = last
            self.where[last] = pos

    def _track(self, codes: list, keys: list) -> None:
        for code, key in zip(codes, keys):
            if code == "i":
                self._add(key)
            elif code == "e":
                self._remove(key)

    # -- keys ------------------------------------------------------------
    def dense(self, n: int) -> list:
        lo, hi = self.config.keys
        rand = self.key_rng.randrange
        return [lo + rand(hi - lo + 1) for _ in range(n)]

    def full(self, n: int) -> list:
        bits, rand = self.key_rng.getrandbits, self.key_rng.random
        pick = self.key_rng.choice
        return [pick(SPECIAL_KEYS) if rand() < 0.125
                else bits(64) + S64_MIN for _ in range(n)]

    def cluster(self, n: int) -> list:
        rng = self.key_rng
        if rng.random() < 0.3 or not self.centers:
            self.centers = self.full(rng.randint(1, 4))
        pick, offset = rng.choice, rng.randint
        return [_clamp(pick(self.centers) + offset(-40, 40))
                for _ in range(n)]

    def keys(self, mode: str, n: int) -> list:
        if mode == "mixed":
            mode = self.rng.choice(("dense", "dense", "full", "cluster"))
        return getattr(self, mode)(n)

    def present_keys(self, n: int, fallback: list) -> list:
        """*n* keys, each a present key (if any) or from *fallback*."""
        if not self.present:
            return fallback
        pick, present = self.key_rng.randrange, self.present
        return [present[pick(len(present))] if i % 2 == 0 else fallback[i]
                for i in range(n)]

    # -- phases ------------------------------------------------------------
    def phase(self, name: str, n: int) -> tuple[list, list]:
        """*n* ops (about) of phase *name*, as (codes, keys)."""
        rng = self.rng
        mode = self.config.key_mode
        if name == "mixed":
            codes = self.code_rng.choices(OP_CODES, cum_weights=self.weights,
                                          k=n)
            keys = self.keys(mode, n)
            if self.config.phases:
                hits = self.present_keys(n, keys)
                keys = [h if c in "ef" else k
                        for c, k, h in zip(codes, keys, hits)]
            return codes, keys
        if name == "grow":
            if mode == "dense":
                return ["i"] * n, self.dense(n)
            bits = self.key_rng.getrandbits
            return ["i"] * n, [bits(64) + S64_MIN for _ in range(n)]
        if name == "drain":
            keys = [k for k in self.present for _ in range(self.counts[k])]
            rng.shuffle(keys)
            keys = keys + [S64_MIN, S64_MAX]
            return ["e"] * (len(keys) - 2) + ["n", "n"], keys
        if name in ("ascending", "descending"):
            step = 1 if name == "ascending" else -1
            start = self.keys(mode, 1)[0]
            keys = [start + step * i for i in range(n)]
            keys = [k for k in keys if S64_MIN <= k <= S64_MAX]
            return ["i"] * len(keys), keys
        if name == "erase":
            codes = self.code_rng.choices(OP_CODES, weights=(1, 1, 6, 1), k=n)
            return codes, self.present_keys(n, self.keys(mode, n))
        if name == "pop":
            return self._pop(n)
        # edges
        lo = min(self.present, default=0)
        hi = max(self.present, default=0)
        probes = [S64_MIN, S64_MAX, _clamp(lo - 1), lo, hi, _clamp(hi + 1),
                  S64_MIN + 1, S64_MAX - 1, -1, 0, 1]
        codes = ["n"] * len(probes) + ["f", "f", "i", "i", "n", "n", "n",
                                       "f", "e", "e", "n"]
        keys = probes + [S64_MIN, S64_MAX, S64_MIN, S64_MAX, S64_MIN,
                         S64_MAX - 1, S64_MAX, S64_MAX, S64_MIN, S64_MAX,
                         S64_MIN]
        return codes, keys

    def _pop(self, n: int) -> tuple[list, list]:
        """Erase the minimum or the maximum, again and again (where the
        caches change), looking at the new extremes now and then."""
        rng = self.rng
        order = sorted(self.present)
        lo, hi = 0, len(order) - 1
        codes, keys = [], []
        while len(codes) < n and lo <= hi:
            if rng.random() < 0.5:
                key, lo = order[lo], lo + 1
            else:
                key, hi = order[hi], hi - 1
            codes += ["e"] * self.counts[key]
            keys += [key] * self.counts[key]
            pick = rng.random()
            if pick < 0.2:
                codes.append("n")
                keys.append(rng.choice((S64_MIN, _clamp(key - 1), key)))
            elif pick < 0.3 and lo <= hi:
                codes.append("i")
                keys.append(_clamp(order[lo] - 1))
        return codes, keys

    def _route(self, codes: list) -> list:
        """Send about one op in *single* through the single-op files, and
        hint about one insert or near in *hint* (only with phases)."""
        single, hint = self.config.single, self.config.hint
        if hint and self.config.phases:
            rand = self.hint_rng.random
            codes = ["h" if c == "i" and rand() * hint < 1 else
                     "m" if c == "n" and rand() * hint < 1 else c
                     for c in codes]
        if not single or not codes:
            return codes
        n = len(codes) // single + (self.rng.random() <
                                    len(codes) % single / single)
        for pos in self.rng.sample(range(len(codes)), min(n, len(codes))):
            if codes[pos] in OP_CODES:
                codes[pos] = codes[pos].upper()
        return codes

    def ops(self) -> Iterator[tuple[list, list]]:
        """Yield (codes, keys) phases until config.ops ops in all."""
        cfg = self.config
        left = cfg.ops
        plan = []
        if cfg.grow:
            plan = [("grow", cfg.grow), ("drain", 0)]
        since_pop = 0
        while left > 0:
            if plan:
                name, n = plan.pop(0)
            elif not cfg.phases:
                name, n = "mixed", left
            elif since_pop >= POP_EVERY:
                name, n = "pop", self.rng.randint(5, 40)
            else:
                name = self.rng.choices(PHASES, weights=PHASE_WEIGHTS)[0]
                n = self.rng.randint(50, 2000)
                if name == "grow":
                    n = self.rng.randint(200, 1500)
                elif name == "pop":
                    n = self.rng.randint(5, 300)
                if name == "mixed" and self.rng.random() < 0.1:
                    plan.append(("edges", 0))
            codes, keys = self.phase(name, max(1, n))
            codes, keys = codes[:left], keys[:left]
            self._track(codes, keys)
            left -= len(codes)
            since_pop = 0 if name == "pop" else since_pop + len(codes)
            yield self._route(list(codes)), keys


def generate(config: Config) -> Iterator[tuple[list[str], list[int]]]:
    """Yield the seed's op sequence as (codes, keys) chunks.

    Chunks end at every *batch* ops and every flipbook frame; the
    sequence itself does not depend on the chunking.
    """
    resolve_seed(config)
    frames = frames_every(config)
    done = 0
    codes: list = []
    keys: list = []
    stream = OpStream(config).ops()
    while done < config.ops:
        while not codes:
            codes, keys = next(stream)
        step = config.batch - done % config.batch
        if frames:
            step = min(step, frames - done % frames)
        n = min(step, len(codes))
        yield codes[:n], keys[:n]
        codes, keys = codes[n:], keys[n:]
        done += n


def batches(codes: list[str], keys: list[int],
            hints: "str | bool" = False) -> Iterator[tuple[int, str]]:
    """Split ops into ``(start, text)`` writes below the 256 KiB limit,
    in the tree's dialect *hints* (see :func:`op_text`)."""
    if hints not in (False, "plain") or any(c in HINT_CODES for c in codes):
        text = "".join([op_text(c, k, hints) for c, k in zip(codes, keys)])
    else:
        text = "".join([f"{c} {k}\n" for c, k in zip(codes, keys)])
    if len(text) < WRITE_LIMIT or len(codes) == 1:
        yield 0, text
        return
    half = len(codes) // 2
    yield from batches(codes[:half], keys[:half], hints)
    for start, part in batches(codes[half:], keys[half:], hints):
        yield half + start, part


def routes(codes: list[str]) -> Iterator[tuple[int, int]]:
    """``(start, end)`` of the runs of *codes* with the same route."""
    start = 0
    for pos in range(1, len(codes) + 1):
        if pos == len(codes) or codes[pos].isupper() != \
                codes[start].isupper():
            yield start, pos
            start = pos
