# SPDX-License-Identifier: GPL-2.0
"""Helpers of the host tests of rbtilib and rbtiviz; not shipped with
rbtilib (the guest runs rbtilib, never these).

:mod:`.trees` (a textbook red-black tree, corrupted trees, loading a
script as a module), :mod:`.fake` (a fake debugfs on top of them),
:mod:`.shared` (what several test modules use: the fuzz configuration, a
fault for the fake module) and :mod:`.dumps` (sample dumps of the
renderer's tests).
"""
