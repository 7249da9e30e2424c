# SPDX-License-Identifier: GPL-2.0
"""Tests of the benchmark output parser, statistics and agreement checks."""
from __future__ import annotations

import os

import pytest

from rbtibench import code, counts, machine, results, stats

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


def test_a_repetition_whose_passes_disagree_is_named() -> None:
    run = run_of(cell("open", 0, 1, check="bad"), cell("santos", 0, 1, check="bad"))
    assert list(results.disagreements(run)) == [
        "open find_hit random n=1000 rep 0: passes of one repetition disagree",
        "santos find_hit random n=1000 rep 0: passes of one repetition disagree"]


def test_cell_digests_ignore_repetitions_but_not_mixed_results() -> None:
    run = run_of(cell("open", 0, 1), cell("open", 1, 1), cell("santos", 0, 1),
                 cell("santos", 1, 1, check="abd"))
    assert results.cell_digests(run) == {
        ("open", "find_hit", "random", 1000): "abc",
        ("santos", "find_hit", "random", 1000): "mixed"}


def test_paired_ratios_and_their_interval() -> None:
    # santos takes 1.1x open's time in every repetition, whatever the noise.
    cells = run_of(*(cell("open", r, t) for r, t in enumerate([1000, 3000, 2000, 1500])),
                   *(cell("santos", r, int(1.1 * t))
                     for r, t in enumerate([1000, 3000, 2000, 1500]))).cells
    r = stats.ratios(cells, "santos", "open")[("find_hit", "random", 1000)]
    assert (r.ratio, r.lo, r.hi, r.reps) == (pytest.approx(1.1), pytest.approx(1.1),
                                             pytest.approx(1.1), 4)
    assert r.excludes(0.05) and not r.excludes(0.2)


def test_bootstrap_interval_brackets_the_median_and_narrows_with_data() -> None:
    few = [0.9, 1.1, 1.0, 0.95, 1.05]
    med, lo, hi = stats.bootstrap_median(few)
    assert lo <= med == 1.0 <= hi
    _, lo2, hi2 = stats.bootstrap_median(few * 20)
    assert hi2 - lo2 < hi - lo


def test_noise_floor_is_the_worst_identical_pair() -> None:
    cells = run_of(cell("open", 0, 1000), cell("santos", 0, 1030),
                   cell("open", 0, 1000, op="walk"), cell("santos", 0, 950, op="walk")).cells
    floor, seen = stats.noise_floor(cells, [("open", "santos", "walk")])
    assert floor == {1000: pytest.approx(1000 / 950 - 1)}
    assert [s[:5] for s in seen] == [("open", "santos", "walk", "random", 1000)]


def test_expected_entries_expand_macros() -> None:
    src = """
static BENCH_ENTRY void bench_open_insert(struct t *t)
static BENCH_ENTRY struct bench_obj *
bench_open_find(struct t *t, u64 key)
#define OPS(name, prefix)\t\t\\
static BENCH_ENTRY void bench_##name##_insert(struct t *t)\t\\
{\t\\
}
OPS(santos, bench_su)
OPS(santos_lc, bench_slc)
"""
    assert code.expected_entries([src]) == {
        "bench_open_insert", "bench_open_find", "bench_santos_insert",
        "bench_santos_lc_insert"}


CG_DUMP = """# callgrind format
desc: Trigger: Client Request: cell ovs_ool find_hit random 1000
events: Ir Dr Dw I1mr D1mr D1mw ILmr DLmr DLmw Bc Bcm Bi Bim
summary: 50000 1 1 0 300 200 0 10 0 9000 800 1000 5
"""


def test_callgrind_dump_gives_counts_per_operation() -> None:
    c = counts.parse_dump(CG_DUMP)
    assert (c.variant, c.op, c.order, c.n) == ("ovs_ool", "find_hit", "random", 1000)
    assert c.per_op == {"Ir": 50.0, "Bc": 9.0, "Bcm": 0.8, "Bi": 1.0, "Bim": 0.005,
                        "D1m": 0.5, "LLm": 0.01}
    assert counts.parse_dump(CG_DUMP.replace("Client Request: cell", "Program termination")
                             ) is None


