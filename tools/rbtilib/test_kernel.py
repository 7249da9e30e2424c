# SPDX-License-Identifier: GPL-2.0
"""Tests of the memory walk (rbtilib.kernel) over a fake memory: no drgn, no
kernel.  Each broken tree here is one the walk must survive and report."""

import struct

import pytest

from rbtilib import checker, kernel
from rbtilib.kernel import (commands, debuginfo, presets, stable, vmcore,
                            walk)
from rbtilib.dump import UNKNOWN, parse_dump
from tests_support.trees import CONTRACT_TREES, build_tree, corrupt_tree

# struct fake_entry { struct rb_node rb; s64 key; u64 id; u64 aug;
#                     struct list_head list; }  (as struct rbti_node)
ENTRY = walk.DictType({"key": (24, 8, True), "id": (32, 8, False),
                         "aug": (40, 8, False)})
LIST_OFF = 48
LAYOUT = walk.Layout(ENTRY, 0)
ROOT_SLOT, LEFT_SLOT = 0x1000, 0x1008
BASE, STRIDE = 0x100000, 0x40


class FakeMemory(walk.Memory):
    """Blocks of bytes at addresses; anything else faults."""

    def __init__(self) -> None:
        self.blocks: dict = {}
        self.reads = 0

    def put(self, addr: int, data: bytes) -> None:
        self.blocks[addr] = bytearray(data)

    def read(self, addr: int, size: int) -> bytes:
        self.reads += 1
        for base, data in self.blocks.items():
            if base <= addr and addr + size <= base + len(data):
                return bytes(data[addr - base:addr - base + size])
        raise kernel.Fault(addr)


def addr_of(i: int) -> int:
    return BASE + i * STRIDE


def build(shape: dict, root: int | None, leftmost: int | None = None,
          mem: FakeMemory | None = None) -> FakeMemory:
    """*shape*: i -> (key, color, parent, left, right[, aug]) with node
    numbers (None = NIL); pointers may also be raw ints via ('raw', v)."""
    mem = mem or FakeMemory()

    def ptr(ref):
        if isinstance(ref, tuple):
            return ref[1]
        return 0 if ref is None else addr_of(ref)
    for i, (key, color, parent, left, right, *aug) in shape.items():
        pc = ptr(parent) | (1 if color == "B" else 0)
        mem.put(addr_of(i), struct.pack("<QQQqQQ", pc, ptr(right),
                                        ptr(left), key, 1000 + i,
                                        aug[0] if aug else 0))
    mem.put(ROOT_SLOT, struct.pack("<QQ", ptr(root), ptr(leftmost)))
    return mem


def spec(**kw) -> walk.TreeSpec:
    base = dict(name="fake", layout=LAYOUT, root_slot=ROOT_SLOT,
                key=lambda e, c: e.key)
    base.update(kw)
    return walk.TreeSpec(**base)


# A valid 5-node tree: 20(B) / 10(B) [5 R, 15 R] , 30(B)
GOOD = {0: (20, "B", None, 1, 2), 1: (10, "B", 0, 3, 4),
        2: (30, "B", 0, None, None), 3: (5, "R", 1, None, None),
        4: (15, "R", 1, None, None)}


def read(mem, sp=None, **kw):
    """A stable read, whose dump text is the one its Tree formats to and
    parses back to (to_tree builds the Tree; nothing parses it back)."""
    res = stable.read_stable(mem, sp or spec(), **kw)
    assert parse_dump(res.text) == res.tree
    return res


def classes(res) -> list:
    return [v.cls for v in res.violations]


def test_valid_tree_round_trips_and_checks_clean():
    res = read(build(GOOD, 0))
    tree = parse_dump(res.text)
    assert res.violations == []
    assert [n.key for n in tree.nodes.values()] == [20, 10, 5, 15, 30]
    # ids are in-order positions, addresses alongside
    assert [n.id for n in tree.nodes.values()] == [3, 1, 0, 2, 4]
    assert tree.height == 3 and tree.count == 5
    assert "3 0x100000\n" in stable.address_table(res)
    assert res.reads == 2               # two reads that agree


def test_real_ids_when_the_tree_has_them():
    res = read(build(GOOD, 0), spec(node_id=lambda e, c: e.id))
    assert list(parse_dump(res.text).nodes) == [1000, 1001, 1003, 1004,
                                                1002]


def test_two_nodes_with_one_real_id_are_refused_as_the_parser_would():
    """Building the Tree directly keeps the parser's verdict on a dump
    whose ids repeat (a dict would silently keep one of the two)."""
    from rbtilib.dump import DumpError
    with pytest.raises(DumpError, match="line 12: node 7 listed twice"):
        read(build(GOOD, 0), spec(node_id=lambda e, c: 7 if e.key in (10, 5)
                                  else e.id))


def test_cycle_is_written_as_a_link_and_not_followed():
    shape = dict(GOOD)
    shape[3] = (5, "R", 1, 0, None)      # 5's left points back at the root
    res = read(build(shape, 0))
    tree = parse_dump(res.text)
    assert len(tree.nodes) == 5
    assert tree.nodes[0].left == 3       # node 5 (id 0) links to the root
    assert res.violations, "a cycle must be reported"


def test_self_loop_ends():
    res = read(build({0: (1, "B", None, 0, 0)}, 0))
    assert len(parse_dump(res.text).nodes) == 1
    assert res.violations


