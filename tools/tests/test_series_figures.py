# SPDX-License-Identifier: GPL-2.0
"""kmod/patches/series_figures.py and gen-series: the cover letter's cost paragraph is
written from docs/generated/bench.md and hint-climb.md, each figure from
its table, and a page that lacks one stops gen-series."""

import math
import os
import re
import sys

import pytest

from tests_support.trees import load_script

PATCHES = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                       os.pardir, "kmod", "patches")
# gen-series imports these from beside it: loaded by path, as it finds them.
for _name in ("series_text", "series_debug", "series_figures", "series_cc"):
    load_script(os.path.join(PATCHES, _name + ".py"), _name)
import series_figures as figures  # noqa: E402  pylint: disable=wrong-import-position

BENCH = figures.BENCH.read_text()
CLIMB = figures.CLIMB.read_text()


def flat(text: str) -> str:
    """The paragraph as one line, to search across its wrapping."""
    return " ".join(text.split())


def test_the_committed_cover_letter_has_the_pages_paragraph():
    with open(os.path.join(PATCHES, "0000-cover-letter.patch"), encoding="utf-8") as f:
        cover = f.read()
    assert figures.cost_paragraph() in cover


def edit_cell(page: str, lead: tuple[str, ...], column: int, edit) -> str:
    """PAGE with cell COLUMN of the one table row that starts with LEAD
    replaced by edit(cell)."""
    lines = page.split("\n")
    rows = [i for i, line in enumerate(lines) if figures.cells(line)[:len(lead)] == list(lead)
            and line.startswith("|")]
    assert len(rows) == 1, f"{len(rows)} rows start with {lead}"
    row = figures.cells(lines[rows[0]])
    row[column] = edit(row[column])
    lines[rows[0]] = "| " + " | ".join(row) + " |"
    return "\n".join(lines)


def test_each_count_comes_from_its_row():
    page = edit_cell(BENCH, ("`santos`",), 1, lambda cell: "917 / 7.0")
    lc_insert = int(figures.number(figures.cells(
        next(line for line in BENCH.split("\n") if line.startswith("| `santos_lc` |")))[1]))
    text = flat(figures.cost_paragraph(page, CLIMB))
    assert "tree runs 917 instructions per insert" in text
    # The caches' cost is santos_lc's insert less santos's.
    assert f"caches add {lc_insert - 917} instructions per insert" in text


def test_the_unique_inserts_baseline_is_rb_find_add():
    """The unique insert is measured against rb_find_add() (mainline_u), the
    insert that keeps equal keys against rb_add() (mainline)."""
    page = edit_cell(BENCH, ("`mainline_u`",), 1, lambda cell: "917 / 7.0")
    text = flat(figures.cost_paragraph(page, CLIMB))
    assert "917 and 130 for mainline's rb_find_add() and rb_find()" in text
    helper = figures.find(figures.tables(BENCH), "bench.md",
                          "Generic APIs against mainline's helper")
    values = [figures.number(c) for c in figures.time_cells(
        helper.select(variant="`santos`", op="insert", baseline="`mainline_u`"))]
    assert len(values) == 6
    assert (f"the unique insert takes {min(values):.2f}x-{max(values):.2f}x the time "
            "of rb_find_add()") in text
    page = edit_cell(BENCH, ("`mainline`",), 1, lambda cell: "918 / 7.1")
    assert "against 918 and 7.1 for rb_add()" in flat(figures.cost_paragraph(page, CLIMB))


def test_ranges_span_every_build_and_size():
    text = flat(figures.cost_paragraph(BENCH, CLIMB))
    # santos against open_cmp_u, insert and find_hit, three builds, two N.
    table = figures.find(figures.tables(BENCH), "bench.md",
                         "Generic APIs against the open-coded loop making the same")
    values = [figures.number(c) for c in figures.time_cells(
        table.select(variant="`santos`", op="insert") + table.select(variant="`santos`",
                                                                    op="find_hit"))]
    assert len(values) == 12
    assert f"in {min(values):.2f}x-{max(values):.2f}x that loop's time" in text


def test_a_ratio_outside_the_noise_floor_withdraws_the_verdict():
    plain = BENCH.replace("**", "")
    assert "costs nothing" in flat(figures.cost_paragraph(plain, CLIMB))
    # The santos/open_cmp_u insert row of the plain build, N=1000 cell bold.
    page = edit_cell(plain, ("none/arith", "`santos`", "insert", "`open_cmp_u`"), 5,
                     lambda cell: cell.replace(cell.split()[0], f"**{cell.split()[0]}**"))
    text = flat(figures.cost_paragraph(page, CLIMB))
    assert "costs nothing" not in text
    assert "with 1 of 12 ratios outside the run's noise floor" in text


