# SPDX-License-Identifier: GPL-2.0
"""Read a red-black tree out of memory, once, without trusting it.

The walk never trusts the tree (it is read while the kernel changes it, and
it may be corrupt): it follows child pointers only, every read goes through
:class:`Memory`, which turns an unreadable address into
:class:`~rbtilib.kernel.Fault`, a node reached twice is written as a link
and not followed, and the depth is capped at 128 like the module's walk.

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

A latch tree (``struct latch_tree_root``: two copies of one tree, each
entry linked into both through ``latch_tree_node.node[0]`` and
``node[1]``) is read copy by copy: copy 0 as any tree, with its node list,
then copy 1 from its own root through the entries' second rb_node, walked
the same way and as bounded (:class:`CopySnap`).
"""

import struct
from typing import Callable

from ..record import factory, record
from . import Fault

ROOT_TYPES = {"rb_root": False, "rb_root_cached": True,
              "rb_root_linked": True}
"""Root struct tags, and whether they cache the leftmost node: both
rb_root_cached and 7.x's rb_root_linked keep it in the word after the
rb_root, as members rb_root and rb_leftmost (rb_root_linked's points to
a struct rb_node_linked, whose rb_node comes first)."""

MAX_DEPTH = 128
"""Deepest level walked, as RBTI_MAX_DEPTH in kmod/inspector.h."""

PTR = 8
RB_BLACK = 1
PAGE = 4096
_RB_NODE = struct.Struct("<QQQ")    # __rb_parent_color, rb_right, rb_left


class Memory:
    """Reads of (possibly unmapped) kernel memory; subclasses define read."""

    def read(self, addr: int, size: int) -> bytes:
        raise NotImplementedError

    def ptr(self, addr: int) -> int:
        return struct.unpack("<Q", self.read(addr, PTR))[0]

    def int(self, addr: int, size: int, signed: bool) -> int:
        return int.from_bytes(self.read(addr, size), "little", signed=signed)

    def pass_reader(self) -> "Memory":
        """What one pass over a tree reads through: *self*, or (where a
        read costs the same for a word as for a page, as a read of
        /proc/kcore or of a core file does) a :class:`PageReads` of it."""
        return self


