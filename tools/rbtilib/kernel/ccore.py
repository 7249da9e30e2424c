# SPDX-License-Identifier: GPL-2.0
"""The census's C core through ctypes: a tree read and checked in C.

``ccore/rbti_cc.h`` is the interface; :mod:`.ccore_lib` finds or builds
the library.  :func:`plan` turns a :class:`~.walk.TreeSpec` into the C
spec (None if the C core cannot read it as the Python walk would: a node
list, a latch tree's second copy, the module's ids and counts, a key that
is not an :class:`~.expr.Expr`), :class:`Reader` is the C context of one
memory (its page cache: a core file's pages stay cached from tree to
tree), and :func:`read` is census_read.read_tree's loop over C passes:
read until two reads agree, then the verdict.  A violation is not
confirmed here: the census has the Python checker read and check that
tree again (census_read.read_census_tree).
"""

import ctypes as C
import os

from ..record import record
from . import Fault, ccore_lib
from .census_kinds import Ctx
from .expr import Bytes, Expr, Tuple
from .walk import MAX_DEPTH, Raw, Snapshot, TreeSpec

ABI = 2
PROG = 24
KEYS = 3
STATES = ("ok", "violation", "empty", "unreadable", "abort", "nomem",
          "badspec", "unsupported")
OK, VIOLATION, EMPTY, UNREADABLE, ABORT = range(5)
CLASSES = ("cycle", "shared", "unreachable", "order", "dup-order",
           "root-color", "red-red", "black-height", "parent", "count",
           "leftmost", "rightmost", "augment", "height", "latch")
"""enum rbti_cc_class: checker.CLASSES, in its order."""
WHY = {1: "unreadable", 2: "depth", 3: "size"}
RULES = {None: 0, "size": 1, "max": 2, "min": 3, "sum": 4}
DUP, LEFTMOST, BASE, AUG, OWN = 1, 2, 4, 8, 16
STATIC, DIRECT = 1, 2
VCAP = 1024
"""Violations a pass reports in full (the total is always counted)."""
BATCH = 128
"""Trees a batch reads in one call."""
ADDRS = 1 << 16
"""Room for the nodes' addresses of a batch."""
NOWHERE = (1 << 64) - 1


class Insn(C.Structure):
    _fields_ = [("op", C.c_uint8), ("size", C.c_uint8), ("sign", C.c_uint8),
                ("pad", C.c_uint8 * 5), ("arg", C.c_int64)]


class Spec(C.Structure):
    _fields_ = [("root_slot", C.c_uint64), ("leftmost_slot", C.c_uint64),
                ("base_slot", C.c_uint64), ("node_off", C.c_int64),
                ("parent_off", C.c_int32), ("right_off", C.c_int32),
                ("left_off", C.c_int32), ("flags", C.c_uint32),
                ("rule", C.c_uint32), ("max_nodes", C.c_uint32),
                ("max_depth", C.c_uint32), ("pad", C.c_uint32),
                ("key", Insn * PROG), ("aug", Insn * PROG),
                ("own", Insn * PROG)]


class Result(C.Structure):
    _fields_ = [("state", C.c_int32), ("agreed", C.c_int32),
                ("height", C.c_uint32), ("error", C.c_uint32)] + \
        [(name, C.c_uint64) for name in ("nodes", "unread", "fault", "hash",
                                          "violations", "reads", "root",
                                          "leftmost")]


class Violation(C.Structure):
    _fields_ = [("cls", C.c_uint32), ("pad", C.c_uint32),
                ("node", C.c_int64)]


class Node(C.Structure):
    _fields_ = [("addr", C.c_uint64), ("pc", C.c_uint64),
                ("left", C.c_uint64), ("right", C.c_uint64),
                ("depth", C.c_uint32), ("id", C.c_uint32),
                ("kid", C.c_int64 * 2), ("key", (C.c_uint64 * 2) * KEYS),
                ("aug", C.c_uint64 * 2), ("own", C.c_uint64 * 2),
                ("bytes", C.c_uint32 * KEYS), ("pad", C.c_uint32)]


