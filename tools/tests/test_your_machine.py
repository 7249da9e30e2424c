# SPDX-License-Identifier: GPL-2.0
"""The verdicts of tools/your-machine-guest (qemu/your-machine) on the
JSON documents rbti census, rbti kernel and rbti doctor print, and the
KTAP relay of qemu/your-machine, without a guest."""

import os
import subprocess

from tests_support.trees import load_script

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.dirname(HERE)
YM = load_script(os.path.join(TOOLS, "your-machine-guest"), "your_machine_guest")
VMLINUX = "/usr/lib/debug/boot/vmlinux-6.1.0-57-amd64"
KO = "/lib/modules/6.1.0-57-amd64/updates/rbtree_inspector.ko"


def verdicts(facts) -> dict:
    return {name: good for name, good, _ in facts}


def census(kinds, **kw) -> dict:
    doc = {"schema": 1, "command": "census", "ok": True, "complete": True,
           "changing": 0, "unreadable": 0, "not_read": 0, "stopped": None,
           "violations": [],
           "kinds": [{"kind": k, "nodes": n, "violations": 0} for k, n in kinds]}
    doc.update(kw)
    return doc


KINDS = [(f"kind{i}", 3) for i in range(15)] + [("dl_rq.root", 0)]


def test_census_green_without_the_module():
    got = verdicts(YM.census_facts(census(KINDS), 15, module=False))
    assert got == {"15 kinds with a non-empty tree (at least 15)": True,
                   "no violation": True, "every tree read (complete)": True,
                   "the module's trees not read (no .ko found)": True}


def test_census_each_way_it_is_red():
    """Too few non-empty kinds (an empty one does not count), a
    violation, an incomplete read, the module's trees there or not."""
    facts = YM.census_facts(census(KINDS[1:]), 15, module=False)
    assert not facts[0][1] and "kind1" in facts[0][2]
    doc = census(KINDS, violations=[{"tree": "t", "class": "order"}])
    assert not YM.census_facts(doc, 15, module=False)[1][1]
    doc = census(KINDS)
    doc["kinds"][0]["violations"] = 1
    assert not YM.census_facts(doc, 15, module=False)[1][1]
    doc = census(KINDS, complete=False, changing=2)
    fact = YM.census_facts(doc, 15, module=False)[2]
    assert not fact[1] and "changing 2" in fact[2]
    with_module = census(KINDS + [(YM.MODULE_KIND, 7)])
    assert not YM.census_facts(with_module, 15, module=False)[3][1]
    assert YM.census_facts(with_module, 15, module=True)[3][1]
    empty_module = census(KINDS + [(YM.MODULE_KIND, 0)])
    assert not YM.census_facts(empty_module, 15, module=True)[3][1]
    assert not YM.census_facts(census(KINDS), 15, module=True)[3][1]


def kernel(*trees, complete=True) -> dict:
    return {"schema": 1, "command": "kernel", "complete": complete, "check": True,
            "trees": [dict(tree=name, ok=good, nodes=nodes, error=None, violations=[])
                      for name, good, nodes in trees]}


def test_kernel_check():
    doc = kernel(("santos", True, 7), ("latch", True, 0))
    assert verdicts(YM.kernel_facts(doc, ["santos", "latch"], {"santos": 7})) == {
        "2 trees read, none with a violation": True,
        "the trees santos, latch among them": True,
        "santos: 7 nodes (at least 7)": True}
    assert not YM.kernel_facts(kernel(("santos", False, 7)))[0][1]
    assert not YM.kernel_facts(kernel(("santos", True, 7), complete=False))[0][1]
    assert not YM.kernel_facts(kernel())[0][1]          # no tree read
    facts = YM.kernel_facts(kernel(("santos", True, 2)), ["latch"], {"santos": 7})
    assert [good for _, good, _ in facts] == [True, False, False]


def doctor(module_ok: bool, found: str = "") -> dict:
    checks = [{"check": "vmlinux", "ok": True, "blocks": [],
               "found": f"{VMLINUX} for 6.1.0-57-amd64 (drgn's search)"},
              {"check": "module-debug-info", "ok": module_ok,
               "blocks": [] if module_ok else ["verify"], "found": found,
               "fix": None if module_ok else "pass --debug-info FILE, ..."}]
    return {"schema": 1, "command": "doctor", "ok": True, "checks": checks,
            "can": {"census": True, "module": True, "verify": module_ok}}