def test_shared_node_is_read_once():
    shape = dict(GOOD)
    shape[1] = (10, "B", 0, 3, 3)        # both children are node 3
    res = read(build(shape, 0))
    tree = parse_dump(res.text)
    assert sorted(n.key for n in tree.nodes.values()) == [5, 10, 20, 30]
    assert res.violations


def test_unreadable_child_is_reported_not_fatal():
    shape = dict(GOOD)
    shape[2] = (30, "B", 0, ("raw", 0xdead0000), None)
    res = read(build(shape, 0))
    assert "parent" in classes(res)
    assert any("0xdead0000" in v.message and "unreadable" in v.message
               for v in res.violations)
    parse_dump(res.text)                 # still a valid dump


def test_depth_is_capped():
    chain = {i: (i, "B", i - 1 if i else None, None, i + 1)
             for i in range(200)}
    chain[199] = (199, "B", 198, None, None)
    res = read(build(chain, 0))
    assert res.snap.error == "depth"
    assert len(res.snap.nodes) == walk.MAX_DEPTH
    assert "height" in classes(res)
    assert parse_dump(res.text).error == "depth"


def test_parent_pointing_outside_is_question_mark():
    shape = dict(GOOD)
    shape[4] = (15, "R", ("raw", 0x4242), None, None)
    res = read(build(shape, 0))
    assert "node 2 15 R ? - - -" in res.text
    assert classes(res)[0] == "parent"


def test_leftmost_cache_checked():
    sp = spec(flags=frozenset({"unique", "leftmost"}), leftmost_slot=LEFT_SLOT)
    assert read(build(GOOD, 0, leftmost=3), sp).violations == []
    res = read(build(GOOD, 0, leftmost=4), sp)
    assert classes(res) == ["leftmost"]
    res = read(build(GOOD, 0, leftmost=("raw", 0x777)), sp)
    assert "leftmost" in classes(res)


def max_spec():
    return spec(aug_name="subtree_max", aug=lambda e, c: e.aug,
                aug_rule="max", aug_value=lambda e, c: e.key)


def test_augmented_max_rule():
    shape = {i: (*v, m) for (i, v), m in
             zip(GOOD.items(), (30, 15, 30, 5, 15))}
    res = read(build(shape, 0), max_spec())
    assert res.violations == []
    assert parse_dump(res.text).aug == "subtree_max"
    shape[1] = (*GOOD[1], 10)            # 10's subtree max is 15, not 10
    res = read(build(shape, 0), max_spec())
    assert [(v.cls, v.node) for v in res.violations] == [("augment", 1)]


def test_augmented_min_rule():
    """EEVDF's min_vruntime rule: the least own value of the subtree."""
    sp = spec(aug_name="min_vruntime", aug=lambda e, c: e.aug,
              aug_rule="min", aug_value=lambda e, c: e.key)
    shape = {i: (*v, m) for (i, v), m in
             zip(GOOD.items(), (5, 5, 30, 5, 15))}
    assert read(build(shape, 0), sp).violations == []
    shape[1] = (*GOOD[1], 10)            # 10's subtree holds 5
    res = read(build(shape, 0), sp)
    assert [(v.cls, v.node) for v in res.violations] == [("augment", 1)]
    assert "min over its subtree is 5" in res.violations[0].message


@pytest.mark.parametrize("rule", ["max", "min", "sum", "size"])
def test_the_dump_carries_the_augment_rule(rule):
    """The dump of a tree read from memory names its augment rule and
    each node's own value, so the saved text checks on the host exactly
    as the live read did (issue 39: the rule was lost with the read)."""
    sp = spec(aug_name="a", aug=lambda e, c: e.aug, aug_rule=rule,
              aug_value=None if rule == "size" else (lambda e, c: e.key),
              aug_value_name=None if rule == "size" else "k")
    shape = {i: (*v, 0) for i, v in GOOD.items()}
    res = read(build(shape, 0), sp)
    saved = parse_dump(res.text)
    want = "size" if rule == "size" else f"{rule}:k"
    assert saved.aug_rule == want and f"aug a {want}\n" in res.text
    assert res.violations and [(v.cls, v.node, v.message)
                               for v in checker.check(saved)] == \
        [(v.cls, v.node, v.message) for v in res.violations]


def test_order_violation_found_by_the_checker():
    shape = dict(GOOD)
    shape[4] = (25, "R", 1, None, None)
    res = read(build(shape, 0))
    assert classes(res)[0] == "order"


class Churning(FakeMemory):
    """A tree rewritten between reads: each whole-tree read sees the
    other of two states, for the first *changes* reads."""

    def __init__(self, a: FakeMemory, b: FakeMemory, changes: int) -> None:
        super().__init__()
        self.a, self.b, self.changes, self.walks = a, b, changes, 0

    def read(self, addr: int, size: int) -> bytes:
        if addr == ROOT_SLOT:
            self.walks += 1
        if self.walks > self.changes:
            return self.a.read(addr, size)
        return (self.a if self.walks % 2 else self.b).read(addr, size)


def test_a_tree_that_keeps_changing_is_not_reported_as_broken():
    other = dict(GOOD)
    other[4] = (15, "B", 1, None, None)   # a different (broken) state
    mem = Churning(build(GOOD, 0), build(other, 0), changes=100)
    with pytest.raises(kernel.Changed, match="changed while reading"):
        read(mem, attempts=6)


