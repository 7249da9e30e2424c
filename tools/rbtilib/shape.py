# SPDX-License-Identifier: GPL-2.0
"""The one shape walk: which child links make the tree, and what the
others are.

Every reader of a dump (the checker, ``rbti show``, the Graphviz renderer
and the direct layout of rbtiviz) sees the same tree in it: the nodes
reached from the root through child links in one preorder walk, left
before right, as the module's ``rbti_check()`` walks it
(kmod/DEBUGFS.md, "check classes", step 0).  Following the link from node
X to C:

- C is no node of the dump (``?``, or an id without a ``node`` line):
  the link is :data:`MISSING`;
- C is X or an ancestor of X on the current path: :data:`CYCLE`;
- C was already reached elsewhere: :data:`SHARED`;
- otherwise the link is a tree edge and C is reached.

A link that is not a tree edge counts as NIL everywhere below.  A
``node`` line the walk does not reach is :data:`UNREACHABLE`.  Each fault
has one word (:data:`WORDS`), the class the checker reports it under, and
every drawing labels it with that word.
"""

from collections.abc import Iterable, Iterator

from .dump import UNKNOWN, Tree
from .record import record

CYCLE, SHARED, MISSING, UNREACHABLE = ("cycle", "shared", "missing",
                                       "unreachable")
WORDS = {CYCLE: "cycle", SHARED: "shared", MISSING: "not in the dump",
         UNREACHABLE: "unreachable"}
"""How every reader names each fault (the checker's class names)."""

SIDES = ("left", "right")


@record(frozen=True)
class BadLink:
    """A child link that is not a tree edge."""

    node: int               # the node whose link it is
    side: int               # 0 left, 1 right
    target: object          # the id (or UNKNOWN) it points at
    fault: str              # CYCLE, SHARED or MISSING

    @property
    def why(self) -> str:
        """The fault's word, for a drawing's label."""
        return WORDS[self.fault]

    def sentence(self, name=lambda nid: f"node #{nid}") -> str:
        """The fault in a sentence naming both ends (the checker's
        message); *name* ``(id) -> text`` names a node (the checker's
        gives ``node #ID (key K)``)."""
        head = f"{SIDES[self.side]} link of {name(self.node)} points at "
        if self.fault == CYCLE:
            return head + ("itself" if self.target == self.node
                           else f"its ancestor {name(self.target)}")
        if self.fault == SHARED:
            return head + f"{name(self.target)}, which was already reached"
        if self.target is UNKNOWN:
            return head + "no node of this tree"
        return head + f"{name(self.target)}, which is not in the dump"


class Shape:
    """The tree a dump draws, from one walk (see the module docstring).

    ``links[id]`` is ``[left, right]`` with every link that is not a tree
    edge set to None; ``order`` lists the reached ids in preorder; ``bad``
    the other links, in the order the walk meets them.
    """

    __slots__ = ("tree", "links", "order", "bad", "_up")

    def __init__(self, tree: Tree) -> None:
        self.tree = tree
        self.links: dict = {}
        self.order: list = []
        self.bad: list = []
        self._up: dict | None = None
        self._walk()

    def _walk(self) -> None:
        # The hot loop of every check: locals, and the common case first.
        nodes = self.tree.nodes
        root = self.tree.root
        if root is None or root not in nodes:
            return
        links, order, bad = self.links, self.order, self.bad
        links[root] = [None, None]
        order.append(root)
        path = {root}
        stack = [[root, 0]]
        while stack:
            frame = stack[-1]
            nid, side = frame
            if side == 2:
                stack.pop()
                path.discard(nid)
                continue
            frame[1] = side + 1
            node = nodes[nid]
            child = node.right if side else node.left
            if child is None:
                continue
            if child not in links and child in nodes:
                links[nid][side] = child
                links[child] = [None, None]
                order.append(child)
                path.add(child)
                stack.append([child, 0])
                continue
            fault = (MISSING if child is UNKNOWN or child not in nodes
                     else CYCLE if child in path else SHARED)
            bad.append(BadLink(nid, side, child, fault))

    def unreached(self) -> list:
        """Ids of ``node`` lines the walk did not reach, in dump order."""
        return [nid for nid in self.tree.nodes if nid not in self.links]

    def bad_by_node(self) -> dict:
        """id -> ``[left, right]`` of every node with a bad link: the
        BadLink of each side, or None."""
        out: dict = {}
        for link in self.bad:
            out.setdefault(link.node, [None, None])[link.side] = link
        return out

    def up(self) -> dict:
        """id -> (parent id, side) of every reached node; None for the
        root."""
        if self._up is None:
            up = {nid: None for nid in self.order[:1]}
            for nid in self.order:
                for side, kid in enumerate(self.links[nid]):
                    if kid is not None:
                        up[kid] = (nid, side)
            self._up = up
        return self._up

    def depths(self) -> dict:
        """id -> depth (the root is 1) of every reached node."""
        depth = {nid: 1 for nid in self.order[:1]}
        for nid in self.order:          # preorder: parents first
            for kid in self.links[nid]:
                if kid is not None:
                    depth[kid] = depth[nid] + 1
        return depth

    def sizes(self) -> dict:
        """id -> number of reached nodes in its subtree."""
        size: dict = {}
        for nid in reversed(self.order):    # children before parents
            left, right = self.links[nid]
            size[nid] = 1 + (size[left] if left is not None else 0) + \
                (size[right] if right is not None else 0)
        return size

    def subtree(self, top: int) -> Iterator[int]:
        """Ids under *top* (itself included), preorder."""
        stack = [top]
        while stack:
            nid = stack.pop()
            yield nid
            stack.extend(k for k in reversed(self.links[nid])
                         if k is not None)

    def ancestors_of(self, ids: Iterable[int]) -> set:
        """The given reached ids and every node above them."""
        up, keep = self.up(), set()
        for cur in ids:
            while cur in up and cur not in keep:
                keep.add(cur)
                link = up[cur]
                if link is None:
                    break
                cur = link[0]
        return keep


def unreached_line(ids: list, limit: int = 8) -> str | None:
    """``unreachable: #3, #7`` for a drawing's title (*ids*:
    :meth:`Shape.unreached`), or None."""
    if not ids:
        return None
    more = f" (+{len(ids) - limit} more)" if len(ids) > limit else ""
    return (f"{WORDS[UNREACHABLE]}: "
            + ", ".join(f"#{nid}" for nid in ids[:limit]) + more)
