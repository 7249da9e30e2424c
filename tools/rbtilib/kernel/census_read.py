# SPDX-License-Identifier: GPL-2.0
"""One tree of the census: its spec from its kind, a stable read, a check.

The read is :mod:`.walk`'s (child pointers only, each entry's fields in
one read of its memory, bounded in depth and size) and the verdict
:mod:`.stable`'s rule: two consecutive reads must agree before the tree
is checked, and a violation counts only when a second stable read shows
it again; a tree that never settles is *changing*, never a violation.
Where memory reads whole pages (/proc/kcore, a core file), the second
read of a pair is memory read again and compared with the bytes the
first walk read (walk.read_checked), not a second walk.
Keys that are tuples (a name, a file and a descriptor) are replaced by
their dense rank before the check, which keeps their order and ties.
"""

from .. import checker
from ..dump import format_dump
from ..record import record, replace
from . import Changed, Fault, KernelError
from .census_kinds import KINDS, Ctx, Unfit
from .stable import extra_violations, number, to_tree
from .walk import DictType, Layout, TreeSpec, read_checked


@record
class Outcome:
    """A tree's verdict: *state* is ok, violation, changing or
    unreadable."""

    state: str
    nodes: int = 0
    height: int = 0
    violations: list | None = None
    error: str | None = None
    snap: object = None
    ids: dict | None = None
    tree: object = None
    reads: int = 0

    def text(self) -> str | None:
        """The tree's dump (None if it was not read, or is empty)."""
        return format_dump(self.tree) if self.tree is not None else None


STRUCTURE = Layout(DictType({}), 0)
"""A tree of unknown entries: its rb_nodes alone."""


class Specs:
    """TreeSpecs of found roots, each kind's order resolved once."""

    def __init__(self, prog, mem) -> None:
        self.prog, self.mem = prog, mem
        self.orders: dict = {}      # kind -> (Order, layout) or None
        self.unfit: dict = {}       # kind -> why only structure

    def order(self, kind: str):
        if kind in self.orders:
            return self.orders[kind]
        got = None
        build = KINDS.get(kind)
        if build is not None:
            from .presets import make_layout
            try:
                order = build(self.prog)
                got = (order, make_layout(self.prog, order.entry,
                                          order.node))
            except (Unfit, KernelError, LookupError, ValueError) as e:
                self.unfit[kind] = str(e)
        self.orders[kind] = got
        return got

    def spec(self, inst) -> TreeSpec:
        if inst.spec is not None:
            return inst.spec
        flags = {"leftmost"} if inst.cached else set()
        left = inst.root + 8 if inst.cached else None
        got = self.order(inst.kind)
        if got is None:
            return TreeSpec(inst.name, STRUCTURE, inst.root,
                            lambda e, c: 0, flags=frozenset(flags | {"dup"}),
                            leftmost_slot=left, note="structure only")
        order, layout = got
        container = inst.container
        # (mem: the pass's reader, so that a key's reads beyond its entry
        # are the pass's too.)
        context = ((lambda mem: order.context(mem, container))
                   if order.context else Ctx)
        flags.add("dup" if order.dup else "unique")
        return TreeSpec(inst.name, layout, inst.root, order.key,
                        flags=frozenset(flags), leftmost_slot=left,
                        aug_name=order.aug_name, aug=order.aug,
                        aug_rule=order.aug_rule, aug_value=order.aug_value,
                        context=context, note=order.note, hex=order.hex)


def _ranked(snap):
    """*snap* with tuple keys replaced by their dense rank."""
    raws = list(snap.nodes.values()) + list(snap.lost.values())
    if not any(isinstance(r.key, tuple) for r in raws):
        return snap
    try:
        rank = {k: i for i, k in enumerate(sorted({r.key for r in raws}))}
    except TypeError:           # keys that do not compare: no order
        rank = {r.key: 0 for r in raws}
    snap.nodes = {a: replace(r, key=rank[r.key])
                  for a, r in snap.nodes.items()}
    snap.lost = {a: replace(r, key=rank[r.key]) for a, r in snap.lost.items()}
    return snap


def _verdict(snap) -> tuple:
    snap = _ranked(snap)
    ids = number(snap)
    tree = to_tree(snap, ids)
    return ids, tree, checker.check(tree) + extra_violations(snap, ids)


def _empty(snap) -> bool:
    """An empty tree with empty caches (most roots of a kernel): its
    root pointer is NULL, so one read is its stable read."""
    return (not snap.root and not snap.leftmost and not snap.rightmost
            and snap.count is None and snap.copy1 is None
            and snap.listed is None)


def read_tree(mem, spec: TreeSpec, attempts: int = 8,
              max_nodes: int = 1 << 20) -> Outcome:
    """Read *spec*'s tree until two reads agree, check it, and confirm a
    violation on a second stable pair (as stable.read_stable)."""
    reads, prev, first = 0, None, None
    bound = max_nodes
    try:
        while reads < attempts:
            snap, agreed = read_checked(mem, spec, bound)
            bound = min(max_nodes, 2 * len(snap.nodes) + 1024)
            reads += 1
            if _empty(snap):        # one word read: nothing to tear
                return Outcome("ok", 0, 0, [], None, snap, {}, None, reads)
            if agreed:              # memory read again, the same bytes
                reads += 1
            elif prev is None or snap.key() != prev.key():
                prev = snap
                continue
            ids, tree, found = _verdict(snap)
            verdict = [(v.cls, v.message) for v in found]
            if not found or first == verdict:
                return Outcome("violation" if found else "ok",
                               len(snap.nodes), tree.height, found, None,
                               snap, ids, tree, reads)
            first, prev = verdict, None
    except Fault as e:
        return Outcome("unreadable", error=f"the root: {e}", reads=reads)
    raise Changed(f"{spec.name}: changed while reading ({reads} reads)")


def read_census_tree(mem, spec: TreeSpec, attempts: int = 8,
                     max_nodes: int = 1 << 20) -> Outcome:
    """:func:`read_tree`, with a changing tree as an Outcome."""
    try:
        return read_tree(mem, spec, attempts, max_nodes)
    except Changed as e:
        return Outcome("changing", error=str(e), reads=attempts)
