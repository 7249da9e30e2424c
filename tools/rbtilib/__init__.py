# SPDX-License-Identifier: GPL-2.0
"""Client library for the rbtree_inspector debugfs interface.

Modules: :mod:`dump` (parse the ``dump`` file), :mod:`record` (the
record classes), :mod:`shape` (the one shape walk), :mod:`checker` (the
one invariant checker), :mod:`model` (reference model), :mod:`driver`
(debugfs access), :mod:`opstream` (the fuzzer's op stream),
:mod:`treerun` (one tree's replies checked against the model),
:mod:`fuzz` (model-based fuzzer), :mod:`shrink` (the shrinker and repro
files), :mod:`show` (``rbti show``), :mod:`cli` (the other subcommands)
and :mod:`kernel` (trees read from kernel memory).  The host tests'
helpers live apart, in tools/tests_support.
"""

RELEASE = "1.2"
"""The release of rbti and viz (``--version``)."""
DUMP_FORMAT = 1
"""The dump format they read (kmod/DEBUGFS.md, "format 1")."""
