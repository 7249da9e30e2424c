# SPDX-License-Identifier: GPL-2.0
"""The kernel trees rbti knows how to read, as :class:`~.walk.TreeSpec`."""

from typing import Callable

from . import KernelError
from .debuginfo import DrgnType, _drgn, module_object, unalias
from ..dump import FLAG_ORDER
from . import census_kinds as kinds
from .census_kinds import Unfit, order_spec
from .walk import ROOT_TYPES, Layout, TreeSpec, s64, u64


def _cached_root(obj):
    """(&root.rb_node, &leftmost or None) of a root object (or a pointer
    to one) of a type of :data:`~.walk.ROOT_TYPES`."""
    drgn = _drgn()
    if unalias(obj.type_).kind == drgn.TypeKind.POINTER:
        obj = obj[0]
    t = unalias(obj.type_)
    if t.kind != drgn.TypeKind.STRUCT or t.tag not in ROOT_TYPES:
        raise KernelError(f"root is a {t.type_name()}, not struct "
                          + ", struct ".join(ROOT_TYPES))
    if ROOT_TYPES[t.tag]:
        return (obj.rb_root.rb_node.address_, obj.rb_leftmost.address_)
    return obj.rb_node.address_, None


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


# vmalloc's busy areas: one tree (6.1), or one per vmap node (6.9 on:
# vmap_nodes[0 .. nr_vmap_nodes - 1].busy.root). More nodes than this is
# no kernel's: the read stops rather than trust a wild count.
MAX_VMAP_NODES = 4096


def _order(prog, build):
    """A census kind's order (:mod:`.census_kinds`: the one table of how a
    kernel tree is keyed and augmented) and its entries' Layout."""
    try:
        order = build(prog)
    except Unfit as e:
        raise KernelError(f"not a kernel this preset knows: {e}") from None
    return order, make_layout(prog, order.entry, order.node)


def preset_vmap(prog, args) -> list:
    order, lay = _order(prog, kinds.vmap_busy)
    try:
        root, _ = _cached_root(prog["vmap_area_root"])
        return [order_spec(order, lay, "vmap_area", root)]
    except KeyError:
        pass
    try:
        nodes, count = prog["vmap_nodes"], int(prog["nr_vmap_nodes"])
    except KeyError:
        raise KernelError("neither vmap_area_root nor vmap_nodes: not a "
                          "vmalloc this preset knows") from None
    if not 0 < count <= MAX_VMAP_NODES:
        raise KernelError(f"nr_vmap_nodes is {count}: not a count to "
                          "trust")
    out = []
    for i in range(count):
        root, _ = _cached_root(nodes[i].busy.root)
        out.append(order_spec(order, lay, f"vmap_area/node{i}", root))
    return out


def preset_free_vmap(prog, args) -> list:
    order, lay = _order(prog, kinds.vmap_free)
    root, _ = _cached_root(prog["free_vmap_area_root"])
    return [order_spec(order, lay, "free_vmap_area", root)]


def _cpus(prog) -> list:
    from drgn.helpers.linux.cpumask import for_each_online_cpu
    return list(for_each_online_cpu(prog))


def preset_cfs(prog, args) -> list:
    """Every CPU's CFS runqueue, ordered as census_kinds.cfs() says (by
    vruntime before EEVDF, by deadline and augmented by min_vruntime from
    6.6 on, both relative to the runqueue's base)."""
    from drgn.helpers.linux.percpu import per_cpu
    order, lay = _order(prog, kinds.cfs)
    out = []
    for cpu in _cpus(prog):
        cfs = per_cpu(prog["runqueues"], cpu).cfs
        root, left = _cached_root(cfs.tasks_timeline)
        out.append(order_spec(order, lay, f"cfs/cpu{cpu}", root,
                              leftmost=left, container=int(cfs.address_)))
    return out


HRTIMER_BASES = ("monotonic", "realtime", "boottime", "tai",
                 "monotonic_soft", "realtime_soft", "boottime_soft",
                 "tai_soft")


def preset_hrtimer(prog, args) -> list:
    from drgn.helpers.linux.percpu import per_cpu
    # 7.x queues hrtimers on a timerqueue_linked_head (an rb_root_linked).
    linked = unalias(prog.type("struct hrtimer_clock_base")
                     .member("active").type).tag == "timerqueue_linked_head"
    order, lay = _order(prog, kinds.timerqueue_linked if linked
                        else kinds.timerqueue)
    out = []
    for cpu in _cpus(prog):
        cpu_base = per_cpu(prog["hrtimer_bases"], cpu)
        for i, base in enumerate(cpu_base.clock_base):
            root, left = _cached_root(base.active.rb_root)
            name = HRTIMER_BASES[i] if i < len(HRTIMER_BASES) else str(i)
            out.append(order_spec(order, lay, f"hrtimer/cpu{cpu}/{name}",
                                  root, leftmost=left))
    return out


