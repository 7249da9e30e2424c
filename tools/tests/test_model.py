# SPDX-License-Identifier: GPL-2.0
"""Tests of the reference model, including a stateful comparison with the
independent red-black tree of the test fixture."""

import itertools

from hypothesis import given, settings, strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from rbtilib.dump import inorder, parse_flags
from rbtilib.model import Model
from tests_support.trees import RBTree

UNIQUE = parse_flags("unique")
DUP = parse_flags("dup")
REPLACE = parse_flags("unique,replace")


def test_unique_insert_and_find():
    m = Model(UNIQUE)
    assert m.insert(5) == "ok"
    m.add(5, 1)
    assert m.insert(5) == "EEXIST"
    assert m.find(5) == 1 and m.find(4) is None
    assert len(m) == 1 and m.items() == [(5, 1)]


def test_replace_swaps_the_id():
    m = Model(REPLACE)
    m.add(5, 1)
    assert m.insert(5) == "replaced"
    assert m.swap(5, 7) == 1
    assert m.items() == [(5, 7)] and len(m) == 1


def test_dup_keeps_insertion_order_and_erases_first():
    m = Model(DUP, "santos")
    for nid in (1, 2, 3):
        assert m.insert(4) == "ok"
        m.add(4, nid)
    m.add(2, 9)
    assert m.items() == [(2, 9), (4, 1), (4, 2), (4, 3)]
    assert m.find(4) == 1
    assert m.erase(4, nid=3) == 1     # santos: always the first
    assert m.items() == [(2, 9), (4, 2), (4, 3)]


def test_overstreet_dup_erases_the_reported_node():
    m = Model(DUP, "overstreet")
    assert m.erase_any
    for nid in (1, 2, 3):
        m.add(4, nid)
    assert m.erase(4, nid=2) == 2
    assert m.items() == [(4, 1), (4, 3)]
    assert m.erase(4, nid=99) == 1    # not one of them: first
    assert m.erase(4) == 3 and m.erase(4) is None
    assert m.keys == [] and len(m) == 0


def test_near_is_strictly_greater_and_first_among_equals():
    m = Model(DUP)
    for nid, key in enumerate([10, 20, 20, 30], 1):
        m.add(key, nid)
    assert m.near(9) == (1, 10)
    assert m.near(10) == (2, 20)
    assert m.near(19) == (2, 20)
    assert m.near(20) == (4, 30)
    assert m.near(30) is None
    assert m.near(-2**63) == (1, 10)


def test_erase_removes_distinct_key():
    m = Model(UNIQUE)
    for key in (3, 1, 2):
        m.add(key, key)
    assert m.erase(2) == 2 and m.keys == [1, 3]
    assert m.near(1) == (3, 3)


class ModelVsRBTree(RuleBasedStateMachine):
    """The model and the fixture's red-black tree agree on every op."""

    def __init__(self) -> None:
        super().__init__()
        self.ids = itertools.count(1)
        self.flags = DUP
        self.model = Model(self.flags, "santos")
        self.rb = RBTree(dup=True)

    keys = st.integers(-5, 5)

    @rule(key=keys)
    def insert(self, key):
        nid = next(self.ids)
        assert self.model.insert(key) == "ok"
        assert self.rb.insert(key, nid) is None
        self.model.add(key, nid)

    @rule(key=keys)
    def find(self, key):
        node = self.rb.find_first(key)
        assert self.model.find(key) == (node.id if node else None)

    @rule(key=keys)
    def near(self, key):
        node = self.rb.greater(key)
        assert self.model.near(key) == ((node.id, node.key) if node
                                        else None)

    @rule(key=keys)
    def erase(self, key):
        node = self.rb.find_first(key)
        if node:
            self.rb.erase(node)
        assert self.model.erase(key) == (node.id if node else None)

    @invariant()
    def same_contents(self):
        from tests_support.trees import CONTRACT_TREES
        tree = self.rb.to_tree(CONTRACT_TREES[3])
        assert [(n.key, n.id) for n in inorder(tree)] == self.model.items()


ModelVsRBTree.TestCase.settings = settings(max_examples=60,
                                           stateful_step_count=60,
                                           deadline=None)
TestModelVsRBTree = ModelVsRBTree.TestCase


# -- the rbtree family: values, intervals, overlap order -----------------

INTERVAL = frozenset({"dup", "augmented", "value", "interval"})


def interval_model(*intervals) -> Model:
    """A model of an interval tree holding [START, LAST] pairs, ids 1.."""
    m = Model(INTERVAL, "interval")
    for nid, (start, last) in enumerate(intervals, 1):
        m.add(start, nid, last)
    return m


def test_overlap_in_start_order_equal_starts_in_insertion_order():
    m = interval_model((30, 40), (10, 50), (30, 31), (5, 6), (30, 35),
                       (60, 70))
    # In order of START; the three STARTs of 30 as inserted (1, 3, 5).
    assert m.overlap(31, 45) == [2, 1, 3, 5]
    assert m.overlap(0, 100) == [4, 2, 1, 3, 5, 6]
    assert m.overlap(51, 59) == []
    assert m.overlap(6, 6) == [4] and m.overlap(10, 10) == [2]
    assert m.overlap(70, 70) == [6]
    assert m.top() == 70


def test_overlap_is_closed_at_both_ends():
    m = interval_model((10, 20))
    assert m.overlap(20, 25) == [1] and m.overlap(0, 10) == [1]
    assert m.overlap(21, 30) == [] and m.overlap(0, 9) == []


def test_interval_erase_by_start_and_last():
    m = interval_model((30, 40), (30, 31), (30, 40))
    assert m.find_exact(30, 40) == 1 and m.find_exact(30, 99) is None
    assert m.erase(30, value=99) is None and len(m) == 3
    assert m.erase(30, value=40) == 1
    assert m.overlap(0, 100) == [2, 3] and m.values == {2: 31, 3: 40}
    assert m.erase(30, value=40) == 3 and m.top() == 31


def test_values_follow_their_nodes():
    m = Model(frozenset({"unique", "augmented", "value"}), "mainline")
    m.add(5, 1, -7)
    m.add(2, 2, 40)
    assert m.top() == 40 and m.erase(2) == 2 and m.top() == -7
    assert m.erase(5) == 1 and m.top() is None and m.values == {}


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.sampled_from("ie"),
                          st.integers(-50, 50), st.integers(0, 1 << 70)),
                max_size=60),
       st.lists(st.tuples(st.integers(-60, 60), st.integers(0, 80)),
                min_size=1, max_size=10))
def test_overlap_is_the_plain_scan(ops, queries):
    """The length classes give what a scan of every interval gives."""
    m = Model(INTERVAL, "interval")
    for nid, (op, start, length) in enumerate(ops, 1):
        last = min(start + length, (1 << 63) - 1)
        if op == "i":
            m.add(start, nid, last)
        else:
            victim = next((i for k, i in m.items() if k == start), None)
            if victim is not None:
                m.erase(start, value=m.values[victim])
    for start, length in queries:
        want = [nid for key, nid in m.items()
                if key <= start + length and m.values[nid] >= start]
        assert m.overlap(start, start + length) == want