def test_doctor():
    assert all(good for _, good, _ in YM.doctor_facts(doctor(False), VMLINUX, None))
    assert all(good for _, good, _ in YM.doctor_facts(
        doctor(True, f"{KO} (build id ab)"), VMLINUX, KO))
    assert not YM.doctor_facts(doctor(False), VMLINUX, KO)[2][1]
    assert not YM.doctor_facts(doctor(True, f"{KO} (build id ab)"), VMLINUX, None)[2][1]
    blocked = doctor(False)
    blocked["checks"][1]["blocks"] = ["census", "verify"]
    assert not YM.doctor_facts(blocked, VMLINUX, None)[2][1]
    red = doctor(True, KO)
    red.update(ok=False, can={"census": False})
    red["checks"][0].update(ok=False, found="no vmlinux")
    facts = YM.doctor_facts(red, VMLINUX, KO)
    assert [good for _, good, _ in facts] == [False, False, False]   # every check ok, too


def test_the_environment_has_no_rbti_variable():
    env = YM.clean_env("/tmp/h")
    assert sorted(env) == ["HOME", "LANG", "PATH"] and env["HOME"] == "/tmp/h"


def test_relay_renumbers_the_guest_s_tests(tmp_path):
    """qemu/your-machine with a fake qemu/: the guest's KTAP lines follow
    the host's, renumbered, its tally a comment, the rest comments, and
    the closing tally counts them all."""
    qemu = tmp_path / "qemu"
    qemu.mkdir()
    script = open(os.path.join(os.path.dirname(TOOLS), "qemu", "your-machine")).read()
    (qemu / "your-machine").write_text(script)
    (qemu / "lib.sh").write_text(
        'QEMU_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)\n'
        'RBTI_KERNEL=6.1\ndie() { echo "$*" >&2; exit 1; }\n')
    stock, dbg = tmp_path / "stock", tmp_path / "dbg"
    stock.mkdir()
    dbg.mkdir()
    (stock / "release").write_text("6.1.0-57-amd64\n")
    for name, text in (
            ("stock-kernel", f"echo fetching >&2; echo {stock}"),
            ("stock-debuginfo", f"echo {dbg}"),
            ("run-in-guest", 'echo "$@" >&2; printf "%s\\n" "# Linux" '
             '"ok 1 - one" "not ok 2 - two" "ok 3 - three # SKIP why" '
             '"noise" "2 passed, 1 failed, 1 skipped"; exit 0')):
        (qemu / name).write_text(f"#!/bin/bash\n{text}\n")
        (qemu / name).chmod(0o755)
    p = subprocess.run(["bash", str(qemu / "your-machine"), "--timeout", "9"],
                       capture_output=True, text=True)
    lines = p.stdout.splitlines()
    assert p.returncode == 1, p.stdout + p.stderr
    tests = [line for line in lines if line.startswith(("ok", "not ok"))]
    assert [t.split(" - ")[0] for t in tests] == [
        "ok 1", "ok 2", "ok 3", "not ok 4", "ok 5", "ok 6"]
    assert tests[4] == "ok 5 - three # SKIP why"
    assert "# guest: 2 passed, 1 failed, 1 skipped" in lines
    assert "# noise" in lines and "# Linux" in lines
    assert any("--flavour stock --timeout 9" in line for line in lines)
    assert lines[-1] == "4 passed, 1 failed, 1 skipped"


def test_doctor_without_the_dbg_package():
    fix = "sudo apt-get install linux-image-6.1.0-57-amd64-dbg; or, ..."
    doc = {"ok": False, "can": {"census": False},
           "checks": [{"check": "vmlinux", "ok": False, "blocks": ["census", "verify"],
                       "fix": fix}]}
    assert all(good for _, good, _ in YM.doctor_missing_facts(doc, "6.1.0-57-amd64"))
    assert not YM.doctor_missing_facts(doc, "6.1.0-58-amd64")[1][1]
    assert not any(good for _, good, _ in YM.doctor_missing_facts(doctor(True), "x"))
