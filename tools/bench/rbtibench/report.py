# SPDX-License-Identifier: GPL-2.0
"""The benchmark's report: markdown, CSV and plots of a host run.

Each build is a (mitigation profile, comparison form) pair.  Every cell
gives the deterministic counts per operation (valgrind) beside the time
ratio to the build's baseline with its 95 % bootstrap interval; a ratio is
called different from 1 only if its interval excludes the build's noise
floor, measured on pairs of instruction-identical code.
"""
from __future__ import annotations

import csv
import statistics
from collections.abc import Callable
from pathlib import Path

from . import stats
from .results import OPS, ORDERS

PROFILE_NAMES = {"none": "none", "retpoline": "retpoline",
                 "rethunk": "retpoline+rethunk (safe RET)"}
# Generic APIs an "inline" claim is about, and the out-of-line pair.
INLINE_GENERIC = ("mainline", "mainline_u", "ovs_inline", "santos", "santos_lc",
                  "santos_dup")
COUNT_COLS = ("Ir", "Bc", "Bcm", "Bi", "Bim", "D1m", "LLm")


def _md(head: list[str], rows: list[list[str]]) -> str:
    return "".join("| " + " | ".join(r) + " |\n"
                   for r in [head, ["---"] * len(head)] + rows)


def _fmt_ratio(r: stats.Ratio | None, floor: float) -> str:
    if r is None:
        return "-"
    mark = "**" if r.excludes(floor) else ""
    return f"{mark}{r.ratio:.3f}{mark} [{r.lo:.3f}, {r.hi:.3f}]"


def _floor(d: dict, n: int) -> float:
    """The build's noise floor at size @n (the largest over all sizes if
    no identical pair was timed at @n)."""
    return d["floor"].get(n, max(d["floor"].values(), default=0.0))


def _floors_text(d: dict) -> str:
    return ", ".join(f"N={n} +-{100 * f:.1f} %" for n, f in sorted(d["floor"].items()))


def _counts_index(d: dict) -> dict[tuple[str, str, str, int], dict[str, float]]:
    return {(c.variant, c.op, c.order, c.n): c.per_op for c in d["counts"]}


def analyse(data: dict[str, dict], baseline_of: Callable[[str], str]) -> None:
    """Add to every build: its baseline, floor, floor cells, ratios and the
    out-of-line penalty."""
    for label, d in data.items():
        base = d["baseline"] = baseline_of(label)
        d["floor"], d["floor_cells"] = stats.noise_floor(d["cells"], d["pairs"])
        d["ratios"] = {v: stats.ratios(d["cells"], v, base)
                       for v in d["variants"] if v != base}
        d["ool"] = stats.ratios(d["cells"], "ovs_ool", "ovs_inline")
        per = stats.per_op(d["cells"])
        d["per_op"] = {k: statistics.median(v) for k, v in per.items()}
        diffs = {}
        for (v, op, order, n), times in per.items():
            if v == "ovs_ool" and ("ovs_inline", op, order, n) in per:
                inline = per[("ovs_inline", op, order, n)]
                pairs = [a - b for a, b in zip(times, inline)]
                diffs[(op, order, n)] = stats.bootstrap_median(pairs)
        d["ool_ns"] = diffs


def write_csv(path: Path, env: dict, data: dict[str, dict]) -> None:
    """One row per (build, variant, op, order, n): time, ratio, interval, counts."""
    with path.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["profile", "cmp", "cpu", "spectre_v2", "spec_rstack_overflow",
                      "debian61_profile", "variant", "op", "order", "n", "reps",
                      "ns_per_op", "baseline", "ratio", "ratio_lo", "ratio_hi",
                      "noise_floor", "outside_floor",
                      *(f"{c}_per_op" for c in COUNT_COLS)])
        for label, d in data.items():
            profile, cmp = label.split("/")
            cidx = _counts_index(d)
            for (v, op, order, n), t in sorted(d["per_op"].items()):
                r = d["ratios"].get(v, {}).get((op, order, n))
                cnt = cidx.get((v, op, order, n), {})
                out.writerow([profile, cmp, env["cpu"], env["spectre_v2"],
                              env["spec_rstack_overflow"], env["debian61_profile"],
                              v, op, order, n, r.reps if r else "", f"{t:.3f}",
                              d["baseline"],
                              *((f"{r.ratio:.4f}", f"{r.lo:.4f}", f"{r.hi:.4f}")
                                if r else ("", "", "")),
                              f"{_floor(d, n):.4f}", (r.excludes(_floor(d, n)) if r else ""),
                              *(f"{cnt[c]:.2f}" if c in cnt else "" for c in COUNT_COLS)])


