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
from . import ccore
from .census_kinds import KINDS, Unfit, order_spec
from .expr import Const
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
    checker: str = "python"     # c, python, or c+python (a C violation)
    note: str | None = None     # the two checkers disagreed: how

    def text(self) -> str | None:
        """The tree's dump (None if it was not read, or is empty)."""
        return format_dump(self.tree) if self.tree is not None else None


STRUCTURE = Layout(DictType({}), 0)
"""A tree of unknown entries: its rb_nodes alone."""

NO_KEY = Const(0)
"""The key of a tree read for structure alone: every key equal (and the
tree ``dup``), so no order is checked."""


class Specs:
    """TreeSpecs of found roots, each kind's order resolved once."""

    def __init__(self, prog, mem) -> None:
        self.prog, self.mem = prog, mem
        self.orders: dict = {}      # kind -> (Order, layout) or None
        self.unfit: dict = {}       # kind -> why only structure
        self.templates: dict = {}   # (kind, cached) -> (spec, plan, base)

    def template(self, inst):
        """(a spec of *inst*'s kind, its C plan or None, the offset of its
        base in the container or None): one a kind (the spec is the
        first tree's; its layout is every tree's)."""
        key = (inst.kind, inst.cached)
        got = self.templates.get(key)
        if got is None:
            spec = self.spec(inst)
            order = self.order(inst.kind)
            got = self.templates[key] = (
                spec, ccore.plan(spec) if inst.spec is None else None,
                order[0].base if order is not None else None)
        return got

    def slots(self, inst) -> tuple | None:
        """(the C plan, (root, leftmost, base) slots) of *inst*'s tree for
        a batch (:func:`read_trees`), or None if it is not read so."""
        if inst.spec is not None:
            return None
        _, plan, base = self.template(inst)
        if plan is None:
            return None
        return plan, (inst.root, inst.root + 8 if inst.cached else 0,
                      inst.container + base if base is not None else 0)

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
            return TreeSpec(inst.name, STRUCTURE, inst.root, NO_KEY,
                            flags=frozenset(flags | {"dup"}),
                            leftmost_slot=left, note="structure only")
        order, layout = got
        return order_spec(order, layout, inst.name, inst.root,
                          leftmost=left, container=inst.container)


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


def read_python_tree(mem, spec: TreeSpec, attempts: int = 8,
                     max_nodes: int = 1 << 20) -> Outcome:
    """:func:`read_tree`, with a changing tree as an Outcome."""
    try:
        return read_tree(mem, spec, attempts, max_nodes)
    except Changed as e:
        return Outcome("changing", error=str(e), reads=attempts)


class Nodes:
    """What the census keeps of a tree the C core read: its nodes'
    addresses (``nodes``, in the order read, for the directory walks;
    empty unless asked for) and the hash of the read, which
    :meth:`key` gives as a snapshot's key does: equal for two reads of an
    unchanged tree."""

    __slots__ = ("nodes", "digest")

    def __init__(self, nodes: list, digest: int | None) -> None:
        self.nodes = nodes
        self.digest = digest

    def key(self) -> tuple:
        return ("c", self.digest)


