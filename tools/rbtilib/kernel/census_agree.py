# SPDX-License-Identifier: GPL-2.0
"""The C core against the Python walk and checker, tree for tree.

Each tree is read by both, one after the other: the C core's read
(:func:`.ccore.read`, with its snapshot) and the Python one
(:func:`.census_read.read_python_tree`); they agree if both give the
same verdict (ok, violation, changing, unreadable), the same nodes and
height, the same violations (class and node id, in order), and the same
snapshot node for node: each node's address, colour and links, key,
augmented and own value, the tree edges, the depths, the addresses
linked and not read.  Memory that changes between the two reads (a live
kernel) can make them differ; a core file cannot.
"""

from ..record import record
from . import Fault
from .census_read import Specs, _ranked, read_python_tree
from .expr import Get


@record
class Agreement:
    """The count of trees compared, and what differed (the first ones)."""

    trees: int = 0              # both read it
    agreed: int = 0
    nodes: int = 0              # of the trees that agreed
    python_only: int = 0        # the C core does not read it
    empty: int = 0              # a NULL root, read by neither
    differ: list | None = None  # "TREE: what" of the first that differ
    classes: dict | None = None     # first class -> trees, of those agreed

    def line(self) -> str:
        bad = sum((self.classes or {}).values())
        return (f"C core and Python checker: {self.agreed} of {self.trees} "
                f"trees agree ({self.nodes} nodes, {bad} with a violation);"
                f" {self.python_only} read by the Python checker alone, "
                f"{self.empty} empty")

    def count(self, why, outcome, nodes: int) -> None:
        """One tree compared: *why* they differ (None: they agree)."""
        self.trees += 1
        if why is None:
            self.agreed += 1
            self.nodes += nodes
            if outcome is not None and outcome.violations:
                cls = outcome.violations[0].cls
                self.classes[cls] = self.classes.get(cls, 0) + 1
        elif len(self.differ) < 10:
            self.differ.append(why)


def _view(snap) -> tuple:
    snap = _ranked(snap)
    return (snap.root, snap.leftmost, snap.error,
            [(r.addr, r.pc, r.left, r.right, r.key, r.aug, r.own)
             for r in snap.nodes.values()],
            {a: list(e) for a, e in snap.edges.items()}, dict(snap.depth),
            {a: w.split(" ")[0] for a, w in snap.unread.items()})


def compare_tree(mem, spec, attempts: int = 8) -> tuple:
    """(None if the C core and the Python checker agree on *spec*'s tree,
    else what differs; the Python checker's Outcome).  (None, None) if the
    C core does not read it (see :func:`agree`)."""
    from . import ccore
    r = ccore.reader(mem)
    p = ccore.plan(spec) if r is not None else None
    got = ccore.read(r, spec, p, attempts, snap=True) if p else None
    if got is None:
        return None, None
    want = read_python_tree(mem, spec, attempts)
    theirs = [(v.cls, v.node) for v in want.violations or []]
    mine = (got.state, got.nodes, got.height, got.found or [], got.total)
    other = (want.state, want.nodes, want.height, theirs[:len(got.found or
                                                             [])],
             len(theirs))
    if mine != other:
        return (f"C {mine[:3]} {mine[3][:3]}, Python {other[:3]} "
                f"{theirs[:3]}", want)
    if got.snap is not None and want.snap is not None and \
            _view(got.snap) != _view(want.snap):
        a, b = _view(got.snap), _view(want.snap)
        names = ("root", "leftmost", "error", "nodes", "edges", "depths",
                 "unread addresses")
        return "the snapshots differ: " + ", ".join(
            name for name, x, y in zip(names, a, b) if x != y), want
    return None, want


def agree(prog, mem, results, attempts: int = 8) -> Agreement:
    """Every tree of a census (*results*: its ``(Instance, Outcome)``
    pairs) read and checked by both, each verdict also the census's."""
    from . import ccore
    out = Agreement(differ=[], classes={})
    specs = Specs(prog, mem)
    for inst, res in results:
        if not res.checker:
            out.empty += 1
            continue
        spec = specs.spec(inst)
        if ccore.plan(spec) is None or ccore.reader(mem) is None:
            out.python_only += 1
            continue
        why, want = compare_tree(mem, spec, attempts)
        if why is None and (res.state, res.nodes, res.height) != \
                (want.state, want.nodes, want.height):
            why = (f"the census said {res.state} ({res.nodes} nodes, "
                   f"height {res.height}), the Python checker "
                   f"{want.state} ({want.nodes}, {want.height})")
        out.count(why and f"{inst.name} ({inst.kind}): {why}", want,
                  res.nodes)
    return out


