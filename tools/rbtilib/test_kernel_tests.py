# SPDX-License-Identifier: GPL-2.0
"""tools/kernel-tests' list of corrupt cases, checked on the host: the
commands that apply to the seven trees are the CORRUPT_CASES it asserts
in the guest (the others must be EINVAL there, as on the fake)."""

import os

from rbtilib.driver import DebugfsError
from tests_support.trees import CONTRACT_TREES, FakeDebugfs, load_script

PATH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "kernel-tests")


def test_the_listed_cases_are_the_asserted_number():
    kt = load_script(PATH, "kernel_tests")
    fake = FakeDebugfs()
    fake.set_param("allow_corrupt", "1")
    listed = 0
    for info in CONTRACT_TREES:
        kt.populate(fake, info.name, info.flags, n=60, seed=7)
        for command in kt.corrupt_commands(fake.dump(info.name)):
            kt.populate(fake, info.name, info.flags, n=60, seed=7)
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
    assert listed == kt.CORRUPT_CASES == 79
