# SPDX-License-Identifier: GPL-2.0
"""Nodes checked per second: the census against drgn's validate_rbtree().

On the same trees, one after the other in the same boot (or core file):
the census's read of each, as run_census reads them (a NULL root in one
read; else two reads that agree, then every check: order across the
whole tree, caches, augments, structure; by the C core where there is
one, the trees of a kind in one call) and drgn's ``validate_rbtree()``
(one read through drgn Objects, each child compared with its parent
only), and the Python checker's read for reference.  The kinds are those whose key drgn can
compare with a field of the entry; the trees go by size into
:data:`CLASSES`, each class timed on its own, each checker starting with
a memory of its own (no page the census cached before).  The census's
C core and Python checker are also compared on every tree
(:mod:`.census_agree`).
"""

import time

from .census import CHUNK, run_census
from .census_read import Specs, read_python_tree, read_trees
from .census_walks import CHILDREN
from .debuginfo import _drgn

COMPARED = {
    "kernfs_elem_dir.children": ("struct kernfs_node", "rb", "hash", True),
    "timerqueue_head.rb_root": ("struct timerqueue_node", "node", "expires",
                             True),
    "vmap_area_root": ("struct vmap_area", "rb_node", "va_start", False),
    "free_vmap_area_root": ("struct vmap_area", "rb_node", "va_start",
                            False),
    "rb_list.root": ("struct vmap_area", "rb_node", "va_start", False),
    "object_tree_root": ("struct kmemleak_object", "rb_node", "pointer",
                         True),
    "object_phys_tree_root": ("struct kmemleak_object", "rb_node",
                              "pointer", True),
    "object_percpu_tree_root": ("struct kmemleak_object", "rb_node",
                                "pointer", True),
}
"""Kind -> (entry type, rb_node member, key field, equal keys legal)."""

CLASSES = (("<= 16", 0, 16), ("17-1000", 17, 1000), ("> 1000", 1001, None))
"""Size classes: (label, fewest nodes, most nodes or None)."""


def _drgn_check(prog, inst) -> None:
    """drgn's validate_rbtree() on *inst*'s tree."""
    from drgn.helpers.linux.rbtree import validate_rbtree
    drgn = _drgn()
    entry, member, field, dup = COMPARED[inst.kind]
    root = drgn.Object(prog, "struct rb_root", address=inst.root).address_of_()

    def cmp(a, b) -> int:
        x, y = getattr(a, field).value_(), getattr(b, field).value_()
        return (x > y) - (x < y)
    # validate_rbtree(type, root: struct rb_root *, member, cmp, allow_equal)
    validate_rbtree(entry, root, member, cmp, dup)


def _fresh(prog, mem):
    """A memory of its own (the C core's page cache is a memory's)."""
    return type(mem)(prog) if hasattr(mem, "prog") else mem


def measure(prog, mem, insts: list, only: str | None = None) -> dict:
    """One timing of the census, the Python checker and drgn over
    *insts* ((Instance, nodes) pairs); *only*: of that one."""
    from drgn.helpers import ValidationError
    out = {}
    trees = [inst for inst, _ in insts]
    for name in ("census", "python"):
        if only not in (None, name):
            continue
        m = _fresh(prog, mem)
        specs = Specs(prog, m)
        t0, nodes = time.monotonic(), 0
        if name == "census":
            # As the census reads them (run_census): a chunk at a time.
            for at in range(0, len(trees), CHUNK):
                for _, _, got in read_trees(m, specs, trees[at:at + CHUNK],
                                            dump=False, addrs=CHILDREN):
                    nodes += got.nodes
        else:
            for inst in trees:
                nodes += read_python_tree(m, specs.spec(inst)).nodes
        out[f"{name}_nodes"] = nodes
        out[f"{name}_seconds"] = time.monotonic() - t0
    if only is not None:
        return out
    t0, theirs = time.monotonic(), 0
    for inst, nodes in insts:
        try:
            _drgn_check(prog, inst)
            theirs += nodes
        except (ValueError, _drgn().FaultError, ValidationError):
            pass            # changed under drgn's single read
    out["drgn_nodes"], out["drgn_seconds"] = theirs, time.monotonic() - t0
    for name in ("census", "python", "drgn"):
        secs = out[f"{name}_seconds"]
        out[f"{name}_rate"] = out[f"{name}_nodes"] / secs if secs else 0.0
    return out


