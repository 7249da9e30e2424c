# SPDX-License-Identifier: GPL-2.0
"""What changed between two dumps of one tree: the flipbook's highlights
and its short captions ("insert 25: recolour 20, rotate left at 10").

Node ids are stable across operations (the module numbers nodes from a
counter), so two dumps are compared id by id: nodes added and removed,
colours flipped, and links changed.  A rotation shows as a child taking
its parent's place: rotating left at X turns X's right child Y into X's
parent with X as Y's left child (right: mirrored), which is what
:func:`rotations` looks for.
"""
from __future__ import annotations

from rbtilib.record import factory, record

from rbtilib.dump import Tree

OP_NAMES = {"i": "insert", "e": "erase", "f": "find", "n": "near"}


@record
class Diff:
    """Changes from one dump to the next (ids)."""

    added: list = factory(list)
    removed: list = factory(list)
    recoloured: list = factory(list)
    rotations: list = factory(list)    # ("left"|"right", id)
    relinked: list = factory(list)     # child ids with a new parent link
    moved: list = factory(list)        # ids whose links changed

    @property
    def changed(self) -> list:
        """Nodes to highlight: added, recoloured or relinked."""
        seen: dict = {}
        for nid in self.added + self.recoloured + self.moved:
            seen.setdefault(nid, None)
        return list(seen)


def _links(tree: Tree) -> dict:
    """child id -> parent id, through child links."""
    up = {}
    for node in tree.nodes.values():
        for ref in (node.left, node.right):
            if ref is not None and ref in tree.nodes:
                up.setdefault(ref, node.id)
    return up


def _depth(up: dict, nid: int) -> int:
    depth = 0
    while nid in up and depth <= len(up):
        nid = up[nid]
        depth += 1
    return depth


def rotations(old: Tree, new: Tree) -> list:
    """``("left", X)`` / ``("right", X)`` for each rotation at X, deepest
    first (the order rebalancing does them).

    Rotating left at X makes its right child Y (or, in the second half of
    a double rotation, its right child's left child) X's parent, with X as
    Y's left child; Y may also be the node just inserted.  Right: mirrored.
    A node that merely moves up to replace an erased one is not Y's child
    or zig-zag grandchild, so erasing is not mistaken for rotating.
    """
    up_old, up_new = _links(old), _links(new)
    found = []
    for nid, before in old.nodes.items():
        if nid not in new.nodes:
            continue
        y = up_new.get(nid)
        if y is None or y == up_old.get(nid):
            continue
        pivot = new.nodes[y]
        for side, back, near in (("left", pivot.left, before.right),
                                 ("right", pivot.right, before.left)):
            if back != nid:
                continue
            far = None
            if near is not None and near in old.nodes:
                far = old.nodes[near].left if side == "left" else old.nodes[near].right
            if y not in old.nodes or y in (near, far):
                found.append((side, nid))
    found.sort(key=lambda rot: -_depth(up_old, rot[1]))
    return found


def diff(old: Tree | None, new: Tree) -> Diff:
    """Compare two dumps of one tree (*old* None: everything is new)."""
    if old is None:
        return Diff(added=list(new.nodes))
    d = Diff()
    d.added = [nid for nid in new.nodes if nid not in old.nodes]
    d.removed = [nid for nid in old.nodes if nid not in new.nodes]
    d.recoloured = sorted((nid for nid, n in new.nodes.items()
                           if nid in old.nodes and old.nodes[nid].color != n.color),
                          key=lambda nid: (new.nodes[nid].key, nid))
    d.rotations = rotations(old, new)
    up_old, up_new = _links(old), _links(new)
    d.relinked = [c for c, p in up_new.items() if up_old.get(c) != p]
    d.moved = [nid for nid, n in new.nodes.items()
               if nid in old.nodes and
               (old.nodes[nid].left, old.nodes[nid].right) != (n.left, n.right)]
    return d


def _name(tree: Tree, nid: int) -> str:
    """A node as a caption names it: its key, and its id on dup trees."""
    node = tree.nodes[nid]
    return f"{node.key}#{nid}" if "dup" in tree.flags else str(node.key)


def describe_op(op: str) -> str:
    """``i 25 -> ok 7`` -> ``insert 25``; anything else unchanged."""
    words = op.split()
    if len(words) >= 2 and words[0] in OP_NAMES:
        result = op.split("->", 1)[1].strip() if "->" in op else ""
        text = f"{OP_NAMES[words[0]]} {words[1]}"
        if result and not result.startswith(("ok", "erased", "replaced")):
            text += f" ({result})"
        return text
    return op


def caption(old: Tree | None, new: Tree, ops: list[str], d: Diff | None = None) -> str:
    """One short line: the operation(s), then what they did to the tree."""
    d = d if d is not None else diff(old, new)
    if len(ops) == 1:
        head = describe_op(ops[0])
    else:
        head = f"{len(ops)} ops ({describe_op(ops[0])} ... {describe_op(ops[-1])})"
    if old is None:
        return f"{head}: {len(new.nodes)} node{'s' if len(new.nodes) != 1 else ''}"
    parts = []
    if d.added:
        parts.append("new " + ", ".join(_name(new, i) for i in d.added[:5])
                     + (" ..." if len(d.added) > 5 else ""))
    if d.removed:
        parts.append(f"{len(d.removed)} removed" if len(d.removed) > 5 else
                     "removed " + ", ".join(_name(old, i) for i in d.removed))
    if d.recoloured:
        parts.append("recolour " + ", ".join(_name(new, i) for i in d.recoloured[:6])
                     + (" ..." if len(d.recoloured) > 6 else ""))
    for side, nid in d.rotations[:4]:
        parts.append(f"rotate {side} at {_name(new, nid)}")
    if len(d.rotations) > 4:
        parts.append(f"{len(d.rotations) - 4} more rotations")
    return f"{head}: " + (", ".join(parts) if parts else "no change")
