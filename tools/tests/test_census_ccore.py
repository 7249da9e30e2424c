# SPDX-License-Identifier: GPL-2.0
"""The census's C core (tools/rbtilib/kernel/ccore): its build, its
binding, and its verdicts against the Python walk and checker's, tree for
tree and node for node, on valid trees, broken ones and garbage; its
bounds; and the C fuzzer under ASan, UBSan and valgrind."""

import argparse
import os
import random
import re
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from rbtilib.kernel import (Fault, ccore, ccore_lib, census, census_agree,
                            census_find, census_out, census_read, walk)
from rbtilib.kernel.expr import Get
from rbtilib.record import replace
from tests_support import pages
from tests_support.kmem import GOOD, FakeMemory, build
from tests_support.kmem import spec as kmem_spec

REPO = Path(__file__).resolve().parents[2]
SRC = REPO / "tools" / "rbtilib" / "kernel" / "ccore"

if ccore.library()[0] is None:
    pytest.skip(f"no C core: {ccore.library()[1]}", allow_module_level=True)


# --- the build -----------------------------------------------------------

def test_the_c_core_builds_with_every_warning_an_error(tmp_path):
    path = ccore_lib.build(str(tmp_path), strict=True)
    assert os.path.basename(path) == ccore_lib.lib_name(ccore_lib.digest())


def test_setup_py_builds_the_sources_rbti_builds():
    text = (REPO / "setup.py").read_text()
    listed = re.search(r"^SOURCES = \((.*?)\)$", text, re.M | re.S).group(1)
    assert tuple(re.findall(r'"([^"]+)"', listed)) == ccore_lib.SOURCES
    assert sorted(p.name for p in SRC.iterdir()) == sorted(
        ccore_lib.SOURCES + ccore_lib.HEADERS)


def test_every_c_file_begins_with_its_licence_and_is_short():
    for path in list(SRC.iterdir()) + [REPO / "tools" / "tests_support" /
                                       "ccore_fuzz.c"]:
        lines = path.read_text().splitlines()
        # Kernel style: // in a .c file, /* */ in a header.
        assert lines[0] == ("/* SPDX-License-Identifier: GPL-2.0 */"
                            if path.suffix == ".h" else
                            "// SPDX-License-Identifier: GPL-2.0"), path
        assert len(lines) <= 600, path


def test_a_library_is_found_by_its_hash_or_built_where_rbti_looks(tmp_path):
    env = {"RBTI_OUT": str(tmp_path / "out"), "HOME": str(tmp_path)}
    path, why = ccore_lib.find(env)
    assert path == str(tmp_path / "out" / "ccore" /
                       ccore_lib.lib_name(ccore_lib.digest())) and not why
    assert ccore_lib.find(env) == (path, "")
    assert ccore_lib.find({"RBTI_CCORE": "python"}) == (
        None, "RBTI_CCORE=python")


def test_no_compiler_is_a_reason_not_an_error(tmp_path, monkeypatch):
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    path, why = ccore_lib.find({"RBTI_OUT": str(tmp_path / "o"),
                                "RBTI_CACHE": str(tmp_path / "c")})
    assert path is None and "cannot build it" in why


# --- specs ---------------------------------------------------------------

def test_what_the_python_walk_alone_reads_has_no_plan():
    """A node list, a latch copy, the module's ids and counts, a key that
    is a lambda: the Python walk's."""
    assert ccore.plan(pages.spec()) is not None
    for kw in ({"list_head": 0x10}, {"copy1_slot": 0x10},
               {"node_id": Get("key")}, {"count_slot": 0x10},
               {"rightmost_slot": 0x10}, {"key": lambda e, c: e.key},
               {"key": Get("nope")}, {"context": lambda mem: None}):
        assert ccore.plan(replace(pages.spec(), **kw)) is None, kw


def _outcomes(mem, sp):
    """The census's Outcome (C) and the Python checker's, and what
    differs between the two (None)."""
    why, py = census_agree.compare_tree(mem, sp)
    return census_read.read_census_tree(mem, sp), py, why


@pytest.mark.parametrize("memory", [pages.Pages, pages.DirectPages])
@pytest.mark.parametrize("key", list(pages.KEYS))
def test_a_valid_tree_of_each_key_is_ok_in_both(memory, key):
    mem = memory()
    pages.lay(mem, 60, dup=key == "pair")
    out, py, why = _outcomes(mem, pages.spec(key))
    assert why is None
    assert (out.state, out.checker, out.nodes) == ("ok", "c", 60)
    assert (py.state, py.nodes, py.height) == ("ok", 60, out.height)


