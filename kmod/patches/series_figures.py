# SPDX-License-Identifier: GPL-2.0
"""The cover letter's cost paragraph, written from the measurements' pages.

Every figure of the paragraph is read from a page a command of the
repository writes: docs/generated/bench.md (make bench: instruction counts
under valgrind and paired time ratios: the generic API against the
open-coded loop and against mainline's helper with the same semantics,
rb_find_add() for the unique insert and rb_add() for the insert that keeps
equal keys; the Santos hint against no hint) and
docs/generated/hint-climb.md (kmod/tests/user-hints/run --doc: parent reads
per hinted climb).  gen-series calls cost_paragraph(), so a bench run that
changes a figure changes the generated cover letter, and make test's series
suite fails until the committed series is regenerated.  A table or row the
paragraph needs that the page lacks is a FigureError naming both.
"""
from __future__ import annotations

import math
import re
import textwrap
from dataclasses import dataclass
from pathlib import Path

DOCS = Path(__file__).resolve().parent.parent.parent / "docs" / "generated"
BENCH = DOCS / "bench.md"
CLIMB = DOCS / "hint-climb.md"

# How the cover letter names the bench's builds.
BUILD_NAMES = {"none": "plain", "retpoline": "with retpolines",
               "rethunk": "with retpolines and SRSO's safe RET"}
# Joins words that the wrapping must not split ("N = 1000").
NBSP = "\u00a0"


class FigureError(Exception):
    """A figure the paragraph needs is not on its page."""


@dataclass
class Table:
    """A Markdown table with the paragraph above it (its caption)."""

    caption: str
    header: list[str]
    rows: list[list[str]]

    def column(self, name: str) -> int:
        """The index of the column headed NAME."""
        if name not in self.header:
            raise FigureError(f"table '{self.caption[:50]}...' has no column '{name}'")
        return self.header.index(name)

    def select(self, **where: str) -> list[dict[str, str]]:
        """The rows (as column -> cell) whose cells equal WHERE's."""
        cols = {name: self.column(name) for name in where}
        return [dict(zip(self.header, row)) for row in self.rows
                if all(row[i] == where[name] for name, i in cols.items())]


def tables(text: str) -> list[Table]:
    """Every table of a Markdown page, in order."""
    found: list[Table] = []
    caption, lines = "", text.split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("|") and i + 1 < len(lines) and re.match(r"^\|[ :|-]+\|$", lines[i + 1]):
            header = cells(line)
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append(cells(lines[i]))
                i += 1
            found.append(Table(caption, header, rows))
            continue
        if line.strip():
            caption = line.strip()
        i += 1
    return found


def cells(line: str) -> list[str]:
    """The cells of one table line, stripped."""
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def find(page: list[Table], name: str, caption_start: str) -> Table:
    """The table whose caption starts with CAPTION_START."""
    for table in page:
        if table.caption.startswith(caption_start):
            return table
    raise FigureError(f"{name}: no table under '{caption_start}'")


def number(cell: str) -> float:
    """The first number of a cell: '**1.465** [1.3, 1.5]' is 1.465."""
    match = re.search(r"[-+]?\d+(?:\.\d+)?", cell)
    if not match:
        raise FigureError(f"no number in cell '{cell}'")
    return float(match.group())


def span(values: list[float], fmt: str = "{:.2f}x", sep: str = "-") -> str:
    """'low-high' of VALUES, each as FMT (one value when they agree)."""
    low, high = fmt.format(min(values)), fmt.format(max(values))
    return low if low == high else f"{low}{sep}{high}"


def time_cells(rows: list[dict[str, str]]) -> list[str]:
    """The time-ratio cells (N=...) of ROWS."""
    return [cell for row in rows for key, cell in row.items() if key.startswith("N=")]


def meta(page: list[Table]) -> dict[str, str]:
    """The bench run's command, commit, machine and settings."""
    head = page[0]
    if head.header != ["", ""]:
        raise FigureError("bench.md: no run table first")
    return {row[0]: row[1].strip("`") for row in head.rows}


def counts(page: list[Table]) -> tuple[Table, str, str]:
    """The instructions table, with its profile and N."""
    table = find(page, "bench.md", "Instructions / simulated conditional mispredicts per operation")
    profile = re.search(r"profile `(\w+)`", table.caption)
    size = re.search(r"N = (\d+)", table.caption)
    if not profile or not size:
        raise FigureError("bench.md: the instructions table names no profile or N")
    return table, profile.group(1), size.group(1)


