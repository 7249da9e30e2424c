# SPDX-License-Identifier: GPL-2.0
"""drgn's own red-black tree validator on an inspector tree: an oracle
written apart from both the module's ``check`` and rbtilib's checker.

``drgn.helpers.linux.rbtree.validate_rbtree`` checks the parent links,
the colours (a black root, no red node with a red child, equal black
heights) and each child's order against its parent; the in-order walk
it drives is checked here for the order of all the keys. It knows no
caches, counts or augmented values, and it does not see a subtree that
no link reaches.  A latch tree is validated copy by copy: copy 0 through
each node's ``lt.node[0]`` (its ``rb``), copy 1 through ``lt.node[1]``.
"""

from .kernel.debuginfo import module_object

DRGN_CLASSES = frozenset({"root-color", "red-red", "black-height", "parent",
                          "cycle", "shared", "order"})
"""Check classes a violation of which validate_rbtree must see too."""

MAX_NODES = 1 << 20
"""More nodes than this in order: a loop, not a tree."""


RBTI_LATCH = 1 << 10
"""kmod/inspector.h: the tree keeps two copies in rbti_tree.latch."""


def inspector_roots(prog, name: str) -> list:
    """``[(struct rb_root *, rb_node member)]`` of the inspector tree
    called *name*: its root, or a latch tree's two copies."""
    for tree in module_object(prog, "rbti_trees"):
        if tree.ops and tree.ops.name.string_().decode() == name:
            if int(tree.ops.flags) & RBTI_LATCH:
                return [(tree.latch.tree[i].address_of_(),
                         f"lt.node[{i}]") for i in (0, 1)]
            return [(tree.root.address_of_(), "rb")]
    raise KeyError(f"no inspector tree {name}")


def validate(prog, name: str, dup: bool) -> str | None:
    """None if drgn finds inspector tree *name* valid (each copy of a
    latch tree), else what it found first."""
    for copy, (root, member) in enumerate(inspector_roots(prog, name)):
        why = _validate(root, member, dup)
        if why is not None:
            return f"copy 1: {why}" if copy else why
    return None


def _validate(root, member: str, dup: bool) -> str | None:
    from drgn.helpers import ValidationError
    from drgn.helpers.linux.rbtree import (
        validate_rbtree_inorder_for_each_entry)

    def cmp(a, b) -> int:
        return (int(a.key) > int(b.key)) - (int(a.key) < int(b.key))

    prev = None
    try:
        walk = validate_rbtree_inorder_for_each_entry(
            "struct rbti_node", root, member, cmp, dup)
        for n, entry in enumerate(walk):
            key = int(entry.key)
            if prev is not None and (key < prev or (key == prev and
                                                    not dup)):
                return f"in order, key {key} follows key {prev}"
            if n > MAX_NODES:
                return f"more than {MAX_NODES} nodes in order"
            prev = key
    except ValidationError as e:
        return f"validate_rbtree: {e}"
    return None
