# SPDX-License-Identifier: GPL-2.0
"""Kernel memory made of pages, and valid red-black trees laid out in it,
for the tests of the census's C core against the Python walk.

:class:`Pages` is read a page at a time as /proc/kcore and core files are
(``pass_reader``: walk.PageReads), :class:`DirectPages` as the tests'
other fake memories are (each read as asked).  :func:`lay` writes a valid
tree (tests_support.trees.RBTree's shape) of entries whose fields cover
every kind of key the census has: a plain field, one relative to a base,
a (priority, deadline) pair, a name, a word through a pointer, an
augmented maximum.
"""

import struct

from rbtilib import kernel
from rbtilib.dump import parse_flags
from rbtilib.driver import TreeInfo
from rbtilib.kernel import walk
from rbtilib.kernel.census_kinds import Ctx
from rbtilib.kernel.expr import (Base, Bytes, Const, Get, IfNeg, Load, S64,
                                 Tuple)

PAGE = 4096
BASE = 0xffff888000100000
ROOT, LEFT, CONTAINER = BASE - 0x1000, BASE - 0x1000 + 8, BASE - 0x1000 + 16
NAMES, VMAS = BASE + 0x200000, BASE + 0x300000
STRIDE = 128
# struct entry { s32 prio; u32 pad; struct rb_node rb; s64 key; u64 aug;
#   u64 start, end; char *name; u8 namelen; u64 vma; u64 vr; }
ENTRY = walk.DictType({
    "prio": (0, 4, True), "key": (32, 8, True), "aug": (40, 8, False),
    "start": (48, 8, False), "end": (56, 8, False), "name": (64, 8, False),
    "namelen": (72, 1, False), "vma": (80, 8, False), "vr": (88, 8, False)})
NODE_OFF = 8


class Pages(walk.Memory):
    """Pages of bytes; an address on no page faults."""

    def __init__(self) -> None:
        self.pages: dict = {}
        self.reads = 0

    def write(self, addr: int, data: bytes) -> None:
        for i, byte in enumerate(data):
            page = (addr + i) & ~(PAGE - 1)
            self.pages.setdefault(page, bytearray(PAGE))[
                (addr + i) - page] = byte

    def read(self, addr: int, size: int) -> bytes:
        self.reads += 1
        out = bytearray()
        at = addr
        while at < addr + size:
            page = at & ~(PAGE - 1)
            data = self.pages.get(page)
            if data is None or size <= 0:
                raise kernel.Fault(at)
            take = min(addr + size, page + PAGE) - at
            out += data[at - page:at - page + take]
            at += take
        return bytes(out)

    def pass_reader(self) -> walk.Memory:
        return walk.PageReads(self)


class DirectPages(Pages):
    """:class:`Pages` read as asked, each pass a walk of its own."""

    pass_reader = walk.Memory.pass_reader


def addr_of(nid: int) -> int:
    return BASE + nid * STRIDE + NODE_OFF


def lay(mem: Pages, n: int, seed: int = 1, dup: bool = False,
        base: int = 1 << 40) -> dict:
    """A valid tree of *n* nodes in *mem* (its root at ROOT, its leftmost
    at LEFT, the base word at CONTAINER): node i has in-order position
    ``key``; returns id -> address."""
    import random
    from tests_support.trees import RBTree
    rng = random.Random(seed)
    keys = list(range(n))
    rng.shuffle(keys)
    rb = RBTree(dup)
    for nid, key in enumerate(keys, 1):
        rb.insert(key, nid, None)
    tree = rb.to_tree(TreeInfo("t", "mainline", parse_flags(
        "dup" if dup else "unique")))
    addrs = {nid: addr_of(nid) for nid in tree.nodes}

    def ptr(ref):
        return 0 if ref is None else addrs[ref]
    top: dict = {}
    order = sorted(tree.nodes, key=lambda i: tree.nodes[i].key)
    for nid in reversed(_preorder(tree)):
        node = tree.nodes[nid]
        own = 100 + (node.key * 37) % 50
        top[nid] = max([own] + [top[k] for k in (node.left, node.right)
                                if k is not None])
    for rank, nid in enumerate(order):
        node = tree.nodes[nid]
        entry = addrs[nid] - NODE_OFF
        own = 100 + (node.key * 37) % 50
        name = f"n{rank:05d}".encode()
        mem.write(entry, struct.pack("<iI", rank // 4 - 3, 0))
        mem.write(addrs[nid], struct.pack(
            "<QQQ", ptr(node.parent) | (node.color == "B"), ptr(node.right),
            ptr(node.left)))
        mem.write(entry + 32, struct.pack(
            "<qQQQQBxxxxxxxQQ", rank, top[nid], 1000, 1000 + own,
            NAMES + rank * 16, len(name), VMAS + rank * 32, base + rank))
        mem.write(NAMES + rank * 16, name)
        mem.write(VMAS + rank * 32, struct.pack("<QQ", 0, rank * 4))
    first = addrs[order[0]] if order else 0
    mem.write(ROOT, struct.pack("<QQQ", ptr(tree.root), first, base))
    return addrs


def _preorder(tree) -> list:
    out, stack = [], [tree.root] if tree.root is not None else []
    while stack:
        nid = stack.pop()
        out.append(nid)
        node = tree.nodes[nid]
        stack += [k for k in (node.right, node.left) if k is not None]
    return out


KEYS = {
    "field": (Get("key"), "unique"),
    "base": (S64(Get("vr") - Base()), "unique"),
    "pair": (Tuple(Get("prio"), IfNeg(Get("prio"), S64(Get("key")),
                                      Const(0))), "dup"),
    "name": (Tuple(Get("namelen"), Bytes(Get("name"), Get("namelen"))),
             "unique"),
    "pointer": (Load(Get("vma"), 8), "unique"),
}
"""Each kind of census key, over :func:`lay`'s entries: (key, flags)."""


def spec(key: str = "field", aug: bool = True, leftmost: bool = True,
         **kw) -> walk.TreeSpec:
    """The TreeSpec of :func:`lay`'s tree, keyed by :data:`KEYS`[*key*],
    with its augment (max of end - start) and cached leftmost."""
    expr, flags = KEYS[key]
    base = dict(name=f"pages-{key}", layout=walk.Layout(ENTRY, NODE_OFF),
                root_slot=ROOT, key=expr,
                flags=frozenset({flags} | ({"leftmost"} if leftmost else
                                           set())),
                leftmost_slot=LEFT if leftmost else None, context=Ctx)
    if key == "base":
        base.update(base_slot=CONTAINER, context=_ctx)
    if aug:
        base.update(aug_name="aug", aug=Get("aug"), aug_rule="max",
                    aug_value=Get("end") - Get("start"))
    base.update(kw)
    return walk.TreeSpec(**base)


def _ctx(mem):
    return Ctx(mem, mem.int(CONTAINER, 8, False))
