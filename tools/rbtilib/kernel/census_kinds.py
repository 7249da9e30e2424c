# SPDX-License-Identifier: GPL-2.0
"""The kinds of tree ``rbti census`` knows the order of.

A *kind* is where a root lives: the innermost named struct holding a
``struct rb_root``, ``rb_root_cached`` or ``rb_root_linked`` (7.x) and
the member's path in it
(``cfs_rq.tasks_timeline``, ``timerqueue_head.rb_root``), or for a root that
is a variable of its own, the variable's name (``vmap_area_root``).  Every
tree of every kind gets the structure checks (colours, black height,
parent links, no cycle or shared node, the leftmost cache); a kind of
:data:`KINDS` also names its entry type and rb_node member, its key (read
from the entry, compared as the kernel's comparison function does), the
duplicates rule and the augment rule, and so gets key order and augments
checked too.

The entry's fields are read from the running kernel's own debug info, so
one table serves 6.1 and 6.12; where the two lay an entry out differently
(the rt_mutex waiters, the EEVDF runqueue) the builder picks by the
members that exist.  A builder raises :class:`Unfit` when the kernel's
types are not the ones it knows: the kind is then checked for structure
only, and the census says why.

Keys may be tuples (a name, a file and a descriptor): the census compares
them as tuples and writes their dense rank into the dump, which keeps the
order and the ties of the real keys.  Keys and augments are expressions
(:mod:`.expr`), which the Python walk calls and the C core compiles
(:mod:`.ccore`), so each is written once for both.
"""

from ..record import record
from .expr import (Base, Bytes, Const, Expr, Get, IfNeg, Load, S64,
                   Tuple)
from .walk import Layout, TreeSpec


class Unfit(Exception):
    """The kernel's types are not those a kind's builder knows."""


@record
class Order:
    """How a kind's trees are ordered: what :class:`~.walk.TreeSpec` takes
    beyond the root.  *base*: the offset in the container of the u64
    that keys are relative to (a runqueue's min_vruntime), read once per
    snapshot as ``ctx.base`` (:class:`~.expr.Base`)."""

    entry: str                      # the entry type
    node: str                       # its rb_node member (a path)
    key: Expr                       # (entry, ctx) -> int or tuple
    dup: bool = True
    aug_name: str | None = None
    aug: Expr | None = None         # (entry, ctx) -> stored value
    aug_rule: str | None = None     # 'max' | 'min'
    aug_value: Expr | None = None
    aug_value_name: str | None = None   # the dump's name of aug_value
    base: int | None = None
    note: str = ""
    hex: frozenset = frozenset()


class Ctx:
    """What a key reads beyond its entry: the memory, and the container's
    base value where the kernel compares relative to one."""

    __slots__ = ("mem", "base")

    def __init__(self, mem, base: int = 0) -> None:
        self.mem, self.base = mem, base


def order_spec(order: Order, layout: Layout, name: str, root: int, *,
               leftmost: int | None = None,
               container: int | None = None) -> TreeSpec:
    """The :class:`~.walk.TreeSpec` of one tree of a kind ordered by
    *order*: its root slot (``&root.rb_node``), its leftmost cache slot
    where its root is an ``rb_root_cached``, and the address of the struct
    holding the root where the order reads a base there.  The census and
    ``rbti kernel``'s presets both build their trees here."""
    base = container + order.base \
        if order.base is not None and container is not None else None
    # (mem: the pass's reader, so that a key's reads beyond its entry
    # are the pass's too.)
    context = ((lambda mem: Ctx(mem, mem.int(base, 8, False)))
               if base is not None else Ctx)
    flags = {"dup" if order.dup else "unique"}
    if leftmost is not None:
        flags.add("leftmost")
    return TreeSpec(name, layout, root, order.key, flags=frozenset(flags),
                    leftmost_slot=leftmost, aug_name=order.aug_name,
                    aug=order.aug, aug_rule=order.aug_rule,
                    aug_value=order.aug_value,
                    aug_value_name=order.aug_value_name, context=context,
                    base_slot=base, note=order.note, hex=order.hex)


def _has(prog, type_name: str, member: str) -> bool:
    try:
        return prog.type(type_name).has_member(member)
    except (LookupError, ValueError):
        return False


