# SPDX-License-Identifier: GPL-2.0
"""Which vmcore format a ``--core`` file is, and whether drgn reads it.

drgn reads an ELF core itself, and a kdump-compressed file (what
makedumpfile, and so most distributions' kdump, write: the ``KDUMP   ``
signature, its pages compressed with zlib, lzo, snappy or zstd) through
libkdumpfile where drgn was built with it (Debian's python3-drgn is).
makedumpfile's flattened format (``makedumpfile -F``, written to a pipe)
and the old diskdump format are other files again.

drgn 0.0.22 with libkdumpfile 0.5.1 kills its process (SIGSEGV in
``kdump_free``) on a kdump file that libkdumpfile refuses, a block size
of 0 for one.  So a file that is not ELF is checked here (a kdump
header's sizes, its VMCOREINFO) and then opened once by drgn in a child
process (:func:`probe`): a refusal or a crash there becomes an error
naming the file the user gave, never a dead rbti.
"""

import os
import struct
import subprocess
import sys

from . import KernelError

KDUMP_MAGIC = b"KDUMP   "
FLAT_MAGIC = b"makedumpfile\0"
DISKDUMP_MAGIC = b"diskdump"
ELF_MAGIC = b"\x7fELF"

HEADER_SIZE = 464
"""struct disk_dump_header (makedumpfile's diskdump_mod.h) on a 64-bit
machine: signature[8], header_version, new_utsname (6 x 65 bytes), a
timeval, then status, block_size, sub_hdr_size, bitmap_blocks, ..."""

COMPRESSION = {0x1: "zlib", 0x2: "lzo", 0x4: "snappy", 0x20: "zstd"}
"""The status bits naming how the pages are compressed."""
INCOMPLETE = 0x8
"""makedumpfile ran out of space: the pages after some point are lost."""

MAX_VMCOREINFO = 1 << 20


def sniff(path: str, name: str | None = None) -> str:
    """``elf``, ``kdump``, ``flat`` (makedumpfile -F), ``diskdump`` or
    ``other``: what the first bytes of *path* say it is."""
    try:
        with open(path, "rb") as f:
            head = f.read(16)
    except OSError as e:
        raise KernelError(f"{name or path}: {e.strerror}") from None
    for magic, kind in ((ELF_MAGIC, "elf"), (KDUMP_MAGIC, "kdump"),
                        (FLAT_MAGIC, "flat"), (DISKDUMP_MAGIC, "diskdump")):
        if head.startswith(magic):
            return kind
    return "other"


def parse_vmcoreinfo(text: bytes) -> dict:
    """VMCOREINFO's ``KEY=VALUE`` lines as a dict."""
    return dict(line.split("=", 1) for line in text.decode(
        "ascii", "replace").split("\n") if "=" in line)


