# SPDX-License-Identifier: GPL-2.0
"""Tests of ``rbti census`` over a fake memory and drgn types built by
hand: where roots are found in a type, each tree's verdict (ok, violation,
changing, unreadable), tuple keys, the table, the JSON and ``--out``."""

import argparse
import json
import os
import struct

import pytest

from rbtilib import checker
from rbtilib.dump import format_dump, parse_dump, tree_name
from rbtilib.record import replace
from rbtilib.kernel import census, census_find, census_out, census_read
from rbtilib.kernel import walk
from tests_support.kmem import (GOOD, ROOT_SLOT, Churning, FakeMemory, addr_of,
                                build, spec)

drgn = pytest.importorskip("drgn")


# --- roots in types ------------------------------------------------------

def _types():
    prog = drgn.Program(drgn.host_platform)
    ptr = prog.pointer_type(prog.void_type())
    ulong = prog.int_type("unsigned long", 8, False)
    rb_root = prog.struct_type("rb_root", 8, [drgn.TypeMember(ptr,
                                                              "rb_node")])
    cached = prog.struct_type("rb_root_cached", 16, [
        drgn.TypeMember(rb_root, "rb_root"),
        drgn.TypeMember(ptr, "rb_leftmost", 64)])
    tq = prog.struct_type("timerqueue_head", 16, [
        drgn.TypeMember(cached, "rb_root")])
    base = prog.struct_type("clock_base", 24, [
        drgn.TypeMember(ulong, "index"),
        drgn.TypeMember(tq, "active", 64)])
    anon = prog.struct_type(None, 8, [drgn.TypeMember(rb_root, "inner")])
    union = prog.union_type(None, 8, [drgn.TypeMember(rb_root, "maybe"),
                                      drgn.TypeMember(ulong, "other")])
    cpu = prog.struct_type("cpu_base", 8 + 2 * 24 + 8 + 8, [
        drgn.TypeMember(ulong, "flags"),
        drgn.TypeMember(prog.array_type(base, 2), "clock_base", 64),
        drgn.TypeMember(anon, None, 64 + 2 * 24 * 8),
        drgn.TypeMember(union, "u", 64 + 2 * 24 * 8 + 64)])
    return prog, rb_root, cpu


def test_roots_are_found_in_members_arrays_and_anonymous_structs():
    prog, _, cpu = _types()
    slots = census_find.Types(prog).of(cpu)
    got = {(s.offset, s.kind, s.cached, s.container, s.union)
           for s in slots}
    assert got == {
        (16, "timerqueue_head.rb_root", True, 16, False),
        (40, "timerqueue_head.rb_root", True, 40, False),
        (56, "cpu_base.inner", False, 0, False),
        (64, "cpu_base.u.maybe", False, 0, True)}
    assert sorted(s.path for s in slots)[:2] == [
        "clock_base[0].active.rb_root", "clock_base[1].active.rb_root"]


def test_a_variable_that_is_a_root_is_a_kind_of_its_own():
    prog, rb_root, _ = _types()
    slot, = census_find.Types(prog).top(rb_root, "vmap_area_root")
    assert (slot.kind, slot.offset, slot.cached) == ("vmap_area_root", 0,
                                                     False)


def test_a_root_in_a_union_is_counted_not_read():
    prog, _, cpu = _types()
    f = census_find.Finder(prog, None)
    f.add_object(cpu, 0x1000, "global", "cpu")
    assert {i.kind for i in f.instances()} == {"timerqueue_head.rb_root",
                                               "cpu_base.inner"}
    assert f.skipped == {"cpu_base.u.maybe": "in a union member"}


def test_a_root_found_twice_is_one_tree_with_both_routes():
    f = census_find.Finder(None, None)
    assert f.add("k", "global", "a", 0x10, False, 0x10)
    assert not f.add("k", "tasks", "b", 0x10, False, 0x10)
    inst, = f.instances()
    assert (inst.name, inst.routes) == ("a", {"global", "tasks"})


# --- one tree ------------------------------------------------------------

def test_a_valid_tree_is_ok():
    out = census_read.read_census_tree(build(GOOD, 0), spec())
    assert (out.state, out.nodes, out.height) == ("ok", 5, 3)