def _need(prog, type_name: str, *members: str) -> None:
    for member in members:
        if not _has(prog, type_name, member):
            raise Unfit(f"{type_name} has no member {member}")


def _get(path: str) -> Get:
    """The entry's field at *path*: the walk reads it at its offset."""
    return Get(path)


def _offset(prog, type_name: str, member: str) -> int:
    from .debuginfo import _drgn
    return _drgn().offsetof(prog.type(type_name), member)


# --- the scheduler -----------------------------------------------------

def cfs(prog) -> Order:
    """cfs_rq.tasks_timeline: by vruntime (6.1) or by deadline with
    min_vruntime as the augment (EEVDF, 6.6 on), both relative to the
    runqueue's base, since the clocks wrap (see presets.preset_cfs)."""
    _need(prog, "struct sched_entity", "run_node", "vruntime")
    eevdf = _has(prog, "struct sched_entity", "min_vruntime") and \
        _has(prog, "struct sched_entity", "deadline")
    base = next((m for m in ("min_vruntime", "zero_vruntime")
                 if _has(prog, "struct cfs_rq", m)), None)
    base_off = _offset(prog, "struct cfs_rq", base) if base else None
    order = "deadline" if eevdf else "vruntime"
    aug = {}
    if eevdf:
        aug = dict(aug_name="min_vruntime", aug_rule="min",
                   aug=S64(_get("min_vruntime") - Base()),
                   aug_value=S64(_get("vruntime") - Base()),
                   aug_value_name="vruntime")
    return Order("struct sched_entity", "run_node",
                 S64(_get(order) - Base()),
                 base=base_off, note=f"key: {order} - {base or '0'}",
                 **aug)


def dl_root(prog) -> Order:
    """dl_rq.root: by absolute deadline (dl_time_before(): signed)."""
    _need(prog, "struct sched_dl_entity", "rb_node", "deadline")
    return Order("struct sched_dl_entity", "rb_node",
                 S64(_get("deadline")), note="key: deadline")


def dl_pushable(prog) -> Order:
    """dl_rq.pushable_dl_tasks_root: tasks by their dl.deadline."""
    _need(prog, "struct task_struct", "pushable_dl_tasks", "dl")
    return Order("struct task_struct", "pushable_dl_tasks",
                 S64(_get("dl.deadline")), note="key: dl.deadline")


# --- rt_mutex waiters ----------------------------------------------------

def _waiter(prog, which: str) -> Order:
    """rt_waiter_node_less(): by prio, then (a deadline task, prio < 0)
    by deadline.  6.1 keeps prio/deadline in the waiter and its rb_nodes
    as tree_entry/pi_tree_entry; 6.12 in struct rt_waiter_node tree and
    pi_tree (entry, prio, deadline)."""
    w = "struct rt_mutex_waiter"
    if _has(prog, w, which):                       # 6.12
        node, prio, dl = f"{which}.entry", f"{which}.prio", \
            f"{which}.deadline"
    elif _has(prog, w, f"{which}_entry"):          # 6.1
        node, prio, dl = f"{which}_entry", "prio", "deadline"
    else:
        raise Unfit(f"{w} has neither {which} nor {which}_entry")
    key = Tuple(_get(prio), IfNeg(_get(prio), S64(_get(dl)), Const(0)))
    return Order(w, node, key, note="key: prio, then deadline if prio < 0")


def pi_waiters(prog) -> Order:
    return _waiter(prog, "pi_tree")


def mutex_waiters(prog) -> Order:
    return _waiter(prog, "tree")


# --- timers, vmalloc, kernfs, procfs -------------------------------------

def timerqueue(prog) -> Order:
    """timerqueue_head.rb_root: by expiry (ktime_t), equal ones after."""
    _need(prog, "struct timerqueue_node", "node", "expires")
    return Order("struct timerqueue_node", "node", _get("expires"),
                 note="key: expires")


def timerqueue_linked(prog) -> Order:
    """timerqueue_linked_head.rb_root (7.x's hrtimers): by expiry, equal
    ones after; an rb_root_linked, whose leftmost cache the structure
    checks cover (its prev/next thread of the nodes is not read)."""
    _need(prog, "struct timerqueue_linked_node", "node", "expires")
    _need(prog, "struct rb_node_linked", "node")
    return Order("struct timerqueue_linked_node", "node.node",
                 _get("expires"), note="key: expires")


