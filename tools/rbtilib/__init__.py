# SPDX-License-Identifier: GPL-2.0
"""Client library for the rbtree_inspector debugfs interface.

Modules: :mod:`dump` (parse the ``dump`` file), :mod:`checker` (the one
invariant checker), :mod:`model` (reference model), :mod:`driver` (debugfs
access), :mod:`fuzz` (model-based fuzzer), :mod:`shrink` (delta debugging)
and :mod:`testing` (a pure-Python red-black tree, for tests only).
"""
