# SPDX-License-Identifier: GPL-2.0
"""Where ``rbti census`` finds the roots, each reported by its route.

- ``global``, ``percpu``: every object symbol of the kernel, typed by its
  debug info (drgn cannot list variables by type, so each symbol of the
  ELF symbol table is looked up: ``prog.variable(name)``), whose type is a
  root or holds one by value (in a member, a nested struct, an array);
  a per-CPU variable for every possible CPU.
- ``tasks``, ``files``: every task's own roots and its signal_struct's
  (``pi_waiters``, the posix CPU timers), and through its file table every epoll instance
  (``eventpoll``) and every file's ``address_space``.
- ``slab``: the objects of the caches of :data:`SLAB_CACHES`
  (:mod:`.census_slab`).
- ``kernfs``, ``procfs``: a directory's entries are read with its tree;
  each entry that is a directory gives the next tree.
- ``vmap_nodes``: 6.9 on, vmalloc's busy and lazy trees per vmap node.
- ``pi-locks``: the lock each of a task's pi_waiters waits on.
- ``module``: the rbtree_inspector's trees, read as ``rbti kernel --preset
  inspector`` reads them (their ids, node lists and latch copies).

A root found by two routes is one tree with both routes.  A root in a
union member (which may not be the live member) is read only where its
kind says how to tell (a kernfs directory); others are counted, not
read.  Nothing found is trusted: a pointer that cannot be read ends that
branch of the search, not the census.
"""

import re

from ..record import record
from . import Fault, KernelError
from .debuginfo import _drgn, unalias
from .walk import ROOT_TYPES, TreeSpec

ADDRESS_MASK = (1 << 64) - 1
"""A CPU's copy of a per-CPU variable is the symbol's address plus the
CPU's __per_cpu_offset, modulo 2**64: where x86-64's per-CPU symbols
are kernel image addresses (7.3; 6.1's and 6.12's are small offsets from
0), the offsets wrap them around into the per-CPU areas."""

MAX_ARRAY = 4096
"""Array members longer than this are not searched (none in the kernels
read; a bound, not a guess)."""

MAX_FDS = 1 << 16
MAX_TASKS = 1 << 16


@record(frozen=True)
class Slot:
    """A root inside a type: offsets from the start of the type."""

    offset: int
    kind: str
    cached: bool
    container: int              # offset of the kind's container struct
    path: str
    union: bool


@record
class Instance:
    """One root found: its kind, where it was found, its address."""

    kind: str
    route: str
    name: str
    root: int                   # &struct rb_root (or rb_root_cached)
    cached: bool
    container: int              # the container struct's address
    spec: TreeSpec | None = None    # a ready spec (the module's trees)
    routes: set | None = None
    # () -> bool: whether the route still leads to this root, asked once
    # its tree read broken or unreadable (a lock a waiter on a stack
    # pointed to may be gone since); None: a route that always does.
    still: object = None


def kind_name(container: str, path: str) -> str:
    """``timerqueue_head.rb_root``: indices dropped (``clock_base[]``)."""
    path = re.sub(r"\[\d+\]", "[]", path)
    return f"{container}.{path}" if container else path


def _size(t) -> int:
    """A type's size, 0 if it has none (incomplete, flexible)."""
    try:
        return t.size or 0
    except (TypeError, ValueError, AttributeError):
        return 0


class Types:
    """The roots each type holds by value, cached per named type."""

    def __init__(self, prog) -> None:
        self.prog = prog
        self.kinds = _drgn().TypeKind
        self.cache: dict = {}

    def of(self, type_) -> list:
        """The Slots of a struct or union type (relative to it)."""
        t = unalias(type_)
        key = (t.kind, t.tag, t.size) if t.tag else None
        if key is not None and key in self.cache:
            return self.cache[key]
        out: list = []
        self._members(t, 0, t.tag or "", 0, "", False, out)
        if key is not None:
            self.cache[key] = out
        return out

    def top(self, type_, name: str) -> list:
        """The Slots of a variable *name* of *type_*: a variable that is
        a root (or an array of them) is a kind of its own, its name."""
        t = unalias(type_)
        k = self.kinds
        if t.kind in (k.STRUCT, k.UNION) and t.tag in ROOT_TYPES:
            return [Slot(0, name, ROOT_TYPES[t.tag], 0, "", False)]
        if t.kind in (k.STRUCT, k.UNION):
            return self.of(t)
        if t.kind != k.ARRAY:
            return []
        el = unalias(t.type)
        n = t.length or 0
        if not 0 < n <= MAX_ARRAY or not _size(el):
            return []
        out: list = []
        inner = self.top(el, name)
        for i in range(n if inner else 0):
            for s in inner:
                out.append(Slot(i * el.size + s.offset, s.kind, s.cached,
                                i * el.size + s.container,
                                f"[{i}]" + ("." + s.path if s.path else ""),
                                s.union))
        return out

    def _members(self, t, off, cname, coff, prefix, union, out) -> None:
        try:
            members = t.members
        except (TypeError, ValueError):
            return
        for m in members or ():
            path = prefix + ("." if prefix and m.name else "") + \
                (m.name or "")
            self._member(unalias(m.type), off + m.bit_offset // 8, cname,
                         coff, path, union or t.kind == self.kinds.UNION,
                         out)

    def _member(self, mt, moff, cname, coff, path, union, out) -> None:
        k = self.kinds
        if mt.kind in (k.STRUCT, k.UNION):
            if mt.tag in ROOT_TYPES:
                out.append(Slot(moff, kind_name(cname, path),
                                ROOT_TYPES[mt.tag], coff, path, union))
            elif mt.tag:
                for s in self.of(mt):
                    out.append(Slot(moff + s.offset, s.kind, s.cached,
                                    moff + s.container,
                                    f"{path}.{s.path}" if path else s.path,
                                    union or s.union))
            else:
                self._members(mt, moff, cname, coff, path, union, out)
        elif mt.kind == k.ARRAY:
            el = unalias(mt.type)
            n = mt.length or 0
            if el.kind not in (k.STRUCT, k.UNION, k.ARRAY) or \
                    not 0 < n <= MAX_ARRAY or not _size(el):
                return
            # The element's roots once (offsets from the element; a
            # container of -1 is the enclosing one), then each element's.
            inner: list = []
            self._member(el, 0, cname, -1, f"{path}[]", union, inner)
            size = el.size
            for i in range(n if inner else 0):
                at = moff + i * size
                for s in inner:
                    out.append(Slot(at + s.offset, s.kind, s.cached,
                                    coff if s.container == -1
                                    else at + s.container,
                                    f"{path}[{i}]" + s.path[len(path) + 2:],
                                    s.union))