class Tree(C.Structure):
    _fields_ = [("root_slot", C.c_uint64), ("leftmost_slot", C.c_uint64),
                ("base_slot", C.c_uint64), ("addrs", C.c_uint64),
                ("res", Result)]


READ_FN = C.CFUNCTYPE(C.c_int, C.c_void_p, C.c_uint64, C.c_uint32,
                      C.c_void_p)


def _typed(lib) -> None:
    """Declare the library's functions; OSError if its ABI is not this
    binding's."""
    P = C.c_void_p
    lib.rbti_cc_abi.argtypes, lib.rbti_cc_abi.restype = \
        [C.POINTER(C.c_uint32)], C.c_uint32
    lib.rbti_cc_new.argtypes, lib.rbti_cc_new.restype = \
        [READ_FN, P, C.c_uint32, C.c_uint32], P
    lib.rbti_cc_free.argtypes, lib.rbti_cc_free.restype = [P], None
    lib.rbti_cc_pass.argtypes = [P, C.POINTER(Spec), C.POINTER(Result),
                                 C.POINTER(Violation), C.c_uint32]
    lib.rbti_cc_pass.restype = C.c_int
    lib.rbti_cc_batch.argtypes = [P, C.POINTER(Spec), C.POINTER(Tree),
                                  C.c_uint32, C.POINTER(C.c_uint64),
                                  C.c_uint64]
    lib.rbti_cc_batch.restype = C.c_uint32
    lib.rbti_cc_addrs.argtypes = [P, C.POINTER(C.c_uint64), C.c_uint64]
    lib.rbti_cc_addrs.restype = C.c_uint64
    lib.rbti_cc_node.argtypes = [P, C.c_uint64, C.POINTER(Node)]
    lib.rbti_cc_node.restype = C.c_int
    lib.rbti_cc_bytes.argtypes = [P, C.c_uint64, C.c_uint32, C.c_char_p,
                                  C.c_uint32]
    lib.rbti_cc_bytes.restype = C.c_int64
    lib.rbti_cc_unread.argtypes = [P, C.c_uint64, C.POINTER(C.c_uint64),
                                   C.POINTER(C.c_uint32)]
    lib.rbti_cc_unread.restype = C.c_int
    sizes = (C.c_uint32 * 6)()
    abi = lib.rbti_cc_abi(sizes)
    want = [C.sizeof(t) for t in (Spec, Result, Violation, Node, Insn,
                                  Tree)]
    if abi != ABI or list(sizes) != want:
        raise OSError(f"ABI {abi} {list(sizes)}, this rbti's is {ABI} "
                      f"{want}: a library of other sources")


_STATE: dict = {}


def library():
    """(the typed library or None, its path or why not), once a process
    per value of $RBTI_CCORE."""
    key = _ENVIRON.get("RBTI_CCORE", "")
    got = _STATE.get(key)
    if got is None:
        lib, why = ccore_lib.load()
        if lib is not None:
            try:
                _typed(lib)
            except (OSError, AttributeError) as e:
                lib, why = None, f"{why}: {e}"
        got = _STATE[key] = (lib, why)
    return got


_ENVIRON = os.environ


# --- specs ---------------------------------------------------------------

def _program(into, expr, info, parts: int) -> bool:
    """Compile *expr* into the array *into*; False if it cannot be."""
    if not isinstance(expr, Expr) or expr.width() != parts and parts:
        return False
    code = expr.code(info)
    if code is None or len(code) >= PROG:
        return False
    for i, (op, size, sign, arg) in enumerate(code):
        into[i].op, into[i].size, into[i].sign, into[i].arg = \
            op, size, sign, arg
    into[len(code)].op = 0
    return True


