# SPDX-License-Identifier: GPL-2.0
"""drgn itself, imported on first use (:func:`load_drgn`), for every
module of the package that talks to it."""

import sys

from . import KernelError


def load_drgn():
    """The drgn module; KernelError naming the package if there is none."""
    if sys.flags.no_site and "drgn" not in sys.modules:
        # rbti runs as ``python3 -S`` (its start-up in the debug guest
        # skips the .pth files of unrelated packages); drgn lives in
        # dist-packages, which only the site module puts on sys.path.
        import site
        site.main()
    try:
        import drgn
    except ImportError:
        raise KernelError(
            "drgn is not installed (Debian, Ubuntu: apt-get install "
            "python3-drgn, which a venv sees if made with "
            "--system-site-packages; elsewhere: pip install drgn)") from None
    return drgn


# --- drgn's versions ------------------------------------------------------
#
# rbti runs on Debian 12's python3-drgn 0.0.22 and Debian 13's 0.0.31 (make
# soak's drgn-versions row checks both on one dump). Where they differ, the
# workaround is named here and the code that needs it says so; each is
# tested both ways (tools/tests/test_drgn_versions.py).

MODULE_API = (0, 0, 31)
"""drgn 0.0.31's module API (``Program.main_module()``, ``Module``) and the
``load_debug_info()`` rebuilt on it: a missing vmlinux raises
MissingDebugInfoError("missing some debugging symbols; see URL"), the same
as a missing module's file does, and only a logged warning says which
("missing debugging symbols for kernel RELEASE"); 0.0.22's exception
named them ("kernel (could not find vmlinux for RELEASE)").  rbti asks
the program whether the kernel has its debug file where the API is
(:func:`~.debuginfo.kernel_info_missing`), else reads the message.  The
same version matches a .ko given to ``load_debug_info()`` to a loaded
module by its build id and ignores it (a warning) if none has it."""

FLATTENED = "flat"
"""(kdump.sniff's name of it) makedumpfile's flattened format
(``makedumpfile -F``) is read by the
libkdumpfile of Debian 13's drgn 0.0.31 (libkdumpfile 0.5.4; drgn warns
naming ``makedumpfile -R``), not by Debian 12's (0.5.1, under drgn 0.0.22):
the version that matters is libkdumpfile's, which drgn does not give, so
rbti learns it from its probe (kdump.probe, which opens the file in a
child).  Where drgn cannot read the file rbti refuses it naming
``makedumpfile -R``; where it can, rbti reads it and says that the file
has no kdump header (no VMCOREINFO for rbti to find the vmlinux by) and
that ``makedumpfile -R`` makes one (:func:`~.debuginfo.open_program`)."""


def version(drgn=None) -> tuple:
    """drgn's version as numbers ((0, 0, 22)); () where it has none."""
    drgn = load_drgn() if drgn is None else drgn
    import re
    out = []
    for part in str(getattr(drgn, "__version__", "")).split("."):
        digits = re.match(r"[0-9]+", part)
        if not digits:
            break
        out.append(int(digits.group()))
        if digits.end() < len(part):
            break           # 0.1.0rc1, 0.0.31+unknown: no more numbers
    return tuple(out)


def has_module_api(prog) -> bool:
    """True if the drgn of *prog* has the module API (:data:`MODULE_API`):
    asked of the program, not of the version number."""
    return callable(getattr(prog, "main_module", None))
