# SPDX-License-Identifier: GPL-2.0
"""Each census kind proven on a real break (``tools/census-proof``).

For one tree of every kind a census found non-empty, each class of break
the kind can show is made in a copy-on-write view of the memory
(:class:`CowView`: the core file is not written, nothing is copied but
the patched bytes), and the census of the whole view must then report
exactly that tree, with a class the break can cause, and nothing else.

The breaks (:func:`breaks`), each with the classes it may show and,
in brackets, the one it must:

- colour, red root: the root's colour bit cleared; root-color, red-red
  (a red child) [root-color];
- colour, red-red: the deepest node and its parent made red; red-red,
  black-height, root-color (the parent is the root) [red-red];
- link, parent: a node's parent link set to a node not its parent (a
  one-node tree's root's to itself); parent [parent];
- link, child: a NIL child link of the deepest node set to the root (a
  cycle); cycle, parent, black-height, count [cycle];
- order, key swap: the key fields of two in-order neighbours of
  different keys swapped byte for byte; order, and augment where the
  augment's own value reads a key field [order];
- augment: one node's stored augment plus one; augment [augment];
- cache, leftmost (rightmost): the cached node set to another node, or
  NULL in a one-node tree; leftmost (rightmost) [the same].

A kind's *key fields* are the entry fields its key expression reads
(:class:`~.expr.Get`, a pointer a :class:`~.expr.Load` follows, or the
path of :func:`.presets._field`): a key read from the wrong field leaves
the clean tree out of order (its case fails: the tree was not clean
before the break) or makes the swap change nothing the key reads (the
break is not found): :func:`prove` reports either.
"""

import contextlib
import random

from ..record import factory, record, replace
from . import Fault
from .census_read import Specs, read_python_tree
from .expr import Get
from .walk import Field

CLASSES = ("colour", "link", "order", "augment", "cache")
"""The table's columns, in order."""


# --- the view ---------------------------------------------------------------

class CowView:
    """A copy-on-write view of a drgn Program's memory.

    Patched bytes are laid over the program's memory as memory segments
    of their own: in drgn (0.0.22 and on) a segment added later wins
    where it overlaps earlier ones, a virtual address's segment included
    (the page-table reader of a vmcore is one too).  Undoing a patch lays
    the bytes it covered over it again.  Nothing is copied but the
    patched bytes, and the core file is not written.  Every reader of the
    program (drgn's objects, :class:`~.debuginfo.DrgnMemory`, the C core's
    callback) reads the view."""

    def __init__(self, prog) -> None:
        self.prog = prog
        self.layers = 0

    def _lay(self, patches: dict) -> None:
        for addr, data in patches.items():
            data = bytes(data)

            def read(_addr, count, offset, _physical, data=data):
                return data[offset:offset + count]
            self.prog.add_memory_segment(addr, len(data), read, False)
            self.layers += 1

    def read(self, addr: int, size: int) -> bytes:
        return self.prog.read(addr, size)

    @contextlib.contextmanager
    def broken(self, patches: dict):
        """The view with *patches* (address -> bytes) laid over it, for
        the ``with`` block; the bytes under them are back after it."""
        under = {a: self.prog.read(a, len(b)) for a, b in patches.items()}
        self._lay(patches)
        try:
            yield self
        finally:
            self._lay(under)


# --- the breaks -------------------------------------------------------------

@record
class Break:
    """One break of one tree: *patches* (address -> bytes), the classes
    of which it must show one (*want*) and those it may show (*may*)."""

    cls: str                        # a column of CLASSES
    name: str
    what: str
    patches: dict
    want: frozenset
    may: frozenset


@record
class Skip:
    """A break that does not apply to this kind's tree, and why."""

    cls: str
    name: str
    why: str


def _fields(fn) -> list:
    """The entry fields expression *fn* reads: each a :class:`Field`."""
    if fn is None:
        return []
    if isinstance(fn, Field):
        return [fn]
    cells = getattr(fn, "__closure__", None)
    code = getattr(fn, "__code__", None)
    if cells and code is not None and "parts" in code.co_freevars:
        # presets._field(): a closure over the path's parts
        parts = cells[code.co_freevars.index("parts")].cell_contents
        return [Field(".".join(parts))]
    out = []
    for name in ("a", "b", "ptr", "length", "cond", "then", "other"):
        sub = getattr(fn, name, None)
        if sub is not None and not isinstance(sub, int):
            out += _fields(sub)
    for sub in getattr(fn, "items", ()) or ():
        out += _fields(sub)
    return out


