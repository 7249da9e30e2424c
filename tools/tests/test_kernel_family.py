# SPDX-License-Identifier: GPL-2.0
"""The memory walk (rbtilib.kernel) on the rbtree family's trees, over a
fake memory laid out as kmod/inspector.h's struct rbti_node: VALUE, the
max augment (``max``, ``interval-last``) and a latch tree's two copies.

Each tree the contract's model builds (tests_support.trees), clean and
after every corrupt command tools/kernel-tests runs on it, is laid out as
the module keeps it; the tree read back must be the module's dump and its
first violation the module's check."""

import os
import struct

import pytest

from rbtilib import checker, record
from rbtilib.dump import UNKNOWN, parse_dump
from rbtilib.kernel import commands, presets, stable, walk
from tests_support.fake import FakeDebugfs
from tests_support.trees import (FAMILY_TREES, build_tree, corrupt_tree,
                                 load_script)

# struct rbti_node { union { struct rb_node rb; struct latch_tree_node lt;
#                    }; s64 key, value, max; u64 id; unsigned long size;
#                    struct list_head list; }
ENTRY = walk.DictType({"key": (48, 8, True), "value": (56, 8, True),
                       "max": (64, 8, True), "id": (72, 8, False),
                       "size": (80, 8, False)})
COPY1_OFF, LIST_OFF, ENTRY_SIZE = 24, 88, 104
BASE, STRIDE = 0x200000, 0x80
# struct rbti_tree, as far as the walk reads it: the root, the leftmost
# cache, the list's length and head (next, prev), latch.tree[0], tree[1].
T_ROOT, T_LEFT, T_NODES, T_ALL = 0x3000, 0x3008, 0x3010, 0x3018
T_LATCH0, T_LATCH1 = 0x3028, 0x3030
GARBAGE = 0x4240        # a pointer at no node

KERNEL_TESTS = os.path.join(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))), "kernel-tests")


class FakeMemory(walk.Memory):
    """Blocks of bytes at addresses; anything else faults."""

    def __init__(self) -> None:
        self.blocks: dict = {}

    def put(self, addr: int, data: bytes) -> None:
        self.blocks[addr] = bytearray(data)

    def read(self, addr: int, size: int) -> bytes:
        for base, data in self.blocks.items():
            if base <= addr and addr + size <= base + len(data):
                return bytes(data[addr - base:addr - base + size])
        from rbtilib.kernel import Fault
        raise Fault(addr)


class _Str:
    def __init__(self, text: str) -> None:
        self.text = text

    def string_(self) -> bytes:
        return self.text.encode()


class _Ops:
    """What presets._aug reads of a struct rbti_tree_ops."""

    def __init__(self, name: str, aug: int) -> None:
        self.name, self.aug = _Str(name), aug


def module_memory(tree) -> tuple:
    """*tree* (a Tree as the module dumps it) laid out in fake memory as
    the module keeps it: every node on the list in id order, copy 0's
    links in ``rb`` (``lt.node[0]``), a latch tree's copy 1 in
    ``lt.node[1]`` with its own root.  Returns (memory, spec)."""
    pool = {**tree.nodes, **tree.lost}
    order = sorted(pool)
    at = {nid: BASE + i * STRIDE for i, nid in enumerate(order)}

    def ptr(ref, off: int = 0) -> int:
        if ref is None:
            return 0
        return GARBAGE if ref is UNKNOWN else at[ref] + off

    def links(node, off: int) -> bytes:
        pc = ptr(node.parent, off) | (1 if node.color == "B" else 0)
        return struct.pack("<QQQ", pc, ptr(node.right, off),
                           ptr(node.left, off))
    latch = tree.copy1 is not None
    copy1 = tree.copy1.nodes if latch else {}
    chain = [T_ALL] + [at[nid] + LIST_OFF for nid in order] + [T_ALL]
    nxt = dict(zip(chain, chain[1:]))
    prv = {b: a for a, b in zip(chain, chain[1:])}
    mem = FakeMemory()
    for nid in order:
        node = pool[nid]
        rb1 = links(copy1[nid], COPY1_OFF) if nid in copy1 else bytes(24)
        mem.put(at[nid], links(node, 0) + rb1 + struct.pack(
            "<qqqQQQQ", node.key, node.value or 0, node.aug or 0, nid,
            0, nxt[at[nid] + LIST_OFF], prv[at[nid] + LIST_OFF]))
    root1 = ptr(tree.copy1.root, COPY1_OFF) if latch else 0
    mem.put(T_ROOT, struct.pack(
        "<QQQQQQQ", 0 if latch else ptr(tree.root), ptr(tree.leftmost),
        len(order), nxt[T_ALL], prv[T_ALL],
        ptr(tree.root) if latch else 0, root1))
    aug = presets._aug(_Ops(tree.name, 1), tree.flags)
    sp = walk.TreeSpec(
        tree.name, walk.Layout(ENTRY, 0), T_LATCH0 if latch else T_ROOT,
        lambda e, c: e.key, api=tree.api, flags=tree.flags,
        leftmost_slot=T_LEFT if "leftmost" in tree.flags else None,
        count_slot=T_NODES, node_id=lambda e, c: e.id,
        value=(lambda e, c: e.value) if tree.value else None,
        value_name=tree.value, list_head=T_ALL, list_off=LIST_OFF,
        nodes_slot=T_NODES, copy1_slot=T_LATCH1 if latch else None,
        copy1_off=COPY1_OFF, **aug)
    return mem, sp


