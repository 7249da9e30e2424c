# SPDX-License-Identifier: GPL-2.0
"""``rbti doctor`` (the probes are :mod:`rbtilib.doctor`)."""

from .common import add_json, print_json


def _run(args, driver=None) -> int:
    from .. import doctor
    host = doctor.Host(kcore=args.kcore, vmlinux=args.vmlinux, debugfs=args.root)
    checks = doctor.examine(host)
    body = doctor.document(host, checks)
    if args.json:
        print_json("doctor", body)
    else:
        print(doctor.report(host, checks), end="")
    return 0 if body["ok"] else 1


def add_doctor(sub) -> None:
    """Add the ``doctor`` subcommand to *sub*."""
    p = sub.add_parser(
        "doctor", help="say what rbti can do on this machine and why not, "
        "each missing piece with its fix (exit 1 if the census cannot run)",
        description="Look at what rbti needs here: drgn and its version, "
        "root, lockdown, /proc/kcore, the running kernel's debug info "
        "(where rbti census looks: --vmlinux, $RBTI_KBUILD, then drgn's "
        "places), the rbtree_inspector module and its debug info "
        "($RBTI_KMOD, then /lib/modules/RELEASE), debugfs.  Prints a line per check (ok, FAIL: the "
        "census cannot run, warn: something else cannot) with the fix, then "
        "what works: the census and rbti kernel, the module's trees, rbti "
        "verify.  Reads files only; changes nothing.",
        epilog="""exit status:
  0  everything the live census needs is there (rbti census, rbti kernel)
  1  something it needs is missing (a FAIL line says what, and the fix)
  2  a usage error

examples:
  sudo rbti doctor
  rbti doctor --json
  sudo rbti doctor --vmlinux /usr/lib/debug/boot/vmlinux-$(uname -r)
""")
    p.add_argument("--vmlinux", metavar="FILE",
                   help="the kernel's debug info to check, as rbti census "
                   "--vmlinux (default: looked for as rbti census does)")
    p.add_argument("--kcore", default="/proc/kcore", metavar="FILE",
                   help="live kernel memory (default %(default)s)")
    add_json(p, "the checks")
    p.set_defaults(func=_run, needs_debugfs=lambda args: False)
