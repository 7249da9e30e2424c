# SPDX-License-Identifier: GPL-2.0
"""Tests of the shrinker: ddmin, and shrinking a failing op list."""

from hypothesis import assume, given, settings, strategies as st

from rbtilib.shrink import ddmin, rank_keys, replay_ops, shrink
from tests_support.shared import INFO, off_by_one_near
from tests_support.fake import FakeDebugfs


def is_subsequence(small, big):
    it = iter(big)
    return all(x in it for x in small)


def test_finds_the_known_minimal_subsequence():
    calls = []

    def fails(items):
        calls.append(len(items))
        return is_subsequence([3, 7, 11], items)

    assert ddmin(list(range(100)), fails) == [3, 7, 11]
    assert len(calls) < 200


def test_single_culprit():
    assert ddmin(list(range(1000)), lambda xs: 613 in xs) == [613]


def test_order_sensitive():
    items = [5, 1, 5, 2, 1]
    assert ddmin(items, lambda xs: is_subsequence([2, 1], xs)) == [2, 1]


def test_empty_failure():
    assert ddmin([1, 2, 3], lambda xs: True) == []


def test_max_tests_bounds_the_work():
    calls = []

    def fails(items):
        calls.append(1)
        return 500 in items and 501 in items

    out = ddmin(list(range(1000)), fails, max_tests=10)
    assert len(calls) == 10
    assert fails(out) and 500 in out and len(out) < 1000


def _with_pattern(draw_items, pattern, spots):
    """*draw_items* with *pattern*'s items put in at *spots* (in order),
    so that most examples fail and so test ddmin."""
    out = list(draw_items)
    for item, spot in zip(pattern, sorted(spots)):
        out.insert(min(spot, len(out)), item)
    return out


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 9), min_size=1, max_size=37),
       st.lists(st.integers(0, 9), min_size=1, max_size=3),
       st.lists(st.integers(0, 40), min_size=3, max_size=3),
       st.booleans())
def test_result_fails_and_is_one_minimal(items, pattern, spots, embed):
    """Every example tests ddmin: one whose list does not fail is
    rejected (assume), never counted as a pass; most embed the pattern."""
    if embed:
        items = _with_pattern(items, pattern, spots)

    def fails(xs):
        return is_subsequence(pattern, xs)

    assume(fails(items))
    out = ddmin(items, fails)
    assert fails(out) and is_subsequence(out, items)
    for i in range(len(out)):
        assert not fails(out[:i] + out[i + 1:])
    assert len(out) == len(pattern)


def test_shrinker_memoizes_and_renames_keys(tmp_path):
    calls = []

    class Counting(FakeDebugfs):
        def clear(self, name):
            calls.append(name)
            super().clear(name)

    drv = Counting(fault=off_by_one_near)
    ops = [("i", 10**15), ("i", -10**12), ("f", 5), ("n", -10**13),
           ("i", 7)] * 3
    failure = replay_ops(drv, INFO["santos"], ops)
    assert failure is not None and failure.what == "n"
    notes = []
    calls.clear()
    small, final = shrink(drv, INFO["santos"], ops, failure,
                           progress=notes.append)
    assert [c for c, _ in small] == ["i", "n"]
    assert sorted(k for _, k in small) == [0, 1]
    assert final.what == "n"
    assert rank_keys([("i", 50), ("n", -3), ("e", 50)]) == \
        [("i", 1), ("n", 0), ("e", 1)]
    # Every distinct list replayed once: fewer replays than ddmin tests.
    assert len(calls) < 60
