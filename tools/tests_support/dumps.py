# SPDX-License-Identifier: GPL-2.0
"""Sample dumps of the renderer's tests (viz/tests/test_*.py), and the
viz/render script they run."""
from __future__ import annotations

from pathlib import Path

from rbtilib.dump import Tree, parse_dump
from tests_support.trees import AUG_SAMPLE_DUMP

RENDER_CLI = Path(__file__).resolve().parents[2] / "viz" / "render"

# Keys 10..70, perfectly balanced: 40 black, 20 and 60 red, leaves black.
DUMP_7 = """\
tree santos
api santos
flags unique,leftmost,rightmost,count
count 7
root 4
leftmost 1
rightmost 7
height 3
aug -
node 4 40 B - 2 6 -
node 2 20 R 4 1 3 -
node 1 10 B 2 - - -
node 3 30 B 2 - - -
node 6 60 R 4 5 7 -
node 5 50 B 6 - - -
node 7 70 B 6 - - -
end 7
"""

# Lone children on both sides: 10 has only a right child, 30 only a left one.
DUMP_LONE = """\
tree overstreet
api overstreet
flags unique,outofline
count 5
root 2
leftmost -
rightmost -
height 3
aug -
node 2 20 B - 1 3 -
node 1 10 B 2 - 4 -
node 4 15 R 1 - - -
node 3 30 B 2 5 - -
node 5 25 R 3 - - -
end 5
"""

DUMP_DUP = """\
tree overstreet_dup
api overstreet
flags dup,outofline
count 3
root 2
leftmost -
rightmost -
height 2
aug -
node 2 5 B - 1 3 -
node 1 5 R 2 - - -
node 3 5 R 2 - - -
end 3
"""

DUMP_AUG = AUG_SAMPLE_DUMP

DUMP_EMPTY = """\
tree mainline
api mainline
flags unique
count 0
root -
leftmost -
rightmost -
height 0
aug -
end 0
"""

# DUMP_7 with node 3 (key 30) turned red: red-red at 3 (and black-height).
DUMP_RED_RED = DUMP_7.replace("node 3 30 B", "node 3 30 R")

# Node 2's right link loops back to the root, node 3's left names no node.
DUMP_CYCLE = """\
tree overstreet
api overstreet
flags unique,outofline
count 3
root 1
leftmost -
rightmost -
height 2
aug -
node 1 20 B - 2 3 -
node 2 10 B 1 - 1 -
node 3 30 B 1 9 - -
end 3
"""

# 15 keys inserted in random order (a real insertion sequence's result).
DUMP_15 = """\
tree santos
api santos
flags unique,leftmost,rightmost,count
count 15
root 8
leftmost 15
rightmost 3
height 5
aug -
node 8 58 B - 1 2 -
node 1 18 B 8 13 5 -
node 13 13 R 1 4 6 -
node 4 9 B 13 15 - -
node 15 4 R 4 - - -
node 6 16 B 13 - - -
node 5 33 B 1 12 11 -
node 12 27 R 5 - - -
node 11 49 R 5 - - -
node 2 73 B 8 14 3 -
node 14 63 B 2 9 7 -
node 9 61 R 14 - - -
node 7 64 R 14 - - -
node 3 98 B 2 10 - -
node 10 84 R 3 - - -
end 15
"""

VALID = {"7": DUMP_7, "lone": DUMP_LONE, "dup": DUMP_DUP, "aug": DUMP_AUG,
         "empty": DUMP_EMPTY, "15": DUMP_15}


def tree_of(text: str) -> Tree:
    """Parse with the real parser and insist the sample means what it says."""
    tree = parse_dump(text)
    assert len(tree.nodes) == tree.count
    return tree


ADDRESS_DUMP = """\
tree free_vmap_area
api kernel
flags unique
count 2
root 0
leftmost -
rightmost -
height 2
aug subtree_max_size
hex key,aug
node 0 18446739675461726208 B - - 1 4096
node 1 18446739675461730304 R 0 - - 4096
end 2
"""
"""A kernel address tree's dump: its hex line marks keys and augs."""