def test_a_broken_tree_is_a_violation_with_its_node():
    bad = dict(GOOD)
    bad[3] = (25, "R", 1, None, None)       # 25 left of 10
    out = census_read.read_census_tree(build(bad, 0), spec())
    assert out.state == "violation"
    assert (out.violations[0].cls, out.violations[0].node) == ("order", 1)


def test_an_unreadable_root_is_unreadable():
    out = census_read.read_census_tree(FakeMemory(), spec())
    assert out.state == "unreadable"




def test_a_tree_that_keeps_changing_is_changing_not_a_violation():
    mem = build(GOOD, 0, mem=Churning())
    out = census_read.read_census_tree(mem, spec(), attempts=6)
    assert out.state == "changing" and not out.violations


@pytest.mark.parametrize("names,state", [
    ((b"a", b"b", b"c"), "ok"), ((b"b", b"a", b"c"), "violation"),
    ((b"a", b"a", b"c"), "violation")])
def test_tuple_keys_are_ranked_and_checked(names, state):
    """A key of (length, name) as proc_match() compares: in order, out of
    order, equal on a unique tree."""
    shape = {0: (0, "B", None, 1, 2), 1: (0, "R", 0, None, None),
             2: (0, "R", 0, None, None)}
    mem = build(shape, 0)
    order = {addr_of(1): names[0], addr_of(0): names[1],
             addr_of(2): names[2]}
    sp = spec(key=lambda e, c: (1, order[e._win.base]),
              flags=frozenset({"unique"}))
    out = census_read.read_census_tree(mem, sp)
    assert out.state == state
    assert parse_dump(out.text()) == out.tree


# --- a census --------------------------------------------------------------

class FakeProg:
    """No types and no symbols: every kind of the table is "config off"."""

    def type(self, name):
        raise LookupError(name)

    def symbol(self, name):
        raise LookupError(name)


def _census(mem, roots: dict, **kw):
    f = census_find.Finder(FakeProg(), mem)
    for name, (kind, slot) in roots.items():
        f.add(kind, "global", name, slot, False, slot)
    args = argparse.Namespace(kind=kw.pop("kind", None), time_limit=None,
                              attempts=8, out=kw.pop("out", None))
    return census.run_census(FakeProg(), mem, args, finder=f)


def _two_trees(first=None):
    mem = build(GOOD, 0, mem=first) if first is not None else build(GOOD, 0)
    bad = {k: (key + 100, *rest) for k, (key, *rest) in GOOD.items()}
    bad[1] = (110, "R", 0, 3, 4)            # red above red children
    other = build(bad, 0, mem=FakeMemory())
    for i in bad:           # the second tree 0x10000 further on
        mem.put(addr_of(i) + 0x10000, _moved(other.blocks[addr_of(i)]))
    mem.put(0x3000, struct.pack("<Q", addr_of(0) + 0x10000))
    return mem


def _moved(block: bytes) -> bytes:
    words = list(struct.unpack("<QQQqQQ", bytes(block)))
    for i in range(3):
        if words[i] & ~3:
            words[i] += 0x10000
    return struct.pack("<QQQqQQ", *words)


def test_census_counts_kinds_and_blames_only_the_broken_tree():
    c = _census(_two_trees(), {"good": ("a.root", ROOT_SLOT),
                               "bad": ("b.root", 0x3000)})
    assert {k: (s.trees, s.nodes, s.violations) for k, s in c.kinds.items()} \
        == {"a.root": (1, 5, 0), "b.root": (1, 5, 1)}
    (inst, res), = c.violations()
    assert inst.name == "bad" and res.violations[0].cls == "red-red"
    text = census.table(c)
    assert "2 kinds, 2 trees, 10 nodes, 1 with a violation" in text
    assert "bad (b.root, global): fail red-red node" in \
        "\n".join(census.blame_lines(c))
    assert "no tree of cfs_rq.tasks_timeline: config off" in text


