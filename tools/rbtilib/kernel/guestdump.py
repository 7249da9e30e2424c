# SPDX-License-Identifier: GPL-2.0
"""The guest's side of a memory dump (qemu/run-in-guest --dump-memory),
shared by the vmcore suite and the census proof: the inspector's trees
filled the same way, the files the host needs named, and the dump asked
for and waited on."""

import json
import os
import random
import time

DUMP_WAIT = 600
"""Seconds the guest waits for the host's answer."""


def fill(driver, info) -> None:
    """Fill *info*'s tree with the same 300 keys each time (50 repeated
    on a dup tree; on a value tree a VALUE, an interval's LAST, >= its
    START)."""
    driver.clear(info.name)
    keys = random.Random(11).sample(range(3000), 300)
    if info.dup:
        keys += keys[:50]
    driver.insert(info.name, keys,
                  [k + k % 7 for k in keys] if info.valued else None)


FW_CFG = "/sys/firmware/qemu_fw_cfg"
FW_CFG_VMCOREINFO = "by_name/etc/vmcoreinfo/raw"


def fw_cfg_vmcoreinfo(root: str = FW_CFG) -> dict:
    """What this kernel told QEMU's vmcoreinfo device, which QEMU's
    dump-guest-memory reads to write the kernel's VMCOREINFO into its
    dumps: fw_cfg's ``etc/vmcoreinfo`` (struct fw_cfg_vmcoreinfo:
    host_format, guest_format, size and paddr, little-endian) as a dict,
    or ``{"error": why not}``."""
    import struct
    if not os.path.isdir(root):
        return {"error": f"no {root}: the kernel has no fw_cfg driver "
                "(CONFIG_FW_CFG_SYSFS)"}
    path = os.path.join(root, FW_CFG_VMCOREINFO)
    if not os.path.exists(path):
        return {"error": "fw_cfg has no etc/vmcoreinfo: QEMU was not given "
                "-device vmcoreinfo"}
    with open(path, "rb") as f:
        raw = f.read(16)
    if len(raw) < 16:
        return {"error": f"{path}: {len(raw)} bytes, not 16"}
    host, guest, size, paddr = struct.unpack("<HHIQ", raw)
    if not guest:
        return {"error": "the kernel wrote no note's address to "
                "etc/vmcoreinfo (no CONFIG_CRASH_CORE, or VMCORE_INFO "
                "from 6.9 on, where the driver writes it)"}
    return {"host_format": host, "guest_format": guest, "size": size,
            "paddr": paddr}


def write_paths(path: str, **extra) -> None:
    """guest.json at *path*: the vmlinux and module the host reads the
    dump with ($RBTI_KBUILD, $RBTI_KMOD), what the kernel told QEMU's
    vmcoreinfo device (:func:`fw_cfg_vmcoreinfo`), and *extra*."""
    with open(path, "w") as f:
        json.dump({**extra, "fw_cfg_vmcoreinfo": fw_cfg_vmcoreinfo(),
                   "vmlinux": os.path.join(os.environ["RBTI_KBUILD"],
                                           "vmlinux"),
                   "ko": os.path.join(os.environ["RBTI_KMOD"],
                                      "rbtree_inspector.ko")}, f)


def can_ask() -> bool:
    """Whether run-in-guest was given --dump-memory."""
    return bool(os.environ.get("RBTI_DUMP_REQUEST") and
                os.environ.get("RBTI_DUMP_DONE"))


def ask(timeout: float = DUMP_WAIT) -> str:
    """Ask the host for the dump and wait for its answer ("ok", or why
    not); the guest's trees stay as they are while QEMU writes it."""
    request, done = os.environ["RBTI_DUMP_REQUEST"], os.environ[
        "RBTI_DUMP_DONE"]
    with open(request, "w") as f:
        f.write("now\n")
    t0 = time.monotonic()
    while not os.path.exists(done) and time.monotonic() - t0 < timeout:
        time.sleep(0.5)
    answer = open(done).read().strip() if os.path.exists(done) else \
        f"no answer in {timeout:.0f} s"
    print(f"# host's dump: {answer} after {time.monotonic() - t0:.1f}s")
    return answer
