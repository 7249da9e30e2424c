# SPDX-License-Identifier: GPL-2.0
"""Tests of the invariant checker: valid trees pass, and each class of
corruption is caught with exactly that class and the right node."""


import pytest
from hypothesis import given, settings, strategies as st

from rbtilib.checker import CLASSES, Violation, check, first_violation
from rbtilib.dump import (UNKNOWN_PARENT, Node, Tree, format_dump, inorder,
                          parse_dump, preorder)
from rbtilib import record
from tests_support.family import BROKEN
from tests_support.trees import CONTRACT_TREES, build_tree, corrupt_tree

INFO = {info.name: info for info in CONTRACT_TREES}
KEYS = list(range(1, 64)) + list(range(100, 140, 3))


def tree_of(name: str, keys: list = KEYS) -> Tree:
    return build_tree(keys, INFO[name], erase=keys[5:40:4])


def set_node(tree: Tree, nid: int, **changes) -> Tree:
    nodes = dict(tree.nodes)
    nodes[nid] = record.replace(nodes[nid], **changes)
    return record.replace(tree, nodes=nodes)


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
                             f"node #{prev.id} (key {prev.key})")


def test_order_blames_the_later_node():
    tree = tree_of("santos")
    first, second = list(inorder(tree))[:2]
    bad = corrupt_tree(tree, f"key {first.key} 1000")
    found = expect(bad, "order", second.id)
    assert f"follows key 1000 of node #{first.id} (key 1000)" in \
        found.message


def test_order_on_dup_tree():
    tree = build_tree([5] * 6 + [1, 9], INFO["overstreet_dup"])
    first, second = list(inorder(tree))[:2]
    assert first.key == 1
    expect(corrupt_tree(tree, "key 1 6"), "order", second.id)
    # Equal to its neighbour is fine on a dup tree if the ids increase ...
    assert check(corrupt_tree(tree, "key 9 5")) == []
    # ... but not before its equals with smaller ids.
    found = expect(corrupt_tree(tree, "key 1 5"), "dup-order", second.id)
    assert f"follows node #{first.id} (key 5)" in found.message


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
    assert found.message == (f"it and its parent node #{target.id} (key "
                             f"{target.key}) are both red")


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


def test_cycle_blames_the_linking_node_and_terminates():
    tree = tree_of("santos")
    leaf = next(n for n in preorder(tree) if n.left is None)
    bad = set_node(tree, leaf.id, left=tree.root)
    found = expect(bad, "cycle", leaf.id)
    root = tree.nodes[tree.root]
    assert f"its ancestor node #{root.id} (key {root.key})" in found.message


def test_shared_node():
    tree = tree_of("santos")
    leaves = [n for n in preorder(tree) if n.left is None and
              n.right is None]
    a, b = leaves[-1], leaves[0]
    bad = set_node(tree, a.id, left=b.id)
    found = expect(bad, "shared", a.id)
    assert f"node #{b.id} (key {b.key}), which was already reached" in \
        found.message


def test_dangling_child():
    tree = tree_of("santos")
    leaf = next(n for n in preorder(tree) if n.right is None)
    found = expect(set_node(tree, leaf.id, right=99999), "parent", leaf.id)
    assert "99999" in found.message


def test_unreachable_node():
    tree = tree_of("mainline")
    nodes = dict(tree.nodes)
    nodes[5000] = Node(5000, 7, "B", None, None, None, None)
    found = expect(record.replace(tree, nodes=nodes), "unreachable",
                   5000)
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
    expect(record.replace(tree, aug=None), "augment", None)


def test_height_header():
    tree = tree_of("santos")
    expect(record.replace(tree, height=tree.height + 1), "height",
           tree.root)


def test_height_truncated_dump():
    tree = tree_of("santos")
    last = list(tree.nodes)[-1]
    expect(record.replace(tree, error="depth"), "height", last)


def test_truncated_dump_links_to_unlisted_nodes():
    # A dump cut short by 'error depth' lists only the nodes above the
    # limit: a link to a node past it is not a 'parent' violation.
    tree = tree_of("santos")
    leaf = next(nid for nid, n in tree.nodes.items()
                if n.left is None and n.right is None)
    nodes = {nid: n for nid, n in tree.nodes.items() if nid != leaf}
    cut = record.replace(tree, nodes=nodes, error="depth")
    expect(cut, "height", list(nodes)[-1])


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
    assert CLASSES == ("cycle", "shared", "unreachable", "order",
                       "dup-order", "root-color", "red-red", "black-height",
                       "parent", "count", "leftmost", "rightmost",
                       "augment", "height", "latch")


