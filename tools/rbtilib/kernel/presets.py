# SPDX-License-Identifier: GPL-2.0
"""The kernel trees rbti knows how to read, as :class:`~.walk.TreeSpec`."""

from typing import Callable

from . import KernelError
from .debuginfo import DrgnMemory, DrgnType, _drgn, unalias
from .walk import Layout, TreeSpec, s64, u64


def _cached_root(obj):
    """(&root.rb_node, &leftmost or None) of an rb_root[_cached] object."""
    drgn = _drgn()
    if unalias(obj.type_).kind == drgn.TypeKind.POINTER:
        obj = obj[0]
    tname = unalias(obj.type_).type_name()
    if tname == "struct rb_root_cached":
        return (obj.rb_root.rb_node.address_, obj.rb_leftmost.address_)
    if tname == "struct rb_root":
        return obj.rb_node.address_, None
    raise KernelError(f"root is a {tname}, not struct rb_root or "
                      "struct rb_root_cached")


def make_layout(prog, entry: str, member: str) -> Layout:
    """The Layout of *entry* (a type name) linked through *member*."""
    drgn = _drgn()
    try:
        etype = prog.type(entry)
    except LookupError as e:
        raise KernelError(f"no type {entry!r}: {e}") from None
    rbn = prog.type("struct rb_node")
    try:
        node_off = drgn.offsetof(etype, member)
    except (LookupError, ValueError) as e:
        raise KernelError(f"{entry} has no member {member!r}: {e}") from None
    return Layout(DrgnType(etype), node_off,
                  drgn.offsetof(rbn, "__rb_parent_color"),
                  drgn.offsetof(rbn, "rb_right"),
                  drgn.offsetof(rbn, "rb_left"))


def _field(name: str) -> Callable:
    parts = name.split(".")

    def get(e, ctx):
        for part in parts:
            e = getattr(e, part)
        return e
    return get


def preset_vmap(prog, args) -> list:
    lay = make_layout(prog, "struct vmap_area", "rb_node")
    root, _ = _cached_root(prog["vmap_area_root"])
    return [TreeSpec("vmap_area", lay, root, _field("va_start"))]


def preset_free_vmap(prog, args) -> list:
    # mm/vmalloc.c: RB_DECLARE_CALLBACKS_MAX(..., subtree_max_size, va_size)
    # with va_size(va) = va_end - va_start (bytes, in 6.1).
    lay = make_layout(prog, "struct vmap_area", "rb_node")
    root, _ = _cached_root(prog["free_vmap_area_root"])
    return [TreeSpec("free_vmap_area", lay, root, _field("va_start"),
                     aug_name="subtree_max_size",
                     aug=_field("subtree_max_size"), aug_rule="max",
                     aug_value=lambda e, c: e.va_end - e.va_start)]


def _cpus(prog) -> list:
    from drgn.helpers.linux.cpumask import for_each_online_cpu
    return list(for_each_online_cpu(prog))


def preset_cfs(prog, args) -> list:
    from drgn.helpers.linux.percpu import per_cpu
    lay = make_layout(prog, "struct sched_entity", "run_node")
    mem = DrgnMemory(prog)
    out = []
    for cpu in _cpus(prog):
        cfs = per_cpu(prog["runqueues"], cpu).cfs
        root, left = _cached_root(cfs.tasks_timeline)
        minv = cfs.min_vruntime.address_
        # fair.c orders by (s64)(a->vruntime - b->vruntime) < 0: the key
        # is vruntime relative to the queue's min_vruntime, as s64.
        out.append(TreeSpec(
            f"cfs/cpu{cpu}", lay, root,
            lambda e, c: s64(e.vruntime - c), flags=frozenset({"dup",
                                                               "leftmost"}),
            leftmost_slot=left,
            context=lambda m=minv: mem.int(m, 8, False),
            note="key: vruntime - min_vruntime"))
    return out


HRTIMER_BASES = ("monotonic", "realtime", "boottime", "tai",
                 "monotonic_soft", "realtime_soft", "boottime_soft",
                 "tai_soft")


def preset_hrtimer(prog, args) -> list:
    from drgn.helpers.linux.percpu import per_cpu
    lay = make_layout(prog, "struct timerqueue_node", "node")
    out = []
    for cpu in _cpus(prog):
        cpu_base = per_cpu(prog["hrtimer_bases"], cpu)
        for i, base in enumerate(cpu_base.clock_base):
            root, left = _cached_root(base.active.rb_root)
            name = HRTIMER_BASES[i] if i < len(HRTIMER_BASES) else str(i)
            out.append(TreeSpec(f"hrtimer/cpu{cpu}/{name}", lay, root,
                                _field("expires"),
                                flags=frozenset({"dup", "leftmost"}),
                                leftmost_slot=left))
    return out


