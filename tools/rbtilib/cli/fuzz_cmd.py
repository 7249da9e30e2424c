# SPDX-License-Identifier: GPL-2.0
"""``rbti fuzz`` and ``rbti replay``.

rbtilib.fuzz and its rooms (opstream, treerun, shrink) are the biggest
import and the guest's Python is slow to start, so they are imported only
by the commands that use them.
"""

import sys

from .common import (EXIT_FAIL, EXIT_OK, UsageError, add_json,
                     add_selection, at_least, check_selection, print_json,
                     tree_infos, typed)


def _fuzz():
    from .. import fuzz
    return fuzz


def _opstream():
    from .. import opstream
    return opstream


def _shrink():
    from .. import shrink
    return shrink


def summary_json(runner, failure) -> dict:
    """The fuzz summary as JSON (docs/json.md, "fuzz")."""
    s, cfg = runner.stats, runner.config
    return {
        "ok": failure is None, "seed": cfg.seed, "ops": s.ops,
        "ops_per_tree": cfg.ops, "trees": list(s.trees),
        "jobs": min(cfg.jobs, len(s.trees)), "seconds": round(s.seconds, 3),
        "debugfs_seconds": round(s.driver_seconds, 3),
        "ops_per_second": round(s.ops / s.seconds) if s.seconds else 0,
        "module_checks": s.module_checks, "full_checks": s.checks,
        "single_ops": s.single_ops, "max_nodes": s.max_nodes,
        "failure": None if failure is None else {
            "tree": failure.tree, "kind": failure.kind,
            "message": failure.message, "after_ops": failure.index},
        "repro": None if not runner.repro else {
            "path": runner.repro, "ops": len(runner.shrunk or ())},
    }


def cmd_fuzz(args, driver) -> int:
    """Fuzz trees against the model."""
    fuzz = _fuzz()
    try:
        config = fuzz.Config(ops=args.ops, seed=args.seed,
                             check_every=args.check_every, keys=args.keys,
                             mix=args.mix, out=args.out,
                             snapshots_every=args.snapshots_every,
                             progress=args.progress, key_mode=args.key_mode,
                             phases=args.key_mode != "dense", grow=args.grow,
                             batch=args.batch, single=args.single_every,
                             jobs=fuzz.resolve_jobs(args.jobs))
    except ValueError as e:
        raise UsageError(str(e)) from None
    infos = tree_infos(driver, None if args.all else args.trees)
    print(f"seed {_opstream().resolve_seed(config)}", flush=True,
          file=sys.stderr if args.json else sys.stdout)
    # The picture writers come from tools/rbti (rbtiviz's): rbtilib never
    # imports rbtiviz.
    writers = args.fuzz_writers() if args.fuzz_writers else None
    runner = fuzz.Fuzzer(driver, infos, config, writers=writers)
    failure = runner.run()
    if args.json:
        print_json("fuzz", summary_json(runner, failure))
        return EXIT_FAIL if failure else EXIT_OK
    print(runner.summary())
    if failure:
        print(f"FAIL {failure}")
        if runner.repro:
            print(f"repro: {runner.repro} ({len(runner.shrunk)} ops)")
        return EXIT_FAIL
    print("ok")
    return EXIT_OK


def cmd_replay(args, driver) -> int:
    """Rerun a repro file written by fuzz."""
    repro = args.file
    info = tree_infos(driver, [repro["tree"]])[0]
    print(f"replaying {len(repro['ops'])} ops on {info.name} (seed "
          f"{repro.get('seed')}, was: {repro.get('failure')})")
    failure = _shrink().replay_ops(driver, info, repro["ops"])
    if failure:
        print(f"FAIL {failure}")
        return EXIT_FAIL
    print("ok: the failure does not reproduce")
    return EXIT_OK


def _nonneg_float(text: str) -> float:
    value = float(text)
    if not value >= 0:
        raise ValueError("must be 0 or more")
    return value


