# SPDX-License-Identifier: GPL-2.0
"""Tests of the benchmark output parser, statistics and agreement checks."""
from __future__ import annotations

import pytest

from rbtibench import report, results

HEADER = ["rbtree-bench 1", "meta clock ns", "meta compiler 12.2.0",
          "variant open", "variant santos"]


def cell(variant: str, rep: int, time: int, check: str = "abc",
         op: str = "find_hit", n: int = 1000) -> str:
    return f"cell {variant} {op} random {n} {rep} 1000 {time} {check}"


def run_of(*cells: str) -> results.Run:
    return results.parse_run([*HEADER, *cells, "end"])


def test_parse_reads_meta_variants_and_cells() -> None:
    run = run_of(cell("open", 0, 5000), cell("santos", 0, 2500))
    assert run.meta == {"clock": "ns", "compiler": "12.2.0"}
    assert run.variants == ["open", "santos"]
    assert run.cells[1] == results.Cell("santos", "find_hit", "random", 1000, 0,
                                        1000, 2500, "abc")


@pytest.mark.parametrize("bad, why", [
    (["rbtree-bench 2", "end"], "header"),
    (["rbtree-bench 1", "cell open find_hit random 1000 0 1000 5"], "malformed"),
    (["rbtree-bench 1", "cell open fly random 1000 0 1000 5 ab"], "unknown operation"),
    (["rbtree-bench 1", "cell open walk random 1000 0 1000 5 xyz"], "bad number"),
    (["rbtree-bench 1", "variant open"], "without 'end'"),
    (["rbtree-bench 1", "end", "variant open"], "after 'end'"),
])
def test_parse_rejects_bad_output(bad: list[str], why: str) -> None:
    with pytest.raises(results.BenchFormatError, match=why):
        results.parse_run(bad)


def test_summary_takes_median_and_paired_ratios() -> None:
    run = run_of(*(cell("open", r, t) for r, t in enumerate([1000, 2000, 4000])),
                 *(cell("santos", r, t) for r, t in enumerate([500, 3000, 2000])))
    by_variant = {s.variant: s for s in results.summarize(run)}
    assert by_variant["open"].per_op == 2.0
    assert by_variant["open"].spread == pytest.approx(1.5)
    santos = by_variant["santos"]
    assert santos.per_op == 2.0
    # Per repetition 0.5, 1.5, 0.5: the median pairs each with its own baseline.
    assert (santos.ratio, santos.ratio_min, santos.ratio_max) == (0.5, 0.5, 1.5)


def test_agreeing_variants_have_no_disagreements() -> None:
    run = run_of(cell("open", 0, 1), cell("santos", 0, 1))
    assert list(results.disagreements(run)) == []


def test_a_wrong_digest_is_named() -> None:
    run = run_of(cell("open", 0, 1), cell("santos", 0, 1, check="abd"))
    assert list(results.disagreements(run)) == [
        "santos find_hit random n=1000 rep 0: digest abd != open's abc"]


def test_known_digest_is_checked_even_if_all_agree() -> None:
    run = run_of(cell("open", 0, 1, "5", "erase"), cell("santos", 0, 1, "5", "erase"))
    assert len(list(results.disagreements(run))) == 2


def test_missing_repetition_and_variant_are_reported() -> None:
    run = run_of(cell("open", 0, 1), cell("open", 1, 1), cell("santos", 0, 1))
    msgs = list(results.disagreements(run))
    assert msgs == ["santos find_hit random n=1000: repetitions [0] != baseline's [0, 1]"]
    run = run_of(cell("open", 0, 1))
    assert list(results.disagreements(run)) == ["santos: no cells at all"]


def test_targets_flag_slow_and_fast_cells_only_for_chosen_ops() -> None:
    run = run_of(cell("open", 0, 1000), cell("santos", 0, 1040),
                 cell("open", 0, 1000, op="walk"), cell("santos", 0, 2000, op="walk"))
    assert report.targets(results.summarize(run), ["santos"]) == [
        "santos find_hit random N=1000: ratio 1.040"]


def test_table_has_a_row_per_cell_and_a_column_per_variant() -> None:
    run = run_of(cell("open", 0, 1000), cell("santos", 0, 500))
    text = report.table(results.summarize(run), run.variants, "ns", markdown=True)
    lines = text.splitlines()
    assert lines[0] == "| op | order | N | open ns/op (spread) | santos |"
    assert lines[2] == "| find_hit | random | 1000 | 1.0 (0%) | 0.500 (0.50-0.50) |"