@pytest.mark.parametrize("alive", [True, False])
def test_a_broken_tree_in_a_freed_slab_object_is_changing(monkeypatch, alive):
    # The slab route's objects can be freed, and their page given to
    # other data, between the finding and the reading: stable garbage
    # is a tree that went, not a broken one.  Still allocated, it stays.
    from rbtilib.kernel import census_slab
    asked = []
    monkeypatch.setattr(census_slab, "allocated",
                        lambda prog, addr, cache: asked.append((addr, cache))
                        or alive)
    mem = _two_trees()
    f = census_find.Finder(FakeProg(), mem)
    f.add("a.root", "global", "good", ROOT_SLOT, False, ROOT_SLOT)
    f.add("anon_vma.rb_root", "slab", "anon_vma 0x3000.rb_root", 0x3000,
          False, 0x3000)
    args = argparse.Namespace(kind=None, time_limit=None, attempts=8)
    c = census.run_census(FakeProg(), mem, args, finder=f)
    got = {i.name: o for i, o in c.results}
    assert asked == [(0x3000, "anon_vma")]     # the broken one only
    assert got["good"].state == "ok"
    bad = got["anon_vma 0x3000.rb_root"]
    if alive:
        assert bad.state == "violation" and len(c.violations()) == 1
    else:
        assert bad.state == "changing" and "freed" in bad.error
        assert not c.violations()
        assert c.kinds["anon_vma.rb_root"].changing == 1


def test_allocated_keeps_the_verdict_where_drgn_cannot_tell():
    from rbtilib.kernel import census_slab
    assert census_slab.allocated(FakeProg(), 0x3000, "anon_vma") is True
    # A program without a kernel: drgn finds no slab to look in.
    prog = drgn.Program(drgn.host_platform)
    assert census_slab.allocated(prog, 0x3000, "anon_vma") is True


def test_kind_selects():
    c = _census(_two_trees(), {"good": ("a.root", ROOT_SLOT),
                               "bad": ("b.root", 0x3000)}, kind=["a.root"])
    assert list(c.kinds) == ["a.root"] and not c.violations()


def test_json_document():
    c = _census(_two_trees(), {"good": ("a.root", ROOT_SLOT),
                               "bad": ("b.root", 0x3000)})
    doc = json.loads(census_out.document(c))
    assert (doc["command"], doc["ok"], doc["trees"], doc["nodes"]) == \
        ("census", False, 2, 10)
    assert [k["kind"] for k in doc["kinds"]] == ["a.root", "b.root"]
    v, = [v for v in doc["violations"] if v["tree"] == "bad"][:1]
    assert v["class"] == "red-red" and v["address"].startswith("0x")


def test_out_writes_dumps_the_checker_reads_and_an_index(tmp_path):
    c = _census(_two_trees(), {"good": ("a.root", ROOT_SLOT),
                               "bad[cpu0].x[1]": ("b.root", 0x3000)},
                out=str(tmp_path))
    assert census_out.write_out(c, str(tmp_path)) == 2
    dumps = sorted(p for p in os.listdir(tmp_path) if p.endswith(".dump"))
    verdicts = [checker.first_violation(parse_dump(
        (tmp_path / p).read_text())) for p in dumps]
    assert [v and v.cls for v in verdicts] == [None, "red-red"]
    index = (tmp_path / "index.html").read_text()
    assert all(p in index for p in dumps)


def test_a_changing_tree_is_read_again_after_the_others():
    """A tree that changes between its first reads goes to the back of the
    queue (kmemleak's tree must not eat the time of the rest), and gets
    the reads left there: --attempts reads in all."""
    mem = _two_trees(first=Churning())
    c = _census(mem, {"hot": ("a.root", ROOT_SLOT),
                      "bad": ("b.root", 0x3000)})
    assert [(i.name, o.state) for i, o in c.results] == \
        [("bad", "violation"), ("hot", "changing")]
    # One read of the root to see if it is empty, then 4 + 4 tree reads;
    # the broken tree's violation is confirmed within its first four.
    assert mem.root_reads == 9 and c.results[1][1].reads == 8
    assert c.kinds["a.root"].changing == 1 and not c.stopped


