# SPDX-License-Identifier: GPL-2.0
"""Collect and report the rbtree API benchmark (kmod/bench/).

Modules: :mod:`results` (parse the benchmark's output, agreement of the
variants), :mod:`stats` (paired ratios, bootstrap intervals, noise floor),
:mod:`counts` (valgrind counts per operation), :mod:`code` (entry points,
clones, identical code, .text sizes, from nm and objdump), :mod:`report`
(markdown, CSV, plots, README tables), :mod:`machine` (what the numbers were
measured on, and which mitigation profile a Debian 6.1 kernel would use),
:mod:`proc` (every program it runs, under a time limit).
"""
