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