def vmap_busy(prog) -> Order:
    """A tree of busy vmap areas (vmap_area_root on 6.1, rb_list.root of
    vmap_nodes[] on 6.12): by start address, unique."""
    _need(prog, "struct vmap_area", "rb_node", "va_start")
    return Order("struct vmap_area", "rb_node", _get("va_start"), dup=False,
                 note="key: va_start", hex=frozenset({"key"}))


def vmap_free(prog) -> Order:
    """free_vmap_area_root: by start address, augmented by the largest
    free size below (RB_DECLARE_CALLBACKS_MAX with va_size())."""
    _need(prog, "struct vmap_area", "rb_node", "va_start",
          "subtree_max_size")
    return Order("struct vmap_area", "rb_node", _get("va_start"), dup=False,
                 aug_name="subtree_max_size", aug=_get("subtree_max_size"),
                 aug_rule="max", aug_value=_get("va_end") - _get("va_start"),
                 aug_value_name="va_size",
                 note="key: va_start; aug: max of va_end - va_start",
                 hex=frozenset({"key", "aug"}))


def kernfs(prog) -> Order:
    """kernfs_elem_dir.children: by name hash, then namespace and name
    (kernfs_sd_compare()); only the hash is read, so ties are legal."""
    _need(prog, "struct kernfs_node", "rb", "hash")
    return Order("struct kernfs_node", "rb", _get("hash"),
                 note="key: name hash (ties broken by namespace, name)")


def proc_subdir(prog) -> Order:
    """proc_dir_entry.subdir: proc_match(): by name length, then bytes."""
    _need(prog, "struct proc_dir_entry", "subdir_node", "name", "namelen")
    return Order("struct proc_dir_entry", "subdir_node",
                 Tuple(_get("namelen"), Bytes(_get("name"), _get("namelen"))),
                 dup=False, note="key: name length, then name")


def bdi(prog) -> Order:
    _need(prog, "struct backing_dev_info", "rb_node", "id")
    return Order("struct backing_dev_info", "rb_node", _get("id"),
                 dup=False, note="key: id")


# --- epoll and the mm's interval trees -----------------------------------

def epoll(prog) -> Order:
    """eventpoll.rbr: ep_cmp_ffd(): by file pointer, then descriptor."""
    _need(prog, "struct epitem", "rbn", "ffd")
    return Order("struct epitem", "rbn",
                 Tuple(_get("ffd.file"), _get("ffd.fd")), dup=False,
                 note="key: file, fd")


PAGE_SHIFT = 12


def _vma_fields(prog) -> tuple:
    _need(prog, "struct vm_area_struct", "vm_pgoff", "vm_start", "vm_end")
    return tuple(_offset(prog, "struct vm_area_struct", m)
                 for m in ("vm_pgoff", "vm_start", "vm_end"))


def i_mmap(prog) -> Order:
    """address_space.i_mmap: the vmas mapping a file, an interval tree on
    [vm_pgoff, vm_pgoff + pages - 1] with shared.rb_subtree_last."""
    _need(prog, "struct vm_area_struct", "shared")
    _vma_fields(prog)

    last = _get("vm_pgoff") + \
        ((_get("vm_end") - _get("vm_start")) >> PAGE_SHIFT) - 1
    return Order("struct vm_area_struct", "shared.rb", _get("vm_pgoff"),
                 aug_name="rb_subtree_last",
                 aug=_get("shared.rb_subtree_last"), aug_rule="max",
                 aug_value=last,
                 note="interval tree: vm_pgoff .. last page; aug: max last")