def test_a_tree_that_settles_is_read():
    other = dict(GOOD)
    other[4] = (15, "B", 1, None, None)
    mem = Churning(build(GOOD, 0), build(other, 0), changes=4)
    res = read(mem)
    assert res.violations == [] and res.reads == 6


def test_a_transient_violation_is_not_reported():
    """A violation seen in one stable pair but not the next is dropped."""
    broken = dict(GOOD)
    broken[4] = (25, "R", 1, None, None)
    good, bad = build(GOOD, 0), build(broken, 0)
    calls = []

    class Flip(FakeMemory):
        def read(self, addr, size):
            # the first two whole-tree reads see the broken state
            if addr == ROOT_SLOT:
                calls.append(1)
            return (bad if len(calls) <= 2 else good).read(addr, size)
    res = read(Flip())
    assert res.violations == []


def test_without_confirmation_a_transient_violation_would_show():
    broken = dict(GOOD)
    broken[4] = (25, "R", 1, None, None)
    res = read(build(broken, 0), confirm=False)
    assert classes(res)[0] == "order"


def test_one_read_per_node_after_the_first():
    mem = build(GOOD, 0)
    walk.read_once(mem, spec(aug=lambda e, c: e.aug))
    # root slot + 5 nodes, plus the first node's field reads
    assert mem.reads <= 1 + 5 + 2


def test_empty_tree():
    res = read(build({}, None))
    tree = parse_dump(res.text)
    assert tree.root is None and not tree.nodes and res.violations == []


def test_compare_trees():
    a = parse_dump(read(build(GOOD, 0)).text)
    assert commands.compare_trees(a, a) is None
    shape = dict(GOOD)
    shape[2] = (31, "B", 0, None, None)
    b = parse_dump(read(build(shape, 0)).text)
    assert "node 4" in commands.compare_trees(a, b)


def test_build_id_of_notes():
    note = struct.pack("<III", 4, 4, 3) + b"GNU\0" + b"\x01\x02\x03\x04"
    other = struct.pack("<III", 6, 4, 1) + b"Linux\0\0\0" + b"abcd"
    assert debuginfo._build_id_of_notes(other + note) == "01020304"
    assert debuginfo._build_id_of_notes(other) is None


def test_checker_agrees_on_every_dump_written():
    """The dumps parse and the one checker runs on them unchanged."""
    for shape in (GOOD, {0: (1, "B", None, None, None)}):
        text = read(build(shape, 0)).text
        assert checker.check(parse_dump(text)) == []


def test_cli_errors_are_clear(capsys):
    """``rbti kernel`` needs no module; missing pieces are named."""
    from rbtilib import cli
    assert cli.main(["kernel", "--preset", "vmap_area", "--kcore",
                     "/nonexistent/kcore"]) == 2
    assert "CONFIG_PROC_KCORE" in capsys.readouterr().err


def test_cli_names_a_missing_vmlinux(capsys):
    from rbtilib import cli
    if debuginfo.running_build_id("/sys/kernel/notes") is None:
        pytest.skip("this kernel has no build id in /sys/kernel/notes")
    assert cli.main(["kernel", "--preset", "vmap_area", "--kcore",
                      "/dev/null", "--vmlinux", "/nonexistent/vmlinux"]) == 2
    assert "vmlinux" in capsys.readouterr().err


def test_find_vmlinux_by_build_id(tmp_path, monkeypatch):
    """$RBTI_KBUILD's vmlinux is used only if its build id is the running
    kernel's; otherwise drgn's own search looks, and its failure names
    both.  --vmlinux is taken as given."""
    monkeypatch.setattr(debuginfo, "running_build_id", lambda p: "aabb")
    monkeypatch.setenv("RBTI_KBUILD", str(tmp_path))
    (tmp_path / "vmlinux").write_bytes(b"\x7fELF\x02" + b"\0" * 59)
    assert debuginfo.find_vmlinux(None) is None
    err = str(debuginfo.no_vmlinux(LookupError("missing vmlinux")))
    assert "build id aabb" in err and f"{tmp_path}/vmlinux" in err
    assert "drgn: missing vmlinux" in err
    assert debuginfo.find_vmlinux("/given") == "/given"
    monkeypatch.setattr(debuginfo, "build_id_of_elf", lambda p: "aabb")
    assert debuginfo.find_vmlinux(None) == str(tmp_path / "vmlinux")
    monkeypatch.delenv("RBTI_KBUILD")
    assert debuginfo.find_vmlinux(None) is None


def test_misaligned_child_is_not_read():
    shape = dict(GOOD)
    shape[2] = (30, "B", 0, ("raw", addr_of(3) + 1), None)
    res = read(build(shape, 0))
    assert any("unreadable" in v.message for v in res.violations)
    assert addr_of(3) + 1 in res.snap.unread and len(res.snap.nodes) == 5


# --- the node list of the inspector's trees (rbti_tree.all/.nodes) ------

# struct fake_tree { rb_root; leftmost; rightmost; count; nodes;
#                    struct list_head all; }
T_ROOT, T_LEFT, T_RIGHT, T_COUNT, T_NODES, T_ALL = (0x2000 + 8 * i
                                                    for i in range(6))