def kdump_header(path: str, name: str | None = None) -> dict:
    """What rbti needs of a kdump-compressed file's headers, checked
    against the file's size: ``release``, ``compression`` (a name, or
    ``none``), ``dump_level``, ``incomplete`` and ``vmcoreinfo`` (a
    dict).  A KernelError naming *name* (default *path*) for a header
    that no kdump file has, a file cut before its pages end, one part of
    a split dump, or a file without VMCOREINFO (drgn cannot read the
    kernel without it)."""
    name = name or path
    with open(path, "rb") as f:
        size = f.seek(0, os.SEEK_END)
        f.seek(0)
        head = f.read(HEADER_SIZE)
        if len(head) < HEADER_SIZE or not head.startswith(KDUMP_MAGIC):
            raise KernelError(f"{name}: a kdump-compressed header cut short "
                              f"({len(head)} bytes)")
        version, = struct.unpack_from("<i", head, 8)
        release = head[12 + 2 * 65:12 + 3 * 65].split(b"\0")[0].decode(
            "ascii", "replace")
        status, block, sub_blocks, bitmap_blocks = struct.unpack_from(
            "<IiiI", head, 424)
        if version < 1 or block < 512 or block > 1 << 20 or \
                block & (block - 1) or sub_blocks < 1 or bitmap_blocks < 1:
            raise KernelError(
                f"{name}: not a kdump-compressed file drgn can read (header "
                f"version {version}, block size {block}, {sub_blocks} "
                f"sub-header and {bitmap_blocks} bitmap blocks)")
        need = (1 + sub_blocks + bitmap_blocks) * block
        if size < need:
            raise KernelError(f"{name}: a kdump-compressed file cut short: "
                              f"its headers and bitmaps take {need} bytes, "
                              f"the file has {size}")
        f.seek(block)
        sub = f.read(min(sub_blocks * block, 4096))
        if version >= 2 and len(sub) >= 16 and \
                struct.unpack_from("<i", sub, 12)[0]:
            raise KernelError(
                f"{name}: one part of a split dump (makedumpfile --split), "
                "which drgn reads only whole: reassemble the parts with "
                "'makedumpfile --reassemble PART... NEWFILE'")
        end = _pages_end(f, block, sub_blocks, bitmap_blocks)
        if end is not None and size < end:
            raise KernelError(f"{name}: a kdump-compressed file cut short: "
                              f"its pages end at byte {end}, the file has "
                              f"{size} (copied before it was complete?)")
        info = None
        if version >= 3 and len(sub) >= 48:
            off, length = struct.unpack_from("<qQ", sub, 32)
            if 0 < length <= MAX_VMCOREINFO and 0 < off <= size - length:
                f.seek(off)
                info = parse_vmcoreinfo(f.read(length))
        if not info or "OSRELEASE" not in info:
            raise KernelError(
                f"{name}: a kdump-compressed file without VMCOREINFO, which "
                "drgn needs to read a kernel: one made of a core without "
                "the note (QEMU's dump-guest-memory of a guest that did not "
                "publish it, which needs CONFIG_FW_CFG_SYSFS in the guest "
                "kernel and QEMU's -device vmcoreinfo; makedumpfile of such "
                "an ELF core, even with -x VMLINUX); rbti reads QEMU's ELF "
                "dump of such a guest itself")
    dump_level = struct.unpack_from("<i", sub, 8)[0] if len(sub) >= 12 \
        else None
    return {"release": info.get("OSRELEASE", release),
            "uts_sane": uts_looks_sane(head),
            "compression": next((n for bit, n in COMPRESSION.items()
                                 if status & bit), "none"),
            "dump_level": dump_level,
            "incomplete": bool(status & INCOMPLETE), "vmcoreinfo": info}


UTS = 12
"""Where the header's struct new_utsname starts: sysname, nodename,
release, version, machine and domainname, 65 bytes each."""
UTS_LEN = 65


def uts_looks_sane(head: bytes) -> bool:
    """Whether libkdumpfile takes the kdump header *head*'s utsname, and
    so the architecture (its machine): each field NUL-terminated, release,
    version and machine set, sysname ``Linux`` (uts_looks_sane() of its
    util.c).  QEMU's dump-guest-memory (7.2) writes the machine alone:
    libkdumpfile 0.5.1 then knows no architecture and refuses the file
    ("KDUMP_ATTR_ARCH_NAME: Key has no value")."""
    f = [head[UTS + i * UTS_LEN:UTS + (i + 1) * UTS_LEN] for i in range(6)]
    return all(x[-1:] == b"\0" for x in f[:5]) and \
        all(f[i][:1] not in (b"", b"\0") for i in (2, 3, 4)) and \
        f[0].split(b"\0")[0] == b"Linux"


UTS_VERSION = b"(not in the dump's header)"


def uts_copy(path: str, header: dict) -> str:
    """A copy of the kdump file *path* in $TMPDIR whose header's utsname
    libkdumpfile takes (:func:`uts_looks_sane`): sysname ``Linux``, the
    release from its VMCOREINFO, a version saying it was not there, the
    machine kept (``x86_64`` where it is empty).  The caller removes it."""
    import shutil
    import tempfile
    fd, copy = tempfile.mkstemp(prefix="rbti-", suffix=".kdump")
    os.close(fd)
    try:
        shutil.copyfile(path, copy)
        with open(copy, "r+b") as f:
            head = bytearray(f.read(HEADER_SIZE))
            machine = head[UTS + 4 * UTS_LEN:UTS + 5 * UTS_LEN].split(
                b"\0")[0] or b"x86_64"
            for i, value in ((0, b"Linux"),
                             (2, header["release"].encode()[:UTS_LEN - 1]),
                             (3, UTS_VERSION), (4, machine[:UTS_LEN - 1])):
                at = UTS + i * UTS_LEN
                head[at:at + UTS_LEN] = value.ljust(UTS_LEN, b"\0")
            f.seek(0)
            f.write(head)
        return copy
    except BaseException:
        os.unlink(copy)
        raise


