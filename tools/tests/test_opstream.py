# SPDX-License-Identifier: GPL-2.0
"""Tests of the fuzzer's op stream: seeds, key generators, phases, hints,
batches and routes."""

import pytest

from rbtilib.driver import WRITE_LIMIT
from rbtilib.fuzzconfig import Config
from rbtilib.opstream import (HINT_CODES, HINT_OFFSETS, SPECIAL_KEYS,
                              batches, generate, hint_of, parse_keys,
                              parse_mix)
from tests_support.shared import config


def test_sequence_depends_on_the_seed_only():
    def ops(**kw):
        return [op for codes, keys in generate(config(**kw))
                for op in zip(codes, keys)]
    first = ops()
    assert len(first) == 3000
    assert ops(check_every=7, batch=13) == first
    assert ops(seed=8) != first
    assert {c for c, _ in first} == set("ifen")
    assert all(0 <= k <= 40 for _, k in first)


def test_mix_zero_weight_excludes_op():
    ops = [c for codes, _ in generate(config(mix=(1, 0, 0, 1)))
           for c in codes]
    assert set(ops) == {"i", "n"}


def test_batches_stay_under_the_write_limit():
    codes = ["i"] * 40000
    keys = [-2**63] * 40000
    parts = list(batches(codes, keys))
    assert len(parts) > 1
    assert all(len(text) < WRITE_LIMIT for _, text in parts)
    assert sum(text.count("\n") for _, text in parts) == 40000
    assert [start for start, _ in parts][:2] == [0, parts[1][0]]


def test_batches_end_at_every_frame_only_with_frames():
    def chunks(**kw):
        return [len(codes) for codes, _ in generate(config(**kw))]
    assert chunks(ops=1000, batch=1000) == [1000]
    assert chunks(ops=1000, batch=1000, snapshots_every=300) == [1000]
    assert chunks(ops=1000, batch=400, snapshots_every=300,
                  out="x") == [300, 100, 200, 200, 100, 100]
    assert chunks(ops=1000) == [256, 256, 256, 232]


@pytest.mark.parametrize("text", ["5", "5:1", "a:b"])
def test_parse_keys_errors(text):
    with pytest.raises(ValueError):
        parse_keys(text)


@pytest.mark.parametrize("text", ["1:2:3", "0:0:0:0", "1:-1:1:1"])
def test_parse_mix_errors(text):
    with pytest.raises(ValueError):
        parse_mix(text)


def test_parse_helpers():
    assert parse_keys("-5:5") == (-5, 5)
    assert parse_mix("4:3:2:1") == (4, 3, 2, 1)


def all_ops(**kw):
    return [op for codes, keys in generate(Config(**kw))
            for op in zip(codes, keys)]


def test_default_sequence_covers_the_key_space_and_routes():
    ops = all_ops(ops=60000, seed=3)
    assert len(ops) == 60000
    keys = [k for _, k in ops]
    assert min(keys) == -2**63 and max(keys) == 2**63 - 1
    for special in SPECIAL_KEYS:
        assert special in keys
    # Dense small keys, and keys in the middle of s64 too.
    assert sum(0 <= k <= 255 for k in keys) > 10000
    assert sum(abs(k) > 2**40 for k in keys) > 1000
    codes = {c for c, _ in ops}
    assert codes == set("ifenIFENhm")
    singles = sum(c.isupper() for c, _ in ops)
    assert 60000 // 256 < singles < 60000 // 64
    # About one insert or near in 4 hinted.
    for plain, hinted in (("i", "h"), ("n", "m")):
        n = sum(c == hinted for c, _ in ops)
        assert 0.15 < n / (n + sum(c == plain for c, _ in ops)) < 0.35
    # near at and beyond the extremes.
    assert ("n", -2**63) in ops and ("n", 2**63 - 1) in ops


def test_full_range_keys_do_not_overflow():
    ops = all_ops(ops=5000, seed=1, key_mode="full", keys=(-2**63,
                                                          2**63 - 1))
    assert all(-2**63 <= k < 2**63 for _, k in ops)
    ops = all_ops(ops=2000, seed=1, key_mode="dense", phases=False,
                  keys=(-2**63, 2**63 - 1))
    assert len({k for _, k in ops}) > 1900


def test_phases_reach_empty_and_run_in_order():
    """Replay the stream on a model: drains empty the tree, runs ascend
    and descend."""
    from rbtilib.model import Model
    cfg = Config(ops=40000, seed=5)
    model = Model(frozenset({"dup"}))
    empty_after_growth = False
    ops = all_ops(ops=40000, seed=5)
    for code, key in ops:
        code = HINT_CODES.get(code, code.lower())
        if code == "i":
            model.add(key, 0)
        elif code == "e":
            model.erase(key)
        if len(model) == 0 and model.keys == [] and code == "e":
            empty_after_growth = True
    assert empty_after_growth
    runs = [ops[i:i + 30] for i in range(0, len(ops) - 30)
            if all(c in "ih" for c, _ in ops[i:i + 30])]
    assert any(all(b[1] == a[1] + 1 for a, b in zip(r, r[1:])) for r in runs)
    assert any(all(b[1] == a[1] - 1 for a, b in zip(r, r[1:])) for r in runs)
    assert cfg.seed == 5


def test_pop_phase_comes_regularly():
    ops = all_ops(ops=10000, seed=2)
    # Runs of the pop phase erase the extremes; none is far apart.
    present, gap, worst = set(), 0, 0
    for code, key in ops:
        code = HINT_CODES.get(code, code.lower())
        if code == "e" and present and key in (min(present), max(present)):
            worst, gap = max(worst, gap), 0
        else:
            gap += 1
        if code == "i":
            present.add(key)
        elif code == "e":
            present.discard(key)
    assert worst <= 3500


def test_hinted_ops_carry_their_hint_on_santos_trees_only():
    assert hint_of(5) == hint_of(5)
    assert {hint_of(k) - k for k in range(2000)} == set(HINT_OFFSETS)
    assert hint_of(2**63 - 1) <= 2**63 - 1
    assert hint_of(-2**63) >= -2**63
    codes, keys = ["h", "m", "i", "n"], [7, 9, 7, 9]
    (_, santos), = batches(codes, keys, hints=True)
    (_, plain), = batches(codes, keys)
    assert santos == (f"I 7 {hint_of(7)}\nN 9 {hint_of(9)}\n"
                      "i 7\nn 9\n")
    assert plain == "i 7\nn 9\ni 7\nn 9\n"
    # No hints without phases, nor with hint=0.
    assert not {"h", "m"} & {c for c, _ in all_ops(ops=3000, seed=1,
                                                  hint=0)}
    assert not {"h", "m"} & {c for codes, _ in generate(config())
                             for c in codes}
