# SPDX-License-Identifier: GPL-2.0
"""The census's C core against the Python walk and checker on every tree
of a census of a real vmcore, and on each of those trees broken at random
(census_agree): the same verdict, violations (class and node), nodes and
snapshot, tree for tree.

The vmcore is the one tools/kernel-vmcore-test makes (its directory, run
with --keep: guest.core and guest.json, which names the vmlinux and the
module's .ko), named by $RBTI_TEST_VMCORE; without it there is no test
(not a skipped one: make test's skips take a reason of the closed list
qemu/skip-reasons). tools/kernel-vmcore-test runs the same comparison on
its own dump (the vmcore suite), so the gate has it either way."""

import argparse
import json
import os

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.drgn]
VMCORE = os.environ.get("RBTI_TEST_VMCORE")


def _census(where: str):
    pytest.importorskip("drgn")
    from rbtilib.kernel import ccore, debuginfo
    from rbtilib.kernel.census import run_census
    if ccore.library()[0] is None:
        pytest.skip(f"no C core: {ccore.library()[1]}")
    with open(os.path.join(where, "guest.json")) as f:
        saved = json.load(f)
    args = argparse.Namespace(
        command="census", core=os.path.join(where, "guest.core"),
        kcore="/proc/kcore", vmlinux=saved["vmlinux"],
        debug_info=[saved["ko"]], kind=None, time_limit=None, attempts=4,
        out=None)
    prog = debuginfo.open_program(args)
    mem = debuginfo.DrgnMemory(prog)
    return prog, mem, run_census(prog, mem, args)


def _every_tree_of_a_vmcore_and_its_breaks_agree():
    from rbtilib.kernel.census_agree import agree, agree_broken
    prog, mem, c = _census(VMCORE)
    assert c.checker == "c" and not c.disagreements()
    got = agree(prog, mem, c.results, attempts=4)
    print(got.line())
    assert got.trees > 500 and got.agreed == got.trees, got.differ
    broken = agree_broken(prog, mem, c.results, per_tree=2)
    print(broken.line(), broken.classes)
    assert broken.agreed == broken.trees, broken.differ
    assert sum(broken.classes.values()) > 200 and len(broken.classes) >= 6


if VMCORE:
    test_every_tree_of_a_vmcore_and_its_breaks_agree = \
        _every_tree_of_a_vmcore_and_its_breaks_agree