class _DirectOverlay(census_agree.Overlay):
    pass_reader = walk.Memory.pass_reader


@pytest.mark.parametrize("memory,overlay", [
    (pages.Pages, census_agree.Overlay), (pages.DirectPages, _DirectOverlay)])
@pytest.mark.parametrize("key", list(pages.KEYS))
def test_broken_trees_get_the_same_verdict_from_both(memory, overlay, key):
    """Random breaks (colours, parents, links to nodes, to no node,
    misaligned, keys swapped, bytes of entries, the leftmost cache): the
    same verdict, violations (class and node), nodes and snapshot."""
    rng = random.Random(hash(key) & 0xffff)
    mem = memory()
    pages.lay(mem, 40, seed=3, dup=key == "pair")
    sp = pages.spec(key)
    snap = walk.read_once(mem, sp)
    bad = 0
    for _ in range(60):
        broken = overlay(mem, census_agree.breaks(rng, mem, sp, snap))
        why, py = census_agree.compare_tree(broken, sp)
        assert why is None, why
        bad += py.state == "violation"
    assert bad >= 20


def test_garbage_gets_the_same_verdict_from_both():
    """Pages of random bytes, the root anywhere in them: no crash, and
    the two agree."""
    rng = random.Random(5)
    for round_ in range(40):
        mem = pages.Pages()
        for i in range(4):
            mem.write(pages.BASE + i * pages.PAGE,
                      bytes(rng.randrange(256) for _ in range(pages.PAGE)))
        ptrs = [pages.BASE + rng.randrange(4 * pages.PAGE) & ~7
                for _ in range(64)]
        for p in ptrs:        # pointers among the pages
            mem.write(rng.choice(ptrs),
                      struct.pack("<Q", p | rng.randrange(2)))
        mem.write(pages.ROOT, struct.pack("<QQQ", rng.choice(ptrs),
                                          rng.choice(ptrs), 0))
        for key in ("field", "name", "pointer"):
            why, _ = census_agree.compare_tree(mem, pages.spec(key))
            assert why is None, (round_, key, why)


# --- bounds ----------------------------------------------------------------

def _chain(mem, n: int, loop: bool = False) -> None:
    """n nodes, each the left child of the one before (the last's left
    link back to the first if *loop*)."""
    for i in range(n):
        child = pages.addr_of(i + 1) if i + 1 < n else \
            (pages.addr_of(0) if loop else 0)
        mem.write(pages.addr_of(i), struct.pack(
            "<QQQ", pages.addr_of(i - 1) | 1 if i else 1, 0, child))
        mem.write(pages.addr_of(i) - pages.NODE_OFF + 32,
                  struct.pack("<q", n - i))
    mem.write(pages.ROOT, struct.pack("<QQ", pages.addr_of(0), 0))


def test_a_walk_deeper_than_the_cap_stops_there_in_both():
    mem = pages.Pages()
    _chain(mem, 300)
    sp = pages.spec(aug=False, leftmost=False)
    out, py, why = _outcomes(mem, sp)
    assert why is None
    assert out.state == "violation" and py.nodes == walk.MAX_DEPTH
    assert out.height == walk.MAX_DEPTH + 1 and py.snap.error == "depth"


def test_a_cycle_and_a_node_bound_end_the_walk_in_both():
    mem = pages.Pages()
    _chain(mem, 50, loop=True)
    sp = pages.spec(aug=False, leftmost=False)
    _, py, why = _outcomes(mem, sp)
    assert why is None and [v.cls for v in py.violations][:1] == ["cycle"]
    r, p = ccore.reader(mem), ccore.plan(sp)
    got = ccore.read(r, sp, p, max_nodes=10, snap=True)
    assert got.nodes == 10 and got.snap.error == "size"
    py = census_read.read_python_tree(mem, sp, max_nodes=10)
    # (The last node read, the deepest, is the first in order: id 0.)
    assert got.found == [(v.cls, v.node) for v in py.violations] and \
        got.found[0] == ("height", 0)


