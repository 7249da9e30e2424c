#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run the rbtree API benchmark and report it (see kmod/bench/bench.h).

  bench.py host --build P/C=BIN...        counts under valgrind, then adaptive
                                          timed rounds of every build, pinned to
                                          one CPU; report (md, CSV, plots)
  bench.py guest-run --module KO --raw F  (in the guest) load rbtree_bench.ko,
                                          run it through debugfs, save its output
  bench.py report --out DIR --name NAME   regenerate a host run's report
  bench.py readme --out DIR --name NAME   the README's tables from a host run
  bench.py check RAW [RAW...]             the variants agree (and the runs agree
                                          with each other); prints ok / not ok lines
  bench.py check-entries BIN --source C.. the build's guard: no entry point
                                          cloned, folded or inlined

Exit status: 0, or 1 if the variants disagree or a check fails.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import time
from pathlib import Path

from rbtibench import code, counts, machine, proc, report, results, stats

DEBUGFS_RUN = Path("/sys/kernel/debug/rbtree_bench/run")
ROUND_LIMIT = 900
"""Seconds one timing round may take (a round is a part of --time-cap; a
1e6-node tree takes minutes a repetition)."""
SHORT_LIMIT = 120
"""Seconds for a program that should take a moment (insmod, a probe run)."""
# Variants built both in the kernel and in userspace (bsd: userspace only).
KERNEL_VARIANTS = {"open", "open_bf", "open_cmp", "open_cmp_u", "open_cmp_first",
                   "mainline", "mainline_u", "ovs_inline", "ovs_ool", "santos",
                   "santos_lc", "santos_dup"}


def _sizes(text: str) -> list[int]:
    return [int(float(s)) for s in text.split(",") if s]


def _parse_builds(specs: list[str]) -> dict[str, Path]:
    builds = {}
    for spec in specs:
        label, _, path = spec.partition("=")
        builds[label] = Path(path)
    return builds


def baseline_of(label: str) -> str:
    """The open-coded loop with the same comparison form as the build's
    generic loops: branch-free for the arith comparison, branchy else."""
    return "open" if label.endswith("/branchy") else "open_bf"


def _run_round(binary: Path, cpu: int, args: argparse.Namespace, offset: int
               ) -> list[results.Cell]:
    cmd = ["taskset", "-c", str(cpu), str(binary), "-n", ",".join(map(str, args.sizes)),
           "-r", str(args.round_reps), "-m", str(args.min_ops), "-s", str(args.seed)]
    out = proc.run(cmd, ROUND_LIMIT, capture_output=True, text=True).stdout
    run = results.parse_run(out.splitlines())
    bad = list(results.disagreements(run))
    if bad:
        raise SystemExit(f"{binary}: variants disagree: {bad[:3]}")
    return [dataclasses.replace(c, rep=c.rep + offset) for c in run.cells]


def _widest(cells: list[results.Cell], label: str, variants: list[str]) -> float:
    base = baseline_of(label)
    widths = [r.half_width for v in variants if v != base
              for r in stats.ratios(cells, v, base).values()]
    return max(widths, default=float("inf"))