class PageReads(Memory):
    """The reads of one pass over a tree, served from whole pages of
    *mem*: the nodes of a tree share slab pages (in a debug guest 3,000
    kernfs nodes lay in 441 pages), and a read of /proc/kcore takes about
    as long for a page as for a word.  A page is read once a pass and
    never kept past it.  A page that cannot be read whole is not taken as
    unreadable: its reads go to *mem* one by one, so faults are exactly
    those of *mem*.  At most *cap* pages (16 MiB) are held: a larger
    tree's pass drops them and its pair is two walks.

    Every read served is remembered, so that :meth:`unchanged` can tell
    whether memory still holds what the pass read."""

    __slots__ = ("mem", "pages", "bad", "cap", "served", "direct", "lost")

    def __init__(self, mem: Memory, cap: int = 4096) -> None:
        self.mem, self.pages, self.bad, self.cap = mem, {}, set(), cap
        self.served: dict = {}      # page -> [(off, end)] served from it
        self.direct: list = []      # (addr, size, bytes or None: a fault)
        self.lost = False           # pages dropped at the cap

    def _direct(self, addr: int, size: int) -> bytes:
        try:
            data = self.mem.read(addr, size)
        except Fault:
            self.direct.append((addr, size, None))
            raise
        self.direct.append((addr, size, data))
        return data

    def read(self, addr: int, size: int) -> bytes:
        page = addr & ~(PAGE - 1)
        off = addr - page
        if off + size > PAGE or page in self.bad:
            return self._direct(addr, size)
        data = self.pages.get(page)
        if data is None:
            try:
                data = self.mem.read(page, PAGE)
            except Fault:
                self.bad.add(page)
                return self._direct(addr, size)
            if len(self.pages) >= self.cap:
                self.pages.clear()
                self.lost = True
            self.pages[page] = data
            self.served[page] = []
        self.served[page].append((off, off + size))
        return data[off:off + size]

    def unchanged(self) -> bool:
        """True if every byte the pass read reads the same again (a page
        at a time, each read it served compared where a page differs),
        and every read that faulted faults again.  The walk is a function
        of the bytes it reads, so a second pass would then make the same
        snapshot: this is that second read, without the walk."""
        if self.lost:
            return False
        for page, data in self.pages.items():
            try:
                again = self.mem.read(page, PAGE)
            except Fault:
                return False
            if again != data and any(again[lo:hi] != data[lo:hi]
                                     for lo, hi in self.served[page]):
                return False
        for addr, size, data in self.direct:
            try:
                again = self.mem.read(addr, size)
            except Fault:
                again = None
            if again != data:
                return False
        return True


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
    """The bytes of one entry read so far: [base + lo, base + hi).
    *used*: the fields read outside them, each read on its own."""

    __slots__ = ("mem", "base", "lo", "buf", "used")

    def __init__(self, mem: Memory, base: int, lo: int, hi: int) -> None:
        self.mem, self.base, self.lo, self.used = mem, base, lo, []
        try:
            self.buf = mem.read(base + lo, hi - lo) if hi > lo else b""
        except Fault:
            self.buf = b""      # fall back to one read per field

    def int(self, off: int, size: int, signed: bool) -> int:
        start = off - self.lo
        if 0 <= start and start + size <= len(self.buf):
            return int.from_bytes(self.buf[start:start + size], "little",
                                  signed=signed)
        # Outside the window: read alone, and the span grows to it.
        self.used.append((off, off + size))
        return self.mem.int(self.base + off, size, signed)


class Field:
    """A key or aug that is one field of the entry, by its path of
    members (``"shared.rb_subtree_last"``): called as any key is
    (``(entry, ctx) -> int``), and read by the walk straight from the
    entry's bytes at the offset :meth:`at` finds, with no Entry."""

    __slots__ = ("parts",)

    def __init__(self, path: str) -> None:
        self.parts = tuple(path.split("."))

    def __call__(self, e, c):
        for part in self.parts:
            e = getattr(e, part)
        return e

    def at(self, info: TypeInfo) -> tuple | None:
        """(offset, size, signed) in an entry of *info*, or None if the
        path does not end at a scalar member of it."""
        off = 0
        for i, part in enumerate(self.parts):
            try:
                moff, size, signed, sub = info.member(part)
            except (AttributeError, LookupError, ValueError):
                return None
            off += moff
            if sub is None:
                return (off, size, signed) if i == len(self.parts) - 1 \
                    else None
            info = sub
        return None


def _fast(spec: "TreeSpec") -> tuple:
    """Once a pass, not once a node: (the key's field, the aug's field,
    each (offset, size, signed) or None; the rb_node laid out as the
    kernel's)."""
    info = spec.layout.entry
    return tuple(fn.at(info) if isinstance(fn, Field) else None
                 for fn in (spec.key, spec.aug)) + (spec.layout.standard,)


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

@record
class Layout:
    """Where the rb_node is in an entry and what its fields are."""

    entry: TypeInfo
    node_off: int               # offsetof(entry, rb_node member)
    parent_off: int = 0         # offsets inside struct rb_node
    right_off: int = 8
    left_off: int = 16
    # The entry bytes one read takes, [lo, hi) from the entry's start:
    # grown by every pass to the fields its keys read (at most 512
    # bytes), and kept for the next pass and the kind's next tree.
    span: list = factory(list)

    @property
    def standard(self) -> bool:
        """struct rb_node as the kernel lays it out."""
        return (self.parent_off, self.right_off, self.left_off) == \
            (0, 8, 16)


