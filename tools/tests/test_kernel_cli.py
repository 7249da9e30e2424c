# SPDX-License-Identifier: GPL-2.0
"""Tests of rbti kernel and rbti verify around the walk: errors, --json,
debug info search, module symbols."""

import json

import pytest

from rbtilib import kernel
from rbtilib.kernel import commands, debuginfo, stable, walk
from rbtilib.dump import parse_dump
from tests_support.fakedrgn import FakeDrgn
from tests_support.kmem import GOOD, LAYOUT, ROOT_SLOT, build, read, spec


class _Spec:
    def __init__(self, name):
        self.name = name


@pytest.mark.parametrize("error,status,text", [
    (kernel.Changed("kept changing"), 3, "santos: changed while reading"),
    (kernel.Fault(0xdead), 3, "santos: FAULT the tree's memory: cannot read "
     "address 0xdead")])
def test_verify_reports_a_tree_that_changes_or_faults(error, status, text,
                                                     monkeypatch, capsys):
    """rbti verify let Changed and Fault escape as tracebacks: they are a
    verdict on the tree, and the other trees are still verified.  Either
    leaves the run incomplete (exit 3, docs/json.md); a difference in
    another tree outweighs it (exit 1)."""
    import argparse
    from rbtilib import driver
    from tests_support.fake import FakeDebugfs
    fake = FakeDebugfs()

    def read_stable(mem, spec, attempts, confirm=True):
        if spec.name == "santos":
            raise error
        return stable.read_stable(build(GOOD, 0), walk.TreeSpec(
            name="mainline", layout=walk.Layout(LAYOUT.entry, 0),
            root_slot=ROOT_SLOT, key=lambda e, c: e.key), attempts)
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


def test_kernel_exits_3_when_a_root_cannot_be_read(monkeypatch, capsys):
    """docs/json.md: a tree whose root pointer cannot be read was not
    read at all: incomplete (exit 3, "complete": false), not a violation
    (it was 1); a violation in another tree still makes it 1."""
    import json
    bad = dict(GOOD)
    bad[3] = (5, "B", 1, None, None)            # black-height broken
    mems = {"good": build(GOOD, 0), "bad": build(bad, 0)}
    gone = "gone: the tree's root: cannot read address 0xbad000"
    specs = [spec(name="good"), spec(name="gone", root_slot=0xbad000)]
    monkeypatch.setattr(commands, "DrgnMemory", lambda prog: None)
    monkeypatch.setattr(commands, "read_stable", lambda m, sp, attempts, confirm=True:
                        stable.read_stable(mems.get(sp.name, mems["good"]), sp,
                                           attempts, confirm))
    monkeypatch.setattr(commands, "_specs", lambda prog, args: specs)
    assert commands.run(_kernel_args(check=True, json=False), prog=object()) == 3
    out = capsys.readouterr()
    assert out.out == "good: ok (5 nodes)\n" and out.err == gone + "\n"
    assert commands.run(_kernel_args(check=True), prog=object()) == 3
    doc = json.loads(capsys.readouterr().out)
    assert (doc["ok"], doc["complete"]) == (False, False)
    assert (doc["changing"], doc["unreadable"]) == (0, 1)
    assert doc["trees"][1] == {"tree": "gone", "ok": False,
                               "error": gone.split(": ", 1)[1]}
    specs[:] = [specs[1]]
    assert commands.run(_kernel_args(json=False), prog=object()) == 3
    assert capsys.readouterr().err == gone + "\n"
    specs[:] = [spec(name="gone", root_slot=0xbad000), spec(name="bad")]
    assert commands.run(_kernel_args(check=True), prog=object()) == 1
    doc = json.loads(capsys.readouterr().out)
    assert (doc["ok"], doc["complete"]) == (False, False)
    _fake_kernel(monkeypatch, {"good": GOOD})
    assert commands.run(_kernel_args(check=True), prog=object()) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["complete"] is True
    assert (doc["changing"], doc["unreadable"]) == (0, 0)
    # A tree that keeps changing is counted as changing.
    monkeypatch.setattr(commands, "read_stable", lambda *a, **k: (_ for _ in
                        ()).throw(stable.Changed("kept changing")))
    assert commands.run(_kernel_args(check=True), prog=object()) == 3
    doc = json.loads(capsys.readouterr().out)
    assert (doc["complete"], doc["changing"], doc["unreadable"]) == (
        False, 1, 0)