GARBAGE = 0x4240        # a pointer at no node


def listed_memory(shape: dict, root, order: list, nodes: int | None = None,
                  cached: tuple = (None, None, None),
                  nexts: dict | None = None) -> FakeMemory:
    """A tree as the module keeps it: *shape* as for build(), every node
    on the list in *order* (node numbers), the list's count *nodes*
    (default len(order)); *nexts* overrides list links (i -> raw ptr)."""
    mem = build(shape, root)
    link = {i: addr_of(i) + LIST_OFF for i in shape}
    chain = [T_ALL] + [link[i] for i in order] + [T_ALL]
    nxt = {a: b for a, b in zip(chain, chain[1:])}
    prv = {b: a for a, b in zip(chain, chain[1:])}
    for i in shape:
        nptr = (nexts or {}).get(i, nxt.get(link[i], 0))
        mem.blocks[addr_of(i)] += struct.pack("<QQ", nptr,
                                              prv.get(link[i], 0))
    left, right, count = (0 if c is None else addr_of(c) if c >= 0 else -c
                          for c in cached)
    mem.put(T_ROOT, struct.pack(
        "<QQQQQQQ", 0 if root is None else addr_of(root), left, right,
        count, len(order) if nodes is None else nodes,
        nxt[T_ALL], prv[T_ALL]))
    return mem


def listed_spec(**kw) -> walk.TreeSpec:
    base = dict(root_slot=T_ROOT, node_id=lambda e, c: e.id,
                list_head=T_ALL, list_off=LIST_OFF, nodes_slot=T_NODES,
                count_slot=T_NODES)
    base.update(kw)
    return spec(**base)


# GOOD with 15 (node 4) cut off from 10 (node 1): `corrupt detach 15`.
DETACHED = dict(GOOD)
DETACHED[1] = (10, "B", 0, 3, None)


def test_detach_is_unreachable_blaming_the_first_lost_node():
    res = read(listed_memory(DETACHED, 0, [0, 1, 2, 3, 4]), listed_spec())
    tree = parse_dump(res.text)
    assert tree.allocated == 5 and list(tree.lost) == [1004]
    assert "nodes 5\n" in res.text and "lost 1004 15 R 1001 - - -\n" \
        in res.text
    first = res.violations[0]
    assert (first.cls, first.node) == ("unreachable", 1004)
    # The count of a tree that caches none is the list's: the module's.
    assert tree.count == 5


def test_lost_nodes_in_list_order_not_address_order():
    shape = dict(GOOD)
    shape[0] = (20, "B", None, None, 2)      # 10's subtree cut off
    res = read(listed_memory(shape, 0, [4, 0, 3, 2, 1]), listed_spec())
    tree = parse_dump(res.text)
    assert list(tree.lost) == [1004, 1003, 1001]
    assert (res.violations[0].cls, res.violations[0].node) == \
        ("unreachable", 1004)


def test_a_valid_listed_tree_has_nodes_equal_to_end():
    res = read(listed_memory(GOOD, 0, [0, 1, 2, 3, 4]), listed_spec())
    tree = parse_dump(res.text)
    assert res.violations == [] and tree.allocated == len(tree.nodes) == 5
    assert tree.lost == {}


def test_a_tree_without_a_list_has_no_nodes_line():
    """Kernel trees (vmap_area, ...) keep no list: the header does not
    claim to know what was allocated (DEBUGFS.md, api kernel)."""
    res = read(build(DETACHED, 0))
    tree = parse_dump(res.text)
    assert "nodes" not in res.text and "lost" not in res.text
    assert tree.allocated is None and tree.lost == {}


def test_the_list_is_read_with_the_nodes_not_again():
    mem = listed_memory(GOOD, 0, [0, 1, 2, 3, 4])
    walk.read_once(mem, listed_spec())
    # slots (root, count, nodes, list head) + one read per node: the list
    # links come with each node's read, so following the list is free
    assert mem.reads <= 4 + 5 + 4


@pytest.mark.parametrize("nexts, order, nodes, why", [
    ({2: addr_of(1) + LIST_OFF}, [0, 1, 2, 3, 4], None, "loops"),
    ({0: addr_of(0) + LIST_OFF}, [0, 1, 2, 3, 4], None, "loops"),
    ({}, [0, 1, 2, 3, 4], 3, "goes on past 3"),
    ({}, [0, 1, 2, 3], None, "not on the tree's list"),
    ({}, [0, 1, 2, 3, 4], 7, "has 5 entries, nodes says 7"),
    ({1: 0xdead0000}, [0, 1, 2, 3, 4], None, "unreadable"),
    ({1: addr_of(2) + LIST_OFF + 4}, [0, 1, 2, 3, 4], None,
     "not a list_head"),
    ({1: 0}, [0, 1, 2, 3, 4], None, "not a list_head"),
    ({4: addr_of(0) + LIST_OFF}, [0, 1, 2, 3, 4], 1 << 40, "loops"),
])
def test_a_broken_node_list_is_reported_not_followed(nexts, order, nodes,
                                                     why):
    mem = listed_memory(GOOD, 0, order, nodes, nexts=nexts)
    res = read(mem, listed_spec(count_slot=None))
    assert why in res.snap.list_problem
    # The dump stays finite and parseable, without nodes/lost lines.
    tree = parse_dump(res.text)
    assert tree.allocated is None and len(tree.nodes) == 5
    assert [(v.cls, v.node) for v in res.violations] == \
        [("unreachable", None)]
    assert "node list cannot be trusted" in res.violations[0].message


