# SPDX-License-Identifier: GPL-2.0
"""The command line of ``rbti kernel`` and ``rbti verify``.

Kept apart from :mod:`rbtilib.kernel` so that every other rbti command
starts without importing the walk (and struct, typing, ...): start-up
time is what ``rbti show`` costs in the TCG guest.
"""

COMMANDS = ("kernel", "verify")
PRESET_NAMES = ("cfs", "free_vmap_area", "hrtimer", "inspector", "kernfs",
                "vmap_area")
"""The keys of :data:`rbtilib.kernel.presets.PRESETS` (a test keeps them equal)."""


def _run(args, prog=None) -> int:
    from .kernel import commands
    return commands.run(args, prog)


def _common(p) -> None:
    p.add_argument("--vmlinux", help="kernel debug info (default: found by "
                   "build id in $RBTI_KBUILD, /usr/lib/debug/boot, ...)")
    p.add_argument("--debug-info", action="append", metavar="FILE",
                   help="more debug info files (modules)")
    p.add_argument("--kcore", default="/proc/kcore",
                   help="live kernel memory (default %(default)s)")
    p.add_argument("--core", metavar="VMCORE",
                   help="read a crash dump (vmcore, or QEMU "
                   "dump-guest-memory ELF) instead of the live kernel; a "
                   "QEMU dump without a VMCOREINFO note gets the kernel's "
                   "own appended (the file is changed, and says so)")
    p.add_argument("--attempts", type=int, default=8,
                   help="reads before giving up on a changing tree "
                   "(default %(default)s)")


def add_arguments(sub) -> None:
    """Add the ``kernel`` and ``verify`` subcommands to *sub*."""
    p = sub.add_parser(
        "kernel", help="read a tree from kernel memory (drgn): dump it, "
        "or --check it (exit 1 on a violation, 3 if it kept changing)",
        description="Walk a red-black tree in the running kernel (drgn over "
        "/proc/kcore) or in a crash dump, through child pointers only, and "
        "print it in the dump format (or check it with --check).  Give a "
        "--preset, or the root expression, entry type, rb_node member and "
        "key expression.")
    p.add_argument("--preset", choices=sorted(PRESET_NAMES),
                   help="a known tree (several trees for cfs, hrtimer, "
                   "inspector: pick one with --tree)")
    p.add_argument("--tree", metavar="NAME",
                   help="which of the preset's trees (see --list)")
    p.add_argument("--path", help="kernfs preset: the sysfs directory "
                   "(default /)")
    p.add_argument("--root", dest="root_expr", metavar="EXPR",
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
                   help="its recomputation: size, max:EXPR or sum:EXPR, "
                   "e.g. max:e.va_end-e.va_start")
    p.add_argument("--dup", action="store_true",
                   help="equal keys are legal")
    p.add_argument("--name", help="tree name in the dump")
    p.add_argument("--list", action="store_true",
                   help="list the preset's trees")
    p.add_argument("--check", action="store_true",
                   help="check instead of dumping")
    p.add_argument("--out", metavar="DIR",
                   help="write every tree's dump to DIR/NAME.dump")
    p.add_argument("--addresses", metavar="FILE",
                   help="write 'ID ADDRESS' lines ('-': stderr)")
    p.add_argument("--times", action="store_true",
                   help="print where the time went on stderr")
    _common(p)
    p.set_defaults(func=_run)
    p = sub.add_parser(
        "verify", help="compare each inspector tree's debugfs dump with "
        "the tree read from memory (exit 1 on a difference)",
        description="For each inspector tree, compare its debugfs dump "
        "node by node (id, key, colour, links, aug, caches) with the same "
        "tree read from kernel memory; exit 1 on any difference.")
    p.add_argument("trees", nargs="*", metavar="TREE")
    _common(p)
    p.set_defaults(func=_run)
