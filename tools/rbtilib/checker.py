# SPDX-License-Identifier: GPL-2.0
"""The invariant checker: every rule of kmod/DEBUGFS.md "check classes".

:func:`violations` yields every violation of a parsed :class:`Tree` in the
order the module's ``check`` (``rbti_check()`` in kmod/inspector_walk.c)
meets them, so :func:`first_violation` names the same class and node as
the module.  The order, which kmod/DEBUGFS.md "check classes" gives
too:

0. ``shape``: the one shape walk (:mod:`rbtilib.shape`), preorder through
   child links, left before right.  Following the link from node X to
   node C, ``cycle`` (blaming X) if C is X or an ancestor of X on the
   current path, ``shared`` (blaming X) if C was already reached
   elsewhere; the link then counts as NIL everywhere below.  (A link to
   an id that is not a ``node`` line, which only a hand-made dump has, is
   ``parent`` blaming X and also counts as NIL.)
   A dump cut short by ``error depth`` is ``height`` (its last node).
1. ``unreachable``, blaming the first ``lost`` node, if the number of
   allocated nodes (the ``nodes N`` header) is not the number reached; for
   a dump without ``nodes``, a ``node`` line not reached is blamed.
2. The walk of a valid shape, through the links left by step 0:

   a. the root: ``root-color``, then ``parent`` if its parent is not NIL;
   b. entering each node (preorder): ``parent`` if its parent link is not
      the node that links to it; ``red-red`` if it and its parent are red
      (the child is blamed); ``black-height`` if it has a NIL child and
      the number of black nodes from the root to it differs from that of
      the first such path (even when that first path has 0 blacks);
   c. in order: ``order`` if its key is smaller than the previous node's,
      or equal on a non-``dup`` tree; on ``dup`` trees ``dup-order`` if
      its key equals the previous node's but its id is smaller (ids come
      from a counter and equal keys go after their equals, so ids among
      equal keys increase); the later node is blamed;
   d. leaving it (postorder), on trees with an augment rule: ``augment``
      if its ``aug`` is not what the rule makes of its subtree: ``size``,
      its number of nodes; ``max`` (a module's ``max`` and
      ``interval-last``), the largest VALUE in it; ``min``, the least;
      ``sum``, the sum.  A module's tree has the rule its flags imply; a
      tree read from kernel memory carries its own (``aug NAME RULE``);
      an aug whose rule no one wrote is not checked (:func:`notes`);

3. after the walk: ``count`` (root), ``leftmost`` / ``rightmost`` when
   cached (blaming the node the cache should point at), ``augment`` for a
   wrong ``aug`` header, the height bound height <= 2*floor(log2(n+1))
   (root), and a header height that is not the real one (root).
4. latch trees, after every class of copy 0: copy 1 (the
   ``copy 1`` section) through steps 0 and 2 and the height checks of
   step 3 (not ``unreachable``, ``count``, the caches or ``augment``),
   each reported as ``copy 1: ...``; then ``latch`` if copy 1's in-order
   sequence of ids is not copy 0's, blaming the first node where they
   differ (copy 0's, or copy 1's if copy 0's sequence ended first).

Every check follows child links only, so a corrupted parent link never
derails it, and the walk ends even on a cyclic "tree".
"""

import itertools
from collections.abc import Iterator

from .dump import (UNKNOWN, Tree, aug_rule, number_text, parse_rule,
                   tree_rule)
from .record import record, replace
from .shape import MISSING, Shape

CLASSES = ("cycle", "shared", "unreachable", "order", "dup-order",
           "root-color", "red-red", "black-height", "parent", "count",
           "leftmost", "rightmost", "augment", "height", "latch")
"""The check classes of the contract's table."""

SHOWN = 10
"""Violations printed per tree unless asked for more: ``rbti check``
(``--max``), ``viz/render --violation`` (``--max-violations``) and the
blamed paths ``rbti show`` keeps from folding; each says how many more
there are."""

MAX_DEPTH = 128
"""The module's walks stop below this many levels (``error depth``)."""