def test_a_garbage_count_does_not_make_the_walk_long():
    """A count of 2^40 with a list that runs into freed memory: the walk
    stops at the first unreadable entry, it does not trust the count."""
    mem = listed_memory(GOOD, 0, [0, 1, 2, 3, 4], 1 << 40,
                        nexts={4: 0xdead0000})
    snap = walk.read_once(mem, listed_spec())
    assert "unreadable" in snap.list_problem and len(snap.listed) == 5


def test_cached_leftmost_at_a_lost_node_is_its_id():
    """After `detach`, a cache may point into the cut-off subtree: the
    module writes that node's id, so does the walk (and the checker
    reports unreachable first)."""
    shape = dict(GOOD)
    shape[1] = (10, "B", 0, None, 4)         # 5 (node 3) detached
    flags = frozenset({"unique", "leftmost", "count"})
    mem = listed_memory(shape, 0, [0, 1, 2, 3, 4], cached=(3, None, -5))
    res = read(mem, listed_spec(flags=flags, leftmost_slot=T_LEFT,
                                count_slot=T_COUNT))
    tree = parse_dump(res.text)
    assert tree.leftmost == 1003 and list(tree.lost) == [1003]
    assert [v.cls for v in res.violations] == ["unreachable", "count",
                                               "leftmost"]


def test_link_to_no_node_is_question_mark_with_real_ids():
    shape = dict(GOOD)
    shape[2] = (30, "B", 0, ("raw", GARBAGE), None)
    res = read(listed_memory(shape, 0, [0, 1, 2, 3, 4]), listed_spec())
    assert "node 1002 30 B 1000 ? - -\n" in res.text
    assert parse_dump(res.text).nodes[1002].left is UNKNOWN


def _module_memory(tree) -> tuple:
    """*tree* (a Tree as the module would dump it) laid out in fake memory
    as the module keeps it: ids in allocation order, every node on the
    list, the caches in their slots.  Returns (memory, spec)."""
    pool = {**tree.nodes, **tree.lost}
    order = sorted(pool)
    num = {nid: i for i, nid in enumerate(order)}

    def ref(r):
        return None if r is None else ("raw", GARBAGE) if r is UNKNOWN \
            else num[r]
    shape = {num[n.id]: (n.key, n.color, ref(n.parent), ref(n.left),
                         ref(n.right), n.aug or 0) for n in pool.values()}
    cached = [num[c] if c is not None else None
              for c in (tree.leftmost, tree.rightmost)]
    mem = listed_memory(shape, None if tree.root is None else num[tree.root],
                        list(range(len(order))),
                        cached=(*cached, -tree.count))
    ids = {addr_of(num[nid]): nid for nid in order}
    aug = "augmented" in tree.flags
    sp = listed_spec(
        api=tree.api, flags=tree.flags, name=tree.name,
        node_id=lambda e, c: ids[e._win.base],
        leftmost_slot=T_LEFT if "leftmost" in tree.flags else None,
        rightmost_slot=T_RIGHT if "rightmost" in tree.flags else None,
        count_slot=T_COUNT if "count" in tree.flags else T_NODES,
        aug_name="size" if aug else None,
        aug=(lambda e, c: e.aug) if aug else None,
        aug_rule="size" if aug else None)
    return mem, sp


def _commands(tree) -> list:
    from rbtilib.dump import inorder
    nodes = list(inorder(tree))
    root = tree.nodes[tree.root]
    child = tree.nodes[root.left]
    red = next(n for n in nodes if n.color == "R")
    return [f"color {red.key}", f"color {root.key}", f"black {red.key}",
            f"key {child.key} {nodes[-1].key + 1000}",
            f"parent {child.key}", f"parent {root.key}", "leftmost",
            "rightmost", "count", f"aug {child.key}",
            f"detach {child.key}", f"detach {nodes[0].key}",
            f"share {child.key}", f"share {nodes[-1].key}",
            f"cycle {child.key}", f"cycle {root.key}"]


@pytest.mark.parametrize("info", CONTRACT_TREES, ids=lambda i: i.name)
def test_every_corrupt_command_reads_as_the_module_dumps_it(info):
    """For each corrupt command the contract's model applies (tests_support.trees),
    the tree read from memory has the model's dump (nodes and lost lines
    included) and the checker's first violation on it is the one the
    module's check reports: same class, same node."""
    from rbtilib.driver import DebugfsError
    keys = [(k * 37) % 101 for k in range(1, 41)]
    if "dup" in info.flags:
        keys += keys[:10]
    base = build_tree(keys, info, erase=keys[:5], allocated=True)
    tried = 0
    for command in [None] + _commands(base):
        try:
            want = base if command is None else corrupt_tree(base, command)
        except DebugfsError:
            continue
        tried += 1
        mem, sp = _module_memory(want)
        res = read(mem, sp)
        got = parse_dump(res.text)
        assert commands.compare_trees(want, got) is None, command
        first = checker.first_violation(want)
        have = res.violations[0] if res.violations else None
        assert (have and (have.cls, have.node)) == \
            (first and (first.cls, first.node)), command
    assert tried >= 10