def _at(fn, info) -> list:
    """(offset, size) of each field *fn* reads in an entry of *info*, or
    [] if one of them is not a scalar member of it."""
    out = []
    for f in _fields(fn):
        at = f.at(info)
        if at is None:
            return []
        if (at[0], at[1]) not in out:
            out.append((at[0], at[1]))
    return out


def key_fields(spec) -> list:
    """(offset from the entry, size) of each field *spec*'s key reads,
    or [] if it reads none the proof can find."""
    return _at(spec.key, spec.layout.entry)


def _word(value: int) -> bytes:
    return (value & (1 << 64) - 1).to_bytes(8, "little")


def _inorder(snap) -> list:
    """The node addresses of *snap* in key order of the tree's shape."""
    out, stack, seen = [], [], set()
    node = snap.root
    while stack or node:
        while node and node in snap.nodes and node not in seen:
            seen.add(node)
            stack.append(node)
            node = snap.nodes[node].left
        if not stack:
            break
        node = stack.pop()
        out.append(node)
        node = snap.nodes[node].right
    return out


def _parents(snap) -> dict:
    """Node -> its parent in the tree's shape (the root: 0)."""
    up = {snap.root: 0}
    for addr, raw in snap.nodes.items():
        for child in (raw.left, raw.right):
            if child in snap.nodes:
                up[child] = addr
    return up


def breaks(mem, spec, snap, rng: random.Random | None = None) -> list:
    """Every break of the clean tree *snap* (read by *spec*) the kind can
    show, or a :class:`Skip` saying why one does not apply."""
    rng = rng or random.Random(1)
    lay = spec.layout
    nodes = snap.nodes
    root = snap.root
    up = _parents(snap)
    depth = snap.depth
    out: list = []

    def pc_word(addr: int, pc: int) -> dict:
        return {addr + lay.parent_off: _word(pc)}

    # colour: the root red
    rpc = nodes[root].pc
    out.append(Break("colour", "red root", "the root's colour bit cleared",
                     pc_word(root, rpc & ~1), frozenset({"root-color"}),
                     frozenset({"root-color", "red-red"})))
    # colour: a node and its parent both red (the deepest such pair)
    pairs = [a for a in nodes if up.get(a)]
    if pairs:
        child = max(pairs, key=lambda a: (depth.get(a, 0), -a))
        parent = up[child]
        patches = {**pc_word(child, nodes[child].pc & ~1),
                   **pc_word(parent, nodes[parent].pc & ~1)}
        may = {"red-red", "black-height"} | ({"root-color"}
                                              if parent == root else set())
        out.append(Break("colour", "red-red", "a node at depth "
                         f"{depth.get(child)} and its parent made red",
                         patches, frozenset({"red-red"}), frozenset(may)))
    else:
        out.append(Skip("colour", "red-red", "one node: no parent and "
                        "child to make red"))
    # link: a parent link to a node not its parent
    others = [a for a in nodes if a != root]
    if others:
        node = max(others, key=lambda a: (depth.get(a, 0), -a))
        wrong = root if up[node] != root else next(
            (a for a in nodes if a not in (root, node)), node)
        what = "a node's parent link set to " + (
            "the root" if wrong == root else "itself" if wrong == node
            else "another node")
    else:
        node, wrong, what = root, root, "the root's parent link set to " \
            "itself"
    out.append(Break("link", "parent", what,
                     pc_word(node, wrong | (nodes[node].pc & 3)),
                     frozenset({"parent"}), frozenset({"parent"})))
    # link: a NIL child link of the deepest node to the root: a cycle
    node = max(nodes, key=lambda a: (depth.get(a, 0), -a))
    raw = nodes[node]
    off = lay.left_off if not raw.left else lay.right_off
    out.append(Break("link", "child", "a NIL child link of the deepest "
                     "node set to the root (a cycle)",
                     {node + off: _word(root)}, frozenset({"cycle"}),
                     frozenset({"cycle", "parent", "black-height",
                                "count"})))
    # order: two in-order neighbours' keys swapped
    fields = key_fields(spec)
    seq = _inorder(snap)
    pair = next(((a, b) for a, b in zip(seq, seq[1:])
                 if nodes[a].key != nodes[b].key), None)
    if not fields:
        out.append(Skip("order", "key swap", "structure only: no key"
                        if spec.note == "structure only" else
                        "its key reads no entry field the proof can find"))
    elif len(nodes) < 2:
        out.append(Skip("order", "key swap", "one node: no two keys to "
                        "swap"))
    elif pair is None:
        # Every key equal: legal in a tree of duplicates, and what a key
        # read from a field that never changes gives.  Nothing to swap,
        # so nothing to find: the case fails rather than pass unproven.
        out.append(Break("order", "key swap", f"none: all {len(nodes)} "
                         "keys are equal (a key that reads the wrong "
                         "field?)", {}, frozenset({"order"}),
                         frozenset({"order"})))
    else:
        patches = {}
        try:
            for off, size in fields:
                a, b = (x - lay.node_off + off for x in pair)
                patches[a], patches[b] = mem.read(b, size), mem.read(a, size)
        except Fault as e:
            patches = None
            out.append(Skip("order", "key swap", f"unreadable key: {e}"))
        if patches is not None:
            own = set(_at(spec.aug_value, lay.entry)) & set(fields)
            out.append(Break(
                "order", "key swap", "the key fields of two in-order "
                f"neighbours swapped ({len(fields)} field"
                f"{'s' if len(fields) > 1 else ''}"
                f"{', which the augment reads too' if own else ''})",
                patches, frozenset({"order"}),
                frozenset({"order", "augment"} if own else {"order"})))
    # augment: one stored augment off by one
    aug = _fields(spec.aug)
    at = aug[0].at(lay.entry) if len(aug) == 1 else None
    if spec.aug is None and spec.aug_rule is None:
        out.append(Skip("augment", "augment", "no augment"))
    elif at is None:
        out.append(Skip("augment", "augment", "its augment reads no "
                        "entry field the proof can find"))
    else:
        node = rng.choice(sorted(nodes))
        addr = node - lay.node_off + at[0]
        size = at[1]
        value = int.from_bytes(mem.read(addr, size), "little") + 1
        out.append(Break("augment", "augment",
                         f"one node's {spec.aug_name or 'aug'} plus one",
                         {addr: (value & (1 << 8 * size) - 1).to_bytes(
                             size, "little")},
                         frozenset({"augment"}), frozenset({"augment"})))
    # cache: the leftmost and rightmost
    for side, slot, true in (("leftmost", spec.leftmost_slot,
                              snap.leftmost),
                             ("rightmost", spec.rightmost_slot,
                              snap.rightmost)):
        if slot is None:
            out.append(Skip("cache", side, f"no {side} cache"))
            continue
        wrong = next((a for a in (root, *seq) if a != true), 0)
        out.append(Break("cache", side, f"the cached {side} set to "
                         f"{'another node' if wrong else 'NULL'}",
                         {slot: _word(wrong)}, frozenset({side}),
                         frozenset({side})))
    return out