@record(frozen=True)
class Violation:
    """One broken invariant: its class, the node blamed and why."""

    cls: str
    node: int | None
    message: str
    key: str | None = None
    """The blamed node's key as the tree prints it (hex where its dump
    says), set by :func:`violations`; None if the node is in no line."""

    def __str__(self) -> str:
        return f"fail {self.cls} {node_words(self.node, self.key)}: " \
            f"{self.message}"


def node_words(nid, key: str | None = None) -> str:
    """The one way rbti names a node in what it prints: ``node #ID (key
    K)`` (an id has a ``#``, as on ``rbti show``'s and viz/render's
    labels; a key never has), ``node #ID`` if its key is unknown, ``node
    -`` for none."""
    if nid is None:
        return "node -"
    return f"node #{nid}" + ("" if key is None else f" (key {key})")


def key_text(tree: Tree, nid) -> str | None:
    """The key of node *nid* of *tree* as printed, or None."""
    node = tree.nodes.get(nid) if isinstance(nid, int) else None
    if node is None and isinstance(nid, int):
        node = tree.lost.get(nid) if tree.lost else None
    return None if node is None else number_text(tree, "key", node.key)


def _ref(ref, tree: Tree | None = None) -> str:
    if ref is None:
        return "NIL"
    if ref is UNKNOWN:
        return "no node of this tree"
    return node_words(ref, key_text(tree, ref) if tree else None)


class _Walk:
    """State of the step-2 walk (see the module docstring)."""

    def __init__(self, tree: Tree, links: dict) -> None:
        self.tree = tree
        self.links = links
        self.dup = tree.dup
        rule = tree_rule(tree)
        self.op = parse_rule(rule)[0] if rule else None
        """The augment rule's operation: size, max, min, sum or None."""
        self.module = tree.augmented
        """A module's tree: its messages are the module's."""
        self.first: int | None = None
        self.prev: int | None = None
        self.count = 0
        self.height = 0

    def walk(self) -> Iterator[Violation]:
        """Yield the violations of steps 2b to 2d.

        The hot loop of a full check, so the per-node tests are inline
        and the state is in locals until the walk ends.
        """
        nodes = self.tree.nodes
        links = self.links
        dup = self.dup
        tree = self.tree

        def name(nid: int) -> str:
            return node_words(nid, key_text(tree, nid))
        augmented = self.op == "size"
        by_value = self.op if self.op != "size" else None
        aug_name = self.tree.aug
        first = prev = nil_blacks = None
        prev_key = 0
        count = height = 0
        # Frames: [id, linking id, blacks, depth, stage, size, max VALUE]
        stack: list = [[self.tree.root, None, 0, 1, 0, 1, None]]
        while stack:
            frame = stack[-1]
            nid = frame[0]
            stage = frame[4]
            if stage == 0:
                # b. entering it (preorder)
                frame[4] = 1
                up, depth = frame[1], frame[3]
                node = nodes[nid]
                count += 1
                if depth > height:
                    height = depth
                blacks = frame[2] + (node.color == "B")
                frame[2] = blacks
                if up is not None:
                    if node.parent != up:
                        yield Violation("parent", nid,
                                        f"parent link is "
                                        f"{_ref(node.parent, tree)}, not "
                                        f"{name(up)}, which links to it")
                    if node.color == "R" and nodes[up].color == "R":
                        yield Violation("red-red", nid,
                                        f"it and its parent {name(up)} are"
                                        " both red")
                left, right = links[nid]
                if left is None or right is None:
                    if nil_blacks is None:
                        nil_blacks = blacks
                    elif blacks != nil_blacks:
                        yield Violation("black-height", nid,
                                        f"{blacks} black nodes on the path to"
                                        f" its NIL child, {nil_blacks} on the "
                                        "first path")
                if left is not None:
                    stack.append([left, nid, blacks, depth + 1, 0, 1,
                                  None])
            elif stage == 1:
                # c. in order
                frame[4] = 2
                key = nodes[nid].key
                if prev is None:
                    first = nid
                elif key <= prev_key:
                    if key < prev_key or not dup:
                        yield Violation("order", nid,
                                        f"key {number_text(tree, 'key', key)}"
                                        " follows key "
                                        f"{number_text(tree, 'key', prev_key)}"
                                        f" of {name(prev)}")
                    elif nid < prev:
                        yield Violation("dup-order", nid,
                                        "equal key "
                                        f"{number_text(tree, 'key', key)} "
                                        "follows "
                                        f"{name(prev)}, which has the larger"
                                        " id (equal "
                                        "keys must be in insertion order)")
                prev, prev_key = nid, key
                right = links[nid][1]
                if right is not None:
                    stack.append([right, nid, frame[2], frame[3] + 1, 0, 1,
                                  None])
            else:
                # d. leaving it (postorder)
                stack.pop()
                size = frame[5]
                if augmented and nodes[nid].aug != size:
                    aug = nodes[nid].aug
                    yield Violation("augment", nid, (
                        f"aug is {'-' if aug is None else aug}, its "
                        f"subtree has {size} nodes" if self.module else
                        f"{aug_name} is {aug}, size over its subtree is "
                        f"{size}"))
                if by_value:
                    node = nodes[nid]
                    top = _combine(by_value, node.value, frame[6])
                    if node.aug != top:
                        yield Violation("augment", nid, (
                            f"aug is {node.aug}, the largest "
                            f"{self.tree.value} in its subtree is {top}"
                            if self.module else
                            f"{aug_name} is "
                            f"{number_text(tree, 'aug', node.aug)}, "
                            f"{by_value} over its subtree is "
                            f"{number_text(tree, 'aug', top)} (rule "
                            f"{by_value}:{self.tree.value})"))
                    if stack:
                        stack[-1][6] = _combine(by_value, top, stack[-1][6])
                if stack:
                    stack[-1][5] += size
        self.first, self.prev = first, prev
        self.count, self.height = count, height


