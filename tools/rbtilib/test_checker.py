# SPDX-License-Identifier: GPL-2.0
"""Tests of the invariant checker: valid trees pass, and each class of
corruption is caught with exactly that class and the right node."""

import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

from rbtilib.checker import CLASSES, Violation, check, first_violation
from rbtilib.dump import UNKNOWN_PARENT, Node, Tree, inorder, preorder
from rbtilib.testing import CONTRACT_TREES, build_tree, corrupt_tree

INFO = {info.name: info for info in CONTRACT_TREES}
KEYS = list(range(1, 64)) + list(range(100, 140, 3))


def tree_of(name: str, keys: list = KEYS) -> Tree:
    return build_tree(keys, INFO[name], erase=keys[5:40:4])


def set_node(tree: Tree, nid: int, **changes) -> Tree:
    nodes = dict(tree.nodes)
    nodes[nid] = dataclasses.replace(nodes[nid], **changes)
    return dataclasses.replace(tree, nodes=nodes)


def expect(tree: Tree, cls: str, node: int | None) -> Violation:
    found = first_violation(tree)
    assert found is not None, "corruption not caught"
    assert (found.cls, found.node) == (cls, node), str(found)
    return found


def parent_of(tree: Tree, nid: int) -> int | None:
    return tree.nodes[nid].parent


@pytest.mark.parametrize("name", sorted(INFO))
def test_valid_trees_pass(name):
    tree = tree_of(name)
    assert check(tree) == []
    assert first_violation(tree) is None


def test_empty_and_single_trees_pass():
    assert check(tree_of("santos", [])) == []
    assert check(tree_of("santos_aug", [5])) == []


def test_dup_tree_allows_equal_keys():
    keys = [5] * 10 + [3] * 7 + [9] * 5
    tree = build_tree(keys, INFO["santos_dup"])
    assert check(tree) == []
    assert [n.key for n in inorder(tree)] == sorted(keys)


def test_unique_tree_rejects_equal_keys():
    tree = tree_of("santos")
    order = list(inorder(tree))
    # A leaf: only the ancestors' window constrains it.
    leaf = next(n for n in order[1:] if n.left is None and n.right is None)
    prev = order[order.index(leaf) - 1]
    bad = set_node(tree, leaf.id, key=prev.key)
    found = expect(bad, "order", leaf.id)
    assert found.message == (f"key {prev.key} follows key {prev.key} of "
                             f"node {prev.id}")


def test_order_blames_the_later_node():
    tree = tree_of("santos")
    first, second = list(inorder(tree))[:2]
    bad = corrupt_tree(tree, f"key {first.key} 1000")
    found = expect(bad, "order", second.id)
    assert f"follows key 1000 of node {first.id}" in found.message


def test_order_on_dup_tree():
    tree = build_tree([5] * 6 + [1, 9], INFO["overstreet_dup"])
    first, second = list(inorder(tree))[:2]
    assert first.key == 1
    expect(corrupt_tree(tree, "key 1 6"), "order", second.id)
    # Equal to its neighbour is fine on a dup tree.
    assert check(corrupt_tree(tree, "key 1 5")) == []


def test_root_color():
    tree = tree_of("santos")
    root = tree.nodes[tree.root]
    expect(corrupt_tree(tree, f"color {root.key}"), "root-color", root.id)


def test_red_red_names_the_red_child():
    tree = tree_of("santos")
    nodes = tree.nodes
    target = next(
        n for n in preorder(tree)
        if n.color == "B" and n.parent is not None
        and nodes[n.parent].color == "B"
        and any(c is not None and nodes[c].color == "R"
                for c in (n.left, n.right)))
    child = next(c for c in (target.left, target.right)
                 if c is not None and nodes[c].color == "R")
    found = expect(corrupt_tree(tree, f"color {target.key}"), "red-red",
                   child)
    assert found.message == f"red node {child} has red parent {target.id}"


def test_black_height_names_the_first_differing_nil_path():
    tree = tree_of("santos")
    nodes = tree.nodes
    leftmost_path = set()
    ref = tree.root
    while ref is not None:
        leftmost_path.add(ref)
        ref = nodes[ref].left
    # A red node off the first path: the first node in preorder below it
    # with a NIL child ends the first path with one black too many.
    red = next(n for n in preorder(tree)
               if n.color == "R" and n.id not in leftmost_path)
    blamed = red
    while blamed.left is not None and blamed.right is not None:
        blamed = nodes[blamed.left]
    found = expect(corrupt_tree(tree, f"black {red.key}"), "black-height",
                   blamed.id)
    assert "black nodes on the path to its NIL child" in found.message


def test_black_on_black_node_is_einval():
    tree = tree_of("santos")
    root = tree.nodes[tree.root]
    with pytest.raises(OSError) as err:
        corrupt_tree(tree, f"black {root.key}")
    assert err.value.name == "EINVAL"


def test_parent_link():
    tree = tree_of("santos")
    victim = list(preorder(tree))[7]
    bad = corrupt_tree(tree, f"parent {victim.key}")
    assert bad.nodes[victim.id].parent != victim.parent
    expect(bad, "parent", victim.id)


def test_parent_of_root_must_be_nil():
    tree = tree_of("mainline")
    root = tree.nodes[tree.root]
    expect(corrupt_tree(tree, f"parent {root.key}"), "parent", root.id)


def test_unknown_parent():
    tree = tree_of("mainline")
    victim = list(preorder(tree))[3]
    bad = set_node(tree, victim.id, parent=UNKNOWN_PARENT)
    found = expect(bad, "parent", victim.id)
    assert "no node of this tree" in found.message


