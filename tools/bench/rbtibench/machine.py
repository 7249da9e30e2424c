# SPDX-License-Identifier: GPL-2.0
"""What a benchmark ran on, and how big each variant's code is."""
from __future__ import annotations

import os
import platform
import re
import subprocess
from pathlib import Path

# Per variant and operation, the noinline function of kmod/bench/bench_core.c.
SIZED_OPS = ("insert", "find", "greater")
# The shared out-of-line functions the ovs_ool variant calls.
OOL_FUNCTIONS = {"insert": "rb_insert_allow_dup", "find": "rb_search",
                 "greater": "rb_greater"}


def cpu_model(cpuinfo: str = "/proc/cpuinfo") -> str:
    """The CPU's model name, or the machine type if /proc/cpuinfo has none."""
    try:
        for line in Path(cpuinfo).read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.machine()


def environment() -> dict[str, str]:
    """Facts about the machine this process runs on."""
    return {
        "cpu": cpu_model(),
        "cpus": str(os.cpu_count()),
        "kernel": platform.release(),
        "kernel_version": Path("/proc/version").read_text().strip()
        if Path("/proc/version").exists() else "",
    }


def text_sizes(obj: Path, variants: list[str]) -> dict[tuple[str, str], int]:
    """Size in bytes of each variant's insert, find and greater function.

    Read with ``nm --print-size`` from a binary or module; GCC may have
    renamed a function into a clone (``.isra.0``, ``.constprop.0``): the
    clone counts.  The out-of-line Overstreet functions are listed under the
    pseudo-variant ``ovs_ool_lib`` when present in @obj.
    """
    out = subprocess.run(["nm", "--print-size", "--radix=d", str(obj)],
                         check=True, capture_output=True, text=True).stdout
    sizes: dict[str, int] = {}
    for line in out.splitlines():
        fields = line.split()
        if len(fields) == 4 and fields[2] in "tT":
            name = re.sub(r"\..*$", "", fields[3])
            sizes[name] = sizes.get(name, 0) + int(fields[1])
    found = {}
    for variant in variants:
        for op in SIZED_OPS:
            size = sizes.get(f"bench_{variant}_{op}")
            if size is not None:
                found[(variant, op)] = size
    for op, name in OOL_FUNCTIONS.items():
        if name in sizes:
            found[("ovs_ool_lib", op)] = sizes[name]
    return found


def kbuild_flags(cmd_file: Path) -> str:
    """Code-generation flags (-O, -f, -m) from a kbuild .o.cmd file."""
    try:
        text = cmd_file.read_text()
    except OSError:
        return "unknown"
    first = text.split("\n", 1)[0]
    flags = [w for w in first.split() if re.match(r"-(O\w*|f[\w=-]+|m[\w=-]+)$", w)]
    return " ".join(dict.fromkeys(flags))
