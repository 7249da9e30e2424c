# SPDX-License-Identifier: GPL-2.0
"""Tests of the dump parser and formatter."""


import pytest
from hypothesis import given, settings, strategies as st

from rbtilib.dump import (UNKNOWN, UNKNOWN_PARENT, DumpError, Node, format_dump,
                          inorder, parse_dump, preorder)
from rbtilib import record
from tests_support.dumps import ADDRESS_DUMP
from tests_support.trees import AUG_SAMPLE_DUMP as SAMPLE, CONTRACT_TREES, build_tree

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
    tree.nodes[nid] = record.replace(tree.nodes[nid],
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


def test_node_printed_twice_is_an_error():
    # The contract's walk marks every node: a node is printed once, a
    # second link to it is only written as its id.
    text = SAMPLE.replace("node 3 30 R 2 - - 1\nend 3",
                          "node 3 30 R 2 - - 1\nnode 3 30 R 2 - - 1\nend 4")
    with pytest.raises(DumpError, match="line 13: node 3 listed twice"):
        parse_dump(text)


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
     13, "listed twice"),
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


# -- strictness ----------------------------------------------------------

NEW_SAMPLE = """\
tree santos_aug
api santos
flags unique,count,augmented
count 3
nodes 4
root 2
leftmost -
rightmost -
height 2
aug size
node 2 20 B - 1 3 3
node 1 10 R 2 - - 1
node 3 30 R 2 - 1 1
lost 4 40 R 3 - ? 1
end 3
"""
"""The contract's new lines: ``nodes N`` and a ``lost`` node (4)."""


def test_parse_nodes_and_lost_lines():
    tree = parse_dump(NEW_SAMPLE)
    assert tree.allocated == 4
    assert list(tree.nodes) == [2, 1, 3]
    assert list(tree.lost) == [4]
    assert tree.lost[4] == Node(4, 40, "R", 3, None, UNKNOWN, 1)
    assert format_dump(tree) == NEW_SAMPLE


def test_old_dump_has_no_allocated_count():
    tree = parse_dump(SAMPLE)
    assert tree.allocated is None and tree.lost == {}


def test_unknown_is_no_id():
    assert UNKNOWN is UNKNOWN_PARENT
    assert all(UNKNOWN != i for i in (-1, 0, 1, 2**63 - 1))
    assert not isinstance(UNKNOWN, int)


NUMBERS = ["1_000", "\u0661", "\uff11", "2" + "0" * 21, str(2**70),
           str(2**63), str(-2**63 - 1), "+5", "05", "-0", "0x10", "1e3",
           "", "--1", "1.0", " 1"]
"""Texts the module never prints as a number (``%lld``)."""


@pytest.mark.parametrize("text", NUMBERS)
def test_bad_key_rejected(text):
    bad = SAMPLE.replace("node 1 10 R", f"node 1 {text} R")
    with pytest.raises(DumpError) as err:
        parse_dump(bad)
    assert err.value.lineno == 11


@pytest.mark.parametrize("text", NUMBERS + ["-1", str(-2**63)])
def test_bad_id_rejected(text):
    bad = SAMPLE.replace("node 1 10 R", f"node {text} 10 R")
    with pytest.raises(DumpError) as err:
        parse_dump(bad)
    assert err.value.lineno == 11


@pytest.mark.parametrize("key", [-2**63, 2**63 - 1, 0, -1])
def test_key_extremes_accepted(key):
    tree = parse_dump(SAMPLE.replace("node 1 10 R", f"node 1 {key} R"))
    assert tree.nodes[1].key == key


def test_id_extremes_accepted():
    top = 2**63 - 1
    text = (SAMPLE.replace("node 1 10 R", f"node {top} 10 R")
            .replace("B - 1 3 3", f"B - {top} 3 3").replace(" 2 - 1 3", ""))
    assert list(parse_dump(text).nodes) == [2, top, 3]
    # The module counts ids from 1 (DEBUGFS.md); a kernel tree's ids are
    # in-order positions, from 0.
    zero = SAMPLE.replace("node 1 10 R", "node 0 10 R").replace(
        "B - 1 3 3", "B - 0 3 3")
    with pytest.raises(DumpError, match="bad left '0'"):
        parse_dump(zero)
    for old, new in (("root 2", "root 0"), ("B - 1 3 3", "B - 0 3 3"),
                     ("R 2 - - 1\nnode 3", "R 0 - - 1\nnode 3")):
        assert old in SAMPLE
        with pytest.raises(DumpError, match="'0'"):
            parse_dump(SAMPLE.replace(old, new, 1))
    kernel = parse_dump(zero.replace("api santos", "api kernel"))
    assert list(kernel.nodes) == [2, 0, 3]


