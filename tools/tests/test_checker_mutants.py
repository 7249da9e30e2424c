# SPDX-License-Identifier: GPL-2.0
"""Mutation test of the checker.

Valid trees get random edits (child and parent links, colours, keys,
caches, aug, header fields); each mutant goes through the dump text and
the parser like a real dump, and :func:`check` must flag it exactly when
:func:`simple_valid`, a deliberately plain validator written here from the
contract's definitions and sharing no code with the checker, rejects it.

Hypothesis draws the trees and a seed; each example makes MUTANTS_PER
mutants from the seed, so the run covers EXAMPLES * MUTANTS_PER
(>= 10,000) mutants, deterministically (derandomize, no database).
"""

import random

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from rbtilib.checker import check
from rbtilib.dump import UNKNOWN, Copy, Tree, format_dump, parse_dump
from rbtilib import record
from tests_support.trees import (CONTRACT_TREES, FAMILY_TREES, build_tree,
                                 redump)

EXAMPLES = 500
MUTANTS_PER = 40
S64_MIN, S64_MAX = -(1 << 63), (1 << 63) - 1


def simple_valid(t: Tree) -> bool:
    """True if *t* is a valid red-black tree under its flags, and on a
    latch tree copy 1 too, with the same ids in order."""
    seen = simple_order(t)
    if seen is None or t.copy1 is None:
        return seen is not None
    copy = t.copy1
    second = record.replace(t, root=copy.root, height=copy.height,
                            nodes=copy.nodes, lost={}, allocated=None,
                            count=len(copy.nodes), copy1=None,
                            flags=frozenset({"unique"}))
    return simple_order(second) == seen


def simple_order(t: Tree) -> list | None:
    """The ids in order if *t* is a valid red-black tree under its flags,
    else None.

    Written the obvious recursive way; trees here are small.
    """
    pool = {**t.nodes, **t.lost}
    seen: list = []
    entered: set = set()

    def collect(ref) -> bool:
        """In-order ids into *seen*; False on a bad or repeated link."""
        if ref is None:
            return True
        if ref is UNKNOWN or ref not in pool or ref in entered:
            return False
        entered.add(ref)
        node = pool[ref]
        for child in (node.left, node.right):
            if child is not None and child in pool and \
                    pool[child].parent != ref:
                return False
        if not collect(node.left):
            return False
        seen.append(ref)
        return collect(node.right)

    if not collect(t.root) or sorted(seen) != sorted(pool):
        return None
    if t.allocated is not None and t.allocated != len(pool):
        return None
    if t.root is not None and (pool[t.root].parent is not None
                               or pool[t.root].color != "B"):
        return None

    def black_height(ref) -> int | None:
        if ref is None:
            return 0
        node = pool[ref]
        left, right = black_height(node.left), black_height(node.right)
        if left is None or left != right:
            return None
        return left + (node.color == "B")

    if black_height(t.root) is None:
        return None
    for nid in seen:
        node = pool[nid]
        for child in (node.left, node.right):
            if node.color == "R" and child is not None and \
                    pool[child].color == "R":
                return None

    def size(ref) -> int:
        return 0 if ref is None else \
            1 + size(pool[ref].left) + size(pool[ref].right)

    def height(ref) -> int:
        return 0 if ref is None else \
            1 + max(height(pool[ref].left), height(pool[ref].right))

    pairs = [(pool[nid].key, nid) for nid in seen]
    if t.dup:
        if any(a >= b for a, b in zip(pairs, pairs[1:])):
            return None
    elif any(a[0] >= b[0] for a, b in zip(pairs, pairs[1:])):
        return None
    def top(ref) -> int:
        node = pool[ref]
        return max([node.value] + [top(kid) for kid in (node.left,
                                                         node.right)
                                   if kid is not None])

    aug = size if t.aug == "size" else top
    if t.augmented and any(pool[n].aug != aug(n) for n in seen):
        return None
    if t.count != len(seen) or t.height != height(t.root):
        return None
    for flag, want in (("leftmost", seen[0] if seen else None),
                       ("rightmost", seen[-1] if seen else None)):
        if flag in t.flags and getattr(t, flag) != want:
            return None
    return seen


def _key_edit(rng: random.Random, tree: Tree, key: int) -> int:
    return max(S64_MIN, min(S64_MAX, _new_key(rng, tree, key)))


def _new_key(rng: random.Random, tree: Tree, key: int) -> int:
    keys = sorted(n.key for n in tree.nodes.values())
    pick = rng.randrange(6)
    if pick == 0:
        return key + rng.choice((-1, 1))
    if pick == 1:
        return rng.choice(keys)
    if pick == 2:
        return rng.choice((S64_MIN, S64_MAX, 0, -1, 1))
    if pick == 3:
        return rng.randint(S64_MIN, S64_MAX)
    # Often harmless: move the key inside the gap to its neighbours.
    below = max((k for k in keys if k < key), default=key - 10)
    above = min((k for k in keys if k > key), default=key + 10)
    return rng.randint(below, above)


