# SPDX-License-Identifier: GPL-2.0
"""tools/kernel-tests' list of corrupt cases, checked on the host: on
every tree the fake module serves (the rbtree family's included, all of
which the guest reads from memory), the commands that apply are the
expected_cases() the guest asserts for that tree's flags, each accepted
and caught by check; the others are EINVAL (as in the guest)."""

import os

import pytest

from rbtilib.driver import DebugfsError
from rbtilib.kernel import stable, walk
from tests_support.kmem import GOOD, build, spec
from tests_support.fake import FakeDebugfs
from tests_support.trees import CONTRACT_TREES, FAMILY_TREES, load_script

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "kernel-tests")


def _populated(kt, fake, info):
    kt.populate(fake, info.name, info.flags, n=60, seed=7)
    return fake.dump(info.name)


@pytest.mark.parametrize("info", CONTRACT_TREES + FAMILY_TREES,
                         ids=lambda i: i.name)
def test_each_tree_runs_its_expected_cases(info):
    kt = load_script(PATH, "kernel_tests")
    fake = FakeDebugfs(CONTRACT_TREES + FAMILY_TREES)
    fake.set_param("allow_corrupt", "1")
    commands = kt.corrupt_commands(_populated(kt, fake, info))
    assert len(commands) == kt.CORRUPT_COMMANDS
    listed = 0
    for command in commands:
        _populated(kt, fake, info)
        try:
            fake.corrupt(info.name, command)
            got = None
        except DebugfsError as e:
            got = e.name
        if kt.applies(command, info.flags):
            listed += 1
            assert got is None, (info.name, command, got)
            assert not fake.check(info.name).ok, (info.name, command)
        else:
            assert got == "EINVAL", (info.name, command, got)
    assert listed == kt.expected_cases(info.flags)


def test_the_seven_contract_trees_run_79_cases():
    """The README's count, from the flags alone."""
    kt = load_script(PATH, "kernel_tests")
    assert sum(kt.expected_cases(i.flags) for i in CONTRACT_TREES) == 79


def test_the_big_read_counts_its_reads_of_memory(monkeypatch):
    """test_big's bound on work: a pass makes a few reads a node; a walk
    that reads every node over and over passes READS_PER_NODE."""
    kt = load_script(PATH, "kernel_tests")
    mem = kt.CountedMemory(build(GOOD, 0))
    got = stable.read_stable(mem, spec())
    assert len(got.snap.nodes) == 5 and mem.passes >= 1
    assert 0 < mem.reads <= kt.READS_PER_NODE * 5 * mem.passes
    real = walk._read_node

    def again(*args, **kw):
        for _ in range(kt.READS_PER_NODE):
            real(*args, **kw)
        return real(*args, **kw)
    monkeypatch.setattr(walk, "_read_node", again)
    mem = kt.CountedMemory(build(GOOD, 0))
    stable.read_stable(mem, spec())
    assert mem.reads > kt.READS_PER_NODE * 5 * mem.passes
