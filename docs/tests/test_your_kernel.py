# SPDX-License-Identifier: GPL-2.0
"""docs/your-kernel.md's recipes that run on the host: `make -C kmod
KDIR=...` runs the kernel's external-module build at kmod/ (the build
qemu/build-module runs against every kernel make test boots), and the
flipbook of saved dumps (its console block runs in test_docs)."""
from __future__ import annotations

import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "your-kernel.md"


def test_the_page_shows_each_recipe():
    text = PAGE.read_text(encoding="utf-8")
    for recipe in ("make -C kmod KDIR=", "vng --run", "--preset free_vmap_area --check",
                   "--core VMCORE", "viz/walkthrough --dumps",
                   "pip install --no-index --no-build-isolation .", "rbti doctor --json"):
        assert recipe in text, recipe


def test_kmod_makefile_runs_the_kernel_s_external_module_build():
    out = subprocess.run(["make", "-n", "-C", "kmod", "KDIR=/path/to/build"], cwd=REPO,
                         capture_output=True, text=True, timeout=60).stdout
    # (make -n still runs the recursive make, which finds no /path/to/build.)
    assert f"make -C /path/to/build M={REPO / 'kmod'} modules" in out
    out = subprocess.run(["make", "-n", "-C", "kmod", "KDIR=/path/to/build", "clean"],
                         cwd=REPO, capture_output=True, text=True, timeout=60).stdout
    assert f"make -C /path/to/build M={REPO / 'kmod'} clean" in out