def ir(table: Table, variant: str, op: str) -> int:
    """Instructions per operation of VARIANT's OP."""
    rows = table.select(variant=f"`{variant}`")
    if not rows:
        raise FigureError(f"bench.md: no instructions row for {variant}")
    return int(number(rows[0][op]))


def bcm(table: Table, variant: str, op: str) -> str:
    """Simulated conditional mispredicts per operation of VARIANT's OP, as
    the page writes them ("7.1")."""
    rows = table.select(variant=f"`{variant}`")
    if not rows:
        raise FigureError(f"bench.md: no instructions row for {variant}")
    cell = rows[0][op]
    if "/" not in cell:
        raise FigureError(f"bench.md: {variant} {op} '{cell}' has no mispredicts")
    return f"{number(cell.split('/')[1]):.1f}"


def ratios(table: Table, variant: str, op: str) -> tuple[list[float], int]:
    """Every build's and size's time ratio of VARIANT's OP, and how many are bold."""
    rows = table.select(variant=f"`{variant}`", op=op)
    if not rows:
        raise FigureError(f"bench.md: no ratio row for {variant} {op}")
    found = time_cells(rows)
    return [number(cell) for cell in found], sum(cell.startswith("**") for cell in found)


def based(table: Table, variant: str, op: str, base: str) -> tuple[list[float], int]:
    """ratios() of VARIANT's OP in the row whose baseline is BASE."""
    rows = table.select(variant=f"`{variant}`", op=op, baseline=f"`{base}`")
    if not rows:
        raise FigureError(f"bench.md: no ratio row for {variant} {op} against {base}")
    found = time_cells(rows)
    return [number(cell) for cell in found], sum(cell.startswith("**") for cell in found)


def floor_words(*found: tuple[list[float], int]) -> str:
    """Whether the ratios of FOUND (values, how many bold) are inside the
    run's noise floor, or how many are not."""
    total = sum(len(values) for values, _ in found)
    bold = sum(count for _, count in found)
    if not bold:
        return "inside the noise floor"
    return f"{bold} of {total} ratios outside the noise floor"


def builds(table: Table) -> str:
    """The builds a ratio table covers, named for the cover letter."""
    names: list[str] = []
    for row in table.rows:
        build = row[0].split("/")[0]
        name = BUILD_NAMES.get(build, build)
        if name not in names:
            names.append(name)
    if len(names) == 1:
        return f"one build ({names[0]})"
    return f"{len(names)} builds ({', '.join(names[:-1])}, and {names[-1]})"


def climb(text: str) -> tuple[dict[int, float], str]:
    """hint-climb.md: the mean parent reads a climb, by distance, and the
    tree's size as the page writes it ("65,535")."""
    table = find(tables(text), "hint-climb.md", "`find_near()` and `insert_near()`")
    keys = re.search(r"tree of ([\d,]+) keys", table.caption)
    if not keys:
        raise FigureError("hint-climb.md: the table names no tree size")
    d, mean = table.column("d"), table.column("parent reads a climb (mean)")
    return {int(row[d]): float(row[mean]) for row in table.rows}, keys.group(1)


def hint_ratio(table: Table, op: str, hint: str) -> float:
    """The time ratio of a hinted OP to the same call from the root."""
    rows = table.select(op=op, hint=f"`{hint}`")
    if not rows:
        raise FigureError(f"bench.md: no hint row for {op} {hint}")
    return number(rows[0]["time ratio"])