def mutate(rng: random.Random, tree: Tree) -> Tree:
    """One to three random edits of *tree* (a copy), then re-dumped."""
    tree = record.replace(tree, nodes=dict(tree.nodes),
                          lost=dict(tree.lost))
    if tree.copy1 is not None:
        tree.copy1 = record.replace(tree.copy1, nodes=dict(tree.copy1.nodes))
    ids = list(tree.nodes)
    header_edits = []
    family = ()
    if tree.valued:
        family = ("value", "value", "aug")
    elif tree.copy1 is not None:
        family = ("copy", "copy", "copy", "copy")
    for _ in range(rng.choice((1, 1, 1, 2, 3))):
        what = rng.choice(("link", "link", "link", "color", "color", "key",
                           "key", "cache", "count", "aug", "height",
                           "root", "same") + family)
        nid = rng.choice(ids)
        node = tree.nodes[nid]
        if what == "link":
            side = rng.choice(("left", "right", "parent"))
            target = rng.choice(ids + [None, None, nid, UNKNOWN])
            tree.nodes[nid] = record.replace(node, **{side: target})
        elif what == "same":
            side = rng.choice(("left", "right", "parent"))
            tree.nodes[nid] = record.replace(
                node, **{side: getattr(node, side)})
        elif what == "color":
            tree.nodes[nid] = record.replace(
                node, color="R" if node.color == "B" else "B")
        elif what == "key":
            tree.nodes[nid] = record.replace(
                node, key=_key_edit(rng, tree, node.key))
            if tree.copy1 is not None and nid in tree.copy1.nodes:
                # One struct, two rb_nodes: the key is both copies'.
                tree.copy1.nodes[nid] = record.replace(
                    tree.copy1.nodes[nid], key=tree.nodes[nid].key)
        elif what == "value":
            tree.nodes[nid] = record.replace(
                node, value=node.value + rng.choice((-1, 1, 40)))
        elif what == "copy":
            tree.copy1 = _mutate_copy(rng, tree.copy1, ids)
        elif what == "aug" and tree.augmented:
            tree.nodes[nid] = record.replace(
                node, aug=node.aug + rng.choice((-1, 1, 2)))
        elif what == "root":
            tree.root = rng.choice(ids + [None])
        elif what in ("cache", "count", "height"):
            header_edits.append(what)
    out = redump(tree)
    for what in header_edits:
        if what == "count":
            out.count = max(0, out.count + rng.choice((-1, 1)))
        elif what == "height":
            out.height = max(0, out.height + rng.choice((-1, 1)))
        else:
            caches = [c for c in ("leftmost", "rightmost") if c in out.flags]
            if caches:
                setattr(out, rng.choice(caches),
                        rng.choice(ids + [None]))
    return out


def _mutate_copy(rng: random.Random, copy: Copy, ids: list) -> Copy:
    """One edit of a latch tree's copy 1 (a link, a colour, a node left
    out, its height or root), re-dumped as the module walks it: the nodes
    reached from its root, in preorder."""
    nodes = copy.nodes
    root = copy.root
    what = rng.choice(("link", "link", "color", "drop", "height", "root"))
    nid = rng.choice(list(nodes) or ids)
    node = nodes.get(nid)
    if node is None or what == "root":
        root = rng.choice(list(nodes) + [None])
    elif what == "link":
        side = rng.choice(("left", "right", "parent"))
        nodes[nid] = record.replace(
            node, **{side: rng.choice(ids + [None, nid, UNKNOWN])})
    elif what == "color":
        nodes[nid] = record.replace(node,
                                    color="R" if node.color == "B" else "B")
    elif what == "drop":
        up = next((n for n in nodes.values() if nid in (n.left, n.right)),
                  None)
        if up is not None:
            side = "left" if up.left == nid else "right"
            nodes[up.id] = record.replace(up, **{side: None})
    kept: dict = {}
    deepest = 0
    stack = [(root, 1)]
    while stack:
        ref, depth = stack.pop()
        if ref is None or ref not in nodes or ref in kept:
            continue
        kept[ref] = nodes[ref]
        deepest = max(deepest, depth)
        stack += [(nodes[ref].right, depth + 1), (nodes[ref].left, depth + 1)]
    if what == "height":
        deepest = max(0, deepest + rng.choice((-1, 1)))
    return Copy(root, deepest, kept)


TALLY = {"mutants": 0, "rejected": 0, "family": 0, "family rejected": 0}


@pytest.mark.slow
@settings(max_examples=EXAMPLES, derandomize=True, database=None,
          deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(CONTRACT_TREES + FAMILY_TREES),
       st.lists(st.integers(0, 24), min_size=1, max_size=28),
       st.integers(0, 2**32 - 1))
def test_check_flags_exactly_the_invalid_mutants(info, keys, seed):
    tree = build_tree(keys, info, erase=keys[::5], allocated=True)
    if not tree.nodes:
        return
    assert simple_valid(tree) and check(tree) == []
    rng = random.Random(seed)
    for _ in range(MUTANTS_PER):
        mutant = parse_dump(format_dump(mutate(rng, tree)))
        found = check(mutant)
        valid = simple_valid(mutant)
        assert (found == []) == valid, (
            f"checker says {found[:1] or 'ok'}, simple validator says "
            f"{'valid' if valid else 'invalid'}:\n{format_dump(mutant)}")
        TALLY["mutants"] += 1
        TALLY["rejected"] += not valid
        if info in FAMILY_TREES:
            TALLY["family"] += 1
            TALLY["family rejected"] += not valid


def test_enough_mutants_both_ways():
    """Runs after the property: >= 10,000 mutants, both verdicts seen."""
    if TALLY["mutants"] == 0:
        test_check_flags_exactly_the_invalid_mutants()
    assert TALLY["mutants"] >= 10000, TALLY
    accepted = TALLY["mutants"] - TALLY["rejected"]
    assert accepted >= TALLY["mutants"] // 20, TALLY
    assert TALLY["rejected"] >= TALLY["mutants"] // 2, TALLY
    # The rbtree family's trees (values, both latch copies) among them.
    assert TALLY["family"] >= 3000, TALLY
    assert TALLY["family"] // 20 <= TALLY["family rejected"] <= \
        TALLY["family"] * 19 // 20, TALLY
