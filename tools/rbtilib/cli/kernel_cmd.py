# SPDX-License-Identifier: GPL-2.0
"""``rbti kernel`` and ``rbti verify`` (the walk is :mod:`rbtilib.kernel`).

Kept apart from :mod:`rbtilib.kernel` so that every other rbti command
starts without importing the walk (and struct, typing, ...): start-up
time is what ``rbti show`` costs in the TCG guest.
"""

from ..checker import SHOWN
from .common import (add_json, add_selection, at_least, check_selection,
                     count_or_all, typed)

COMMANDS = ("kernel", "verify")
PRESET_NAMES = ("cfs", "free_vmap_area", "hrtimer", "inspector", "kernfs",
                "vmap_area")
"""The keys of :data:`rbtilib.kernel.presets.PRESETS` (a test keeps them equal)."""


def _run(args, prog=None) -> int:
    from ..kernel import commands
    return commands.run(args, prog)


def _validate_kernel(args, error) -> None:
    if args.all and args.trees:
        error(f"--all takes no tree names (got {', '.join(args.trees)})")
    if len(args.trees) > 1:
        error("name one tree, or --all with --out DIR or --check")
    if (args.preset is None) == (args.root_expr is None):
        error("give --preset NAME or --expr EXPR (with --type, --member "
              "and --key)")


def _common(p) -> None:
    p.add_argument("--vmlinux", metavar="FILE",
                   help="kernel debug info (default: found by "
                   "build id in $RBTI_KBUILD, or by drgn in "
                   "/usr/lib/debug/boot/vmlinux-RELEASE, ...; for --core, "
                   "the dump's kernel's)")
    p.add_argument("--debug-info", action="append", metavar="FILE",
                   help="more debug info files (modules; the loaded "
                   "rbtree_inspector's .ko by default found by build id in "
                   "$RBTI_KMOD, then /lib/modules/RELEASE)")
    p.add_argument("--kcore", default="/proc/kcore", metavar="FILE",
                   help="live kernel memory (default %(default)s)")
    p.add_argument("--core", metavar="VMCORE",
                   help="read a crash dump instead of the live kernel: ELF "
                   "(/proc/vmcore, makedumpfile -E, QEMU dump-guest-memory) "
                   "or kdump-compressed (makedumpfile, kdump); a QEMU dump "
                   "without a VMCOREINFO note is read through a copy in "
                   "$TMPDIR with the kernel's own added (VMCORE itself is "
                   "never changed)")
    p.add_argument("--attempts", type=typed(at_least(1), "--attempts"),
                   default=8, metavar="N",
                   help="reads before giving up on a changing tree "
                   "(default %(default)s)")


def add_arguments(sub) -> None:
    """Add the ``kernel`` and ``verify`` subcommands to *sub*."""
    p = sub.add_parser(
        "kernel", help="read a tree from kernel memory (drgn): dump it, "
        "or --check it (exit 1 on a violation, 3 if it kept changing or "
        "could not be read)",
        description="Walk a red-black tree in the running kernel (drgn over "
        "/proc/kcore) or in a crash dump, through child pointers only, and "
        "print it in the dump format (or check it with --check).  Give a "
        "--preset, or the root expression (--expr), entry type, rb_node "
        "member and key expression.  A preset with several trees (cfs, "
        "hrtimer, inspector) needs a TREE, or --all with --out or --check.",
        epilog="""exit status:
  0  every tree was read (with --check: and none has a violation)
  1  --check: a tree has a violation (whatever else was found)
  2  a usage or environment error: no debug info, no /proc/kcore, a core
     dump that is not one, no such tree in the preset
  3  incomplete, no violation: a tree kept changing while it was read
     (--attempts reads without two that agree) or could not be read; the
     JSON document says "complete": false

examples:
  rbti kernel --preset free_vmap_area | viz/render - -o free-vmap.svg
  rbti kernel --preset cfs --all --check
  rbti kernel --preset inspector santos
  rbti kernel --expr "prog['vmap_area_root']" --type 'struct vmap_area' \\
      --member rb_node --key e.va_start
""")
    add_selection(p, what="preset's trees (see --list)")
    p.add_argument("--preset", choices=sorted(PRESET_NAMES), metavar="NAME",
                   help="a known tree, or a family of trees: "
                   f"{', '.join(sorted(PRESET_NAMES))}")
    p.add_argument("--path", help="kernfs preset: the sysfs directory "
                   "(default /)")
    p.add_argument("--expr", dest="root_expr", metavar="EXPR",
                   help="drgn (Python) expression for the struct rb_root or "
                   "rb_root_cached, e.g. \"prog['vmap_area_root']\"")
    p.add_argument("--type", dest="entry", metavar="TYPE",
                   help="entry type, e.g. 'struct vmap_area'")
    p.add_argument("--member", help="the entry's struct rb_node member")
    p.add_argument("--key", help="key expression over the entry e, e.g. "
                   "e.va_start")
    p.add_argument("--aug", metavar="NAME=EXPR",
                   help="stored augmented value, e.g. "
                   "subtree_max_size=e.subtree_max_size")
    p.add_argument("--aug-rule", metavar="RULE",
                   help="its recomputation: size, max:EXPR, min:EXPR or "
                   "sum:EXPR, "
                   "e.g. max:e.va_end-e.va_start")
    p.add_argument("--hex", action="store_true",
                   help="mark keys (and aug) as addresses or sizes: the "
                   "dump's 'hex' line (vmap_area and free_vmap_area have "
                   "it anyway)")
    p.add_argument("--dup", action="store_true",
                   help="equal keys are legal")
    p.add_argument("--name", help="tree name in the dump")
    p.add_argument("--list", action="store_true",
                   help="list the preset's trees")
    p.add_argument("--check", action="store_true",
                   help="check instead of dumping")
    p.add_argument("--max-violations", "--max", dest="max",
                   type=typed(count_or_all, "count"), default=SHOWN,
                   metavar="N|all",
                   help="with --check: violations printed (and in --json "
                   "listed) per tree (default %(default)s; 'all' for every "
                   "one); a last line says how many more there are")
    p.add_argument("--out", metavar="DIR",
                   help="write every tree's dump to DIR/NAME.dump")
    p.add_argument("--addresses", metavar="FILE",
                   help="write 'ID ADDRESS' lines ('-': stderr)")
    p.add_argument("--times", action="store_true",
                   help="print where the time went on stderr")
    add_json(p, "the dumps, or with --check the verdicts,")
    _common(p)
    p.set_defaults(func=_run, validate=_validate_kernel)
    p = sub.add_parser(
        "verify", help="compare each inspector tree's debugfs dump with "
        "the tree read from memory (exit 1 on a difference, 3 if a tree "
        "kept changing or could not be read)",
        description="For each inspector tree, compare its debugfs dump "
        "node by node (id, key, colour, links, aug, caches) with the same "
        "tree read from kernel memory; exit 1 on any difference, 3 if a "
        "tree kept changing or its memory could not be read (and none "
        "differs).",
        epilog="""exit status:
  0  every tree was read, and its debugfs dump is the same
  1  a tree differs (whatever else was found)
  2  a usage or environment error: no debug info, no /proc/kcore, no
     module, an unknown tree
  3  incomplete, no difference: a tree kept changing while it was read,
     or its memory could not be read; the JSON document says
     "complete": false

examples:
  rbti verify --all
  rbti verify santos mainline
""")
    add_selection(p, what="inspector's trees")
    add_json(p, "the verdicts")
    _common(p)
    p.set_defaults(func=_run, validate=check_selection)