class Plan:
    """A kind's C spec, compiled once; its slots are set per tree."""

    __slots__ = ("spec", "ref", "width", "strings", "keep")

    def __init__(self, spec: Spec, width: int, strings: tuple,
                 keep: tuple) -> None:
        self.spec, self.width, self.keep = spec, width, keep
        self.ref = C.byref(spec)
        self.strings = strings      # each part of the key: a byte string?


_PLANS: dict = {}


def plan(spec: TreeSpec) -> Plan | None:
    """The C spec of *spec*'s tree, its slots set; None if the C core
    cannot read it as the Python walk does."""
    key = (id(spec.layout), id(spec.key), id(spec.aug),
           id(spec.aug_value), spec.aug_rule, spec.flags,
           spec.leftmost_slot is not None, spec.base_slot is not None)
    got = _PLANS.get(key)
    if got is None:
        # The objects are kept, so that their ids stay theirs.
        got = _PLANS[key] = (_compile(spec), (spec.layout, spec.key,
                                               spec.aug, spec.aug_value))
    got = got[0]
    if got is not None:
        c = got.spec
        c.root_slot = spec.root_slot
        c.leftmost_slot = spec.leftmost_slot or 0
        c.base_slot = spec.base_slot or 0
    return got


def _compile(spec: TreeSpec) -> Plan | None:
    if (spec.list_head is not None or spec.copy1_slot is not None
            or spec.node_id is not None or spec.value is not None
            or spec.count_slot is not None or spec.rightmost_slot is not None
            or "augmented" in spec.flags or spec.aug_rule not in RULES
            or (spec.context not in (None, Ctx) and spec.base_slot is None)):
        return None
    lay, c = spec.layout, Spec()
    info = lay.entry
    width = spec.key.width() if isinstance(spec.key, Expr) else 0
    if not 1 <= width <= KEYS or not _program(c.key, spec.key, info, width):
        return None
    c.flags = (DUP if "dup" in spec.flags else 0) | \
        (LEFTMOST if spec.leftmost_slot is not None else 0) | \
        (BASE if spec.base_slot is not None else 0)
    for flag, field, expr in ((AUG, c.aug, spec.aug),
                              (OWN, c.own, spec.aug_value)):
        if expr is not None:
            if not _program(field, expr, info, 1):
                return None
            c.flags |= flag
    c.rule = RULES[spec.aug_rule]
    if (c.rule and not c.flags & AUG) or (c.rule > 1 and not c.flags & OWN):
        return None
    c.node_off, c.parent_off, c.right_off, c.left_off = \
        lay.node_off, lay.parent_off, lay.right_off, lay.left_off
    c.max_depth = MAX_DEPTH
    parts = spec.key.items if isinstance(spec.key, Tuple) else (spec.key,)
    return Plan(c, width, tuple(isinstance(x, Bytes) for x in parts),
                (spec.layout, spec.key, spec.aug, spec.aug_value))


# --- a memory ------------------------------------------------------------

def _static(mem) -> bool:
    """True for a drgn program of a core file (memory that cannot
    change), False for /proc/kcore and any other memory."""
    prog = getattr(mem, "prog", None)
    try:
        from .debuginfo import _drgn
        return prog is not None and not (prog.flags &
                                         _drgn().ProgramFlags.IS_LIVE)
    except (ImportError, AttributeError, TypeError):
        return False