def build_section(label: str, d: dict) -> list[str]:
    """Markdown for one build: floor, ratios with counts, penalty, sizes."""
    profile, cmp = label.split("/")
    base = d["baseline"]
    cidx = _counts_index(d)
    md = [f"## Profile {PROFILE_NAMES.get(profile, profile)}, comparison {cmp}", "",
          f"Baseline: `{base}` (open-coded, {'branchy' if base == 'open' else 'branch-free'}"
          f" like the generic loops of this build). Noise floor per N: **{_floors_text(d)}**, "
          f"the largest |ratio - 1| among {len(d['floor_cells'])} cells timing "
          "instruction-identical code against itself (from objdump); a ratio in **bold** "
          "has its 95 % interval outside 1 +- the floor of its N.", ""]
    others = [v for v in d["variants"] if v != base]
    keys = sorted({(op, order, n) for (_, op, order, n) in d["per_op"]},
                  key=lambda k: (OPS.index(k[0]), ORDERS.index(k[1]), k[2]))
    head = ["op", "order", "N", f"{base} ns/op", f"{base} Ir/op"] + others
    rows = []
    for op, order, n in keys:
        t = d["per_op"].get((base, op, order, n))
        bc = cidx.get((base, op, order, n), {})
        row = [op, order, str(n), f"{t:.1f}" if t else "-",
               f"{bc['Ir']:.0f}" if bc else "-"]
        for v in others:
            r = d["ratios"][v].get((op, order, n))
            c = cidx.get((v, op, order, n))
            cell = _fmt_ratio(r, _floor(d, n))
            if c and bc and bc["Ir"]:
                cell += f" ({c['Ir'] / bc['Ir']:.2f}x Ir)"
            row.append(cell)
        rows.append(row)
    md += ["Time ratio to the baseline, median of paired repetitions [95 % bootstrap "
           "interval], and in parentheses the ratio of valgrind instruction counts "
           "(sizes counted only).", "", _md(head, rows)]
    if d["counts"]:
        ckeys = sorted({(c.op, c.order, c.n) for c in d["counts"]},
                       key=lambda k: (OPS.index(k[0]), ORDERS.index(k[1]), k[2]))
        crow = []
        for op, order, n in ckeys:
            for v in d["variants"]:
                c = cidx.get((v, op, order, n))
                if c:
                    crow.append([op, order, str(n), v] + [f"{c[k]:.2f}" for k in COUNT_COLS])
        md += ["### Counts per operation (valgrind, deterministic)", "",
               "Ir instructions, Bc/Bcm conditional branches/simulated mispredicts, "
               "Bi/Bim indirect branches/mispredicts, D1m/LLm data cache misses.", "",
               _md(["op", "order", "N", "variant", *COUNT_COLS], crow)]
    prow = []
    for op, order, n in keys:
        r = d["ool"].get((op, order, n))
        ns = d["ool_ns"].get((op, order, n))
        ci = _counts_index(d)
        a, b = ci.get(("ovs_ool", op, order, n)), ci.get(("ovs_inline", op, order, n))
        if r is None:
            continue
        prow.append([op, order, str(n), _fmt_ratio(r, _floor(d, n)),
                     f"{ns[0]:+.1f} [{ns[1]:+.1f}, {ns[2]:+.1f}]" if ns else "-",
                     f"{a['Ir'] - b['Ir']:+.1f}" if a and b else "-",
                     f"{a['Bim'] - b['Bim']:+.2f}" if a and b else "-",
                     f"{a['Bcm'] - b['Bcm']:+.2f}" if a and b else "-"])
    md += ["### Out-of-line penalty: `ovs_ool` over `ovs_inline`", "",
           _md(["op", "order", "N", "time ratio [95 %]", "ns/op [95 %]", "Ir/op",
                "Bim/op", "Bcm/op"], prow)]
    fl = [[a, b, op, order, str(n), f"{r.ratio:.3f} [{r.lo:.3f}, {r.hi:.3f}]"]
          for a, b, op, order, n, r in d["floor_cells"]]
    md += ["### Noise floor: identical code timed against itself", "",
           _md(["A", "B", "op", "order", "N", "A/B [95 %]"], fl)]
    return md


