# SPDX-License-Identifier: GPL-2.0
"""A tree's kind (rbtilib.dumptypes.TreeKind): what each of the module's
trees can do, derived from its ``trees`` line once, the same on a
driver.TreeInfo and on a parsed dump's Tree."""

import os
import re

import pytest

from rbtilib import record
from rbtilib.driver import ReplyError, parse_trees
from rbtilib.dumptypes import TREE_FILES
from rbtilib.opstream import DIALECTS
from tests_support.trees import CONTRACT_TREES, FAMILY_TREES, build_tree

REPO = os.path.join(os.path.dirname(__file__), os.pardir, os.pardir)


def _read(*path: str) -> str:
    with open(os.path.join(REPO, *path)) as f:
        return f.read()


def _example() -> str:
    """kmod/DEBUGFS.md's example of the trees file (6.12: every tree)."""
    text = _read("kmod", "DEBUGFS.md")
    m = re.search(r"^    (rbtree-inspector format 1\n(?:    \S.*\n)+)", text,
                  re.M)
    assert m, "DEBUGFS.md has no indented example of the trees file"
    return m.group(1).replace("\n    ", "\n")


TREES = _example()
"""The module's trees: kmod/DEBUGFS.md's example (6.12)."""

PROPS = ("dup", "rejects_present", "augmented", "valued", "interval",
         "latch", "lockless", "hints", "has_near")
KINDS = {
    # name:          dup rej aug val int lat llk hnt near  dialect   files+
    "overstreet":     (0, 1, 0, 0, 0, 0, 0, 0, 1, "plain", ()),
    "overstreet_dup": (1, 0, 0, 0, 0, 0, 0, 0, 1, "plain", ()),
    "santos":         (0, 1, 0, 0, 0, 0, 0, 1, 1, "hints", ()),
    "santos_dup":     (1, 0, 0, 0, 0, 0, 0, 1, 1, "hints", ()),
    "santos_aug":     (0, 1, 1, 0, 0, 0, 0, 1, 1, "hints", ()),
    "santos_replace": (0, 0, 0, 0, 0, 0, 0, 1, 1, "hints", ()),
    "mainline":       (0, 1, 0, 0, 0, 0, 0, 0, 1, "plain", ()),
    "mainline_cached": (1, 0, 0, 0, 0, 0, 0, 0, 1, "plain", ()),
    "mainline_aug":   (0, 1, 1, 1, 0, 0, 0, 0, 1, "value", ()),
    "interval":       (1, 0, 1, 1, 1, 0, 0, 0, 0, "interval", ("overlap",)),
    "latch":          (0, 1, 0, 0, 0, 1, 0, 0, 0, "latch", ("stress",)),
    "mainline_rcu":   (0, 1, 0, 0, 0, 0, 1, 0, 1, "plain", ("stress",)),
}
INFOS = {i.name: i for i in parse_trees(TREES)}


def test_the_trees_are_the_modules():
    assert list(INFOS) == list(KINDS)
    assert list(INFOS.values()) == CONTRACT_TREES + FAMILY_TREES


@pytest.mark.parametrize("name", KINDS)
def test_each_kind(name):
    info, want = INFOS[name], KINDS[name]
    tree = build_tree([3, 1, 2], info)
    for kind in (info, tree):
        assert {p: getattr(kind, p) for p in PROPS} == \
            {p: bool(v) for p, v in zip(PROPS, want)}, name
        assert kind.dialect == want[-2]
        assert kind.files == TREE_FILES + want[-1]
    assert info.dialect in DIALECTS


def test_files_are_the_modules_table():
    """TreeKind.files against kmod/inspector_main.c's rbti_files: a file with
    no RBTI_ flags is every tree's, else those with any of them."""
    table = re.search(r"rbti_files\[\] = \{(.*?)\n\};",
                      _read("kmod", "inspector_main.c"), re.S).group(1)
    rows = re.findall(r'\{ "(\w+)",\s*&\w+(?:,\s*([A-Z_ |]+))? \}', table)
    assert len(rows) == len(TREE_FILES) + 2
    for info in INFOS.values():
        want = tuple(name for name, needs in rows if not needs or any(
            f.strip()[len("RBTI_"):].lower() in info.flags
            for f in needs.split("|")))
        assert info.files == want, info.name


def test_a_listing_overrides_the_kinds_files():
    info = record.replace(INFOS["santos"], listed=("find", "insert"))
    assert info.files == ("find", "insert")
    assert record.replace(info, listed=None) == INFOS["santos"]


@pytest.mark.parametrize("text", [
    "",
    "rbtree-inspector format 2\n",
    "rbtree-inspector format 1\nx y\n",
    "rbtree-inspector format 1\nx y z w\n",
    "rbtree-inspector format 1\nx mainline bogus\n",
    "rbtree-inspector format 1\nx mainline unique,unique\n",
    "rbtree-inspector format 1\nx mainline unique,\n",
])
def test_malformed_trees_lines_are_rejected(text):
    with pytest.raises(ReplyError):
        parse_trees(text)
