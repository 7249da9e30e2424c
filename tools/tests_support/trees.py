# SPDX-License-Identifier: GPL-2.0
"""Test fixtures: a pure-Python red-black tree and a fake debugfs.

Nothing here is used against the real module.  :class:`RBTree` is a small
textbook red-black tree (parent pointers, subtree sizes, caches) that makes
valid :class:`~rbtilib.dump.Tree` objects for synthetic tests;
:func:`corrupt_tree` applies the contract's ``corrupt`` commands to a
parsed tree; :class:`FakeDebugfs` implements the driver's methods in memory
on top of both, so the fuzzer can be tested without a kernel.
"""

import errno
import itertools
from typing import Callable, Iterator

from rbtilib import record
from rbtilib.driver import CheckResult, DebugfsError, TreeInfo, parse_check
from rbtilib.dump import Node, Tree, format_dump, inorder, parse_flags
from tests_support import refcheck

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


class _N:
    __slots__ = ("id", "key", "red", "parent", "left", "right", "size")

    def __init__(self, nid: int, key: int) -> None:
        self.id, self.key, self.red = nid, key, True
        self.parent = self.left = self.right = None
        self.size = 1


def _size(node: "_N | None") -> int:
    return node.size if node else 0


def _red(node: "_N | None") -> bool:
    return node is not None and node.red


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

    def insert(self, key: int, nid: int) -> "_N | None":
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
        node = _N(nid, key)
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
        for node in self._preorder():
            nodes[node.id] = Node(
                node.id, node.key, "R" if node.red else "B",
                node.parent.id if node.parent else None,
                node.left.id if node.left else None,
                node.right.id if node.right else None,
                node.size if "augmented" in info.flags else None)
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
            aug="size" if "augmented" in cached else None,
            nodes=nodes)


def build_tree(keys: list[int], info: TreeInfo,
               erase: list[int] = (), allocated: bool = False) -> Tree:
    """A valid Tree: insert *keys*, then erase *erase*; ids from 1.

    With *allocated*, the dump has the contract's ``nodes N`` line.
    """
    rb = RBTree("dup" in info.flags)
    for nid, key in enumerate(keys, 1):
        rb.insert(key, nid)
    for key in erase:
        node = rb.find_first(key)
        if node:
            rb.erase(node)
    tree = rb.to_tree(info)
    if allocated:
        tree.allocated = len(tree.nodes)
    return tree


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
         "augmented" if what == "aug" else None)
    node = _first(tree, args[0])
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
        node = record.replace(node, key=args[1])
    elif what == "parent":
        wrong = next((n.id for n in tree.nodes.values()
                      if n.id not in (node.id, node.parent)), node.id)
        node = record.replace(node, parent=wrong)
    elif what == "aug":
        node = record.replace(node, aug=node.aug + 1)
    else:
        raise DebugfsError(errno.EINVAL, "corrupt", f"unknown {what!r}")
    nodes[node.id] = node
    return new