def sizes_section(data: dict[str, dict]) -> list[str]:
    """.text bytes of each entry point, per build."""
    labels = list(data)
    keys = list(dict.fromkeys(k for d in data.values() for k in d["sizes"]))
    rows = [[v, op] + [str(data[lb]["sizes"].get((v, op), "-")) for lb in labels]
            for v, op in keys]
    return ["## .text bytes per entry point (nm)", "",
            "`ovs_ool_lib`: the out-of-line `rb_insert_allow_dup`/`rb_search`/"
            "`rb_find_first_greater` the `ovs_ool` wrappers call.", "",
            _md(["variant", "op", *labels], rows)]


def plot(path: Path, data: dict[str, dict], cmp: str) -> None:
    """Ratio to the baseline vs N, random keys, with 95 % bands: one row per
    operation, one column per profile."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [lb for lb in data if lb.endswith("/" + cmp)]
    if not labels:
        return
    fig, axes = plt.subplots(len(OPS), len(labels), figsize=(5 * len(labels), 3 * len(OPS)),
                             sharex=True, squeeze=False)
    for col, label in enumerate(labels):
        d = data[label]
        for row, op in enumerate(OPS):
            ax = axes[row][col]
            fns = sorted(d["floor"])
            ax.fill_between(fns, [1 - d["floor"][n] for n in fns],
                            [1 + d["floor"][n] for n in fns], color="0.85",
                            label="noise floor")
            ax.axhline(1.0, color="0.5", linewidth=0.8)
            for k, (v, rs) in enumerate(d["ratios"].items()):
                pts = sorted((n, r) for (o, order, n), r in rs.items()
                             if o == op and order == "random")
                if not pts:
                    continue
                xs = [n for n, _ in pts]
                ax.plot(xs, [r.ratio for _, r in pts], marker="o", markersize=3,
                        color=f"C{k}", label=v)
                ax.fill_between(xs, [r.lo for _, r in pts], [r.hi for _, r in pts],
                                color=f"C{k}", alpha=0.2)
            ax.set_xscale("log")
            ax.grid(True, which="both", alpha=0.3)
            if row == 0:
                profile = label.split("/")[0]
                ax.set_title(f"{PROFILE_NAMES.get(profile, profile)}")
            if col == 0:
                ax.set_ylabel(f"{op}: time / {d['baseline']}")
            if row == len(OPS) - 1:
                ax.set_xlabel("N (nodes), random keys")
    handles, names = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, names, loc="lower center", ncol=6, fontsize="small")
    fig.suptitle(f"rbtree API time ratio, {cmp} comparison, 95 % bootstrap bands")
    fig.tight_layout(rect=(0, 0.04, 1, 0.97))
    fig.savefig(path, dpi=90)
    plt.close(fig)


def header(env: dict) -> list[str]:
    """Machine, mitigation state and method."""
    return [f"- CPU: {env['cpu']} ({env['cpus']} CPUs, pinned to CPU "
            f"{env['pinned_cpu']}), kernel {env['kernel']}; load "
            f"{env['load_before']} before, {env['load_after']} after",
            f"- this kernel's spectre_v2: `{env['spectre_v2']}`; spec_rstack_overflow: "
            f"`{env['spec_rstack_overflow']}`; retbleed: `{env['retbleed']}`",
            f"- **a Debian 6.1 kernel on this machine would run profile "
            f"`{env['debian61_profile']}`**: {env['debian61_why']}",
            f"- timing: sizes {env['sizes']}, >= {env['min_ops']} operations per cell, "
            f"{env['reps']} repetitions per cell in {env['rounds']} rounds of every build "
            f"interleaved ({env['timing_seconds']} s; stopped: {env['stop']}); thread CPU "
            "time; ratios are medians of per-repetition paired ratios with 95 % "
            "percentile-bootstrap intervals",
            f"- counts: valgrind 3.19 callgrind (cachegrind's simulator, "
            f"`--cache-sim=yes --branch-sim=yes`, caches fixed), sizes "
            f"{env['count_sizes']}, one pass after a warm-up",
            "- flags per build: " + "; ".join(f"{lb}: `{fl}`" for lb, fl in env["flags"].items()),
            f"- whole run: {env['seconds']} s"]


def write_all(out: Path, name: str, env: dict, data: dict[str, dict],
              baseline_of: Callable[[str], str]) -> str:
    """Write NAME.md, NAME.csv and NAME-CMP.png; return the markdown."""
    analyse(data, baseline_of)
    md = [f"# rbtree API benchmark: {name}", ""] + header(env) + [""]
    md += ["Noise floor per build and N (identical code timed against itself): "
           + "; ".join(f"{lb} {_floors_text(d)}" for lb, d in data.items()), ""]
    for label, d in data.items():
        md += build_section(label, d)
    md += sizes_section(data)
    text = "\n".join(md) + "\n"
    (out / f"{name}.md").write_text(text)
    write_csv(out / f"{name}.csv", env, data)
    for cmp in sorted({lb.split("/")[1] for lb in data}):
        try:
            plot(out / f"{name}-{cmp}.png", data, cmp)
        except ImportError:
            pass
    return text


VARIANTS = ("open", "open_bf", "open_cmp", "open_cmp_u", "open_cmp_first",
            "mainline", "mainline_u", "ovs_inline", "ovs_ool", "santos",
            "santos_lc", "santos_dup", "bsd")

# The open-coded loop that makes a generic operation's decisions, in its
# order, on the same three-way comparison: (variant, op) -> baseline.
CMP_BASE = {("ovs_inline", "find_hit"): "open_cmp_u",
            ("santos", "insert"): "open_cmp_u",
            ("santos", "find_hit"): "open_cmp_u",
            ("santos_lc", "insert"): "open_cmp_u",
            ("santos_lc", "find_hit"): "open_cmp_u",
            ("santos_dup", "find_hit"): "open_cmp_first",
            ("bsd", "insert"): "open_cmp_u",
            ("mainline_u", "insert"): "open_cmp_u"}

# The mainline helper with a generic operation's semantics, (variant, op)
# -> baseline: an insert that refuses an equal key against rb_find_add()
# (mainline_u), one that keeps equal keys against rb_add() (mainline), a
# find of the one equal key against rb_find().  The find of the first of
# equal keys (santos_dup's) has no mainline variant in the run.
MAINLINE_BASE = {("ovs_inline", "insert"): "mainline",
                 ("ovs_inline", "find_hit"): "mainline",
                 ("santos", "insert"): "mainline_u",
                 ("santos", "find_hit"): "mainline",
                 ("santos_lc", "insert"): "mainline_u",
                 ("santos_lc", "find_hit"): "mainline",
                 ("santos_dup", "insert"): "mainline",
                 ("bsd", "insert"): "mainline_u",
                 ("bsd", "find_hit"): "mainline"}

# The generic APIs of the ratio tables, with their operations: mainline_u's
# find is mainline's, so only its insert has a row.
RATIO_ROWS = (("mainline", ("insert", "find_hit")), ("mainline_u", ("insert",)),
              ("ovs_inline", ("insert", "find_hit")), ("santos", ("insert", "find_hit")),
              ("santos_lc", ("insert", "find_hit")), ("santos_dup", ("insert", "find_hit")),
              ("bsd", ("insert", "find_hit")))


def load_cells(path: Path) -> list:
    """Cells saved by ``bench.py host`` (NAME-PROFILE-CMP-cells.txt)."""
    from .results import Cell
    cells = []
    for line in path.read_text().splitlines():
        v, op, order, n, rep, ops, t, check = line.split()
        cells.append(Cell(v, op, order, int(n), int(rep), int(ops), int(t), check))
    return cells


def generated_header(title: str, writer: str, facts: dict) -> str:
    """The head of a generated page: what wrote it, and the facts of the
    run (command, commit, machine, ...) with the date, one row each."""
    import datetime
    facts = {**facts, "date": datetime.datetime.now(datetime.timezone.utc)
             .strftime("%Y-%m-%d %H:%M UTC")}
    rows = [[k, v] for k, v in facts.items() if v]
    return (f"# {title}\n\nGenerated by {writer}; do not edit: run it again.\n\n"
            + _md(["", ""], rows) + "\n")


def readme(out: Path, name: str, profile: str, count_n: int) -> str:
    """The README's tables, from one run's CSV and cells: counts per
    operation at @count_n, the out-of-line penalty per profile, and the
    inline generic APIs against their baseline under @profile."""
    rows = list(csv.DictReader((out / f"{name}.csv").open()))
    if not rows:
        return ""
    labels = list(dict.fromkeys(f"{r['profile']}/{r['cmp']}" for r in rows))
    sizes = sorted({int(r["n"]) for r in rows})
    cnt = {(r["profile"], r["cmp"], r["variant"], r["op"], r["order"], int(r["n"])): r
           for r in rows}
    floors = {(f"{r['profile']}/{r['cmp']}", int(r["n"])): float(r["noise_floor"])
              for r in rows}
    cells = {lb: load_cells(out / f"{name}-{lb.replace('/', '-')}-cells.txt")
             for lb in labels}
    md = []
    ops = ("insert", "find_hit", "find_miss", "greater", "erase", "walk")
    for cmp in ("arith", "branchy"):
        if f"{profile}/{cmp}" not in labels:
            continue
        body = []
        for v in VARIANTS:
            row = [f"`{v}`"]
            for op in ops:
                r = cnt.get((profile, cmp, v, op, "random", count_n))
                row.append(f"{float(r['Ir_per_op']):.0f} / {float(r['Bcm_per_op']):.1f}"
                           if r and r["Ir_per_op"] else "-")
            body.append(row)
        md += [f"Instructions / simulated conditional mispredicts per operation "
               f"(valgrind), random keys, N = {count_n}, profile `{profile}`, "
               f"{'branch-free' if cmp == 'arith' else 'if-chain'} comparison:", "",
               _md(["variant", *ops], body)]
    body = []
    for lb in labels:
        prof, cmp = lb.split("/")
        for op in ("insert", "find_hit", "find_miss", "greater"):
            a = cnt.get((prof, cmp, "ovs_ool", op, "random", count_n))
            b = cnt.get((prof, cmp, "ovs_inline", op, "random", count_n))
            rs = stats.ratios(cells[lb], "ovs_ool", "ovs_inline")
            row = [f"{PROFILE_NAMES.get(prof, prof)}, {cmp}", op,
                   f"{float(a['Ir_per_op']) - float(b['Ir_per_op']):+.0f}"
                   if a and b and a["Ir_per_op"] else "-"]
            for n in sizes:
                row.append(_fmt_ratio(rs.get((op, "random", n)), floors[(lb, n)]))
            body.append(row)
    md += ["Out-of-line penalty, `ovs_ool` / `ovs_inline`: extra instructions per "
           f"operation (N = {count_n}) and time ratio [95 % interval], random keys; "
           "**bold**: interval outside the build's noise floor:", "",
           _md(["profile, comparison", "op", "+Ir/op", *(f"N={n}" for n in sizes)], body)]
    form = {"arith": "open_bf", "branchy": "open"}
    for base_of, what in (
            (lambda v, op, cmp: form[cmp],
             "the open-coded loop with the same comparison form (`open_bf` for "
             "branch-free, `open` for if-chain)"),
            (lambda v, op, cmp: CMP_BASE.get((v, op), "open_cmp"),
             "the open-coded loop making the same decisions in the same order "
             "on the same three-way comparison as their callbacks (`open_cmp`; "
             "`open_cmp_u` for a unique tree's insert and find, `open_cmp_first` "
             "for a find of the first equal key)"),
            (lambda v, op, cmp: MAINLINE_BASE.get((v, op)),
             "mainline's helper with the same semantics (a unique insert, which "
             "refuses an equal key, against `rb_find_add()`, `mainline_u`; an insert "
             "that keeps equal keys against `rb_add()`, `mainline`; a find against "
             "`rb_find()`; a find of the first equal key has none here)")):
        body = []
        for lb in labels:
            prof, cmp = lb.split("/")
            for v, v_ops in RATIO_ROWS:
                for op in v_ops:
                    base = base_of(v, op, cmp)
                    if base is None or base == v:
                        continue
                    rs = stats.ratios(cells[lb], v, base)
                    a = cnt.get((prof, cmp, v, op, "random", count_n))
                    b = cnt.get((prof, cmp, base, op, "random", count_n))
                    if not b:
                        continue        # a run without this baseline
                    row = [lb, f"`{v}`", op, f"`{base}`",
                           f"{float(a['Ir_per_op']) / float(b['Ir_per_op']):.2f}"
                           if a and b and a["Ir_per_op"] else "-"]
                    row += [_fmt_ratio(rs.get((op, "random", n)), floors[(lb, n)])
                            for n in sizes]
                    body.append(row)
        if body:
            md += [f"Generic APIs against {what}: instruction ratio "
                   f"(N = {count_n}) and time ratio [95 %], random keys:", "",
                   _md(["build", "variant", "op", "baseline", "Ir ratio",
                        *(f"N={n}" for n in sizes)], body)]
    md += ["Noise floor (largest |ratio - 1| of identical code timed against itself), "
           "per build and N: " + "; ".join(
               f"{lb} " + ", ".join(f"N={n} +-{100 * floors[(lb, n)]:.0f} %"
                                    for n in sizes if (lb, n) in floors)
               for lb in labels), ""]
    return "\n".join(md)
