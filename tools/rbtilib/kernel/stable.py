# SPDX-License-Identifier: GPL-2.0
"""A stable read of a tree: numbered, written as a dump and checked.

Node ids: the inspector's own trees keep their real ids; any other tree's
nodes are numbered 0, 1, ... in order (so equal keys never look out of
insertion order), with the addresses in a side table (``--addresses``).

A snapshot is only used when two consecutive reads agree; a violation is
only reported when a second stable snapshot shows it again.  Otherwise
the answer is :class:`~rbtilib.kernel.Changed`.  Where memory reads whole
pages (/proc/kcore, a core file), the second read of a pair reads again
every byte the first walk read and compares (walk.read_checked): the walk
is a function of those bytes, so that is a second walk's answer.
"""

import time

from .. import checker
from ..record import record
from ..dump import (UNKNOWN, Copy, DumpError, Node, Ref, Tree, tree_name,
                    format_dump)
from . import Changed
from .walk import (MAX_DEPTH, RB_BLACK, CopySnap, Memory, Snapshot, TreeSpec,
                   read_checked)


def _inorder(snap: Snapshot) -> list:
    """Addresses of the read nodes in order (first-reach structure)."""
    out, stack, addr = [], [], snap.root if snap.root in snap.nodes else 0
    def read(a: int) -> int:
        return a if a in snap.nodes else 0
    while stack or addr:
        while addr:
            stack.append(addr)
            addr = read(snap.edges[addr][0])
        addr = stack.pop()
        out.append(addr)
        addr = read(snap.edges[addr][1])
    return out


def number(snap: Snapshot) -> dict:
    """Address -> node id: real ids if the tree has them, else in order;
    unread link targets and lost nodes get ids after those.  A tree with
    real ids gives none to an address that is no node of its dump: a link
    to it is written ``?``, as the module writes it."""
    ids: dict = {}
    lost = snap.lost if snap.has_list() else {}
    if snap.spec.node_id is not None:
        ids = {a: r.id for a, r in snap.nodes.items()}
        ids.update((a, r.id) for a, r in lost.items())
        return ids
    for addr in _inorder(snap):
        ids[addr] = len(ids)
    for addr in lost:
        ids[addr] = len(ids)
    nxt = max(ids.values(), default=-1) + 1
    for addr in snap.unread:
        if addr not in ids:
            ids[addr] = nxt
            nxt += 1
    return ids


def copy1_ids(snap: Snapshot, ids: dict) -> dict:
    """Address of a copy-1 rb_node -> node id, for a latch tree's copy 1:
    a node's second rb_node lies at a fixed offset from its first, so a
    copy-1 link names the node whose copy-0 rb_node *ids* names (as the
    module's dump resolves it); the nodes copy 1's walk reached keep
    their own ids.  Empty on other trees."""
    if snap.copy1 is None:
        return {}
    spec = snap.spec
    shift = spec.copy1_off - spec.layout.node_off
    out = {addr + shift: nid for addr, nid in ids.items()
           if addr in snap.nodes or addr in snap.lost}
    if spec.node_id is not None:
        out.update((a, r.id) for a, r in snap.copy1.nodes.items())
    return out


def extra_violations(snap: Snapshot, ids: dict) -> list:
    """What the dump cannot carry: faults and a cache pointing at no
    node.  (An augmented value's rule is in the dump, ``aug NAME RULE``:
    :func:`aug_fields`, checked by the one checker.)"""
    out = []
    if snap.list_problem:
        out.append(checker.Violation(
            "unreachable", None, f"the tree's node list cannot be "
            f"trusted: {snap.list_problem}"))
    for addr, why in snap.unread.items():
        if why.startswith("unreadable"):
            out.append(checker.Violation(
                "parent", ids.get(addr),
                f"node at {addr:#x} is linked but {why}"))
    if snap.copy1 is not None:
        ids1 = copy1_ids(snap, ids)
        for addr, why in snap.copy1.unread.items():
            if why.startswith("unreadable"):
                out.append(checker.Violation(
                    "parent", ids1.get(addr), f"copy 1: node at "
                    f"{addr:#x} is linked but {why}"))
    for cls, cached in (("leftmost", snap.leftmost),
                        ("rightmost", snap.rightmost)):
        if cached and cached not in ids:
            out.append(checker.Violation(
                cls, None, f"cached {cls} {cached:#x} is no node of the "
                "tree"))
    return out


def _height(snap: Snapshot | CopySnap) -> int:
    """As rbti_height(): one more than the cap if the walk went deeper."""
    if snap.error == "depth":
        return MAX_DEPTH + 1
    return max(snap.depth.values(), default=0)


def _copy1(snap: Snapshot, ids: dict, lineno: int) -> Copy:
    """The ``copy 1`` section of a latch tree read from memory: copy 1's
    colours and links, no aug (kmod/DEBUGFS.md); *lineno*: the line
    before it, for a DumpError."""
    copy, ids1 = snap.copy1, copy1_ids(snap, ids)

    def ref(addr: int | None) -> Ref:
        return None if not addr else ids1.get(addr, UNKNOWN)
    out = Copy(root=ref(copy.root), height=_height(copy), nodes={},
               error=copy.error)
    lineno += 3                         # copy 1, root, height
    for raw in copy.nodes.values():
        nid, lineno = ids1.get(raw.addr), lineno + 1
        if nid is None or nid in out.nodes:
            raise DumpError(lineno, f"copy 1 node {nid} listed twice"
                            if nid is not None else
                            f"copy 1 node at {raw.addr:#x} has no id")
        out.nodes[nid] = Node(nid, raw.key, "B" if raw.pc & RB_BLACK
                              else "R", ref(raw.pc & ~3), ref(raw.left),
                              ref(raw.right), None, raw.value)
    return out


