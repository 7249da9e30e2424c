# SPDX-License-Identifier: GPL-2.0
"""``rbti kernel`` and ``rbti verify``."""

import os
import sys
import time

from .. import checker, jsondoc, record
from ..driver import DebugfsError
from ..dump import DumpError, parse_dump
from . import Changed, Fault, KernelError
from .debuginfo import DrgnMemory, open_program
from .presets import PRESETS, preset_custom
from .stable import Result, address_table, read_stable


EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INCOMPLETE = 0, 1, 2, 3
"""docs/json.md: 0 every tree read and clean, 1 a violation (or, for
verify, a difference), 2 usage or setup, 3 incomplete: a tree kept
changing or could not be read (its root, or its header, is unreadable:
nothing of the tree was seen, so nothing is known to be wrong).  A
violation outweighs an incomplete tree."""


def _specs(prog, args) -> list:
    build = PRESETS.get(args.preset, preset_custom)
    try:
        specs = build(prog, args)
    except KeyError as e:
        raise KernelError(f"preset {args.preset}: no symbol {e}") from None
    names = list(getattr(args, "trees", None) or ())
    if getattr(args, "tree", None):
        names.append(args.tree)
    unknown = sorted(set(names) - {s.name for s in specs})
    if unknown:
        raise KernelError(f"no tree {', '.join(unknown)} in preset "
                          f"{args.preset} (see --list)")
    return [s for s in specs if s.name in names] if names else specs


def _safe_name(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)


def _address(v, res: Result) -> int | None:
    return {i: a for a, i in res.ids.items()}.get(v.node)


def _blame(v, res: Result) -> str:
    addr = _address(v, res)
    return f"{v}" + (f" [{addr:#x}]" if addr is not None else "")


def _json_entry(spec, res: Result | None, error: str | None,
                check: bool, limit: int | None = checker.SHOWN) -> dict:
    """One tree of ``kernel --json`` (docs/json.md): its verdict with
    --check (at most *limit* violations, None: all), else its dump;
    *error* if it could not be read."""
    if res is None:
        return {"tree": spec.name, "ok": False, "error": error}
    if not check:
        return {"tree": spec.name, "ok": True, "error": None,
                "dump": jsondoc.tree(res.tree)}
    return {"tree": spec.name, "ok": not res.violations, "error": None,
            "nodes": len(res.snap.nodes),
            "violation_count": len(res.violations),
            "violations": [{**jsondoc.violation(v), "address":
                            None if _address(v, res) is None
                            else f"{_address(v, res):#x}"}
                           for v in res.violations[:limit]]}


def cmd_kernel(args, prog) -> int:
    t_setup = time.monotonic()
    specs = _specs(prog, args)
    setup = time.monotonic() - t_setup
    for spec in specs if getattr(args, "hex", False) else ():
        spec.hex = frozenset({"key"} | ({"aug"} if spec.aug_name else set()))
    if args.list:
        for s in specs:
            print(s.name)
        return EXIT_OK
    if not args.check and not args.out and len(specs) != 1:
        raise KernelError(f"{len(specs)} trees: name one (TREE), or use "
                          "--all with --out DIR or --check "
                          f"({', '.join(s.name for s in specs)})")
    mem = DrgnMemory(prog)
    status = EXIT_OK
    addresses, entries = [], []
    unread = {"changing": 0, "unreadable": 0}
    as_json = getattr(args, "json", False)
    for spec in specs:
        try:
            res = read_stable(mem, spec, args.attempts)
        except (Changed, Fault) as e:
            error = f"{e}" if isinstance(e, Changed) else \
                f"the tree's root: {e}"
            if as_json:
                entries.append(_json_entry(spec, None, error, args.check))
            else:
                print(f"{spec.name}: {error}", file=sys.stderr)
            status = EXIT_FAIL if status == EXIT_FAIL else EXIT_INCOMPLETE
            unread["changing" if isinstance(e, Changed) else "unreadable"] += 1
            continue
        if args.times:
            secs = " ".join(f"{k} {v:.3f}s" for k, v in res.seconds.items())
            print(f"{spec.name}: {len(res.snap.nodes)} nodes, {res.reads} "
                  f"reads, setup {setup:.3f}s {secs}", file=sys.stderr)
        addresses.append(address_table(res))
        if args.check and res.violations:
            status = EXIT_FAIL
        if as_json:
            entries.append(_json_entry(spec, res, None, args.check,
                                           getattr(args, "max", checker.SHOWN)))
        elif args.check:
            if res.violations:
                shown = res.violations[:getattr(args, "max", checker.SHOWN)]
                for v in shown:
                    print(f"{spec.name}: {_blame(v, res)}")
                more = len(res.violations) - len(shown)
                if more > 0:
                    print(f"{spec.name}: … and {more} more violation"
                          f"{'s' if more != 1 else ''} (--max-violations "
                          "all prints them)")
            else:
                print(f"{spec.name}: ok ({len(res.snap.nodes)} nodes)")
            for note in checker.notes(res.tree):
                print(f"{spec.name}: note: {note}")
        if args.out:
            os.makedirs(args.out, exist_ok=True)
            with open(os.path.join(args.out, _safe_name(spec.name) +
                                   ".dump"), "w") as f:
                f.write(res.text)
        elif not args.check and not as_json:
            sys.stdout.write(res.text)
    if args.addresses:
        text = "".join(addresses)
        if args.addresses == "-":
            sys.stderr.write(text)
        else:
            with open(args.addresses, "w") as f:
                f.write(text)
    if as_json:
        print(jsondoc.document("kernel", {
            "ok": status == EXIT_OK, "complete": not any(unread.values()),
            **unread, "check": bool(args.check), "trees": entries}))
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