def test_a_tree_that_keeps_changing_is_changing_in_c():
    class Moving(pages.Pages):
        """Every read of the root's page sees the root moved."""

        moves = 0

        def read(self, addr, size):
            if addr & ~(pages.PAGE - 1) == pages.ROOT:
                self.moves += 1
                self.write(pages.ROOT, struct.pack("<Q", pages.addr_of(
                    self.moves % 20 + 1)))
            return super().read(addr, size)
    mem = Moving()
    pages.lay(mem, 20)
    out = census_read.read_census_tree(mem, pages.spec(), attempts=6)
    assert (out.state, out.checker, out.reads) == ("changing", "c", 6)


def test_an_error_in_a_read_is_raised_again():
    class Broken(pages.Pages):
        def read(self, addr, size):
            raise ZeroDivisionError("a reader's own bug")
    with pytest.raises(ZeroDivisionError):
        census_read.read_census_tree(Broken(), pages.spec())


def test_an_unreadable_root_is_unreadable_in_c():
    out = census_read.read_census_tree(pages.Pages(), pages.spec())
    assert (out.state, out.checker) == ("unreadable", "c")
    assert out.error == f"the root: {Fault(pages.ROOT)}"


# --- in the census -----------------------------------------------------------

class _NoProg:
    """No types and no symbols (test_census's FakeProg)."""

    def type(self, name):
        raise LookupError(name)

    symbol = type


def _census(mem, trees: dict, **kw):
    """A census of *trees* (name -> spec) in *mem*."""
    f = census_find.Finder(_NoProg(), mem)
    for name, sp in trees.items():
        f.add("k.root", "global", name, sp.root_slot, False,
              sp.root_slot, sp)
    args = argparse.Namespace(kind=None, time_limit=None, attempts=8, **kw)
    return census.run_census(_NoProg(), mem, args, finder=f)


def _two(mem):
    """A valid tree and a broken one (a red root) of the same kind."""
    pages.lay(mem, 30)
    other = pages.Pages()
    pages.lay(other, 30)
    shift = 0x40000000
    for page, data in other.pages.items():
        mem.pages[page + shift] = bytearray(data)
    # The second tree: its pointers shifted, its root red.
    for nid in range(1, 31):
        at = pages.addr_of(nid) + shift
        pc, right, left = struct.unpack("<QQQ", mem.read(at, 24))
        moved = [w + shift if w & ~3 else w for w in (pc, right, left)]
        mem.write(at, struct.pack("<QQQ", *moved))
    root = struct.unpack("<Q", mem.read(pages.ROOT + shift, 8))[0] + shift
    mem.write(pages.ROOT + shift, struct.pack("<Q", root))
    mem.write(root, struct.pack("<Q", 0))
    good = pages.spec(aug=False, leftmost=False)
    return {"good": good, "bad": replace(good, root_slot=pages.ROOT + shift,
                                         name="bad")}


def test_a_violation_the_c_core_finds_is_the_python_checkers():
    mem = pages.Pages()
    c = _census(mem, _two(mem))
    by = {i.name: o for i, o in c.results}
    assert by["good"].checker == "c" and by["good"].state == "ok"
    assert by["bad"].checker == "c+python" and by["bad"].note is None
    assert by["bad"].violations[0].cls == "root-color"
    assert c.checked() == {"c": 1, "python": 0, "confirmed": 1}
    assert c.status() == census.EXIT_FAIL and not c.disagreements()


def test_a_violation_python_does_not_confirm_is_a_note(monkeypatch):
    mem = pages.Pages()
    pages.lay(mem, 20)
    real = ccore.read

    def lying(*a, **kw):
        got = real(*a, **kw)
        got.state, got.found, got.total = "violation", [("order", 3)], 1
        return got
    monkeypatch.setattr(ccore, "read", lying)
    c = _census(mem, {"t": pages.spec()})
    (_, out), = c.results
    assert (out.state, out.checker) == ("ok", "c+python")
    assert "the C core found 1 violations (first order 3)" in out.note
    assert any(n.startswith("checkers disagree: pages-field:")
               for n in c.notes)


def test_the_census_says_which_checker_in_its_json(monkeypatch):
    import json
    mem = pages.Pages()
    c = _census(mem, _two(mem))
    doc = json.loads(census_out.document(c))
    assert doc["checker"] == "c" and doc["checker_trees"] == {
        "c": 1, "python": 0, "confirmed": 1}
    monkeypatch.setenv("RBTI_CCORE", "python")
    c = _census(mem, _two(mem))
    doc = json.loads(census_out.document(c))
    assert doc["checker"] == "python" and doc["checker_trees"] == {
        "c": 0, "python": 2, "confirmed": 0}
    assert "RBTI_CCORE=python" in c.core


