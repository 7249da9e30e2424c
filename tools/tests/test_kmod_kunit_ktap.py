# SPDX-License-Identifier: GPL-2.0
"""kmod/tests/kunit-ktap on kernel logs recorded by kmod/tests/kunit-run in
the guest: every case of every module counted, on 6.12 (a top-level KTAP
header and plan per module) and on 6.1 (indented suites alone), and a
module with no KTAP, a crash or a missing suite is a failure naming it.
The logs are parsed by the kernel trees' own kunit_parser (RBTI_KSRC and
RBTI_OTHER_KSRC, or else every tree make test extracted into the cache),
each log by every tree.  From 6.15 on, kunit_parser's parse_run_tests()
takes the printer as an argument; before, it prints to kunit_printer's
module-level one.  kunit-ktap handles both."""

import glob
import os
import re
import sys

import pytest

from tests_support.trees import load_script

REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                    os.pardir)
KTAP = os.path.join(REPO, "kmod", "tests", "kunit-ktap")
RESULTS = os.path.join(REPO, "qemu", "results")
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data")


def _log(name: str) -> str:
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return f.read()


# The kernel logs kunit-run gathered in the 6.12.118 and 6.1.192 debug
# guests (each module's log after its "kunit-run: module NAME" line).
LOG_612 = _log("kunit-6.12.tap")
LOG_61 = _log("kunit-6.1.tap")


def load():
    """kmod/tests/kunit-ktap as a module (it has no .py name)."""
    return load_script(KTAP, "kunit_ktap")


