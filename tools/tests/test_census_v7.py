# SPDX-License-Identifier: GPL-2.0
"""The census on 7.x's structures: rb_root_linked roots, per-CPU copies
whose addresses wrap, SLUB's sheaves, a slab cache's type told by its
object size, and the anonymous page offset of a vma kept in two halves."""

import types

import pytest

from rbtilib.kernel import census_find, census_kinds, census_slab
from test_census import _types

drgn = pytest.importorskip("drgn")


def test_an_rb_root_linked_is_a_cached_root_of_its_container():
    """7.x's hrtimers queue on a timerqueue_linked_head: its rb_root_linked
    is the root (leftmost cached), not the rb_root inside it."""
    prog, rb_root, _ = _types()
    ptr = prog.pointer_type(prog.void_type())
    linked = prog.struct_type("rb_root_linked", 16, [
        drgn.TypeMember(rb_root, "rb_root"),
        drgn.TypeMember(ptr, "rb_leftmost", 64)])
    head = prog.struct_type("timerqueue_linked_head", 16, [
        drgn.TypeMember(linked, "rb_root")])
    slot, = census_find.Types(prog).of(head)
    assert (slot.kind, slot.offset, slot.cached) == (
        "timerqueue_linked_head.rb_root", 0, True)


def test_a_per_cpu_copy_wraps_around_the_address_space():
    """sym + __per_cpu_offset modulo 2**64: 7.3's per-CPU symbols are
    image addresses, its offsets large; 6.x's symbols small offsets."""
    sym, off = 0xffffffff82dd8740, 0xffff8880b365a000
    assert (sym + off) & census_find.ADDRESS_MASK == 0xffff888036432740
    assert (0x1f000 + 0xffff88803e600000) & census_find.ADDRESS_MASK == \
        0xffff88803e61f000


class _Ptr:
    """A pointer-like fake: int() its address, attributes its fields."""

    def __init__(self, addr, **fields):
        self.addr = addr
        self.__dict__.update(fields)

    def __int__(self):
        return self.addr

    def address_of_(self):
        return self

    def value_(self):
        return self.addr


def _sheaf(addr, objs, spare=()):
    return _Ptr(addr, size=len(objs), objects=list(objs) + list(spare))


def test_objects_in_sheaves_are_free(monkeypatch):
    """Each online CPU's main, spare and rcu_free sheaves and the barn's
    full sheaves hold free objects, read up to each sheaf's size."""
    import drgn.helpers.linux.cpumask as cpumask
    import drgn.helpers.linux.list as dlist
    import drgn.helpers.linux.percpu as percpu
    pcs = {0: _Ptr(1, main=_sheaf(10, [0x100, 0x200], [0x999]),
                   spare=_Ptr(0), rcu_free=_sheaf(11, [0x300])),
           1: _Ptr(2, main=_sheaf(12, []), spare=_sheaf(13, [0x400]),
                   rcu_free=_Ptr(0))}
    full = [_sheaf(20, [0x500, 0x600])]
    monkeypatch.setattr(cpumask, "for_each_online_cpu", lambda p: [0, 1])
    monkeypatch.setattr(percpu, "per_cpu_ptr", lambda p, cpu: pcs[cpu])
    monkeypatch.setattr(dlist, "list_for_each_entry",
                        lambda t, head, m: iter(full))
    barn = _Ptr(30, sheaves_full=_Ptr(31))
    cache = _Ptr(40, cpu_sheaves=_Ptr(50),
                 per_node=[_Ptr(0, barn=barn), _Ptr(0, barn=_Ptr(0))])
    got = census_slab._cpu_freelists(None, cache)
    assert got == {None: {0x100, 0x200, 0x300, 0x400, 0x500, 0x600}}
    # A torn size reads no further than MAX_SHEAF.
    monkeypatch.setattr(census_slab, "MAX_SHEAF", 1)
    assert census_slab._sheaf(_sheaf(1, [7, 8, 9])) == {7}


class _SlabCacheProg:
    def __init__(self, sizes):
        self.sizes = sizes

    def type(self, name):
        if name not in self.sizes:
            raise LookupError(name)
        return types.SimpleNamespace(size=self.sizes[name])