def cost_paragraph(bench: str | None = None, hints: str | None = None) -> str:
    """The paragraph, wrapped at 72 columns, from the two pages' texts."""
    page = tables(BENCH.read_text() if bench is None else bench)
    reads, keys = climb(CLIMB.read_text() if hints is None else hints)
    run = meta(page)
    for key in ("command", "commit", "machine"):
        if key not in run:
            raise FigureError(f"bench.md: the run table has no {key}")
    gcc = re.search(r"gcc (\d+\.\d+)", run["machine"])
    cpus = re.match(r"([^,]+), (\d+) CPUs", run["machine"])
    if not gcc or not cpus:
        raise FigureError(f"bench.md: machine '{run['machine']}' names no CPU count or gcc")
    count, profile, size = counts(page)
    same = find(page, "bench.md", "Generic APIs against the open-coded loop making the same decisions")
    helper = find(page, "bench.md", "Generic APIs against mainline's helper with the same semantics")
    ool = find(page, "bench.md", "Out-of-line penalty")
    hint = find(page, "bench.md", "Santos `insert_near()`/`find_near()`")
    nodes = re.search(r"tree of (\d+) nodes", hint.caption)
    if not nodes:
        raise FigureError("bench.md: the hint table names no tree size")

    sizes = [name[2:] for name in same.header if name.startswith("N=")]
    if not sizes:
        raise FigureError("bench.md: the ratio table has no N= column")
    santos_same, santos_bold = [], 0
    for op in ("insert", "find_hit"):
        values, bold = ratios(same, "santos", op)
        santos_same += values
        santos_bold += bold
    if santos_bold:
        verdict = (f"with {santos_bold} of {len(santos_same)} ratios outside the run's noise "
                   "floor: the layer's cost over a hand-written walk is not nil in every build")
    else:
        verdict = ("inside the run's noise floor: LWN's 2012 question has the answer that the "
                   "layer costs nothing over a hand-written walk")
    # The generic API against mainline's helper of the same semantics: the
    # unique insert against rb_find_add() (mainline_u), the insert keeping
    # equal keys against rb_add() (mainline), the find against rb_find().
    unique_insert = based(helper, "santos", "insert", "mainline_u")
    unique_find = based(helper, "santos", "find_hit", "mainline")
    dup_insert = based(helper, "santos_dup", "insert", "mainline")
    by_profile = {p: [r for r in ool.select() if r[ool.header[0]].startswith(p)]
                  for p in ("retpoline,", "retpoline+rethunk")}
    ool_ir = {p: [number(r["+Ir/op"]) for r in rows] for p, rows in by_profile.items()}
    ool_t = {p: [number(c) for c in time_cells(rows)] for p, rows in by_profile.items()}
    if not all(ool_ir.values()) or not all(ool_t.values()):
        raise FigureError("bench.md: the out-of-line table lacks a retpoline or rethunk row")
    near = [d for d in sorted(reads) if d > 1 and d <= 1024]
    if 1 not in reads or not near:
        raise FigureError("hint-climb.md: no row for d = 1 or for d up to 1024")
    extra = [reads[d] - math.log2(d) for d in near]
    far = [hint_ratio(hint, op, h) for op in ("insert_near", "find_near")
           for h in ("d256", "d4096")]

    text = (
        f"What it costs, measured in userspace over tools/lib/rbtree.c built "
        f"with the kernel's code-generation flags (gcc {gcc.group(1)}, random "
        f"keys; instructions per operation at N = {size} under valgrind, profile "
        f"{profile}; times at N = {' and '.join(sizes)} as medians of paired ratios, "
        f"in {builds(same)}; {run['command']} of rbtree-inspector "
        f"{run['commit']}, {cpus.group(2)}-CPU {cpus.group(1)}): "
        f"a unique RB_DEFINE_INTERFACE() tree runs {ir(count, 'santos', 'insert')} "
        f"instructions per insert and {ir(count, 'santos', 'find_hit')} per "
        f"successful find, against {ir(count, 'open_cmp_u', 'insert')} and "
        f"{ir(count, 'open_cmp_u', 'find_hit')} for the open-coded loop that decides "
        f"on the same three-way comparison and {ir(count, 'mainline_u', 'insert')} and "
        f"{ir(count, 'mainline', 'find_hit')} for mainline's rb_find_add() and "
        f"rb_find(), in {span(santos_same)} that loop's time, {verdict}.  Against "
        f"mainline's helper with the same semantics, the unique insert takes "
        f"{span(unique_insert[0])} the time of rb_find_add(), which also refuses an "
        f"equal key ({floor_words(unique_insert)}), and the find "
        f"{span(unique_find[0])} that of rb_find(), which tests for equality last "
        f"({bcm(count, 'mainline', 'find_hit')} simulated mispredicts per find "
        f"against {bcm(count, 'santos', 'find_hit')}; {floor_words(unique_find)}).  "
        f"Without RB_UNIQUE_KEYS the insert "
        f"runs {ir(count, 'santos_dup', 'insert')} instructions and "
        f"{bcm(count, 'santos_dup', 'insert')} mispredicts against "
        f"{ir(count, 'mainline', 'insert')} and {bcm(count, 'mainline', 'insert')} "
        f"for rb_add(), which keeps equal keys too and branches on a bool less(), "
        f"in {span(dup_insert[0])} its time ({floor_words(dup_insert)}).  The "
        f"leftmost and count caches add "
        f"{ir(count, 'santos_lc', 'insert') - ir(count, 'santos', 'insert')} "
        f"instructions per insert.  A hint d{NBSP}positions from the key costs a climb "
        f"of {reads[1]:.2f} parent reads on average at d = 1 and log2(d) + "
        f"{span(extra, '{:.2f}', ' to ')} for d = {near[0]} to {near[-1]} "
        f"({reads[near[-1]]:.2f} at d = {near[-1]}, on {keys} keys) before the "
        f"descent, so insert_near() and find_near() take "
        f"{hint_ratio(hint, 'insert_near', 'd1'):.2f}x and "
        f"{hint_ratio(hint, 'find_near', 'd1'):.2f}x the time of a search from "
        f"the root at d = 1, "
        f"{span([hint_ratio(hint, op, 'd16') for op in ('insert_near', 'find_near')])} "
        f"at d = 16 and {span(far)} at d = 256 to 4096 ({int(nodes.group(1)):,} "
        f"nodes): a hint pays only for a neighbour.  Out of line, the comparison "
        f"called through a pointer as in the 2012 exported rb_insert(), an "
        f"operation costs {span(ool_ir['retpoline,'], '{:.0f}')} instructions more "
        f"and {span(ool_t['retpoline,'])} the inline time with retpolines, "
        f"{span(ool_ir['retpoline+rethunk'], '{:.0f}')} more and "
        f"{span(ool_t['retpoline+rethunk'])} with SRSO's safe RET, which is why "
        f"nothing here is out of line.")
    text = re.sub(r"\b(N|d) = ", lambda m: f"{m.group(1)}{NBSP}={NBSP}", text)
    text = textwrap.fill(text, width=72, break_on_hyphens=False)
    return text.replace(NBSP, " ") + "\n"


