# SPDX-License-Identifier: GPL-2.0
"""Tests of the walk's economy of reads: a pass over a tree reads whole
pages (walk.PageReads) where the memory says a page costs what a word
does, and a kind's entry span is learned once for all its trees."""

import struct

import pytest

from rbtilib import kernel
from rbtilib.kernel import stable, walk
from tests_support.kmem import (GOOD, LAYOUT, ROOT_SLOT, FakeMemory,
                                addr_of, build, spec)


class Paged(FakeMemory):
    """A FakeMemory whose passes read whole pages, as DrgnMemory's do: a
    page holding a block reads whole (zeros around the blocks) if *whole*
    says so, a page holding none faults."""

    def __init__(self, whole=lambda page: True) -> None:
        super().__init__()
        self.whole = whole
        self.sizes: list = []

    def read(self, addr: int, size: int) -> bytes:
        self.sizes.append(size)
        if size == walk.PAGE and addr % walk.PAGE == 0:
            if not self.whole(addr):
                self.reads += 1
                raise kernel.Fault(addr)
            self.reads += 1
            out, mapped = bytearray(size), False
            for base, data in self.blocks.items():
                lo, hi = max(base, addr), min(base + len(data), addr + size)
                if lo < hi:
                    out[lo - addr:hi - addr] = data[lo - base:hi - base]
                    mapped = True
            if not mapped:      # a page with nothing in it is unmapped
                raise kernel.Fault(addr)
            return bytes(out)
        return super().read(addr, size)

    def pass_reader(self) -> walk.Memory:
        return walk.PageReads(self)


def layout() -> walk.Layout:
    """A layout of its own: the span it learns is this test's."""
    return walk.Layout(LAYOUT.entry, 0)


def test_a_pass_reads_each_page_once():
    mem = build(GOOD, 0, mem=Paged())
    snap = walk.read_once(mem, spec(layout=layout()))
    # the root slot's page and the nodes' page (five nodes, 0x40 apart)
    assert len(snap.nodes) == 5 and mem.reads == 2
    assert set(mem.sizes) == {walk.PAGE}


def test_two_passes_read_the_tree_twice():
    """Nothing is kept from one pass to the next: the stable read still
    compares two reads of memory."""
    mem = build(GOOD, 0, mem=Paged())
    res = stable.read_stable(mem, spec(layout=layout()))
    assert res.violations == [] and res.reads == 2 and mem.reads == 4


class Moving(Paged):
    """The byte at *where* changes at every read of its page."""

    def __init__(self, where: int) -> None:
        super().__init__()
        self.where, self.n = where, 0

    def read(self, addr, size):
        if addr <= self.where < addr + size:
            self.n += 1
            for base, data in self.blocks.items():
                if base <= self.where < base + len(data):
                    data[self.where - base] = self.n & 0x7f
        return super().read(addr, size)


def test_a_change_between_passes_is_seen():
    """The key of the root changes at every read: no read agrees with the
    one before, whether by bytes read again or by a second walk."""
    mem = build(GOOD, 0, mem=Moving(addr_of(0) + 24))
    with pytest.raises(kernel.Changed):
        stable.read_stable(mem, spec(layout=layout()), attempts=4)


def test_a_change_the_walk_did_not_read_is_no_change():
    """A byte of the nodes' page that no node holds changes at every read:
    the bytes the walk read are the same, the pair agrees."""
    mem = build(GOOD, 0, mem=Moving(addr_of(5)))
    mem.put(addr_of(5), bytes(8))
    snap, agreed = walk.read_checked(mem, spec(layout=layout()))
    assert agreed and len(snap.nodes) == 5
    assert mem.n == 2                   # it did change in between


def test_the_second_read_of_a_pair_reads_memory_again():
    """A pair is one walk and every byte it read read again: the same
    pages, no node decoded twice."""
    mem = build(GOOD, 0, mem=Paged())
    lay = layout()
    snap, agreed = walk.read_checked(mem, spec(layout=lay))
    assert agreed and len(snap.nodes) == 5 and mem.reads == 2 + 2


def test_a_read_that_faulted_must_fault_again():
    class Healing(Paged):
        """Node 4 is unreadable until the pass is over."""
        healed = False

        def read(self, addr, size):
            if addr <= addr_of(4) < addr + size and not self.healed:
                raise kernel.Fault(addr)
            return super().read(addr, size)

        def pass_reader(self):
            mem = self

            class Reads(walk.PageReads):
                def unchanged(self):
                    mem.healed = True
                    return super().unchanged()
            return Reads(self)
    mem = build(GOOD, 0, mem=Healing())
    snap, agreed = walk.read_checked(mem, spec(layout=layout()))
    assert addr_of(4) in snap.unread and not agreed