def compare(prog, mem, args, limit: float = 20.0, repeats: int = 1,
            agree: bool = True) -> dict:
    """Time the census, the Python checker and drgn over the trees of
    :data:`COMPARED` (read within *limit* seconds), class by class,
    *repeats* times: the first timing is the figure, the others its
    spread.  Returns the totals of the first (trees, nodes, seconds and
    nodes/s of each), ``classes`` (each with ``runs``, one dict a
    repeat) and ``agree`` (:class:`.census_agree.Agreement` as a dict)."""
    args.kind = list(COMPARED)
    args.time_limit = limit
    c = run_census(prog, mem, args, finder=None)
    # (--kind selects by part of a name: vmap_area_root picks
    # purge_vmap_area_root too, which drgn is not given a key for.)
    insts = [(i, o.nodes) for i, o in c.results
             if o.state == "ok" and i.kind in COMPARED]
    classes = []
    for label, lo, hi in CLASSES:
        group = [(i, n) for i, n in insts if lo <= n and
                 (hi is None or n <= hi)]
        runs = [measure(prog, mem, group) for _ in range(repeats)] \
            if group else []
        classes.append({"class": label, "trees": len(group),
                        "nodes": sum(n for _, n in group), "runs": runs})
    got = {"trees": len(insts), "classes": classes, "checker": c.checker}
    for name in ("census", "python", "drgn"):
        for part in ("nodes", "seconds"):
            got[f"{name}_{part}"] = sum(k["runs"][0][f"{name}_{part}"]
                                        for k in classes if k["runs"])
        secs = got[f"{name}_seconds"]
        got[f"{name}_rate"] = got[f"{name}_nodes"] / secs if secs else 0.0
    if agree:
        from .census_agree import agree as both
        a = both(prog, mem, [r for r in c.results if r[0].kind in COMPARED])
        got["agree"] = {"trees": a.trees, "agreed": a.agreed,
                        "nodes": a.nodes, "python_only": a.python_only,
                        "differ": a.differ}
    return got


def _spread(runs: list, name: str) -> str:
    rates = sorted(r[f"{name}_rate"] for r in runs)
    return f"{rates[0]:.0f}-{rates[-1]:.0f}" if len(rates) > 1 else ""


def lines(got: dict) -> list:
    out = [f"{got['trees']} trees: census {got['census_nodes']} nodes in "
           f"{got['census_seconds']:.2f}s ({got['census_rate']:.0f} "
           f"nodes/s); drgn validate_rbtree {got['drgn_nodes']} nodes in "
           f"{got['drgn_seconds']:.2f}s ({got['drgn_rate']:.0f} nodes/s)"]
    for k in got.get("classes", []):
        if not k["runs"]:
            out.append(f"  {k['class']} nodes: no tree")
            continue
        r = k["runs"][0]
        ratio = r["census_rate"] / r["drgn_rate"] if r["drgn_rate"] else 0
        out.append(f"  {k['class']} nodes: {k['trees']} trees, {k['nodes']}"
                   f" nodes: census {r['census_rate']:.0f} nodes/s, Python "
                   f"checker {r['python_rate']:.0f}, drgn "
                   f"{r['drgn_rate']:.0f}: {ratio:.1f}x drgn" +
                   (f" (of {len(k['runs'])} runs: census "
                    f"{_spread(k['runs'], 'census')}, drgn "
                    f"{_spread(k['runs'], 'drgn')})"
                    if len(k["runs"]) > 1 else ""))
    a = got.get("agree")
    if a:
        out.append(f"  C core and Python checker agree on {a['agreed']} of "
                   f"{a['trees']} trees ({a['nodes']} nodes)"
                   + (f"; differ: {'; '.join(a['differ'][:3])}"
                      if a["differ"] else ""))
    return out


def table(got: dict) -> list:
    """The speed of each class as a markdown table."""
    out = ["| trees of | trees | nodes | census nodes/s | Python checker "
           "nodes/s | drgn validate_rbtree() nodes/s | census / drgn |",
           "| --- | --- | --- | --- | --- | --- | --- |"]
    for k in got["classes"]:
        if not k["runs"]:
            out.append(f"| {k['class']} nodes | 0 | 0 | | | | |")
            continue
        r, runs = k["runs"][0], k["runs"]

        def cell(name):
            spread = _spread(runs, name)
            return f"{r[f'{name}_rate']:.0f}" + (f" ({spread})" if spread
                                                 else "")
        ratio = r["census_rate"] / r["drgn_rate"] if r["drgn_rate"] else 0
        out.append(f"| {k['class']} nodes | {k['trees']} | {k['nodes']} | "
                   f"{cell('census')} | {cell('python')} | {cell('drgn')} | "
                   f"{ratio:.1f}x |")
    return out
