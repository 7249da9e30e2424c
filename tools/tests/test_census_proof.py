# SPDX-License-Identifier: GPL-2.0
"""Tests of rbtilib.kernel.census_proof on synthetic memory (no core):
the copy-on-write view over a drgn Program's memory segments, the
breaks of a tree, the proof of each over a census of the view, and the
self-check (a kind whose key reads the wrong field fails the proof)."""

import argparse
import random
import struct

import pytest

from rbtilib.kernel import census, census_find, census_proof as cp, walk
from rbtilib.kernel.census_kinds import Order
from rbtilib.kernel.expr import Get
from rbtilib.kernel.presets import _field

drgn = pytest.importorskip("drgn")

# struct entry { struct rb_node rb; s64 key; u64 id; u64 aug; }
ENTRY = walk.DictType({"key": (24, 8, True), "id": (32, 8, False),
                       "aug": (40, 8, False)})
STRIDE = 0x40
ROOTS = {"a": 0x1000, "b": 0x2000}      # root, leftmost, rightmost
NODES = {"a": 0x100000, "b": 0x200000}


def _tree(keys: list, base: int, slot: int, ids: list) -> dict:
    """A valid red-black tree of sorted *keys* (balanced by midpoints,
    its deepest level red), entries at *base*, its root, leftmost and
    rightmost at *slot*, each entry's aug the largest key below it:
    address -> bytes."""
    n = len(keys)
    out: dict = {}
    shape: dict = {}

    def make(lo, hi, parent, depth):
        if lo >= hi:
            return 0, None
        mid = (lo + hi) // 2
        left, lmax = make(lo, mid, mid, depth + 1)
        right, rmax = make(mid + 1, hi, mid, depth + 1)
        top = max(x for x in (keys[mid], lmax, rmax) if x is not None)
        shape[mid] = [parent, left, right, depth, top]
        return base + mid * STRIDE, top
    root, _ = make(0, n, None, 1)
    deepest = max(v[3] for v in shape.values())
    full = n == 2 ** deepest - 1
    for i, (parent, left, right, depth, top) in shape.items():
        black = 1 if full or depth < deepest else 0
        pc = (0 if parent is None else base + parent * STRIDE) | black
        out[base + i * STRIDE] = struct.pack("<QQQqQQ", pc, right, left,
                                             keys[i], ids[i], top)
    out[slot] = struct.pack("<QQQ", root, base, base + (n - 1) * STRIDE)
    return out


def _program(blocks: dict):
    prog = drgn.Program(drgn.host_platform)
    for addr, data in blocks.items():
        prog.add_memory_segment(
            addr, len(data),
            lambda _a, count, off, _p, data=data: data[off:off + count],
            False)
    return prog


def _spec(name: str, key=None, **kw) -> walk.TreeSpec:
    slot = ROOTS[name]
    base = dict(name=name, layout=walk.Layout(ENTRY, 0), root_slot=slot,
                key=key or Get("key"),
                flags=frozenset({"unique", "leftmost", "rightmost"}),
                leftmost_slot=slot + 8,
                rightmost_slot=slot + 16, aug_name="aug", aug=Get("aug"),
                aug_rule="max", aug_value=Get("key"))
    base.update(kw)
    return walk.TreeSpec(**base)


class FakeProg:
    def type(self, name):
        raise LookupError(name)

    def symbol(self, name):
        raise LookupError(name)


def _world(key_a=None, n=20, **kw_a):
    """Two trees in a drgn Program: a (20 keys, ids shuffled) and b;
    (prog, view, census, mem_of)."""
    from rbtilib.kernel.debuginfo import DrgnMemory
    ids = list(range(n))
    random.Random(3).shuffle(ids)
    blocks = {**_tree([10 * i for i in range(n)], NODES["a"], ROOTS["a"],
                      ids),
              **_tree([5 * i for i in range(9)], NODES["b"], ROOTS["b"],
                      list(range(9)))}
    # 16 bytes of zeros after each of a's entries
    blocks.update({NODES["a"] + i * STRIDE + 48: bytes(16)
                   for i in range(n)})
    prog = _program(blocks)
    specs = {"a": _spec("a", key_a, **kw_a), "b": _spec("b")}
    args = argparse.Namespace(kind=None, time_limit=None, attempts=4,
                              out=None)

    def run(mem):
        f = census_find.Finder(FakeProg(), mem)
        for name, sp in specs.items():
            f.add(f"{name}.root", "global", name, ROOTS[name], True,
                  ROOTS[name], spec=sp)
        return census.run_census(FakeProg(), mem, args, finder=f)
    return prog, cp.CowView(prog), run, lambda: DrgnMemory(prog)