def test_violation_text_names_ids_and_keys():
    """One vocabulary: an id has a '#', its key follows; the
    module's check line has the id alone, and rbti adds the key."""
    v = Violation("parent", 5, "the root's parent pointer is node #7 (key "
                  "12), not NIL", "40")
    assert str(v) == "fail parent node #5 (key 40): the root's parent " \
        "pointer is node #7 (key 12), not NIL"
    assert str(Violation("count", 3, "x")) == "fail count node #3: x"
    assert str(Violation("count", None, "x")) == "fail count node -: x"


def test_the_leftmost_cache_on_the_root_names_ids_and_keys():
    """The cache points at the root, whose id is another node's key: the
    message names the root by '#' and id, then its key, so that neither
    it nor the picture takes the id for a key."""
    tree = build_tree([7, 3, 9, 1, 5, 8, 10], INFO["santos"])
    bad = record.replace(tree, leftmost=tree.root)
    root, first = bad.nodes[bad.root], next(inorder(bad))
    found = expect(bad, "leftmost", first.id)
    assert first.key == root.id == 1 and first.id != 1
    assert str(found) == (
        f"fail leftmost node #{first.id} (key {first.key}): cached leftmost "
        f"is node #{root.id} (key {root.key}), not the first node in order")


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
    if info.augmented:
        commands.append("aug")
    for cache in ("leftmost", "rightmost", "count"):
        if cache in info.flags:
            commands.append(cache)
    command = data.draw(st.sampled_from(commands))
    node = data.draw(st.sampled_from(order))
    if command == "key":
        text, want = f"key {node.key} {order[-1].key + 1}", {"order"}
        if node is order[-1] or (node.key == order[-1].key and info.dup):
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


# -- hand-made broken dumps, one per class -------------------------------

HEAD = """\
tree t
api santos
flags {flags}
count {count}
nodes {nodes}
root {root}
leftmost {leftmost}
rightmost {rightmost}
height {height}
aug {aug}
"""

VALID = dict(flags="unique,leftmost,rightmost,count,augmented", count=3,
             nodes=3, root=2, leftmost=1, rightmost=3, height=2, aug="size",
             lines=["node 2 20 B - 1 3 3", "node 1 10 R 2 - - 1",
                    "node 3 30 R 2 - - 1"])
"""A valid 3-node tree with every cache and the augmented size."""


def hand_dump(**changes) -> str:
    """VALID's dump text with header fields or lines replaced."""
    fields = {**VALID, **changes}
    lines = fields.pop("lines")
    head = HEAD.format(**fields)
    if fields["nodes"] is None:
        head = head.replace("nodes None\n", "")
    count = sum(line.startswith("node ") for line in lines)
    return head + "".join(f"{line}\n" for line in lines) + f"end {count}\n"


def with_line(index: int, line: str) -> list:
    lines = list(VALID["lines"])
    lines[index] = line
    return lines


HAND_MADE = {
    "order": (dict(lines=with_line(1, "node 1 25 R 2 - - 1")), 2),
    "dup-order": (dict(flags="dup,leftmost,rightmost,count,augmented",
                       leftmost=4,
                       lines=["node 2 20 B - 4 3 3", "node 4 20 R 2 - - 1",
                              "node 3 20 R 2 - - 1"]), 2),
    "root-color": (dict(lines=with_line(0, "node 2 20 R - 1 3 3")), 2),
    "red-red": (dict(count=4, nodes=4, leftmost=4, height=3,
                     lines=["node 2 20 B - 1 3 4", "node 1 10 R 2 4 - 2",
                            "node 4 5 R 1 - - 1", "node 3 30 R 2 - - 1"]),
                4),
    "black-height": (dict(lines=with_line(2, "node 3 30 B 2 - - 1")), 3),
    "parent": (dict(lines=with_line(2, "node 3 30 R 1 - - 1")), 3),
    "count": (dict(count=4), 2),
    "leftmost": (dict(leftmost=3), 1),
    "rightmost": (dict(rightmost=1), 3),
    "augment": (dict(lines=with_line(1, "node 1 10 R 2 - - 2")), 1),
    "height": (dict(height=3), 2),
    "cycle": (dict(lines=with_line(2, "node 3 30 R 2 2 - 1")), 3),
    "shared": (dict(lines=["node 2 20 B - 1 1 3", "node 1 10 R 2 - - 1",
                           "lost 3 30 R 2 - - 1"]), 2),
    "unreachable": (dict(lines=["node 2 20 B - 1 - 3", "node 1 10 R 2 - - 1",
                                "lost 3 30 R 2 - - 1"]), 3),
}


def test_hand_made_valid_dump_passes():
    assert check(parse_dump(hand_dump())) == []


def test_every_class_has_a_hand_made_dump():
    # latch: tests_support/family.py's BROKEN (test_family_dumps.py).
    assert sorted(HAND_MADE) == sorted(set(CLASSES) - {"latch"})
    assert "latch" in {cls for _, cls, _ in BROKEN.values()}


@pytest.mark.parametrize("cls", sorted(HAND_MADE))
def test_hand_made_broken_dump(cls):
    changes, node = HAND_MADE[cls]
    expect(parse_dump(hand_dump(**changes)), cls, node)


