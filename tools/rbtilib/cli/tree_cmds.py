# SPDX-License-Identifier: GPL-2.0
"""``rbti trees``, ``rbti dump`` and ``rbti check``."""

import sys

from .. import checker, jsondoc
from ..driver import CheckResult, ReplyError
from ..dump import format_flags, number_text, read_dump_file
from .common import (EXIT_FAIL, EXIT_OK, UsageError, add_json, add_selection,
                     count_or_all, dump_reader, is_saved_dump, print_json,
                     sources, tree_infos, typed)


def cmd_trees(args, driver) -> int:
    """List the trees: NAME API FLAGS."""
    infos = driver.trees()
    if args.json:
        print_json("trees", {"trees": [
            {"tree": i.name, "name": i.name, "api": i.api,
             "flags": sorted(i.flags)} for i in infos]})
        return EXIT_OK
    for info in infos:
        print(f"{info.name} {info.api} {format_flags(info.flags)}")
    return EXIT_OK


def _ref(value) -> str:
    """A link as ``dump`` prints it: an id, ``-`` (NIL) or ``?``."""
    return "-" if value is None else str(value) if isinstance(value, int) \
        else "?"


def _raw(args, driver) -> int:
    live = [t for t in args.trees if not is_saved_dump(t)]
    every = [i.name for i in tree_infos(driver, live or None)] \
        if args.all or live else []
    for arg in list(args.trees) + (every if args.all else []):
        if is_saved_dump(arg):
            try:
                text = read_dump_file(arg)
            except OSError as e:
                raise UsageError(f"{arg}: {e.strerror or e}") from None
        else:
            text = driver.dump_text(arg)
        sys.stdout.write(text)
    return EXIT_OK


def cmd_dump(args, driver) -> int:
    """Print trees' nodes (or their dumps unchanged with --raw)."""
    if args.raw:
        return _raw(args, driver)
    status, documents = EXIT_OK, []
    for label, tree, error, _ in sources(args, driver):
        if tree is None:
            status = EXIT_FAIL
            if args.json:
                documents.append({"tree": label, "name": label,
                                  "error": error})
            else:
                print(f"{label}: fail dump: {error}", file=sys.stderr)
            continue
        if args.json:
            documents.append(jsondoc.tree(tree))
            continue
        print(f"{tree.name} ({tree.api}, {format_flags(tree.flags)}): "
              f"{len(tree.nodes)} nodes, height {tree.height}")
        copy = tree.copy1
        for tag, nodes in (("", tree.nodes), ("lost ", tree.lost),
                           ("copy 1 ", copy.nodes if copy else {})):
            for node in nodes.values():
                key = number_text(tree, "key", node.key)
                print(f"  {tag}{node.id:>8} key {key:<20} {node.color} "
                      f"parent {_ref(node.parent)} left {_ref(node.left)} "
                      f"right {_ref(node.right)}"
                      + (f" aug {number_text(tree, 'aug', node.aug)}"
                         if node.aug is not None else "")
                      + (f" {tree.value} "
                         f"{number_text(tree, 'value', node.value)}"
                         if node.value is not None else ""))
    if args.json:
        print_json("dump", {"ok": status == EXIT_OK, "trees": documents})
    return status


def _module_line(module, tree) -> str:
    """The module's verdict as rbti names nodes (``node #ID (key K)``,
    the key from the dump, which the module's check line lacks)."""
    key = checker.key_text(tree, module.node) if tree is not None else None
    return f"module: fail {module.cls} " \
        f"{checker.node_words(module.node, key)}: {module.message}"


def _verdict(label, tree, error, module, limit: int) -> dict:
    """One tree's verdict, the same for live trees and files."""
    found = checker.check(tree) if tree is not None else []
    first = found[0].cls if found else None
    return {
        "tree": label, "ok": error is None and not found and
        (module is None or module.ok),
        "nodes": None if tree is None else len(tree.nodes),
        "error": error, "violation_count": len(found),
        "violations": [jsondoc.violation(v) for v in found[:limit]],
        "notes": checker.notes(tree) if tree is not None else [],
        "module": None if module is None else {
            "ok": module.ok, "class": module.cls, "node": module.node,
            "message": module.message},
        "disagree": module is not None and tree is not None and
        first != (None if module.ok else module.cls),
        "_found": found[:limit], "_module": module, "_tree": tree}


