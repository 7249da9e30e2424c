# SPDX-License-Identifier: GPL-2.0
"""Read any red-black tree out of kernel memory and write it as a dump.

``rbti kernel`` walks a tree in the running kernel (drgn over /proc/kcore)
or in a crash dump (``--core``), writes it in the ``dump`` format of
kmod/DEBUGFS.md and checks it with the one checker (``--check``).
``rbti verify`` compares each inspector tree's debugfs dump with the same
tree read from memory.

The walk never trusts the tree (it is read while the kernel changes it, and
it may be corrupt): it follows child pointers only, every read goes through
:class:`Memory`, which turns an unreadable address into :class:`Fault`, a
node reached twice is written as a link and not followed, the depth is
capped at 128 like the module's walk, and a snapshot is only used when two
consecutive reads agree; a violation is only reported when a second stable
snapshot shows it again.  Otherwise the answer is "changed while reading".

Node ids: the inspector's own trees keep their real ids; any other tree's
nodes are numbered 0, 1, ... in order (so equal keys never look out of
insertion order), with the addresses in a side table (``--addresses``).

A tree that keeps every node it allocated on a list (the inspector's
``rbti_tree.all``, counted by ``rbti_tree.nodes``) is read with that list
too, as the module's own dump does: the header gets ``nodes N`` (the
module's count) and every listed node the walk did not reach gets a
``lost`` line, so the checker reports ``unreachable`` with the module's
node.  The list is not trusted either: it is followed for at most N
entries, a loop in it, a misaligned or unreadable link, a length other
than N or a reached node missing from it is reported (class
``unreachable``) and the dump then has no ``nodes``/``lost`` lines.
Other kernel trees have no such list: their dumps have no ``nodes`` line
(kmod/DEBUGFS.md, "Dumps read from kernel memory").
The core (:func:`read_once` to :func:`to_dump`) knows nothing of drgn, so
the host tests drive it with a fake memory.
"""

import os
import struct
import sys
import time
from dataclasses import dataclass, field
from typing import Callable

from . import checker, record
from .dump import format_flags, parse_dump

MAX_DEPTH = 128
"""Deepest level walked, as RBTI_MAX_DEPTH in kmod/inspector.h."""

PTR = 8
RB_BLACK = 1


class Fault(Exception):
    """An address that cannot be read."""

    def __init__(self, addr: int) -> None:
        super().__init__(f"cannot read address {addr:#x}")
        self.addr = addr


class Changed(Exception):
    """The tree kept changing while it was read."""


class KernelError(Exception):
    """Missing debug info, no /proc/kcore, a bad expression: exit 2."""


class Memory:
    """Reads of (possibly unmapped) kernel memory; subclasses define read."""

    def read(self, addr: int, size: int) -> bytes:
        raise NotImplementedError

    def ptr(self, addr: int) -> int:
        return struct.unpack("<Q", self.read(addr, PTR))[0]

    def int(self, addr: int, size: int, signed: bool) -> int:
        return int.from_bytes(self.read(addr, size), "little", signed=signed)


# --- the entry's fields, read at most once per node ---------------------

class TypeInfo:
    """Layout of a C type: ``member(name)`` -> (offset, size, signed, sub)
    where *sub* is the member's TypeInfo if it is a struct or union."""

    def member(self, name: str) -> tuple:
        raise NotImplementedError


class DictType(TypeInfo):
    """A TypeInfo from a dict name -> (offset, size, signed[, sub])."""

    def __init__(self, members: dict) -> None:
        self.members = members

    def member(self, name: str) -> tuple:
        try:
            value = self.members[name]
        except KeyError:
            raise AttributeError(name) from None
        return value if len(value) == 4 else (*value, None)


class _Window:
    """The bytes of one entry read so far: [base + lo, base + hi)."""

    __slots__ = ("mem", "base", "lo", "buf", "used")

    def __init__(self, mem: Memory, base: int, lo: int, hi: int) -> None:
        self.mem, self.base, self.lo, self.used = mem, base, lo, []
        try:
            self.buf = mem.read(base + lo, hi - lo) if hi > lo else b""
        except Fault:
            self.buf = b""      # fall back to one read per field

    def int(self, off: int, size: int, signed: bool) -> int:
        self.used.append((off, off + size))
        start = off - self.lo
        if 0 <= start and start + size <= len(self.buf):
            return int.from_bytes(self.buf[start:start + size], "little",
                                  signed=signed)
        return self.mem.int(self.base + off, size, signed)


class Entry:
    """An entry seen through its fields: ``e.va_start`` is an int."""

    __slots__ = ("_win", "_off", "_type")

    def __init__(self, win: _Window, off: int, info: TypeInfo) -> None:
        self._win, self._off, self._type = win, off, info

    def __getattr__(self, name: str):
        off, size, signed, sub = self._type.member(name)
        if sub is not None:
            return Entry(self._win, self._off + off, sub)
        return self._win.int(self._off + off, size, signed)


def s64(value: int) -> int:
    """*value* as a signed 64-bit integer (C's (s64) cast)."""
    value &= (1 << 64) - 1
    return value - (1 << 64) if value >> 63 else value


def u64(value: int) -> int:
    """*value* as an unsigned 64-bit integer (C's (u64) cast)."""
    return value & ((1 << 64) - 1)


# --- what to read --------------------------------------------------------

@dataclass
class Layout:
    """Where the rb_node is in an entry and what its fields are."""

    entry: TypeInfo
    node_off: int               # offsetof(entry, rb_node member)
    parent_off: int = 0         # offsets inside struct rb_node
    right_off: int = 8
    left_off: int = 16


@dataclass
class TreeSpec:
    """One tree to read.  Slots are addresses of pointers in memory."""

    name: str
    layout: Layout
    root_slot: int                          # &root->rb_node
    key: Callable                           # (entry, ctx) -> int
    api: str = "kernel"
    flags: frozenset = frozenset({"unique"})
    leftmost_slot: int | None = None        # &rb_root_cached.rb_leftmost
    rightmost_slot: int | None = None
    count_slot: int | None = None           # cached count (unsigned long)
    node_id: Callable | None = None         # (entry, ctx) -> id
    aug_name: str | None = None
    aug: Callable | None = None             # (entry, ctx) -> stored value
    aug_rule: str | None = None             # 'size' | 'max' | 'sum'
    aug_value: Callable | None = None       # (entry, ctx) -> own value
    context: Callable | None = None         # () -> ctx, read per snapshot
    # The list of every node allocated for the tree, if it keeps one
    # (kmod/inspector.h: rbti_tree.all, rbti_node.list, rbti_tree.nodes):
    list_head: int | None = None            # &the struct list_head head
    list_off: int = 0                       # offsetof(entry, its list_head)
    nodes_slot: int | None = None           # &the list's length (ulong)
    note: str = ""