def read_census_tree(mem, spec: TreeSpec, attempts: int = 8,
                     max_nodes: int = 1 << 20, addrs: bool = False,
                     dump: bool = False) -> Outcome:
    """A tree's Outcome: from the C core where it reads this tree
    (:mod:`.ccore`), else from :func:`read_tree`.  A violation the C core
    finds is read and checked again by the Python checker, whose Outcome
    is the tree's (``checker`` ``c+python``; ``note`` if the two do not
    find the same violations).  *addrs*: the Outcome's ``snap.nodes``
    are wanted (the directory walks); *dump*: its ``tree``."""
    r = ccore.reader(mem)
    p = ccore.plan(spec) if r is not None else None
    got = ccore.read(r, spec, p, attempts, max_nodes, addrs, dump) \
        if p is not None else None
    if got is None:
        return read_python_tree(mem, spec, attempts, max_nodes)
    if got.state != "violation":
        snap, ids, tree = got.snap, None, None
        if snap is not None:
            snap = _ranked(snap)
            ids = number(snap)
            tree = to_tree(snap, ids)
        elif got.digest is not None:
            snap = Nodes(got.addrs or [], got.digest)
        return Outcome(got.state, got.nodes, got.height,
                       [] if got.state == "ok" else None,
                       got.error, snap, ids, tree, got.reads, "c")
    out = read_python_tree(mem, spec, attempts, max_nodes)
    out.reads += got.reads
    out.checker = "c+python"
    theirs = [(v.cls, v.node) for v in out.violations or []]
    if out.state != "violation" or theirs[:len(got.found)] != got.found \
            or len(theirs) != got.total:
        out.note = (f"{spec.name}: the C core found {got.total} "
                    f"violations (first {_first(got.found)}), the Python "
                    f"checker's read {out.state}"
                    + (f", {len(theirs)} (first {_first(theirs)})"
                       if theirs else ""))
    return out


def empty_root(mem, inst):
    """The Outcome of a root whose tree is empty (NULL root, and NULL
    leftmost if cached), from one read of it; None if it is not."""
    if inst.spec is not None:
        return None
    try:
        raw = mem.read(inst.root, 16 if inst.cached else 8)
    except Fault:
        return None             # read_census_tree says it is unreadable
    if any(raw):
        return None
    return Outcome("ok", 0, 0, [], reads=1, checker="")


def read_trees(mem, specs: Specs, insts: list, attempts: int = 8,
               dump: bool = False, addrs=frozenset()) -> list:
    """``(inst, spec or None, Outcome)`` of each of *insts*, in order, as
    the census reads them: an empty root in one read; the trees of a kind
    the C core reads, in batches of one call (:meth:`.ccore.Reader.batch`:
    one pass each, whose verdict is the tree's if it is ok and memory
    still held what it read, or it is empty); any other tree, and any
    other verdict of a batch, on its own (:func:`read_census_tree`).
    *addrs*: kinds whose trees' node addresses are wanted; *dump*: each
    tree's dump (then every tree is read on its own)."""
    out: list = [None] * len(insts)
    r = ccore.reader(mem) if not dump else None
    groups: dict = {}
    for k, inst in enumerate(insts):
        got = specs.slots(inst) if r is not None else None
        if got is None:
            out[k] = _one(mem, specs, inst, attempts, dump, addrs)
        else:
            groups.setdefault(id(got[0]), (got[0], []))[1].append(
                (k, got[1]))
    for plan, trees in groups.values():
        for at in range(0, len(trees), ccore.BATCH):
            part = trees[at:at + ccore.BATCH]
            want = insts[part[0][0]].kind in addrs
            got = r.batch(plan, [slots for _, slots in part], want)
            for (k, _), (state, agreed, nodes, height, where, digest) in \
                    zip(part, got):
                if state == ccore.EMPTY:
                    out[k] = (insts[k], None, Outcome(
                        "ok", 0, 0, [], reads=1, checker="",
                        snap=Nodes([], 0)))
                elif state == ccore.OK and agreed and (where is not None
                                                      or not want):
                    out[k] = (insts[k], None, Outcome(
                        "ok", nodes, height, [], None,
                        Nodes(where or [], digest), reads=2,
                        checker="c"))
                else:
                    out[k] = _one(mem, specs, insts[k], attempts, dump,
                                  addrs, empty=False)
    return out


def _one(mem, specs, inst, attempts, dump, addrs, empty=True) -> tuple:
    """(inst, spec, Outcome) of one tree read on its own."""
    if empty:
        got = empty_root(mem, inst)
        if got is not None:
            return inst, None, got
    spec = specs.spec(inst)
    return inst, spec, read_census_tree(mem, spec, attempts,
                                        addrs=inst.kind in addrs, dump=dump)


def _first(found: list) -> str:
    return " ".join(str(x) for x in found[0]) if found else "none"
