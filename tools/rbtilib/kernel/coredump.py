# SPDX-License-Identifier: GPL-2.0
"""A crash dump (``--core``) as drgn opens it: its format checked, its
kernel's release and build id, the vmlinux rbti knows for it, and module
symbols placed where drgn 0.0.22 cannot."""

import os
import struct

from . import KernelError
from .drgnload import load_drgn
from .kdump import check_core
from .vmcore import elf_vmcoreinfo

MAX_MODULES = 1 << 14
"""More modules than this on the kernel's list: a loop, not a list."""
MAX_MODULE_SYMBOLS = 1 << 20
"""More symbols than this in a module's table: not a symbol table."""
MAX_STRTAB = 1 << 24
"""Read a module's string table at once up to this size."""
_SYM = struct.Struct("<IBBHQQ")
"""Elf64_Sym: st_name, st_info, st_other, st_shndx, st_value, st_size."""


def open_core(path: str, drgn) -> dict:
    """What rbti knows of the core dump *path* before drgn opens it:
    ``format`` (``elf``, ``kdump``, ...), ``vmcoreinfo`` (a dict, None for
    an ELF core without the note: QEMU's), ``release``, ``build_id``
    (None where unknown) and ``notice`` (a line for stderr, or None).  A
    KernelError, naming *path*, for a file drgn does not read."""
    kind, header = check_core(path, drgn)
    info = elf_vmcoreinfo(path) if kind == "elf" else \
        (header or {}).get("vmcoreinfo")
    notice = None
    if header and header["incomplete"]:
        notice = (f"{path} is an incomplete dump (makedumpfile ran out of "
                  "space): trees in the pages it lost are unreadable")
    if header and header.get("copy"):
        notice = ((notice + "; ") if notice else "") + (
            f"{path}'s kdump header names no kernel (QEMU's dump-guest-memory "
            "writes its machine alone), which this drgn's libkdumpfile needs "
            "to tell the architecture: reading a copy with it filled from "
            f"its VMCOREINFO ({path} is not changed)")
    info = info or {}
    return {"format": kind, "vmcoreinfo": info or None,
            "copy": (header or {}).get("copy"),
            "release": info.get("OSRELEASE") or (header or {}).get("release"),
            "build_id": info.get("BUILD-ID"), "notice": notice}


def core_release(path: str) -> dict:
    """``vmcoreinfo``, ``release`` and ``build_id`` of the ELF core *path*
    from its VMCOREINFO note (for a QEMU dump: of the copy with the note
    added)."""
    info = elf_vmcoreinfo(path) or {}
    return {"vmcoreinfo": info or None, "release": info.get("OSRELEASE"),
            "build_id": info.get("BUILD-ID")}


def core_vmlinux(core: dict, build_id_of_elf, environ=None) -> str | None:
    """$RBTI_KBUILD/vmlinux if its build id is the dump's (VMCOREINFO's
    BUILD-ID, which kernels from 5.13 on write), else None."""
    build = (os.environ if environ is None else environ).get("RBTI_KBUILD")
    path = os.path.join(build, "vmlinux") if build else None
    if path and core["build_id"] and os.path.exists(path) and \
            build_id_of_elf(path) == core["build_id"]:
        return path
    return None


def no_core_vmlinux(path: str, core: dict, error: Exception,
                    paths: tuple) -> KernelError:
    """The error for a dump whose kernel's debug info drgn's own search did
    not find (*paths*: where it looks, with ``{release}``)."""
    release = core["release"] or "unknown"
    looked = ", ".join(p.format(release=release) for p in paths)
    build = f", build id {core['build_id']}" if core["build_id"] else ""
    said = next((line.strip() for line in str(error).splitlines()
                 if "vmlinux" in line), str(error).strip())
    return KernelError(
        f"no debug info for the kernel of {path} (release {release}{build})"
        f": drgn looked in {looked} ({said}); install it (Debian: the "
        f"package linux-image-{release}-dbg; for a kernel you built, its "
        "build directory's vmlinux) or pass --vmlinux PATH")


def module_symbol_address(prog, name: str) -> int:
    """The address of the module symbol *name* in the symbol tables the
    kernel keeps of its loaded modules (``struct module``'s ``kallsyms``,
    what /proc/kallsyms lists), read from the program's memory: where
    drgn cannot place a module's symbols, in a dump too.  A KernelError
    saying why where no module has it."""
    drgn = load_drgn()
    want = name.encode() + b"\0"
    try:
        head = prog["modules"].address_of_()
        entry = prog.type("struct module")
        entry.member("kallsyms")
        offset = drgn.offsetof(entry, "list")
    except (KeyError, LookupError) as e:
        raise KernelError(f"{name}: the kernel's debug info has no module "
                          f"symbol tables ({e}; CONFIG_KALLSYMS off?)") \
            from None
    found, count, pos = [], 0, head.next.value_()
    try:
        while pos != head.value_() and count < MAX_MODULES:
            mod = drgn.Object(prog, entry, address=pos - offset)
            addr = _symbol_in(prog, mod, want)
            if addr is not None:
                found.append((mod.name.string_().decode(errors="replace"),
                              addr))
            pos, count = mod.list.next.value_(), count + 1
    except drgn.FaultError as e:
        raise KernelError(f"{name}: the kernel's list of modules cannot be "
                          f"read ({e})") from None
    if len(found) == 1:
        return found[0][1]
    if found:
        raise KernelError(f"{name}: in the symbol tables of "
                          f"{', '.join(m for m, _ in found)}: which one?")
    raise KernelError(
        f"{name}: in no loaded module's symbol table (of {count} modules; "
        "a data symbol is there only with CONFIG_KALLSYMS_ALL)")


def _symbol_in(prog, mod, want: bytes) -> int | None:
    """The value of symbol *want* (NUL-terminated) in module *mod*'s
    kallsyms, or None (also where they cannot be read)."""
    fault = load_drgn().FaultError
    try:
        kallsyms = mod.kallsyms
        n = int(kallsyms.num_symtab)
        if not 0 < n <= MAX_MODULE_SYMBOLS:
            return None
        table = prog.read(kallsyms.symtab.value_(), n * _SYM.size)
        strtab = kallsyms.strtab.value_()
    except (fault, ValueError, OverflowError):
        return None
    entries = [_SYM.unpack_from(table, i * _SYM.size) for i in range(n)]
    names, end = None, max(e[0] for e in entries) + 1
    try:
        # The names in one read (the string table ends with the last).
        if end <= MAX_STRTAB:
            names = prog.read(strtab, end)
    except (fault, ValueError, OverflowError):
        pass
    for st_name, _, _, shndx, value, _ in entries:
        if not (value and shndx):
            continue
        try:
            got = names[st_name:st_name + len(want)] if names is not None \
                and st_name + len(want) <= len(names) else \
                prog.read(strtab + st_name, len(want))
        except (fault, ValueError, OverflowError):
            continue
        if got == want:
            return value
    return None