def test_time_limit_stops_and_says_so():
    mem = _two_trees()
    f = census_find.Finder(FakeProg(), mem)
    f.add("a.root", "global", "good", ROOT_SLOT, False, ROOT_SLOT)
    f.add("b.root", "global", "bad", 0x3000, False, 0x3000)
    args = argparse.Namespace(kind=None, time_limit=1e-9, attempts=8)
    c = census.run_census(FakeProg(), mem, args, finder=f)
    assert c.stopped and c.not_read == 2 - len(c.results)
    assert "stopped at the time limit" in census.table(c)


def test_structure_only_spec_reads_rb_nodes_alone():
    inst = census_find.Instance("x.root", "global", "x", ROOT_SLOT, True,
                                ROOT_SLOT, None, {"global"})
    sp = census_read.Specs(FakeProg(), build(GOOD, 0, leftmost=3)).spec(inst)
    assert sp.layout.node_off == 0 and "leftmost" in sp.flags
    out = census_read.read_census_tree(build(GOOD, 0, leftmost=3), sp,
                                       dump=True)
    assert out.state == "ok" and out.tree.leftmost is not None
    wrong = census_read.read_census_tree(build(GOOD, 0, leftmost=4), sp)
    assert [v.cls for v in wrong.violations] == ["leftmost"]


def test_walk_keeps_a_tuple_key():
    mem = build(GOOD, 0)
    snap = walk.read_once(mem, spec(key=lambda e, c: (e.key, "x")))
    assert all(isinstance(r.key, tuple) for r in snap.nodes.values())


def test_a_claimed_root_is_not_found_again():
    f = census_find.Finder(None, None)
    f.claim(0x20, "module")
    assert not f.add("k", "global", "a", 0x20, False, 0x20)
    assert f.instances() == []


def test_an_array_of_roots_is_one_kind_named_by_the_variable():
    prog, rb_root, _ = _types()
    slots = census_find.Types(prog).top(prog.array_type(rb_root, 3), "rs")
    assert [(s.kind, s.offset, s.path) for s in slots] == [
        ("rs", 0, "[0]"), ("rs", 8, "[1]"), ("rs", 16, "[2]")]
    f = census_find.Finder(prog, None)
    f.add_slots(slots, 0x100, "global", "rs")
    assert [i.name for i in f.instances()] == ["rs[0]", "rs[1]", "rs[2]"]


def test_an_empty_tree_is_read_once_and_ok():
    mem = FakeMemory()
    mem.put(ROOT_SLOT, struct.pack("<QQ", 0, 0))
    out = census_read.read_census_tree(mem, spec())
    assert (out.state, out.nodes, out.reads) == ("ok", 0, 1)
    build(GOOD, None, mem=mem)
    mem.put(ROOT_SLOT, struct.pack("<QQ", 0, addr_of(3)))
    out = census_read.read_census_tree(mem, spec(
        leftmost_slot=ROOT_SLOT + 8, flags=frozenset({"unique",
                                                      "leftmost"})))
    assert [v.cls for v in out.violations] == ["leftmost"]


def test_a_copied_finder_keeps_the_original_as_it_was():
    f = census_find.Finder(None, None)
    f.add("k", "global", "a", 0x10, False, 0x10)
    g = f.copy()
    g.add("k", "tasks", "a", 0x10, False, 0x10)
    g.add("k", "tasks", "b", 0x20, False, 0x20)
    assert [i.routes for i in f.instances()] == [{"global"}]
    assert len(g.instances()) == 2


def test_round_robin_takes_a_tree_of_each_kind_in_turn():
    insts = [census_find.Instance(k, "r", f"{k}{i}", i, False, i)
             for i, k in enumerate("aaab")]
    assert [i.name for i in census.round_robin(insts)] == \
        ["a0", "b3", "a1", "a2"]


def test_an_empty_root_is_one_read():
    mem = FakeMemory()
    mem.put(0x5000, bytes(16))
    inst = census_find.Instance("k", "r", "n", 0x5000, True, 0x5000)
    assert census.empty_root(mem, inst).state == "ok"
    mem.put(0x5000, struct.pack("<QQ", 0, 8))      # a leftmost, no root
    assert census.empty_root(mem, inst) is None
    assert census.empty_root(FakeMemory(), inst) is None


