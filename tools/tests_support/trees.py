# SPDX-License-Identifier: GPL-2.0
"""Test fixtures: a pure-Python red-black tree and the trees' lists.

Nothing here is used against the real module.  :class:`RBTree` is a small
textbook red-black tree (parent pointers, subtree sizes, caches) that makes
valid :class:`~rbtilib.dump.Tree` objects for synthetic tests;
:func:`corrupt_tree` applies the contract's ``corrupt`` commands to a
parsed tree.  :class:`tests_support.fake.FakeDebugfs` implements the
driver's methods in memory on top of both, so the fuzzer can be tested
without a kernel.
"""

import errno
import sys
from typing import Iterator

from rbtilib import record
from rbtilib.driver import DebugfsError, TreeInfo
from rbtilib.dump import (S64_MAX, Copy, Node, Tree, aug_rule, inorder,
                          parse_flags)
from rbtilib.dump import value_name

CONTRACT_TREES = [
    TreeInfo("overstreet", "overstreet", parse_flags("unique,outofline")),
    TreeInfo("overstreet_dup", "overstreet", parse_flags("dup,outofline")),
    TreeInfo("santos", "santos",
             parse_flags("unique,leftmost,rightmost,count")),
    TreeInfo("santos_dup", "santos", parse_flags("dup,leftmost,rightmost,count")),
    TreeInfo("santos_aug", "santos", parse_flags("unique,count,augmented")),
    TreeInfo("santos_replace", "santos", parse_flags("unique,replace,count")),
    TreeInfo("mainline", "mainline", parse_flags("unique")),
]
"""The trees of the contract's example ``trees`` file."""

FAMILY_TREES = [
    TreeInfo("mainline_cached", "mainline", parse_flags("dup,leftmost")),
    TreeInfo("mainline_aug", "mainline",
             parse_flags("unique,leftmost,augmented,value")),
    TreeInfo("interval", "interval",
             parse_flags("dup,augmented,value,interval")),
    TreeInfo("latch", "latch", parse_flags("unique,latch")),
    TreeInfo("mainline_rcu", "mainline", parse_flags("unique,lockless")),
]
"""The rbtree family's trees, as kmod/DEBUGFS.md lists them
(mainline_rcu on 6.12 only)."""


class _N:
    __slots__ = ("id", "key", "red", "parent", "left", "right", "size",
                 "value")

    def __init__(self, nid: int, key: int, value: int | None = None) -> None:
        self.id, self.key, self.red = nid, key, True
        self.value = value
        self.parent = self.left = self.right = None
        self.size = 1


def _size(node: "_N | None") -> int:
    return node.size if node else 0


def _red(node: "_N | None") -> bool:
    return node is not None and node.red


def _successor(node: _N) -> "_N | None":
    """The next node in order."""
    if node.right:
        node = node.right
        while node.left:
            node = node.left
        return node
    while node.parent and node.parent.right is node:
        node = node.parent
    return node.parent