@dataclass(frozen=True)
class Raw:
    """One node as read: its rb_node words and the entry's values."""

    addr: int                   # address of the rb_node
    pc: int
    left: int
    right: int
    key: int
    aug: int | None
    id: int | None
    own: int | None             # aug_value, for the recomputation
    next: int | None = None     # the entry's list_head.next, if listed


@dataclass
class Snapshot:
    """One read of a tree."""

    spec: TreeSpec
    root: int
    leftmost: int | None
    rightmost: int | None
    count: int | None
    nodes: dict                 # rb_node address -> Raw, preorder
    edges: dict                 # address -> (left, right) first-reach
    depth: dict                 # address -> depth (1 = root)
    unread: dict                # address -> why (fault, depth, size)
    listed: list | None = None  # allocated nodes (list order), if known
    lost: dict = field(default_factory=dict)    # listed, not reached
    error: str | None = None
    allocated: int | None = None    # the list's length as the tree says
    list_problem: str | None = None     # why the list cannot be used

    def key(self) -> tuple:
        """What two reads must agree on."""
        return (self.root, self.leftmost, self.rightmost, self.count,
                tuple(self.nodes.values()), tuple(self.unread),
                tuple(self.listed or ()), tuple(self.lost.values()),
                self.allocated, self.list_problem)

    def has_list(self) -> bool:
        """True if the dump carries ``nodes`` and ``lost`` lines."""
        return self.listed is not None and self.list_problem is None


def _read_node(mem: Memory, spec: TreeSpec, addr: int, ctx,
               span: list) -> Raw:
    """Read the rb_node at *addr* and its entry's values (Fault if not)."""
    lay = spec.layout
    base = addr - lay.node_off
    win = _Window(mem, base, span[0], span[1])
    pc = win.int(lay.node_off + lay.parent_off, PTR, False)
    right = win.int(lay.node_off + lay.right_off, PTR, False)
    left = win.int(lay.node_off + lay.left_off, PTR, False)
    entry = Entry(win, 0, lay.entry)
    key = spec.key(entry, ctx)
    aug = spec.aug(entry, ctx) if spec.aug else None
    own = spec.aug_value(entry, ctx) if spec.aug_value else None
    nid = spec.node_id(entry, ctx) if spec.node_id else None
    nxt = (win.int(spec.list_off, PTR, False)
           if spec.list_head is not None else None)
    for lo, hi in win.used:     # next nodes: one read covers all fields
        if hi - min(lo, span[0]) <= 512 and max(hi, span[1]) - lo <= 512:
            span[0], span[1] = min(span[0], lo), max(span[1], hi)
    return Raw(addr, pc, left, right, int(key), aug, nid, own, nxt)


def read_once(mem: Memory, spec: TreeSpec,
              max_nodes: int = 1 << 20) -> Snapshot:
    """Read *spec*'s tree once, through child pointers only."""
    ctx = spec.context() if spec.context else None
    lay = spec.layout
    span = [lay.node_off, lay.node_off + 24]
    root = mem.ptr(spec.root_slot)
    cached = [mem.ptr(s) if s is not None else None
              for s in (spec.leftmost_slot, spec.rightmost_slot)]
    count = (mem.int(spec.count_slot, PTR, False)
             if spec.count_slot is not None else None)
    snap = Snapshot(spec, root, cached[0], cached[1], count, {}, {}, {}, {})
    # Preorder, left first; entries: (address, depth, linking node, side).
    stack = [(root, 1, 0, 0)] if root else []
    while stack:
        addr, depth, up, side = stack.pop()
        if addr in snap.nodes or addr in snap.unread:
            continue        # reached twice: written as a link, not followed
        if depth > MAX_DEPTH or len(snap.nodes) >= max_nodes:
            snap.error = "depth" if depth > MAX_DEPTH else "size"
            snap.unread[addr] = snap.error
            break
        try:
            if addr & 3:        # rb_nodes are aligned: not a node
                raise Fault(addr)
            raw = _read_node(mem, spec, addr, ctx, span)
        except Fault as e:
            snap.unread[addr] = f"unreadable ({e})"
            continue
        snap.nodes[addr] = raw
        snap.depth[addr] = depth
        snap.edges[addr] = [0, 0]
        if up:
            snap.edges[up][side] = addr
        if raw.right:
            stack.append((raw.right, depth + 1, addr, 1))
        if raw.left:
            stack.append((raw.left, depth + 1, addr, 0))
    for addr, *_ in stack:      # left unread by a stop: links, no lines
        if addr not in snap.nodes:
            snap.unread.setdefault(addr, snap.error or "stop")
    if spec.list_head is not None:
        _read_list(mem, spec, snap, ctx, span)
    return snap


LIST_CAP = 1 << 24
"""No node list is followed further than this, whatever its count says
(the module's max_total_nodes defaults to 2^21)."""