@pytest.mark.parametrize("sizes,want", [
    ({"struct sockfs_inode": 900, "struct socket_alloc": 800}, "sockfs_inode"),
    ({"struct socket_alloc": 900}, "socket_alloc"),
    ({"struct socket_alloc": 800}, None)])
def test_a_caches_type_is_the_one_of_its_object_size(monkeypatch, sizes, want):
    import drgn.helpers.linux.slab as slab
    cache = _Ptr(0x40, object_size=900, cpu_sheaves=_Ptr(0))
    monkeypatch.setattr(slab, "find_slab_cache", lambda p, n: cache
                        if n == "sock_inode_cache" else None)
    monkeypatch.setattr(slab, "slab_cache_is_merged", lambda c: False)
    seen = {}
    monkeypatch.setattr(census_slab, "slab_pages",
                        lambda p, m, caches: seen.update(caches)
                        or {c: [] for c in caches})
    f = types.SimpleNamespace(prog=_SlabCacheProg(sizes), mem=None, notes=[])
    census_slab.find_slab(f)
    if want is None:
        assert not seen and f.notes == [
            "slab sock_inode_cache: objects of 900 bytes, not those of "
            "struct socket_alloc: not read"]
    else:
        assert seen[0x40][1] == f"struct {want}"


class _Mem:
    def __init__(self, words):
        self.words = words

    def int(self, addr, size, signed):
        value = 0
        for i in range(size):
            value |= self.words.get(addr + i, 0) << (8 * i)
        return value


def test_a_vmas_anonymous_page_offset_joins_its_halves():
    """vma_start_anon_pgoff(): __vm_anon_pgoff_hi << 32 plus _lo, whatever
    lies in the four bytes before hi."""
    types_ = drgn.Program(drgn.host_platform)
    u32 = types_.int_type("unsigned int", 4, False)
    u64 = types_.int_type("unsigned long", 8, False)
    vma = types_.struct_type("vm_area_struct", 32, [
        drgn.TypeMember(u64, "vm_start"),
        drgn.TypeMember(u32, "__vm_anon_pgoff_lo", 64),
        drgn.TypeMember(u32, "junk", 96),
        drgn.TypeMember(u32, "__vm_anon_pgoff_hi", 128)])
    prog = types.SimpleNamespace(type=lambda name: vma)
    expr = census_kinds._anon_pgoff(prog)
    base = 0x1000
    mem = {}
    for off, value, size in ((8, 0x7fb0c0de, 4), (12, 0xffffffff, 4),
                             (16, 0x7, 4)):
        for i in range(size):
            mem[base + off + i] = (value >> (8 * i)) & 0xff
    entry = types.SimpleNamespace(vma=base)
    ctx = types.SimpleNamespace(mem=_Mem(mem))
    assert expr(entry, ctx) == (0x7 << 32) + 0x7fb0c0de


class _Words:
    def __init__(self, words):
        self.words = words

    def ptr(self, addr):
        from rbtilib.kernel import Fault
        if addr not in self.words:
            raise Fault(addr)
        return self.words[addr]


def test_a_lock_whose_waiter_went_is_a_changed_tree_not_a_broken_one():
    """The pi-locks route finds a lock through a waiter on a task's stack:
    once the waiter has left the task's tree, or waits on another lock, a
    broken read of the lock is a tree that went (changing)."""
    from rbtilib.kernel import census, census_walks
    from rbtilib.kernel.census import Outcome
    layout = types.SimpleNamespace(left_off=16, right_off=8)
    root, top, waiter, slot, lock = 0x100, 0x1000, 0x2000, 0x2040, 0x9000
    words = {root: top, top + 16: waiter, top + 8: 0, waiter + 16: 0,
             waiter + 8: 0, slot: lock}
    mem = _Words(words)
    still = census_walks._waits(mem, root, waiter, slot, lock, layout)
    inst = census_find.Instance("rt_mutex_base.waiters", "pi-locks", "lock",
                                lock, True, lock, still=still)
    broken = Outcome("violation", reads=2)
    assert census.route_gone(None, inst, broken) is broken
    words[slot] = 0x9999                # waits on another lock now
    assert census.route_gone(None, inst, broken).state == "changing"
    words[slot] = lock
    words[top + 16] = 0                 # left the task's tree
    assert census.route_gone(None, inst, broken).state == "changing"
    del words[top + 8]                  # cannot tell: the verdict stands
    assert census.route_gone(None, inst, broken) is broken