@pytest.mark.parametrize("old, new, line, words", [
    # Fields that must agree with the tree's flags.
    ("node 1 10 R 2 - - 1", "node 1 10 R 2 - - -", 11, "bad aug"),
    ("flags unique,count,augmented", "flags unique,count", 9,
     "aug 'size', expected '-'"),
    ("leftmost -", "leftmost 1", 6, "without the 'leftmost' cache"),
    ("rightmost -", "rightmost 3", 7, "without the 'rightmost' cache"),
    ("flags unique,count,augmented", "flags unique,dup,count,augmented", 3,
     "'unique' and 'dup' together"),
    ("flags unique,count,augmented", "flags unique,count,augmented,fast", 3,
     "unknown flag 'fast'"),
    ("flags unique,count,augmented", "flags count,augmented", 3,
     "neither"),
    ("flags unique,count,augmented", "flags dup,replace,count,augmented", 3,
     "'replace' without 'unique'"),
    ("flags unique,count,augmented", "flags unique,unique,count,augmented",
     3, "bad flags"),
    ("aug size", "aug height", 9, "expected 'size'"),
    ("api santos", "api linux", 2, "unknown api"),
    # '?' only where a link may point at no node of this tree.
    ("root 2", "root ?", 5, "'?' is not allowed"),
    ("node 1 10 R", "node ? 10 R", 11, "bad node id"),
    # Layout.
    ("node 1 10 R 2 - - 1", "node 1 10 R 2 -  - 1", 11, "one space"),
    ("node 1 10 R 2 - - 1", "node 1 10 R 2 - -\t1", 11, "control"),
    ("node 1 10 R 2 - - 1", "node 1 10 R 2 - - 1\r", 11, "control"),
    ("count 3", "count -3", 4, "bad count"),
    ("height 2", "height 02", 8, "bad height"),
    ("end 3", "end 03", 13, "bad end count"),
    ("end 3", "end 3 3", 13, "malformed end"),
    ("end 3", "error deep\nend 3", 13, "malformed error"),
    ("end 3", "error depth\nerror depth\nend 3", 14, "unexpected error"),
    ("root 2", "nodes 3\nnodes 3\nroot 2", 6, "unexpected 'nodes'"),
    ("end 3", "lost 4 40 R - - - 1\nend 3", 13, "without 'nodes'"),
])
def test_inconsistent_fields_name_the_line(old, new, line, words):
    text = SAMPLE.replace(old, new, 1)
    assert text != SAMPLE
    with pytest.raises(DumpError) as err:
        parse_dump(text)
    assert err.value.lineno == line, str(err.value)
    assert words in str(err.value)


@pytest.mark.parametrize("old, new, line, words", [
    ("nodes 4", "nodes 5", 15, "nodes 5 in the header but 4"),
    ("nodes 4", "nodes 3", 15, "nodes 3 in the header but 4"),
    ("lost 4 40 R 3 - ? 1\n", "lost 4 40 R 3 - ? 1\nnode 5 1 B - - - 1\n",
     15, "node line after a lost line"),
    ("lost 4", "lost 1", 14, "node 1 listed twice"),
    ("lost 4 40 R 3 - ? 1", "lost 4 40 R 3 - ? -", 14, "bad aug"),
    ("end 3", "end 4", 15, "end 4 but 3 node lines"),
    ("node 3 30", "error depth\nnode 3 30", 14, "node line after 'error'"),
])
def test_new_lines_checked(old, new, line, words):
    text = NEW_SAMPLE.replace(old, new, 1)
    assert text != NEW_SAMPLE
    with pytest.raises(DumpError) as err:
        parse_dump(text)
    assert err.value.lineno == line, str(err.value)
    assert words in str(err.value)


def test_error_depth_allows_fewer_listed_nodes():
    text = NEW_SAMPLE.replace("nodes 4", "nodes 9").replace(
        "lost 4", "error depth\nlost 4")
    tree = parse_dump(text)
    assert tree.error == "depth" and tree.allocated == 9


KERNEL_DUMP = """tree free_vmap_area
api kernel
flags unique
count 1
nodes 1
root 0
leftmost -
rightmost -
height 1
aug subtree_max_size
node 0 18446683600570023936 B - - - 18446683600570023935
end 1
"""


def test_kernel_dump_takes_u64_keys_and_its_own_aug():
    tree = parse_dump(KERNEL_DUMP)
    assert tree.nodes[0].key == 18446683600570023936
    assert tree.nodes[0].aug == 18446683600570023935
    assert tree.aug == "subtree_max_size"


