# SPDX-License-Identifier: GPL-2.0
"""A second checker, written apart from :mod:`rbtilib.checker`, for the
host's stand-in of the module (:class:`tests_support.fake.FakeDebugfs`).

The module's ``check`` file and the Python checker are two independent
implementations of one contract, and tests hold them to the same class
and node.  On the host the stand-in must not answer with the Python
checker itself, or "both checkers name the same node" compares a checker
with itself.  This one follows ``rbti_check()`` (kmod/inspector_walk.c)
as the C code is written: recursive walks that stop at the first broken
rule.  It knows the rules of kmod/DEBUGFS.md "check classes" that a
corrupt command can break; the dump's ``error depth`` cut is not one.
"""

from rbtilib.dump import Tree, aug_rule
from rbtilib.record import replace


class _Fail(Exception):
    """The first violation: its class and the node blamed."""

    def __init__(self, cls: str, node, why: str) -> None:
        super().__init__(f"fail {cls} node "
                         f"{'-' if node is None else node}: {why}")
        self.cls, self.node = cls, node


def _shape(tree: Tree) -> tuple:
    """The links the second walk may follow, and the ids reached."""
    kids, seen = {}, []

    def visit(nid, ancestors) -> None:
        seen.append(nid)
        kids[nid] = [None, None]
        for side, child in enumerate((tree.nodes[nid].left,
                                      tree.nodes[nid].right)):
            if child is None:
                continue
            if child not in tree.nodes:
                raise _Fail("parent", nid, "link to no node of this tree")
            if child == nid or child in ancestors:
                raise _Fail("cycle", nid, f"link back to {child}")
            if child in kids:
                raise _Fail("shared", nid, f"{child} reached twice")
            kids[nid][side] = child
            visit(child, ancestors | {nid})

    if tree.root is not None:
        visit(tree.root, frozenset())
    return kids, seen


def _walk(tree: Tree, kids: dict) -> tuple:
    """Parent links, colours, black heights, order and augmented sizes;
    returns (in-order ids, height)."""
    order, nil_blacks = [], []
    dup = tree.dup
    rule = aug_rule(tree.flags)
    by_max = rule in ("max", "interval-last")

    def visit(nid, up, blacks, depth) -> tuple:
        node = tree.nodes[nid]
        blacks += node.color == "B"
        if up is not None and node.parent != up:
            raise _Fail("parent", nid, f"parent is not {up}")
        if up is not None and node.color == "R" == tree.nodes[up].color:
            raise _Fail("red-red", nid, f"red under red {up}")
        left, right = kids[nid]
        if left is None or right is None:
            nil_blacks.append(blacks)
            if blacks != nil_blacks[0]:
                raise _Fail("black-height", nid,
                            f"{blacks} blacks, {nil_blacks[0]} first")
        size, height, top = 1, depth, node.value
        if left is not None:
            got = visit(left, nid, blacks, depth + 1)
            size, height = size + got[0], max(height, got[1])
            top = max(top, got[2]) if by_max else None
        if order:
            prev = tree.nodes[order[-1]]
            if node.key < prev.key or (node.key == prev.key and not dup):
                raise _Fail("order", nid, f"{node.key} after {prev.key}")
            if node.key == prev.key and nid < prev.id:
                raise _Fail("dup-order", nid, f"id {nid} after {prev.id}")
        order.append(nid)
        if right is not None:
            got = visit(right, nid, blacks, depth + 1)
            size, height = size + got[0], max(height, got[1])
            top = max(top, got[2]) if by_max else None
        want = size if rule == "size" else top
        if rule is not None and node.aug != want:
            raise _Fail("augment", nid, f"aug {node.aug}, {rule} {want}")
        return size, height, top

    height = 0
    if tree.root is not None:
        root = tree.nodes[tree.root]
        if root.color != "B":
            raise _Fail("root-color", tree.root, "red root")
        if root.parent is not None:
            raise _Fail("parent", tree.root, "root with a parent")
        height = visit(tree.root, None, 0, 1)[1]
    return order, height


def check(tree: Tree) -> str:
    """``ok``, or ``fail CLASS node N: why`` for the first violation."""
    try:
        kids, seen = _shape(tree)
        lost = [nid for nid in tree.nodes if nid not in kids]
        if tree.allocated is not None:
            lost = [] if tree.allocated == len(seen) else \
                list(tree.lost) + lost
        if lost:
            raise _Fail("unreachable", lost[0], "not reached from the root")
        order, height = _walk(tree, kids)
        root = tree.root
        if tree.count != len(order):
            raise _Fail("count", root, f"count {tree.count}")
        for cls, cached, real in (
                ("leftmost", tree.leftmost, order[0] if order else None),
                ("rightmost", tree.rightmost, order[-1] if order else None)):
            if cls in tree.flags and cached != real:
                raise _Fail(cls, real, f"cached {cached}")
        if rule_wrong(tree):
            raise _Fail("augment", None, f"augmented value {tree.aug}")
        if height > 2 * ((len(order) + 1).bit_length() - 1) or \
                tree.height != height:
            raise _Fail("height", root, f"height {height}")
        if tree.copy1 is not None:
            _copy1(tree, order)
    except _Fail as fail:
        return str(fail)
    return "ok"


def rule_wrong(tree: Tree) -> bool:
    """An augmented tree whose ``aug`` header is not its flags' rule."""
    return tree.augmented and tree.aug != aug_rule(tree.flags)


def _copy1(tree: Tree, order: list) -> None:
    """A latch tree's copy 1: the same walks, then the same ids in
    order as copy 0 (*order*)."""
    copy = tree.copy1
    second = replace(tree, root=copy.root, nodes=copy.nodes, lost={},
                     flags=frozenset({"unique"}), copy1=None)
    try:
        kids, _ = _shape(second)
        other, height = _walk(second, kids)
        if height > 2 * ((len(other) + 1).bit_length() - 1) or \
                copy.height != height:
            raise _Fail("height", copy.root, f"height {height}")
    except _Fail as fail:
        raise _Fail(fail.cls, fail.node,
                    "copy 1: " + str(fail).partition(": ")[2]) from None
    for pos in range(max(len(order), len(other))):
        ours = (order[pos] if pos < len(order) else None,
                other[pos] if pos < len(other) else None)
        if ours[0] != ours[1]:
            raise _Fail("latch", ours[0] if ours[0] is not None
                        else ours[1], f"position {pos + 1} differs")