def _read_list(mem: Memory, spec: TreeSpec, snap: Snapshot, ctx,
               span: list) -> None:
    """Follow the tree's list of allocated nodes (the module's
    ``list_for_each_entry(n, &t->all, list)``) for at most the tree's own
    count of entries: listed nodes the walk did not reach become
    ``snap.lost`` (read in full, for their ``lost`` lines).  A list that
    cannot be trusted sets ``snap.list_problem`` instead of looping."""
    lay = spec.layout
    snap.listed, head = [], spec.list_head
    try:
        snap.allocated = mem.int(spec.nodes_slot, PTR, False) \
            if spec.nodes_slot is not None else None
        pos = mem.ptr(head)
    except Fault as e:
        snap.list_problem = f"the list head is unreadable ({e})"
        return
    cap = min(LIST_CAP, snap.allocated if snap.allocated is not None
              else LIST_CAP)
    seen: set = set()
    while pos != head:
        if len(snap.listed) >= cap:
            snap.list_problem = (f"the list goes on past {cap} entries "
                                 f"(nodes says {snap.allocated})")
            return
        if pos in seen:
            snap.list_problem = (f"the list loops: entry {len(snap.listed)}"
                                 f" is {pos:#x} again")
            return
        if not pos or pos & 7:
            snap.list_problem = (f"entry {len(snap.listed)} of the list "
                                 f"is {pos:#x}, not a list_head")
            return
        seen.add(pos)
        addr = pos - spec.list_off + lay.node_off
        raw = snap.nodes.get(addr)
        if raw is None:
            try:
                raw = _read_node(mem, spec, addr, ctx, span)
            except Fault as e:
                snap.list_problem = (f"entry {len(snap.listed)} of the "
                                     f"list is unreadable ({e})")
                return
            snap.lost[addr] = raw
        snap.listed.append(addr)
        pos = raw.next
    if snap.allocated is not None and len(snap.listed) != snap.allocated:
        snap.list_problem = (f"the list has {len(snap.listed)} entries, "
                             f"nodes says {snap.allocated}")
        return
    listed = set(snap.listed)
    stray = next((a for a in snap.nodes if a not in listed), None)
    if stray is not None:
        snap.list_problem = (f"node at {stray:#x}, reached from the root, "
                             "is not on the tree's list")


def _inorder(snap: Snapshot) -> list:
    """Addresses of the read nodes in order (first-reach structure)."""
    out, stack, addr = [], [], snap.root if snap.root in snap.nodes else 0
    def read(a: int) -> int:
        return a if a in snap.nodes else 0
    while stack or addr:
        while addr:
            stack.append(addr)
            addr = read(snap.edges[addr][0])
        addr = stack.pop()
        out.append(addr)
        addr = read(snap.edges[addr][1])
    return out


def number(snap: Snapshot) -> dict:
    """Address -> node id: real ids if the tree has them, else in order;
    unread link targets and lost nodes get ids after those.  A tree with
    real ids gives none to an address that is no node of its dump: a link
    to it is written ``?``, as the module writes it."""
    ids: dict = {}
    lost = snap.lost if snap.has_list() else {}
    if snap.spec.node_id is not None:
        ids = {a: r.id for a, r in snap.nodes.items()}
        ids.update((a, r.id) for a, r in lost.items())
        return ids
    for addr in _inorder(snap):
        ids[addr] = len(ids)
    for addr in lost:
        ids[addr] = len(ids)
    nxt = max(ids.values(), default=-1) + 1
    for addr in snap.unread:
        if addr not in ids:
            ids[addr] = nxt
            nxt += 1
    return ids


def _recompute(snap: Snapshot) -> dict:
    """Address -> the augmented value recomputed by the rule (postorder)."""
    rule, out = snap.spec.aug_rule, {}
    for addr in reversed(list(snap.nodes)):     # children before parents
        raw = snap.nodes[addr]
        kids = [out[c] for c in snap.edges[addr] if c in out]
        if rule == "size":
            out[addr] = 1 + sum(kids)
        elif rule == "sum":
            out[addr] = raw.own + sum(kids)
        else:
            out[addr] = max([raw.own] + kids)
    return out


def extra_violations(snap: Snapshot, ids: dict) -> list:
    """What the dump cannot carry: faults, a cache pointing at no node,
    and an augmented value other than ``size`` against its rule."""
    out = []
    if snap.list_problem:
        out.append(checker.Violation(
            "unreachable", None, f"the tree's node list cannot be "
            f"trusted: {snap.list_problem}"))
    for addr, why in snap.unread.items():
        if why.startswith("unreadable"):
            out.append(checker.Violation(
                "parent", ids.get(addr),
                f"node at {addr:#x} is linked but {why}"))
    for cls, cached in (("leftmost", snap.leftmost),
                        ("rightmost", snap.rightmost)):
        if cached and cached not in ids:
            out.append(checker.Violation(
                cls, None, f"cached {cls} {cached:#x} is no node of the "
                "tree"))
    if snap.spec.aug_rule and "augmented" not in snap.spec.flags:
        want = _recompute(snap)
        for addr in reversed(list(snap.nodes)):
            if snap.nodes[addr].aug != want[addr]:
                out.append(checker.Violation(
                    "augment", ids[addr],
                    f"{snap.spec.aug_name} is {snap.nodes[addr].aug}, "
                    f"{snap.spec.aug_rule} over its subtree is "
                    f"{want[addr]}"))
    return out


def _height(snap: Snapshot) -> int:
    """As rbti_height(): one more than the cap if the walk went deeper."""
    if snap.error == "depth":
        return MAX_DEPTH + 1
    return max(snap.depth.values(), default=0)


def to_dump(snap: Snapshot, ids: dict) -> str:
    """The dump text of *snap* (kmod/DEBUGFS.md, and its section "Dumps
    read from kernel memory"): ``nodes`` and ``lost`` lines only if the
    tree's node list was read and can be trusted."""
    spec = snap.spec

    def ref(addr: int | None) -> str:
        return "-" if not addr else str(ids[addr]) if addr in ids else "?"

    def cache(addr: int | None) -> str:
        # A cache pointing at no node (of the dump) cannot be written,
        # since the parser takes no '?' there: '-' (and
        # extra_violations() reports it).
        return str(ids[addr]) if addr in ids else "-"

    def line(tag: str, raw: Raw) -> str:
        aug = "-" if raw.aug is None else str(raw.aug)
        color = "B" if raw.pc & RB_BLACK else "R"
        return (f"{tag} {ids[raw.addr]} {raw.key} {color} "
                f"{ref(raw.pc & ~3)} {ref(raw.left)} {ref(raw.right)} {aug}")

    count = snap.count if snap.count is not None else len(snap.nodes)
    listed = snap.has_list()
    out = [f"tree {spec.name}", f"api {spec.api}",
           f"flags {format_flags(spec.flags)}", f"count {count}"]
    if listed:
        out.append(f"nodes {snap.allocated if snap.allocated is not None else len(snap.listed)}")
    out += [f"root {ref(snap.root)}",
            f"leftmost {cache(snap.leftmost)}",
            f"rightmost {cache(snap.rightmost)}",
            f"height {_height(snap)}", f"aug {spec.aug_name or '-'}"]
    out += [line("node", raw) for raw in snap.nodes.values()]
    if snap.error:
        out.append(f"error {snap.error}")
    if listed:
        out += [line("lost", raw) for raw in snap.lost.values()]
    out.append(f"end {len(snap.nodes)}")
    return "\n".join(out) + "\n"


