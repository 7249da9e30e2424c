# SPDX-License-Identifier: GPL-2.0
"""Tests of the walk over the inspector's node list (rbti_tree.all, .nodes)
and of every corrupt command read from a fake memory as the module
dumps it."""

import pytest

from rbtilib import checker
from rbtilib.kernel import commands, walk
from rbtilib.dump import UNKNOWN, parse_dump
from tests_support.trees import CONTRACT_TREES, build_tree, corrupt_tree
from tests_support.kmem import (GARBAGE, GOOD, LIST_OFF, T_COUNT, T_LEFT,
                                T_NODES, T_RIGHT, addr_of, build,
                                listed_memory, listed_spec, read)


# GOOD with 15 (node 4) cut off from 10 (node 1): `corrupt detach 15`.
DETACHED = dict(GOOD)
DETACHED[1] = (10, "B", 0, 3, None)


def test_detach_is_unreachable_blaming_the_first_lost_node():
    res = read(listed_memory(DETACHED, 0, [0, 1, 2, 3, 4]), listed_spec())
    tree = parse_dump(res.text)
    assert tree.allocated == 5 and list(tree.lost) == [1004]
    assert "nodes 5\n" in res.text and "lost 1004 15 R 1001 - - -\n" \
        in res.text
    first = res.violations[0]
    assert (first.cls, first.node) == ("unreachable", 1004)
    # The count of a tree that caches none is the list's: the module's.
    assert tree.count == 5


def test_lost_nodes_in_list_order_not_address_order():
    shape = dict(GOOD)
    shape[0] = (20, "B", None, None, 2)      # 10's subtree cut off
    res = read(listed_memory(shape, 0, [4, 0, 3, 2, 1]), listed_spec())
    tree = parse_dump(res.text)
    assert list(tree.lost) == [1004, 1003, 1001]
    assert (res.violations[0].cls, res.violations[0].node) == \
        ("unreachable", 1004)


def test_a_valid_listed_tree_has_nodes_equal_to_end():
    res = read(listed_memory(GOOD, 0, [0, 1, 2, 3, 4]), listed_spec())
    tree = parse_dump(res.text)
    assert res.violations == [] and tree.allocated == len(tree.nodes) == 5
    assert tree.lost == {}


def test_a_tree_without_a_list_has_no_nodes_line():
    """Kernel trees (vmap_area, ...) keep no list: the header does not
    claim to know what was allocated (DEBUGFS.md, api kernel)."""
    res = read(build(DETACHED, 0))
    tree = parse_dump(res.text)
    assert "nodes" not in res.text and "lost" not in res.text
    assert tree.allocated is None and tree.lost == {}


def test_the_list_is_read_with_the_nodes_not_again():
    mem = listed_memory(GOOD, 0, [0, 1, 2, 3, 4])
    walk.read_once(mem, listed_spec())
    # slots (root, count, nodes, list head) + one read per node: the list
    # links come with each node's read, so following the list is free
    assert mem.reads <= 4 + 5 + 4


@pytest.mark.parametrize("nexts, order, nodes, why", [
    ({2: addr_of(1) + LIST_OFF}, [0, 1, 2, 3, 4], None, "loops"),
    ({0: addr_of(0) + LIST_OFF}, [0, 1, 2, 3, 4], None, "loops"),
    ({}, [0, 1, 2, 3, 4], 3, "goes on past 3"),
    ({}, [0, 1, 2, 3], None, "not on the tree's list"),
    ({}, [0, 1, 2, 3, 4], 7, "has 5 entries, nodes says 7"),
    ({1: 0xdead0000}, [0, 1, 2, 3, 4], None, "unreadable"),
    ({1: addr_of(2) + LIST_OFF + 4}, [0, 1, 2, 3, 4], None,
     "not a list_head"),
    ({1: 0}, [0, 1, 2, 3, 4], None, "not a list_head"),
    ({4: addr_of(0) + LIST_OFF}, [0, 1, 2, 3, 4], 1 << 40, "loops"),
])
def test_a_broken_node_list_is_reported_not_followed(nexts, order, nodes,
                                                     why):
    mem = listed_memory(GOOD, 0, order, nodes, nexts=nexts)
    res = read(mem, listed_spec(count_slot=None))
    assert why in res.snap.list_problem
    # The dump stays finite and parseable, without nodes/lost lines.
    tree = parse_dump(res.text)
    assert tree.allocated is None and len(tree.nodes) == 5
    assert [(v.cls, v.node) for v in res.violations] == \
        [("unreachable", None)]
    assert "node list cannot be trusted" in res.violations[0].message


def test_a_garbage_count_does_not_make_the_walk_long():
    """A count of 2^40 with a list that runs into freed memory: the walk
    stops at the first unreadable entry, it does not trust the count."""
    mem = listed_memory(GOOD, 0, [0, 1, 2, 3, 4], 1 << 40,
                        nexts={4: 0xdead0000})
    snap = walk.read_once(mem, listed_spec())
    assert "unreadable" in snap.list_problem and len(snap.listed) == 5