def read(tree):
    mem, sp = module_memory(tree)
    res = stable.read_stable(mem, sp)
    assert parse_dump(res.text) == res.tree
    return res


def same_as_module(want, res, what) -> None:
    got = parse_dump(res.text)
    assert commands.compare_trees(want, got) is None, what
    first = checker.first_violation(want)
    have = res.violations[0] if res.violations else None
    assert (have and (have.cls, have.node)) == \
        (first and (first.cls, first.node)), (what, res.violations[:3])


def _model(info):
    keys = [(k * 37) % 101 for k in range(1, 41)]
    if "dup" in info.flags:
        keys += keys[:10]
    return build_tree(keys, info, erase=keys[:5], allocated=True)


@pytest.mark.parametrize("info", FAMILY_TREES, ids=lambda i: i.name)
def test_every_corrupt_case_reads_as_the_module_dumps_it(info):
    """kernel-tests' corrupt list on each family tree: the dump read from
    memory is the model module's, and so is its first violation."""
    from rbtilib.driver import DebugfsError
    kt = load_script(KERNEL_TESTS, "kernel_tests")
    base = _model(info)
    tried = 0
    for command in [None] + kt.corrupt_commands(base):
        try:
            want = base if command is None else corrupt_tree(base, command)
        except DebugfsError:
            assert command is None or not kt.applies(command, info.flags), \
                command
            continue
        tried += 1
        same_as_module(want, read(want), command)
    assert tried == 1 + kt.expected_cases(info.flags)


def test_value_and_aug_are_read_per_node():
    info = next(i for i in FAMILY_TREES if i.name == "interval")
    want = _model(info)
    res = read(want)
    assert res.violations == [] and res.tree.value == "last"
    assert res.tree.aug == "interval-last"
    assert "\nvalue last\n" in res.text
    for nid, node in want.nodes.items():
        assert (res.tree.nodes[nid].value, res.tree.nodes[nid].aug) == \
            (node.value, node.aug)


def test_a_broken_value_is_an_augment_violation_blaming_the_node():
    """`corrupt value KEY` read from memory: the node's VALUE above its
    aug, the checker blames that node."""
    info = next(i for i in FAMILY_TREES if i.name == "mainline_aug")
    base = _model(info)
    node = base.nodes[base.root]
    res = read(corrupt_tree(base, f"value {node.key}"))
    assert (res.violations[0].cls, res.violations[0].node) == \
        ("augment", node.id)


def _latch():
    return _model(next(i for i in FAMILY_TREES if i.name == "latch"))


def test_both_latch_copies_are_read():
    want = _latch()
    res = read(want)
    assert res.violations == [] and res.tree.copy1 == want.copy1
    assert "\ncopy 1\nroot " in res.text


def test_a_node_missing_from_copy_1_is_a_latch_violation():
    base = _latch()
    key = base.nodes[base.root].key
    res = read(corrupt_tree(base, f"latch {key}"))
    assert [v.cls for v in res.violations] == ["latch"]