@dataclass
class Result:
    """A stable read and its verdict."""

    snap: Snapshot
    ids: dict
    text: str
    violations: list
    reads: int
    seconds: dict


def _violations(snap: Snapshot, ids: dict, text: str) -> list:
    return checker.check(parse_dump(text)) + extra_violations(snap, ids)


def read_stable(mem: Memory, spec: TreeSpec, attempts: int = 8,
                confirm: bool = True, max_nodes: int = 1 << 20) -> Result:
    """Read until two consecutive reads agree; check; if that shows a
    violation, take another stable read and report only what both show.
    Raises :class:`Changed` after *attempts* reads without that."""
    times = {"read": 0.0, "check": 0.0, "format": 0.0}
    reads, prev, first = 0, None, None
    bound = max_nodes
    while reads < attempts:
        t0 = time.monotonic()
        snap = read_once(mem, spec, bound)
        # A read torn by a change can wander into freed memory: bound the
        # next read by this one's size, so garbage cannot make it huge.
        bound = min(max_nodes, 2 * len(snap.nodes) + 1024)
        times["read"] += time.monotonic() - t0
        reads += 1
        if prev is None or snap.key() != prev.key():
            prev = snap
            continue
        t0 = time.monotonic()
        ids = number(snap)
        text = to_dump(snap, ids)
        times["format"] += time.monotonic() - t0
        t0 = time.monotonic()
        found = _violations(snap, ids, text)
        times["check"] += time.monotonic() - t0
        verdict = [(v.cls, v.message) for v in found]
        if not found or not confirm or (first is not None and
                                        first == verdict):
            return Result(snap, ids, text, found, reads, times)
        first, prev = verdict, None     # confirm on a fresh pair of reads
    raise Changed(f"{spec.name}: changed while reading ({reads} reads, "
                  "no two consecutive ones agreed)")


def address_table(res: Result) -> str:
    """``ID ADDRESS`` lines: node id to rb_node address."""
    rows = sorted((nid, addr) for addr, nid in res.ids.items())
    return "".join(f"{nid} {addr:#x}\n" for nid, addr in rows)


# --- drgn ----------------------------------------------------------------

def _drgn():
    if sys.flags.no_site and "drgn" not in sys.modules:
        # rbti runs as ``python3 -S`` (its start-up in the debug guest
        # skips the .pth files of unrelated packages); drgn lives in
        # dist-packages, which only the site module puts on sys.path.
        import site
        site.main()
    try:
        import drgn
    except ImportError:
        raise KernelError("drgn is not installed (Debian: python3-drgn)") \
            from None
    return drgn


class DrgnMemory(Memory):
    """Memory of a drgn Program; FaultError becomes Fault."""

    def __init__(self, prog) -> None:
        self.prog = prog
        self.fault = _drgn().FaultError

    def read(self, addr: int, size: int) -> bytes:
        try:
            return self.prog.read(addr, size)
        except (self.fault, ValueError, OverflowError):
            raise Fault(addr) from None


def unalias(type_):
    """*type_* without typedefs and qualifiers."""
    kinds = _drgn().TypeKind
    type_ = type_.unqualified()
    while type_.kind == kinds.TYPEDEF:
        type_ = type_.type.unqualified()
    return type_


class DrgnType(TypeInfo):
    """TypeInfo of a drgn Type."""

    def __init__(self, type_) -> None:
        self.type = unalias(type_)
        self.cache: dict = {}

    def member(self, name: str) -> tuple:
        if name in self.cache:
            return self.cache[name]
        kinds = _drgn().TypeKind
        try:
            member = self.type.member(name)
        except (LookupError, ValueError, TypeError):
            raise AttributeError(f"{self.type.type_name()} has no member "
                                 f"{name!r}") from None
        off = member.bit_offset // 8
        mtype = unalias(member.type)
        if mtype.kind in (kinds.STRUCT, kinds.UNION):
            value = (off, 0, False, DrgnType(mtype))
        else:
            signed = False
            if mtype.kind == kinds.INT:
                signed = mtype.is_signed
            elif mtype.kind == kinds.ENUM and mtype.type is not None:
                signed = mtype.type.is_signed
            value = (off, mtype.size or PTR, signed, None)
        self.cache[name] = value
        return value


def _build_id_of_notes(data: bytes) -> str | None:
    """The GNU build id in a run of ELF notes."""
    pos = 0
    while pos + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
        name_end = pos + 12 + ((namesz + 3) & ~3)
        desc = data[name_end:name_end + descsz]
        if ntype == 3 and data[pos + 12:pos + 12 + namesz].rstrip(b"\0") \
                == b"GNU":
            return desc.hex()
        pos = name_end + ((descsz + 3) & ~3)
    return None