def test_the_head_of_a_compound_page_from_7x_compound_info():
    """compound_info: bit 0 marks a tail; the rest is the head's address,
    or (HugeTLB's vmemmap optimisation) a mask giving it from the tail."""
    prog = drgn.Program(drgn.host_platform)
    u64 = prog.int_type("unsigned long", 8, False)
    page_t = prog.struct_type("page", 64, [
        drgn.TypeMember(u64, "flags"), drgn.TypeMember(u64, "compound_info",
                                                       64)])
    words = {}
    prog.add_memory_segment(0xffffea0000000000, 1 << 20,
                            lambda addr, n, off, phys: b"".join(
                                words.get(addr + i, 0).to_bytes(8, "little")
                                for i in range(0, n, 8)), False)
    ptr = prog.pointer_type(page_t)
    head, tail = 0xffffea0000004000, 0xffffea0000004000 + 5 * 64
    page = drgn.Object(prog, ptr, value=tail)
    assert census_slab.compound_head(prog, page).value_() == tail
    words[tail + 8] = head | 1
    assert census_slab.compound_head(prog, page).value_() == head
    words[tail + 8] = ((1 << 64) - (1 << 14)) | 1       # the mask form
    assert census_slab.compound_head(prog, page).value_() == head
    words[tail + 8] = 0x1000 | 1                          # names no page
    with pytest.raises(ValueError):
        census_slab.compound_head(prog, page)


class _Sym:
    def __init__(self, name, address, kind, binding="LOCAL", size=8):
        self.name, self.address, self.size = name, address, size
        self.kind = getattr(drgn.SymbolKind, kind)
        self.binding = getattr(drgn.SymbolBinding, binding)


class _Statics:
    """A program with two `static struct rb_root tree`s, in a.c and b.c,
    one in a header (seen from c.c, no variable of that file) and one in
    two files of the same name: drgn's lookup by name gives a.c's."""

    def __init__(self, rb_root):
        self.rb_root = rb_root
        self.syms = [_Sym("a.c", 0, "FILE"),
                     _Sym("tree", 0xffffffff81001000, "OBJECT"),
                     _Sym("b.c", 0, "FILE"),
                     _Sym("tree", 0xffffffff81002000, "OBJECT"),
                     _Sym("c.c", 0, "FILE"),
                     _Sym("tree", 0xffffffff81003000, "OBJECT"),
                     _Sym("core.c", 0, "FILE"),
                     _Sym("tree", 0xffffffff81004000, "OBJECT")]
        self.defined = {None: 0xffffffff81001000, "a.c": 0xffffffff81001000,
                        "b.c": 0xffffffff81002000,
                        "core.c": 0xffffffff81005000}

    def symbols(self):
        return self.syms

    def symbol(self, name):
        raise LookupError(name)

    def variable(self, name, filename=None):
        if name != "tree" or filename not in self.defined:
            raise LookupError(f"could not find variable {name!r}")
        return types.SimpleNamespace(address_=self.defined[filename],
                                     type_=self.rb_root)


def test_a_static_whose_name_another_has_is_read_where_its_file_says():
    """The symbol table's file symbol names each static's file: the two
    `tree`s of a.c and b.c are read; one defined in a header, and one
    whose file name finds another file's variable, are counted, not
    guessed at."""
    prog, rb_root, _ = _types()
    fake = _Statics(rb_root)
    f = census_find.Finder(fake, None, census_find.Types(prog))
    assert census_find.find_variables(f) == 4
    assert sorted(hex(a) for a in f.found) == ["0xffffffff81001000",
                                               "0xffffffff81002000"]
    assert "1 statics whose name names another variable too, placed by " \
        "their file, 2 not (not read)" in f.notes[-1]