class RBTree:
    """A red-black tree of integer keys with node ids (CLRS algorithms).

    Equal keys (``dup``) go after the existing ones; every node keeps its
    subtree size, so the tree can play an ``augmented`` one.
    """

    def __init__(self, dup: bool = False) -> None:
        self.dup = dup
        self.root: _N | None = None
        self.count = 0

    def _rotate(self, x: _N, left: bool) -> None:
        """Rotate *x* down to the *left* (or right); sizes kept."""
        y = x.right if left else x.left
        inner = y.left if left else y.right
        if left:
            x.right = inner
        else:
            x.left = inner
        if inner:
            inner.parent = x
        self._transplant(x, y)
        if left:
            y.left = x
        else:
            y.right = x
        x.parent = y
        y.size = x.size
        x.size = 1 + _size(x.left) + _size(x.right)

    def _transplant(self, old: _N, new: "_N | None") -> None:
        """Put *new* where *old* hangs (children untouched)."""
        up = old.parent
        if up is None:
            self.root = new
        elif up.left is old:
            up.left = new
        else:
            up.right = new
        if new:
            new.parent = up

    def insert(self, key: int, nid: int,
               value: int | None = None) -> "_N | None":
        """Insert; return the existing equal node (unique tree) or None."""
        up, cur, left = None, self.root, False
        while cur:
            up = cur
            if key < cur.key:
                cur, left = cur.left, True
            elif key > cur.key or self.dup:
                cur, left = cur.right, False
            else:
                return cur
        node = _N(nid, key, value)
        node.parent = up
        if up is None:
            self.root = node
        elif left:
            up.left = node
        else:
            up.right = node
        walk = up
        while walk:
            walk.size += 1
            walk = walk.parent
        self.count += 1
        self._insert_fixup(node)
        return None

    def _insert_fixup(self, z: _N) -> None:
        while _red(z.parent):
            p = z.parent
            g = p.parent
            left = g.left is p
            uncle = g.right if left else g.left
            if _red(uncle):
                p.red = uncle.red = False
                g.red = True
                z = g
                continue
            if z is (p.right if left else p.left):
                z = p
                self._rotate(z, left)
                p = z.parent
            p.red, g.red = False, True
            self._rotate(g, not left)
        self.root.red = False

    def replace(self, old: _N, nid: int) -> _N:
        """Put a new node with *nid* in *old*'s place; return it."""
        new = _N(nid, old.key)
        new.red, new.size = old.red, old.size
        new.left, new.right = old.left, old.right
        for child in (new.left, new.right):
            if child:
                child.parent = new
        self._transplant(old, new)
        return new

    def erase(self, z: _N) -> None:
        """Remove node *z*."""
        y_red = z.red
        if z.left is None or z.right is None:
            x = z.right if z.left is None else z.left
            xp = z.parent
            self._transplant(z, x)
        else:
            y = z.right
            while y.left:
                y = y.left
            y_red, x = y.red, y.right
            if y.parent is z:
                xp = y
            else:
                xp = y.parent
                self._transplant(y, y.right)
                y.right = z.right
                y.right.parent = y
            self._transplant(z, y)
            y.left = z.left
            y.left.parent = y
            y.red = z.red
        walk = xp
        while walk:
            walk.size = 1 + _size(walk.left) + _size(walk.right)
            walk = walk.parent
        self.count -= 1
        if not y_red:
            self._erase_fixup(x, xp)

    def _erase_fixup(self, x: "_N | None", xp: "_N | None") -> None:
        while x is not self.root and not _red(x):
            left = x is xp.left
            w = xp.right if left else xp.left
            if w.red:
                w.red, xp.red = False, True
                self._rotate(xp, left)
                w = xp.right if left else xp.left
            near, far = (w.left, w.right) if left else (w.right, w.left)
            if not _red(near) and not _red(far):
                w.red = True
                x, xp = xp, xp.parent
                continue
            if not _red(far):
                near.red, w.red = False, True
                self._rotate(w, not left)
                w = xp.right if left else xp.left
                far = w.right if left else w.left
            w.red, xp.red = xp.red, False
            far.red = False
            self._rotate(xp, left)
            x = self.root
        if x:
            x.red = False

    def find_first(self, key: int) -> "_N | None":
        """The first node in order with *key*."""
        cur, found = self.root, None
        while cur:
            if key < cur.key:
                cur = cur.left
            elif key > cur.key:
                cur = cur.right
            else:
                found, cur = cur, cur.left
        return found

    def greater(self, key: int) -> "_N | None":
        """The first node in order with a key greater than *key*."""
        cur, found = self.root, None
        while cur:
            if cur.key > key:
                found, cur = cur, cur.left
            else:
                cur = cur.right
        return found

    def inorder(self) -> Iterator[_N]:
        """The nodes in order."""
        stack, cur = [], self.root
        while stack or cur:
            while cur:
                stack.append(cur)
                cur = cur.left
            cur = stack.pop()
            yield cur
            cur = cur.right

    def find_interval(self, start: int, last: int) -> "_N | None":
        """The first node in order with KEY *start* and VALUE *last*."""
        node = self.find_first(start)
        while node is not None and node.key == start:
            if node.value == last:
                return node
            node = _successor(node)
        return None

    def overlap(self, start: int, last: int) -> list:
        """The nodes whose [KEY, VALUE] meets [*start*, *last*], in order
        (the interval tree's iter_first/iter_next order)."""
        out = []
        for node in self.inorder():
            if node.key > last:
                break
            if node.value >= start:
                out.append(node)
        return out

    def _preorder(self) -> Iterator[_N]:
        stack = [self.root]
        while stack:
            node = stack.pop()
            if node:
                yield node
                stack.append(node.right)
                stack.append(node.left)

    def to_tree(self, info: TreeInfo) -> Tree:
        """The dump the module would print for this tree."""
        nodes = {}
        height = {None: 0}
        rule = aug_rule(info.flags)
        valued = info.valued
        tops = self._tops() if rule in ("max", "interval-last") else {}
        for node in self._preorder():
            nodes[node.id] = Node(
                node.id, node.key, "R" if node.red else "B",
                node.parent.id if node.parent else None,
                node.left.id if node.left else None,
                node.right.id if node.right else None,
                tops.get(node.id, node.size) if rule else None,
                node.value if valued else None)
        for node in reversed(list(self._preorder())):
            height[node.id] = 1 + max(
                height[node.left.id if node.left else None],
                height[node.right.id if node.right else None])
        first = last = self.root
        while first and first.left:
            first = first.left
        while last and last.right:
            last = last.right
        cached = info.flags
        return Tree(
            name=info.name, api=info.api, flags=info.flags,
            count=self.count,
            root=self.root.id if self.root else None,
            leftmost=first.id if first and "leftmost" in cached else None,
            rightmost=last.id if last and "rightmost" in cached else None,
            height=height[self.root.id] if self.root else 0,
            aug=rule, nodes=nodes, value=value_name(info.flags),
            copy1=Copy(self.root.id if self.root else None,
                       height[self.root.id] if self.root else 0,
                       {nid: record.replace(n, aug=None, value=None)
                        for nid, n in nodes.items()})
            if info.latch else None)

    def _tops(self) -> dict:
        """id -> the largest VALUE in its subtree (the max rules)."""
        tops: dict = {}
        for node in reversed(list(self._preorder())):
            tops[node.id] = max([node.value] + [
                tops[kid.id] for kid in (node.left, node.right) if kid])
        return tops