def test_a_cycle_in_copy_1_is_written_as_a_link_and_not_followed():
    """Copy 1's walk is bounded as copy 0's: a leaf whose left link points
    back at its parent ends the walk, as the module's dump does."""
    want = _latch()
    copy = want.copy1
    leaf = next(n for n in reversed(copy.nodes.values())
                if n.left is None and n.right is None)
    nodes = dict(copy.nodes)
    nodes[leaf.id] = record.replace(leaf, left=leaf.parent)
    want = record.replace(want, copy1=record.replace(copy, nodes=nodes))
    res = read(want)
    same_as_module(want, res, "cycle in copy 1")
    assert res.violations[0].cls == "cycle"
    assert "copy 1" in res.violations[0].message


def test_an_unreadable_copy_1_link_is_reported():
    want = _latch()
    mem, sp = module_memory(want)
    leaf = next(n for n in want.copy1.nodes.values() if n.left is None)
    addr = BASE + sorted({**want.nodes, **want.lost}).index(leaf.id) * STRIDE
    mem.blocks[addr][COPY1_OFF + 16:COPY1_OFF + 24] = struct.pack(
        "<Q", 0xdead0000)
    res = stable.read_stable(mem, sp)
    assert any(v.message.startswith("copy 1: node at 0xdead0000")
               for v in res.violations)
    assert parse_dump(res.text).copy1.nodes[leaf.id].left is UNKNOWN


def test_copy_1_too_deep_stops_with_error_depth():
    """A copy 1 deeper than the cap (a corrupted chain) stops the walk
    there, as copy 0's: ``error depth``, height one more than the cap."""
    want = _latch()
    mem, sp = module_memory(want)
    # A chain of 140 entries linked by copy 1's left links only.
    chain = [0x600000 + i * STRIDE for i in range(140)]
    for i, addr in enumerate(chain):
        left = chain[i + 1] + COPY1_OFF if i + 1 < len(chain) else 0
        mem.put(addr, bytes(24) + struct.pack("<QQQ", 1, 0, left) +
                struct.pack("<qqqQQQQ", i, 0, 0, 5000 + i, 0, 0, 0))
    mem.blocks[T_ROOT][48:56] = struct.pack("<Q", chain[0] + COPY1_OFF)
    snap = walk.read_once(mem, sp)
    assert snap.copy1.error == "depth"
    assert len(snap.copy1.nodes) == walk.MAX_DEPTH
    res = stable.read_stable(mem, sp)
    assert res.tree.copy1.height == walk.MAX_DEPTH + 1
    assert res.tree.copy1.error == "depth"


def test_a_copy_1_change_makes_two_reads_disagree():
    """Snapshot.key() covers copy 1: reads that differ only there are
    not taken as one stable read."""
    want = _latch()
    mem, sp = module_memory(want)
    one = walk.read_once(mem, sp)
    root1 = struct.unpack("<Q", mem.blocks[T_ROOT][48:56])[0]
    block = next(b for a, b in mem.blocks.items()
                 if a <= root1 < a + STRIDE)
    block[COPY1_OFF] ^= 1                       # copy 1's root recoloured
    assert walk.read_once(mem, sp).key() != one.key()


def test_the_fake_module_serves_what_memory_reads():
    """kernel-tests' populate() on the fake module, every family tree:
    its dump laid out in memory reads back the same."""
    kt = load_script(KERNEL_TESTS, "kernel_tests")
    fake = FakeDebugfs(FAMILY_TREES)
    for info in FAMILY_TREES:
        kt.populate(fake, info.name, info.flags, n=60, seed=7)
        want = fake.dump(info.name)
        res = read(want)
        assert res.violations == [], info.name
        same_as_module(want, res, info.name)


def test_an_unknown_augment_rule_is_an_error():
    from rbtilib.kernel import KernelError
    with pytest.raises(KernelError, match="augment rule 7"):
        presets._aug(_Ops("x", 7), frozenset({"augmented"}))
    assert presets._aug(_Ops("x", 1), frozenset({"augmented", "value",
                                                 "interval"}))[
        "aug_name"] == "interval-last"
    assert presets._aug(_Ops("x", 0), frozenset({"unique"})) == {}