class FakeDebugfs:
    """An in-memory stand-in for :class:`~rbtilib.driver.Debugfs`.

    With *allocated* (the default) its dumps have the contract's ``nodes``
    line, like the module after issue 12; without it, like the old one.

    *fault*, if given, is called as ``fault(tree, op, key, line)`` (op
    ``I`` or ``N`` for a hinted insert or near) for
    every ops result line and returns the line to report, so tests can
    make the "module" wrong on purpose.
    """

    def __init__(self, infos: list[TreeInfo] = CONTRACT_TREES,
                 max_nodes: int = 1 << 20,
                 fault: Callable[[str, str, int, str], str] | None = None,
                 allocated: bool = True) -> None:
        self.allocated = allocated
        self.infos = {info.name: info for info in infos}
        self.max_nodes = max_nodes
        self.fault = fault
        self.params = {"allow_corrupt": "0", "max_nodes": str(max_nodes)}
        self._ids = itertools.count(1)
        self._trees = {name: RBTree("dup" in info.flags)
                       for name, info in self.infos.items()}
        self._corrupt: dict = {}
        self.counters = {name: dict.fromkeys(
            ("inserts", "erases", "finds", "nears"), 0)
            for name in self.infos}

    def available(self) -> bool:
        return True

    def trees(self) -> list[TreeInfo]:
        return list(self.infos.values())

    def _tree(self, name: str, writing: bool = True) -> RBTree:
        if name not in self._trees:
            raise DebugfsError(errno.ENOENT, name)
        if writing and name in self._corrupt:
            raise DebugfsError(errno.EUCLEAN, name, "corrupt mode")
        return self._trees[name]

    def ops(self, name: str, batch: str) -> str:
        rb = self._tree(name)
        info = self.infos[name]
        parsed = []
        for line in batch.split("\n"):
            words = line.split()
            if not words:
                continue
            # I KEY HINTKEY, N KEY HINTKEY: hinted, Santos trees only
            # (the hint changes no result, so it is only parsed here).
            hinted = len(words) == 3 and words[0] in ("I", "N") and \
                info.api == "santos"
            if not hinted and (len(words) != 2 or
                               words[0] not in ("i", "f", "e", "n")):
                raise DebugfsError(errno.EINVAL, name, line)
            if hinted:
                int(words[2])
            parsed.append((words[0], int(words[1])))
        if not parsed:
            raise DebugfsError(errno.EINVAL, name, "empty batch")
        inserts = sum(op in ("i", "I") for op, _ in parsed)
        if rb.count + inserts > self.max_nodes:
            raise DebugfsError(errno.ENOSPC, name)
        out = []
        for op, key in parsed:
            line = self._op(rb, info, op.lower(), key)
            if self.fault:
                line = self.fault(name, op, key, line)
            out.append(line + "\n")
        return "".join(out)

    def _op(self, rb: RBTree, info: TreeInfo, op: str, key: int) -> str:
        line = self._do(rb, info, op, key)
        counters = self.counters[info.name]
        if op == "f":
            counters["finds"] += 1
        elif op == "n":
            counters["nears"] += 1
        elif line.startswith(("ok ", "replaced ")):
            counters["inserts"] += 1
        elif line.startswith("erased "):
            counters["erases"] += 1
        return line

    def _do(self, rb: RBTree, info: TreeInfo, op: str, key: int) -> str:
        if op == "i":
            nid = next(self._ids)
            old = rb.insert(key, nid)
            if old is None:
                return f"ok {nid}"
            if "replace" in info.flags:
                rb.replace(old, nid)
                return f"replaced {nid} {old.id}"
            return "EEXIST"
        node = rb.greater(key) if op == "n" else rb.find_first(key)
        if node is None:
            return "ENOENT"
        if op == "e":
            rb.erase(node)
            return f"erased {node.id}"
        return f"{'near' if op == 'n' else 'found'} {node.id} {node.key}"

    def dump(self, name: str) -> Tree:
        if name in self._corrupt:
            return self._corrupt[name]
        tree = self._tree(name, False).to_tree(self.infos[name])
        if self.allocated:
            tree.allocated = len(tree.nodes)
        return tree

    def dump_text(self, name: str) -> str:
        return format_dump(self.dump(name))

    def check(self, name: str) -> CheckResult:
        if name not in self._corrupt and \
                type(self).dump is FakeDebugfs.dump:
            # The fake's own trees are valid by construction (RBTree is
            # checked by test_checker); skip the O(n) walk the fuzzer
            # would otherwise pay after every batch.
            return CheckResult(True)
        # The module's check, as a second implementation would give it:
        # never the Python checker that the tests hold it against.
        return parse_check(refcheck.check(self.dump(name)))

    def stats(self, name: str) -> dict[str, int]:
        tree = self.dump(name)
        return {"count": tree.count, "height": tree.height,
                **self.counters[name], "max_nodes": self.max_nodes,
                "corrupt": int(name in self._corrupt)}

    def clear(self, name: str) -> None:
        info = self.infos[name]
        self._trees[name] = RBTree("dup" in info.flags)
        self._corrupt.pop(name, None)

    def corrupt(self, name: str, command: str) -> None:
        if self.params["allow_corrupt"] != "1":
            raise DebugfsError(errno.EPERM, name)
        tree = self.dump(name)
        self._tree(name)
        self._corrupt[name] = corrupt_tree(tree, command)

    def insert(self, name: str, keys: list[int]) -> None:
        rb, info = self._tree(name), self.infos[name]
        if "unique" in info.flags and "replace" not in info.flags and (
                len(set(keys)) != len(keys)
                or any(rb.find_first(k) for k in keys)):
            raise DebugfsError(errno.EEXIST, name)
        self.ops(name, "\n".join(f"i {k}" for k in keys))

    def erase(self, name: str, key: int) -> None:
        if self.ops(name, f"e {key}").startswith("ENOENT"):
            raise DebugfsError(errno.ENOENT, name)

    def query(self, name: str, what: str, key: int) -> tuple[int, int]:
        line = self.ops(name, f"{what[0]} {key}").split()
        if line[0] == "ENOENT":
            raise DebugfsError(errno.ENOENT, name)
        return int(line[1]), int(line[2])

    def get_param(self, name: str) -> str:
        return self.params[name]

    def set_param(self, name: str, value: str) -> None:
        self.params[name] = value


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
    loader.exec_module(module)
    return module