class Finder:
    """Collects Instances by root address; the first route's spec wins."""

    def __init__(self, prog, mem, types: Types | None = None) -> None:
        self.prog, self.mem = prog, mem
        self.types = types or Types(prog)
        self.found: dict = {}          # root address -> Instance
        self.skipped: dict = {}        # kind -> why (a root not read)
        self.notes: list = []

    def add(self, kind: str, route: str, name: str, root: int,
            cached: bool, container: int, spec=None, still=None) -> bool:
        if root in self.found:
            inst = self.found[root]
            if inst is not None:        # None: claimed by another tree
                inst.routes.add(route)
            return False
        self.found[root] = Instance(kind, route, name, root, cached,
                                    container, spec, {route}, still)
        return True

    def copy(self) -> "Finder":
        """A Finder with the roots found so far, for another census of
        the same kernel (the walks add to the copy, not to this one)."""
        out = Finder(self.prog, self.mem, self.types)
        out.found = {a: None if i is None else Instance(
            i.kind, i.route, i.name, i.root, i.cached, i.container, i.spec,
            set(i.routes), i.still) for a, i in self.found.items()}
        out.skipped, out.notes = dict(self.skipped), list(self.notes)
        return out

    def claim(self, root: int, route: str) -> None:
        """A root read as part of another tree (a latch tree's copy)."""
        self.found.setdefault(root, None)

    def add_slots(self, slots: list, base: int, route: str,
                  name: str, still=None) -> None:
        for s in slots:
            if s.union:
                self.skipped[s.kind] = "in a union member"
                continue
            sep = "" if s.path.startswith("[") else "."
            self.add(s.kind, route,
                     f"{name}{sep}{s.path}" if s.path else name,
                     base + s.offset, s.cached, base + s.container,
                     still=still)

    def add_object(self, type_, addr: int, route: str, name: str,
                   still=None) -> None:
        self.add_slots(self.types.of(type_), addr, route, name, still)

    def instances(self) -> list:
        return [i for i in self.found.values() if i is not None]


# --- global and per-CPU variables ----------------------------------------

def possible_cpus(prog) -> list:
    from drgn.helpers.linux.cpumask import for_each_possible_cpu
    return list(for_each_possible_cpu(prog))


def _percpu_range(prog) -> tuple:
    try:
        return (prog.symbol("__per_cpu_start").address,
                prog.symbol("__per_cpu_end").address)
    except LookupError:
        return (0, 0)


def _image(prog) -> tuple:
    """[_text, _end): the kernel image (a module's symbols lie outside)."""
    try:
        return prog.symbol("_text").address, prog.symbol("_end").address
    except LookupError:
        return 0xffffffff80000000, 0xffffffffa0000000