def test_no_pair_from_a_pass_stopped_by_its_bound():
    mem = build(GOOD, 0, mem=Paged())
    snap, agreed = walk.read_checked(mem, spec(layout=layout()), 3)
    assert snap.error == "size" and not agreed


def test_without_whole_pages_a_pair_is_two_walks():
    mem = build(GOOD, 0)
    snap, agreed = walk.read_checked(mem, spec(layout=layout()))
    assert not agreed and len(snap.nodes) == 5


def test_a_page_not_readable_whole_is_read_as_the_memory_reads():
    """A page read that faults is no fault of the nodes in it: each read
    goes to the memory alone, which faults exactly where it would."""
    mem = build(GOOD, 0, mem=Paged(whole=lambda page: page == 0))
    snap = walk.read_once(mem, spec(layout=layout()))
    assert len(snap.nodes) == 5 and not snap.unread
    # a page read of each page, then each read alone (the first node's
    # key outside the span learned so far: a read of its own)
    assert mem.sizes.count(walk.PAGE) == 2 and mem.reads == 2 + 1 + 5 + 1


def test_an_unreadable_node_is_still_unreadable():
    broken = dict(GOOD)
    broken[4] = (15, "R", 1, None, ("raw", 0x7000))     # no memory there
    mem = build(broken, 0, mem=Paged())
    snap = walk.read_once(mem, spec(layout=layout()))
    assert 0x7000 in snap.unread and len(snap.nodes) == 5


def test_a_read_across_a_page_boundary_goes_to_the_memory():
    mem = FakeMemory()
    mem.put(walk.PAGE - 8, bytes(range(16)))
    reads = walk.PageReads(mem)
    assert reads.read(walk.PAGE - 8, 16) == bytes(range(16))
    assert mem.reads == 1


def test_pages_held_are_bounded():
    mem = Paged()
    for i in range(8):
        mem.put(i * walk.PAGE, bytes([i]) * 16)
    reads = walk.PageReads(mem, cap=3)
    for i in range(8):
        assert reads.read(i * walk.PAGE, 1) == bytes([i])
        assert len(reads.pages) <= 3


def test_a_kinds_span_serves_its_next_tree():
    """The first tree's first node reads its key alone and grows the span;
    the next tree of the same layout reads each entry in one read."""
    lay = layout()
    mem = build(GOOD, 0)
    walk.read_once(mem, spec(layout=lay))
    assert lay.span == [0, 32]
    mem = build(GOOD, 0)
    walk.read_once(mem, spec(layout=lay))
    assert mem.reads == 1 + 5           # the root slot, one read a node


def test_a_span_never_passes_512_bytes():
    far = walk.DictType({"key": (24, 8, True), "far": (4096, 8, False)})
    lay = walk.Layout(far, 0)
    mem = build(GOOD, 0)
    for i in GOOD:      # the field 4 KiB away, readable
        mem.put(addr_of(i) + 4096, struct.pack("<Q", i))
    snap = walk.read_once(mem, spec(layout=lay,
                                    aug=lambda e, c: e.far))
    assert lay.span == [0, 32] and len(snap.nodes) == 5
    assert [r.aug for r in snap.nodes.values()] == [0, 1, 3, 4, 2]


def test_a_node_laid_out_otherwise_is_read_field_by_field():
    """rb_node words in another order (a test layout): no fast decode."""
    swapped = walk.Layout(LAYOUT.entry, 0, parent_off=0, right_off=16,
                          left_off=8)
    mem = build(GOOD, 0)
    snap = walk.read_once(mem, spec(layout=swapped))
    root = snap.nodes[addr_of(0)]
    assert (root.left, root.right) == (addr_of(2), addr_of(1))
    assert ROOT_SLOT not in snap.nodes


def test_a_field_key_is_read_at_its_offset():
    """A key that is one field reads the same value as the key called on
    an Entry, without one; a path that is no scalar field is called."""
    inner = walk.DictType({"k": (8, 8, True)})
    info = walk.DictType({"key": (24, 8, True), "s": (16, 16, False, inner)})
    assert walk.Field("key").at(info) == (24, 8, True)
    assert walk.Field("s.k").at(info) == (24, 8, True)
    assert walk.Field("s").at(info) is None
    assert walk.Field("nope").at(info) is None
    assert walk.Field("key.x").at(info) is None
    mem = build(GOOD, 0)
    called = walk.read_once(mem, spec(key=lambda e, c: e.key))
    direct = walk.read_once(build(GOOD, 0), spec(key=walk.Field("key")))
    assert called.nodes == direct.nodes
    assert [r.key for r in direct.nodes.values()] == [20, 10, 5, 15, 30]