# --- the view ----------------------------------------------------------------

def test_a_later_segment_wins_and_undoing_lays_the_old_bytes_back():
    prog = _program({0x1000: b"A" * 0x100})
    view = cp.CowView(prog)
    with view.broken({0x1010: b"BB", 0x1011: b"C"}):
        assert prog.read(0x100e, 6) == b"AABCAA"
        with view.broken({0x1000: b"D" * 0x20}):
            assert prog.read(0x100e, 6) == b"DDDDDD"
        assert prog.read(0x100e, 6) == b"AABCAA"
    assert prog.read(0x1000, 0x100) == b"A" * 0x100
    assert view.layers == 6


def test_the_view_is_undone_when_the_block_raises():
    prog = _program({0x1000: b"A" * 16})
    view = cp.CowView(prog)
    with pytest.raises(RuntimeError):
        with view.broken({0x1004: b"Z"}):
            raise RuntimeError
    assert prog.read(0x1000, 16) == b"A" * 16


# --- the breaks --------------------------------------------------------------

def test_key_fields_of_expressions_and_of_presets_fields():
    from rbtilib.kernel.expr import Bytes, Load, S64, Tuple
    sp = _spec("a", key=Tuple(Get("id"), Bytes(Get("aug"), Get("id"))))
    assert cp.key_fields(sp) == [(32, 8), (40, 8)]
    assert cp.key_fields(_spec("a", key=S64(Load(Get("aug"), 8)))) == \
        [(40, 8)]
    assert cp.key_fields(_spec("a", key=_field("key"))) == [(24, 8)]
    assert cp.key_fields(_spec("a", key=lambda e, c: e.key)) == []


def test_every_break_applies_to_a_full_featured_tree():
    prog, _, _, mem_of = _world()
    mem = mem_of()
    snap = walk.read_once(mem, _spec("a"))
    got = cp.breaks(mem, _spec("a"), snap)
    assert [(b.cls, b.name) for b in got] == [
        ("colour", "red root"), ("colour", "red-red"), ("link", "parent"),
        ("link", "child"), ("order", "key swap"), ("augment", "augment"),
        ("cache", "leftmost"), ("cache", "rightmost")]
    assert not any(isinstance(b, cp.Skip) for b in got)
    swap = next(b for b in got if b.name == "key swap")
    assert swap.may == {"order", "augment"}      # the aug reads the key
    assert sorted(swap.patches.values()) == [struct.pack("<q", 0),
                                             struct.pack("<q", 10)]


def test_breaks_that_do_not_apply_say_why():
    from rbtilib.kernel.debuginfo import DrgnMemory
    from rbtilib.record import replace
    mem = DrgnMemory(_program(_tree([7], 0x300000, 0x3000, [0])))
    sp = replace(_spec("a", leftmost_slot=None, rightmost_slot=None,
                       aug=None, aug_rule=None, aug_value=None),
                 root_slot=0x3000)
    got = {b.name: b for b in cp.breaks(mem, sp, walk.read_once(mem, sp))}
    assert {n for n, b in got.items() if isinstance(b, cp.Skip)} == {
        "red-red", "key swap", "augment", "leftmost", "rightmost"}
    assert got["key swap"].why == "one node: no two keys to swap"
    assert got["parent"].what == "the root's parent link set to itself"


# --- the proof ---------------------------------------------------------------