@record
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
    aug_rule: str | None = None             # 'size' | 'max' | 'min' | 'sum'
    aug_value: Callable | None = None       # (entry, ctx) -> own value
    aug_value_name: str | None = None       # its name: the dump's VALUE
    value: Callable | None = None           # (entry, ctx) -> VALUE
    value_name: str | None = None           # the dump's `value NAME`
    # A latch tree's copy 1: &latch_tree_root.tree[1].rb_node, and the
    # offset of each entry's second rb_node (latch_tree_node.node[1]).
    copy1_slot: int | None = None
    copy1_off: int = 0
    context: Callable | None = None         # (mem) -> ctx, read per pass
    base_slot: int | None = None            # the u64 context reads (C core)
    # The list of every node allocated for the tree, if it keeps one
    # (kmod/inspector.h: rbti_tree.all, rbti_node.list, rbti_tree.nodes):
    list_head: int | None = None            # &the struct list_head head
    list_off: int = 0                       # offsetof(entry, its list_head)
    nodes_slot: int | None = None           # &the list's length (ulong)
    note: str = ""
    hex: frozenset = frozenset()            # the dump's hex header


@record(frozen=True)
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
    value: int | None = None    # the entry's VALUE, on a value tree


@record
class CopySnap:
    """One read of a latch tree's copy 1: addresses are those of the
    entries' second rb_nodes (``copy1_off`` into each entry)."""

    root: int
    nodes: dict                 # rb_node address -> Raw, preorder
    edges: dict                 # address -> (left, right) first-reach
    depth: dict                 # address -> depth (1 = root)
    unread: dict                # address -> why (fault, depth, size)
    error: str | None = None

    def key(self) -> tuple:
        """What two reads must agree on."""
        return (self.root, tuple(self.nodes.values()), tuple(self.unread))


@record
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
    lost: dict = factory(dict)    # listed, not reached
    error: str | None = None
    allocated: int | None = None    # the list's length as the tree says
    list_problem: str | None = None     # why the list cannot be used
    copy1: CopySnap | None = None       # a latch tree's second copy

    def key(self) -> tuple:
        """What two reads must agree on."""
        return (self.root, self.leftmost, self.rightmost, self.count,
                tuple(self.nodes.values()), tuple(self.unread),
                tuple(self.listed or ()), tuple(self.lost.values()),
                self.allocated, self.list_problem,
                self.copy1.key() if self.copy1 is not None else None)

    def has_list(self) -> bool:
        """True if the dump carries ``nodes`` and ``lost`` lines."""
        return self.listed is not None and self.list_problem is None


def _read_node(mem: Memory, spec: TreeSpec, addr: int, ctx,
               span: list, node_off: int | None = None,
               fast: tuple = (None, None, False)) -> Raw:
    """Read the rb_node at *addr* (at *node_off* in its entry: the
    layout's, or copy 1's) and its entry's values (Fault if not).
    *fast*: what a pass finds once (:func:`_fast`): where the key and the
    aug are, if each is one field, and whether the rb_node is laid out
    as the kernel's."""
    lay = spec.layout
    node_off = lay.node_off if node_off is None else node_off
    base = addr - node_off
    win = _Window(mem, base, span[0], span[1])
    start = node_off - win.lo
    if fast[2] and 0 <= start and start + 24 <= len(win.buf):
        pc, right, left = _RB_NODE.unpack_from(win.buf, start)
    else:
        pc = win.int(node_off + lay.parent_off, PTR, False)
        right = win.int(node_off + lay.right_off, PTR, False)
        left = win.int(node_off + lay.left_off, PTR, False)
    entry = Entry(win, 0, lay.entry)
    key = win.int(*fast[0]) if fast[0] else spec.key(entry, ctx)
    aug = (win.int(*fast[1]) if fast[1] else spec.aug(entry, ctx)) \
        if spec.aug else None
    own = spec.aug_value(entry, ctx) if spec.aug_value else None
    nid = spec.node_id(entry, ctx) if spec.node_id else None
    nxt = (win.int(spec.list_off, PTR, False)
           if spec.list_head is not None else None)
    value = int(spec.value(entry, ctx)) if spec.value else None
    for lo, hi in win.used:     # next nodes: one read covers all fields
        if hi - min(lo, span[0]) <= 512 and max(hi, span[1]) - lo <= 512:
            span[0], span[1] = min(span[0], lo), max(span[1], hi)
    # A tuple key (a census kind's: a name, a file and a descriptor) is
    # ranked by the census before the check (census_read._ranked).
    key = key if isinstance(key, tuple) else int(key)
    return Raw(addr, pc, left, right, key, aug, nid, own, nxt, value)


