# SPDX-License-Identifier: GPL-2.0
"""The invariant checker: every rule of kmod/DEBUGFS.md "check classes".

:func:`violations` yields every violation of a parsed :class:`Tree` in the
order the module's ``check`` (``rbti_check()`` in kmod/inspector_walk.c)
meets them, so :func:`first_violation` names the same class and node as
the module.  That order is one depth-first walk through child links:

1. ``root-color`` (the root), then ``parent`` if the root's parent is not
   NIL;
2. entering each node (preorder): ``parent`` if its parent link is not
   the node that links to it (also: a node linked a second time, a cycle
   or a shared node, and a child missing from the dump, blamed on the
   node holding the link; such links count as NIL from then on);
   ``red-red`` if it and its parent are red (the child is blamed);
   ``black-height`` if it has a NIL child and the number of black nodes
   from the root to it differs from that of the first such path;
3. in order: ``order`` if its key is smaller than the previous node's, or
   equal on a non-``dup`` tree (the later node is blamed);
4. leaving it (postorder), on ``augmented`` trees: ``augment`` if its
   ``aug`` is not its subtree's size;
5. after the walk: ``height`` if the dump was truncated (``error depth``,
   the last dumped node), nodes not reachable (``parent``), ``count``
   (root), ``leftmost`` / ``rightmost`` when cached (blaming the node the
   cache should point at), ``height`` > 2*log2(n+1) and a header height
   that is not the real one (root).

Every check follows child links only, so a corrupted parent link never
derails it, and the walk ends even on a cyclic "tree".
"""

from dataclasses import dataclass
from typing import Iterator

from .dump import UNKNOWN_PARENT, Tree

CLASSES = ("order", "root-color", "red-red", "black-height", "parent",
           "count", "leftmost", "rightmost", "augment", "height")
"""The check classes, as the contract's table lists them."""


@dataclass(frozen=True)
class Violation:
    """One broken invariant: its class, the node blamed and why."""

    cls: str
    node: int | None
    message: str

    def __str__(self) -> str:
        node = "-" if self.node is None else self.node
        return f"fail {self.cls} node {node}: {self.message}"


def _ref(ref: int | None) -> str:
    if ref is None:
        return "NIL"
    return "no node of this tree" if ref == UNKNOWN_PARENT else f"node {ref}"


class _Walk:
    """State of the one depth-first walk (see the module docstring)."""

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.dup = "dup" in tree.flags
        self.augmented = "augmented" in tree.flags
        self.reached: dict = {}     # id -> id of the node linking to it
        self.first: int | None = None
        self.prev: int | None = None
        self.nil_blacks = 0
        self.count = 0
        self.height = 0

    def _child(self, nid: int, side: str) -> Iterator:
        """Yield a fault for a bad link; then the child id or None last."""
        node = self.tree.nodes[nid]
        child = node.left if side == "left" else node.right
        if child is None:
            return None
        if child not in self.tree.nodes:
            yield Violation("parent", nid,
                            f"{side} child {child} of node {nid} is not in "
                            "the dump")
            return None
        if child in self.reached:
            first = self.reached[child]
            yield Violation(
                "parent", child,
                f"node {child} is linked as {side} child of node {nid} but "
                f"was already reached from "
                f"{'the root' if first is None else f'node {first}'} "
                "(cycle or shared node)")
            return None
        return child

    def _enter(self, nid: int, up: int | None, blacks: int,
               has_nil: bool) -> Iterator[Violation]:
        node = self.tree.nodes[nid]
        if up is not None and node.parent != up:
            yield Violation("parent", nid,
                            f"parent link is {_ref(node.parent)}, not node "
                            f"{up}, which links to it")
        if up is not None and node.color == "R" and \
                self.tree.nodes[up].color == "R":
            yield Violation("red-red", nid,
                            f"red node {nid} has red parent {up}")
        if has_nil:
            if not self.nil_blacks:
                self.nil_blacks = blacks
            elif blacks != self.nil_blacks:
                yield Violation("black-height", nid,
                                f"{blacks} black nodes on the path to its "
                                f"NIL child, {self.nil_blacks} on the first "
                                "path")

    def _in_order(self, nid: int) -> Iterator[Violation]:
        nodes = self.tree.nodes
        key = nodes[nid].key
        if self.prev is not None:
            before = nodes[self.prev].key
            if key < before or (key == before and not self.dup):
                yield Violation("order", nid,
                                f"key {key} follows key {before} of node "
                                f"{self.prev}")
        if self.first is None:
            self.first = nid
        self.prev = nid

    def walk(self) -> Iterator[Violation]:
        """Yield the violations of the walk, steps 2 to 4."""
        root = self.tree.root
        # Frames: [id, linking id, blacks, depth, stage, size, left, right]
        self.reached[root] = None
        stack: list = [[root, None, 0, 1, 0, 1, None, None]]
        while stack:
            frame = stack[-1]
            nid, up, blacks, depth, stage = frame[:5]
            if stage == 0:
                frame[4] = 1
                self.count += 1
                self.height = max(self.height, depth)
                blacks += self.tree.nodes[nid].color == "B"
                frame[2] = blacks
                links = []
                for side in ("left", "right"):
                    gen = self._child(nid, side)
                    try:
                        while True:
                            yield next(gen)
                    except StopIteration as done:
                        links.append(done.value)
                frame[6], frame[7] = links
                for child in links:
                    if child is not None:
                        self.reached[child] = nid
                yield from self._enter(nid, up, blacks, None in links)
                if frame[6] is not None:
                    stack.append([frame[6], nid, blacks, depth + 1, 0, 1,
                                  None, None])
            elif stage == 1:
                frame[4] = 2
                yield from self._in_order(nid)
                if frame[7] is not None:
                    stack.append([frame[7], nid, blacks, depth + 1, 0, 1,
                                  None, None])
            else:
                stack.pop()
                node = self.tree.nodes[nid]
                if self.augmented and node.aug != frame[5]:
                    aug = "-" if node.aug is None else node.aug
                    yield Violation("augment", nid,
                                    f"aug is {aug}, its subtree has "
                                    f"{frame[5]} nodes")
                if stack:
                    stack[-1][5] += frame[5]


