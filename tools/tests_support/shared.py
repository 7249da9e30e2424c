# SPDX-License-Identifier: GPL-2.0
"""What several rbtilib test modules use: the fuzz configuration of the
fuzzer's tests, a fault for the fake module, and the rbti script loaded
as a module."""

import os

from rbtilib import fuzz
from tests_support.trees import CONTRACT_TREES, load_script

INFO = {info.name: info for info in CONTRACT_TREES}

RBTI = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(
    __file__))), "rbti")


def config(**kw) -> fuzz.Config:
    """A fuzz Config: the plain uniform mix (no phases, no single-op
    files) unless asked."""
    base = dict(ops=3000, seed=7, check_every=500, keys=(0, 40),
                progress=0, shrink_tests=2000, key_mode="dense",
                phases=False, single=0)
    base.update(kw)
    return fuzz.Config(**base)


def off_by_one_near(tree, op, key, line):
    """A FakeDebugfs fault: every ``near`` reply one key too high."""
    if op == "n" and line.startswith("near "):
        nid, found = line.split()[1:]
        return f"near {nid} {int(found) + 1}"
    return line


_RBTI = []


def rbti_script():
    """tools/rbti loaded as the module ``rbti_cli`` (once)."""
    if not _RBTI:
        _RBTI.append(load_script(RBTI, "rbti_cli"))
    return _RBTI[0]