class Reader:
    """The C context of one memory: the callback into it, the page cache,
    the buffers of a pass."""

    def __init__(self, lib, mem, cache_pages: int = 4096) -> None:
        self.lib, self.mem, self.exc = lib, mem, None
        read, faults = mem.read, (Fault,)
        prog = getattr(mem, "prog", None)
        if prog is not None and type(mem).__name__ == "DrgnMemory":
            # drgn's read, without DrgnMemory's frame: its faults are
            # DrgnMemory's own (FaultError, ValueError, OverflowError).
            read, faults = prog.read, (mem.fault, ValueError, OverflowError)
        self.static = _static(mem)
        # Memory read a page at a time (walk.Memory.pass_reader): else
        # each read as the walk asks it, and two passes compared.
        from .walk import Memory
        self.direct = type(mem).pass_reader is Memory.pass_reader

        def callback(_arg, addr, size, buf):
            try:
                data = read(addr, size)
            except faults:
                return -1
            except BaseException as e:     # noqa: BLE001 (raised again)
                self.exc = e
                return -2
            if len(data) != size:
                return -1
            C.memmove(buf, bytes(data), size)
            return 0
        self.callback = READ_FN(callback)
        self.cc = lib.rbti_cc_new(self.callback, None,
                                  (STATIC if self.static else 0) |
                                  (DIRECT if self.direct else 0), cache_pages)
        if not self.cc:
            raise MemoryError("rbti_cc_new")
        self.res = Result()
        self.viols = (Violation * VCAP)()
        self.call = lib.rbti_cc_pass
        self.refs = (C.byref(self.res), self.viols, VCAP)
        self.trees = (Tree * BATCH)()
        self.addrs = (C.c_uint64 * ADDRS)()

    def __del__(self) -> None:
        cc, self.cc = getattr(self, "cc", None), None
        if cc:
            self.lib.rbti_cc_free(cc)

    def run(self, p: Plan, bound: int) -> int:
        """One pass; its state (ABORT raises the callback's error)."""
        p.spec.max_nodes = bound if bound < 0xffffffff else 0xffffffff
        self.exc = None
        state = self.call(self.cc, p.ref, *self.refs)
        if state == ABORT:
            exc, self.exc = self.exc, None
            raise exc if exc is not None else RuntimeError(
                "the C core's read was aborted")
        return state

    def batch(self, p: Plan, slots: list, addrs: bool) -> list:
        """One pass over each tree of *slots* ((root, leftmost, base)
        slots of trees of *p*'s kind), at most :data:`BATCH`, in one
        call: (state, agreed, nodes, height, their addresses or None,
        the pass's hash) each."""
        trees = self.trees
        n = len(slots)
        for t, (root, left, base) in zip(trees, slots):
            t.root_slot, t.leftmost_slot, t.base_slot = root, left, base
        p.spec.max_nodes = 1 << 20
        self.exc = None
        done = self.lib.rbti_cc_batch(self.cc, p.ref, trees, n,
                                      self.addrs if addrs else None, ADDRS)
        if done < n or (n and trees[n - 1].res.state == ABORT):
            exc, self.exc = self.exc, None
            raise exc if exc is not None else RuntimeError(
                "the C core's read was aborted")
        out = []
        for t in trees[:n]:
            res = t.res
            where = t.addrs
            out.append((res.state, res.agreed, res.nodes, res.height,
                        self.addrs[where:where + res.nodes]
                        if addrs and where != NOWHERE else None, res.hash))
        return out

    def violations(self) -> list:
        """(class, node id or None) of the last pass, at most VCAP."""
        n = self.res.violations
        if not n:
            return []
        n = min(n, VCAP)
        return [(CLASSES[v.cls], None if v.node < 0 else v.node)
                for v in self.viols[:n]]

    def addresses(self) -> list:
        n = self.res.nodes
        out = (C.c_uint64 * n)()
        self.lib.rbti_cc_addrs(self.cc, out, n)
        return list(out)

    def snapshot(self, spec: TreeSpec, p: Plan) -> Snapshot:
        """The last pass's tree as the Python walk's Snapshot (for its
        dump, and to compare the two walks node for node)."""
        lib, cc, res = self.lib, self.cc, self.res
        node, addrs = Node(), self.addresses()
        nodes, edges, depth, unread = {}, {}, {}, {}
        buf = C.create_string_buffer(4096)
        for i, addr in enumerate(addrs):
            lib.rbti_cc_node(cc, i, C.byref(node))
            parts = []
            for j in range(p.width):
                if p.strings[j]:
                    n = lib.rbti_cc_bytes(cc, i, j, buf, len(buf))
                    parts.append(buf.raw[:n])
                else:
                    parts.append(_int128(node.key[j]))
            key = parts[0] if p.width == 1 else tuple(parts)
            aug = _int128(node.aug) if spec.aug is not None else None
            own = _int128(node.own) if spec.aug_value is not None else None
            nodes[addr] = Raw(addr, node.pc, node.left, node.right, key, aug,
                              None, own)
            depth[addr] = node.depth
            edges[addr] = [addrs[k] if k >= 0 else 0 for k in node.kid]
        where, why = C.c_uint64(), C.c_uint32()
        for i in range(res.unread):
            lib.rbti_cc_unread(cc, i, C.byref(where), C.byref(why))
            unread[where.value] = (f"unreadable ({Fault(where.value)})"
                                   if why.value == 1 else WHY[why.value])
        return Snapshot(spec, res.root, res.leftmost if spec.leftmost_slot
                        is not None else None, None, None, nodes, edges,
                        depth, unread, error=WHY.get(res.error))


