# SPDX-License-Identifier: GPL-2.0
"""A fake kernel memory for the tests of rbtilib.kernel: trees laid out
as rb_nodes in blocks of bytes, the inspector's node list, and the
reads the walk makes of them."""

import struct

from rbtilib import kernel
from rbtilib.dump import parse_dump
from rbtilib.kernel import stable, walk

# struct fake_entry { struct rb_node rb; s64 key; u64 id; u64 aug;
#                     struct list_head list; }  (as struct rbti_node)
ENTRY = walk.DictType({"key": (24, 8, True), "id": (32, 8, False),
                         "aug": (40, 8, False)})
LIST_OFF = 48
LAYOUT = walk.Layout(ENTRY, 0)
ROOT_SLOT, LEFT_SLOT = 0x1000, 0x1008
BASE, STRIDE = 0x100000, 0x40


class FakeMemory(walk.Memory):
    """Blocks of bytes at addresses; anything else faults."""

    def __init__(self) -> None:
        self.blocks: dict = {}
        self.reads = 0

    def put(self, addr: int, data: bytes) -> None:
        self.blocks[addr] = bytearray(data)

    def read(self, addr: int, size: int) -> bytes:
        self.reads += 1
        for base, data in self.blocks.items():
            if base <= addr and addr + size <= base + len(data):
                return bytes(data[addr - base:addr - base + size])
        raise kernel.Fault(addr)


def addr_of(i: int) -> int:
    return BASE + i * STRIDE


def build(shape: dict, root: int | None, leftmost: int | None = None,
          mem: FakeMemory | None = None) -> FakeMemory:
    """*shape*: i -> (key, color, parent, left, right[, aug]) with node
    numbers (None = NIL); pointers may also be raw ints via ('raw', v)."""
    mem = mem or FakeMemory()

    def ptr(ref):
        if isinstance(ref, tuple):
            return ref[1]
        return 0 if ref is None else addr_of(ref)
    for i, (key, color, parent, left, right, *aug) in shape.items():
        pc = ptr(parent) | (1 if color == "B" else 0)
        mem.put(addr_of(i), struct.pack("<QQQqQQ", pc, ptr(right),
                                        ptr(left), key, 1000 + i,
                                        aug[0] if aug else 0))
    mem.put(ROOT_SLOT, struct.pack("<QQ", ptr(root), ptr(leftmost)))
    return mem


def spec(**kw) -> walk.TreeSpec:
    # A layout of its own: the entry span a walk learns stays with it.
    base = dict(name="fake", layout=walk.Layout(ENTRY, 0),
                root_slot=ROOT_SLOT,
                key=lambda e, c: e.key)
    base.update(kw)
    return walk.TreeSpec(**base)


# A valid 5-node tree: 20(B) / 10(B) [5 R, 15 R] , 30(B)
GOOD = {0: (20, "B", None, 1, 2), 1: (10, "B", 0, 3, 4),
        2: (30, "B", 0, None, None), 3: (5, "R", 1, None, None),
        4: (15, "R", 1, None, None)}


def read(mem, sp=None, **kw):
    """A stable read, whose dump text is the one its Tree formats to and
    parses back to (to_tree builds the Tree; nothing parses it back)."""
    res = stable.read_stable(mem, sp or spec(), **kw)
    assert parse_dump(res.text) == res.tree
    return res


def classes(res) -> list:
    return [v.cls for v in res.violations]


# --- the node list of the inspector's trees (rbti_tree.all/.nodes) ------

# struct fake_tree { rb_root; leftmost; rightmost; count; nodes;
#                    struct list_head all; }
T_ROOT, T_LEFT, T_RIGHT, T_COUNT, T_NODES, T_ALL = (0x2000 + 8 * i
                                                    for i in range(6))
GARBAGE = 0x4240        # a pointer at no node


def listed_memory(shape: dict, root, order: list, nodes: int | None = None,
                  cached: tuple = (None, None, None),
                  nexts: dict | None = None) -> FakeMemory:
    """A tree as the module keeps it: *shape* as for build(), every node
    on the list in *order* (node numbers), the list's count *nodes*
    (default len(order)); *nexts* overrides list links (i -> raw ptr)."""
    mem = build(shape, root)
    link = {i: addr_of(i) + LIST_OFF for i in shape}
    chain = [T_ALL] + [link[i] for i in order] + [T_ALL]
    nxt = {a: b for a, b in zip(chain, chain[1:])}
    prv = {b: a for a, b in zip(chain, chain[1:])}
    for i in shape:
        nptr = (nexts or {}).get(i, nxt.get(link[i], 0))
        mem.blocks[addr_of(i)] += struct.pack("<QQ", nptr,
                                              prv.get(link[i], 0))
    left, right, count = (0 if c is None else addr_of(c) if c >= 0 else -c
                          for c in cached)
    mem.put(T_ROOT, struct.pack(
        "<QQQQQQQ", 0 if root is None else addr_of(root), left, right,
        count, len(order) if nodes is None else nodes,
        nxt[T_ALL], prv[T_ALL]))
    return mem


def listed_spec(**kw) -> walk.TreeSpec:
    base = dict(root_slot=T_ROOT, node_id=lambda e, c: e.id,
                list_head=T_ALL, list_off=LIST_OFF, nodes_slot=T_NODES,
                count_slot=T_NODES)
    base.update(kw)
    return spec(**base)

class Churning(FakeMemory):
    """The root pointer changes on every read of it (counted apart from
    FakeMemory's count of every read)."""

    root_reads = 0

    def read(self, addr, size):
        if addr == ROOT_SLOT:
            self.root_reads += 1
            root = addr_of(0) if self.root_reads % 2 else addr_of(1)
            return struct.pack("<QQ", root, 0)[:size]
        return super().read(addr, size)