def test_cycle_is_a_parent_violation_and_terminates():
    tree = tree_of("santos")
    leaf = next(n for n in preorder(tree) if n.left is None)
    bad = set_node(tree, leaf.id, left=tree.root)
    found = expect(bad, "parent", tree.root)
    assert "cycle or shared node" in found.message


def test_shared_node():
    tree = tree_of("santos")
    leaves = [n for n in preorder(tree) if n.left is None and
              n.right is None]
    a, b = leaves[-1], leaves[0]
    bad = set_node(tree, a.id, left=b.id)
    assert any(v.cls == "parent" and v.node == b.id and
               "already reached" in v.message for v in check(bad))


def test_dangling_child():
    tree = tree_of("santos")
    leaf = next(n for n in preorder(tree) if n.right is None)
    found = expect(set_node(tree, leaf.id, right=99999), "parent", leaf.id)
    assert "99999" in found.message


def test_unreachable_node():
    tree = tree_of("mainline")
    nodes = dict(tree.nodes)
    nodes[5000] = Node(5000, 7, "B", None, None, None, None)
    found = expect(dataclasses.replace(tree, nodes=nodes), "parent", 5000)
    assert "not reachable" in found.message


def test_count():
    tree = tree_of("santos")
    found = expect(corrupt_tree(tree, "count"), "count", tree.root)
    assert str(len(tree.nodes)) in found.message


@pytest.mark.parametrize("cache", ["leftmost", "rightmost"])
def test_caches(cache):
    tree = tree_of("santos_dup")
    bad = corrupt_tree(tree, cache)
    # The node blamed is the one the cache should point at.
    expect(bad, cache, getattr(tree, cache))
    assert getattr(bad, cache) != getattr(tree, cache)


def test_caches_not_checked_when_not_cached():
    tree = tree_of("mainline")
    assert tree.leftmost is None and check(tree) == []
    with pytest.raises(OSError):
        corrupt_tree(tree, "leftmost")


def test_augment():
    tree = tree_of("santos_aug")
    victim = list(preorder(tree))[4]
    found = expect(corrupt_tree(tree, f"aug {victim.key}"), "augment",
                   victim.id)
    assert found.message == (f"aug is {victim.aug + 1}, its subtree has "
                             f"{victim.aug} nodes")


def test_augment_missing_value():
    tree = tree_of("santos_aug")
    expect(set_node(tree, tree.root, aug=None), "augment", tree.root)
    expect(dataclasses.replace(tree, aug=None), "augment", None)


def test_height_header():
    tree = tree_of("santos")
    expect(dataclasses.replace(tree, height=tree.height + 1), "height",
           tree.root)


def test_height_truncated_dump():
    tree = tree_of("santos")
    last = list(tree.nodes)[-1]
    expect(dataclasses.replace(tree, error="depth"), "height", last)


def test_height_bound():
    # A black chain: also unbalanced, but the height rule must fire too.
    # 7 nodes in a line: 7 > 2*log2(8) = 6.
    nodes = {i: Node(i, i, "B", i - 1 if i > 1 else None, None,
                     i + 1 if i < 7 else None, None) for i in range(1, 8)}
    tree = Tree("t", "santos", frozenset({"unique"}), 7, 1, None, None, 7,
                None, nodes)
    assert any(v.cls == "height" and "exceeds" in v.message
               for v in check(tree))
    assert first_violation(tree).cls == "black-height"


def test_walk_order_decides_the_first_violation():
    # A red-red at a deep node and an order fault earlier in order: the
    # walk meets the red-red first only if it is entered first.
    tree = tree_of("santos")
    root = tree.nodes[tree.root]
    bad = corrupt_tree(tree, f"color {root.key}")
    bad = corrupt_tree(bad, "count")
    assert [v.cls for v in check(bad)][:1] == ["root-color"]
    assert [v.cls for v in check(bad)][-1] == "count"


def test_classes_in_contract_order():
    assert CLASSES == ("order", "root-color", "red-red", "black-height",
                       "parent", "count", "leftmost", "rightmost",
                       "augment", "height")


def test_violation_text_matches_module_format():
    v = Violation("parent", 5, "node 5 is the root")
    assert str(v) == "fail parent node 5: node 5 is the root"
    assert str(Violation("count", None, "x")) == "fail count node -: x"


@settings(max_examples=80, deadline=None)
@given(st.sampled_from(CONTRACT_TREES),
       st.lists(st.integers(0, 40), min_size=2, max_size=80),
       st.data())
def test_random_corruption_is_caught(info, keys, data):
    tree = build_tree(keys, info, erase=keys[::4])
    assert check(tree) == []
    order = list(inorder(tree))
    if len(order) < 2:
        return
    commands = ["color", "parent", "key"]
    if "augmented" in info.flags:
        commands.append("aug")
    for cache in ("leftmost", "rightmost", "count"):
        if cache in info.flags:
            commands.append(cache)
    command = data.draw(st.sampled_from(commands))
    node = data.draw(st.sampled_from(order))
    if command == "key":
        text, want = f"key {node.key} {order[-1].key + 1}", {"order"}
        if node is order[-1] or (node.key == order[-1].key and
                                 "dup" in info.flags):
            text = f"key {node.key} {order[0].key - 1}"
            if node.key == order[0].key:
                return
    elif command == "color":
        text = f"color {node.key}"
        want = {"root-color", "red-red", "black-height"}
    elif command in ("parent", "aug"):
        text, want = f"{command} {node.key}", {"parent" if command ==
                                               "parent" else "augment"}
    else:
        text, want = command, {command}
    found = first_violation(corrupt_tree(tree, text))
    assert found is not None and found.cls in want, (text, found)