def aug_fields(spec: TreeSpec) -> tuple[frozenset, str | None,
                                         str | None, bool]:
    """``(flags, value name, rule, own)`` of the dump of a tree *spec*
    reads: a kernel tree's augment rule goes in its dump (``aug NAME
    RULE``, kmod/DEBUGFS.md), and a rule over the nodes' own values
    (``max:V``, ``min:V``, ``sum:V``) makes each node's VALUE its own
    value (*own*: ``Raw.own``), under ``value V``, so that the dump
    checks on the host as it does here.  A module's tree keeps its flags:
    they imply its rule."""
    rule = spec.aug_rule
    if rule is None or "augmented" in spec.flags:
        return spec.flags, spec.value_name, None, False
    if rule == "size":
        return spec.flags, spec.value_name, "size", False
    name = spec.aug_value_name or "value"
    return spec.flags | {"value"}, name, f"{rule}:{name}", True


def to_tree(snap: Snapshot, ids: dict) -> Tree:
    """The :class:`~rbtilib.dump.Tree` of *snap* (kmod/DEBUGFS.md, and its
    section "Dumps read from kernel memory"): ``nodes`` and ``lost`` lines
    only if the tree's node list was read and can be trusted.  A
    :class:`~rbtilib.dump.DumpError` if two nodes carry one id, as the
    parser says of such a dump."""
    spec = snap.spec

    def ref(addr: int | None) -> Ref:
        return None if not addr else ids.get(addr, UNKNOWN)

    def cache(addr: int | None) -> Ref:
        # A cache pointing at no node (of the dump) cannot be written,
        # since the parser takes no '?' there: '-' (and
        # extra_violations() reports it).
        return ids.get(addr)

    listed = snap.has_list()
    flags, value_name, rule, own = aug_fields(spec)
    tree = Tree(
        name=tree_name(spec.name), api=spec.api, flags=flags,
        count=snap.count if snap.count is not None else len(snap.nodes),
        root=ref(snap.root), leftmost=cache(snap.leftmost),
        rightmost=cache(snap.rightmost), height=_height(snap),
        aug=spec.aug_name, nodes={}, error=snap.error,
        allocated=((snap.allocated if snap.allocated is not None
                    else len(snap.listed)) if listed else None),
        hex=spec.hex, value=value_name, aug_rule=rule)
    lineno = 9 + listed + bool(spec.hex) + bool(value_name)
    parts = [(tree.nodes, snap.nodes.values())]
    if listed:
        parts.append((tree.lost, snap.lost.values()))
    for into, raws in parts:
        lineno += into is tree.lost and snap.error is not None
        for raw in raws:
            nid, lineno = ids[raw.addr], lineno + 1
            if nid in tree.nodes or nid in tree.lost:
                raise DumpError(lineno, f"node {nid} listed twice")
            into[nid] = Node(nid, raw.key, "B" if raw.pc & RB_BLACK else "R",
                             ref(raw.pc & ~3), ref(raw.left),
                             ref(raw.right), raw.aug,
                             raw.own if own else raw.value)
    if snap.copy1 is not None:
        tree.copy1 = _copy1(snap, ids, lineno)
    return tree


def to_dump(snap: Snapshot, ids: dict) -> str:
    """The dump text of *snap* (:func:`to_tree`, formatted)."""
    return format_dump(to_tree(snap, ids))


@record
class Result:
    """A stable read and its verdict."""

    snap: Snapshot
    ids: dict
    tree: Tree
    text: str
    violations: list
    reads: int
    seconds: dict


def _violations(snap: Snapshot, ids: dict, tree: Tree) -> list:
    return checker.check(tree) + extra_violations(snap, ids)


def read_stable(mem: Memory, spec: TreeSpec, attempts: int = 8,
                confirm: bool = True, max_nodes: int = 1 << 20) -> Result:
    """Read until two consecutive reads agree; check; if that shows a
    violation, take another stable read and report only what both show.
    Raises :class:`Changed` after *attempts* reads without that."""
    times = {"read": 0.0, "check": 0.0, "format": 0.0}
    reads, prev, first = 0, None, None
    bound = max_nodes
    while reads < attempts:
        t0 = time.monotonic()
        snap, agreed = read_checked(mem, spec, bound)
        # A read torn by a change can wander into freed memory: bound the
        # next read by this one's size, so garbage cannot make it huge.
        bound = min(max_nodes, 2 * len(snap.nodes) + 1024)
        times["read"] += time.monotonic() - t0
        reads += 1
        if agreed:      # memory read again: the bytes the walk read
            reads += 1
        elif prev is None or snap.key() != prev.key():
            prev = snap
            continue
        t0 = time.monotonic()
        ids = number(snap)
        tree = to_tree(snap, ids)
        text = format_dump(tree)
        times["format"] += time.monotonic() - t0
        t0 = time.monotonic()
        found = _violations(snap, ids, tree)
        times["check"] += time.monotonic() - t0
        verdict = [(v.cls, v.message) for v in found]
        if not found or not confirm or (first is not None and
                                        first == verdict):
            return Result(snap, ids, tree, text, found, reads, times)
        first, prev = verdict, None     # confirm on a fresh pair of reads
    raise Changed(f"{spec.name}: changed while reading ({reads} reads, "
                  "no two consecutive ones agreed)")


def address_table(res: Result) -> str:
    """``ID ADDRESS`` lines: node id to rb_node address."""
    rows = sorted((nid, addr) for addr, nid in res.ids.items())
    return "".join(f"{nid} {addr:#x}\n" for nid, addr in rows)

