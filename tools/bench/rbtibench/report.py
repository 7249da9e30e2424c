# SPDX-License-Identifier: GPL-2.0
"""Tables (stdout, CSV, markdown) and the ratio plot of a benchmark run."""
from __future__ import annotations

import csv
from collections.abc import Iterable
from pathlib import Path

from .results import BASELINE, OPS, ORDERS, Summary

TARGET = 0.03  # the target: within 3 % of open-coded


def _index(summaries: Iterable[Summary]) -> dict[tuple[str, str, str, int], Summary]:
    return {(s.variant, s.op, s.order, s.n): s for s in summaries}


def _rows(summaries: list[Summary]) -> list[tuple[str, str, int]]:
    keys = {(s.op, s.order, s.n) for s in summaries}
    return sorted(keys, key=lambda k: (OPS.index(k[0]), ORDERS.index(k[1]), k[2]))


def _ratio_text(s: Summary | None) -> str:
    if s is None or s.ratio is None:
        return "-"
    return f"{s.ratio:.3f} ({s.ratio_min:.2f}-{s.ratio_max:.2f})"


def table(summaries: list[Summary], variants: list[str], clock: str,
          markdown: bool = False) -> str:
    """Per (operation, order, size): the baseline's time per operation and
    every variant's ratio to it, median (min-max over the repetitions)."""
    index = _index(summaries)
    others = [v for v in variants if v != BASELINE]
    head = ["op", "order", "N", f"{BASELINE} {clock}/op (spread)"] + others
    body = []
    for op, order, n in _rows(summaries):
        base = index.get((BASELINE, op, order, n))
        base_text = f"{base.per_op:.1f} ({100 * base.spread:.0f}%)" if base else "-"
        body.append([op, order, str(n), base_text]
                    + [_ratio_text(index.get((v, op, order, n))) for v in others])
    if markdown:
        lines = ["| " + " | ".join(head) + " |",
                 "|" + "|".join("---" for _ in head) + "|"]
        lines += ["| " + " | ".join(row) + " |" for row in body]
        return "\n".join(lines) + "\n"
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n"
                   for row in [head] + body)


def pair_table(summaries: list[Summary], variant: str, baseline: str,
               ops: Iterable[str] = ("insert", "find_hit", "find_miss", "greater"),
               markdown: bool = False) -> str:
    """@variant's time relative to @baseline (from summaries made against
    @baseline), one column per operation, one row per (order, size)."""
    ops = list(ops)
    index = _index(s for s in summaries if s.variant == variant)
    keys = sorted({(s.order, s.n) for s in summaries},
                  key=lambda k: (ORDERS.index(k[0]), k[1]))
    head = ["order", "N"] + [f"{op} {variant}/{baseline}" for op in ops]
    body = [[order, str(n)] + [_ratio_text(index.get((variant, op, order, n))) for op in ops]
            for order, n in keys]
    if markdown:
        return "".join("| " + " | ".join(r) + " |\n"
                       for r in [head, ["---"] * len(head)] + body)
    widths = [max(len(r[i]) for r in [head] + body) for i in range(len(head))]
    return "".join("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip() + "\n"
                   for row in [head] + body)


def write_csv(path: Path, summaries: list[Summary], env: str, clock: str) -> None:
    """One row per (variant, operation, order, size)."""
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["env", "variant", "op", "order", "n", "reps", "clock",
                      "per_op_median", "per_op_min", "per_op_max", "spread",
                      "ratio", "ratio_min", "ratio_max"])
        for s in summaries:
            out.writerow([env, s.variant, s.op, s.order, s.n, s.reps, clock,
                          f"{s.per_op:.3f}", f"{s.per_op_min:.3f}",
                          f"{s.per_op_max:.3f}", f"{s.spread:.4f}",
                          *(f"{r:.4f}" if r is not None else ""
                            for r in (s.ratio, s.ratio_min, s.ratio_max))])


def sizes_table(sizes: dict[tuple[str, str], int], markdown: bool = False) -> str:
    """Bytes of .text per variant for insert, find and greater."""
    variants = list(dict.fromkeys(v for v, _ in sizes))
    ops = ["insert", "find", "greater"]
    rows = [[v] + [str(sizes.get((v, op), "-")) for op in ops] for v in variants]
    head = ["variant"] + [f"{op} bytes" for op in ops]
    if markdown:
        return "".join("| " + " | ".join(r) + " |\n"
                       for r in [head, ["---"] * len(head)] + rows)
    return "".join("  ".join(c.ljust(12) for c in r).rstrip() + "\n" for r in [head] + rows)


def targets(summaries: list[Summary], variants: Iterable[str],
            ops: Iterable[str] = ("insert", "find_hit", "find_miss")) -> list[str]:
    """Cells of @variants whose median ratio is outside 1 +- TARGET."""
    wanted, ops = set(variants), set(ops)
    return [f"{s.variant} {s.op} {s.order} N={s.n}: ratio {s.ratio:.3f}"
            for s in summaries
            if s.variant in wanted and s.op in ops and s.ratio is not None
            and abs(s.ratio - 1) > TARGET]


def plot(path: Path, summaries: list[Summary], variants: list[str], title: str) -> None:
    """Ratio to the baseline against N, one panel per operation."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    index = _index(summaries)
    sizes = sorted({s.n for s in summaries})
    fig, axes = plt.subplots(2, 3, figsize=(15, 8.5), sharex=True)
    for ax, op in zip(axes.flat, OPS):
        ax.axhspan(1 - TARGET, 1 + TARGET, color="0.9")
        ax.axhline(1.0, color="0.5", linewidth=0.8)
        for k, variant in enumerate(v for v in variants if v != BASELINE):
            color = f"C{k}"
            for order, style in (("random", "-"), ("sequential", "--")):
                pts = [(n, index[(variant, op, order, n)])
                       for n in sizes if (variant, op, order, n) in index]
                pts = [(n, s) for n, s in pts if s.ratio is not None]
                if not pts:
                    continue
                xs = [n for n, _ in pts]
                ax.errorbar(xs, [s.ratio for _, s in pts],
                            yerr=[[s.ratio - s.ratio_min for _, s in pts],
                                  [s.ratio_max - s.ratio for _, s in pts]],
                            linestyle=style, color=color, marker="o", markersize=3,
                            capsize=2, label=f"{variant} {order}")
        ax.set_xscale("log")
        ax.set_title(op)
        ax.set_xlabel("N (nodes)")
        ax.set_ylabel(f"time / {BASELINE}")
        ax.grid(True, which="both", alpha=0.3)
    handles, labels = axes.flat[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=6, fontsize="small")
    fig.suptitle(title)
    fig.tight_layout(rect=(0, 0.08, 1, 0.96))
    fig.savefig(path, dpi=110)
    plt.close(fig)