# --- a QEMU dump-guest-memory ELF without VMCOREINFO ---------------------

def _qemu_core(tmp_path, with_note: bool = True):
    """An ELF core as QEMU writes it with paging off: p_vaddr = p_paddr,
    the kernel's vmcoreinfo_note somewhere in RAM, no VMCOREINFO note."""
    desc = (b"OSRELEASE=6.1.0\nSYMBOL(swapper_pg_dir)=ffffffff81e15000\n"
            b"SYMBOL(_stext)=ffffffff81000000\nNUMBER(phys_base)=16777216\n"
            b"KERNELOFFSET=0\n")
    note = struct.pack("<III", 11, len(desc), 0) + b"VMCOREINFO\0\0" + desc
    ram = bytearray(48 << 20)
    at = 0x2345678 & ~3
    # a decoy: the raw vmcoreinfo_data, without a note header
    ram[0x1000:0x1000 + len(desc)] = desc
    if with_note:
        ram[at:at + len(note)] = note
    qnote = struct.pack("<III", 5, 8, 1) + b"CORE\0\0\0\0" + b"\0" * 8
    phoff, ram_off = 0x40, 0x40 + 2 * 56 + len(qnote)
    ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
            struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, 0, 0, 64, 56,
                        2, 0, 0, 0))
    phdrs = vmcore._PHDR.pack(vmcore.PT_NOTE, 0, 0x40 + 2 * 56, 0, 0,
                              len(qnote), len(qnote), 0) + \
        vmcore._PHDR.pack(vmcore.PT_LOAD, 0, ram_off, 0, 0, len(ram),
                          len(ram), 0)
    path = tmp_path / "guest.core"
    path.write_bytes(ehdr + phdrs + qnote + bytes(ram))
    return str(path), at + ram_off, desc


def test_a_qemu_core_gets_the_kernels_vmcoreinfo_note(tmp_path):
    path, where, desc = _qemu_core(tmp_path)
    before = open(path, "rb").read()
    size = len(before)
    assert not vmcore.core_has_vmcoreinfo(path)
    assert vmcore.add_vmcoreinfo(path) == where
    assert vmcore.core_has_vmcoreinfo(path)
    data = open(path, "rb").read()
    # nothing moved: only e_phoff and e_phnum changed before the end
    assert data[0x40:size] == before[0x40:] and data[:0x20] == before[:0x20]
    with open(path, "rb") as f:
        _, phdrs = vmcore._elf_phdrs(f)
    assert [p[0] for p in phdrs[:2]] == [vmcore.PT_NOTE, vmcore.PT_LOAD]
    note = phdrs[2]
    assert note[0] == vmcore.PT_NOTE and note[2] >= size
    assert list(vmcore._notes(data[note[2]:note[2] + note[5]])) == \
        [(b"VMCOREINFO", desc)]
    # the kernel image's virtual view from _stext: virtual -
    # __START_KERNEL_map + phys_base = 16 MiB + 16 MiB, to the end of RAM
    image = phdrs[3]
    assert image[0] == vmcore.PT_LOAD and image[3] == 0xffffffff81000000
    assert image[4] == 32 << 20 and image[5] == 16 << 20
    assert image[2] == phdrs[1][2] + (32 << 20)


def test_a_core_without_the_note_anywhere_is_a_clear_error(tmp_path):
    path, _, _ = _qemu_core(tmp_path, with_note=False)
    with pytest.raises(kernel.KernelError, match="no VMCOREINFO note"):
        vmcore.add_vmcoreinfo(path)


def test_cli_preset_names_are_the_presets():
    from rbtilib.cli import kernel_cmd
    assert sorted(kernel_cmd.PRESET_NAMES) == sorted(presets.PRESETS)


def test_core_without_the_note_is_read_through_a_copy(tmp_path, monkeypatch,
                                                     capsys):
    """--core never changes the user's dump (it used to append the note to
    it in place, and failed on a read-only one): drgn reads a patched copy,
    removed once drgn has it open."""
    import argparse
    import types
    path, _, _ = _qemu_core(tmp_path)
    before = open(path, "rb").read()
    seen = {}

    class Program:
        def set_core_dump(self, core):
            seen["core"] = core
            seen["has_note"] = vmcore.core_has_vmcoreinfo(core)

        def load_debug_info(self, files, default):
            seen["default"] = default
    monkeypatch.setattr(debuginfo, "_drgn", lambda: types.SimpleNamespace(
        Program=Program, MissingDebugInfoError=Exception))
    vmlinux = tmp_path / "vmlinux"
    vmlinux.write_bytes(b"\x7fELF")
    args = argparse.Namespace(core=path, kcore="/proc/kcore",
                              vmlinux=str(vmlinux), debug_info=None,
                              command="kernel")
    debuginfo.open_program(args)
    assert open(path, "rb").read() == before
    assert seen["has_note"] and seen["core"] != path
    assert not (seen["core"] and __import__("os").path.exists(seen["core"]))
    assert f"{path} is not changed" in capsys.readouterr().err


class _Spec:
    def __init__(self, name):
        self.name = name


@pytest.mark.parametrize("error,status,text", [
    (kernel.Changed("kept changing"), 3, "santos: changed while reading"),
    (kernel.Fault(0xdead), 1, "santos: FAULT the tree's memory: cannot read "
     "address 0xdead")])
