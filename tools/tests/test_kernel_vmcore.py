# SPDX-License-Identifier: GPL-2.0
"""Tests of the QEMU dump-guest-memory ELF made readable by drgn
(rbtilib.kernel.vmcore)."""

import os
import struct

import pytest

from rbtilib import kernel
from rbtilib.kernel import debuginfo, presets, vmcore


def _qemu_core(tmp_path, with_note: bool = True, gap: int = 0):
    """An ELF core as QEMU writes it with paging off: p_vaddr = p_paddr,
    the kernel's vmcoreinfo_note somewhere in RAM, no VMCOREINFO note;
    *gap* bytes between the ELF header and the program headers (QEMU's
    section headers)."""
    desc = (b"OSRELEASE=6.1.0\nSYMBOL(swapper_pg_dir)=ffffffff81e15000\n"
            b"SYMBOL(_stext)=ffffffff81000000\nNUMBER(phys_base)=16777216\n"
            b"KERNELOFFSET=0\n")
    note = struct.pack("<III", 11, len(desc), 0) + b"VMCOREINFO\0\0" + desc
    ram = bytearray(48 << 20)
    at = 0x2345678 & ~3
    # a decoy: the raw vmcoreinfo_data, without a note header
    ram[0x1000:0x1000 + len(desc)] = desc
    if with_note:
        ram[at:at + len(note)] = note
    qnote = struct.pack("<III", 5, 8, 1) + b"CORE\0\0\0\0" + b"\0" * 8
    phoff = 0x40 + gap
    ram_off = phoff + 2 * 56 + len(qnote)
    ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
            struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, 0, 0, 64, 56,
                        2, 0, 0, 0))
    phdrs = vmcore._PHDR.pack(vmcore.PT_NOTE, 0, phoff + 2 * 56, 0, 0,
                              len(qnote), len(qnote), 0) + \
        vmcore._PHDR.pack(vmcore.PT_LOAD, 0, ram_off, 0, 0, len(ram),
                          len(ram), 0)
    path = tmp_path / "guest.core"
    path.write_bytes(ehdr + bytes(gap) + phdrs + qnote + bytes(ram))
    return str(path), at + ram_off, desc


def test_a_qemu_core_gets_the_kernels_vmcoreinfo_note(tmp_path):
    path, where, desc = _qemu_core(tmp_path)
    before = open(path, "rb").read()
    size = len(before)
    assert not vmcore.core_has_vmcoreinfo(path)
    assert vmcore.add_vmcoreinfo(path) == where
    assert vmcore.core_has_vmcoreinfo(path)
    data = open(path, "rb").read()
    # nothing moved: only e_phoff and e_phnum changed before the end
    assert data[0x40:size] == before[0x40:] and data[:0x20] == before[:0x20]
    with open(path, "rb") as f:
        _, phdrs = vmcore._elf_phdrs(f)
    assert [p[0] for p in phdrs[:2]] == [vmcore.PT_NOTE, vmcore.PT_LOAD]
    note = phdrs[2]
    assert note[0] == vmcore.PT_NOTE and note[2] >= size
    assert list(vmcore._notes(data[note[2]:note[2] + note[5]])) == \
        [(b"VMCOREINFO", desc)]
    # the kernel image's virtual view from _stext: virtual -
    # __START_KERNEL_map + phys_base = 16 MiB + 16 MiB, to the end of RAM
    image = phdrs[3]
    assert image[0] == vmcore.PT_LOAD and image[3] == 0xffffffff81000000
    assert image[4] == 32 << 20 and image[5] == 16 << 20
    assert image[2] == phdrs[1][2] + (32 << 20)


def test_a_core_without_the_note_anywhere_is_a_clear_error(tmp_path):
    path, _, _ = _qemu_core(tmp_path, with_note=False)
    with pytest.raises(kernel.KernelError, match="no VMCOREINFO note"):
        vmcore.add_vmcoreinfo(path)


def test_cli_preset_names_are_the_presets():
    from rbtilib.cli import kernel_cmd
    assert sorted(kernel_cmd.PRESET_NAMES) == sorted(presets.PRESETS)


