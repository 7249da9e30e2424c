# SPDX-License-Identifier: GPL-2.0
"""Where Debian 12's drgn 0.0.22 and Debian 13's 0.0.31 differ, and the
workarounds named in rbtilib.kernel.drgnload, each tested both ways: with
a fake of either drgn, and with the real one this interpreter has (the
host's 0.0.22; under qemu/trixie-root, 0.0.31: `qemu/drgn-versions`)."""

import argparse
import struct
import types

import pytest

from rbtilib import kernel
from rbtilib.kernel import debuginfo, drgnload, kdump, vmcore

from test_kernel_vmcore import _qemu_core
from tests_support.fakedrgn import FakeDrgn, FakeModule

MISSING_22 = ("could not get debugging information for:\nkernel (could "
              "not find vmlinux for 6.1.0)\nkernel modules (could not find "
              "loaded kernel modules)")
"""drgn 0.0.22's MissingDebugInfoError for a kernel without vmlinux."""
MODULES_22 = ("could not get debugging information for:\nkernel modules "
              "(could not find loaded kernel modules)")
"""... and for the modules only (the kernel's vmlinux was given)."""
MISSING_31 = ("missing some debugging symbols; see "
              "https://drgn.readthedocs.io/en/latest/"
              "getting_debugging_symbols.html")
"""drgn 0.0.31's, whatever is missing (a warning says what)."""


@pytest.mark.parametrize("text, want", [
    ("0.0.22", (0, 0, 22)), ("0.0.31", (0, 0, 31)),
    ("0.0.31+unknown", (0, 0, 31)), ("0.1.0rc1", (0, 1, 0)),
    ("", ()), (None, ())])
def test_the_version_as_numbers(text, want):
    drgn = types.SimpleNamespace() if text is None else \
        types.SimpleNamespace(__version__=text)
    assert drgnload.version(drgn) == want


def _prog_31(kernel_file, missing=True):
    """A program of drgn 0.0.31: its main module, the kernel, has
    *kernel_file* as its debug file (None: none; LookupError: there is no
    main module)."""
    class Program:
        def main_module(self):
            if kernel_file is LookupError:
                raise LookupError("main module not created")
            return FakeModule(kernel_file)
    return Program()


@pytest.mark.parametrize("prog, error, want", [
    # 0.0.22: the message says which.
    (object(), MISSING_22, True),
    (object(), MODULES_22, False),
    # 0.0.31: the message never says; the main module does.
    (_prog_31(None), MISSING_31, True),
    (_prog_31("/boot/vmlinux"), MISSING_31, False),
    (_prog_31(LookupError), MISSING_31, True),
    # A message naming the kernel does not fool the 0.0.31 path.
    (_prog_31("/boot/vmlinux"), MISSING_22, False),
], ids=["22-kernel", "22-modules", "31-kernel", "31-modules",
        "31-no-main-module", "31-by-module-not-message"])
def test_a_missing_vmlinux_is_told_from_a_missing_module(prog, error, want):
    """drgnload.MODULE_API: 0.0.31's exception no longer names vmlinux."""
    assert drgnload.has_module_api(prog) == hasattr(prog, "main_module")
    assert debuginfo.kernel_info_missing(prog, Exception(error)) is want


def _open(monkeypatch, fake, core, probe=None, **kw):
    monkeypatch.setattr(debuginfo, "_drgn", lambda: fake)
    monkeypatch.setattr(kdump, "probe", lambda path: probe)
    monkeypatch.delenv("RBTI_KBUILD", raising=False)
    args = dict(core=core, kcore="/proc/kcore", vmlinux=None,
                debug_info=None, command="census")
    args.update(kw)
    return debuginfo.open_program(argparse.Namespace(**args))


@pytest.mark.parametrize("version, missing", [("0.0.22", MISSING_22),
                                              ("0.0.31", MISSING_31)])
def test_a_dump_without_vmlinux_names_the_dbg_package(version, missing,
                                                       tmp_path, monkeypatch):
    """The vmcore suite's "a kdump file with no vmlinux found": exit 2
    naming linux-image-RELEASE-dbg and --vmlinux on either drgn (0.0.31
    went on without the kernel's debug info and found nothing)."""
    path, _, _ = _qemu_core(tmp_path)
    with pytest.raises(kernel.KernelError) as e:
        _open(monkeypatch, FakeDrgn(version, missing), path)
    assert "linux-image-6.1.0-dbg" in str(e.value)
    assert str(e.value).endswith("pass --vmlinux PATH")


@pytest.mark.parametrize("version, missing", [("0.0.22", MODULES_22),
                                              ("0.0.31", MISSING_31)])
def test_a_missing_module_file_is_no_error(version, missing, tmp_path,
                                           monkeypatch):
    """With the kernel's vmlinux given, a module without debug info is
    fine on either drgn (0.0.31: the main module has its file)."""
    path, _, _ = _qemu_core(tmp_path)
    vmlinux = tmp_path / "vmlinux"
    vmlinux.write_bytes(b"\x7fELF")
    fake = FakeDrgn(version, missing, kernel_file=str(vmlinux))
    _open(monkeypatch, fake, path, vmlinux=str(vmlinux))
    assert fake.loads == [([str(vmlinux)], False)]


