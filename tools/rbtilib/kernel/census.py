# SPDX-License-Identifier: GPL-2.0
"""``rbti census``: every red-black tree found in a kernel, checked.

The roots come from :mod:`.census_find` (by route), each tree is read and
checked by :mod:`.census_read` (by the order its kind has in
:mod:`.census_kinds`, else for structure alone), and a kernfs or procfs
directory's entries that are directories give more trees as they are
read (:mod:`.census_walks`).  The result is a line per kind
(:func:`table`), a JSON document (docs/json.md) and, with ``--out``, a
dump a tree and an index page (:mod:`.census_out`).
"""

import sys
import time

from ..record import factory, record
from . import KernelError
from .census_find import (Finder, find_module, find_tasks, find_variables,
                          find_vmap_nodes)
from .census_kinds import EXPECTED, KINDS, container_type
from .census_read import (STRUCTURE, Outcome, Specs, read_census_tree,
                          read_trees)
from .census_read import empty_root  # noqa: F401 (census.empty_root)
from .census_walks import CHILDREN, find_kernfs_roots, find_proc_net

EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3


@record
class KindStats:
    """One line of the table."""

    kind: str
    routes: set = factory(set)
    trees: int = 0
    nodes: int = 0
    deepest: int = 0
    violations: int = 0
    changing: int = 0
    unreadable: int = 0
    order: str = "structure"        # 'order' if its order was checked


@record
class Census:
    """What a census found."""

    kinds: dict                     # kind -> KindStats
    results: list                   # (Instance, Outcome) per tree
    missing: dict                   # kind -> why no instance
    notes: list
    seconds: float = 0.0
    stopped: str | None = None      # why it stopped early
    not_read: int = 0               # trees found but not read
    checker: str = "python"         # c: the C core was there
    core: str = ""                  # its library, or why there is none

    def checked(self) -> dict:
        """Trees by the checker that gave their verdict: ``c``, ``python``
        (trees the C core does not read, or every tree without it) and
        ``confirmed`` (a violation the C core found, read and checked
        again by the Python checker); empty roots are in none."""
        out = {"c": 0, "python": 0, "confirmed": 0}
        for _, o in self.results:
            if o.checker:
                out["confirmed" if o.checker == "c+python" else
                    o.checker] += 1
        return out

    def disagreements(self) -> list:
        """Where the C core's violations were not the Python checker's."""
        return [o.note for _, o in self.results if o.note]

    def violations(self) -> list:
        return [(i, o) for i, o in self.results if o.state == "violation"]

    def count(self, state: str) -> int:
        """Trees read whose verdict is *state* (``changing``,
        ``unreadable``, ...)."""
        return sum(o.state == state for _, o in self.results)

    def complete(self) -> bool:
        """True if every tree found was read to a verdict: none kept
        changing, none was unreadable, none was left at the time
        limit."""
        return not (self.count("changing") or self.count("unreadable")
                    or self.not_read)

    def status(self) -> int:
        """The exit status: 1 if a tree has a violation, else 3 if the
        census is incomplete, else 0."""
        if self.violations():
            return EXIT_FAIL
        return EXIT_OK if self.complete() else EXIT_INCOMPLETE


_VARIABLES: dict = {}
"""id(prog) -> the roots the variables route found: variables do not
move, so a second census of one program does not look them up again."""


def _variables(f: Finder) -> int:
    key = id(f.prog)
    if key not in _VARIABLES:
        before = set(f.found)
        got = find_variables(f)
        _VARIABLES[key] = (got, [f.found[a] for a in f.found
                                 if a not in before and f.found[a]])
        return got
    got, insts = _VARIABLES[key]
    for i in insts:
        f.add(i.kind, i.route, i.name, i.root, i.cached, i.container)
    return got


ROUTES = (("module", find_module), ("variables", _variables),
          ("vmap_nodes", find_vmap_nodes), ("tasks", find_tasks),
          ("kernfs", find_kernfs_roots), ("procfs", find_proc_net))
"""The routes, in order: the first to find a root names its kind and
spec (the module's trees keep theirs)."""


def find(prog, mem, args, routes=None) -> Finder:
    """Every root the routes reach (a route that fails is a note)."""
    f = Finder(prog, mem)
    for name, route in routes or ROUTES:
        t0 = time.monotonic()
        try:
            got = route(f, args) if name == "module" else route(f)
        except (KernelError, LookupError, ValueError, AttributeError,
                OSError) as e:
            f.notes.append(f"route {name}: {type(e).__name__}: {e}")
            continue
        except Exception as e:  # noqa: BLE001 (a FaultError)
            if type(e).__name__ != "FaultError":
                raise
            f.notes.append(f"route {name}: {e}")
            continue
        f.notes.append(f"route {name}: {got} in "
                       f"{time.monotonic() - t0:.1f}s")
    try:
        from .census_slab import find_slab
        t0 = time.monotonic()
        got = find_slab(f)
        f.notes.append(f"route slab: {got} in {time.monotonic() - t0:.1f}s")
    except ImportError:
        pass
    except (KernelError, LookupError, ValueError, AttributeError) as e:
        f.notes.append(f"route slab: {type(e).__name__}: {e}")
    except Exception as e:  # noqa: BLE001 (a FaultError)
        if type(e).__name__ != "FaultError":
            raise
        # A page a dump left out (makedumpfile -d 31 of a 6.12 kernel).
        f.notes.append(f"route slab: {e}")
    return f