# --- the proof --------------------------------------------------------------

@record
class Case:
    """One break of one kind's tree, and what the census of the view
    said."""

    kind: str
    tree: str
    brk: object                     # Break or Skip
    found: bool = False             # the tree was reported broken
    exact: bool = False             # with a class the break may show
    alone: bool = False             # and no other tree changed verdict
    classes: list = factory(list)   # the classes the census gave it
    others: list = factory(list)    # "TREE: verdict" of the others
    unreached: int = 0              # trees of the baseline not found

    @property
    def skipped(self) -> bool:
        return isinstance(self.brk, Skip)

    @property
    def ok(self) -> bool:
        return self.found and self.exact and self.alone

    def line(self) -> str:
        b = self.brk
        if self.skipped:
            return f"{self.kind} {b.cls} ({b.name}): {b.why}"
        return (f"{self.kind} {b.cls} ({b.name}): {b.what} in "
                f"{self.tree}: census says "
                f"{','.join(self.classes) or 'nothing'}"
                + ("" if self.alone else
                   f"; also {'; '.join(self.others[:3])}")
                + (f" ({self.unreached} trees of the clean census not "
                   "reached through it)" if self.unreached else ""))


def verdicts(c) -> dict:
    """A census's trees: root address -> (name, kind, state, classes)."""
    return {inst.root: (inst.name, inst.kind, res.state,
                        sorted({v.cls for v in res.violations or []}))
            for inst, res in c.results}


FEATURES = {"augment": lambda sp: sp.aug is not None,
            "leftmost": lambda sp: sp.leftmost_slot is not None,
            "rightmost": lambda sp: sp.rightmost_slot is not None}
"""The breaks a tree can take only if its spec has the feature: for
these, another clean tree of the kind is broken if the first has not."""