def _verify_one(driver, mem, spec, attempts: int) -> dict:
    """One inspector tree's verdict: ``verdict`` (same, mismatch, changed
    or fault), ``detail``, ``nodes`` and the exit ``status``."""
    def verdict(status, what, detail=None, nodes=None):
        return {"tree": spec.name, "verdict": what, "detail": detail,
                "nodes": nodes, "status": status}
    for _ in range(attempts):
        before = driver.dump_text(spec.name)
        try:
            res = read_stable(mem, spec, attempts, confirm=False)
        except Changed:
            continue
        except Fault as e:
            return verdict(EXIT_INCOMPLETE, "fault",
                           f"the tree's memory: {e}")
        if driver.dump_text(spec.name) == before:
            break
    else:
        return verdict(EXIT_INCOMPLETE, "changed", "changed while reading")
    try:
        diff = compare_trees(parse_dump(before), parse_dump(res.text))
    except DumpError as e:
        diff = f"a dump does not parse: {e}"
    if diff:
        return verdict(EXIT_FAIL, "mismatch", diff)
    return verdict(EXIT_OK, "same", nodes=len(res.snap.nodes))


def _verdict_line(v: dict) -> str:
    if v["verdict"] == "same":
        return f"{v['tree']}: same ({v['nodes']} nodes)"
    if v["verdict"] == "changed":
        return f"{v['tree']}: {v['detail']}"
    return f"{v['tree']}: {v['verdict'].upper()} {v['detail']}"


def cmd_verify(args, prog) -> int:
    from ..driver import DEFAULT_ROOT, Debugfs
    driver = Debugfs(getattr(args, "root", DEFAULT_ROOT) or DEFAULT_ROOT)
    args.preset, args.tree = "inspector", None
    specs = _specs(prog, args)
    mem = DrgnMemory(prog)
    status = EXIT_OK
    verdicts = []
    for spec in specs:
        v = _verify_one(driver, mem, spec, args.attempts)
        verdicts.append(v)
        if not getattr(args, "json", False):
            print(_verdict_line(v))
        status = v["status"] if status in (EXIT_OK, EXIT_INCOMPLETE) and \
            v["status"] != EXIT_OK else status
    if getattr(args, "json", False):
        print(jsondoc.document("verify", {
            "ok": status == EXIT_OK,
            "complete": not any(v["status"] == EXIT_INCOMPLETE
                                for v in verdicts),
            "trees": [{k: x for k, x in v.items() if k != "status"}
                      for v in verdicts]}))
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
    except OSError as e:            # DebugfsError too: no module
        text = f"{e.filename}: {e.strerror}" if e.filename and \
            e.strerror and not isinstance(e, DebugfsError) else e
        print(f"rbti {args.command}: {text}", file=sys.stderr)
        return EXIT_USAGE