def round_robin(insts: list) -> list:
    """The first tree of each kind, then the second of each, ...: a
    census stopped by its time limit has read some trees of every kind."""
    by_kind: dict = {}
    for inst in insts:
        by_kind.setdefault(inst.kind, []).append(inst)
    out, lists = [], list(by_kind.values())
    for i in range(max((len(v) for v in lists), default=0)):
        out += [v[i] for v in lists if i < len(v)]
    return out


def route_gone(prog, inst, out: Outcome) -> Outcome:
    """A tree that reads broken or unreadable counts only if its route
    still leads to it once it has been read: an object of the slab route
    (anon_vmas, inodes) still allocated in its cache, a lock still waited
    on by the waiter it was found through (:attr:`Instance.still`).  An
    object freed while the census read it, its memory given to other
    data, is read as stable garbage; that tree changed (it went), it did
    not break."""
    if out.state not in ("violation", "unreadable"):
        return out
    if inst.still is not None and not inst.still():
        return Outcome("changing", error=f"{inst.name}: its route no "
                       "longer leads to it", reads=out.reads)
    if inst.route != "slab":
        return out
    from .census_slab import allocated
    if allocated(prog, inst.root, inst.name.split(" ", 1)[0]):
        return out
    return Outcome("changing", error=f"{inst.name}: its object was freed "
                   "while the census read it", reads=out.reads)


def _selected(kind: str, wanted: list | None) -> bool:
    return not wanted or any(w == kind or w in kind for w in wanted)


class _Progress:
    """A line on stderr, rewritten, only on a terminal."""

    def __init__(self, on: bool) -> None:
        self.on, self.last = on, 0.0

    def show(self, text: str, force: bool = False) -> None:
        now = time.monotonic()
        if self.on and (force or now - self.last > 0.3):
            self.last = now
            sys.stderr.write(f"\r\033[Kcensus: {text}")
            sys.stderr.flush()

    def done(self) -> None:
        if self.on:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()


CHUNK = 64
"""Trees taken from the queue at once (read_trees: the C core reads the
trees of a kind in one call), between two looks at the time limit."""

FIRST_READS = 4
"""Reads of a tree in the census's first pass: two that agree and, for a
violation, two more that agree on it again (read_tree's rule); a tree
that has not settled by then is read again last."""


def run_census(prog, mem, args, finder: Finder | None = None,
               progress: bool = False) -> Census:
    """Find, read and check every tree (of *args.kind*, if given) within
    *args.time_limit* seconds."""
    start = time.monotonic()
    f = finder or find(prog, mem, args)
    t0 = time.monotonic()           # the time limit is the reading's
    specs = Specs(prog, mem)
    wanted = getattr(args, "kind", None) or None
    limit = getattr(args, "time_limit", None)
    attempts = getattr(args, "attempts", 8)
    queue = round_robin([i for i in f.instances()
                         if _selected(i.kind, wanted)])
    stats: dict = {}
    results = []
    show = _Progress(progress)
    stopped = None
    pos = 0
    # A tree that changes between its first reads (kmemleak's, tens of
    # thousands of nodes, changes with every allocation) is put back, to
    # be read again with the reads left once every other tree has been:
    # one hot tree must not eat the time limit of the rest.
    first = min(attempts, FIRST_READS)
    later: list = []
    dump = bool(getattr(args, "out", None))
    done: list = []
    while pos < len(queue) or later or done:
        if not done:
            if limit and time.monotonic() - t0 > limit:
                stopped = f"time limit {limit:g}s"
                break
            if pos < len(queue):
                chunk = queue[pos:pos + CHUNK]
                pos += len(chunk)
                done = read_trees(mem, specs, chunk, first, dump, CHILDREN)
                continue
            inst, spec = later.pop(0)
            out = read_census_tree(mem, spec, attempts - first,
                                   addrs=inst.kind in CHILDREN, dump=dump)
            out.reads += first
        else:
            inst, spec, out = done.pop(0)
            if out.state == "changing" and attempts > first and \
                    spec is not None:
                later.append((inst, spec))
                continue
        out = route_gone(prog, inst, out)
        results.append((inst, out))
        st = stats.setdefault(inst.kind, KindStats(inst.kind))
        st.routes |= inst.routes
        st.trees += 1
        st.nodes += out.nodes
        st.deepest = max(st.deepest, out.height)
        st.violations += out.state == "violation"
        st.changing += out.state == "changing"
        st.unreadable += out.state == "unreadable"
        if inst.spec is not None or specs.order(inst.kind) is not None:
            st.order = "order"
        child = CHILDREN.get(inst.kind)
        # Entries are known only where the kind's order is (a tree read
        # for structure alone has rb_nodes, not entries); a tree of a
        # batch has no spec of its own, its kind's layout is the same.
        if child is not None and out.snap is not None:
            spec = spec or specs.template(inst)[0]
        if child is not None and out.snap is not None and \
                spec.layout is not STRUCTURE:
            before = len(f.found)
            child(f, inst, out.snap, spec)
            queue += [i for i in list(f.found.values())[before:]
                      if i is not None and _selected(i.kind, wanted)]
        if show.on:
            show.show(f"{len(results)}/{len(queue)} trees, "
                      f"{sum(s.nodes for s in stats.values())} nodes, "
                      f"{time.monotonic() - t0:.1f}s")
    show.done()
    missing = _missing(prog, stats, specs, f, wanted)
    from .ccore import library
    lib, core = library()
    c = Census(stats, results, missing, f.notes + [
        f"{k}: structure only: {why}" for k, why in specs.unfit.items()],
        time.monotonic() - start, stopped,
        len(queue) - pos + len(later) + len(done),
        "c" if lib is not None else "python", core)
    n = c.checked()
    c.notes.append(f"checker: {c.checker} ({core}): {n['c']} trees by the "
                   f"C core, {n['python']} by the Python checker, "
                   f"{n['confirmed']} violations found by the C core and "
                   "checked again by the Python checker")
    c.notes += [f"checkers disagree: {d}" for d in c.disagreements()]
    return c


