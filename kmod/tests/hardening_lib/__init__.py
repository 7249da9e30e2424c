# SPDX-License-Identifier: GPL-2.0
"""Guest-side hardening suite for rbtree_inspector.ko (kmod/HARDENING.md).

Modules: :mod:`tap` (result lines), :mod:`kernel` (module load/unload,
parameters, kmemleak, fault injection), :mod:`files` (single write(2)s
with their errno, tree snapshots), :mod:`forms` (plain keys or KEY VALUE
pairs, by the tree), :mod:`procs` (forked helpers), and
one module per area:
:mod:`badinput` (with :mod:`badinput_limits`), :mod:`perms`, :mod:`concurrency`, :mod:`memory`,
:mod:`lifecycle`.  Tree access goes through tools/rbtilib (driver, dump
parser, checker, model); nothing here re-implements them.
"""