def test_cached_leftmost_at_a_lost_node_is_its_id():
    """After `detach`, a cache may point into the cut-off subtree: the
    module writes that node's id, so does the walk (and the checker
    reports unreachable first)."""
    shape = dict(GOOD)
    shape[1] = (10, "B", 0, None, 4)         # 5 (node 3) detached
    flags = frozenset({"unique", "leftmost", "count"})
    mem = listed_memory(shape, 0, [0, 1, 2, 3, 4], cached=(3, None, -5))
    res = read(mem, listed_spec(flags=flags, leftmost_slot=T_LEFT,
                                count_slot=T_COUNT))
    tree = parse_dump(res.text)
    assert tree.leftmost == 1003 and list(tree.lost) == [1003]
    assert [v.cls for v in res.violations] == ["unreachable", "count",
                                               "leftmost"]


def test_link_to_no_node_is_question_mark_with_real_ids():
    shape = dict(GOOD)
    shape[2] = (30, "B", 0, ("raw", GARBAGE), None)
    res = read(listed_memory(shape, 0, [0, 1, 2, 3, 4]), listed_spec())
    assert "node 1002 30 B 1000 ? - -\n" in res.text
    assert parse_dump(res.text).nodes[1002].left is UNKNOWN


def _module_memory(tree) -> tuple:
    """*tree* (a Tree as the module would dump it) laid out in fake memory
    as the module keeps it: ids in allocation order, every node on the
    list, the caches in their slots.  Returns (memory, spec)."""
    pool = {**tree.nodes, **tree.lost}
    order = sorted(pool)
    num = {nid: i for i, nid in enumerate(order)}

    def ref(r):
        return None if r is None else ("raw", GARBAGE) if r is UNKNOWN \
            else num[r]
    shape = {num[n.id]: (n.key, n.color, ref(n.parent), ref(n.left),
                         ref(n.right), n.aug or 0) for n in pool.values()}
    cached = [num[c] if c is not None else None
              for c in (tree.leftmost, tree.rightmost)]
    mem = listed_memory(shape, None if tree.root is None else num[tree.root],
                        list(range(len(order))),
                        cached=(*cached, -tree.count))
    ids = {addr_of(num[nid]): nid for nid in order}
    aug = "augmented" in tree.flags
    sp = listed_spec(
        api=tree.api, flags=tree.flags, name=tree.name,
        node_id=lambda e, c: ids[e._win.base],
        leftmost_slot=T_LEFT if "leftmost" in tree.flags else None,
        rightmost_slot=T_RIGHT if "rightmost" in tree.flags else None,
        count_slot=T_COUNT if "count" in tree.flags else T_NODES,
        aug_name="size" if aug else None,
        aug=(lambda e, c: e.aug) if aug else None,
        aug_rule="size" if aug else None)
    return mem, sp


def _commands(tree) -> list:
    from rbtilib.dump import inorder
    nodes = list(inorder(tree))
    root = tree.nodes[tree.root]
    child = tree.nodes[root.left]
    red = next(n for n in nodes if n.color == "R")
    return [f"color {red.key}", f"color {root.key}", f"black {red.key}",
            f"key {child.key} {nodes[-1].key + 1000}",
            f"parent {child.key}", f"parent {root.key}", "leftmost",
            "rightmost", "count", f"aug {child.key}",
            f"detach {child.key}", f"detach {nodes[0].key}",
            f"share {child.key}", f"share {nodes[-1].key}",
            f"cycle {child.key}", f"cycle {root.key}"]


@pytest.mark.parametrize("info", CONTRACT_TREES, ids=lambda i: i.name)
def test_every_corrupt_command_reads_as_the_module_dumps_it(info):
    """For each corrupt command the contract's model applies (tests_support.trees),
    the tree read from memory has the model's dump (nodes and lost lines
    included) and the checker's first violation on it is the one the
    module's check reports: same class, same node."""
    from rbtilib.driver import DebugfsError
    keys = [(k * 37) % 101 for k in range(1, 41)]
    if "dup" in info.flags:
        keys += keys[:10]
    base = build_tree(keys, info, erase=keys[:5], allocated=True)
    tried = 0
    for command in [None] + _commands(base):
        try:
            want = base if command is None else corrupt_tree(base, command)
        except DebugfsError:
            continue
        tried += 1
        mem, sp = _module_memory(want)
        res = read(mem, sp)
        got = parse_dump(res.text)
        assert commands.compare_trees(want, got) is None, command
        first = checker.first_violation(want)
        have = res.violations[0] if res.violations else None
        assert (have and (have.cls, have.node)) == \
            (first and (first.cls, first.node)), command
    assert tried >= 10