@pytest.mark.parametrize("old, new", [
    ("api kernel", "api santos"),        # u64 key, foreign aug: kernel only
    ("aug subtree_max_size", "aug -"),   # aug values need an aug name
    ("18446683600570023936", "18446744073709551616"),  # past u64
])
def test_kernel_relaxations_stay_narrow(old, new):
    with pytest.raises(DumpError):
        parse_dump(KERNEL_DUMP.replace(old, new))


@pytest.mark.parametrize("name, good", [
    ("cfs/cpu0", True), ("kernfs:/sys/module", True), ("santos_dup", True),
    ("/root", False), ("a b", False), ("ü", False), ("-x", False),
])
def test_tree_names(name, good):
    text = KERNEL_DUMP.replace("tree free_vmap_area", f"tree {name}")
    if good:
        assert parse_dump(text).name == name
    else:
        with pytest.raises(DumpError):
            parse_dump(text)


HEX_DUMP = ADDRESS_DUMP


def test_hex_line_round_trips_and_marks_fields():
    """The optional 'hex' line (kmod/DEBUGFS.md): which fields are
    addresses or sizes; the numbers stay decimal."""
    from rbtilib.dump import number_text
    tree = parse_dump(HEX_DUMP)
    assert tree.hex == {"key", "aug"} and format_dump(tree) == HEX_DUMP
    assert number_text(tree, "key", tree.nodes[0].key) == "0xfffffbfff4003000"
    assert number_text(tree, "aug", 4096) == "0x1000"
    plain = parse_dump(HEX_DUMP.replace("hex key,aug\n", ""))
    assert plain.hex == frozenset() and number_text(plain, "key", 10) == "10"
    assert parse_dump(HEX_DUMP.replace("key,aug", "key")).hex == {"key"}


@pytest.mark.parametrize("text,message", [
    (HEX_DUMP.replace("hex key,aug", "hex size"), "bad hex fields"),
    (HEX_DUMP.replace("hex key,aug", "hex key,key"), "bad hex fields"),
    (HEX_DUMP.replace("hex key,aug", "hex"), "expected 2"),
    (HEX_DUMP.replace("hex key,aug\n", "").replace(
        "end 2", "hex key\nend 2"), "unexpected 'hex' line"),
    (HEX_DUMP.replace("aug subtree_max_size\nhex key,aug",
                         "hex key\naug subtree_max_size"), "unexpected"),
    (HEX_DUMP.replace("hex key,aug", "hex key\nhex key"), "unexpected"),
])
def test_bad_hex_lines(text, message):
    with pytest.raises(DumpError, match=message):
        parse_dump(text)


def test_hex_aug_needs_an_aug():
    text = HEX_DUMP.replace("aug subtree_max_size", "aug -").replace(
        " 4096", " -").replace("hex key,aug", "hex aug")
    with pytest.raises(DumpError, match="without an aug"):
        parse_dump(text)


@pytest.mark.parametrize("cut,words", [
    ("node", "'nod' is the start of a record"),
    ("node 1 10 R 2", "'node 1 10 R 2 ' is 5 of the node line's 8 fields"),
    ("end", "'en' is the start of a record"),
    ("end 3", "'end' is 1 of the end line's 2 fields"),
])
def test_a_dump_cut_mid_line_says_truncated(cut, words):
    """A dump cut in the middle of a line (no newline after its last)
    said "unknown record 'nod'" or "node line has 5 fields": the parser
    says the dump is truncated, with the line's number."""
    lines = SAMPLE.split("\n")
    i = next(i for i, line in enumerate(lines) if line.startswith(cut))
    kept = len(words.split("'")[1])
    text = "\n".join(lines[:i]) + "\n" + lines[i][:kept]
    with pytest.raises(DumpError) as e:
        parse_dump(text)
    assert e.value.lineno == i + 1
    assert str(e.value) == (f"dump line {i + 1}: truncated: the dump ends "
                            f"mid-line (no newline): {words}")


def test_a_last_line_without_newline_that_is_wrong_says_so():
    """A last line that is no record's start is its own error, with a
    word about the missing newline; a whole last line without a newline
    parses; a newline before the cut is the missing 'end' line."""
    body = SAMPLE.rstrip("\n")
    assert parse_dump(body) == parse_dump(SAMPLE)
    with pytest.raises(DumpError, match=r"end 2 but 3 node lines \(the last "
                       r"line, with no newline: a truncated dump\?\)"):
        parse_dump(body[:-1] + "2")
    cut = SAMPLE[:SAMPLE.index("end")]
    with pytest.raises(DumpError, match="missing 'end' line"):
        parse_dump(cut)
    with pytest.raises(DumpError, match=r"truncated: .*, and no 'end' line"):
        parse_dump(cut.rstrip("\n"))
