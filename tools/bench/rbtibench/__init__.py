# SPDX-License-Identifier: GPL-2.0
"""Collect and report the rbtree API benchmark (kmod/bench/).

Modules: :mod:`results` (parse the benchmark's output, per-cell statistics,
agreement of the variants), :mod:`report` (stdout table, CSV, markdown,
plot), :mod:`machine` (what the numbers were measured on, and the .text
size of each variant's functions).
"""