def preset_kernfs(prog, args) -> list:
    from drgn.helpers.linux.kernfs import kernfs_walk
    path = args.path or "/"
    kn = kernfs_walk(prog["sysfs_root_kn"], path.strip("/"))
    if not kn:
        raise KernelError(f"no sysfs directory {path!r}")
    lay = make_layout(prog, "struct kernfs_node", "rb")
    root, _ = _cached_root(kn.dir.children)
    # kernfs_sd_compare(): hash, then namespace, then name: equal hashes
    # are legal, so the tree is a dup tree on the hash.
    return [TreeSpec(f"kernfs:/sys/{path.strip('/')}", lay, root,
                     _field("hash"), flags=frozenset({"dup"}),
                     note="key: name hash")]


FLAG_BITS = ("unique", "dup", "replace", "leftmost", "rightmost", "count",
             "augmented", "outofline")
"""RBTI_* bits of kmod/inspector.h, in bit order."""


def _node_list(prog, tree) -> dict:
    """TreeSpec fields for the module's per-tree list of allocated nodes
    (kmod/inspector.h: rbti_tree.all and .nodes, rbti_node.list), or {}
    for a module built before it had one."""
    drgn = _drgn()
    try:
        return dict(list_head=int(tree.all.address_),
                    list_off=drgn.offsetof(prog.type("struct rbti_node"),
                                           "list"),
                    nodes_slot=int(tree.nodes.address_))
    except (AttributeError, LookupError, ValueError):
        return {}


def preset_inspector(prog, args) -> list:
    try:
        trees = prog["rbti_trees"]
    except KeyError:
        raise KernelError("no symbol rbti_trees: is rbtree_inspector "
                          "loaded and its .ko found (RBTI_KMOD)?") from None
    lay = make_layout(prog, "struct rbti_node", "rb")
    out = []
    for t in trees:
        ops = t.ops
        if not ops:
            continue
        bits = int(ops.flags)
        flags = frozenset(f for i, f in enumerate(FLAG_BITS) if bits >> i & 1)
        aug = "augmented" in flags
        listed = _node_list(prog, t)
        out.append(TreeSpec(
            ops.name.string_().decode(), lay, t.root.rb_node.address_,
            _field("key"), api=ops.api.string_().decode(), flags=flags,
            leftmost_slot=(t.leftmost.address_ if "leftmost" in flags
                           else None),
            rightmost_slot=(t.rightmost.address_ if "rightmost" in flags
                            else None),
            # The dump's count: rbti_count(), the cached count or else
            # the number of allocated nodes.
            count_slot=(t.count.address_ if "count" in flags else
                        listed.get("nodes_slot")),
            node_id=_field("id"), aug_name="size" if aug else None,
            aug=_field("size") if aug else None,
            aug_rule="size" if aug else None, **listed))
    return out


def preset_custom(prog, args) -> list:
    if not (args.root_expr and args.entry and args.member and args.key):
        raise KernelError("give --preset, or --root, --type, --member and "
                          "--key")
    drgn = _drgn()
    env = {"prog": prog, "drgn": drgn, "s64": s64, "u64": u64}
    try:
        from drgn.helpers.linux import percpu
        env.update(per_cpu=percpu.per_cpu)
    except ImportError:
        pass
    try:
        obj = eval(args.root_expr, env)     # noqa: S307 (the user's drgn)
    except Exception as e:  # noqa: BLE001 (any error of the expression)
        raise KernelError(f"--root {args.root_expr!r}: {e}") from None
    root, left = _cached_root(obj)
    lay = make_layout(prog, args.entry, args.member)

    def expr(text: str, what: str) -> Callable:
        try:
            code = compile(text, what, "eval")
        except SyntaxError as e:
            raise KernelError(f"{what} {text!r}: {e}") from None
        return lambda e, c: eval(code, env, {"e": e})  # noqa: S307
    aug = args.aug.split("=", 1) if args.aug else None
    rule = value = None
    if args.aug_rule:
        rule, _, vtext = args.aug_rule.partition(":")
        if rule not in ("size", "max", "sum") or (rule != "size") != bool(
                vtext):
            raise KernelError("--aug-rule: size, max:EXPR or sum:EXPR")
        value = expr(vtext, "--aug-rule") if vtext else None
    flags = {"dup" if args.dup else "unique"}
    if left is not None:
        flags.add("leftmost")
    return [TreeSpec(
        args.name or args.root_expr, lay, root, expr(args.key, "--key"),
        flags=frozenset(flags), leftmost_slot=left,
        aug_name=aug[0] if aug else None,
        aug=expr(aug[-1], "--aug") if aug else None,
        aug_rule=rule, aug_value=value)]


PRESETS = {
    "vmap_area": preset_vmap,
    "free_vmap_area": preset_free_vmap,
    "cfs": preset_cfs,
    "hrtimer": preset_hrtimer,
    "kernfs": preset_kernfs,
    "inspector": preset_inspector,
}