def build_id_of_elf(path: str) -> str | None:
    """The GNU build id of an ELF64 file (from its SHT_NOTE sections)."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            if head[:4] != b"\x7fELF" or head[4] != 2:
                return None
            shoff, = struct.unpack_from("<Q", head, 0x28)
            shentsize, shnum = struct.unpack_from("<HH", head, 0x3a)
            f.seek(shoff)
            table = f.read(shentsize * shnum)
            for i in range(shnum):
                sh = table[i * shentsize:(i + 1) * shentsize]
                stype, = struct.unpack_from("<I", sh, 4)
                off, size = struct.unpack_from("<QQ", sh, 0x18)
                if stype == 7 and size < 1 << 16:
                    f.seek(off)
                    found = _build_id_of_notes(f.read(size))
                    if found:
                        return found
    except (OSError, struct.error):
        return None
    return None


def running_build_id(notes: str) -> str | None:
    """The build id in a sysfs notes file, or None if absent."""
    try:
        with open(notes, "rb") as f:
            return _build_id_of_notes(f.read())
    except OSError:
        return None


def find_vmlinux(explicit: str | None) -> str:
    """The vmlinux of the running kernel; KernelError naming what is
    missing."""
    want = running_build_id("/sys/kernel/notes")
    release = os.uname().release
    places = [explicit] if explicit else [
        os.path.join(os.environ[v], "vmlinux")
        for v in ("RBTI_KBUILD",) if os.environ.get(v)] + [
        f"/usr/lib/debug/boot/vmlinux-{release}",
        f"/lib/modules/{release}/build/vmlinux", f"/boot/vmlinux-{release}"]
    for path in places:
        if os.path.exists(path):
            have = build_id_of_elf(path)
            if explicit or want is None or have == want:
                return path
    raise KernelError(
        f"no vmlinux for the running kernel (build id {want or 'unknown'}); "
        f"looked in {', '.join(places)}; set RBTI_KBUILD or pass --vmlinux")


def find_module_ko(name: str, dirs: list) -> str | None:
    """The .ko of loaded module *name* whose build id matches, if any."""
    want = running_build_id(f"/sys/module/{name}/notes/.note.gnu.build-id")
    if want is None:
        return None
    for d in dirs:
        for root, _, files in os.walk(d):
            for fname in files:
                if fname == f"{name}.ko":
                    path = os.path.join(root, fname)
                    if build_id_of_elf(path) == want:
                        return path
    raise KernelError(f"module {name} is loaded (build id {want}) but no "
                      f"{name}.ko with that build id under "
                      f"{', '.join(dirs) or '(nowhere: set RBTI_KMOD)'}")


def _fstype(path: str) -> str:
    """The type of the filesystem holding *path* (from /proc/mounts)."""
    best, kind = "", ""
    path = os.path.realpath(path)
    try:
        with open("/proc/mounts") as f:
            for line in f:
                fields = line.split()
                mnt = fields[1]
                if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) \
                        and len(mnt) >= len(best):
                    best, kind = mnt, fields[2]
    except OSError:
        pass
    return kind


def local_copy(path: str) -> str:
    """*path*, or a copy under $TMPDIR if it is on 9p: drgn reads debug
    info through mmap, and page faults over 9p made loading vmlinux take
    121 s in the debug guest (copy 20 s + load from tmpfs 11 s)."""
    if _fstype(path) != "9p":
        return path
    tmp = os.environ.get("TMPDIR", "/tmp")
    if _fstype(tmp) == "9p":
        return path
    st = os.stat(path)
    key = build_id_of_elf(path) or f"{st.st_size}-{int(st.st_mtime)}"
    dest = os.path.join(tmp, "rbti-debuginfo", key, os.path.basename(path))
    if not os.path.exists(dest) or os.path.getsize(dest) != st.st_size:
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        part = dest + ".part"
        with open(path, "rb") as src, open(part, "wb") as out:
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
        os.replace(part, dest)
    return dest


VMCOREINFO_NAME = b"VMCOREINFO"
_PHDR = struct.Struct("<IIQQQQQQ")
PT_LOAD, PT_NOTE = 1, 4


def _elf_phdrs(f) -> tuple:
    """(e_phoff, [phdr tuples]) of the ELF64 little-endian file *f*."""
    f.seek(0)
    head = f.read(64)
    if head[:4] != b"\x7fELF" or head[4] != 2 or head[5] != 1:
        raise KernelError("not an ELF64 little-endian core dump")
    phoff, = struct.unpack_from("<Q", head, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", head, 0x36)
    if phentsize != _PHDR.size:
        raise KernelError(f"ELF program header size {phentsize}")
    f.seek(phoff)
    table = f.read(phentsize * phnum)
    return phoff, [_PHDR.unpack_from(table, i * phentsize)
                   for i in range(phnum)]


def _notes(data: bytes):
    """(name, desc) of each ELF note in *data*."""
    pos = 0
    while pos + 12 <= len(data):
        namesz, descsz, _ = struct.unpack_from("<III", data, pos)
        name_end = pos + 12 + ((namesz + 3) & ~3)
        yield (data[pos + 12:pos + 12 + namesz].rstrip(b"\0"),
               data[name_end:name_end + descsz])
        pos = name_end + ((descsz + 3) & ~3)


def core_has_vmcoreinfo(path: str) -> bool:
    """True if the ELF core *path* carries a VMCOREINFO note (what drgn
    needs to treat it as a kernel's memory)."""
    with open(path, "rb") as f:
        _, phdrs = _elf_phdrs(f)
        for p_type, _, off, _, _, filesz, _, _ in phdrs:
            if p_type == PT_NOTE and filesz < 1 << 24:
                f.seek(off)
                if any(name == VMCOREINFO_NAME
                       for name, _ in _notes(f.read(filesz))):
                    return True
    return False


START_KERNEL_MAP = 0xffffffff80000000
IMAGE_VIEW = 256 << 20
"""x86-64 maps the kernel image at __START_KERNEL_map + (physical address
- phys_base); the view added covers this much from _stext, and stops
where the modules start (KERNEL_IMAGE_SIZE after __START_KERNEL_map:
512 MiB, or 1 GiB with KASLR), whose memory it must not shadow."""


def _image_segments(phdrs: list, phys_base: int, stext: int,
                    kaslr: bool) -> list:
    """PT_LOAD headers giving the kernel image's virtual addresses to the
    physical memory of *phdrs* (the same file bytes, a second view)."""
    vlo = stext & ~((2 << 20) - 1)
    vhi = min(vlo + IMAGE_VIEW, START_KERNEL_MAP + ((1 << 30) if kaslr
                                                    else (512 << 20)))
    plo, phi = (v - START_KERNEL_MAP + phys_base for v in (vlo, vhi))
    out = []
    for p_type, flags, off, _, paddr, filesz, memsz, align in phdrs:
        lo, hi = max(paddr, plo), min(paddr + filesz, phi)
        if p_type == PT_LOAD and lo < hi:
            out.append((PT_LOAD, flags, off + lo - paddr,
                        START_KERNEL_MAP + lo - phys_base, lo, hi - lo,
                        hi - lo, align))
    return out


def add_vmcoreinfo(path: str) -> int:
    """Make a QEMU ``dump-guest-memory`` ELF (paging off) readable by drgn
    as the kernel's memory.

    QEMU's ``dump-guest-memory`` writes the kernel's VMCOREINFO note only
    if the guest published it through the vmcoreinfo device, which needs
    CONFIG_FW_CFG_SYSFS (not in our guest configs).  The kernel keeps the
    note in memory anyway (crash_core.c, vmcoreinfo_note: "VMCOREINFO",
    then "OSRELEASE=..."), so it is found in the PT_LOAD data and appended
    to the file as one more PT_NOTE segment; the program header table is
    rewritten at the end of the file (e_phoff moves), no byte of memory
    moves.

    Such a dump's PT_LOAD segments carry physical addresses only (p_vaddr
    is p_paddr), and drgn 0.0.22 reads the page tables from
    ``swapper_pg_dir``, a virtual address in the kernel image, so it could
    not translate anything ("recursive address translation").  The note
    gives ``phys_base``, so the image's virtual view of the same bytes is
    added too (x86-64: __START_KERNEL_map + physical - phys_base).
    Returns the file offset where the note was found."""
    import mmap
    marker = VMCOREINFO_NAME + b"\0\0OSRELEASE="
    with open(path, "r+b") as f:
        phoff, phdrs = _elf_phdrs(f)
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            found, pos = None, m.find(marker)
            while pos >= 12 and found is None:
                namesz, descsz, ntype = struct.unpack_from("<III", m,
                                                           pos - 12)
                desc = m[pos + 12:pos + 12 + descsz]
                if namesz == len(VMCOREINFO_NAME) + 1 and ntype == 0 and \
                        descsz < 1 << 16 and b"SYMBOL(swapper_pg_dir)=" \
                        in desc:
                    found = pos - 12
                    note = bytes(m[found:pos + 12 + ((descsz + 3) & ~3)])
                else:
                    pos = m.find(marker, pos + 1)
        if found is None:
            raise KernelError(f"{path}: no VMCOREINFO note in its memory "
                              "(not a Linux guest, or a kernel without "
                              "CONFIG_CRASH_CORE)")
        info = dict(line.split("=", 1) for line in note[24:].decode(
            "ascii", "replace").split("\n") if "=" in line)
        phys_base = int(info.get("NUMBER(phys_base)", "0"), 10)
        new = [(PT_NOTE, 0, 0, 0, 0, len(note), 0, 4)]
        if "SYMBOL(_stext)" in info and not any(
                ph[0] == PT_LOAD and ph[3] >= START_KERNEL_MAP
                for ph in phdrs):
            new += _image_segments(
                phys_base=phys_base, phdrs=phdrs,
                stext=int(info["SYMBOL(_stext)"], 16),
                kaslr=int(info.get("KERNELOFFSET", "0"), 16) != 0)
        end = f.seek(0, os.SEEK_END)
        end += -end % 8
        new[0] = (PT_NOTE, 0, end, 0, 0, len(note), 0, 4)
        f.seek(end)
        f.write(note + b"\0" * (-len(note) % 8))
        table = end + len(note) + (-len(note) % 8)
        for ph in phdrs + new:
            f.write(_PHDR.pack(*ph))
        f.seek(0x20)
        f.write(struct.pack("<Q", table))
        f.seek(0x38)
        f.write(struct.pack("<H", len(phdrs) + len(new)))
    return found


def open_program(args):
    """A drgn Program over /proc/kcore (or --core) with debug info."""
    drgn = _drgn()
    core = args.core or args.kcore
    if not os.path.exists(core):
        if args.core:
            raise KernelError(f"{args.core}: no such core dump")
        raise KernelError(f"{args.kcore} does not exist: the kernel was "
                          "built without CONFIG_PROC_KCORE (or /proc is "
                          "not mounted)")
    if args.core:
        if not args.vmlinux:
            raise KernelError("--core needs --vmlinux (the dump's kernel)")
        files = [args.vmlinux]
    else:
        files = [find_vmlinux(args.vmlinux)]
        dirs = [d for d in (os.environ.get("RBTI_KMOD"),) if d]
        ko = find_module_ko("rbtree_inspector", dirs)
        if ko:
            files.append(ko)
    files += args.debug_info or []
    for path in files:
        if not os.path.exists(path):
            raise KernelError(f"{path}: no such debug info file")
    files = [local_copy(path) for path in files]
    if args.core and not core_has_vmcoreinfo(args.core):
        where = add_vmcoreinfo(args.core)
        print(f"rbti {args.command}: {args.core} had no VMCOREINFO note "
              "(a QEMU dump of a guest without CONFIG_FW_CFG_SYSFS); added "
              f"the kernel's own, found at file offset {where:#x}",
              file=sys.stderr)
    prog = drgn.Program()
    try:
        if core == "/proc/kcore":
            prog.set_kernel()
        else:
            prog.set_core_dump(core)
    except (OSError, ValueError) as e:
        raise KernelError(f"{core}: {e}") from None
    try:
        prog.load_debug_info(files)
    except drgn.MissingDebugInfoError as e:
        # Missing info for modules we do not read is fine.
        if "vmlinux" in str(e) and "kernel" in str(e).lower():
            raise KernelError(f"no debug info for the kernel: {e}") from None
    return prog


# --- presets ---------------------------------------------------------------

def _cached_root(obj):
    """(&root.rb_node, &leftmost or None) of an rb_root[_cached] object."""
    drgn = _drgn()
    if unalias(obj.type_).kind == drgn.TypeKind.POINTER:
        obj = obj[0]
    tname = unalias(obj.type_).type_name()
    if tname == "struct rb_root_cached":
        return (obj.rb_root.rb_node.address_, obj.rb_leftmost.address_)
    if tname == "struct rb_root":
        return obj.rb_node.address_, None
    raise KernelError(f"root is a {tname}, not struct rb_root or "
                      "struct rb_root_cached")


def make_layout(prog, entry: str, member: str) -> Layout:
    """The Layout of *entry* (a type name) linked through *member*."""
    drgn = _drgn()
    try:
        etype = prog.type(entry)
    except LookupError as e:
        raise KernelError(f"no type {entry!r}: {e}") from None
    rbn = prog.type("struct rb_node")
    try:
        node_off = drgn.offsetof(etype, member)
    except (LookupError, ValueError) as e:
        raise KernelError(f"{entry} has no member {member!r}: {e}") from None
    return Layout(DrgnType(etype), node_off,
                  drgn.offsetof(rbn, "__rb_parent_color"),
                  drgn.offsetof(rbn, "rb_right"),
                  drgn.offsetof(rbn, "rb_left"))


def _field(name: str) -> Callable:
    parts = name.split(".")

    def get(e, ctx):
        for part in parts:
            e = getattr(e, part)
        return e
    return get


def preset_vmap(prog, args) -> list:
    lay = make_layout(prog, "struct vmap_area", "rb_node")
    root, _ = _cached_root(prog["vmap_area_root"])
    return [TreeSpec("vmap_area", lay, root, _field("va_start"))]


def preset_free_vmap(prog, args) -> list:
    # mm/vmalloc.c: RB_DECLARE_CALLBACKS_MAX(..., subtree_max_size, va_size)
    # with va_size(va) = va_end - va_start (bytes, in 6.1).
    lay = make_layout(prog, "struct vmap_area", "rb_node")
    root, _ = _cached_root(prog["free_vmap_area_root"])
    return [TreeSpec("free_vmap_area", lay, root, _field("va_start"),
                     aug_name="subtree_max_size",
                     aug=_field("subtree_max_size"), aug_rule="max",
                     aug_value=lambda e, c: e.va_end - e.va_start)]


def _cpus(prog) -> list:
    from drgn.helpers.linux.cpumask import for_each_online_cpu
    return list(for_each_online_cpu(prog))


def preset_cfs(prog, args) -> list:
    from drgn.helpers.linux.percpu import per_cpu
    lay = make_layout(prog, "struct sched_entity", "run_node")
    mem = DrgnMemory(prog)
    out = []
    for cpu in _cpus(prog):
        cfs = per_cpu(prog["runqueues"], cpu).cfs
        root, left = _cached_root(cfs.tasks_timeline)
        minv = cfs.min_vruntime.address_
        # fair.c orders by (s64)(a->vruntime - b->vruntime) < 0: the key
        # is vruntime relative to the queue's min_vruntime, as s64.
        out.append(TreeSpec(
            f"cfs/cpu{cpu}", lay, root,
            lambda e, c: s64(e.vruntime - c), flags=frozenset({"dup",
                                                               "leftmost"}),
            leftmost_slot=left,
            context=lambda m=minv: mem.int(m, 8, False),
            note="key: vruntime - min_vruntime"))
    return out


HRTIMER_BASES = ("monotonic", "realtime", "boottime", "tai",
                 "monotonic_soft", "realtime_soft", "boottime_soft",
                 "tai_soft")


def preset_hrtimer(prog, args) -> list:
    from drgn.helpers.linux.percpu import per_cpu
    lay = make_layout(prog, "struct timerqueue_node", "node")
    out = []
    for cpu in _cpus(prog):
        cpu_base = per_cpu(prog["hrtimer_bases"], cpu)
        for i, base in enumerate(cpu_base.clock_base):
            root, left = _cached_root(base.active.rb_root)
            name = HRTIMER_BASES[i] if i < len(HRTIMER_BASES) else str(i)
            out.append(TreeSpec(f"hrtimer/cpu{cpu}/{name}", lay, root,
                                _field("expires"),
                                flags=frozenset({"dup", "leftmost"}),
                                leftmost_slot=left))
    return out


def preset_kernfs(prog, args) -> list:
    from drgn.helpers.linux.kernfs import kernfs_walk
    path = args.path or "/"
    kn = kernfs_walk(prog["sysfs_root_kn"], path.strip("/"))
    if not kn:
        raise KernelError(f"no sysfs directory {path!r}")
    lay = make_layout(prog, "struct kernfs_node", "rb")
    root, _ = _cached_root(kn.dir.children)
    # kernfs_sd_compare(): hash, then namespace, then name: equal hashes
    # are legal, so the tree is a dup tree on the hash.
    return [TreeSpec(f"kernfs:/sys/{path.strip('/')}", lay, root,
                     _field("hash"), flags=frozenset({"dup"}),
                     note="key: name hash")]


FLAG_BITS = ("unique", "dup", "replace", "leftmost", "rightmost", "count",
             "augmented", "outofline")
"""RBTI_* bits of kmod/inspector.h, in bit order."""


def _node_list(prog, tree) -> dict:
    """TreeSpec fields for the module's per-tree list of allocated nodes
    (kmod/inspector.h: rbti_tree.all and .nodes, rbti_node.list), or {}
    for a module built before it had one."""
    drgn = _drgn()
    try:
        return dict(list_head=int(tree.all.address_),
                    list_off=drgn.offsetof(prog.type("struct rbti_node"),
                                           "list"),
                    nodes_slot=int(tree.nodes.address_))
    except (AttributeError, LookupError, ValueError):
        return {}


def preset_inspector(prog, args) -> list:
    try:
        trees = prog["rbti_trees"]
    except KeyError:
        raise KernelError("no symbol rbti_trees: is rbtree_inspector "
                          "loaded and its .ko found (RBTI_KMOD)?") from None
    lay = make_layout(prog, "struct rbti_node", "rb")
    out = []
    for t in trees:
        ops = t.ops
        if not ops:
            continue
        bits = int(ops.flags)
        flags = frozenset(f for i, f in enumerate(FLAG_BITS) if bits >> i & 1)
        aug = "augmented" in flags
        listed = _node_list(prog, t)
        out.append(TreeSpec(
            ops.name.string_().decode(), lay, t.root.rb_node.address_,
            _field("key"), api=ops.api.string_().decode(), flags=flags,
            leftmost_slot=(t.leftmost.address_ if "leftmost" in flags
                           else None),
            rightmost_slot=(t.rightmost.address_ if "rightmost" in flags
                            else None),
            # The dump's count: rbti_count(), the cached count or else
            # the number of allocated nodes.
            count_slot=(t.count.address_ if "count" in flags else
                        listed.get("nodes_slot")),
            node_id=_field("id"), aug_name="size" if aug else None,
            aug=_field("size") if aug else None,
            aug_rule="size" if aug else None, **listed))
    return out


def preset_custom(prog, args) -> list:
    if not (args.root_expr and args.entry and args.member and args.key):
        raise KernelError("give --preset, or --root, --type, --member and "
                          "--key")
    drgn = _drgn()
    env = {"prog": prog, "drgn": drgn, "s64": s64, "u64": u64}
    try:
        from drgn.helpers.linux import percpu
        env.update(per_cpu=percpu.per_cpu)
    except ImportError:
        pass
    try:
        obj = eval(args.root_expr, env)     # noqa: S307 (the user's drgn)
    except Exception as e:  # noqa: BLE001 (any error of the expression)
        raise KernelError(f"--root {args.root_expr!r}: {e}") from None
    root, left = _cached_root(obj)
    lay = make_layout(prog, args.entry, args.member)

    def expr(text: str, what: str) -> Callable:
        try:
            code = compile(text, what, "eval")
        except SyntaxError as e:
            raise KernelError(f"{what} {text!r}: {e}") from None
        return lambda e, c: eval(code, env, {"e": e})  # noqa: S307
    aug = args.aug.split("=", 1) if args.aug else None
    rule = value = None
    if args.aug_rule:
        rule, _, vtext = args.aug_rule.partition(":")
        if rule not in ("size", "max", "sum") or (rule != "size") != bool(
                vtext):
            raise KernelError("--aug-rule: size, max:EXPR or sum:EXPR")
        value = expr(vtext, "--aug-rule") if vtext else None
    flags = {"dup" if args.dup else "unique"}
    if left is not None:
        flags.add("leftmost")
    return [TreeSpec(
        args.name or args.root_expr, lay, root, expr(args.key, "--key"),
        flags=frozenset(flags), leftmost_slot=left,
        aug_name=aug[0] if aug else None,
        aug=expr(aug[-1], "--aug") if aug else None,
        aug_rule=rule, aug_value=value)]


PRESETS = {
    "vmap_area": preset_vmap,
    "free_vmap_area": preset_free_vmap,
    "cfs": preset_cfs,
    "hrtimer": preset_hrtimer,
    "kernfs": preset_kernfs,
    "inspector": preset_inspector,
}


# --- command line ----------------------------------------------------------

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_CHANGED = 0, 1, 2, 3


def _specs(prog, args) -> list:
    build = PRESETS.get(args.preset, preset_custom)
    try:
        specs = build(prog, args)
    except KeyError as e:
        raise KernelError(f"preset {args.preset}: no symbol {e}") from None
    if args.tree:
        specs = [s for s in specs if s.name == args.tree]
        if not specs:
            raise KernelError(f"no tree {args.tree!r} in preset "
                              f"{args.preset} (see --list)")
    return specs


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _blame(v, res: Result) -> str:
    addr = {i: a for a, i in res.ids.items()}.get(v.node)
    return f"{v}" + (f" [{addr:#x}]" if addr is not None else "")


def cmd_kernel(args, prog) -> int:
    t_setup = time.monotonic()
    specs = _specs(prog, args)
    setup = time.monotonic() - t_setup
    if args.list:
        for s in specs:
            print(s.name)
        return EXIT_OK
    if not args.check and not args.out and len(specs) != 1:
        raise KernelError(f"{len(specs)} trees: pick one with --tree, or "
                          "use --out DIR or --check "
                          f"({', '.join(s.name for s in specs)})")
    mem = DrgnMemory(prog)
    status = EXIT_OK
    addresses = []
    for spec in specs:
        try:
            res = read_stable(mem, spec, args.attempts)
        except Changed as e:
            print(f"{spec.name}: {e}", file=sys.stderr)
            status = max(status, EXIT_CHANGED) if status != EXIT_FAIL \
                else status
            continue
        except Fault as e:
            print(f"{spec.name}: the tree's root: {e}", file=sys.stderr)
            status = EXIT_FAIL
            continue
        if args.times:
            secs = " ".join(f"{k} {v:.3f}s" for k, v in res.seconds.items())
            print(f"{spec.name}: {len(res.snap.nodes)} nodes, {res.reads} "
                  f"reads, setup {setup:.3f}s {secs}", file=sys.stderr)
        addresses.append(address_table(res))
        if args.check:
            if res.violations:
                status = EXIT_FAIL
                for v in res.violations[:10]:
                    print(f"{spec.name}: {_blame(v, res)}")
            else:
                print(f"{spec.name}: ok ({len(res.snap.nodes)} nodes)")
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, _safe_name(spec.name) +
                                   ".dump"), "w") as f:
                f.write(res.text)
        elif not args.check:
            sys.stdout.write(res.text)
    if args.addresses:
        text = "".join(addresses)
        if args.addresses == "-":
            sys.stderr.write(text)
        else:
            with open(args.addresses, "w") as f:
                f.write(text)
    return status


