# SPDX-License-Identifier: GPL-2.0
"""A QEMU ``dump-guest-memory`` ELF made readable by drgn (and by
makedumpfile), and the VMCOREINFO of an ELF core."""

import os
import struct

from . import KernelError

VMCOREINFO_NAME = b"VMCOREINFO"
_PHDR = struct.Struct("<IIQQQQQQ")
PT_LOAD, PT_NOTE = 1, 4


def _elf_phdrs(f, name: str | None = None) -> tuple:
    """(e_phoff, [phdr tuples]) of the ELF64 little-endian file *f*;
    errors name the file *name* (default: *f*'s)."""
    name = name or f.name
    f.seek(0)
    head = f.read(64)
    if len(head) < 64 or head[:4] != b"\x7fELF" or head[4] != 2 or \
            head[5] != 1:
        raise KernelError(f"{name}: not an ELF64 little-endian core dump")
    phoff, = struct.unpack_from("<Q", head, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", head, 0x36)
    if phentsize != _PHDR.size:
        raise KernelError(f"{name}: not a core dump (ELF program header "
                          f"size {phentsize}, expected {_PHDR.size})")
    f.seek(phoff)
    table = f.read(phentsize * phnum)
    return phoff, [_PHDR.unpack_from(table, i * phentsize)
                   for i in range(phnum)]


def elf_notes(data: bytes):
    """(name, type, desc) of each ELF note in *data*."""
    pos = 0
    while pos + 12 <= len(data):
        namesz, descsz, ntype = struct.unpack_from("<III", data, pos)
        name_end = pos + 12 + ((namesz + 3) & ~3)
        yield (data[pos + 12:pos + 12 + namesz].rstrip(b"\0"), ntype,
               data[name_end:name_end + descsz])
        pos = name_end + ((descsz + 3) & ~3)


def _notes(data: bytes):
    """(name, desc) of each ELF note in *data*."""
    return ((name, desc) for name, _, desc in elf_notes(data))


def elf_vmcoreinfo(path: str, name: str | None = None) -> dict | None:
    """The VMCOREINFO note of the ELF core *path* (what drgn needs to
    treat it as a kernel's memory) as a dict of its lines, or None."""
    from .kdump import parse_vmcoreinfo
    with open(path, "rb") as f:
        _, phdrs = _elf_phdrs(f, name or path)
        for p_type, _, off, _, _, filesz, _, _ in phdrs:
            if p_type == PT_NOTE and filesz < 1 << 24:
                f.seek(off)
                for note, desc in _notes(f.read(filesz)):
                    if note == VMCOREINFO_NAME:
                        return parse_vmcoreinfo(desc)
    return None


def core_has_vmcoreinfo(path: str) -> bool:
    """True if the ELF core *path* carries a VMCOREINFO note."""
    return elf_vmcoreinfo(path) is not None


START_KERNEL_MAP = 0xffffffff80000000
IMAGE_VIEW = 256 << 20
"""x86-64 maps the kernel image at __START_KERNEL_map + (physical address
- phys_base); the view added covers this much from _stext, and stops
where the modules start (KERNEL_IMAGE_SIZE after __START_KERNEL_map:
512 MiB, or 1 GiB with KASLR), whose memory it must not shadow."""


def _image_segments(phdrs: list, phys_base: int, stext: int,
                    kaslr: bool) -> list:
    """PT_LOAD headers giving the kernel image's virtual addresses to the
    physical memory of *phdrs* (the same file bytes, a second view)."""
    vlo = stext & ~((2 << 20) - 1)
    vhi = min(vlo + IMAGE_VIEW, START_KERNEL_MAP + ((1 << 30) if kaslr
                                                    else (512 << 20)))
    plo, phi = (v - START_KERNEL_MAP + phys_base for v in (vlo, vhi))
    out = []
    for p_type, flags, off, _, paddr, filesz, memsz, align in phdrs:
        lo, hi = max(paddr, plo), min(paddr + filesz, phi)
        if p_type == PT_LOAD and lo < hi:
            out.append((PT_LOAD, flags, off + lo - paddr,
                        START_KERNEL_MAP + lo - phys_base, lo, hi - lo,
                        hi - lo, align))
    return out


def add_vmcoreinfo(path: str, name: str | None = None) -> int:
    """Make a QEMU ``dump-guest-memory`` ELF (paging off) readable by drgn
    as the kernel's memory.

    QEMU's ``dump-guest-memory`` writes the kernel's VMCOREINFO note only
    if the guest published it through the vmcoreinfo device, which needs
    CONFIG_FW_CFG_SYSFS (not in our guest configs).  The kernel keeps the
    note in memory anyway (crash_core.c, vmcoreinfo_note: "VMCOREINFO",
    then "OSRELEASE=..."), so it is found in the PT_LOAD data and appended
    to the file as one more PT_NOTE segment; the program header table is
    rewritten at the end of the file (e_phoff moves), no byte of memory
    moves.

    Such a dump's PT_LOAD segments carry physical addresses only (p_vaddr
    is p_paddr), and drgn 0.0.22 reads the page tables from
    ``swapper_pg_dir``, a virtual address in the kernel image, so it could
    not translate anything ("recursive address translation").  The note
    gives ``phys_base``, so the image's virtual view of the same bytes is
    added too (x86-64: __START_KERNEL_map + physical - phys_base).
    Returns the file offset where the note was found.  Errors name the
    file *name* (default *path*): the dump the user gave, of which *path*
    may be a copy."""
    import mmap
    name = name or path
    marker = VMCOREINFO_NAME + b"\0\0OSRELEASE="
    with open(path, "r+b") as f:
        phoff, phdrs = _elf_phdrs(f, name)
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as m:
            found, pos = None, m.find(marker)
            while pos >= 12 and found is None:
                namesz, descsz, ntype = struct.unpack_from("<III", m,
                                                           pos - 12)
                desc = m[pos + 12:pos + 12 + descsz]
                if namesz == len(VMCOREINFO_NAME) + 1 and ntype == 0 and \
                        descsz < 1 << 16 and b"SYMBOL(swapper_pg_dir)=" \
                        in desc:
                    found = pos - 12
                    note = bytes(m[found:pos + 12 + ((descsz + 3) & ~3)])
                else:
                    pos = m.find(marker, pos + 1)
        if found is None:
            raise KernelError(f"{name}: no VMCOREINFO note in its memory "
                              "(not a Linux guest, or a kernel without "
                              "CONFIG_CRASH_CORE)")
        info = dict(line.split("=", 1) for line in note[24:].decode(
            "ascii", "replace").split("\n") if "=" in line)
        _append(f, phdrs, note, _view_of(phdrs, info))
    return found


def _view_of(phdrs: list, info: dict) -> list:
    """The kernel image's virtual view (:func:`_image_segments`) that a
    core of *phdrs* lacks, from its VMCOREINFO *info*; [] where it has
    one or *info* does not say where the image is."""
    if "SYMBOL(_stext)" not in info or has_kernel_view(phdrs):
        return []
    return _image_segments(
        phys_base=int(info.get("NUMBER(phys_base)", "0"), 10), phdrs=phdrs,
        stext=int(info["SYMBOL(_stext)"], 16),
        kaslr=int(info.get("KERNELOFFSET", "0"), 16) != 0)


def has_kernel_view(phdrs: list) -> bool:
    """Whether a core's program headers *phdrs* map the kernel image's
    virtual addresses (a kernel's /proc/vmcore, makedumpfile -E, QEMU with
    paging on) or only physical ones (QEMU's dump-guest-memory with paging
    off, whose p_vaddr is p_paddr)."""
    return any(ph[0] == PT_LOAD and ph[3] >= START_KERNEL_MAP
               for ph in phdrs)


def _append(f, phdrs: list, note: bytes | None, loads: list) -> None:
    """Append *note* (a whole ELF note, or None) and the program header
    table of *phdrs* plus its PT_NOTE and *loads* to the file *f*; the
    ELF header then points at that table (no byte before moves)."""
    new = list(loads)
    end = f.seek(0, os.SEEK_END)
    end += -end % 8
    f.seek(end)
    if note is not None:
        new.insert(0, (PT_NOTE, 0, end, 0, 0, len(note), 0, 4))
        f.write(note + b"\0" * (-len(note) % 8))
    for ph in phdrs + new:
        f.write(_PHDR.pack(*ph))
    f.seek(0x20)
    f.write(struct.pack("<Q", end + (len(note) + (-len(note) % 8)
                                     if note is not None else 0)))
    f.seek(0x38)
    f.write(struct.pack("<H", len(phdrs) + len(new)))


def add_kernel_view(path: str, name: str | None = None) -> bool:
    """Add the kernel image's virtual view to the ELF core *path* that has
    the kernel's VMCOREINFO note but maps physical addresses only: QEMU's
    dump-guest-memory (paging off) of a guest that published the note
    (CONFIG_FW_CFG_SYSFS, -device vmcoreinfo), which drgn 0.0.22 cannot
    translate (:func:`add_vmcoreinfo`).  False where there was nothing to
    add (the view is there, or the note does not place the image)."""
    info = elf_vmcoreinfo(path, name) or {}
    with open(path, "r+b") as f:
        _, phdrs = _elf_phdrs(f, name or path)
        loads = _view_of(phdrs, info)
        if loads:
            _append(f, phdrs, None, loads)
    return bool(loads)


def needs_patch(path: str, name: str | None = None) -> str | None:
    """What the ELF core *path* lacks for drgn 0.0.22 to read it as a
    kernel's memory: ``"note"`` (no VMCOREINFO note: QEMU's dump of a
    guest that did not publish it), ``"view"`` (the note, but physical
    addresses only: QEMU's dump of one that did) or None."""
    if elf_vmcoreinfo(path, name) is None:
        return "note"
    with open(path, "rb") as f:
        _, phdrs = _elf_phdrs(f, name or path)
    return None if has_kernel_view(phdrs) else "view"




def patched_copy(path: str) -> tuple[str, int | None]:
    """A copy of the QEMU dump *path* with :func:`add_vmcoreinfo` applied
    (or only :func:`add_kernel_view`, where the dump has the note), in
    $TMPDIR: ``(copy, offset of the note found in memory, or None)``.
    The user's dump is never changed (it may be read-only, or evidence).
    The caller removes the copy."""
    import shutil
    import tempfile
    fd, copy = tempfile.mkstemp(prefix="rbti-", suffix=".core")
    os.close(fd)
    try:
        shutil.copyfile(path, copy)
        if needs_patch(copy, path) == "view":
            add_kernel_view(copy, path)
            return copy, None
        return copy, add_vmcoreinfo(copy, path)
    except BaseException:
        os.unlink(copy)
        raise


def for_makedumpfile(path: str) -> None:
    """Make the ELF core *path* one makedumpfile reads: with the kernel's
    VMCOREINFO note and image view (:func:`add_vmcoreinfo`, where QEMU
    wrote neither) and the program header table right after the ELF
    header, where makedumpfile (1.7.2, get_elf64_phdr) reads it whatever
    e_phoff says: QEMU puts its section headers there.  The notes move to
    the end of the file, the section headers go; no byte of memory
    moves.  A KernelError if the table does not fit before the first
    PT_LOAD's data."""
    if not core_has_vmcoreinfo(path):
        add_vmcoreinfo(path)
    with open(path, "r+b") as f:
        _, phdrs = _elf_phdrs(f, path)
        first = min((ph[2] for ph in phdrs if ph[0] == PT_LOAD), default=0)
        if 64 + _PHDR.size * len(phdrs) > first:
            raise KernelError(f"{path}: {len(phdrs)} program headers do not "
                              f"fit before the memory at offset {first:#x}")
        end = f.seek(0, os.SEEK_END)
        table = []
        for ph in phdrs:
            if ph[0] == PT_NOTE:
                f.seek(ph[2])
                data = f.read(ph[5])
                end += -end % 8
                f.seek(end)
                f.write(data)
                ph = (ph[0], ph[1], end) + ph[3:]
                end += len(data)
            table.append(ph)
        f.seek(64)
        f.write(b"".join(_PHDR.pack(*ph) for ph in table))
        f.seek(0x20)
        f.write(struct.pack("<QQ", 64, 0))          # e_phoff, e_shoff
        f.seek(0x34)
        f.write(struct.pack("<HHHHHH", 64, _PHDR.size, len(table), 64, 0, 0))