def test_the_climb_comes_from_hint_climb_md():
    page = edit_cell(CLIMB, ("1024",), 2, lambda cell: "13.50")
    reads, keys = figures.climb(page)
    low = min(reads[d] - math.log2(d) for d in reads if 2 <= d <= 1024)
    text = flat(figures.cost_paragraph(BENCH, page))
    assert f"(13.50 at d = 1024, on {keys} keys)" in text
    assert f"log2(d) + {low:.2f} to 3.50 for d = 2 to 1024" in text
    # The tree's size too is the page's.
    assert f"tree of {keys} keys" in page
    resized = page.replace(f"tree of {keys} keys", "tree of 4,095 keys")
    assert "(13.50 at d = 1024, on 4,095 keys)" in flat(figures.cost_paragraph(BENCH, resized))


def test_the_sizes_timed_are_the_ratio_tables_columns():
    text = flat(figures.cost_paragraph(BENCH, CLIMB))
    assert "times at N = 1000 and 10000 as medians" in text
    page = BENCH.replace("| N=1000 | N=10000 |", "| N=1000 | N=20000 |")
    assert "times at N = 1000 and 20000 as medians" in flat(figures.cost_paragraph(page, CLIMB))


@pytest.mark.parametrize("cut, message", [
    ("Out-of-line penalty", "no table under 'Out-of-line penalty'"),
    ("Santos `insert_near()`/`find_near()`", "no table under 'Santos"),
    ("| `santos_lc` |", "no instructions row for santos_lc"),
    ("| `mainline_u` |", "no instructions row for mainline_u"),
    ("Generic APIs against mainline's helper", "no table under 'Generic APIs against "
     "mainline's helper"),
])
def test_a_missing_table_or_row_is_an_error(cut, message):
    page = "\n".join(line for line in BENCH.split("\n") if not line.startswith(cut))
    assert page != BENCH
    with pytest.raises(figures.FigureError, match=message.replace("(", r"\(").replace(
            ")", r"\)").replace("|", r"\|")):
        figures.cost_paragraph(page, CLIMB)


def test_no_line_over_72_columns_and_no_split_equation():
    text = figures.cost_paragraph(BENCH, CLIMB)
    assert all(len(line) <= 72 for line in text.split("\n"))
    assert not any(line.endswith((" N", " d", " =")) for line in text.split("\n"))


def test_the_submitter_is_not_cced(monkeypatch):
    """gen-series in a tree whose MAINTAINERS lists the submitter (patch 1's
    entry, as qemu/patches generates) must give series-check's Cc: lines."""
    gen = load_script(os.path.join(PATCHES, "gen-series"), "gen_series")
    found = ["Submitter <Me@Example.org>", "linux-kernel@vger.kernel.org",
             "Andrew Morton <akpm@linux-foundation.org>"]
    cc = sys.modules["series_cc"]         # gen-series' Cc: lists
    monkeypatch.setattr(cc, "get_maintainer", lambda ksrc, patch: found)
    assert cc.cc_list(None, "", "Me Myself <me@example.org>") == found[1:]
    assert cc.cc_list(None, "", gen.PLACEHOLDER) == found


DEBUG = figures.DEBUG_COST.read_text()


def test_the_committed_debug_patch_has_the_pages_paragraph():
    debug = [p for p in os.listdir(PATCHES) if p.endswith("CONFIG_DEBUG_RBTREE.patch")]
    assert len(debug) == 1
    with open(os.path.join(PATCHES, debug[0]), encoding="utf-8") as f:
        assert figures.debug_cost_paragraph() in f.read()


def write_page(tmp_path, text):
    page = tmp_path / "debug-rbtree-cost.md"
    page.write_text(text)
    return page


def test_the_debug_paragraph_follows_the_page(tmp_path):
    lines = DEBUG.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("| erase | 1000 |"))
    cells = figures.cells(lines[at])
    cells[-1] = "+77.0"
    lines[at] = "| " + " | ".join(cells) + " |"
    text = flat(figures.debug_cost_paragraph(write_page(tmp_path, "\n".join(lines))))
    assert "instructions per erase" in text
    assert "+77.0" not in text and "-77.0 instructions per erase" in text