def test_checking_in_python_is_said_once(monkeypatch, capsys):
    from rbtilib.kernel import census_cmd
    monkeypatch.setattr(census_cmd, "_SAID", set())
    monkeypatch.setenv("RBTI_CCORE", "python")
    c = _census(pages.Pages(), {})
    census_cmd.say_checker(c)
    census_cmd.say_checker(c)
    err = capsys.readouterr().err
    assert err.count("checking in Python") == 1 and "RBTI_CCORE" in err


def test_trees_of_a_kind_are_read_in_one_call_and_agree():
    """The census's batches (census_read.read_trees): roots found with no
    spec of their own, read for structure (a kind the debug info does not
    describe), a kind in one call; the broken one read again on its own
    and confirmed by the Python checker."""
    mem = pages.Pages()
    roots = []
    for t in range(6):          # six trees, 0x40000000 apart
        one = pages.Pages()
        nodes = pages.lay(one, 5 + 7 * t, seed=t)
        shift = t << 30
        for page, data in one.pages.items():
            mem.pages[page + shift] = bytearray(data)
        for addr in nodes.values():
            at = addr + shift
            words = struct.unpack("<QQQ", mem.read(at, 24))
            mem.write(at, struct.pack("<QQQ", *(w + shift if w & ~3 else w
                                                for w in words)))
        root = pages.ROOT + shift
        mem.write(root, struct.pack("<Q", struct.unpack(
            "<Q", mem.read(root, 8))[0] + shift))
        roots.append(root)
    bad = struct.unpack("<Q", mem.read(roots[4], 8))[0]
    mem.write(bad, struct.pack("<Q", 0))            # a red root
    f = census_find.Finder(_NoProg(), mem)
    for t, root in enumerate(roots + [pages.ROOT + (7 << 30)]):
        f.add("x.root", "global", f"t{t}", root, False, root)
    mem.write(pages.ROOT + (7 << 30), bytes(8))     # an empty root
    seen = []
    real = ccore.Reader.batch

    def batch(self, p, slots, addrs):
        seen.append(len(slots))
        return real(self, p, slots, addrs)
    try:
        ccore.Reader.batch = batch
        c = census.run_census(_NoProg(), mem, argparse.Namespace(
            kind=None, time_limit=None, attempts=8), finder=f)
    finally:
        ccore.Reader.batch = real
    assert seen == [7]          # the empty root too: one read in C
    got = {i.name: (o.state, o.checker, o.nodes) for i, o in c.results}
    assert got == {"t0": ("ok", "c", 5), "t1": ("ok", "c", 12),
                   "t2": ("ok", "c", 19), "t3": ("ok", "c", 26),
                   "t4": ("violation", "c+python", 33),
                   "t5": ("ok", "c", 40), "t6": ("ok", "", 0)}
    specs = census_read.Specs(_NoProg(), mem)
    for inst, out in c.results:
        py = census_read.read_python_tree(mem, specs.spec(inst))
        assert (py.state, py.nodes, py.height) == (out.state, out.nodes,
                                                   out.height)


def test_a_tree_of_a_batch_that_changed_is_read_again_alone(monkeypatch):
    """On live memory a batch reads every page once again at its end: a
    tree whose bytes changed in between is read again on its own; the
    others have their verdict from the batch."""
    class Once(pages.Pages):
        """The first page of the second tree reads otherwise once, at
        its second read (the batch's own second read)."""

        seen = 0

        def read(self, addr, size):
            data = super().read(addr, size)
            if addr == pages.BASE + (1 << 30) and size == pages.PAGE:
                self.seen += 1
                if self.seen == 2:
                    # (The right link of node 1, at 128 + 8 + 8.)
                    data = data[:144] + bytes([data[144] ^ 8]) + data[145:]
            return data
    mem = Once()
    roots = []
    for t in range(3):
        one = pages.Pages()
        nodes = pages.lay(one, 20, seed=t)
        shift = t << 30
        for page, data in one.pages.items():
            mem.pages[page + shift] = bytearray(data)
        for addr in nodes.values():
            words = struct.unpack("<QQQ", mem.read(addr + shift, 24))
            mem.write(addr + shift, struct.pack(
                "<QQQ", *(w + shift if w & ~3 else w for w in words)))
        root = pages.ROOT + shift
        mem.write(root, struct.pack("<Q", struct.unpack(
            "<Q", mem.read(root, 8))[0] + shift))
        roots.append(root)
    f = census_find.Finder(_NoProg(), mem)
    for t, root in enumerate(roots):
        f.add("x.root", "global", f"t{t}", root, False, root)
    alone = []
    real = census_read.read_census_tree

    def one(mem_, spec, *a, **kw):
        alone.append(spec.name)
        return real(mem_, spec, *a, **kw)
    monkeypatch.setattr(census_read, "read_census_tree", one)
    c = census.run_census(_NoProg(), mem, argparse.Namespace(
        kind=None, time_limit=None, attempts=8), finder=f)
    assert alone == ["t1"]
    assert [(i.name, o.state, o.checker, o.nodes) for i, o in c.results] == [
        ("t0", "ok", "c", 20), ("t1", "ok", "c", 20), ("t2", "ok", "c", 20)]