def violations(tree: Tree) -> Iterator[Violation]:
    """Yield every violation of *tree*, in the module's order."""
    nodes = tree.nodes
    root = tree.root
    walk = _Walk(tree)
    if root is not None and root not in nodes:
        yield Violation("parent", None, f"root {root} is not in the dump")
        root = None
    if root is not None:
        if nodes[root].color != "B":
            yield Violation("root-color", root, "the root is red")
        if nodes[root].parent is not None:
            yield Violation("parent", root,
                            f"the root's parent pointer is "
                            f"{_ref(nodes[root].parent)}, not NIL")
        yield from walk.walk()
    if tree.error:
        yield Violation("height", next(reversed(nodes), None),
                        f"dump stopped with 'error {tree.error}' (a walk "
                        "deeper than 128 levels)")
    for nid in nodes:
        if nid not in walk.reached:
            yield Violation("parent", nid,
                            f"node {nid} is not reachable from the root")
    if tree.count != walk.count:
        yield Violation("count", root,
                        f"count is {tree.count}, {walk.count} nodes "
                        "reachable")
    for cls, cached, real in (("leftmost", tree.leftmost, walk.first),
                              ("rightmost", tree.rightmost, walk.prev)):
        if cls in tree.flags and cached != real:
            yield Violation(cls, real,
                            f"cached {cls} is "
                            f"{'-' if cached is None else f'node {cached}'}"
                            f", not the {'first' if cls == 'leftmost' else 'last'}"
                            " node in order")
    if augmented_name_wrong(tree):
        yield Violation("augment", None,
                        f"augmented value is {tree.aug or '-'}, expected "
                        "size")
    n = walk.count
    # height <= 2 * log2(n + 1), in integers.
    if (1 << walk.height) > (n + 1) ** 2:
        yield Violation("height", root,
                        f"height {walk.height} exceeds 2*log2({n}+1)")
    if tree.height != walk.height:
        yield Violation("height", root,
                        f"header height is {tree.height} but the longest "
                        f"root-to-leaf path has {walk.height} nodes")


def augmented_name_wrong(tree: Tree) -> bool:
    """True if an augmented tree's dump does not name its value ``size``."""
    return "augmented" in tree.flags and tree.aug != "size"


def check(tree: Tree) -> list[Violation]:
    """Return every violation of *tree* (empty: the tree is valid)."""
    return list(violations(tree))


def first_violation(tree: Tree) -> Violation | None:
    """Return the violation the module's ``check`` file should report."""
    return next(violations(tree), None)