@pytest.mark.parametrize("v2, srso, vendor, family, profile", [
    ("Mitigation: Retpolines; STIBP: disabled", "Vulnerable: No microcode",
     "AuthenticAMD", 0x1a, "retpoline"),
    ("Mitigation: Retpolines", "Vulnerable: Safe RET, no microcode",
     "AuthenticAMD", 0x19, "rethunk"),
    ("Mitigation: Enhanced / Automatic IBRS", "Not affected", "GenuineIntel", 6, "none"),
])
def test_debian61_profile(v2: str, srso: str, vendor: str, family: int,
                          profile: str) -> None:
    vulns = {"spectre_v2": v2, "spec_rstack_overflow": srso}
    assert machine.debian61_profile(vulns, vendor, family)[0] == profile


def test_check_rejects_a_guest_whose_digest_differs(tmp_path) -> None:
    import subprocess
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parent.parent / "bench.py"
    variants = ["open", "open_bf", "open_cmp", "open_cmp_u", "open_cmp_first",
                "mainline", "mainline_u", "ovs_inline",
                "ovs_ool", "santos", "santos_lc", "santos_dup"]
    lines = ["rbtree-bench 1", *(f"variant {v}" for v in variants),
             *(cell(v, 0, 1) for v in variants), "end"]
    host, guest = tmp_path / "host-raw.txt", tmp_path / "guest-raw.txt"
    host.write_text("\n".join(lines) + "\n")
    guest.write_text("\n".join(lines).replace(" abc", " abd") + "\n")

    def check(*paths: Path) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, str(bench), "check", *map(str, paths)],
                              capture_output=True, text=True)

    assert check(host, host).returncode == 0
    bad = check(host, guest)
    assert bad.returncode == 1
    assert "not ok guest-raw.txt digests equal host-raw.txt's" in bad.stdout


@pytest.mark.slow
def test_programs_run_under_a_time_limit(tmp_path):
    """proc.run: the output and status as subprocess.run's; a program past
    its limit gets SIGTERM, one that ignores it SIGKILL, and TimedOut."""
    import subprocess
    import time
    from rbtibench import proc

    assert proc.run(["sh", "-c", "echo hi"], 10, capture_output=True,
                    text=True).stdout == "hi\n"
    with pytest.raises(subprocess.CalledProcessError):
        proc.run(["sh", "-c", "exit 3"], 10)
    assert proc.run(["sh", "-c", "exit 3"], 10, check=False).returncode == 3
    pid = tmp_path / "pid"
    for script in ("sleep 1000", "trap '' TERM; sleep 1000"):
        t0 = time.monotonic()
        with pytest.raises(proc.TimedOut, match="did not finish in 1 s"):
            proc.run(["sh", "-c", f"echo $$ > {pid}; {script}"], 1,
                     capture_output=True)
        assert time.monotonic() - t0 < 1 + proc.GRACE + 5
        with pytest.raises(ProcessLookupError):
            os.kill(int(pid.read_text()), 0)


def test_generated_header_names_command_commit_date_and_machine() -> None:
    from rbtibench import report
    head = report.generated_header("Benchmark tables", "qemu/bench",
                                   {"command": "`make bench QUICK=1`", "commit": "abc1234",
                                    "machine": "some CPU", "settings": ""})
    assert head.startswith("# Benchmark tables\n\nGenerated by qemu/bench; do not edit")
    for row in ("| command | `make bench QUICK=1` |", "| commit | abc1234 |",
                "| machine | some CPU |"):
        assert row in head
    assert "| date | 20" in head and "settings" not in head


@pytest.mark.parametrize("command", ["host", "guest-run", "check", "report",
                                     "readme", "check-entries"])
def test_every_bench_option_has_help(command, capsys, monkeypatch) -> None:
    """bench.py COMMAND --help: every option and argument says what it is
    (a help-less one is a line of its own, followed by the next option)."""
    import importlib.util
    path = os.path.join(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))), "bench.py")
    spec = importlib.util.spec_from_file_location("bench_cli", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    monkeypatch.setenv("COLUMNS", "200")
    with pytest.raises(SystemExit):
        bench.main([command, "--help"])
    text = capsys.readouterr().out
    lines = text[text.index("\npositional arguments:" if command in (
        "check", "check-entries") else "\noptions:"):].splitlines()
    lines.append("")

    def entry(line: str) -> bool:
        return line.startswith("  ") and not line.startswith("   ")
    bare = [line for line, after in zip(lines, lines[1:])
            if entry(line) and "  " not in line.strip() and
            not after.startswith("   ")]
    assert not bare, bare
