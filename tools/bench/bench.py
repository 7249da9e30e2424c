#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Run the rbtree API benchmark and report it (see kmod/bench/bench.h).

  bench.py host --binary B --out DIR      run the userspace build pinned to one
                                          CPU, then report it as "host"
  bench.py guest-run --module KO --raw F  (in the guest) load rbtree_bench.ko,
                                          run it through debugfs, save its output
  bench.py report --raw F --name NAME     tables, CSV, markdown and plot of a run
  bench.py check RAW [RAW...]             the variants agree (and the runs agree
                                          with each other); prints ok / not ok lines

Exit status: 0, or 1 if the variants disagree or a check fails.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

from rbtibench import machine, report, results

DEBUGFS_RUN = Path("/sys/kernel/debug/rbtree_bench/run")
# Variants the 3 % target applies to.
TARGET_VARIANTS = ("ovs_inline", "santos", "santos_lc")


def _sizes(text: str) -> list[int]:
    return [int(float(s)) for s in text.split(",") if s]


def cmd_host(args: argparse.Namespace) -> int:
    """Run the userspace benchmark pinned to one CPU, then report it."""
    args.out.mkdir(parents=True, exist_ok=True)
    raw = args.out / f"{args.name}-raw.txt"
    cpu = args.cpu if args.cpu is not None else max(os.sched_getaffinity(0))
    cmd = ["taskset", "-c", str(cpu), str(args.binary),
           "-n", ",".join(map(str, args.sizes)), "-r", str(args.reps),
           "-m", str(args.min_ops)]
    print("running:", " ".join(cmd), file=sys.stderr)
    t0 = time.monotonic()
    with raw.open("w") as f:
        subprocess.run(cmd, check=True, stdout=f)
    env = machine.environment() | {
        "pinned_cpu": str(cpu), "flags": args.flags or "",
        "seconds": f"{time.monotonic() - t0:.1f}",
        "load_before": " ".join(f"{x:.2f}" for x in os.getloadavg())}
    (args.out / f"{args.name}-env.json").write_text(json.dumps(env, indent=1) + "\n")
    args.raw, args.objects = raw, [args.binary]
    return cmd_report(args)


def cmd_guest_run(args: argparse.Namespace) -> int:
    """In the guest: load the module with the parameters, run it, save the output."""
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    params = [f"sizes={','.join(map(str, args.sizes))}", f"reps={args.reps}",
              f"min_ops={args.min_ops}"]
    subprocess.run(["insmod", str(args.module), *params], check=True)
    try:
        t0 = time.monotonic()
        with DEBUGFS_RUN.open("w") as f:
            f.write("1\n")
        seconds = time.monotonic() - t0
        args.raw.write_text(DEBUGFS_RUN.read_text())
    finally:
        subprocess.run(["rmmod", "rbtree_bench"], check=False)
    env = machine.environment() | {"pinned_cpu": str(min(os.sched_getaffinity(0))),
                                   "seconds": f"{seconds:.1f}"}
    args.raw.with_name(args.raw.name.replace("-raw.txt", "") + "-env.json").write_text(
        json.dumps(env, indent=1) + "\n")
    print(f"guest benchmark: {seconds:.1f} s, output in {args.raw}")
    return 0


def _env_of(raw: Path) -> dict[str, str]:
    path = raw.with_name(raw.name.replace("-raw.txt", "") + "-env.json")
    return json.loads(path.read_text()) if path.exists() else {}