# --- on broken trees ---------------------------------------------------------

class Overlay:
    """*mem* with some bytes replaced (address -> bytes): a broken copy
    of a tree, read as the census reads memory (a page at a time), the
    memory itself untouched."""

    def __init__(self, mem, patches: dict) -> None:
        self.mem, self.patches = mem, patches

    def read(self, addr: int, size: int) -> bytes:
        data = self.mem.read(addr, size)
        for at, raw in self.patches.items():
            lo, hi = max(at, addr), min(at + len(raw), addr + size)
            if lo < hi:
                data = data[:lo - addr] + raw[lo - at:hi - at] + \
                    data[hi - addr:]
        return data

    def pass_reader(self):
        from .walk import PageReads
        return PageReads(self)

    def ptr(self, addr: int) -> int:
        return int.from_bytes(self.read(addr, 8), "little")

    def int(self, addr: int, size: int, signed: bool) -> int:
        return int.from_bytes(self.read(addr, size), "little",
                              signed=signed)


def breaks(rng, mem, spec, snap) -> dict:
    """One random break of the tree *snap* read: a colour, a parent, a
    child link (NIL, another node: a cycle or a shared node, an address
    that is no node, a misaligned one), the cached leftmost, or a byte
    of an entry (its key, its augment, or anything near its rb_node)."""
    lay = spec.layout
    addrs = list(snap.nodes)
    node = rng.choice(addrs)
    word = (lay.parent_off, lay.right_off, lay.left_off)
    what = rng.randrange(7)
    if what == 0:
        raw = snap.nodes[node].pc ^ 1
        return {node + lay.parent_off: raw.to_bytes(8, "little")}
    if what in (1, 2):
        target = rng.choice([0, rng.choice(addrs), rng.choice(addrs) + 2,
                             rng.choice(addrs) + 0x10000 * rng.randrange(1, 8),
                             0xdead000000000000])
        off = rng.choice(word)
        if off == lay.parent_off:
            target |= rng.randrange(2)
        return {node + off: target.to_bytes(8, "little")}
    if what == 3 and spec.leftmost_slot is not None:
        return {spec.leftmost_slot: rng.choice(addrs).to_bytes(8, "little")}
    if what == 4 and len(addrs) > 1:
        # Two entries' keys swapped (or 8 bytes near their rb_nodes).
        other = rng.choice(addrs)
        at = spec.key.at(lay.entry) if isinstance(spec.key, Get) else None
        off, size = ((at[0] - lay.node_off, at[1]) if at else
                     (rng.randrange(-min(lay.node_off, 64), 64), 8))
        try:
            x, y = mem.read(node + off, size), mem.read(other + off, size)
        except Fault:
            return {}
        return {node + off: y, other + off: x}
    off = rng.randrange(-min(lay.node_off, 96), 96)
    return {node + off: bytes([rng.randrange(256)])}


def agree_broken(prog, mem, results, seed: int = 1, per_tree: int = 4,
                 max_nodes: int = 5000, attempts: int = 4) -> Agreement:
    """Every non-empty tree of a census the C core reads (of at most
    *max_nodes* nodes), broken *per_tree* times at random (:func:`breaks`,
    in an :class:`Overlay`), each break read and checked by both."""
    import random
    from . import ccore
    rng = random.Random(seed)
    out = Agreement(differ=[], classes={})
    specs = Specs(prog, mem)
    r = ccore.reader(mem)
    for inst, res in results:
        if not res.checker or not 0 < res.nodes <= max_nodes:
            continue
        spec = specs.spec(inst)
        p = ccore.plan(spec) if r is not None else None
        if p is None:
            out.python_only += 1
            continue
        got = ccore.read(r, spec, p, attempts, snap=True)
        if got is None or got.snap is None:
            continue
        for _ in range(per_tree):
            patches = breaks(rng, mem, spec, got.snap)
            why, want = compare_tree(Overlay(mem, patches), spec, attempts)
            where = ", ".join(f"{a:#x}: {v.hex()}" for a, v in
                              patches.items())
            out.count(why and f"{inst.name} ({inst.kind}) with {where}: "
                      f"{why}", want, got.nodes)
    return out
