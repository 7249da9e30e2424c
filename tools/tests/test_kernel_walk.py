# SPDX-License-Identifier: GPL-2.0
"""Tests of the memory walk (rbtilib.kernel) over a fake memory: no drgn, no
kernel.  Each broken tree here is one the walk must survive and report."""

import struct

import pytest

from rbtilib import checker, kernel
from rbtilib.kernel import commands, debuginfo, stable, walk
from rbtilib.dump import parse_dump
from tests_support.kmem import (GOOD, LEFT_SLOT, ROOT_SLOT, FakeMemory,
                                addr_of, build, classes, read, spec)


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
    as the live read did."""
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