def candidates(results, kind: str) -> list:
    """The clean, non-empty trees of *kind* in the order the proof tries
    them: not a latch tree first (its second copy would show a break as
    a latch mismatch too), then with at least 7 nodes if it can (red
    nodes, neighbours), the smallest such, else the largest."""
    cands = [(i, o) for i, o in results if i.kind == kind and
             o.state == "ok" and o.nodes > 0]

    def score(io):
        inst, out = io
        latch = inst.spec is not None and inst.spec.copy1_slot is not None
        return (latch, out.nodes < 7,
                out.nodes if out.nodes >= 7 else -out.nodes, inst.root)
    return sorted(cands, key=score)


@record
class Clean:
    """The precondition of a kind's cases: its trees in the clean
    memory, and those with a verdict other than ok."""

    kind: str
    trees: int
    nodes: int
    dirty: list                     # "TREE: state classes"

    @property
    def ok(self) -> bool:
        return not self.dirty


def prove(prog, view: CowView, census, mem_of, base=None, kinds=None,
          progress=None) -> tuple:
    """(the census of the clean view, the :class:`Clean` of each kind,
    the cases).  *census* ``(mem) -> Census`` is run on the clean view
    and once a break, each time over a fresh memory ``mem_of()`` of the
    view (no page kept from another break)."""
    base = base or census(mem_of())
    before = verdicts(base)
    bad_before = {r for r, v in before.items() if v[2] != "ok"}
    cleans, cases = [], []
    kinds = kinds or sorted({i.kind for i, o in base.results
                             if o.nodes > 0})
    for kind in kinds:
        mine = [(i, o) for i, o in base.results if i.kind == kind]
        cleans.append(Clean(kind, len(mine), sum(o.nodes for _, o in mine),
                            [f"{i.name}: {o.state} " + ",".join(sorted(
                                {v.cls for v in o.violations or []}))
                             for i, o in mine if o.state != "ok"]))
        got = _kind_breaks(prog, mem_of(), candidates(base.results, kind))
        if not got:
            cases.append(Case(kind, "-", Skip("*", "any", "no clean "
                                              "non-empty tree")))
        for inst, brk in got:
            case = Case(kind, inst.name, brk)
            cases.append(case)
            if case.skipped:
                continue
            with view.broken(brk.patches):
                after = verdicts(census(mem_of()))
            mine = after.get(inst.root)
            case.classes = mine[3] if mine else []
            case.found = mine is not None and mine[2] == "violation"
            case.exact = case.found and bool(set(case.classes) &
                                             brk.want) and \
                set(case.classes) <= brk.may
            case.others = [f"{v[0]} ({v[1]}): {v[2]} {','.join(v[3])}"
                           for r, v in after.items()
                           if r != inst.root and r not in bad_before and
                           v[2] != "ok"]
            case.alone = not case.others
            case.unreached = len(set(before) - set(after))
            if progress:
                progress(case)
    return base, cleans, cases


def _kind_breaks(prog, mem, cands: list) -> list:
    """(Instance, Break or Skip) of each break name, from the first
    candidate tree, a feature's (FEATURES) from the first candidate that
    has it."""
    specs = Specs(prog, mem)
    out: dict = {}
    for n, (inst, _) in enumerate(cands):
        spec = specs.spec(inst)
        need = [name for name, has in FEATURES.items()
                if isinstance(out.get(name), tuple) and
                isinstance(out[name][1], Skip) and has(spec)]
        if n and not need:
            continue
        read = read_python_tree(mem, spec, attempts=4)
        if read.state != "ok" or read.snap is None:
            if not n:
                out["*"] = (inst, Skip("*", "any", f"read {read.state}: "
                                       f"{read.error}"))
            continue
        for brk in breaks(mem, spec, read.snap):
            if not n or brk.name in need:
                out[brk.name] = (inst, brk)
        if not any(isinstance(b, Skip) and b.name in FEATURES
                   for _, b in out.values()):
            break
    return list(out.values())


class Shifted(Get):
    """A key read *by* bytes past its field's offset: a kind whose key
    reads the wrong field, the proof's self-check (``--mutant``)."""

    def __init__(self, path: str, by: int = 8) -> None:
        super().__init__(path)
        self.by = by

    def at(self, info):
        at = super().at(info)
        return None if at is None else (at[0] + self.by, *at[1:])


def mutant(build, by: int = 8):
    """A census_kinds builder whose key (a field) is read *by* bytes
    further on."""
    def shifted(prog):
        order = build(prog)
        if not isinstance(order.key, Get):
            raise ValueError("its key is not one field")
        return replace(order, key=Shifted(".".join(order.key.parts), by))
    return shifted


def tally(cases: list) -> tuple:
    """(passed, failed, skipped)."""
    return (sum(c.ok for c in cases if not c.skipped),
            sum(not c.ok for c in cases if not c.skipped),
            sum(c.skipped for c in cases))