DEBUG_COST = DOCS / "debug-rbtree-cost.md"


def debug_cost_paragraph(page: Path = DEBUG_COST) -> str:
    """CONFIG_DEBUG_RBTREE's cost, for its commit message, from its page.

    The rows of kmod/patches/debug-cost's table: instructions per insert,
    erase and replace without and with the checks, at every N; and the
    text size line of rbtree.o.
    """
    if not page.is_file():
        raise FigureError(f"{page}: missing (kmod/patches/debug-cost --doc writes it)")
    text = page.read_text()
    found = [t for t in tables(text) if "with DEBUG_RBTREE" in t.header]
    if not found:
        raise FigureError(f"{page}: no table with a 'with DEBUG_RBTREE' column")
    table = found[0]
    parts = []
    for op in ("insert", "erase", "replace"):
        rows = table.select(operation=op)
        if not rows:
            raise FigureError(f"{page}: no row for {op}")
        added = sorted({r["added"].lstrip("+") for r in rows}, key=float)
        span = added[0] if len(added) == 1 else f"{added[0]}-{added[-1]}"
        base = sorted({r["instructions without"] for r in rows}, key=float)
        on = base[0] if len(base) == 1 else f"{base[0]}-{base[-1]}"
        parts.append(f"{span} instructions per {op} (on {on})")
    ns = " and ".join(sorted({r[table.column("N")] for r in table.rows}, key=int))
    size = re.search(r"rbtree_debug\.o:\s*`add/remove: [^`]*\((\d+)\)`", text)
    if not size:
        raise FigureError(f"{page}: no bloat-o-meter line for rbtree_debug.o")
    return textwrap.fill(
        f"Measured on the userspace copy of this code (tools/lib/rbtree.c with "
        f"these checks, callgrind, N{NBSP}={NBSP}{ns} random keys; "
        f"kmod/patches/debug-cost of rbtree-inspector), the checks add "
        f"{parts[0]}, {parts[1]} and {parts[2]}; rbtree.o and rbtree_debug.o grow by "
        f"{size.group(1)} bytes of text.  With CONFIG_DEBUG_RBTREE=n nothing "
        f"changes: the hooks are inline functions that return a constant.",
        width=72).replace(NBSP, " ") + "\n"
