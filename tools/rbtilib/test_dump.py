# SPDX-License-Identifier: GPL-2.0
"""Tests of the dump parser and formatter."""

import dataclasses

import pytest
from hypothesis import given, settings, strategies as st

from rbtilib.dump import (UNKNOWN_PARENT, DumpError, Node, format_dump,
                          inorder, parse_dump, preorder)
from rbtilib.testing import AUG_SAMPLE_DUMP as SAMPLE, CONTRACT_TREES, build_tree

SANTOS_AUG = CONTRACT_TREES[4]
SANTOS_DUP = CONTRACT_TREES[3]



def test_parse_sample():
    tree = parse_dump(SAMPLE)
    assert tree.name == "santos_aug" and tree.api == "santos"
    assert tree.flags == {"unique", "count", "augmented"}
    assert (tree.count, tree.root, tree.height, tree.aug) == (3, 2, 2, "size")
    assert tree.leftmost is None and tree.rightmost is None
    assert list(tree.nodes) == [2, 1, 3]
    assert tree.nodes[1] == Node(1, 10, "R", 2, None, None, 1)
    assert tree.error is None
    assert format_dump(tree) == SAMPLE


def test_walks():
    tree = build_tree(list(range(20)), SANTOS_AUG)
    assert [n.key for n in inorder(tree)] == list(range(20))
    assert [n.id for n in preorder(tree)] == list(tree.nodes)


def test_empty_tree_round_trip():
    tree = build_tree([], CONTRACT_TREES[0])
    text = format_dump(tree)
    assert "root -\n" in text and text.endswith("end 0\n")
    assert parse_dump(text) == tree
    assert list(inorder(tree)) == []


def test_unknown_parent_and_error_round_trip():
    tree = build_tree([1, 2, 3], SANTOS_DUP)
    nid = next(iter(tree.nodes))
    tree.nodes[nid] = dataclasses.replace(tree.nodes[nid],
                                          parent=UNKNOWN_PARENT)
    tree.error = "depth"
    text = format_dump(tree)
    assert f"node {nid} 2 B ? " in text
    assert "error depth\nend 3\n" in text
    assert parse_dump(text) == tree


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(-2**63, 2**63 - 1), max_size=60),
       st.sampled_from(CONTRACT_TREES))
def test_round_trip(keys, info):
    tree = build_tree(keys, info, erase=keys[::3])
    assert parse_dump(format_dump(tree)) == tree


def test_shared_node_printed_twice_is_kept_once():
    text = SAMPLE.replace("node 3 30 R 2 - - 1\nend 3",
                          "node 3 30 R 2 - - 1\nnode 3 30 R 2 - - 1\nend 4")
    assert list(parse_dump(text).nodes) == [2, 1, 3]


@pytest.mark.parametrize("old, new, line, words", [
    ("node 1 10 R 2 - - 1", "node 1 10 X 2 - - 1", 11, "bad color"),
    ("node 1 10 R 2 - - 1", "node 1 ten R 2 - - 1", 11, "bad key"),
    ("node 1 10 R 2 - - 1", "node 1 10 R 2 - -", 11, "7 fields"),
    ("node 1 10 R 2 - - 1", "node 1 10 R 2 x - 1", 11, "bad left"),
    ("end 3", "end 4", 13, "end 4 but 3"),
    ("end 3\n", "", 13, "missing 'end'"),
    ("end 3\n", "end 3\nnode 5 1 B - - - -\n", 14, "after 'end'"),
    ("api santos", "api", 2, "fields"),
    ("api santos\n", "", 2, "expected 'api'"),
    ("height 2\n", "height 2\nbogus 1\n", 9, "unknown record"),
    ("aug size\n", "", 9, "before the header"),
    ("node 3 30 R 2 - - 1\n", "node 3 30 R 2 - - 1\nnode 3 31 R 2 - - 1\n",
     13, "different contents"),
    ("count 3", "count three", 4, "bad count"),
    ("node 2 20 B - 1 3 3\n", "\n", 10, "empty line"),
])
def test_malformed_names_the_line(old, new, line, words):
    text = SAMPLE.replace(old, new, 1)
    assert text != SAMPLE
    with pytest.raises(DumpError) as err:
        parse_dump(text)
    assert err.value.lineno == line
    assert str(err.value).startswith(f"dump line {line}: ")
    assert words in str(err.value)
