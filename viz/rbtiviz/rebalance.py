# SPDX-License-Identifier: GPL-2.0
"""The rotations one insert or erase made, found from two dumps.

A single insert or erase changes a red-black tree in two steps: the
structural change (the new node linked at its leaf, or put in the place
of the node it replaces; the erased node replaced by its only child or by
its successor, as ``rb_erase()`` does),
then rebalancing: recolours and at most three rotations.  Given the dumps
before and after, :func:`rotations_between` redoes the structural change
on the old shape and searches for the shortest sequence of rotations
(at most :data:`MAX_ROTATIONS`) that turns it into the new shape.  Only
nodes whose child links still differ from the new shape are tried, so the
search is cheap however large the tree.  It returns None when the two
dumps are not one insert or erase apart (several operations, a corrupt
tree): the caller then falls back on a guess.
"""
from __future__ import annotations

from rbtilib.dump import Tree

MAX_ROTATIONS = 3
"""An insert rotates at most twice, an erase at most three times."""


class _Shape:
    """Child and parent links by id, with rotations that can be undone."""

    def __init__(self, tree: Tree) -> None:
        self.root = tree.root
        self.kids = {nid: [n.left, n.right] for nid, n in tree.nodes.items()}
        self.up: dict = {}
        self.target = None
        self.bad: set = set()
        for nid, (left, right) in self.kids.items():
            for child in (left, right):
                if child is not None:
                    self.up[child] = nid

    def _replace_child(self, parent, old, new) -> None:
        if parent is None:
            self.root = new
        else:
            kids = self.kids[parent]
            kids[kids.index(old)] = new
        if new is not None:
            self.up[new] = parent

    def rotate(self, x: int, side: str) -> int | None:
        """Rotate *side* ("left": x's right child rises) at x; return the
        child that rose, or None if there is none."""
        down, rise = (0, 1) if side == "left" else (1, 0)
        y = self.kids[x][rise]
        if y is None:
            return None
        inner = self.kids[y][down]
        self._replace_child(self.up.get(x), x, y)
        self.kids[x][rise] = inner
        if inner is not None:
            self.up[inner] = x
        self.kids[y][down] = x
        parent = self.up[y] = self.up.get(x)
        self.up[x] = y
        if self.target is not None:
            for nid in (parent, x, y):
                if nid is not None:
                    self._mark(nid)
            self._mark(None)
        return y

    def link_leaf(self, nid: int, key: int, keys: dict) -> None:
        """Link a new node where a plain search for *key* ends."""
        self.kids[nid] = [None, None]
        parent, cur, side = None, self.root, 0
        while cur is not None:
            parent, side = cur, 0 if key < keys[cur] else 1
            cur = self.kids[cur][side]
        if parent is None:
            self.root = nid
            self.up[nid] = None
        else:
            self.kids[parent][side] = nid
            self.up[nid] = parent

    def substitute(self, old: int, new: int) -> None:
        """Put node *new* in *old*'s place, with its links."""
        self.kids[new] = self.kids.pop(old)
        for child in self.kids[new]:
            if child is not None:
                self.up[child] = new
        self._replace_child(self.up.pop(old, None), old, new)

    def unlink(self, z: int) -> None:
        """Take z out as rb_erase() does, before any rebalancing."""
        left, right = self.kids[z]
        parent = self.up.get(z)
        if left is None or right is None:
            self._replace_child(parent, z, right if left is None else left)
        else:
            y = right
            while self.kids[y][0] is not None:
                y = self.kids[y][0]
            if y != right:
                self._replace_child(self.up[y], y, self.kids[y][1])
                self.kids[y][1] = right
                self.up[right] = y
            self._replace_child(parent, z, y)
            self.kids[y][0] = left
            self.up[left] = y
        del self.kids[z]
        self.up.pop(z, None)

    def aim(self, target: dict, root) -> None:
        """Track :attr:`bad`, the nodes (None: the root) unlike *target*."""
        self.target, self.target_root = target, root
        self.bad = {nid for nid, kids in self.kids.items() if kids != target.get(nid)}
        self._mark(None)

    def _mark(self, nid) -> None:
        if nid is None:
            same = self.root == self.target_root
        else:
            same = self.kids[nid] == self.target.get(nid)
        (self.bad.discard if same else self.bad.add)(nid)


def _structural(old: Tree, new: Tree) -> _Shape | None:
    """The old shape after the new tree's one insert or erase, unbalanced."""
    added = [nid for nid in new.nodes if nid not in old.nodes]
    removed = [nid for nid in old.nodes if nid not in new.nodes]
    shape = _Shape(old)
    if len(added) == len(removed) == 1 and \
            old.nodes[removed[0]].key == new.nodes[added[0]].key:
        shape.substitute(removed[0], added[0])      # a replacing insert
        return shape
    if len(added) + len(removed) != 1:
        return None
    if added:
        keys = {nid: n.key for nid, n in old.nodes.items()}
        shape.link_leaf(added[0], new.nodes[added[0]].key, keys)
    else:
        shape.unlink(removed[0])
    return shape


def _search(shape: _Shape, target: dict, root, depth: int, path: list) -> bool:
    """Depth-first: rotations at nodes that still differ, undone on return."""
    if not shape.bad:
        return True
    if depth == 0:
        return False
    for x in sorted(n for n in shape.bad if n is not None):
        for side, back in (("left", "right"), ("right", "left")):
            y = shape.rotate(x, side)
            if y is None:
                continue
            path.append((side, x))
            if _search(shape, target, root, depth - 1, path):
                return True
            path.pop()
            shape.rotate(y, back)
    return False


def rotations_between(old: Tree, new: Tree) -> list | None:
    """``[("left"|"right", id), ...]`` in the order they were made, or None."""
    if any(not isinstance(r, int) for n in new.nodes.values() for r in (n.left, n.right)
           if r is not None):
        return None
    shape = _structural(old, new)
    if shape is None:
        return None
    target = {nid: [n.left, n.right] for nid, n in new.nodes.items()}
    if set(shape.kids) != set(target):
        return None
    shape.aim(target, new.root)
    for depth in range(MAX_ROTATIONS + 1):
        path: list = []
        if _search(shape, target, new.root, depth, path):
            return path
    return None
