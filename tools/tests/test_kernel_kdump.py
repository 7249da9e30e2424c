# SPDX-License-Identifier: GPL-2.0
"""Tests of the vmcore formats besides ELF (rbtilib.kernel.kdump), the
dump's own debug info and module symbols (rbtilib.kernel.coredump), and
the ELF core made readable by makedumpfile (vmcore.for_makedumpfile).
The kdump files here are headers only, built as makedumpfile lays them
out; tools/kernel-vmcore-test reads real ones of every compression."""

import argparse
import os
import struct
import types

import pytest

from rbtilib import kernel
from rbtilib.kernel import census, coredump, debuginfo, kdump, vmcore

from test_kernel_vmcore import _qemu_core

INFO = b"OSRELEASE=6.12.0-1-amd64\nBUILD-ID=abcd\nPAGESIZE=4096\n"


def _kdump(path, block=4096, version=6, status=0x2, info=INFO,
           bitmap_blocks=2, cut=None, pages=0, split=0) -> str:
    """A kdump-compressed file's headers, bitmaps, VMCOREINFO and *pages*
    pages of 100 bytes each, as makedumpfile lays them out on x86-64."""
    head = bytearray(block)
    head[:8] = kdump.KDUMP_MAGIC
    struct.pack_into("<i", head, 8, version)
    head[12 + 130:12 + 130 + 6] = b"6.12.0"
    struct.pack_into("<IiiI", head, 424, status, block, 1, bitmap_blocks)
    sub = bytearray(block)
    table = (2 + bitmap_blocks) * block
    at = table + pages * 24
    struct.pack_into("<Qii", sub, 0, 0, 3, split)
    struct.pack_into("<qQ", sub, 32, at if info else 0, len(info or b""))
    bitmaps = bytearray(bitmap_blocks * block)
    for i in range(pages):                  # the second bitmap: dumped
        bitmaps[len(bitmaps) // 2 + i // 8] |= 1 << i % 8
    data_at = at + len(info or b"")
    descs = b"".join(struct.pack("<qIIQ", data_at + 100 * i, 100, 1, 0)
                     for i in range(pages))
    data = bytes(head + sub + bitmaps) + descs + (info or b"") + \
        bytes(100 * pages)
    path.write_bytes(data[:cut])
    return str(path)


def test_each_format_is_told_by_its_first_bytes(tmp_path):
    for magic, kind in ((b"\x7fELF\x02\x01", "elf"), (b"KDUMP   \x06", "kdump"),
                        (b"makedumpfile\0\0\0\0", "flat"),
                        (b"diskdump", "diskdump"), (b"# README", "other"),
                        (b"", "other")):
        (tmp_path / "f").write_bytes(magic)
        assert kdump.sniff(str(tmp_path / "f")) == kind


def test_a_kdump_header_gives_release_compression_and_vmcoreinfo(tmp_path):
    got = kdump.kdump_header(_kdump(tmp_path / "c", status=0x2 | 0x8,
                                    pages=9))
    assert got["release"] == "6.12.0-1-amd64" and got["compression"] == "lzo"
    assert got["incomplete"] and got["dump_level"] == 3
    assert got["vmcoreinfo"]["BUILD-ID"] == "abcd"
    assert kdump.kdump_header(_kdump(tmp_path / "z", status=0x20))[
        "compression"] == "zstd"


@pytest.mark.parametrize("kw, want", [
    (dict(block=0), "block size 0"),
    (dict(block=3000), "block size 3000"),
    (dict(block=1 << 30, bitmap_blocks=0), "block size 1073741824"),
    (dict(version=0), "header version 0"),
    (dict(bitmap_blocks=0), "0 bitmap blocks"),
    (dict(cut=300), "header cut short"),
    (dict(cut=3 * 4096), "cut short: its headers and bitmaps take 16384"),
    (dict(pages=20, cut=-1), "its pages end at byte 18917, the file has "
     "18916"),
    (dict(pages=20, cut=4 * 4096 + 10), "its pages end at byte 16864"),
    (dict(split=1), "split dump (makedumpfile --split), which drgn reads "
     "only whole: reassemble the parts with 'makedumpfile --reassemble"),
    (dict(info=None), "without VMCOREINFO"),
    (dict(info=b"garbage"), "without VMCOREINFO"),
    (dict(version=2), "without VMCOREINFO"),
])
def test_a_kdump_header_no_dump_has_is_refused_by_name(kw, want, tmp_path):
    """libkdumpfile kills drgn 0.0.22's process on a block size of 0: such
    headers never reach it, and the error names the file given."""
    if kw.get("block") in (0, 3000, 1 << 30):
        path = tmp_path / "c"
        _kdump(path, block=4096, **{k: v for k, v in kw.items()
                                     if k != "block"})
        data = bytearray(path.read_bytes())
        struct.pack_into("<i", data, 428, kw["block"])
        path.write_bytes(bytes(data))
        path = str(path)
    else:
        path = _kdump(tmp_path / "c", **kw)
    with pytest.raises(kernel.KernelError) as e:
        kdump.kdump_header(path, "given.vmcore")
    assert str(e.value).startswith("given.vmcore: ") and want in str(e.value)


def _drgn(**kw):
    return types.SimpleNamespace(__version__="0.0.22",
                                 _with_libkdumpfile=True, **kw)


def test_a_flattened_dump_says_to_reassemble_it(tmp_path):
    """makedumpfile -F's format: drgn 0.0.22 cannot read it (the real drgn
    says so in the probe), and the error gives the makedumpfile -R line."""
    flat = tmp_path / "dump.flat"
    flat.write_bytes(b"makedumpfile\0\0\0\0" + struct.pack(">qq", 1, 1) +
                     bytes(4064))
    with pytest.raises(kernel.KernelError, match=(
            f"{flat}: makedumpfile's flattened format.*'makedumpfile -R "
            f"NEWFILE < {flat}'")):
        kdump.check_core(str(flat), _drgn())


def test_a_kdump_file_without_libkdumpfile_says_so(tmp_path):
    path = _kdump(tmp_path / "c")
    drgn = _drgn()
    drgn._with_libkdumpfile = False
    with pytest.raises(kernel.KernelError, match="without libkdumpfile"):
        kdump.check_core(path, drgn)


def test_the_probe_survives_a_crash_of_libkdumpfile(tmp_path, monkeypatch):
    """drgn's open runs in a child: its death is an error, not rbti's."""
    path = _kdump(tmp_path / "c")
    monkeypatch.setattr(kdump, "_PROBE",
                        "import os, signal; os.kill(os.getpid(), 11)")
    assert kdump.probe(path) == "drgn crashed opening it (signal 11)"
    with pytest.raises(kernel.KernelError, match=(
            f"{path}: a kdump-compressed file \\(lzo\\) drgn 0.0.22 cannot "
            "open: drgn crashed opening it")):
        kdump.check_core(path, _drgn())
    monkeypatch.setattr(kdump, "_PROBE", "import sys\n"
                        "sys.exit('kdump_open: Unknown compression')")
    assert kdump.probe(path) == "kdump_open: Unknown compression"


class _Drgn:
    """The part of drgn open_program uses on a dump."""

    __version__ = "0.0.22"
    _with_libkdumpfile = True

    class MissingDebugInfoError(Exception):
        pass

    def __init__(self, missing: str = "") -> None:
        self.loads, self.opened = [], []
        drgn = self

        class Program:
            def set_core_dump(self, path):
                drgn.opened.append(path)

            def load_debug_info(self, paths, default=False):
                drgn.loads.append((list(paths), default))
                if missing:
                    raise drgn.MissingDebugInfoError(missing)
        self.Program = Program


def _open(monkeypatch, fake, core, **kw):
    monkeypatch.setattr(debuginfo, "_drgn", lambda: fake)
    monkeypatch.setattr(kdump, "probe", lambda path: None)
    args = dict(core=core, kcore="/proc/kcore", vmlinux=None,
                debug_info=None, command="census")
    args.update(kw)
    return debuginfo.open_program(argparse.Namespace(**args))


def test_a_kdump_core_needs_no_vmlinux(tmp_path, monkeypatch, capsys):
    """Without --vmlinux: $RBTI_KBUILD's vmlinux if its build id is the
    dump's (VMCOREINFO's BUILD-ID), else drgn's own search, whose failure
    names the release, the Debian package and --vmlinux."""
    core = _kdump(tmp_path / "vmcore", status=0x1 | 0x8)
    vmlinux = tmp_path / "vmlinux"
    vmlinux.write_bytes(b"\x7fELF")
    monkeypatch.setenv("RBTI_KBUILD", str(tmp_path))
    monkeypatch.setattr(debuginfo, "build_id_of_elf", lambda p: "abcd")
    fake = _Drgn()
    _open(monkeypatch, fake, core)
    assert fake.opened == [core] and fake.loads == [([str(vmlinux)], False)]
    assert "incomplete dump" in capsys.readouterr().err
    monkeypatch.setattr(debuginfo, "build_id_of_elf", lambda p: "other")
    _open(monkeypatch, fake, core)
    assert fake.loads[-1] == ([], True)
    missing = _Drgn("could not get debugging information for:\nkernel "
                    "(could not find vmlinux for 6.12.0-1-amd64)\nkernel "
                    "modules (could not find loaded kernel modules)")
    with pytest.raises(kernel.KernelError) as e:
        _open(monkeypatch, missing, core)
    text = str(e.value)
    assert f"kernel of {core} (release 6.12.0-1-amd64, build id abcd)" in text
    assert "/usr/lib/debug/boot/vmlinux-6.12.0-1-amd64," in text
    assert "(could not find vmlinux for 6.12.0-1-amd64)" in text
    assert "linux-image-6.12.0-1-amd64-dbg" in text and \
        text.endswith("pass --vmlinux PATH")
    fake = _Drgn()
    _open(monkeypatch, fake, core, vmlinux=str(vmlinux))
    assert fake.loads == [([str(vmlinux)], False)]


def test_a_qemu_core_without_vmlinux_names_its_release(tmp_path, monkeypatch):
    """A QEMU dump's release and build id come from the note rbti adds."""
    path, _, _ = _qemu_core(tmp_path)
    missing = _Drgn("kernel (could not find vmlinux for 6.1.0)")
    monkeypatch.delenv("RBTI_KBUILD", raising=False)
    with pytest.raises(kernel.KernelError,
                       match="release 6.1.0\\).*linux-image-6.1.0-dbg"):
        _open(monkeypatch, missing, path)


def test_makedumpfile_finds_the_program_headers_after_the_elf_header(
        tmp_path):
    """makedumpfile 1.7.2 reads the table at offset 64 whatever e_phoff
    says; QEMU puts it at 64 + its section headers."""
    path, _, _ = _qemu_core(tmp_path, gap=128)
    with open(path, "rb") as f:
        _, before = vmcore._elf_phdrs(f)
    vmcore.for_makedumpfile(path)
    data = open(path, "rb").read()
    assert struct.unpack_from("<QQ", data, 0x20) == (64, 0)
    assert struct.unpack_from("<HHHHHH", data, 0x34) == (64, 56, 4, 64, 0, 0)
    with open(path, "rb") as f:
        _, after = vmcore._elf_phdrs(f)
    assert [p for p in after if p[0] == vmcore.PT_LOAD][:1] == before[1:]
    notes = [p for p in after if p[0] == vmcore.PT_NOTE]
    assert all(p[2] >= len(data) - 4096 for p in notes)
    assert vmcore.elf_vmcoreinfo(path)["OSRELEASE"] == "6.1.0"
    assert [n for n, _ in vmcore._notes(data[notes[0][2]:notes[0][2] +
                                             notes[0][5]])] == [b"CORE"]


def test_makedumpfile_input_with_no_room_for_the_table(tmp_path):
    path, _, _ = _qemu_core(tmp_path)
    data = bytearray(open(path, "rb").read())
    struct.pack_into("<H", data, 0x38, 40)          # e_phnum
    with open(path, "wb") as f:
        f.write(data)
    with pytest.raises(kernel.KernelError, match="do not fit"):
        vmcore.for_makedumpfile(path)


class _Val(int):
    def value_(self):
        return int(self)


def _modules(syms: dict, other: dict | None = None):
    """A kernel's list of modules (at 0x1000), each with its kallsyms
    (symbol name -> value), in a fake program."""
    memory, mods, head = {}, {}, 0x1000
    lists = [head]
    for i, (name, table) in enumerate([("rbtree_inspector", syms)] +
                                      ([("other", other)] if other else [])):
        base = 0x10000 * (i + 1)
        strtab = b"\0" + b"".join(n.encode() + b"\0" for n in table)
        symtab, pos = b"", 1
        for n, value in table.items():
            symtab += struct.pack("<IBBHQQ", pos, 0, 0, 5, value, 8)
            pos += len(n) + 1
        memory[base + 0x100] = symtab
        memory[base + 0x800] = strtab
        mods[base] = types.SimpleNamespace(
            name=types.SimpleNamespace(string_=lambda n=name: n.encode()),
            kallsyms=types.SimpleNamespace(
                num_symtab=len(table), symtab=_Val(base + 0x100),
                strtab=_Val(base + 0x800)))
        lists.append(base + 0x50)
    for (base, mod), nxt in zip(mods.items(), lists[2:] + [head]):
        mod.list = types.SimpleNamespace(next=_Val(nxt))

    class FaultError(Exception):
        pass

    class Prog(dict):
        flags = 0

        def read(self, addr, size):
            for start, data in memory.items():
                if start <= addr and addr + size <= start + len(data):
                    return data[addr - start:addr - start + size]
            raise FaultError(addr)

        def type(self, name):
            return types.SimpleNamespace(member=lambda m: m)

    prog = Prog(modules=types.SimpleNamespace(address_of_=lambda: types.
                SimpleNamespace(next=_Val(lists[1]), value_=lambda: head)),
                rbti_trees=types.SimpleNamespace(address_=0x180,
                                                 type_="struct rbti_tree [8]"))
    fake = types.SimpleNamespace(
        FaultError=FaultError, offsetof=lambda t, m: 0x50,
        __version__="0.0.22", ProgramFlags=types.SimpleNamespace(IS_LIVE=4),
        Object=lambda p, t, address: mods[address] if address in mods
        else ("object", t, address))
    return prog, fake


def test_module_symbols_in_a_dump_come_from_the_modules_kallsyms(
        monkeypatch):
    """drgn 0.0.22 leaves a 6.4+ module's symbols at their .ko offsets
    (0x180): in a dump, the module's symbol table the kernel keeps in
    memory places them."""
    prog, fake = _modules({"rbti_ops": 0xffffffffa0001000,
                           "rbti_trees": 0xffffffffa0002180})
    monkeypatch.setattr(debuginfo, "_drgn", lambda: fake)
    monkeypatch.setattr(coredump, "load_drgn", lambda: fake)
    assert debuginfo.module_object(prog, "rbti_trees") == (
        "object", "struct rbti_tree [8]", 0xffffffffa0002180)
    without, fake = _modules({"rbti_ops": 0xffffffffa0001000})
    monkeypatch.setattr(debuginfo, "_drgn", lambda: fake)
    monkeypatch.setattr(coredump, "load_drgn", lambda: fake)
    with pytest.raises(kernel.KernelError, match=(
            "cannot place the module symbol rbti_trees.*in no loaded "
            "module's symbol table \\(of 1 modules; .*KALLSYMS_ALL")):
        debuginfo.module_object(without, "rbti_trees")
    twice, fake = _modules({"rbti_trees": 0xffffffffa0002180},
                           {"rbti_trees": 0xffffffffa0009000})
    monkeypatch.setattr(debuginfo, "_drgn", lambda: fake)
    monkeypatch.setattr(coredump, "load_drgn", lambda: fake)
    with pytest.raises(kernel.KernelError, match="rbtree_inspector, other"):
        coredump.module_symbol_address(twice, "rbti_trees")


def test_a_page_left_out_of_a_dump_is_a_note_of_the_slab_route(
        monkeypatch):
    """makedumpfile -d 31 of a 6.12 kernel leaves slab pages out (1.7.2
    does not know its page types): the census goes on without them."""
    import rbtilib.kernel.census_slab as census_slab

    class FaultError(Exception):
        pass

    def fault(f):
        raise FaultError("could not read memory from kdump: Excluded page")
    monkeypatch.setattr(census_slab, "find_slab", fault)
    f = census.find(object(), None, None, routes=[("none", lambda f: 0)])
    assert f.notes[-1] == ("route slab: could not read memory from kdump: "
                           "Excluded page")



@pytest.mark.parametrize("what", ["block size 0", "flattened", "text"])
def test_rbti_refuses_a_core_it_cannot_read_by_name(what, tmp_path):
    """As a user runs it (a process of its own, which libkdumpfile would
    kill on a block size of 0): exit 2 and one line naming the file."""
    import subprocess
    import sys
    from pathlib import Path
    core = tmp_path / "vmcore"
    if what == "block size 0":
        _kdump(core)
        data = bytearray(core.read_bytes())
        struct.pack_into("<i", data, 428, 0)
        core.write_bytes(bytes(data))
    elif what == "flattened":
        core.write_bytes(b"makedumpfile\0\0\0\0" + struct.pack(">qq", 1, 1) +
                         bytes(4064))
    else:
        core.write_text("# not a core dump\n")
    rbti = Path(__file__).resolve().parents[1] / "rbti"
    run = subprocess.run([sys.executable, str(rbti), "census", "--core",
                          str(core)], capture_output=True, text=True,
                         timeout=120)
    assert run.returncode == 2, run.stderr
    assert run.stderr.startswith(f"rbti census: {core}: ") and \
        run.stderr.count("\n") == 1, run.stderr


def _qemu_kdump(tmp_path):
    """A kdump file as QEMU 7.2's dump-guest-memory writes it (once
    reassembled): its header's utsname has the machine alone."""
    path = _kdump(tmp_path / "guest.kdump-zlib", status=0x1)
    with open(path, "r+b") as f:
        f.seek(kdump.UTS)
        f.write(bytes(6 * kdump.UTS_LEN))
        f.seek(kdump.UTS + 4 * kdump.UTS_LEN)
        f.write(b"x86_64")
    return path


def _sane_probe(path):
    """drgn 0.0.22's libkdumpfile 0.5.1: no architecture without a
    utsname it takes."""
    with open(path, "rb") as f:
        head = f.read(kdump.HEADER_SIZE)
    return None if kdump.uts_looks_sane(head) else \
        "kdump_get_string_attr(KDUMP_ATTR_ARCH_NAME): Key has no value"


def test_a_kdump_header_with_the_machine_alone_is_not_a_linux_one(tmp_path):
    head = open(_qemu_kdump(tmp_path), "rb").read(kdump.HEADER_SIZE)
    assert not kdump.uts_looks_sane(head)
    header = kdump.kdump_header(str(tmp_path / "guest.kdump-zlib"))
    assert not header["uts_sane"] and header["release"] == "6.12.0-1-amd64"
    copy = kdump.uts_copy(str(tmp_path / "guest.kdump-zlib"), header)
    try:
        new = open(copy, "rb").read()
        assert kdump.uts_looks_sane(new[:kdump.HEADER_SIZE])
        assert new[kdump.HEADER_SIZE:] == open(
            tmp_path / "guest.kdump-zlib", "rb").read()[kdump.HEADER_SIZE:]
        assert b"6.12.0-1-amd64\0" in new[:kdump.HEADER_SIZE]
        assert b"x86_64\0" in new[:kdump.HEADER_SIZE]
    finally:
        os.unlink(copy)


def test_a_qemu_kdump_file_is_read_through_a_copy(tmp_path, monkeypatch,
                                                 capsys):
    """drgn 0.0.22 refuses QEMU's kdump file (no architecture): rbti reads
    a copy with the header's utsname filled from its VMCOREINFO, says so,
    and removes the copy; the file given is not changed."""
    path = _qemu_kdump(tmp_path)
    before = open(path, "rb").read()
    fake = _Drgn()
    monkeypatch.setattr(debuginfo, "_drgn", lambda: fake)
    monkeypatch.setattr(kdump, "probe", _sane_probe)
    debuginfo.open_program(argparse.Namespace(
        core=path, kcore="/proc/kcore", vmlinux=None, debug_info=None,
        command="census"))
    assert len(fake.opened) == 1 and fake.opened[0] != path
    assert not os.path.exists(fake.opened[0])
    assert open(path, "rb").read() == before
    err = capsys.readouterr().err
    assert "kdump header names no kernel" in err and \
        f"({path} is not changed)" in err
    # a drgn that cannot read the copy either: the error, no copy left
    monkeypatch.setattr(kdump, "probe", lambda p: "kdump_open: no")
    left = set(os.listdir(os.environ.get("TMPDIR", "/tmp")))
    with pytest.raises(kernel.KernelError, match="cannot open: kdump_open"):
        kdump.check_core(path, _drgn())
    assert set(os.listdir(os.environ.get("TMPDIR", "/tmp"))) <= left