def cmd_report(args: argparse.Namespace) -> int:
    """Print the tables of a run and write NAME.csv, NAME.md, NAME-ratio.png."""
    run = results.parse_run(args.raw.read_text().splitlines())
    env = _env_of(args.raw)
    if args.flags:
        env["flags"] = args.flags
    summaries = results.summarize(run)
    bad = list(results.disagreements(run))
    sizes: dict[tuple[str, str], int] = {}
    for obj in args.objects or []:
        if obj.exists():
            sizes |= machine.text_sizes(obj, run.variants)
    emulated = args.emulated or run.clock == "cycles"
    note = ("Guest under QEMU TCG: times are emulated, compare the ratios only."
            if emulated else "")
    title = f"rbtree API cost, {args.name}: time relative to {results.BASELINE}"
    misses = report.targets(summaries, TARGET_VARIANTS)

    text = report.table(summaries, run.variants, run.clock)
    penalty = report.pair_table(results.summarize(run, "ovs_inline"), "ovs_ool",
                                "ovs_inline")
    print(f"== {args.name}: {env.get('cpu', '?')}; {run.meta.get('compiler', '?')}")
    print(f"   flags: {env.get('flags', '?')}")
    if note:
        print("   " + note)
    print(text)
    print("out-of-line penalty, paired per repetition:")
    print(penalty)
    if sizes:
        print(report.sizes_table(sizes))
    print(f"target (ovs_inline/santos/santos_lc insert+find within "
          f"{100 * report.TARGET:.0f}%): {len(misses)} cells outside")
    for miss in misses:
        print("  " + miss)
    for msg in bad:
        print("DISAGREE: " + msg)

    out = args.out
    out.mkdir(parents=True, exist_ok=True)
    report.write_csv(out / f"{args.name}.csv", summaries, args.name, run.clock)
    md = [f"# rbtree API benchmark: {args.name}\n",
          f"- CPU: {env.get('cpu', '?')} (pinned to CPU {env.get('pinned_cpu', '?')})",
          f"- kernel: {env.get('kernel_version', env.get('kernel', '?'))}",
          f"- compiler: gcc {run.meta.get('compiler', '?')}",
          f"- flags: `{env.get('flags', '?')}`",
          f"- {run.meta.get('reps')} repetitions after a warm-up, variants "
          f"interleaved, >= {run.meta.get('min_ops')} operations per cell; "
          f"run took {env.get('seconds', '?')} s",
          f"- cells: {results.BASELINE}'s median {run.clock} per operation (spread = "
          "(max-min)/median), others: median ratio to it (min-max), per repetition",
          ]
    if note:
        md.append(f"- **{note}**")
    md += ["", report.table(summaries, run.variants, run.clock, markdown=True)]
    md += ["## Out-of-line penalty: ovs_ool relative to ovs_inline", "",
           report.pair_table(results.summarize(run, "ovs_inline"), "ovs_ool",
                             "ovs_inline", markdown=True)]
    if sizes:
        md += ["## .text bytes (nm --print-size)", "", report.sizes_table(sizes, True)]
    md += [f"## Outside the {100 * report.TARGET:.0f}% target", ""]
    md += [f"- {m}" for m in misses] or ["- none"]
    md += ["", f"Variants disagree: {len(bad)}"]
    (out / f"{args.name}.md").write_text("\n".join(md) + "\n")
    report.plot(out / f"{args.name}-ratio.png", summaries, run.variants,
                title + (" (TCG, emulated)" if emulated else ""))
    print(f"written: {out}/{args.name}.csv .md -ratio.png")
    return 1 if bad else 0


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
        verdict(set(run.variants) >= {"open", "mainline", "ovs_inline", "ovs_ool",
                                      "santos", "santos_lc"},
                f"{raw.name} has every variant", str(run.variants))
    if len(runs) > 1:
        first, *rest = runs.items()
        for raw, run in rest:
            a, b = results.digests(first[1]), results.digests(run)
            common = a.keys() & b.keys()
            diff = [k for k in sorted(common) if a[k] != b[k]]
            verdict(bool(common) and not diff,
                    f"{raw.name} digests equal {first[0].name}'s",
                    f"{len(diff)} of {len(common)} differ, e.g. {diff[:2]}")
    return 1 if failed else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)

    def sizing(p: argparse.ArgumentParser, sizes: str) -> None:
        p.add_argument("--sizes", type=_sizes, default=_sizes(sizes),
                       help=f"comma-separated tree sizes (default {sizes})")
        p.add_argument("--reps", type=int, default=5)
        p.add_argument("--min-ops", type=int, default=200000)

    def reporting(p: argparse.ArgumentParser) -> None:
        p.add_argument("--out", type=Path, default=Path("out/bench"))
        p.add_argument("--name", default="host")
        p.add_argument("--flags", help="compiler flags to record")
        p.add_argument("--emulated", action="store_true",
                       help="times are emulated (TCG guest): ratios only")

    p = sub.add_parser("host", help=cmd_host.__doc__)
    p.add_argument("--binary", type=Path, required=True)
    p.add_argument("--cpu", type=int, help="CPU to pin to (default: the last)")
    sizing(p, "1000,10000,100000,1000000")
    reporting(p)
    p.set_defaults(func=cmd_host)

    p = sub.add_parser("guest-run", help=cmd_guest_run.__doc__)
    p.add_argument("--module", type=Path, required=True)
    p.add_argument("--raw", type=Path, required=True)
    sizing(p, "1000,10000,100000")
    p.set_defaults(func=cmd_guest_run)

    p = sub.add_parser("report", help=cmd_report.__doc__)
    p.add_argument("--raw", type=Path, required=True)
    p.add_argument("--objects", type=Path, nargs="*",
                   help="binaries or modules to read .text sizes from")
    reporting(p)
    p.set_defaults(func=cmd_report)

    p = sub.add_parser("check", help=cmd_check.__doc__)
    p.add_argument("raw", type=Path, nargs="+")
    p.set_defaults(func=cmd_check)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
