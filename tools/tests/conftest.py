# SPDX-License-Identifier: GPL-2.0
"""pytest setup: make ``rbtilib`` and ``tests_support`` importable from
tools/."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
