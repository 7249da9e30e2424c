# SPDX-License-Identifier: GPL-2.0
"""The installed commands (pyproject.toml's entry points): ``rbti``,
``rbti-render`` and ``rbti-walkthrough``.

In the checkout tools/rbti, viz/render and viz/walkthrough are the same
commands.  ``rbti`` lives here, not in rbtilib, because it is where
rbtilib and rbtiviz meet, as tools/rbti is in the checkout: it hands the
fuzzer rbtiviz's flipbook and snapshot writers (rbtilib never imports
rbtiviz).  Each function returns the exit status; the console-script
wrapper pip writes passes it to ``sys.exit``.
"""
from __future__ import annotations

import sys


def _fuzz_writers():
    """rbtiviz's writers for ``rbti fuzz``, imported when it asks."""
    from .writers import fuzz_writers
    return fuzz_writers()


def rbti() -> int:
    """``rbti``: rbtilib's command line, with rbtiviz's fuzz writers."""
    from rbtilib.cli import main
    return main(fuzz_writers=_fuzz_writers)


def render() -> int:
    """``rbti-render``: viz/render installed."""
    from .render_cli import INSTALLED, main
    return main(sys.argv[1:], prog=INSTALLED)


def walkthrough() -> int:
    """``rbti-walkthrough``: viz/walkthrough installed."""
    from .walkthrough import main
    return main(sys.argv[1:], prog="rbti-walkthrough")