def _missing(prog, stats: dict, specs: Specs, f: Finder,
             wanted) -> dict:
    """Why each kind of the table had no tree: the container type is not
    in the debug info (its config off), or none was allocated where the
    routes look; roots found in unions are skipped, not read."""
    out = {}
    for kind in KINDS:
        if kind in stats or not _selected(kind, wanted):
            continue
        ctype = container_type(kind)
        if ctype is not None:
            try:
                prog.type(ctype)
            except LookupError:
                cfg = EXPECTED.get(kind)
                out[kind] = (f"config off: no {ctype} in the debug info"
                             + (f" ({cfg})" if cfg else ""))
                continue
        elif kind not in _symbols(prog):
            out[kind] = "not in this kernel (no such variable)"
            continue
        out[kind] = "none allocated (no instance where the routes look)"
    for kind, why in f.skipped.items():
        if kind not in stats and _selected(kind, wanted):
            out.setdefault(kind, f"no route: {why}")
    return out


def _symbols(prog) -> set:
    names = set()
    for kind in KINDS:
        if "." not in kind:
            try:
                prog.symbol(kind)
                names.add(kind)
            except LookupError:
                pass
    return names


def table(c: Census) -> str:
    """The table: a line per kind, then the kinds with no tree."""
    head = ("kind", "routes", "trees", "nodes", "deepest", "violations",
            "changing", "unreadable", "checks")
    rows = [head]
    for st in sorted(c.kinds.values(), key=lambda s: (-s.trees, s.kind)):
        rows.append((st.kind, ",".join(sorted(st.routes)), str(st.trees),
                     str(st.nodes), str(st.deepest), str(st.violations),
                     str(st.changing), str(st.unreadable), st.order))
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) if i < 2 else cell.rjust(w)
                       for i, (cell, w) in enumerate(zip(r, widths))
                       ).rstrip() for r in rows]
    trees = sum(s.trees for s in c.kinds.values())
    nodes = sum(s.nodes for s in c.kinds.values())
    bad = len(c.violations())
    lines.append(f"{len(c.kinds)} kinds, {trees} trees, {nodes} nodes, "
                 f"{bad} with a violation, in {c.seconds:.1f}s"
                 + (f"; stopped at the {c.stopped}: {c.not_read} trees "
                    "found and not read" if c.stopped else ""))
    if not c.complete():
        lines.append(f"incomplete: {c.count('changing')} trees kept "
                     f"changing, {c.count('unreadable')} could not be "
                     f"read, {c.not_read} not read")
    for kind, why in sorted(c.missing.items()):
        lines.append(f"no tree of {kind}: {why}")
    return "\n".join(lines) + "\n"


def blame_lines(c: Census, limit: int = 10) -> list:
    """``TREE (KIND, ROUTE): fail CLASS node N: ... [ADDRESS]`` lines."""
    out = []
    for inst, res in c.violations():
        addr = {i: a for a, i in res.ids.items()}
        for v in res.violations[:limit]:
            where = addr.get(v.node)
            out.append(f"{inst.name} ({inst.kind}, {inst.route}): {v}"
                       + (f" [{where:#x}]" if where is not None else ""))
    return out