def test_shared_child_on_dup_tree():
    # Node 2 links node 1 as both children; node 3 is lost.
    text = hand_dump(flags="dup,count", leftmost="-", rightmost="-",
                     aug="-", lines=["node 2 5 B - 1 1 -",
                                     "node 1 5 R 2 - - -",
                                     "lost 3 5 R 2 - - -"])
    expect(parse_dump(text), "shared", 2)
    # A dump without the 'nodes' line, the lost node left out and the
    # cached count 3: still caught (counting node 1 twice would match the
    # count and hide it).
    old = hand_dump(flags="dup,count", leftmost="-", rightmost="-", aug="-",
                    nodes=None, count=3,
                    lines=["node 2 5 B - 1 1 -", "node 1 5 R 2 - - -"])
    expect(parse_dump(old), "shared", 2)


def test_equal_keys_out_of_id_order():
    # In order: ids 4, 2, 3 with equal keys: 2 was inserted before 4.
    text = hand_dump(flags="dup,leftmost,rightmost,count", leftmost=4,
                     aug="-", nodes=None,
                     lines=["node 2 5 B - 4 3 -", "node 4 5 R 2 - - -",
                            "node 3 5 R 2 - - -"])
    expect(parse_dump(text), "dup-order", 2)


def test_unknown_parent_is_not_id_minus_one():
    # id -1 is out of the id range: the dump is malformed ...
    text = hand_dump(flags="unique", leftmost="-", rightmost="-", aug="-",
                     nodes=None, count=2, root=-1,
                     lines=["node -1 5 B - - 2 -", "node 2 6 R ? - - -"])
    with pytest.raises(ValueError):
        parse_dump(text)
    # ... and with a real id the '?' parent is never taken for it.
    text = text.replace("-1", "1")
    found = expect(parse_dump(text), "parent", 2)
    assert "no node of this tree" in found.message


def test_black_height_reference_of_zero_blacks_is_kept():
    # A red root with a NIL left child: the first NIL path has 0 black
    # nodes.  The black node 3 then ends paths with 1: a violation, which
    # taking 1 as the reference (as 'if not nil_blacks' would) hides.
    text = hand_dump(flags="unique", leftmost="-", rightmost="-", aug="-",
                     nodes=None, count=2,
                     lines=["node 2 20 R - - 3 -", "node 3 30 B 2 - - -"])
    assert [(v.cls, v.node) for v in check(parse_dump(text))] == \
        [("root-color", 2), ("black-height", 3)]


def test_shape_is_checked_before_everything_else():
    # A red root (root-color) whose right link is a cycle: cycle first.
    text = hand_dump(lines=["node 2 20 R - 1 2 3", "node 1 10 R 2 - - 1",
                            "lost 3 30 R 2 - - 1"])
    found = [(v.cls, v.node) for v in check(parse_dump(text))]
    assert found[:3] == [("cycle", 2), ("unreachable", 3), ("root-color", 2)]


def test_unreachable_blames_the_first_lost_node_in_list_order():
    # The lost lines are in the module's list order, not in id order.
    text = hand_dump(nodes=4, count=1, leftmost=2, rightmost=2, height=1,
                     lines=["node 2 20 B - - - 1", "lost 3 30 R 2 - - 1",
                            "lost 1 10 R 2 - - 1", "lost 9 40 B ? ? 9 1"])
    found = expect(parse_dump(text), "unreachable", 3)
    assert "4 nodes allocated, 1 reachable" in found.message


@pytest.mark.parametrize("command, cls", [("detach", "unreachable"),
                                          ("share", "shared"),
                                          ("cycle", "cycle")])
@pytest.mark.parametrize("name", sorted(INFO))
def test_shape_corruption_every_tree(name, command, cls):
    tree = tree_of(name)
    order = list(inorder(tree))
    victim = next(n for n in preorder(tree) if n.id != tree.root
                  and n.key not in [m.key for m in order if m.id < n.id
                                    and m.key == n.key])
    victim = next(n for n in order if n.key == victim.key)
    up = next(n for n in tree.nodes.values()
              if victim.id in (n.left, n.right))
    bad = corrupt_tree(tree, f"{command} {victim.key}")
    bad = parse_dump(format_dump(bad))
    blamed = {"unreachable": next(iter(bad.lost), None), "shared": up.id,
              "cycle": victim.id}[cls]
    expect(bad, cls, blamed)


def test_shape_commands_on_the_root():
    tree = tree_of("santos")
    root = tree.nodes[tree.root]
    for command in ("detach", "share"):
        with pytest.raises(OSError) as err:
            corrupt_tree(tree, f"{command} {root.key}")
        assert err.value.name == "EINVAL"
    expect(corrupt_tree(tree, f"cycle {root.key}"), "cycle", root.id)