class _SlabProg:
    """vmemmap, pfns, PG_slab and the offsets census_slab reads."""

    def __init__(self, vmemmap, lo, hi):
        self.values = {"vmemmap": vmemmap, "min_low_pfn": lo, "max_pfn": hi}

    def __getitem__(self, name):
        return self.values[name]

    def constant(self, name):
        class C:
            def value_(self):
                return 7            # PG_slab
        return C()

    def type(self, name):
        class T:
            size = 64
        return T()


def test_slab_pages_are_found_by_flag_and_cache(monkeypatch):
    from rbtilib.kernel import census_slab

    class FakeDrgn:
        @staticmethod
        def offsetof(t, member):
            return 24
    monkeypatch.setattr(census_slab, "_drgn", lambda: FakeDrgn)
    mem = FakeMemory()
    cache, other = 0xffff888000123400, 0xffff888000567800
    pages = bytearray(64 * 8)
    for i, (flags, c) in enumerate([(1 << 7, cache), (0, cache),
                                    (1 << 7, other), (1 << 7, cache)]):
        pages[i * 64:i * 64 + 8] = flags.to_bytes(8, "little")
        pages[i * 64 + 24:i * 64 + 32] = c.to_bytes(8, "little")
    mem.put(0x7000, bytes(pages))
    got = census_slab.slab_pages(_SlabProg(0x7000, 0, 8), mem, {cache: 1})
    assert got == {cache: [0x7000, 0x7000 + 3 * 64]}


class _WordProg:
    """read_word() over a dict of words: a freelist's next links."""

    def __init__(self, words):
        self.words = words

    def read_word(self, addr):
        if addr not in self.words and addr >= 0x8000_0000:
            from drgn import FaultError
            raise FaultError("unmapped", addr)
        return self.words.get(addr, 0)


class _Cache:
    def __init__(self, offset, random=None):
        self.offset = offset
        if random is not None:
            self.random = random


def _hardened(at, ptr, rand):
    return ptr ^ rand ^ int.from_bytes(at.to_bytes(8, "little"), "big")


def test_a_freelist_walk_ends_in_a_circle_and_at_its_bound():
    """A freelist read while it changes can point anywhere: the walk stops
    at a node seen before and after the slab's number of objects."""
    from rbtilib.kernel import census_slab
    plain = _Cache(8)
    ring = _WordProg({0x1008: 0x2000, 0x2008: 0x3000, 0x3008: 0x1000})
    assert census_slab._freelist(ring, plain, 0x1000, 100) == \
        {0x1000, 0x2000, 0x3000}
    away = _WordProg({a + 8: a + 0x100 for a in range(0x1000, 0x100000, 0x100)})
    assert len(census_slab._freelist(away, plain, 0x1000, 16)) == 16
    end = _WordProg({0x1008: 0x2000})
    assert census_slab._freelist(end, plain, 0x1000, 16) == {0x1000, 0x2000}
    assert census_slab._freelist(end, plain, 0, 16) == set()
    torn = _WordProg({0x1008: 0x9000_0000})
    assert census_slab._freelist(torn, plain, 0x1000, 16) == \
        {0x1000, 0x9000_0000}
    rand = 0x5a5a_1234_8765_a5a5
    hard = _WordProg({0x1008: _hardened(0x1008, 0x2000, rand),
                      0x2008: _hardened(0x2008, 0, rand)})
    assert census_slab._freelist(hard, _Cache(8, rand), 0x1000, 16) == \
        {0x1000, 0x2000}


@pytest.mark.parametrize("name", [
    "hrtimer_bases[cpu0].clock_base[0].active", "vmap_nodes[3].busy.root",
    "a b\u00e9[x]", "[0]", ".x", "plain"])
def test_a_census_tree_name_is_a_dump_tree_name(name):
    """--out writes each tree as a dump that rbti check reads back: the
    names of roots found in arrays and per-CPU variables included (the
    dump of a tree read from memory takes tree_name() of its spec's)."""
    out = tree_name(name)
    tree = census_read.read_census_tree(build(GOOD, 0), replace(
        spec(), name=name)).tree
    assert tree.name == out
    assert parse_dump(format_dump(tree)).name == out
    if name == "hrtimer_bases[cpu0].clock_base[0].active":
        assert out == "hrtimer_bases.cpu0.clock_base.0.active"
