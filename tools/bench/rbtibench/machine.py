# SPDX-License-Identifier: GPL-2.0
"""What a benchmark ran on, and which mitigations its kernel would use."""
from __future__ import annotations

import os
import platform
from pathlib import Path



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


VULN_DIR = Path("/sys/devices/system/cpu/vulnerabilities")
# Families the Debian 6.1 kernel's cpu_vuln_blacklist marks SRSO-affected
# (arch/x86/kernel/cpu/common.c: AMD 0x17 and 0x19, Hygon 0x18).
SRSO_FAMILIES = {0x17, 0x18, 0x19}


def vulnerabilities(base: Path = VULN_DIR) -> dict[str, str]:
    """The kernel's own report, /sys/devices/system/cpu/vulnerabilities/*."""
    try:
        return {p.name: p.read_text().strip() for p in sorted(base.iterdir())}
    except OSError:
        return {}


def cpu_family(cpuinfo: str = "/proc/cpuinfo") -> tuple[str, int | None]:
    """(vendor, family) from /proc/cpuinfo."""
    vendor, family = "", None
    try:
        for line in Path(cpuinfo).read_text().splitlines():
            key, _, value = line.partition(":")
            key, value = key.strip(), value.strip()
            if key == "vendor_id" and not vendor:
                vendor = value
            elif key == "cpu family" and family is None:
                family = int(value)
    except (OSError, ValueError):
        pass
    return vendor, family


def debian61_profile(vulns: dict[str, str], vendor: str, family: int | None
                     ) -> tuple[str, str]:
    """(profile, why): the benchmark profile whose thunks a Debian 6.1 kernel
    (CONFIG_RETPOLINE, CONFIG_RETHUNK, CONFIG_CPU_SRSO, default command line)
    would run on this CPU.

    Indirect branches: from the running kernel's spectre_v2 line, which 6.1
    picks the same way when the CPU offers no (automatic) enhanced IBRS
    that 6.1 knows of.  Returns: 6.1 applies SRSO safe RET only on the
    families it lists as affected, whatever a newer kernel reports.
    """
    v2 = vulns.get("spectre_v2", "")
    srso = vulns.get("spec_rstack_overflow", "")
    retbleed = vulns.get("retbleed", "")
    indirect = "Retpolines" in v2 or "retpoline" in v2.lower()
    amd = vendor in ("AuthenticAMD", "HygonGenuine")
    srso_6_1 = amd and family in SRSO_FAMILIES
    rethunk = srso_6_1 or "untrained return thunk" in retbleed
    why = (f"spectre_v2 here: '{v2 or 'unknown'}'; spec_rstack_overflow here: "
           f"'{srso or 'unknown'}'; CPU {vendor} family {family:#x}"
           if family is not None else f"spectre_v2 here: '{v2 or 'unknown'}'")
    if indirect and rethunk:
        return "rethunk", why + ": 6.1 uses retpolines and a return thunk (safe RET)"
    if indirect:
        extra = (" (6.1 lists SRSO only for families 0x17-0x19, so no return thunk)"
                 if amd and not srso_6_1 else "")
        return "retpoline", why + ": 6.1 uses retpolines, plain returns" + extra
    if rethunk:
        return "rethunk", why + ": a return thunk; indirect branches not retpolined"
    return "none", why + ": no thunks"