def test_kernel_check_caps_and_notes(monkeypatch, capsys):
    """kernel --check prints ten violations and '… and N more', as rbti
    check does; an aug without a rule is a note."""
    n = 20
    shape = {i: (i * 10, "B", i - 1 if i else None, None,
                 i + 1 if i + 1 < n else None) for i in range(n)}
    _fake_kernel(monkeypatch, {"chain": shape})
    assert commands.run(_kernel_args(check=True, json=False),
                        prog=object()) == 1
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 11 and out[-1].startswith("chain: … and ")
    assert out[-1].endswith(" more violations (--max-violations all prints "
                            "them)")
    # --max-violations, as in rbti check: N, or all.
    total = 10 + int(out[-1].split()[3])
    for limit, lines in ((3, 4), (None, total)):
        _fake_kernel(monkeypatch, {"chain": shape})
        assert commands.run(_kernel_args(check=True, json=False, max=limit),
                            prog=object()) == 1
        out = capsys.readouterr().out.splitlines()
        assert len(out) == lines and ("more violation" in out[-1]) == bool(
            limit), out
    _fake_kernel(monkeypatch, {"chain": shape})
    assert commands.run(_kernel_args(check=True, json=True, max=2),
                        prog=object()) == 1
    doc = json.loads(capsys.readouterr().out)
    assert len(doc["trees"][0]["violations"]) == 2
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
    from tests_support.fake import FakeDebugfs
    fake = FakeDebugfs()
    monkeypatch.setattr(driver, "Debugfs", lambda root: fake)
    _fake_kernel(monkeypatch, {"santos": GOOD, "mainline": None})
    args = argparse.Namespace(command="verify", trees=[], all=True,
                              attempts=2, root="/x", json=True)
    assert commands.run(args, prog=object()) == 1
    doc = json.loads(capsys.readouterr().out)
    assert doc["command"] == "verify" and doc["ok"] is False
    assert doc["complete"] is False
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


def test_module_symbols_are_read_once_while_the_file_stays(tmp_path):
    """kallsyms is read once for many symbols (a debug kernel lists it in
    about a second), and again once it changes; a hidden (0) address is
    no address, a symbol of the kernel itself is not a module's."""
    syms = tmp_path / "kallsyms"
    syms.write_text("ffffffff81000000 T _text\n"
                    "0000000000000000 d rbti_hidden\t[rbtree_inspector]\n"
                    "ffffffffc00021a0 d rbti_trees\t[rbtree_inspector]\n"
                    "ffffffffc00031a0 d rbti_trees\t[other_module]\n")
    first = debuginfo.module_symbols(str(syms))
    assert first == {"rbti_trees": 0xffffffffc00021a0}
    assert debuginfo.module_symbols(str(syms)) is first
    syms.write_text("ffffffffc00051a0 d rbti_trees\t[rbtree_inspector]\n"
                    "ffffffffc0005000 d rbti_hidden\t[rbtree_inspector]\n")
    assert debuginfo.module_symbols(str(syms)) == {
        "rbti_trees": 0xffffffffc00051a0, "rbti_hidden": 0xffffffffc0005000}
    syms.unlink()
    with pytest.raises(kernel.KernelError, match="kallsyms"):
        debuginfo.module_symbols(str(syms))


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
    missing = FakeDrgn(missing="missing debugging symbols for kernel "
                       "(vmlinux)")
    with pytest.raises(kernel.KernelError, match="build id aabb.*drgn: "
                       "missing debugging symbols"):
        open_live(monkeypatch, tmp_path, missing)