PAGE_DESC = struct.Struct("<qIIQ")
"""struct page_desc: offset of the page's data, its size, flags, the
page's flags."""
MAX_BITMAP = 1 << 27
"""Bitmaps larger than this (a machine of 4 TiB) are not counted."""


def _pages_end(f, block: int, sub_blocks: int, bitmap_blocks: int):
    """Where the last page's data of a kdump-compressed file ends: one
    descriptor a page dumped (a bit set in the second bitmap), the data
    in page order after them, all zero pages sharing the first data.
    None where the bitmaps are too large to count or no page is dumped."""
    half = bitmap_blocks * block // 2
    if half > MAX_BITMAP:
        return None
    f.seek((1 + sub_blocks) * block + half)
    pages = int.from_bytes(f.read(half), "little").bit_count()
    table = (1 + sub_blocks + bitmap_blocks) * block
    if not pages:
        return None
    end = table + pages * PAGE_DESC.size
    # The last page not all zero holds the data that ends last.
    pos = end
    while pos > table and end - pos < 1 << 20:
        step = min(pos - table, 4096 * PAGE_DESC.size)
        f.seek(pos - step)
        chunk = f.read(step)
        if len(chunk) < step:
            return end                  # the descriptors themselves cut
        for i in range(step // PAGE_DESC.size - 1, -1, -1):
            off, length, _, _ = PAGE_DESC.unpack_from(chunk,
                                                      i * PAGE_DESC.size)
            if off > end:
                return off + length
        pos -= step
    return end


_PROBE = """import sys
try:
    import drgn
    drgn.Program().set_core_dump(sys.argv[1])
except Exception as e:
    print(e, file=sys.stderr)
    sys.exit(1)
"""
PROBE_SECONDS = 120


def probe(path: str) -> str | None:
    """None if drgn opens *path* as a core dump, in a child process (which
    a crash of libkdumpfile kills instead of rbti); else why not."""
    try:
        run = subprocess.run([sys.executable, "-c", _PROBE, path],
                             capture_output=True, text=True,
                             timeout=PROBE_SECONDS)
    except subprocess.TimeoutExpired:
        return f"drgn took more than {PROBE_SECONDS} s to open it"
    if run.returncode == 0:
        return None
    if run.returncode < 0:
        return f"drgn crashed opening it (signal {-run.returncode})"
    lines = run.stderr.strip().splitlines()
    return lines[-1] if lines else f"drgn exited with {run.returncode}"


def check_core(path: str, drgn, name: str | None = None) -> tuple:
    """``(format, kdump header or None)`` of the core dump *path* if drgn
    (the module *drgn*) reads it; else a KernelError naming *name*
    (default *path*: the file the user gave) that says what the file is
    and what to do with it.  A kdump file whose header's utsname
    libkdumpfile does not take (QEMU's) and that drgn reads only so is
    read through a copy with it filled (:func:`uts_copy`): the header's
    ``copy``, which the caller removes."""
    name = name or path
    kind = sniff(path, name)
    if kind == "elf":
        return kind, None
    version = getattr(drgn, "__version__", "?")
    header = kdump_header(path, name) if kind == "kdump" else None
    if kind == "kdump" and not getattr(drgn, "_with_libkdumpfile", True):
        raise KernelError(
            f"{name}: a kdump-compressed file, and this drgn ({version}) was "
            "built without libkdumpfile, which reads them (Debian's "
            "python3-drgn has it)")
    why = probe(path)
    if why is None:
        return kind, header
    if kind == "kdump" and not header["uts_sane"]:
        copy = uts_copy(path, header)
        if probe(copy) is None:
            return kind, dict(header, copy=copy)
        os.unlink(copy)
    if kind == "kdump":
        raise KernelError(f"{name}: a kdump-compressed file ("
                          f"{header['compression']}) drgn {version} cannot "
                          f"open: {why}")
    if kind == "flat":
        raise KernelError(
            f"{name}: makedumpfile's flattened format (makedumpfile -F), "
            f"which drgn {version} cannot read: reassemble it with "
            f"'makedumpfile -R NEWFILE < {name}' and give NEWFILE to --core")
    if kind == "diskdump":
        raise KernelError(f"{name}: the old diskdump format, which drgn "
                          f"{version} cannot read")
    raise KernelError(f"{name}: not a core dump drgn reads (ELF, or "
                      "kdump-compressed as makedumpfile writes it)")