def _flat(tmp_path):
    flat = tmp_path / "dump.flat"
    flat.write_bytes(b"makedumpfile\0\0\0\0" + struct.pack(">qq", 1, 1) +
                     bytes(4064))
    return str(flat)


def test_a_flattened_dump_drgn_cannot_read_is_refused(tmp_path,
                                                      monkeypatch):
    """drgnload.FLATTENED, 0.0.22's libkdumpfile (0.5.1): refused, naming
    makedumpfile -R."""
    flat = _flat(tmp_path)
    with pytest.raises(kernel.KernelError, match="'makedumpfile -R NEWFILE"):
        _open(monkeypatch, FakeDrgn("0.0.22"), flat,
              probe="kdump_open: Unknown file format",
              vmlinux=str(tmp_path / "dump.flat"))


def test_a_flattened_dump_drgn_reads_is_read_with_a_notice(tmp_path,
                                                           monkeypatch,
                                                           capsys):
    """drgnload.FLATTENED, 0.0.31's libkdumpfile (0.5.4): read, and the
    notice names makedumpfile -R."""
    flat = _flat(tmp_path)
    vmlinux = tmp_path / "vmlinux"
    vmlinux.write_bytes(b"\x7fELF")
    fake = FakeDrgn("0.0.31", kernel_file=str(vmlinux))
    _open(monkeypatch, fake, flat, vmlinux=str(vmlinux))
    err = capsys.readouterr().err
    assert "flattened format (makedumpfile -F), which this drgn (0.0.31) " \
        "reads" in err and f"'makedumpfile -R NEWFILE < {flat}'" in err
    assert fake.loads == [([str(vmlinux)], False)]


# --- the real drgn of this interpreter ------------------------------------

def _elf_core(tmp_path) -> str:
    """The least ELF core of an x86-64 kernel drgn opens: a VMCOREINFO
    note (release 6.1.0) and 16 MiB of zeroed RAM."""
    desc = (b"OSRELEASE=6.1.0\nPAGESIZE=4096\nKERNELOFFSET=0\n"
            b"SYMBOL(swapper_pg_dir)=ffffffff81e15000\n"
            b"SYMBOL(_stext)=ffffffff81000000\nNUMBER(phys_base)=0\n")
    note = struct.pack("<III", 11, len(desc), 0) + b"VMCOREINFO\0\0" + \
        desc + bytes(-len(desc) % 4)
    phoff, ram = 0x40, 16 << 20
    ram_off = 4096
    ehdr = (b"\x7fELF\x02\x01\x01" + b"\0" * 9 +
            struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, 0, 0, 64, 56,
                        2, 0, 0, 0))
    phdrs = vmcore._PHDR.pack(vmcore.PT_NOTE, 0, phoff + 2 * 56, 0, 0,
                              len(note), len(note), 0) + \
        vmcore._PHDR.pack(vmcore.PT_LOAD, 0, ram_off, 0, 0, ram, ram, 0)
    path = tmp_path / "vmcore"
    head = ehdr + phdrs + note
    with open(path, "wb") as f:
        f.write(head + bytes(ram_off - len(head)))
        f.truncate(ram_off + ram)
    return str(path)


def _real_drgn():
    return pytest.importorskip("drgn")


@pytest.mark.drgn
def test_the_real_drgn_has_the_module_api_from_0_0_31():
    drgn = _real_drgn()
    want = drgnload.version(drgn) >= drgnload.MODULE_API
    assert drgnload.has_module_api(drgn.Program()) is want


@pytest.mark.drgn
def test_the_real_drgn_without_vmlinux(tmp_path, monkeypatch):
    """A dump (QEMU's ELF, with the VMCOREINFO note rbti adds) whose
    kernel has no vmlinux anywhere drgn looks: the real drgn's
    MissingDebugInfoError is the kernel's by kernel_info_missing, and
    rbti's error names the -dbg package, on either version."""
    drgn = _real_drgn()
    monkeypatch.delenv("DEBUGINFOD_URLS", raising=False)
    path = _elf_core(tmp_path)
    prog = drgn.Program()
    try:
        prog.set_core_dump(path)
    except (OSError, ValueError) as e:
        pytest.skip(f"drgn {drgn.__version__} does not open the test "
                    f"core: {e}")
    with pytest.raises(drgn.MissingDebugInfoError) as e:
        prog.load_debug_info([], default=True)
    assert debuginfo.kernel_info_missing(prog, e.value)
    monkeypatch.delenv("RBTI_KBUILD", raising=False)
    with pytest.raises(kernel.KernelError, match="linux-image-6.1.0-dbg"):
        debuginfo.open_program(argparse.Namespace(
            core=path, kcore="/proc/kcore", vmlinux=None, debug_info=None,
            command="census"))