def test_core_without_the_note_is_read_through_a_copy(tmp_path, monkeypatch,
                                                     capsys):
    """--core never changes the user's dump, and reads a read-only one:
    drgn reads a patched copy (the note appended), removed once drgn has
    it open."""
    import argparse
    import types
    path, _, _ = _qemu_core(tmp_path)
    before = open(path, "rb").read()
    seen = {}

    class Program:
        def set_core_dump(self, core):
            seen["core"] = core
            seen["has_note"] = vmcore.core_has_vmcoreinfo(core)

        def load_debug_info(self, files, default):
            seen["default"] = default
    monkeypatch.setattr(debuginfo, "_drgn", lambda: types.SimpleNamespace(
        Program=Program, MissingDebugInfoError=Exception))
    vmlinux = tmp_path / "vmlinux"
    vmlinux.write_bytes(b"\x7fELF")
    args = argparse.Namespace(core=path, kcore="/proc/kcore",
                              vmlinux=str(vmlinux), debug_info=None,
                              command="kernel")
    debuginfo.open_program(args)
    assert open(path, "rb").read() == before
    assert seen["has_note"] and seen["core"] != path
    assert not (seen["core"] and os.path.exists(seen["core"]))
    assert f"{path} is not changed" in capsys.readouterr().err


@pytest.mark.parametrize("what", ["text", "elf without a note"])
def test_a_core_that_is_not_one_is_named_as_given(what, tmp_path,
                                                 monkeypatch, capsys):
    """--core README.md said "not an ELF64 little-endian core dump" without
    a name, and an ELF file that is no kernel's dump named the temporary
    copy rbti reads: the message names the path the user gave."""
    import argparse
    import types
    from rbtilib.kernel import commands
    monkeypatch.setattr(debuginfo, "_drgn", lambda: types.SimpleNamespace(
        Program=object, MissingDebugInfoError=Exception))
    if what == "text":
        core = tmp_path / "README.md"
        core.write_text("# not a core dump\n")
        want = "not a core dump drgn reads (ELF, or kdump-compressed"
    else:
        path, _, _ = _qemu_core(tmp_path, with_note=False)
        core = tmp_path / "ls"
        os.rename(path, core)
        want = "no VMCOREINFO note"
    vmlinux = tmp_path / "vmlinux"
    vmlinux.write_bytes(b"\x7fELF")
    args = argparse.Namespace(core=str(core), kcore="/proc/kcore",
                              vmlinux=str(vmlinux), debug_info=None,
                              command="kernel")
    assert commands.run(args) == 2
    err = capsys.readouterr().err.splitlines()[-1]
    assert err.startswith(f"rbti kernel: {core}: {want}"), err


def _published_core(tmp_path):
    """A QEMU dump of a guest that published its VMCOREINFO (fw_cfg,
    -device vmcoreinfo): the note in the file, physical addresses only."""
    path, at, desc = _qemu_core(tmp_path)
    with open(path, "rb") as f:
        note = f.read()[at:at + 24 + len(desc)]
    with open(path, "r+b") as f:
        _, phdrs = vmcore._elf_phdrs(f)
        vmcore._append(f, phdrs, note, [])
    return path


def test_a_qemu_core_with_the_note_gets_the_image_view_only(tmp_path):
    """drgn 0.0.22 cannot translate a dump that maps physical addresses
    only, note or not: the kernel image's virtual view is added, and no
    second note."""
    path = _published_core(tmp_path)
    assert vmcore.needs_patch(path) == "view"
    with open(path, "rb") as f:
        _, before = vmcore._elf_phdrs(f)
    copy, where = vmcore.patched_copy(path)
    try:
        assert where is None and vmcore.needs_patch(copy) is None
        with open(copy, "rb") as f:
            _, after = vmcore._elf_phdrs(f)
        assert after[:len(before)] == before
        added = after[len(before):]
        assert [ph[0] for ph in added] == [vmcore.PT_LOAD]
        assert added[0][3] == 0xffffffff81000000
    finally:
        os.unlink(copy)
    assert vmcore.add_kernel_view(path) and vmcore.needs_patch(path) is None
    assert not vmcore.add_kernel_view(path)        # the view is there now


def test_open_program_reads_a_published_core_through_a_copy(
        tmp_path, monkeypatch, capsys):
    import argparse
    import types
    path = _published_core(tmp_path)
    before = open(path, "rb").read()
    seen = {}

    class Program:
        def set_core_dump(self, core):
            seen["core"] = core
            seen["patch"] = vmcore.needs_patch(core)

        def load_debug_info(self, files, default):
            pass
    monkeypatch.setattr(debuginfo, "_drgn", lambda: types.SimpleNamespace(
        Program=Program, MissingDebugInfoError=Exception))
    vmlinux = tmp_path / "vmlinux"
    vmlinux.write_bytes(b"\x7fELF")
    debuginfo.open_program(argparse.Namespace(
        core=path, kcore="/proc/kcore", vmlinux=str(vmlinux),
        debug_info=None, command="census"))
    assert open(path, "rb").read() == before
    assert seen == {"core": seen["core"], "patch": None}
    assert seen["core"] != path and not os.path.exists(seen["core"])
    assert "maps physical addresses only" in capsys.readouterr().err