def build_tree(keys: list[int], info: TreeInfo,
               erase: list[int] = (), allocated: bool = False) -> Tree:
    """A valid Tree: insert *keys*, then erase *erase*; ids from 1.

    With *allocated*, the dump has the contract's ``nodes N`` line.
    """
    rb = RBTree(info.dup)
    for nid, key in enumerate(keys, 1):
        rb.insert(key, nid, value_for(info, key, nid))
    for key in erase:
        node = rb.find_first(key)
        if node:
            rb.erase(node)
    tree = rb.to_tree(info)
    if allocated:
        tree.allocated = len(tree.nodes)
    return tree


def value_for(info: TreeInfo, key: int, nid: int) -> int | None:
    """A VALUE for a synthetic node of a ``value`` tree (LAST >= KEY on
    an interval tree), None elsewhere."""
    if not info.valued:
        return None
    spread = (nid * 7919 + key * 31) % 50
    return key + spread if info.interval else spread - 25


def redump(tree: Tree) -> Tree:
    """The dump the contract's module prints for *tree*'s nodes.

    All nodes (``node`` and ``lost`` lines) are the allocated ones, in id
    order (allocation order); the walk from the root marks every node it
    reaches, writes a link to a reached node without following it, and
    the nodes it does not reach become ``lost`` lines.  ``height`` is
    recomputed; the cached fields are kept.
    """
    pool = {**tree.nodes, **tree.lost}
    nodes: dict = {}
    height = 0
    stack = [(tree.root, 1)]
    while stack:
        ref, depth = stack.pop()
        if ref is None or ref not in pool or ref in nodes:
            continue
        node = nodes[ref] = pool[ref]
        height = max(height, depth)
        stack.append((node.right, depth + 1))
        stack.append((node.left, depth + 1))
    lost = {nid: pool[nid] for nid in sorted(pool) if nid not in nodes}
    return record.replace(tree, nodes=nodes, lost=lost,
                               allocated=len(pool), height=height)


SHAPE_COMMANDS = ("detach", "share", "cycle")
"""The contract's corrupt commands that damage child links."""


def _linker(tree: Tree, nid: int) -> Node | None:
    """The node whose child link points at *nid* (None for the root)."""
    return next((n for n in tree.nodes.values() if nid in (n.left, n.right)),
                None)


def _first(tree: Tree, key: int) -> Node:
    """The first node in order with *key* (ENOENT if none)."""
    for node in inorder(tree):
        if node.key == key:
            return node
    raise DebugfsError(errno.ENOENT, "corrupt", f"no key {key}")


