# SPDX-License-Identifier: GPL-2.0
"""Nodes checked per second: the census against drgn's validate_rbtree().

On the same trees, one after the other in the same boot: the census's
read of each (two reads that agree, then every check: order across the
whole tree, caches, augments, structure) and drgn's
``validate_rbtree()`` (one read through drgn Objects, each child compared
with its parent only).  The kinds are those whose key drgn can compare
with a field of the entry.
"""

import time

from .census import run_census
from .census_read import Specs, read_census_tree
from .debuginfo import _drgn

COMPARED = {
    "kernfs_elem_dir.children": ("struct kernfs_node", "rb", "hash", True),
    "timerqueue_head.rb_root": ("struct timerqueue_node", "node", "expires",
                             True),
    "vmap_area_root": ("struct vmap_area", "rb_node", "va_start", False),
    "free_vmap_area_root": ("struct vmap_area", "rb_node", "va_start",
                            False),
    "rb_list.root": ("struct vmap_area", "rb_node", "va_start", False),
}
"""Kind -> (entry type, rb_node member, key field, equal keys legal)."""


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


def compare(prog, mem, args, limit: float = 20.0) -> dict:
    """Time both over the trees of :data:`COMPARED` (at most *limit*
    seconds each); returns nodes, seconds and nodes/s of each."""
    args.kind = list(COMPARED)
    args.time_limit = limit
    c = run_census(prog, mem, args, finder=None)
    # (--kind selects by part of a name: vmap_area_root picks
    # purge_vmap_area_root too, which drgn is not given a key for.)
    insts = [(i, o.nodes) for i, o in c.results
             if o.state == "ok" and i.kind in COMPARED]
    specs = Specs(prog, mem)
    t0, ours = time.monotonic(), 0
    for inst, _ in insts:
        ours += read_census_tree(mem, specs.spec(inst)).nodes
    t_ours = time.monotonic() - t0
    from drgn.helpers import ValidationError
    t0, theirs = time.monotonic(), 0
    for inst, nodes in insts:
        try:
            _drgn_check(prog, inst)
            theirs += nodes
        except (ValueError, _drgn().FaultError, ValidationError):
            pass            # changed under drgn's single read
    t_theirs = time.monotonic() - t0
    return {"trees": len(insts), "census_nodes": ours,
            "census_seconds": t_ours,
            "census_rate": ours / t_ours if t_ours else 0.0,
            "drgn_nodes": theirs, "drgn_seconds": t_theirs,
            "drgn_rate": theirs / t_theirs if t_theirs else 0.0}


def lines(got: dict) -> list:
    return [f"{got['trees']} trees: census {got['census_nodes']} nodes in "
            f"{got['census_seconds']:.2f}s ({got['census_rate']:.0f} "
            f"nodes/s); drgn validate_rbtree {got['drgn_nodes']} nodes in "
            f"{got['drgn_seconds']:.2f}s ({got['drgn_rate']:.0f} nodes/s)"]