def compare_trees(a, b) -> str | None:
    """The first difference between two parsed dumps, or None."""
    for name in record.fields(a):
        x, y = getattr(a, name), getattr(b, name)
        if name == "nodes":
            if list(x) != list(y):
                return (f"node order differs: debugfs {list(x)[:8]}..., "
                        f"memory {list(y)[:8]}...")
            for nid in x:
                if x[nid] != y[nid]:
                    return f"node {nid}: debugfs {x[nid]}, memory {y[nid]}"
        elif x != y:
            return f"{name}: debugfs {x!r}, memory {y!r}"
    return None


def cmd_verify(args, prog) -> int:
    from .driver import DEFAULT_ROOT, Debugfs
    driver = Debugfs(getattr(args, "root", DEFAULT_ROOT) or DEFAULT_ROOT)
    args.preset, args.tree = "inspector", None
    specs = _specs(prog, args)
    if args.trees:
        unknown = set(args.trees) - {s.name for s in specs}
        if unknown:
            raise KernelError(f"unknown tree {', '.join(sorted(unknown))}")
        specs = [s for s in specs if s.name in args.trees]
    mem = DrgnMemory(prog)
    status = EXIT_OK
    for spec in specs:
        for _ in range(args.attempts):
            before = driver.dump_text(spec.name)
            res = read_stable(mem, spec, args.attempts, confirm=False)
            if driver.dump_text(spec.name) == before:
                break
        else:
            print(f"{spec.name}: changed while reading")
            status = max(status, EXIT_CHANGED)
            continue
        diff = compare_trees(parse_dump(before), parse_dump(res.text))
        if diff:
            print(f"{spec.name}: MISMATCH {diff}")
            status = EXIT_FAIL
        else:
            print(f"{spec.name}: same ({len(res.snap.nodes)} nodes)")
    return status


def run(args, prog=None) -> int:
    """Run ``kernel`` or ``verify``; return the exit status.  *prog*: an
    open drgn Program to reuse (loading debug info takes a while)."""
    try:
        if prog is None:
            prog = open_program(args)
        if args.command == "verify":
            return cmd_verify(args, prog)
        return cmd_kernel(args, prog)
    except KernelError as e:
        print(f"rbti {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:
        print(f"rbti {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