def _combine(op: str, value: int, acc: int | None) -> int:
    """*value* folded into *acc* (None: nothing yet) by the rule's *op*."""
    if acc is None:
        return value
    if op == "max":
        return value if value > acc else acc
    if op == "min":
        return value if value < acc else acc
    return value + acc


def _unreachable(tree: Tree, reached: dict) -> Violation | None:
    """Step 1: allocated nodes the walk did not reach."""
    stray = next((nid for nid in tree.nodes if nid not in reached), None)
    if tree.allocated is None:
        if stray is None:
            return None
        return Violation("unreachable", stray,
                         f"{node_words(stray, key_text(tree, stray))} is "
                         "not reachable from the root")
    if tree.error is not None or tree.allocated == len(reached):
        return None
    blamed = next(iter(tree.lost), stray)
    return Violation("unreachable", blamed,
                     f"{tree.allocated} nodes allocated, {len(reached)} "
                     f"reachable from the root")


def violations(tree: Tree) -> Iterator[Violation]:
    """Yield every violation of *tree*, in the module's order, each with
    the blamed node's key (:func:`node_words`)."""
    found = _violations(tree, False)
    if tree.copy1 is not None:
        found = itertools.chain(found, _latch(tree))
    for v in found:
        yield Violation(v.cls, v.node, v.message, key_text(tree, v.node))


def _latch(tree: Tree) -> Iterator[Violation]:
    """Step 4: copy 1 of a latch tree, then the two copies compared."""
    copy = tree.copy1
    second = replace(tree, root=copy.root, height=copy.height,
                     nodes=copy.nodes, error=copy.error, allocated=None,
                     lost={}, leftmost=None, rightmost=None, copy1=None,
                     flags=tree.flags - {"augmented", "leftmost",
                                         "rightmost", "count"})
    for found in _violations(second, True):
        yield Violation(found.cls, found.node, f"copy 1: {found.message}")
    ids = [_inorder(Shape(t)) for t in (tree, second)]
    for pos in range(max(map(len, ids))):
        ours = [seq[pos] if pos < len(seq) else None for seq in ids]
        if ours[0] != ours[1]:
            blamed = ours[0] if ours[0] is not None else ours[1]
            yield Violation("latch", blamed,
                            f"position {pos + 1} in order is "
                            f"{_ref(ours[0], tree)} in copy 0, "
                            f"{_ref(ours[1], tree)} in copy 1")
            return


