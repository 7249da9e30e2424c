# SPDX-License-Identifier: GPL-2.0
"""Client library for the rbtree_inspector debugfs interface.

Modules: :mod:`dump` (parse the ``dump`` file), :mod:`checker` (the one
invariant checker), :mod:`model` (reference model), :mod:`driver` (debugfs
access), :mod:`opstream` (the fuzzer's op stream), :mod:`treerun` (one
tree's replies checked against the model), :mod:`fuzz` (model-based
fuzzer), :mod:`shrink` (the shrinker and repro files) and :mod:`testing`
(a pure-Python red-black tree, for tests only).
"""
