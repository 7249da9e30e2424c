# SPDX-License-Identifier: GPL-2.0
"""``rbti kernel`` and ``rbti verify``."""

import os
import sys
import time

from .. import record
from ..dump import parse_dump
from . import Changed, Fault, KernelError
from .debuginfo import DrgnMemory, open_program
from .presets import PRESETS, preset_custom
from .stable import Result, address_table, read_stable


EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_CHANGED = 0, 1, 2, 3


def _specs(prog, args) -> list:
    build = PRESETS.get(args.preset, preset_custom)
    try:
        specs = build(prog, args)
    except KeyError as e:
        raise KernelError(f"preset {args.preset}: no symbol {e}") from None
    if args.tree:
        specs = [s for s in specs if s.name == args.tree]
        if not specs:
            raise KernelError(f"no tree {args.tree!r} in preset "
                              f"{args.preset} (see --list)")
    return specs


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _blame(v, res: Result) -> str:
    addr = {i: a for a, i in res.ids.items()}.get(v.node)
    return f"{v}" + (f" [{addr:#x}]" if addr is not None else "")


def cmd_kernel(args, prog) -> int:
    t_setup = time.monotonic()
    specs = _specs(prog, args)
    setup = time.monotonic() - t_setup
    if args.list:
        for s in specs:
            print(s.name)
        return EXIT_OK
    if not args.check and not args.out and len(specs) != 1:
        raise KernelError(f"{len(specs)} trees: pick one with --tree, or "
                          "use --out DIR or --check "
                          f"({', '.join(s.name for s in specs)})")
    mem = DrgnMemory(prog)
    status = EXIT_OK
    addresses = []
    for spec in specs:
        try:
            res = read_stable(mem, spec, args.attempts)
        except Changed as e:
            print(f"{spec.name}: {e}", file=sys.stderr)
            status = max(status, EXIT_CHANGED) if status != EXIT_FAIL \
                else status
            continue
        except Fault as e:
            print(f"{spec.name}: the tree's root: {e}", file=sys.stderr)
            status = EXIT_FAIL
            continue
        if args.times:
            secs = " ".join(f"{k} {v:.3f}s" for k, v in res.seconds.items())
            print(f"{spec.name}: {len(res.snap.nodes)} nodes, {res.reads} "
                  f"reads, setup {setup:.3f}s {secs}", file=sys.stderr)
        addresses.append(address_table(res))
        if args.check:
            if res.violations:
                status = EXIT_FAIL
                for v in res.violations[:10]:
                    print(f"{spec.name}: {_blame(v, res)}")
            else:
                print(f"{spec.name}: ok ({len(res.snap.nodes)} nodes)")
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, _safe_name(spec.name) +
                                   ".dump"), "w") as f:
                f.write(res.text)
        elif not args.check:
            sys.stdout.write(res.text)
    if args.addresses:
        text = "".join(addresses)
        if args.addresses == "-":
            sys.stderr.write(text)
        else:
            with open(args.addresses, "w") as f:
                f.write(text)
    return status


def compare_trees(a, b) -> str | None:
    """The first difference between two parsed dumps, or None."""
    for name in record.fields(a):
        x, y = getattr(a, name), getattr(b, name)
        if name == "nodes":
            if list(x) != list(y):
                return (f"node order differs: debugfs {list(x)[:8]}..., "
                        f"memory {list(y)[:8]}...")
            for nid in x:
                if x[nid] != y[nid]:
                    return f"node {nid}: debugfs {x[nid]}, memory {y[nid]}"
        elif x != y:
            return f"{name}: debugfs {x!r}, memory {y!r}"
    return None


def cmd_verify(args, prog) -> int:
    from ..driver import DEFAULT_ROOT, Debugfs
    driver = Debugfs(getattr(args, "root", DEFAULT_ROOT) or DEFAULT_ROOT)
    args.preset, args.tree = "inspector", None
    specs = _specs(prog, args)
    if args.trees:
        unknown = set(args.trees) - {s.name for s in specs}
        if unknown:
            raise KernelError(f"unknown tree {', '.join(sorted(unknown))}")
        specs = [s for s in specs if s.name in args.trees]
    mem = DrgnMemory(prog)
    status = EXIT_OK
    for spec in specs:
        for _ in range(args.attempts):
            before = driver.dump_text(spec.name)
            res = read_stable(mem, spec, args.attempts, confirm=False)
            if driver.dump_text(spec.name) == before:
                break
        else:
            print(f"{spec.name}: changed while reading")
            status = max(status, EXIT_CHANGED)
            continue
        diff = compare_trees(parse_dump(before), parse_dump(res.text))
        if diff:
            print(f"{spec.name}: MISMATCH {diff}")
            status = EXIT_FAIL
        else:
            print(f"{spec.name}: same ({len(res.snap.nodes)} nodes)")
    return status


def run(args, prog=None) -> int:
    """Run ``kernel`` or ``verify``; return the exit status.  *prog*: an
    open drgn Program to reuse (loading debug info takes a while)."""
    try:
        if prog is None:
            prog = open_program(args)
        if args.command == "verify":
            return cmd_verify(args, prog)
        return cmd_kernel(args, prog)
    except KernelError as e:
        print(f"rbti {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
    except OSError as e:
        print(f"rbti {args.command}: {e}", file=sys.stderr)
        return EXIT_USAGE