def cmd_host(args: argparse.Namespace) -> int:
    """Counts under valgrind, then timed rounds of every build, interleaved,
    until every ratio's interval is within the target or the time cap;
    then the report."""
    builds = _parse_builds(args.build)
    args.out.mkdir(parents=True, exist_ok=True)
    cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
    t_start = time.monotonic()
    vulns = machine.vulnerabilities()
    profile, why = machine.debian61_profile(vulns, *machine.cpu_family())
    env = machine.environment() | {
        "pinned_cpu": str(cpu), "debian61_profile": profile, "debian61_why": why,
        "spectre_v2": vulns.get("spectre_v2", "?"),
        "spec_rstack_overflow": vulns.get("spec_rstack_overflow", "?"),
        "retbleed": vulns.get("retbleed", "?"),
        "load_before": " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "flags": {label: args.flags.get(label, "") for label in builds}}
    print(f"machine: {env['cpu']}, kernel {env['kernel']}", file=sys.stderr)
    print(f"a Debian 6.1 kernel here would run profile '{profile}': {why}", file=sys.stderr)

    data: dict[str, dict] = {}
    for label, binary in builds.items():
        variants = _variants_of(binary)
        data[label] = {
            "binary": binary, "variants": variants, "cells": [],
            "sizes": code.text_sizes(binary, variants),
            "pairs": code.identical_ops(binary, variants, list(results.OPS)),
            "counts": []}
    if args.count_sizes:
        for label, d in data.items():
            t0 = time.monotonic()
            d["counts"] = counts.measure(d["binary"], args.count_sizes, args.seed)
            print(f"counts {label}: {len(d['counts'])} cells, "
                  f"{time.monotonic() - t0:.0f} s", file=sys.stderr)
    t_timing = time.monotonic()
    rounds = 0
    while True:
        for label, d in data.items():
            d["cells"] += _run_round(d["binary"], cpu, args, rounds * args.round_reps)
        rounds += 1
        spent = time.monotonic() - t_timing
        widest = max(_widest(d["cells"], label, d["variants"]) for label, d in data.items())
        print(f"round {rounds}: {rounds * args.round_reps} repetitions, {spent:.0f} s, "
              f"widest 95% interval +-{100 * widest:.1f}%", file=sys.stderr)
        if rounds >= args.min_rounds and widest <= args.target:
            stop = f"every interval within +-{100 * args.target:.0f}%"
            break
        per_round = spent / rounds
        if spent + per_round > args.time_cap:
            stop = (f"time cap {args.time_cap:.0f} s (widest interval "
                    f"+-{100 * widest:.1f}%)")
            break
    env |= {"rounds": rounds, "reps": rounds * args.round_reps, "stop": stop,
            "timing_seconds": f"{time.monotonic() - t_timing:.0f}",
            "seconds": f"{time.monotonic() - t_start:.0f}",
            "load_after": " ".join(f"{x:.2f}" for x in os.getloadavg()),
            "sizes": args.sizes, "count_sizes": args.count_sizes,
            "min_ops": args.min_ops, "seed": args.seed}
    saved = {"env": env, "builds": {}}
    for label, d in data.items():
        raw = args.out / f"{args.name}-{label.replace('/', '-')}-cells.txt"
        raw.write_text("".join(f"{c.variant} {c.op} {c.order} {c.n} {c.rep} {c.ops} "
                               f"{c.time} {c.check}\n" for c in d["cells"]))
        saved["builds"][label] = {
            "binary": str(d["binary"]), "variants": d["variants"],
            "sizes": [[v, op, size] for (v, op), size in d["sizes"].items()],
            "pairs": d["pairs"], "cells": raw.name,
            "counts": [dataclasses.asdict(c) for c in d["counts"]]}
    (args.out / f"{args.name}-data.json").write_text(json.dumps(saved, indent=1) + "\n")
    print(_report(args.out, args.name))
    return 0


def _report(out: Path, name: str) -> str:
    """Write NAME.md, NAME.csv and the plots from NAME-data.json and the cells."""
    saved = json.loads((out / f"{name}-data.json").read_text())
    data = {}
    for label, b in saved["builds"].items():
        data[label] = {
            "binary": Path(b["binary"]), "variants": b["variants"],
            "sizes": {(v, op): size for v, op, size in b["sizes"]},
            "pairs": [tuple(p) for p in b["pairs"]],
            "counts": [counts.Counts(**c) for c in b["counts"]],
            "cells": report.load_cells(out / b["cells"])}
    return report.write_all(out, name, saved["env"], data, baseline_of)


def cmd_report(args: argparse.Namespace) -> int:
    """Regenerate a host run's report from its saved data."""
    print(_report(args.out, args.name))
    return 0


def _variants_of(binary: Path) -> list[str]:
    out = proc.run([str(binary), "-n", "1", "-r", "1", "-m", "1"], SHORT_LIMIT,
                   capture_output=True, text=True).stdout
    return results.parse_run(out.splitlines()).variants


def cmd_readme(args: argparse.Namespace) -> int:
    """The documentation's tables from a host run's CSV and cells."""
    profile = args.profile or machine.debian61_profile(
        machine.vulnerabilities(), *machine.cpu_family())[0]
    tables = report.readme(args.out, args.name, profile, args.count_n)
    if not args.doc:
        print(tables)
        return 0
    env = machine.environment()
    head = report.generated_header(
        "Benchmark tables", "qemu/bench, `tools/bench/bench.py readme --doc`",
        {"command": f"`{args.command}`", "commit": args.commit,
         "machine": f"{env['cpu']}, {env['cpus']} CPUs, Linux {env['kernel']}"
                    + (f", {args.compiler}" if args.compiler else ""),
         "settings": args.settings})
    args.doc.parent.mkdir(parents=True, exist_ok=True)
    args.doc.write_text(head + tables)
    print(f"tables written to {args.doc}")
    return 0


def cmd_check_entries(args: argparse.Namespace) -> int:
    """Fail if GCC cloned, folded or inlined a BENCH_ENTRY function."""
    problems = code.check_entries(args.binary, args.source)
    for p in problems:
        print(f"{args.binary}: {p}", file=sys.stderr)
    return 1 if problems else 0


def cmd_guest_run(args: argparse.Namespace) -> int:
    """In the guest: load the module with the parameters, run it, save the output."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    params = [f"sizes={','.join(map(str, args.sizes))}", f"reps={args.reps}",
              f"min_ops={args.min_ops}"]
    proc.run(["insmod", str(args.module), *params], SHORT_LIMIT)
    try:
        t0 = time.monotonic()
        with DEBUGFS_RUN.open("w") as f:
            f.write("1\n")
        seconds = time.monotonic() - t0
        args.raw.write_text(DEBUGFS_RUN.read_text())
    finally:
        proc.run(["rmmod", "rbtree_bench"], SHORT_LIMIT, check=False)
    env = machine.environment() | {"pinned_cpu": str(min(os.sched_getaffinity(0))),
                                   "seconds": f"{seconds:.1f}"}
    args.raw.with_name(args.raw.name.replace("-raw.txt", "") + "-env.json").write_text(
        json.dumps(env, indent=1) + "\n")
    print(f"guest benchmark: {seconds:.1f} s, output in {args.raw}")
    return 0


def cmd_check(args: argparse.Namespace) -> int:
    """Check each run's variants agree, and that all runs saw the same results."""
    failed = 0

    def verdict(ok: bool, name: str, why: str = "") -> None:
        nonlocal failed
        failed += not ok
        print(f"ok {name}" if ok else f"not ok {name}: {why}")

    runs = {}
    for raw in args.raw:
        try:
            runs[raw] = run = results.parse_run(raw.read_text().splitlines())
        except (OSError, results.BenchFormatError) as err:
            verdict(False, f"{raw.name} parses", str(err))
            continue
        verdict(bool(run.cells), f"{raw.name} parses", "no cells")
        bad = list(results.disagreements(run))
        verdict(not bad, f"{raw.name} variants agree", "; ".join(bad[:5]))
        verdict(set(run.variants) >= KERNEL_VARIANTS,
                f"{raw.name} has every variant",
                f"missing {sorted(KERNEL_VARIANTS - set(run.variants))}")
    if len(runs) > 1:
        first, *rest = runs.items()
        for raw, run in rest:
            a, b = results.cell_digests(first[1]), results.cell_digests(run)
            common = a.keys() & b.keys()
            diff = [k for k in sorted(common) if a[k] != b[k]]
            verdict(bool(common) and not diff,
                    f"{raw.name} digests equal {first[0].name}'s",
                    f"{len(diff)} of {len(common)} differ, e.g. {diff[:2]}"
                    if common else "no cells in common")
    return 1 if failed else 0


def _out_name(p: argparse.ArgumentParser) -> None:
    """--out and --name: where a host run's files are (DIR/NAME-*)."""
    p.add_argument("--out", type=Path, default=Path("out/bench"), metavar="DIR",
                   help="directory of the run's files (default %(default)s)")
    p.add_argument("--name", default="host",
                   help="prefix of the run's files in --out (default %(default)s)")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("host", help=cmd_host.__doc__)
    p.add_argument("--build", action="append", required=True,
                   help="PROFILE/CMP=BINARY, one per build")
    p.add_argument("--flags", type=json.loads, default={},
                   help="JSON object: build label -> compiler flags to record")
    p.add_argument("--cpu", type=int, help="CPU to pin to (default: the last)")
    p.add_argument("--sizes", type=_sizes, default=_sizes("1000,10000,100000,1000000"),
                   metavar="N,N", help="tree sizes timed, in nodes (default %(default)s)")
    p.add_argument("--count-sizes", type=_sizes, default=_sizes("1000,10000"),
                   help="sizes counted under valgrind (empty: none)")
    p.add_argument("--min-ops", type=int, default=100000, metavar="N",
                   help="least operations timed per cell: small trees repeat "
                   "their pass (default %(default)s)")
    p.add_argument("--round-reps", type=int, default=3,
                   help="repetitions per run of a build (after its warm-up)")
    p.add_argument("--min-rounds", type=int, default=2, metavar="N",
                   help="timing rounds before --target may stop the run "
                   "(default %(default)s)")
    p.add_argument("--target", type=float, default=0.02,
                   help="stop when every ratio's 95%% interval is within +-this")
    p.add_argument("--time-cap", type=float, default=300,
                   help="seconds of timing after which to stop anyway")
    p.add_argument("--seed", type=int, default=1,
                   help="seed of the random key orders (default %(default)s)")
    _out_name(p)
    p.set_defaults(func=cmd_host)

    p = sub.add_parser("guest-run", help=cmd_guest_run.__doc__)
    p.add_argument("--module", type=Path, required=True, metavar="KO",
                   help="the rbtree_bench.ko to load")
    p.add_argument("--raw", type=Path, required=True, metavar="FILE",
                   help="where to save the module's output (NAME-raw.txt; "
                   "NAME-env.json goes beside it)")
    p.add_argument("--sizes", type=_sizes, default=_sizes("1000,3000"),
                   metavar="N,N", help="tree sizes timed, in nodes (module "
                   "parameter sizes; default %(default)s)")
    p.add_argument("--reps", type=int, default=1,
                   help="timed repetitions after one warm-up (module "
                   "parameter reps; default %(default)s)")
    p.add_argument("--min-ops", type=int, default=1, metavar="N",
                   help="least operations timed per cell (module parameter "
                   "min_ops; default %(default)s)")
    p.set_defaults(func=cmd_guest_run)

    p = sub.add_parser("check", help=cmd_check.__doc__)
    p.add_argument("raw", type=Path, nargs="+", metavar="RAW",
                   help="a run's output (guest-run --raw, or a host cells file)")
    p.set_defaults(func=cmd_check)

    p = sub.add_parser("report", help=cmd_report.__doc__)
    _out_name(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("readme", help=cmd_readme.__doc__)
    _out_name(p)
    p.add_argument("--profile", help="profile of the count tables (default: "
                   "the one a Debian 6.1 kernel would run here)")
    p.add_argument("--count-n", type=int, default=10000, metavar="N",
                   help="tree size of the count tables (one of the host run's "
                   "--count-sizes; default %(default)s)")
    p.add_argument("--doc", type=Path, help="write the tables to this file, "
                   "under a header naming the command, commit, date and machine")
    p.add_argument("--command", default="make bench", help="for --doc: what ran")
    p.add_argument("--commit", default="?", help="for --doc: the commit measured")
    p.add_argument("--compiler", default="", help="for --doc: the compiler")
    p.add_argument("--settings", default="", help="for --doc: the run's settings")
    p.set_defaults(func=cmd_readme)

    p = sub.add_parser("check-entries", help=cmd_check_entries.__doc__)
    p.add_argument("binary", type=Path, help="the benchmark build to inspect")
    p.add_argument("--source", type=Path, nargs="+", required=True, metavar="C",
                   help="the C files whose BENCH_ENTRY functions must stay whole")
    p.set_defaults(func=cmd_check_entries)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