def preset_kernfs(prog, args) -> list:
    from drgn.helpers.linux.kernfs import kernfs_walk
    path = args.path or "/"
    kn = kernfs_walk(prog["sysfs_root_kn"], path.strip("/"))
    if not kn:
        raise KernelError(f"no sysfs directory {path!r}")
    order, lay = _order(prog, kinds.kernfs)
    root, _ = _cached_root(kn.dir.children)
    return [order_spec(order, lay, f"kernfs:/sys/{path.strip('/')}", root)]


FLAG_BITS = FLAG_ORDER
"""RBTI_* bits of kmod/inspector.h, in bit order (the dump's flag order)."""

AUG_FIELDS = {0: ("size", "size"), 1: ("max", "max")}
"""enum rbti_aug (kmod/inspector.h) -> (the rule, the rbti_node field
that keeps it); RBTI_AUG_MAX on an interval tree is named interval-last."""


def _node_list(prog, tree) -> dict:
    """TreeSpec fields for the module's per-tree list of allocated nodes
    (kmod/inspector.h: rbti_tree.all and .nodes, rbti_node.list), or {}
    if the module's types have no such list."""
    drgn = _drgn()
    try:
        return dict(list_head=int(tree.all.address_),
                    list_off=drgn.offsetof(prog.type("struct rbti_node"),
                                           "list"),
                    nodes_slot=int(tree.nodes.address_))
    except (AttributeError, LookupError, ValueError):
        return {}


def _aug(ops, flags: frozenset) -> dict:
    """TreeSpec fields for an augmented tree's rule (none if not)."""
    if "augmented" not in flags:
        return {}
    try:
        rule, member = AUG_FIELDS[int(ops.aug)]
    except AttributeError:          # a module from before rbti_aug
        rule, member = AUG_FIELDS[0]
    except KeyError:
        raise KernelError(f"tree {ops.name.string_().decode()}: augment "
                          f"rule {int(ops.aug)} is none rbti knows") \
            from None
    name = "interval-last" if rule == "max" and "interval" in flags \
        else rule
    return dict(aug_name=name, aug=_field(member), aug_rule=rule,
                aug_value=_field("value") if rule == "max" else None)


def _family(prog, t, ops, flags: frozenset) -> dict:
    """TreeSpec fields of the rbtree family's trees (kmod/inspector.h):
    a value tree's VALUE; a latch tree's two roots (rbti_tree.latch, whose
    tree[0] the dump's node lines show) and each node's second rb_node."""
    out: dict = {"root_slot": t.root.rb_node.address_}
    if "value" in flags:
        out.update(value=_field("value"),
                   value_name=ops.value_name.string_().decode())
    if "latch" in flags:
        drgn = _drgn()
        out.update(root_slot=t.latch.tree[0].rb_node.address_,
                   copy1_slot=t.latch.tree[1].rb_node.address_,
                   copy1_off=drgn.offsetof(prog.type("struct rbti_node"),
                                           "lt.node[1]"))
    return out


def preset_inspector(prog, args) -> list:
    try:
        trees = module_object(prog, "rbti_trees")
    except KernelError as e:
        raise KernelError(f"{e}: is rbtree_inspector loaded and its .ko "
                          "found (--debug-info FILE, $RBTI_KMOD or "
                          "/lib/modules/RELEASE)?") from None
    lay = make_layout(prog, "struct rbti_node", "rb")
    out = []
    for t in trees:
        ops = t.ops
        if not ops:
            continue
        bits = int(ops.flags)
        name = ops.name.string_().decode()
        if bits >> len(FLAG_BITS):
            raise KernelError(f"tree {name}: flags {bits:#x} name a "
                              "property rbti does not know (a newer "
                              "module?)")
        flags = frozenset(f for i, f in enumerate(FLAG_BITS) if bits >> i & 1)
        listed = _node_list(prog, t)
        out.append(TreeSpec(
            name, lay, key=_field("key"), api=ops.api.string_().decode(),
            flags=flags,
            leftmost_slot=(t.leftmost.address_ if "leftmost" in flags
                           else None),
            rightmost_slot=(t.rightmost.address_ if "rightmost" in flags
                            else None),
            # The dump's count: rbti_count(), the cached count or else
            # the number of allocated nodes.
            count_slot=(t.count.address_ if "count" in flags else
                        listed.get("nodes_slot")),
            node_id=_field("id"), **_aug(ops, flags),
            **_family(prog, t, ops, flags), **listed))
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
        if rule not in ("size", "max", "min", "sum") or (
                rule != "size") != bool(vtext):
            raise KernelError("--aug-rule: size, max:EXPR, min:EXPR or "
                              "sum:EXPR")
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