def test_every_break_is_found_exactly_there_and_nowhere_else():
    prog, view, run, mem_of = _world()
    base, cleans, cases = cp.prove(FakeProg(), view, run, mem_of)
    assert [c.ok for c in cleans] == [True, True]
    assert cp.tally(cases) == (16, 0, 0)
    for case in cases:
        assert case.found and case.exact and case.alone, case.line()
    red = next(c for c in cases if c.brk.name == "red root" and
               c.kind == "a.root")
    assert "root-color" in red.classes
    # The view is undone after each: a census of it is the clean one.
    assert cp.verdicts(run(mem_of())) == cp.verdicts(base)


def test_a_break_that_shows_in_another_tree_too_is_not_alone(monkeypatch):
    """A break of a's root colour that also makes b's root red: a is
    found, with its class, but not alone, and the case fails."""
    prog, view, run, mem_of = _world()
    b_root = struct.unpack("<Q", prog.read(ROOTS["b"], 8))[0]
    a_root = struct.unpack("<Q", prog.read(ROOTS["a"], 8))[0]

    def both(mem, spec, snap, rng=None):
        return [cp.Break("colour", "red root", "two roots red",
                         {a_root: bytes(8), b_root: bytes(8)},
                         frozenset({"root-color"}),
                         frozenset({"root-color", "red-red"}))]
    monkeypatch.setattr(cp, "breaks", both)
    _, _, cases = cp.prove(FakeProg(), view, run, mem_of, kinds=["a.root"])
    case, = cases
    assert case.found and case.exact and not case.alone and not case.ok
    assert case.others == ["b (b.root): violation root-color"]


# --- the self-check: a key that reads the wrong field ------------------------

def test_a_kind_whose_key_reads_the_wrong_field_fails_the_proof():
    """a's key read 8 bytes further on (its id, not its key: the ids are
    shuffled): the clean memory is not clean for it, and the proof says
    so; the other kind is still proven."""
    prog, view, run, mem_of = _world(key_a=cp.Shifted("key", 8))
    _, cleans, cases = cp.prove(FakeProg(), view, run, mem_of)
    bad = {c.kind: c for c in cleans}
    assert not bad["a.root"].ok and "order" in bad["a.root"].dirty[0]
    assert bad["b.root"].ok
    assert all(c.ok for c in cases if c.kind == "b.root")


def test_a_key_that_reads_a_constant_field_fails_the_key_swap():
    """Read 24 bytes on, past the entry (zeros, in a tree of duplicates):
    clean, but the swap has nothing to swap, and its case fails."""
    kw = dict(flags=frozenset({"dup", "leftmost", "rightmost"}), aug=None,
              aug_rule=None, aug_value=None)
    prog, view, run, mem_of = _world(key_a=cp.Shifted("key", 24), **kw)
    _, cleans, cases = cp.prove(FakeProg(), view, run, mem_of)
    assert all(c.ok for c in cleans)
    swap, = [c for c in cases if c.kind == "a.root" and
             c.brk.name == "key swap"]
    assert swap.brk.patches == {} and not swap.ok
    assert "all 20 keys are equal" in swap.brk.what
    assert cp.tally(cases)[1] == 1


def test_a_census_that_does_not_check_a_cache_fails_its_break():
    """The spec names the leftmost slot but the census is not asked to
    check it (no "leftmost" flag): the break is not found."""
    prog, view, run, mem_of = _world(flags=frozenset({"unique",
                                                      "rightmost"}))
    _, _, cases = cp.prove(FakeProg(), view, run, mem_of)
    bad = [c for c in cases if not c.ok]
    assert [(c.kind, c.brk.name, c.found) for c in bad] == [
        ("a.root", "leftmost", False)]


def test_mutant_shifts_a_builders_key():
    order = Order("struct e", "rb", Get("key"))
    got = cp.mutant(lambda prog: order, by=8)(None)
    assert isinstance(got.key, cp.Shifted) and got.key.parts == ("key",)
    assert got.key.at(ENTRY) == (32, 8, True)
    with pytest.raises(ValueError):
        cp.mutant(lambda prog: Order("struct e", "rb",
                                     Get("key") - Get("id")))(None)