def test_verify_reports_a_tree_that_changes_or_faults(error, status, text,
                                                     monkeypatch, capsys):
    """rbti verify let Changed and Fault escape as tracebacks: they are a
    verdict on the tree, and the other trees are still verified."""
    import argparse
    from rbtilib import driver
    from tests_support.trees import FakeDebugfs
    fake = FakeDebugfs()

    def read_stable(mem, spec, attempts, confirm=True):
        if spec.name == "santos":
            raise error
        return stable.read_stable(build(GOOD, 0), walk.TreeSpec(
            name="mainline", layout=LAYOUT, root_slot=ROOT_SLOT,
            key=lambda e, c: e.key), attempts)
    monkeypatch.setattr(driver, "Debugfs", lambda root: fake)
    monkeypatch.setattr(commands, "DrgnMemory", lambda prog: None)
    monkeypatch.setattr(commands, "read_stable", read_stable)
    specs = [_Spec("santos")]
    monkeypatch.setattr(commands, "_specs", lambda prog, args: specs)
    args = argparse.Namespace(command="verify", trees=[], all=True,
                              attempts=2, root="/x")
    assert commands.run(args, prog=object()) == status
    assert capsys.readouterr().out == text + "\n"
    specs.append(_Spec("mainline"))
    assert commands.run(args, prog=object()) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0] == text and out[1].startswith("mainline: MISMATCH ")


def test_a_spec_of_addresses_writes_the_hex_line():
    """A tree whose keys are addresses (vmap_area's va_start) says so in
    its dump, so that show, render and JSON print them in hex."""
    text = read(build(GOOD, 0), spec(hex=frozenset({"key"}))).text
    assert "\naug -\nhex key\nnode " in text
    assert parse_dump(text).hex == {"key"}
    assert "\nhex " not in read(build(GOOD, 0)).text


def _kernel_args(**kw):
    import argparse
    base = dict(command="kernel", preset="x", trees=[], all=False,
                root_expr=None, check=False, out=None, addresses=None,
                times=False, attempts=8, list=False, json=True, hex=False)
    base.update(kw)
    return argparse.Namespace(**base)


def _fake_kernel(monkeypatch, shapes: dict):
    """commands over fake memory: one spec per name in *shapes*."""
    mems = {name: build(shape, 0) for name, shape in shapes.items() if shape}

    def read_stable(mem, sp, attempts, confirm=True):
        if shapes[sp.name] is None:
            raise kernel.Changed("kept changing over 2 reads")
        return stable.read_stable(mems[sp.name], sp, attempts)
    monkeypatch.setattr(commands, "DrgnMemory", lambda prog: None)
    monkeypatch.setattr(commands, "read_stable", read_stable)
    monkeypatch.setattr(commands, "_specs", lambda prog, args: [
        spec(name=name) for name in shapes])


def test_kernel_json(monkeypatch, capsys):
    """kernel --json: the dumps, or with --check the verdicts (blamed
    nodes with their addresses); a tree that kept changing is an entry
    with an error (exit 3)."""
    import json
    bad = dict(GOOD)
    bad[3] = (5, "B", 1, None, None)            # black-height broken
    _fake_kernel(monkeypatch, {"good": GOOD, "bad": bad, "busy": None})
    assert commands.run(_kernel_args(check=True), prog=object()) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == 1 and doc["command"] == "kernel"
    good, broken, busy = doc["trees"]
    assert doc["ok"] is False and doc["check"] is True
    assert good == {"tree": "good", "ok": True, "error": None, "nodes": 5,
                    "violation_count": 0, "violations": []}
    assert broken["ok"] is False and broken["violations"][0]["address"] \
        .startswith("0x10")
    assert busy == {"tree": "busy", "ok": False,
                    "error": "kept changing over 2 reads"}
    _fake_kernel(monkeypatch, {"good": GOOD})
    assert commands.run(_kernel_args(), prog=object()) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["trees"][0]["dump"]["nodes"][0]["key"] == 20
    assert commands.run(_kernel_args(hex=True), prog=object()) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["trees"][0]["dump"]["nodes"][0]["key"] == "0x14"


def test_kernel_check_caps_and_notes(monkeypatch, capsys):
    """kernel --check prints ten violations and '… and N more', as rbti
    check does; an aug without a rule is a note (issue 39)."""
    n = 20
    shape = {i: (i * 10, "B", i - 1 if i else None, None,
                 i + 1 if i + 1 < n else None) for i in range(n)}
    _fake_kernel(monkeypatch, {"chain": shape})
    assert commands.run(_kernel_args(check=True, json=False),
                        prog=object()) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 11 and out[-1].startswith("chain: … and ")
    assert out[-1].endswith(" more violations")
    _fake_kernel(monkeypatch, {"good": GOOD})
    monkeypatch.setattr(commands, "_specs", lambda prog, args: [
        spec(name="good", aug_name="a", aug=lambda e, c: e.key)])
    assert commands.run(_kernel_args(check=True, json=False),
                        prog=object()) == 0
    assert capsys.readouterr().out.splitlines()[1] == \
        "good: note: aug a is not checked: the dump names no augment rule " \
        "(aug NAME RULE; a dump of an older rbti kernel)"