def test_the_debug_paragraph_reads_the_size_line(tmp_path):
    # The first bloat-o-meter line is rbtree.o's; whatever its figure now.
    size = re.search(r"up/down: \d+/0 \(\d+\)", DEBUG).group(0)
    page = write_page(tmp_path, DEBUG.replace(size, "up/down: 9/0 (9)", 1))
    assert "grow by 9 bytes" in flat(figures.debug_cost_paragraph(page))


@pytest.mark.parametrize("cut, message", [
    ("| erase |", "no row for erase"),
    ("| operation |", "no table with a 'with DEBUG_RBTREE' column"),
])
def test_a_missing_debug_row_is_an_error(tmp_path, cut, message):
    page = "\n".join(line for line in DEBUG.split("\n") if not line.startswith(cut))
    with pytest.raises(figures.FigureError, match=message.replace("(", r"\(")):
        figures.debug_cost_paragraph(write_page(tmp_path, page))


def test_a_missing_debug_page_is_an_error(tmp_path):
    with pytest.raises(figures.FigureError, match="debug-cost --doc writes it"):
        figures.debug_cost_paragraph(tmp_path / "absent.md")


def test_the_library_authors_are_those_maintainers_lists(tmp_path):
    """Cc: the copyright holders of the library's files whom MAINTAINERS
    lists, at its address; one it does not list is left out."""
    load_script(os.path.join(PATCHES, "gen-series"), "gen_series")
    cc = sys.modules["series_cc"]         # gen-series' Cc: lists
    for name in cc.LIBRARY_FILES:
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("/*\n  (C) 2012  Ann Old <ann@old.example>\n */\n")
    (tmp_path / cc.LIBRARY_FILES[1]).write_text(
        " * Copyright (C) 2015 Some Corp., Bob Bee <bob@old.example>\n")
    (tmp_path / "MAINTAINERS").write_text("FOO\nM:\tBob Bee <bob@new.example>\n")
    assert cc.library_authors(tmp_path) == ["Bob Bee <bob@new.example>"]
    (tmp_path / "MAINTAINERS").write_text("FOO\nR:\tAnn Old <ann@now.example>\n"
                                          "M:\tBob Bee <bob@new.example>\n")
    assert cc.library_authors(tmp_path) == ["Ann Old <ann@now.example>",
                                            "Bob Bee <bob@new.example>"]


class FakeTree:
    """A tree of two headers, for gen-series' backport detection."""

    def __init__(self, headers: dict, backport: bool = True) -> None:
        self.headers = headers
        self.backport = backport

    def read(self, path: str) -> str:
        return self.headers[path]


def test_a_backport_leaves_out_the_cases_of_the_helpers_the_tree_lacks():
    """gen-series --backport: on a tree without rb_add_augmented_cached()
    and rb_find_rcu() (6.1), patch 1's suite has neither case, its other
    cases stay, and the message says what is left out; the series proper
    (and a backport to a tree that has both) keeps every case."""
    gen = load_script(os.path.join(PATCHES, "gen-series"), "gen_series")
    full = gen.family_kunit_file()
    old = FakeTree({"include/linux/rbtree.h": "static inline void rb_add(\n",
                    "include/linux/rbtree_augmented.h": "rb_insert_augmented(\n"})
    new = FakeTree({"include/linux/rbtree.h": "rb_find_rcu(const void *key,\n",
                    "include/linux/rbtree_augmented.h": "rb_add_augmented_cached(s\n"})
    assert gen.tree_lacks(FakeTree(old.headers, backport=False)) == ()
    lacks = gen.tree_lacks(old)
    assert lacks == ("rb_add_augmented_cached", "rb_find_rcu")
    assert gen.tree_lacks(new) == ()
    text = gen.family_kunit_file(lacks)
    for helper in ("rb_add_augmented_cached(", "rb_find_rcu(", "rb_find_add_rcu(",
                   "rbk_test_add_augmented_cached", "rbk_test_find_rcu"):
        assert helper in full and helper not in text, helper
    cases = [line for line in full.split("\n") if "KUNIT_CASE(" in line]
    assert [line for line in text.split("\n") if "KUNIT_CASE(" in line] == \
        [c for c in cases if "add_augmented_cached" not in c and "find_rcu" not in c]
    assert len(text.split("\n")) < len(full.split("\n")) - 40
    assert "\n\n\n" not in text and "\n\n\n" not in full   # checkpatch: one blank line
    note = gen.backport_note(lacks)
    assert "rb_add_augmented_cached() (6.6)" in note and \
        "rb_find_rcu() and rb_find_add_rcu() (6.12)" in note
    assert gen.backport_note(()) == ""
