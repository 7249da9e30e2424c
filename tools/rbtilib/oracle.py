# SPDX-License-Identifier: GPL-2.0
"""drgn's own red-black tree validator on an inspector tree: an oracle
written apart from both the module's ``check`` and rbtilib's checker.

``drgn.helpers.linux.rbtree.validate_rbtree`` checks the parent links,
the colours (a black root, no red node with a red child, equal black
heights) and each child's order against its parent; the in-order walk
it drives is checked here for the order of all the keys. It knows no
caches, counts or augmented values, and it does not see a subtree that
no link reaches.
"""

from .kernel.debuginfo import module_object

DRGN_CLASSES = frozenset({"root-color", "red-red", "black-height", "parent",
                          "cycle", "shared", "order"})
"""Check classes a violation of which validate_rbtree must see too."""

MAX_NODES = 1 << 20
"""More nodes than this in order: a loop, not a tree."""


def inspector_root(prog, name: str):
    """The ``struct rb_root *`` of the inspector tree called *name*."""
    for tree in module_object(prog, "rbti_trees"):
        if tree.ops and tree.ops.name.string_().decode() == name:
            return tree.root.address_of_()
    raise KeyError(f"no inspector tree {name}")


def validate(prog, name: str, dup: bool) -> str | None:
    """None if drgn finds inspector tree *name* valid, else what it
    found first."""
    from drgn.helpers import ValidationError
    from drgn.helpers.linux.rbtree import (
        validate_rbtree_inorder_for_each_entry)

    def cmp(a, b) -> int:
        return (int(a.key) > int(b.key)) - (int(a.key) < int(b.key))

    prev = None
    try:
        walk = validate_rbtree_inorder_for_each_entry(
            "struct rbti_node", inspector_root(prog, name), "rb", cmp, dup)
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
