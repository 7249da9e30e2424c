# SPDX-License-Identifier: GPL-2.0
"""The fake module's second checker agrees with the Python checker on
every corrupt command of every tree kind, and on valid trees."""

import pytest

from rbtilib import checker
from tests_support import refcheck
from rbtilib.driver import DebugfsError
from rbtilib.dump import inorder
from tests_support.fake import FakeDebugfs
from tests_support.trees import CONTRACT_TREES, corrupt_tree


def _populated(info):
    fake = FakeDebugfs()
    keys = list(range(0, 300, 3))
    if info.dup:
        keys += list(range(0, 300, 9)) * 2
    fake.insert(info.name, keys)
    for key in range(30, 150, 6):
        fake.erase(info.name, key)
    return fake.dump(info.name)


def _commands(tree):
    order = list(inorder(tree))
    root = tree.nodes[tree.root]
    some = [order[len(order) // k].key for k in (2, 3, 5, 7)]
    out = ["leftmost", "rightmost", "count"]
    for key in [root.key] + some:
        out += [f"color {key}", f"black {key}", f"parent {key}",
                f"aug {key}", f"detach {key}", f"share {key}",
                f"cycle {key}", f"key {key} {order[-1].key + 5}",
                f"key {key} -1"]
    return out


@pytest.mark.parametrize("info", CONTRACT_TREES, ids=lambda i: i.name)
def test_refcheck_agrees_with_the_checker(info):
    tree = _populated(info)
    assert refcheck.check(tree) == "ok"
    tried = 0
    for command in _commands(tree):
        try:
            bad = corrupt_tree(tree, command)
        except DebugfsError:
            continue
        tried += 1
        want = checker.first_violation(bad)
        got = refcheck.check(bad)
        assert want is not None, command
        assert got.startswith(f"fail {want.cls} node "
                              f"{'-' if want.node is None else want.node}:"
                              ), (command, str(want), got)
    assert tried >= 25