def test_verify_json(monkeypatch, capsys):
    import argparse
    import json
    from rbtilib import driver
    from tests_support.trees import FakeDebugfs
    fake = FakeDebugfs()
    monkeypatch.setattr(driver, "Debugfs", lambda root: fake)
    _fake_kernel(monkeypatch, {"santos": GOOD, "mainline": None})
    args = argparse.Namespace(command="verify", trees=[], all=True,
                              attempts=2, root="/x", json=True)
    assert commands.run(args, prog=object()) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["command"] == "verify" and doc["ok"] is False
    santos, mainline = doc["trees"]
    assert santos["verdict"] == "mismatch" and santos["detail"]
    assert mainline == {"tree": "mainline", "verdict": "changed",
                        "detail": "changed while reading", "nodes": None}


class _FakeDrgn:
    """What module_object uses of drgn: ProgramFlags, Object, __version__."""

    __version__ = "0.0.22"

    class ProgramFlags:
        IS_LIVE = 4

    @staticmethod
    def Object(prog, type_, address):          # noqa: N802 - drgn's name
        return ("object", type_, address)


class _Sym:
    def __init__(self, address):
        self.address_, self.type_ = address, "struct rbti_tree [8]"


class _Prog(dict):
    def __init__(self, flags, **objects):
        super().__init__(objects)
        self.flags = flags


def test_module_object_places_unrelocated_symbols(tmp_path, monkeypatch):
    """A module symbol drgn left at its .ko offset (0x1a0, as drgn 0.0.22
    does on 6.4+ kernels) is found at its /proc/kallsyms address."""
    monkeypatch.setattr(debuginfo, "_drgn", lambda: _FakeDrgn)
    syms = tmp_path / "kallsyms"
    syms.write_text("ffffffffc0002000 d rbti_other\t[rbtree_inspector]\n"
                    "ffffffffc00021a0 d rbti_trees\t[rbtree_inspector]\n")
    live = _Prog(4, rbti_trees=_Sym(0x1a0))
    assert debuginfo.module_object(live, "rbti_trees", str(syms)) == (
        "object", "struct rbti_tree [8]", 0xffffffffc00021a0)
    placed = _Sym(0xffffffffc0001000)
    assert debuginfo.module_object(_Prog(4, rbti_trees=placed),
                                   "rbti_trees", str(syms)) is placed
    with pytest.raises(kernel.KernelError, match="cannot place"):
        debuginfo.module_object(_Prog(0, rbti_trees=_Sym(0x1a0)),
                                "rbti_trees", str(syms))
    with pytest.raises(kernel.KernelError, match="no symbol"):
        debuginfo.module_object(live, "rbti_nothing", str(syms))
    syms.write_text("0000000000000000 d rbti_trees\t[rbtree_inspector]\n")
    with pytest.raises(kernel.KernelError, match="no address"):
        debuginfo.module_object(live, "rbti_trees", str(syms))


class FakeDrgn:
    """The part of drgn open_program uses; records load_debug_info."""

    class MissingDebugInfoError(Exception):
        pass

    def __init__(self, missing: str = "") -> None:
        self.loads, self.missing = [], missing
        drgn = self

        class Program:
            def set_core_dump(self, path):
                pass

            def load_debug_info(self, paths, default=False):
                drgn.loads.append((list(paths), default))
                if drgn.missing:
                    raise drgn.MissingDebugInfoError(drgn.missing)
        self.Program = Program


def open_live(monkeypatch, tmp_path, fake, **kw):
    import argparse
    monkeypatch.setattr(debuginfo, "_drgn", lambda: fake)
    monkeypatch.setattr(debuginfo, "running_build_id",     # no module
                        lambda p: "aabb" if p == "/sys/kernel/notes" else None)
    monkeypatch.delenv("RBTI_KMOD", raising=False)
    kcore = tmp_path / "kcore"          # only checked to exist
    kcore.write_bytes(b"")
    args = dict(core=None, kcore=str(kcore), vmlinux=None,
                debug_info=None, command="kernel")
    args.update(kw)
    return debuginfo.open_program(argparse.Namespace(**args))


def test_drgn_searches_for_the_vmlinux_only_where_rbti_found_none(
        tmp_path, monkeypatch):
    """--vmlinux or $RBTI_KBUILD's vmlinux (its build id the running
    kernel's) is loaded as given; with neither, drgn's own search
    (default=True) looks, and its failure names the build id."""
    vmlinux = tmp_path / "vmlinux"
    vmlinux.write_bytes(b"\x7fELF")
    monkeypatch.setattr(debuginfo, "build_id_of_elf", lambda p: "aabb")
    monkeypatch.setenv("RBTI_KBUILD", str(tmp_path))
    fake = FakeDrgn()
    open_live(monkeypatch, tmp_path, fake)
    assert fake.loads == [([str(vmlinux)], False)]
    monkeypatch.setattr(debuginfo, "build_id_of_elf", lambda p: "ccdd")
    open_live(monkeypatch, tmp_path, fake)
    assert fake.loads[-1] == ([], True)
    missing = FakeDrgn("missing debugging symbols for kernel (vmlinux)")
    with pytest.raises(kernel.KernelError, match="build id aabb.*drgn: "
                       "missing debugging symbols"):
        open_live(monkeypatch, tmp_path, missing)