def find_variables(f: Finder) -> int:
    """Every object symbol whose type holds a root; returns how many
    symbols were looked up."""
    drgn = _drgn()
    prog = f.prog
    lo, hi = _percpu_range(prog)
    text, end = _image(prog)
    offsets = [(cpu, int(prog["__per_cpu_offset"][cpu]))
               for cpu in possible_cpus(prog)] if hi > lo else []
    looked = ambiguous = placed = unreadable = 0
    source = None
    for sym in prog.symbols():
        if sym.kind == drgn.SymbolKind.FILE:
            source = sym.name       # the local symbols that follow are its
            continue
        if sym.kind != drgn.SymbolKind.OBJECT or sym.size < 8:
            continue
        percpu = lo <= sym.address < hi
        if not percpu and not text <= sym.address < end:
            continue            # a module's (the module route reads it)
        looked += 1
        try:
            obj = prog.variable(sym.name)
            if obj.address_ != sym.address:
                # A static of this name elsewhere too: the one its file
                # defines, if the symbol table says which file.
                obj = _static_of(prog, sym, source)
                if obj is None:
                    ambiguous += 1
                    continue
                placed += 1
            slots = f.types.top(obj.type_, sym.name)
        except Exception:  # noqa: BLE001 (drgn: debug info it cannot read)
            unreadable += 1
            continue
        if not slots:
            continue
        if percpu:
            for cpu, off in offsets:
                f.add_slots(slots, (sym.address + off) & ADDRESS_MASK,
                            "percpu", f"{sym.name}[cpu{cpu}]")
        else:
            f.add_slots(slots, sym.address, "global", sym.name)
    f.notes.append(f"variables: {looked} symbols, {placed} statics whose "
                   f"name names another variable too, placed by their "
                   f"file, {ambiguous} not (not read), {unreadable} "
                   "whose debug info drgn cannot read")
    return looked


def _static_of(prog, sym, source: str | None):
    """The variable of local symbol *sym*, looked up in *source* (the
    file symbol before it in the symbol table, e.g. "core.c"), if it is
    the one at the symbol's address; else None (a static defined in a
    header, or a file name that names several files)."""
    drgn = _drgn()
    if sym.binding != drgn.SymbolBinding.LOCAL or not source:
        return None
    try:
        obj = prog.variable(sym.name, source)
    except LookupError:
        return None
    return obj if obj.address_ == sym.address else None


# --- tasks, their files, epoll and address spaces ---------------------------

def find_tasks(f: Finder) -> int:
    """Every task's roots; and from its files, epoll and address_space
    roots.  Returns the number of tasks."""
    from drgn.helpers.linux.pid import for_each_task
    prog = f.prog
    task_t = prog.type("struct task_struct")
    signal_t = prog.type("struct signal_struct")
    epoll_fops = _address(prog, "eventpoll_fops")
    n = 0
    for task in for_each_task(prog):
        n += 1
        if n > MAX_TASKS:
            break
        addr = int(task.value_())
        pid = int(task.pid)
        f.add_object(task_t, addr, "tasks", f"task {pid}")
        if task.signal:         # shared by the threads: found once
            f.add_object(signal_t, int(task.signal), "tasks",
                         f"task {pid} signal")
        try:
            _find_files(f, task, pid, epoll_fops)
        except (Fault, _drgn().FaultError):
            continue
    return n


def _address(prog, name: str) -> int | None:
    try:
        return int(prog[name].address_)
    except (KeyError, LookupError):
        return None


def _find_files(f: Finder, task, pid: int, epoll_fops: int | None) -> None:
    prog = f.prog
    files = task.files
    if not files:
        return
    fdt = files.fdt
    fds = fdt.fd
    count = min(int(fdt.max_fds), MAX_FDS)
    raw = f.mem.read(int(fds.value_()), 8 * count)
    seen = set()
    for i in range(count):
        ptr = int.from_bytes(raw[8 * i:8 * i + 8], "little")
        if not ptr or ptr in seen:
            continue
        seen.add(ptr)
        file = _drgn().Object(prog, "struct file", address=ptr)
        try:
            if epoll_fops is not None and int(file.f_op) == epoll_fops:
                ep = int(file.private_data)
                f.add_object(prog.type("struct eventpoll"), ep, "files",
                             f"task {pid} fd {i} eventpoll")
            mapping = int(file.f_mapping)
            if mapping:
                f.add_object(prog.type("struct address_space"), mapping,
                             "files", f"task {pid} fd {i} mapping")
        except _drgn().FaultError:
            continue


# --- vmalloc's per-node trees (6.9 on) ------------------------------------

def find_vmap_nodes(f: Finder) -> int:
    prog = f.prog
    try:
        nodes, count = prog["vmap_nodes"], int(prog["nr_vmap_nodes"])
    except KeyError:
        return 0
    if not 0 < count <= 4096:
        raise KernelError(f"nr_vmap_nodes is {count}: not a count to trust")
    node_t = prog.type("struct vmap_node")
    base = int(nodes.value_())
    for i in range(count):
        f.add_object(node_t, base + i * node_t.size, "vmap_nodes",
                     f"vmap_nodes[{i}]")
    return count


# --- the inspector's trees ------------------------------------------------

def find_module(f: Finder, args) -> int:
    """The rbtree_inspector's trees as ``--preset inspector`` reads them
    (0 if the module is not loaded or its debug info not found)."""
    from .presets import preset_inspector
    try:
        specs = preset_inspector(f.prog, args)
    except (KernelError, KeyError, LookupError):
        return 0
    for spec in specs:
        root = spec.root_slot
        f.add("rbti_tree.root", "module", f"rbtree_inspector {spec.name}",
              root, spec.leftmost_slot is not None, root, spec)
        if spec.copy1_slot is not None:
            f.claim(spec.copy1_slot, "module")
        f.found[root].spec = spec
    return len(specs)
