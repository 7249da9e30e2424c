# SPDX-License-Identifier: GPL-2.0
"""The census's C core, built by ``pip install .`` beside pyproject.toml.

setuptools 66 (Debian 12's) reads no ext-modules from pyproject.toml, so
the one extension is declared here, and setuptools runs both files.  It
is a plain shared library that rbti loads with ctypes
(rbtilib/kernel/ccore_lib.py finds ``rbtilib/kernel/_rbti_cc*.so``), not a
CPython module: nothing imports it.  ``optional``: without a compiler the
install goes on, and rbti census checks in Python (or builds the library
at first use, from the sources installed as package data).
"""

from setuptools import Extension, setup

CCORE = "tools/rbtilib/kernel/ccore"
SOURCES = ("rbti_cc_mem.c", "rbti_cc_tree.c", "rbti_cc_check.c",
           "rbti_cc_batch.c")
"""As rbtilib.kernel.ccore_lib.SOURCES (a test keeps them the same)."""

setup(ext_modules=[Extension(
    "rbtilib.kernel._rbti_cc",
    sources=[f"{CCORE}/{name}" for name in SOURCES],
    depends=[f"{CCORE}/rbti_cc.h", f"{CCORE}/rbti_cc_int.h"],
    extra_compile_args=["-std=gnu11", "-Wall", "-Wextra"],
    optional=True)])
