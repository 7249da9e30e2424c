# SPDX-License-Identifier: GPL-2.0
"""Every reader of a tree sees it through the one shape walk
(rbtilib.shape) and names its faults with the same words: the checker,
``rbti show``, the Graphviz renderer and the direct layout."""
from __future__ import annotations

import pytest

from rbtilib import checker, shape, show
from rbtilib.dump import parse_dump
from rbtiviz.layout import layout, to_svg
from rbtiviz.render import to_dot

HEADER = ("tree t\napi mainline\nflags unique\ncount 3\nroot 2\n"
          "leftmost -\nrightmost -\nheight 2\naug -\n")
NODES = {
    # 3's left link points back at the root.
    "cycle": ("2 20 B - 1 3", "1 10 R 2 - -", "3 30 R 2 2 -"),
    # 1's right link reaches 3 first; the root's right link then shares it.
    "shared": ("2 20 B - 1 3", "1 10 R 2 - 3", "3 30 R 2 - -"),
    # Nothing links to 3.
    "unreachable": ("2 20 B - 1 -", "1 10 R 2 - -", "3 30 R 2 - -"),
}


def tree_with(fault: str):
    lines = "".join(f"node {n} -\n" for n in NODES[fault])
    return parse_dump(f"{HEADER}{lines}end 3\n")


USERS = {
    "checker": lambda t: "\n".join(str(v) for v in checker.check(t)),
    "show": show.render,
    "render": to_dot,
    "layout": lambda t: to_svg(t) + repr(layout(t).bad),
}


@pytest.mark.parametrize("user", sorted(USERS))
@pytest.mark.parametrize("fault", sorted(NODES))
def test_each_user_names_the_fault_with_the_one_word(user, fault):
    assert shape.WORDS[fault] == fault
    out = USERS[user](tree_with(fault))
    assert fault in out
    others = set(NODES) - {fault}
    # The drawings name no fault the tree does not have.
    if user != "checker":
        assert not any(f"({o})" in out or f"{o}:" in out for o in others)


@pytest.mark.parametrize("user", sorted(USERS))
@pytest.mark.parametrize("fault", sorted(NODES))
def test_each_user_walks_the_one_shape_walk(user, fault, monkeypatch):
    """Fails for a user that walks the tree on its own or words a fault
    its own way: the words and the walk are replaced here, and every
    user's output must follow."""
    calls = []
    walk = shape.Shape._walk

    def spy(self):
        calls.append(self.tree)
        walk(self)
    monkeypatch.setattr(shape.Shape, "_walk", spy)
    word = f"WORD-{fault.upper()}"
    monkeypatch.setitem(shape.WORDS, fault, word)
    tree = tree_with(fault)
    out = USERS[user](tree)
    assert tree in calls
    if user != "checker":       # the checker's classes are the contract's
        assert word in out