def _anon_pgoff(prog) -> Expr:
    """vma_start_anon_pgoff() (7.x): a vma's anonymous page offset, kept
    apart from vm_pgoff as two 32-bit halves, __vm_anon_pgoff_hi << 32
    plus __vm_anon_pgoff_lo.  The walk's expressions have no left shift:
    hi << 32 is the 8 bytes that end with hi, less their low 4 bytes
    (both loads lie inside the vma: hi is not its first member)."""
    _need(prog, "struct vm_area_struct", "__vm_anon_pgoff_hi")
    vma = _get("vma")
    lo = _offset(prog, "struct vm_area_struct", "__vm_anon_pgoff_lo")
    hi = _offset(prog, "struct vm_area_struct", "__vm_anon_pgoff_hi")
    if hi < 4:
        raise Unfit("vm_area_struct.__vm_anon_pgoff_hi is its first member")
    return Load(vma, hi - 4) - Load(vma, hi - 4, 4) + Load(vma, lo, 4)


def anon_vma(prog) -> Order:
    """anon_vma.rb_root: anon_vma_chains, an interval tree on their vma's
    pages (avc_start_pgoff(), avc_last_pgoff()), with rb_subtree_last."""
    _need(prog, "struct anon_vma_chain", "rb", "vma", "rb_subtree_last")
    pgoff, start, end = (Load(_get("vma"), off)
                         for off in _vma_fields(prog))
    if _has(prog, "struct vm_area_struct", "__vm_anon_pgoff_lo"):
        pgoff = _anon_pgoff(prog)
    return Order("struct anon_vma_chain", "rb", pgoff,
                 aug_name="rb_subtree_last", aug=_get("rb_subtree_last"),
                 aug_rule="max",
                 aug_value=pgoff + ((end - start) >> PAGE_SHIFT) - 1,
                 note="interval tree: the vma's pages; aug: max last")


# --- kmemleak --------------------------------------------------------------

def kmemleak(prog) -> Order:
    """kmemleak's object trees (object_tree_root, and object_phys_ and
    object_percpu_tree_root): __link_object() puts an object left of one
    it ends before and right of one it starts after, so the objects are
    in order of their start, ``pointer``; one of size 0 may start where
    another does, so equal keys are legal."""
    _need(prog, "struct kmemleak_object", "rb_node", "pointer")
    return Order("struct kmemleak_object", "rb_node", _get("pointer"),
                 note="key: pointer", hex=frozenset({"key"}))


KINDS = {
    "cfs_rq.tasks_timeline": cfs,
    "dl_rq.root": dl_root,
    "dl_rq.pushable_dl_tasks_root": dl_pushable,
    "task_struct.pi_waiters": pi_waiters,
    "rt_mutex_base.waiters": mutex_waiters,
    "timerqueue_head.rb_root": timerqueue,
    "timerqueue_linked_head.rb_root": timerqueue_linked,
    "vmap_area_root": vmap_busy,
    "purge_vmap_area_root": vmap_busy,
    "rb_list.root": vmap_busy,
    "free_vmap_area_root": vmap_free,
    "kernfs_elem_dir.children": kernfs,
    "proc_dir_entry.subdir": proc_subdir,
    "bdi_tree": bdi,
    "eventpoll.rbr": epoll,
    "address_space.i_mmap": i_mmap,
    "anon_vma.rb_root": anon_vma,
    "object_tree_root": kmemleak,
    "object_phys_tree_root": kmemleak,
    "object_percpu_tree_root": kmemleak,
}
"""Kind -> builder ``(prog) -> Order`` (raises :class:`Unfit`)."""

EXPECTED = {
    "task_struct.pi_waiters": "CONFIG_RT_MUTEXES",
    "rt_mutex_base.waiters": "CONFIG_RT_MUTEXES",
    "eventpoll.rbr": "CONFIG_EPOLL",
    "address_space.i_mmap": "CONFIG_MMU",
    "anon_vma.rb_root": "CONFIG_MMU",
    "bdi_tree": "CONFIG_BLOCK",
    "proc_dir_entry.subdir": "CONFIG_PROC_FS",
    "kernfs_elem_dir.children": "CONFIG_SYSFS",
    "object_tree_root": "CONFIG_DEBUG_KMEMLEAK",
    "object_phys_tree_root": "CONFIG_DEBUG_KMEMLEAK",
    "object_percpu_tree_root": "CONFIG_DEBUG_KMEMLEAK",
}
"""The config option a kind needs, for the census's "why none"."""


def container_type(kind: str) -> str | None:
    """The struct type a kind's roots live in (None: a variable)."""
    return f"struct {kind.split('.', 1)[0]}" if "." in kind else None