def _walk(mem: Memory, spec: TreeSpec, snap, node_off: int, ctx,
          span: list, max_nodes: int,
          fast: tuple = (None, None, False)) -> None:
    """Walk from *snap.root* through child pointers only, into *snap*'s
    nodes, edges, depth, unread and error (a Snapshot or a CopySnap):
    preorder, left first, a node reached twice written as a link and not
    followed, at most MAX_DEPTH deep and *max_nodes* nodes.  *span*:
    the entry bytes one read takes (see _read_node), grown as it goes."""
    # Entries: (address, depth, linking node, side).
    stack = [(snap.root, 1, 0, 0)] if snap.root else []
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
            raw = _read_node(mem, spec, addr, ctx, span, node_off, fast)
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


def read_once(mem: Memory, spec: TreeSpec,
              max_nodes: int = 1 << 20) -> Snapshot:
    """Read *spec*'s tree once, through child pointers only (a latch
    tree: copy 0, then copy 1 the same way)."""
    return _read_once(mem.pass_reader(), spec, max_nodes)


def read_checked(mem: Memory, spec: TreeSpec,
                 max_nodes: int = 1 << 20) -> tuple:
    """:func:`read_once`, and whether a second read agrees: True if the
    pass read through :class:`PageReads` and memory still holds every
    byte it read (:meth:`PageReads.unchanged`), so that a second pass
    would make the same snapshot.  False says nothing: the caller reads
    again.  A pass stopped by *max_nodes* is never taken as agreed (the
    next pass may have another bound)."""
    reader = mem.pass_reader()
    snap = _read_once(reader, spec, max_nodes)
    return snap, (isinstance(reader, PageReads) and snap.error != "size"
                  and reader.unchanged())


def _read_once(mem: Memory, spec: TreeSpec, max_nodes: int) -> Snapshot:
    ctx = spec.context(mem) if spec.context else None
    lay = spec.layout
    root = mem.ptr(spec.root_slot)
    cached = [mem.ptr(s) if s is not None else None
              for s in (spec.leftmost_slot, spec.rightmost_slot)]
    count = (mem.int(spec.count_slot, PTR, False)
             if spec.count_slot is not None else None)
    snap = Snapshot(spec, root, cached[0], cached[1], count, {}, {}, {}, {})
    span = lay.span
    if not span:
        span += [lay.node_off, lay.node_off + 24]
    fast = _fast(spec)
    _walk(mem, spec, snap, lay.node_off, ctx, span, max_nodes, fast)
    if spec.list_head is not None:
        _read_list(mem, spec, snap, ctx, span, fast)
    if spec.copy1_slot is not None:
        snap.copy1 = CopySnap(mem.ptr(spec.copy1_slot), {}, {}, {}, {})
        _walk(mem, spec, snap.copy1, spec.copy1_off, ctx, span, max_nodes,
              fast)
    return snap


LIST_CAP = 1 << 24
"""No node list is followed further than this, whatever its count says
(the module's max_total_nodes defaults to 2^21)."""


def _read_list(mem: Memory, spec: TreeSpec, snap: Snapshot, ctx,
               span: list, fast: tuple) -> None:
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
                raw = _read_node(mem, spec, addr, ctx, span, None, fast)
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