def _inorder(shape: Shape) -> list:
    """The ids of *shape*'s tree edges in order."""
    out: list = []
    stack: list = []
    ref = shape.tree.root if shape.order else None
    while stack or ref is not None:
        while ref is not None:
            stack.append(ref)
            ref = shape.links[ref][0]
        ref = stack.pop()
        out.append(ref)
        ref = shape.links[ref][1]
    return out


def _violations(tree: Tree, copy: bool) -> Iterator[Violation]:
    """Steps 0 to 3; *copy*: of a latch tree's copy 1 (no unreachable,
    count, cache or augment checks)."""
    nodes = tree.nodes
    root = tree.root
    if root is not None and root not in nodes:
        yield Violation("parent", None, f"root {_ref(root, tree)} is not in "
                        "the dump")
        root = None
    shape = Shape(tree)
    def name(nid) -> str:
        return _ref(nid, tree)
    for link in shape.bad:
        if link.fault != MISSING:
            yield Violation(link.fault, link.node, link.sentence(name))
        elif not tree.error:
            # A link to an id without a node line: only a hand-made dump
            # (or one cut short, whose missing nodes are no fault).
            yield Violation("parent", link.node, link.sentence(name))
    if tree.error:
        yield Violation("height", next(reversed(nodes), None),
                        f"dump stopped with 'error {tree.error}' (a walk "
                        f"deeper than {MAX_DEPTH} levels)")
    found = None if copy else _unreachable(tree, shape.links)
    if found:
        yield found
    walk = _Walk(tree, shape.links)
    if root is not None:
        if nodes[root].color != "B":
            yield Violation("root-color", root, "the root is red")
        if nodes[root].parent is not None:
            yield Violation("parent", root,
                            f"the root's parent pointer is "
                            f"{_ref(nodes[root].parent, tree)}, not NIL")
        yield from walk.walk()
    if copy:
        pass
    elif tree.count != walk.count:
        yield Violation("count", root,
                        f"count is {tree.count}, {walk.count} nodes "
                        "reachable")
    for cls, cached, real in (("leftmost", tree.leftmost, walk.first),
                              ("rightmost", tree.rightmost, walk.prev)):
        if cls in tree.flags and cached != real and not copy:
            yield Violation(cls, real,
                            f"cached {cls} is "
                            f"{'-' if cached is None else _ref(cached, tree)}"
                            f", not the {'first' if cls == 'leftmost' else 'last'}"
                            " node in order")
    if augmented_name_wrong(tree) and not copy:
        yield Violation("augment", None,
                        f"augmented value is {tree.aug or '-'}, expected "
                        f"{aug_rule(tree.flags)}")
    n = walk.count
    # The module's bound: height <= 2 * floor(log2(n + 1)).
    if walk.height > 2 * ((n + 1).bit_length() - 1):
        yield Violation("height", root,
                        f"height {walk.height} exceeds 2*log2({n}+1)")
    if tree.height != walk.height and not tree.error:
        yield Violation("height", root,
                        f"header height is {tree.height} but the longest "
                        f"root-to-leaf path has {walk.height} nodes")


def augmented_name_wrong(tree: Tree) -> bool:
    """True if an augmented tree's dump does not name the rule its flags
    call for (:func:`~rbtilib.dump.aug_rule`)."""
    return tree.augmented and tree.aug != aug_rule(tree.flags)


def notes(tree: Tree) -> list[str]:
    """What the checker cannot check on *tree* and says so (not a
    violation): an aug whose rule the dump does not carry (an older
    ``rbti kernel`` dump)."""
    if tree.aug is not None and tree_rule(tree) is None:
        return [f"aug {tree.aug} is not checked: the dump names no augment "
                "rule (aug NAME RULE; a dump of an older rbti kernel)"]
    return []


def check(tree: Tree) -> list[Violation]:
    """Return every violation of *tree* (empty: the tree is valid)."""
    return list(violations(tree))


def first_violation(tree: Tree) -> Violation | None:
    """Return the violation the module's ``check`` file should report."""
    return next(violations(tree), None)
