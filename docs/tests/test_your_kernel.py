# SPDX-License-Identifier: GPL-2.0
"""docs/your-kernel.md's recipes that run on the host: `kmod/` built with
`make -C kmod KDIR=...` (the real build against make test's own debug
kernel build, RBTI_KBUILD, or the cache's newest build or stock headers), and the
flipbook of saved dumps (its console block runs in test_docs)."""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "your-kernel.md"


def test_the_page_shows_each_recipe():
    text = PAGE.read_text(encoding="utf-8")
    for recipe in ("make -C kmod KDIR=", "vng --run", "--preset free_vmap_area --check",
                   "--core VMCORE", "viz/walkthrough --dumps"):
        assert recipe in text, recipe


def test_kmod_makefile_runs_the_kernel_s_external_module_build():
    out = subprocess.run(["make", "-n", "-C", "kmod", "KDIR=/path/to/build"], cwd=REPO,
                         capture_output=True, text=True, timeout=60).stdout
    # (make -n still runs the recursive make, which finds no /path/to/build.)
    assert f"make -C /path/to/build M={REPO / 'kmod'} modules" in out
    out = subprocess.run(["make", "-n", "-C", "kmod", "KDIR=/path/to/build", "clean"],
                         cwd=REPO, capture_output=True, text=True, timeout=60).stdout
    assert f"make -C /path/to/build M={REPO / 'kmod'} clean" in out


def finished_build() -> Path | None:
    """make test's debug kernel build (RBTI_KBUILD, which qemu/test-all
    builds before any suite runs), else the newest finished one of the
    cache."""
    if os.environ.get("RBTI_KBUILD"):
        return Path(os.environ["RBTI_KBUILD"])
    cache = Path(os.environ.get("RBTI_CACHE") or
                 Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
                 / "rbtree-inspector")
    builds = sorted(cache.glob("build-*-debug-*/.rbti-done"),
                    key=lambda p: p.stat().st_mtime)
    if builds:
        return builds[-1].parent
    # Debian's headers of a stock kernel (qemu/stock-kernel), as make run
    # builds against them.
    stock = sorted(cache.glob("stock-*/headers/Makefile"))
    return stock[-1].parent if stock else None


def test_kmod_builds_against_a_kernel_build_with_kdir(tmp_path):
    build = finished_build()
    if build is None:
        # Never under make test: it builds RBTI_KBUILD first.
        pytest.skip("no finished debug kernel build in the cache")  # never in make test
    copy = tmp_path / "kmod"
    # All of it: kmod/Kbuild builds bench/ too.
    shutil.copytree(REPO / "kmod", copy, ignore=shutil.ignore_patterns(
        "*.o", "*.ko", ".*.cmd", "*.mod", "*.mod.c", "Module.symvers", "modules.order"))
    r = subprocess.run(["make", "-C", str(copy), f"KDIR={build}", "-j2"],
                       capture_output=True, text=True, timeout=280)
    assert r.returncode == 0, r.stdout[-2000:] + r.stderr[-2000:]
    assert (copy / "rbtree_inspector.ko").stat().st_size > 0