def test_the_out_dumps_of_trees_the_c_core_read(tmp_path):
    mem = pages.Pages()
    pages.lay(mem, 25)
    c = _census(mem, {"t": pages.spec()}, out=str(tmp_path))
    (_, out), = c.results
    assert out.checker == "c" and out.tree is not None
    python = census_read.read_python_tree(mem, pages.spec())
    assert out.text() == python.text()


def test_the_fake_memories_tests_use_are_read_directly():
    """kmem's FakeMemory is read as asked: two passes, never a page."""
    class Logged(FakeMemory):
        sizes: list = []

        def read(self, addr, size):
            self.sizes.append(size)
            return super().read(addr, size)
    mem = build(GOOD, 0, mem=Logged())
    sp = kmem_spec(key=Get("key"))
    out = census_read.read_census_tree(mem, sp)
    assert (out.state, out.checker, out.nodes, out.reads) == ("ok", "c", 5, 2)
    assert not any(size == 4096 for size in mem.sizes)


# --- the C fuzzer ------------------------------------------------------------

def _fuzzer(tmp_path, *flags) -> Path:
    exe = tmp_path / "ccore_fuzz"
    src = [REPO / "tools" / "tests_support" / "ccore_fuzz.c"] + \
        [SRC / s for s in ccore_lib.SOURCES]
    cc = os.environ.get("CC", "gcc").split()
    run = subprocess.run(cc + ["-O1", "-g", "-std=gnu11", "-Wall", "-Wextra",
                               "-Werror", *flags, "-o", str(exe)] +
                         [str(s) for s in src], capture_output=True,
                         text=True, timeout=300)
    if run.returncode != 0 and flags and "sanitize" in run.stderr:
        pytest.skip(f"no sanitizers: {run.stderr.strip()[-200:]}")
    assert run.returncode == 0, run.stderr
    return exe


@pytest.mark.slow
def test_the_fuzzer_under_asan_and_ubsan(tmp_path):
    exe = _fuzzer(tmp_path, "-fsanitize=address,undefined",
                  "-fno-sanitize-recover=all")
    for seed in (1, 2):
        run = subprocess.run([str(exe), "1500", str(seed)],
                             capture_output=True, text=True, timeout=600)
        assert run.returncode == 0, run.stdout + run.stderr
        assert " ok, " in run.stdout and "violation" in run.stdout


@pytest.mark.slow
def test_the_fuzzer_under_valgrind(tmp_path):
    if shutil.which("valgrind") is None:
        pytest.skip("no valgrind (apt-get install valgrind)")
    exe = _fuzzer(tmp_path)
    run = subprocess.run(["valgrind", "-q", "--error-exitcode=9",
                          "--leak-check=full",
                          "--errors-for-leak-kinds=definite,indirect",
                          str(exe), "200", "3"],
                         capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, run.stdout + run.stderr[-2000:]


def test_what_the_c_core_read_has_a_key_for_change_detection():
    """census-tests tells a tree that changed between two censuses by the
    key of what each read (``out.snap.key()``): a tree the C core read
    has one too, equal for an unchanged tree, unequal once it changed."""
    mem = pages.Pages()
    trees = _two(mem)

    def keys(c) -> dict:
        return {inst.name: out.snap.key() for inst, out in c.results
                if out.snap is not None}

    first = _census(mem, trees)
    assert any(out.checker == "c" for _, out in first.results)
    again = keys(_census(mem, trees))
    assert keys(first) == again and "good" in again
    node = pages.addr_of(7)
    pc, right, left = struct.unpack("<QQQ", mem.read(node, 24))
    mem.write(node, struct.pack("<Q", pc ^ 1))      # recoloured
    assert keys(_census(mem, trees))["good"] != again["good"]