def _int128(words) -> int:
    value = words[0] | words[1] << 64
    return value - (1 << 128) if value >> 127 else value


_READERS: dict = {}


def reader(mem) -> Reader | None:
    """The C context of *mem* (one a memory), or None without a C core."""
    lib = library()[0]
    if lib is None:
        return None
    got = getattr(mem, "_rbti_cc", None)
    if got is not None and got.lib is lib:
        return got
    got = _READERS.get(id(mem))
    if got is None or got.lib is not lib or got.mem is not mem:
        got = Reader(lib, mem)
        try:
            mem._rbti_cc = got
        except AttributeError:      # a memory with __slots__: a few kept
            if len(_READERS) >= 16:
                _READERS.clear()
            _READERS[id(mem)] = got
    return got


# --- one tree ---------------------------------------------------------------

@record
class Verdict:
    """A tree as the C core read it: *state* ok, violation, unreadable
    or changing; *found*: (class, node id) of each violation (the first
    VCAP) and *total* their number."""

    state: str
    nodes: int = 0
    height: int = 0
    found: list | None = None
    total: int = 0
    error: str | None = None
    reads: int = 0
    addrs: list | None = None
    snap: Snapshot | None = None
    digest: int | None = None
    """The hash of the read the verdict rests on: equal for two reads of
    an unchanged tree."""


def read(r: Reader, spec: TreeSpec, p: Plan, attempts: int = 8,
         max_nodes: int = 1 << 20, addrs: bool = False,
         snap: bool = False) -> Verdict | None:
    """census_read.read_tree's loop over C passes, up to the first stable
    read (two that agree: memory read again, or two passes with one
    hash), and its verdict; None if the C core cannot read this tree
    (the Python walk reads it).  *addrs*: the nodes' addresses; *snap*:
    the Snapshot (its dump)."""
    reads, prev, bound = 0, None, max_nodes
    while reads < attempts:
        state = r.run(p, bound)
        res = r.res
        if state > ABORT:
            return None
        if state == UNREADABLE:
            return Verdict("unreadable", error=f"the root: "
                           f"{Fault(res.fault)}", reads=reads)
        bound = 2 * res.nodes + 1024
        if bound > max_nodes:
            bound = max_nodes
        reads += 1
        if state == EMPTY:
            return Verdict("ok", found=[], reads=reads,
                           addrs=[] if addrs else None)
        if res.agreed:
            reads += 1
        elif prev is None or res.hash != prev:
            prev = res.hash
            continue
        return Verdict(STATES[state], res.nodes, res.height, r.violations(),
                       res.violations, None, reads,
                       r.addresses() if addrs else None,
                       r.snapshot(spec, p) if snap else None, res.hash)
    return Verdict("changing", error=f"{spec.name}: changed while reading "
                   f"({reads} reads)", reads=attempts)
