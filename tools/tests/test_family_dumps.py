# SPDX-License-Identifier: GPL-2.0
"""The rbtree family's dumps: the parser's new lines and
fields and their malformed forms, and both checkers on a hand-made broken
dump of every new invariant (tests_support/family.py)."""

import pytest

from rbtilib.checker import CLASSES, check, first_violation
from rbtilib.dump import DumpError, Node, format_dump, parse_dump
from tests_support import refcheck
from tests_support.family import (BROKEN, INTERVAL_DUMP, LATCH_DUMP,
                                  MAX_DUMP, edited)

SAMPLES = {"max": MAX_DUMP, "interval": INTERVAL_DUMP, "latch": LATCH_DUMP}


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_samples_round_trip_and_are_valid(name):
    tree = parse_dump(SAMPLES[name])
    assert format_dump(tree) == SAMPLES[name]
    assert check(tree) == [] and refcheck.check(tree) == "ok"


def test_value_field_and_header():
    tree = parse_dump(INTERVAL_DUMP)
    assert tree.value == "last" and tree.aug == "interval-last"
    assert tree.nodes[4] == Node(4, 30, "R", 3, None, None, 90, 90)
    tree = parse_dump(MAX_DUMP)
    assert tree.value == "value" and tree.aug == "max"
    assert tree.nodes[3].value == -4 and tree.copy1 is None


def test_latch_copy_section():
    tree = parse_dump(LATCH_DUMP)
    copy = tree.copy1
    assert (copy.root, copy.height, copy.error) == (2, 2, None)
    assert list(copy.nodes) == [2, 1, 3]
    assert copy.nodes[1] == Node(1, 10, "B", 2, None, None, None)
    assert tree.nodes[1].color == "R" and tree.value is None


MALFORMED = [
    # (sample, old, new, words in the error)
    ("max", "value value\n", "", "before the 'value' line"),
    ("max", "value value\n", "value last\n", "expected 'value'"),
    ("max", "value value\n", "value value x\n", "fields"),
    ("max", "aug max\n", "aug size\n", "expected 'max'"),
    ("interval", "aug interval-last\n", "aug max\n",
     "expected 'interval-last'"),
    ("max", "node 3 30 R 2 - - -4 -4", "node 3 30 R 2 - - -4",
     "expected 9"),
    ("max", "node 3 30 R 2 - - -4 -4", "node 3 30 R 2 - - -4 -4 1",
     "expected 9"),
    ("max", "node 3 30 R 2 - - -4 -4", "node 3 30 R 2 - - -4 +4",
     "bad value"),
    ("max", "node 3 30 R 2 - - -4 -4", "node 3 30 R 2 - - -4 04",
     "bad value"),
    ("max", "node 3 30 R 2 - - -4 -4",
     "node 3 30 R 2 - - -4 9223372036854775808", "bad value"),
    ("max", "flags unique,leftmost,augmented,value",
     "flags unique,leftmost,augmented", "expected 'size'"),
    ("latch", "aug -\n", "aug -\nvalue value\n",
     "value line on a tree without"),
    ("interval", "flags dup,augmented,value,interval",
     "flags dup,augmented,interval", "'interval' without 'value'"),
    ("max", "value value\nnode", "node", "before the 'value' line"),
    ("latch", LATCH_DUMP[LATCH_DUMP.index("copy 1"):], "end 3\n",
     "before the 'copy 1' section"),
    ("latch", "copy 1\n", "copy 2\n", "malformed copy line"),
    ("latch", "copy 1\nroot 2\n", "copy 1\n", "expected 'root'"),
    ("latch", "height 2\nnode 2 20 B - 1 3 -\nnode 1 10 B",
     "node 2 20 B - 1 3 -\nnode 1 10 B", "expected 'height'"),
    ("latch", "node 1 10 B 2 - - -", "node 1 11 B 2 - - -",
     "copy 1 node 1 has key 11"),
    ("latch", "node 1 10 B 2 - - -", "node 7 10 B 2 - - -",
     "no node of copy 0"),
    ("latch", "node 1 10 B 2 - - -", "node 2 20 B 2 - - -",
     "listed twice in copy 1"),
    ("latch", "node 1 10 B 2 - - -", "lost 1 10 B 2 - - -",
     "unexpected 'lost' line in copy 1"),
    ("latch", "node 1 10 B 2 - - -", "node 1 10 B 2 - - - 5",
     "expected 8"),
    ("latch", "node 3 30 B 2 - - -\nend 3", "node 3 30 B 2 - - -\nend 2",
     "copy 1 end 2 but 3 node lines"),
    ("latch", "node 3 30 B 2 - - -\nend 3\nend 3",
     "node 3 30 B 2 - - -\nend 3\nnode 4 40 B 2 - - -\nend 3",
     "node line after copy 1"),
    ("latch", "node 3 30 B 2 - - -\nend 3\nend 3",
     "node 3 30 B 2 - - -\nend 3", "missing 'end'"),
    ("latch", "node 3 30 B 2 - - -\nend 3",
     "node 3 30 B 2 - - -\nerror depth\nerror depth\nend 3",
     "malformed error line in copy 1"),
    ("latch", "flags unique,latch", "flags unique", "without 'latch'"),
    ("max", "end 3\n", "copy 1\nroot -\nheight 0\nend 0\nend 3\n",
     "without 'latch'"),
]


@pytest.mark.parametrize("sample, old, new, words", MALFORMED)
def test_malformed_family_dumps(sample, old, new, words):
    with pytest.raises(DumpError) as err:
        parse_dump(edited(SAMPLES[sample], (old, new)))
    assert words in str(err.value)


def test_copy_error_depth_allows_missing_nodes():
    text = edited(LATCH_DUMP, ("node 1 10 B 2 - - -\nnode 3 30 B 2 - - -\n"
                               "end 3", "node 1 10 B 2 - - -\nerror depth\n"
                               "end 2"))
    tree = parse_dump(text)
    assert tree.copy1.error == "depth" and len(tree.copy1.nodes) == 2
    assert format_dump(tree) == text


def test_old_dumps_have_no_family_fields():
    from tests_support.trees import AUG_SAMPLE_DUMP
    tree = parse_dump(AUG_SAMPLE_DUMP)
    assert tree.value is None and tree.copy1 is None
    assert all(n.value is None for n in tree.nodes.values())


@pytest.mark.parametrize("name", sorted(BROKEN))
def test_broken_family_dump(name):
    text, cls, node = BROKEN[name]
    tree = parse_dump(text)
    found = first_violation(tree)
    if cls is None:
        assert found is None and refcheck.check(tree) == "ok"
        return
    assert (found.cls, found.node) == (cls, node), found
    assert refcheck.check(tree).startswith(f"fail {cls} node {node}:")
    copy = name.startswith("copy-")
    assert found.message.startswith("copy 1: ") == copy


def test_every_new_class_has_a_broken_dump():
    assert CLASSES[-1] == "latch"
    assert {cls for _, cls, _ in BROKEN.values()} >= {"latch", "augment"}


def test_latch_is_reported_after_copy_0():
    text, _, _ = BROKEN["latch"]
    bad = edited(text, ("count 3\n", "count 4\n"))
    assert [v.cls for v in check(parse_dump(bad))] == ["count", "latch"]