def add_fuzz(sub) -> None:
    p = sub.add_parser(
        "fuzz", help="fuzz trees against the model (exit 1 on a failure, "
        "with a shrunk repro)",
        description="Run random insert/find/erase/near operations on live "
        "trees and on a Python model, compare every result, check the "
        "dumps; on a mismatch, shrink the operations to a short repro file.",
        epilog="""examples:
  rbti fuzz --all --ops 10000
  rbti fuzz santos mainline --seed 1 --keys -5:5
  rbti fuzz --all --jobs 0 --json
""")
    add_selection(p)
    p.add_argument("--ops", type=typed(at_least(1), "--ops"),
                   default=100000, help="ops per tree (default %(default)s)")
    p.add_argument("--seed", type=typed(int, "seed"), default=None,
                   help="seed of the op sequence (default: random, printed "
                   "first)")
    p.add_argument("--check-every", type=typed(at_least(1), "--check-every"),
                   default=1000, metavar="K",
                   help="check dumps with the Python checker, the model "
                   "and stats every K ops, or every N ops on an N-node "
                   "tree (default %(default)s); the module's check runs "
                   "after every batch")
    p.add_argument("--batch", type=typed(at_least(1), "--batch"),
                   default=256, metavar="N",  # opstream.BATCH_OPS
                   help="ops per ops write (default %(default)s)")
    p.add_argument("--keys", default="0:255",
                   type=typed(lambda t: _opstream().parse_keys(t),
                              "key range"),
                   metavar="LO:HI",
                   help="range of the dense keys, inclusive (default 0:255)")
    p.add_argument("--key-mode", default="mixed",
                   # opstream.KEY_MODES:
                   choices=("mixed", "dense", "full", "cluster"),
                   help="keys: mixed phases of dense, full-s64 and "
                   "clustered keys (default), or one kind; 'dense' is the "
                   "plain uniform mix over --keys, without phases")
    p.add_argument("--grow", type=typed(at_least(0), "--grow"), default=0,
                   metavar="N",
                   help="start by growing the trees by N inserts, then "
                   "drain them (default 0)")
    p.add_argument("--single-every", type=typed(at_least(0), "count"),
                   default=128, metavar="N",
                   help="send about one op in N through the single-op "
                   "files (0: never; default %(default)s)")
    p.add_argument("--mix", default="4:3:3:2",
                   type=typed(lambda t: _opstream().parse_mix(t), "mix"),
                   metavar="I:F:E:N",
                   help="weights of insert, find, erase, near "
                   "(default 4:3:3:2)")
    p.add_argument("--out", metavar="DIR",
                   help="where repros and snapshots go (default out/fuzz)")
    p.add_argument("--snapshots-every", type=typed(at_least(0), "count"),
                   default=0, metavar="K",
                   help="save a flipbook frame (a dump) every K ops per tree "
                        "under --out; draw them with viz/render --flipbook DIR")
    p.add_argument("--progress", type=typed(_nonneg_float, "interval"),
                   default=10.0, metavar="SECS",
                   help="progress line interval on stderr, 0 for none")
    p.add_argument("--jobs", type=typed(at_least(0), "--jobs"), default=1,
                   metavar="N",
                   help="deal the trees to N processes, each running the "
                   "same ops on its trees (0: one per online CPU; default "
                   "1)")
    add_json(p, "the summary (the seed line goes to stderr)")
    p.set_defaults(func=cmd_fuzz, validate=check_selection)


def add_replay(sub) -> None:
    p = sub.add_parser(
        "replay", help="rerun a repro file (exit 1 if it still fails)",
        description="Rerun the operations of a repro file written by fuzz "
        "on the live tree it names; exit 1 if the failure reproduces.",
        epilog="""example:
  rbti replay out/fuzz/santos-seed1.json
""")
    p.add_argument("file", type=typed(lambda t: _shrink().read_repro(t),
                                      "repro file"))
    p.set_defaults(func=cmd_replay)