def corrupt_tree(tree: Tree, command: str) -> Tree:
    """Apply a contract ``corrupt`` command to a copy of *tree*.

    Raises DebugfsError (ENOENT, EINVAL) like the module would.
    """
    words = command.split()
    if not words:
        raise DebugfsError(errno.EINVAL, "corrupt", "empty command")
    what, args = words[0], [int(w) for w in words[1:]]
    order = list(inorder(tree))
    nodes = dict(tree.nodes)
    new = record.replace(tree, nodes=nodes)

    def need(n: int, flag: str | None = None) -> None:
        if len(args) != n or (flag and flag not in tree.flags):
            raise DebugfsError(errno.EINVAL, "corrupt", command)

    if what in ("leftmost", "rightmost"):
        need(0, what)
        if len(order) < 2:
            raise DebugfsError(errno.EINVAL, "corrupt", "needs 2 nodes")
        if what == "leftmost":
            new.leftmost = order[1].id
        else:
            new.rightmost = order[-2].id
        return new
    if what == "count":
        need(0, "count")
        new.count += 1
        return new
    need(2 if what == "key" else 1,
         {"aug": "augmented", "value": "value", "latch": "latch"}.get(what))
    node = _first(tree, args[0])
    if what == "latch":
        new.copy1 = _without(tree, node.id)
        return new
    if what in SHAPE_COMMANDS:
        up = _linker(tree, node.id)
        if up is None and what != "cycle":
            raise DebugfsError(errno.EINVAL, "corrupt", f"{what} of the root")
        if what == "detach":
            side = "left" if up.left == node.id else "right"
            nodes[up.id] = record.replace(up, **{side: None})
        elif what == "share":
            nodes[up.id] = record.replace(up, left=node.id,
                                               right=node.id)
        else:
            nodes[node.id] = record.replace(
                node, left=node.id if up is None else up.id)
        new.allocated = len(tree.nodes) + len(tree.lost)
        return redump(new)
    if what == "color":
        node = record.replace(node,
                                   color="R" if node.color == "B" else "B")
    elif what == "black":
        if node.color == "B":
            raise DebugfsError(errno.EINVAL, "corrupt", "already black")
        node = record.replace(node, color="B")
    elif what == "key":
        if tree.interval and args[1] > node.value:
            raise DebugfsError(errno.EINVAL, "corrupt", "START > LAST")
        node = record.replace(node, key=args[1])
        if tree.copy1 is not None and node.id in tree.copy1.nodes:
            # One struct, two rb_nodes: copy 1 sees the new key too.
            nodes1 = dict(tree.copy1.nodes)
            nodes1[node.id] = record.replace(nodes1[node.id], key=args[1])
            new.copy1 = record.replace(tree.copy1, nodes=nodes1)
    elif what == "value":
        if tree.aug not in ("max", "interval-last") or \
                node.aug == S64_MAX:
            raise DebugfsError(errno.EINVAL, "corrupt", "aug at S64_MAX")
        node = record.replace(node, value=node.aug + 1)
    elif what == "parent":
        wrong = next((n.id for n in tree.nodes.values()
                      if n.id not in (node.id, node.parent)), node.id)
        node = record.replace(node, parent=wrong)
    elif what == "aug":
        if node.aug == S64_MAX:
            raise DebugfsError(errno.EINVAL, "corrupt", "aug at S64_MAX")
        node = record.replace(node, aug=node.aug + 1)
    else:
        raise DebugfsError(errno.EINVAL, "corrupt", f"unknown {what!r}")
    nodes[node.id] = node
    return new


def _without(tree: Tree, nid: int) -> Copy:
    """Copy 1 of latch *tree* with node *nid* erased (``corrupt latch``):
    a valid red-black tree of copy 1's other nodes, in copy 1's order."""
    copy = tree.copy1
    rb = RBTree()
    shadow = record.replace(tree, root=copy.root, nodes=copy.nodes)
    for pos, node in enumerate(inorder(shadow)):
        if node.id != nid:
            rb.insert(pos, node.id)
    got = rb.to_tree(TreeInfo(tree.name, tree.api, frozenset({"unique"})))
    return Copy(got.root, got.height,
                {i: record.replace(n, key=copy.nodes[i].key)
                 for i, n in got.nodes.items()})


# A small valid dump (a 3-node augmented tree) that tests of the parser
# and of viz share.
AUG_SAMPLE_DUMP = """\
tree santos_aug
api santos
flags unique,count,augmented
count 3
root 2
leftmost -
rightmost -
height 2
aug size
node 2 20 B - 1 3 3
node 1 10 R 2 - - 1
node 3 30 R 2 - - 1
end 3
"""


def load_script(path: str, name: str):
    """The Python script at *path* (no .py name: rbti, guest-tests,
    kmod/tests/mutants/run) loaded as a module called *name*."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader(name, path)
    spec = importlib.util.spec_from_loader(name, loader)
    module = importlib.util.module_from_spec(spec)
    # Registered first, as import does: a dataclass looks its module up.
    sys.modules[name] = module
    loader.exec_module(module)
    return module