def kunit_dirs() -> list:
    """The tools/testing/kunit of the trees of the run's kernels (make
    test's RBTI_KSRC and RBTI_OTHER_KSRC: the same number of tests on
    every machine, whatever else its cache holds), or else of every
    kernel tree in the cache."""
    cache = os.environ.get("RBTI_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "rbtree-inspector")
    trees = [os.environ.get("RBTI_KSRC"), os.environ.get("RBTI_OTHER_KSRC")]
    if not any(trees):
        trees = sorted(glob.glob(os.path.join(cache, "linux-*")))
    out = {}
    for tree in filter(None, trees):
        d = os.path.join(tree, "tools", "testing", "kunit")
        if os.path.isfile(os.path.join(d, "kunit_parser.py")):
            out.setdefault(os.path.realpath(d), d)
    return list(out.values())


@pytest.fixture(params=kunit_dirs() or [None],
                ids=lambda d: d and os.path.basename(
                    os.path.dirname(os.path.dirname(os.path.dirname(d)))))
def kunit_dir(request):
    """A kernel tree's tools/testing/kunit, its kunit_parser imported
    afresh for the test and forgotten after it."""
    if request.param is None:
        pytest.skip("no kernel tree with tools/testing/kunit (RBTI_KSRC, "
                    "or one make test extracted into the cache)")
    path = list(sys.path)
    for name in ("kunit_parser", "kunit_printer"):
        sys.modules.pop(name, None)
    yield request.param
    for name in ("kunit_parser", "kunit_printer"):
        sys.modules.pop(name, None)
    sys.path[:] = path


def run(kunit_dir, log: str, tmp_path, capsys) -> tuple:
    """kunit-ktap's exit status and output on *log*, and the project's
    judge's reading of that output (qemu/results)."""
    tap = tmp_path / "kunit.tap"
    tap.write_text(log)
    rc = load().main(kunit_dir, str(tap))
    out = capsys.readouterr().out
    judged = load_script(RESULTS, "results").parse(out)
    assert judged["problems"] == [], out
    return rc, out, judged


def cases(out: str) -> list:
    """(number, status, name) of each case line of kunit-ktap's output."""
    return [(int(m.group(2)), m.group(1), m.group(3)) for m in
            re.finditer(r"^(ok|not ok) (\d+) (\S+)", out, re.M)]


def per_module(out: str) -> dict:
    return {m.group(1): int(m.group(2)) for m in re.finditer(
        r"^# module (\S+): (\d+) cases$", out, re.M)}


def without_markers(log: str) -> str:
    return "".join(x for x in log.splitlines(True)
                   if not x.startswith("kunit-run: module "))


# --- the splitting, without kunit_parser ----------------------------------

def test_a_log_is_cut_into_modules_and_streams():
    k = load()
    secs = k.sections(LOG_612.splitlines(), "kunit.tap")
    assert [m for m, _ in secs] == ["rbtree_generic_kunit",
                                    "rbtree_kunit_family"]
    for _, lines in secs:
        streams = k.streams(lines)
        assert len(streams) == 1
        assert streams[0][:2] == ["KTAP version 1", streams[0][1]]
        assert re.fullmatch(r"1\.\.\d+", streams[0][1])
    # Without the markers: one section, cut at each top-level header.
    secs = k.sections(without_markers(LOG_612).splitlines(), "kunit.tap")
    assert [m for m, _ in secs] == ["kunit.tap"]
    assert len(k.streams(secs[0][1])) == 2


def test_indented_suites_get_a_header_and_a_plan_of_their_suites():
    k = load()
    secs = k.sections(LOG_61.splitlines(), "kunit.tap")
    assert [m for m, _ in secs] == ["rbtree_generic_kunit",
                                    "rbtree_kunit_family"]
    for _, lines in secs:
        streams = k.streams(lines)
        assert len(streams) == 1
        suites = sum(1 for x in lines if x.startswith("    # Subtest: "))
        assert suites >= 1
        assert streams[0][:2] == ["KTAP version 1", f"1..{suites}"]


def test_timestamps_are_cut_and_chatter_without_ktap_is_no_stream():
    k = load()
    secs = k.sections(["[    1.000000] booting", "kunit-run: module m",
                       "[   12.345678] m: loading out-of-tree module",
                       "[   12.400000] KTAP version 1"], "f")
    assert secs == [("m", ["m: loading out-of-tree module",
                           "KTAP version 1"])]
    assert k.streams(["m: loading out-of-tree module"]) == []


# --- whole logs, through kunit_parser -------------------------------------

def test_612_counts_every_case_of_both_modules(kunit_dir, tmp_path, capsys):
    rc, out, judged = run(kunit_dir, LOG_612, tmp_path, capsys)
    got = cases(out)
    assert rc == 0, out
    assert [n for n, _, _ in got] == list(range(1, CASES_612 + 1)), out
    assert all(st == "ok" for _, st, _ in got), out
    assert per_module(out) == MODULES_612, out
    assert any(name.endswith(".rbk_test_find_rcu") for _, _, name in got)
    assert out.rstrip().splitlines()[-1] == (
        f"{CASES_612 - SKIPPED_612} passed, 0 failed, {SKIPPED_612} skipped")
    assert len(judged["tests"]) == CASES_612


def test_61_counts_every_case_of_both_modules(kunit_dir, tmp_path, capsys):
    rc, out, judged = run(kunit_dir, LOG_61, tmp_path, capsys)
    got = cases(out)
    assert rc == 0, out
    assert [n for n, _, _ in got] == list(range(1, CASES_61 + 1)), out
    assert all(st == "ok" for _, st, _ in got), out
    assert per_module(out) == MODULES_61, out
    assert not any(name.endswith(".rbk_test_find_rcu") for _, _, name in got)
    assert out.rstrip().splitlines()[-1] == (
        f"{CASES_61 - SKIPPED_61} passed, 0 failed, {SKIPPED_61} skipped")
    assert len(judged["tests"]) == CASES_61


def test_a_log_without_markers_is_cut_at_its_headers(kunit_dir, tmp_path,
                                                     capsys):
    rc, out, _ = run(kunit_dir, without_markers(LOG_612), tmp_path, capsys)
    assert rc == 0, out
    assert len(cases(out)) == CASES_612, out
    assert per_module(out) == {"kunit.tap": CASES_612}


def crash(log: str) -> str:
    """*log* with rbtree_kunit_family's stream cut after its third case
    line, an oops in its place."""
    head, family = log.split("kunit-run: module rbtree_kunit_family\n")
    lines = family.splitlines(True)
    third = [i for i, x in enumerate(lines)
             if re.match(r"    ok \d+ ", x)][2]
    return (head + "kunit-run: module rbtree_kunit_family\n"
            + "".join(lines[:third + 1])
            + "BUG: kernel NULL pointer dereference, address: 0000000000000008\n"
            + "Oops: 0000 [#1] PREEMPT SMP KASAN NOPTI\n")


@pytest.mark.parametrize("which", ["6.12", "6.1"])
def test_a_module_that_crashes_mid_stream_fails(which, kunit_dir, tmp_path,
                                                capsys):
    log, modules = {"6.12": (LOG_612, MODULES_612),
                    "6.1": (LOG_61, MODULES_61)}[which]
    rc, out, judged = run(kunit_dir, crash(log), tmp_path, capsys)
    got = cases(out)
    assert rc == 1
    bad = [name for _, st, name in got if st == "not ok"]
    assert bad[-1] == "module", out
    assert re.search(r"^not ok \d+ module rbtree_kunit_family: "
                     r"kunit_parser found \d+ errors", out, re.M), out
    assert "missing" in out
    # The first module's cases and the family's first three still count.
    ok = [name for _, st, name in got if st == "ok"]
    generic = modules["rbtree_generic_kunit"]
    assert len(ok) == generic + 3, out
    assert per_module(out)["rbtree_generic_kunit"] == generic
    assert judged["tally"][1] >= 1


def test_a_module_with_no_ktap_fails(kunit_dir, tmp_path, capsys):
    head, _ = LOG_612.split("kunit-run: module rbtree_kunit_family\n")
    log = (head + "kunit-run: module rbtree_kunit_family\n"
           + "rbtree_kunit_family: Unknown symbol rb_find_rcu (err -2)\n")
    rc, out, _ = run(kunit_dir, log, tmp_path, capsys)
    assert rc == 1
    assert re.search(r"^not ok \d+ module rbtree_kunit_family: no KTAP",
                     out, re.M), out
    assert per_module(out) == {**MODULES_612, "rbtree_kunit_family": 0}


def test_a_suite_missing_from_a_plan_fails(kunit_dir, tmp_path, capsys):
    # The generic module's last suite, gone from its 6.12 stream: its
    # top-level plan still names it.
    head, family = LOG_612.split("kunit-run: module rbtree_kunit_family\n")
    lines = head.splitlines(True)
    starts = [i for i, x in enumerate(lines)
              if x.startswith("    KTAP version 1")]
    ends = [i for i, x in enumerate(lines) if re.match(r"(not )?ok \d+ ", x)]
    log = ("".join(lines[:starts[-1]] + lines[ends[-1] + 1:])
           + "kunit-run: module rbtree_kunit_family\n" + family)
    rc, out, _ = run(kunit_dir, log, tmp_path, capsys)
    assert rc == 1
    assert re.search(r"^not ok \d+ module rbtree_generic_kunit: ",
                     out, re.M), out


# --- the recorded logs ----------------------------------------------------

# The cases kmod/tests/kunit-run saw in each module, and in all.
MODULES_612 = {"rbtree_generic_kunit": 28, "rbtree_kunit_family": 14}
CASES_612, SKIPPED_612 = 42, 0
MODULES_61 = {"rbtree_generic_kunit": 28, "rbtree_kunit_family": 13}
CASES_61, SKIPPED_61 = 41, 0

# kmod/tests/kunit-run's kunit.tap in the 6.12.118 debug guest: each
# module's kernel log after its marker, each with a top-level KTAP header
# and plan of its own.

# The same in the 6.1.192 debug guest: indented suites, no top-level
# header.
