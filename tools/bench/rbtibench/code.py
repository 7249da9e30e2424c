# SPDX-License-Identifier: GPL-2.0
"""What the compiler made of the benchmark: entry points, clones, sizes.

:func:`check_entries` is the build's guard (kmod/bench/Makefile): every
``BENCH_ENTRY`` function of the sources must exist once, under its own
name (no ``.isra``/``.constprop``/``.part`` clone), at an address of its
own (not folded with an identical function), and be called from somewhere
(not inlined away).  :func:`identical_ops` finds the (variant, operation)
pairs whose code is instruction for instruction the same: their measured
ratio should be 1, so its spread is the method's noise floor.
"""
from __future__ import annotations

import re
from pathlib import Path

from . import proc

TOOL_LIMIT = 120
"""Seconds nm or objdump may take on a benchmark binary."""

CLONE = re.compile(r"\.(isra|constprop|part|cold|clone|lto_priv|localalias)\b")
# Operation of the benchmark -> suffix of the entry point that runs it.
OP_ENTRY = {"insert": "insert", "find_hit": "find", "find_miss": "find",
            "greater": "greater", "walk": "walk", "erase": "erase"}


def expected_entries(sources: list[str]) -> set[str]:
    """Names of the BENCH_ENTRY functions the sources define, macros expanded."""
    names: set[str] = set()
    for text in sources:
        # Direct definitions: BENCH_ENTRY <type...> bench_name(
        for m in re.finditer(r"BENCH_ENTRY\b[^;{(]*?\b(bench_\w+)\s*\(", text):
            if "##" not in m.group(1):
                names.add(m.group(1))
        # Macros whose body defines entries: bench_##name##_suffix.
        for m in re.finditer(r"#define\s+(\w+)\((\w+)[^)]*\)((?:.*\\\n)+.*)", text):
            macro, param, body = m.groups()
            suffixes = re.findall(r"BENCH_ENTRY\b[^;{(]*?\bbench_##" + param
                                  + r"##(_\w+)\s*\(", body, re.S)
            for call in re.finditer(r"^" + macro + r"\((\w+)", text, re.M):
                names.update(f"bench_{call.group(1)}{suf}" for suf in suffixes)
    return names


def symbols(binary: Path) -> list[tuple[int, int, str, str]]:
    """(address, size, type, name) of every symbol with a size."""
    out = proc.run(["nm", "--print-size", "--defined-only", str(binary)],
                   TOOL_LIMIT, capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4:
            syms.append((int(fields[0], 16), int(fields[1], 16), fields[2], fields[3]))
    return syms


def disassembly(binary: Path) -> dict[str, list[str]]:
    """Instructions of every function, addresses made position-independent:
    jumps inside a function as +offset, calls and references by symbol."""
    syms = symbols(binary)
    by_addr = {addr: name for addr, _, kind, name in syms if kind in "tTdDbBrR"}
    out = proc.run(["objdump", "-d", "--no-show-raw-insn", "-M", "att", str(binary)],
                   TOOL_LIMIT, capture_output=True, text=True).stdout
    funcs: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in out.splitlines():
        head = re.match(r"^[0-9a-f]+ <(.+)>:$", line)
        if head:
            current = funcs.setdefault(head.group(1), [])
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(.*)$", line)
        if current is None or not m:
            continue
        insn = re.sub(r"\s+", " ", m.group(1).split("#")[0]).strip()
        # "jmp 403d95 <rb_search+0x25>" -> "jmp <+0x25>"; calls keep the name.
        insn = re.sub(r"\b[0-9a-f]+ <([^>+]+)(\+0x[0-9a-f]+)?>",
                      lambda mm: f"<{mm.group(2) or mm.group(1)}>", insn)
        # Absolute addresses of symbols (callbacks passed by address).
        insn = re.sub(r"\$0x([0-9a-f]+)",
                      lambda mm: f"${by_addr.get(int(mm.group(1), 16), '0x' + mm.group(1))}",
                      insn)
        if insn and not insn.startswith(("nop", "xchg %ax,%ax", "data16", "cs nop")):
            current.append(insn)
    return funcs


def check_entries(binary: Path, sources: list[Path]) -> list[str]:
    """Problems with the entry points in @binary; empty if none."""
    expected = expected_entries([p.read_text() for p in sources])
    if not expected:
        return [f"no BENCH_ENTRY functions found in {', '.join(map(str, sources))}"]
    syms = [s for s in symbols(binary) if s[2] in "tT"]
    problems = []
    for addr, _, _, name in syms:
        base = name.split(".")[0]
        if CLONE.search(name) and (base.startswith("bench_") or base in expected):
            problems.append(f"{name}: GCC cloned {base} (an entry point must be noipa)")
    by_name: dict[str, list[int]] = {}
    for addr, _, _, name in syms:
        by_name.setdefault(name, []).append(addr)
    addrs: dict[int, list[str]] = {}
    for name in sorted(expected):
        found = by_name.get(name, [])
        if len(found) != 1:
            problems.append(f"{name}: {len(found)} definitions, expected 1 "
                            "(inlined away, or not compiled)")
            continue
        addrs.setdefault(found[0], []).append(name)
    for names in addrs.values():
        if len(names) > 1:
            problems.append(f"{', '.join(names)}: folded into one function")
    funcs = disassembly(binary)
    called = set()
    for insns in funcs.values():
        for insn in insns:
            m = re.match(r"(call|jmp)\w* <(bench_\w+)>$", insn)
            if m:
                called.add(m.group(2))
    for name in sorted(expected):
        if name in by_name and name not in called and not name.endswith("_loop"):
            problems.append(f"{name}: never called (its callers inlined a copy)")
    return problems


def entry_of(variant: str, op: str, funcs: dict[str, list[str]]) -> str | None:
    """The function @variant runs for @op: its own entry point, or the shared
    plain one (bench_plain_erase/walk) its loop calls."""
    own = f"bench_{variant}_{OP_ENTRY[op]}"
    if own in funcs:
        return own
    loop = funcs.get(f"bench_{variant}_loop", [])
    plain = f"bench_plain_{OP_ENTRY[op]}"
    if any(insn.endswith(f"<{plain}>") for insn in loop):
        return plain
    return None


def identical_ops(binary: Path, variants: list[str], ops: list[str]
                  ) -> list[tuple[str, str, str]]:
    """(variant A, variant B, op) whose entry functions for @op have the same
    instructions (or are the same function), A before B in @variants."""
    funcs = disassembly(binary)
    pairs = []
    for op in ops:
        bodies = {}
        for v in variants:
            name = entry_of(v, op, funcs)
            if name:
                bodies[v] = tuple(funcs[name])
        for i, a in enumerate(variants):
            for b in variants[i + 1:]:
                if a in bodies and b in bodies and bodies[a] == bodies[b]:
                    pairs.append((a, b, op))
    return pairs


def text_sizes(binary: Path, variants: list[str]) -> dict[tuple[str, str], int]:
    """Bytes of each variant's insert, find and greater entry point; the
    out-of-line Overstreet functions as the pseudo-variant ``ovs_ool_lib``."""
    sizes = {name: size for _, size, kind, name in symbols(binary) if kind in "tT"}
    found = {}
    for variant in variants:
        for op in ("insert", "find", "greater"):
            if f"bench_{variant}_{op}" in sizes:
                found[(variant, op)] = sizes[f"bench_{variant}_{op}"]
    for op, name in (("insert", "rb_insert_allow_dup"), ("find", "rb_search"),
                     ("greater", "rb_find_first_greater")):
        if name in sizes:
            found[("ovs_ool_lib", op)] = sizes[name]
    return found