def _print_verdict(v: dict) -> None:
    label, module = v["tree"], v["_module"]
    if v["error"] is not None:
        print(f"{label}: fail dump: {v['error']}")
    elif v["ok"]:
        print(f"{label}: ok ({v['nodes']} nodes)")
    for note in v["notes"]:
        print(f"{label}: note: {note}")
    if v["ok"]:
        return
    for violation in v["_found"]:
        print(f"{label}: {violation}")
    more = v["violation_count"] - len(v["_found"])
    if more:
        print(f"{label}: … and {more} more violation"
              f"{'s' if more != 1 else ''} (--max-violations all "
              "prints them)")
    if module is not None and not module.ok:
        print(f"{label}: {_module_line(module, v['_tree'])}")
    if v["disagree"]:
        first = v["_found"][0].cls if v["_found"] else "ok"
        print(f"{label}: checkers disagree: python {first}, "
              f"module {module.cls or 'ok'}")


def cmd_check(args, driver) -> int:
    """Check live trees (the Python checker and the module's check file)
    and saved dumps (the Python checker); every tree is checked even when
    one fails."""
    verdicts = []
    for label, tree, error, info in sources(args, driver):
        module = None
        if info is not None:
            try:
                module = driver.check(info.name)
            except ReplyError as e:
                module = CheckResult(False, "reply", None, str(e))
        verdicts.append(_verdict(label, tree, error, module, args.max))
        if not args.json:
            _print_verdict(verdicts[-1])
    ok = all(v["ok"] for v in verdicts)
    if args.json:
        print_json("check", {"ok": ok, "trees": [
            {k: x for k, x in v.items() if not k.startswith("_")}
            for v in verdicts]})
    return EXIT_OK if ok else EXIT_FAIL


EXAMPLES_TREES = """examples:
  rbti trees
  rbti trees --json
"""


def add_trees(sub) -> None:
    p = sub.add_parser("trees", help="list the trees",
                       description="List the module's trees: NAME API "
                       "FLAGS, one a line.", epilog=EXAMPLES_TREES)
    add_json(p, "the list")
    p.set_defaults(func=cmd_trees)


def add_dump(sub) -> None:
    p = sub.add_parser(
        "dump", help="print trees' nodes",
        description="Print each tree's nodes, one a line: id, key, colour, "
        "parent, left, right and aug ('-' is NIL, '?' a link to no node of "
        "the tree), from live trees or saved dumps; --raw prints the dump "
        "unchanged.  Exit 1 if a dump does not parse.",
        epilog="""examples:
  rbti dump santos
  rbti dump --raw santos > santos.dump
  rbti dump santos.dump
  rbti dump --json --all
""")
    add_selection(p, files=True)
    p.add_argument("--raw", action="store_true",
                   help="print the dump file unchanged")
    dump_reader(p, cmd_dump, "the trees", apart=(("raw", "json"),))


def add_check(sub) -> None:
    p = sub.add_parser(
        "check", help="check invariants (exit 1 on a violation)",
        description="Check every red-black tree invariant of live trees "
        "(the Python checker and the module's own check file) or of saved "
        "dumps (the Python checker).  Prints 'NAME: ok (N nodes)' or one "
        "'NAME: fail CLASS node ID: message' line per violation; every "
        "tree is checked, and the exit status is 1 if any failed.",
        epilog="""examples:
  rbti check --all
  rbti check santos mainline
  rbti check saved.dump
  rbti dump --raw santos | rbti check -
  rbti check --json --all
""")
    add_selection(p, files=True)
    p.add_argument("--max-violations", "--max", dest="max",
                   type=typed(count_or_all, "count"),
                   default=checker.SHOWN, metavar="N|all",
                   help="violations to print per tree (default "
                   f"{checker.SHOWN}; 'all' for every one); a last line "
                   "says how many more there are (viz/render --violation "
                   "takes the same)")
    dump_reader(p, cmd_check, "the verdicts", hex=False)
