# SPDX-License-Identifier: GPL-2.0
"""pytest setup for viz/: make rbtiviz (viz/), rbtilib and tests_support
(tools/) importable, as viz/render does for rbtilib."""
import sys
from pathlib import Path

_TOOLS = str(Path(__file__).resolve().parent.parent / "tools")
_VIZ = str(Path(__file__).resolve().parent)
for _dir in (_TOOLS, _VIZ):
    if _dir not in sys.path:
        sys.path.insert(0, _dir)
