# SPDX-License-Identifier: GPL-2.0
"""rbti doctor on fake machines: a directory with the files the probes
read (/proc/kcore, /sys/kernel/notes, /sys/module/..., the vmlinux places,
/proc/mounts), a fake drgn and a fake modinfo.  A green machine exits 0;
each missing piece is a FAIL (the census cannot run: exit 1) or a warn
(something else cannot), with its fix; no file the probes cannot read
makes them crash."""
from __future__ import annotations

import errno
import functools
import json
import struct
import types

import pytest

from rbtilib import cli, doctor
from rbtilib.kernel import KernelError

RELEASE = "6.1.0-99-amd64"
KERNEL_ID = "aa" * 20
MODULE_ID = "bb" * 20
MOUNTS = ("sysfs /sys sysfs rw 0 0\nproc /proc proc rw 0 0\n"
          "securityfs /sys/kernel/security securityfs rw 0 0\n"
          "debugfs /sys/kernel/debug debugfs rw 0 0\n")


def notes(build_id: str) -> bytes:
    """An ELF note section holding a GNU build id."""
    desc = bytes.fromhex(build_id)
    return struct.pack("<III", 4, len(desc), 3) + b"GNU\0" + desc


def elf(build_id: str | None, debug_info: bool = True) -> bytes:
    """A minimal ELF64 file: a .note.gnu.build-id (if *build_id*) and a
    .debug_info (if *debug_info*) section, with their names."""
    names = b"\0.shstrtab\0.note.gnu.build-id\0.debug_info\0"
    sections = [(0, 0, b""), (1, 3, names)]
    if build_id:
        sections.append((11, 7, notes(build_id)))
    if debug_info:
        sections.append((30, 1, b"\0" * 16))
    data, offsets = b"", []
    for _, _, body in sections:
        offsets.append(64 + len(data))
        data += body
    shoff = 64 + len(data)
    head = b"\x7fELF" + bytes([2, 1, 1]) + b"\0" * 9
    head += struct.pack("<HHIQQQIHHHHHH", 1, 62, 1, 0, 0, shoff, 0, 64, 0, 0, 64,
                        len(sections), 1)
    table = b"".join(struct.pack("<IIQQQQIIQQ", name, stype, 0, 0, off if body else 0,
                                 len(body), 0, 0, 1, 0)
                     for (name, stype, body), off in zip(sections, offsets))
    return head + data + table


def put(root, path: str, body: bytes | str) -> None:
    full = root / path.lstrip("/")
    full.parent.mkdir(parents=True, exist_ok=True)
    full.write_bytes(body.encode() if isinstance(body, str) else body)


@pytest.fixture
def machine(tmp_path):
    """A green machine: every probe passes."""
    root = tmp_path / "root"
    put(root, "/proc/kcore", b"\x7fELF" + b"\0" * 60)
    put(root, "/proc/mounts", MOUNTS)
    put(root, "/etc/os-release", 'PRETTY_NAME="Debian GNU/Linux 12"\nID=debian\n')
    put(root, "/sys/kernel/security/lockdown", "[none] integrity confidentiality\n")
    put(root, "/sys/kernel/notes", notes(KERNEL_ID))
    put(root, f"/usr/lib/debug/boot/vmlinux-{RELEASE}", elf(KERNEL_ID))
    put(root, "/sys/module/rbtree_inspector/initstate", "live\n")
    put(root, "/sys/module/rbtree_inspector/notes/.note.gnu.build-id", notes(MODULE_ID))
    put(root, "/kmod/rbtree_inspector.ko", elf(MODULE_ID))
    put(root, "/sys/kernel/debug/rbtree_inspector/trees", "rbtree-inspector format 1\n")
    return root


def fake_drgn():
    return types.SimpleNamespace(__version__="0.0.22",
                                 __file__="/usr/lib/python3/dist-packages/drgn/__init__.py")


HOST = doctor.Host
"""The class (the tests replace doctor.Host with a maker of fake hosts)."""


def host(root, **kw) -> doctor.Host:
    opts = dict(root=str(root), environ={"RBTI_KMOD": "/kmod"}, euid=0,
                release=RELEASE, import_drgn=fake_drgn, modinfo=lambda name: None)
    opts.update(kw)
    return HOST(**opts)


def checks(root, **kw) -> dict:
    return {c.name: c for c in doctor.examine(host(root, **kw))}


def failing(found: dict) -> dict:
    return {name: c.blocks for name, c in found.items() if not c.ok}


def test_green_machine_exits_0_with_every_check_ok(machine, monkeypatch, capsys):
    found = checks(machine)
    assert failing(found) == {}
    assert "0.0.22" in found["drgn"].found
    assert f"vmlinux-{RELEASE}" in found["vmlinux"].found
    assert found["module-debug-info"].found.endswith(f"rbtree_inspector.ko (build id {MODULE_ID})")
    monkeypatch.setattr(doctor, "Host", functools.partial(
        host, machine, kcore="/proc/kcore", vmlinux=None))
    assert cli.main(["doctor"]) == 0
    out = capsys.readouterr().out
    assert "FAIL" not in out and "warn" not in out and "fix:" not in out
    assert "  yes  rbti census, rbti kernel" in out
    assert cli.main(["doctor", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["schema"] == 1 and doc["command"] == "doctor" and doc["ok"] is True
    assert [c["check"] for c in doc["checks"]] == [
        "drgn", "root", "lockdown", "kcore", "vmlinux", "module", "module-debug-info",
        "debugfs"]
    assert doc["can"] == {"census": True, "module": True, "verify": True}


def run_doctor(monkeypatch, capsys, root, *args, **kw) -> tuple:
    monkeypatch.setattr(doctor, "Host", functools.partial(
        host, root, **{"kcore": "/proc/kcore", "vmlinux": None, **kw}))
    status = cli.main(["doctor", *args])
    return status, capsys.readouterr().out


def test_no_drgn_is_a_fail_naming_the_debian_package(machine, monkeypatch, capsys):
    def missing():
        raise KernelError("drgn is not installed")
    status, out = run_doctor(monkeypatch, capsys, machine, import_drgn=missing)
    assert status == 1
    assert "FAIL  drgn: not installed" in out and "apt-get install python3-drgn" in out
    assert "--system-site-packages" in out


def test_a_drgn_that_does_not_load_is_a_fail(machine):
    def broken():
        raise OSError("libdw.so.1: cannot open shared object file")
    found = checks(machine, import_drgn=broken)
    assert failing(found) == {"drgn": ["census", "verify"]}
    assert "libdw.so.1" in found["drgn"].found


def test_not_root(machine):
    def head(self, path, size):
        raise PermissionError(errno.EACCES, "Permission denied", path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(HOST, "head", head)
        found = checks(machine, euid=1000)
    assert set(failing(found)) == {"root", "kcore"}
    assert "sudo" in found["root"].fix and "--preserve-env" in found["root"].fix
    assert "root only" in found["kcore"].found


@pytest.mark.parametrize("mode,blocks", [
    ("integrity", ["module", "verify"]),
    ("confidentiality", ["census", "module", "verify"])])
def test_lockdown(machine, mode, blocks):
    put(machine, "/sys/kernel/security/lockdown", f"none integrity [{mode}]\n")
    found = checks(machine)
    assert found["lockdown"].blocks == blocks
    assert mode in found["lockdown"].found and found["lockdown"].fix
    if mode == "confidentiality":
        assert "--core" in found["lockdown"].fix


def test_kcore_refused_by_lockdown_says_so(machine):
    put(machine, "/sys/kernel/security/lockdown", "none integrity [confidentiality]\n")

    def head(self, path, size):
        raise PermissionError(errno.EPERM, "Operation not permitted", path)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(HOST, "head", head)
        found = checks(machine)
    assert "refused by lockdown" in found["kcore"].found


def test_no_lockdown_file(machine):
    (machine / "sys/kernel/security/lockdown").unlink()
    assert checks(machine)["lockdown"].found.endswith("this kernel has no lockdown")
    put(machine, "/proc/mounts", MOUNTS.replace("securityfs", "tmpfs"))
    found = checks(machine)["lockdown"]
    assert found.ok and found.found.startswith("unknown") and "securityfs" in found.found


def test_no_kcore_and_a_kcore_that_is_not_one(machine):
    (machine / "proc/kcore").unlink()
    found = checks(machine)["kcore"]
    assert found.blocks == ["census", "verify"] and "CONFIG_PROC_KCORE" in found.found
    put(machine, "/proc/kcore", b"MZ\0\0")
    assert "not an ELF core" in checks(machine)["kcore"].found


def test_no_vmlinux_says_where_it_looked_and_the_package(machine):
    (machine / f"usr/lib/debug/boot/vmlinux-{RELEASE}").unlink()
    found = checks(machine)["vmlinux"]
    assert found.blocks == ["census", "verify"]
    assert f"apt-get install linux-image-{RELEASE}-dbg" in found.fix
    assert "RBTI_KBUILD" in found.fix and "--vmlinux" in found.fix
    assert found.looked[0] == "$RBTI_KBUILD: unset"
    assert [p.split(":")[0] for p in found.looked[1:]] == [
        f"/usr/lib/debug/boot/vmlinux-{RELEASE}",
        f"/usr/lib/debug/lib/modules/{RELEASE}/vmlinux", f"/boot/vmlinux-{RELEASE}",
        f"/lib/modules/{RELEASE}/build/vmlinux", f"/lib/modules/{RELEASE}/vmlinux"]
    assert all(p.endswith(": absent") for p in found.looked[1:])


def test_the_first_vmlinux_drgn_would_take_must_do(machine):
    """drgn takes the first vmlinux of its list: another kernel's, or one
    without debug info, there is a FAIL even if a later one would do."""
    put(machine, f"/usr/lib/debug/boot/vmlinux-{RELEASE}", elf("cc" * 20))
    put(machine, f"/lib/modules/{RELEASE}/vmlinux", elf(KERNEL_ID))
    found = checks(machine)["vmlinux"]
    assert not found.ok and "drgn would take" in found.found
    assert "not the running kernel's" in found.found
    put(machine, f"/usr/lib/debug/boot/vmlinux-{RELEASE}", elf(KERNEL_ID, debug_info=False))
    assert "no debug info" in checks(machine)["vmlinux"].found


def test_rbti_kbuild_and_vmlinux_option(machine):
    (machine / f"usr/lib/debug/boot/vmlinux-{RELEASE}").unlink()
    put(machine, "/build/vmlinux", elf(KERNEL_ID))
    found = checks(machine, environ={"RBTI_KMOD": "/kmod", "RBTI_KBUILD": "/build"})
    assert found["vmlinux"].ok and found["vmlinux"].found.startswith("/build/vmlinux")
    found = checks(machine, vmlinux="/build/vmlinux")["vmlinux"]
    assert found.ok and found.looked == [f"--vmlinux /build/vmlinux: debug info, build id {KERNEL_ID}"]
    found = checks(machine, vmlinux="/nowhere/vmlinux")["vmlinux"]
    assert not found.ok and "absent" in found.found


@pytest.mark.parametrize("ids,want", [
    ("ID=ubuntu\nID_LIKE=debian\n", f"linux-image-unsigned-{RELEASE}-dbgsym"),
    ("ID=fedora\n", f"dnf debuginfo-install kernel-{RELEASE}"),
    ('ID="opensuse-leap"\nID_LIKE="suse opensuse"\n', "kernel-default-debuginfo"),
    ("ID=arch\n", f"Debian: linux-image-{RELEASE}-dbg")])
def test_debug_info_fix_is_the_distribution_s(machine, ids, want):
    put(machine, "/etc/os-release", ids)
    assert want in doctor.debuginfo_fix(host(machine))


def test_module_not_loaded_is_a_warning_not_a_census_failure(machine, monkeypatch, capsys):
    import shutil
    shutil.rmtree(machine / "sys/module/rbtree_inspector")
    found = checks(machine)
    assert failing(found) == {"module": ["module", "verify"]}
    assert "insmod" in found["module"].fix and "linux-headers" in found["module"].fix
    assert found["module-debug-info"].ok
    status, out = run_doctor(monkeypatch, capsys, machine)
    assert status == 0 and "warn  module:" in out


def test_module_ko_installed_is_found_without_rbti_kmod(machine):
    """The loaded module's .ko where make modules_install puts it
    (/lib/modules/RELEASE/updates): found with $RBTI_KMOD unset."""
    ko = f"/lib/modules/{RELEASE}/updates/rbtree_inspector.ko"
    put(machine, ko, elf(MODULE_ID))
    found = checks(machine, environ={})["module-debug-info"]
    assert found.ok and found.found == f"{machine}{ko} (build id {MODULE_ID})"
    assert found.looked == ["$RBTI_KMOD: unset", f"/lib/modules/{RELEASE}",
                            f"/usr/lib/debug/lib/modules/{RELEASE}"]


def test_module_ko_elsewhere_blocks_verify_only(machine):
    """The loaded module's .ko only where modinfo says: the census reads
    on without the module's trees; the fix names --debug-info."""
    ko = "/opt/rbti/rbtree_inspector.ko"
    put(machine, ko, elf(MODULE_ID))
    found = checks(machine, environ={}, modinfo=lambda name: ko)["module-debug-info"]
    assert found.blocks == ["verify"]
    assert found.fix.startswith(f"pass --debug-info {machine}{ko}, or export "
                                f"RBTI_KMOD={machine}/opt/rbti")
    assert "--preserve-env=RBTI_KMOD" in found.fix
    assert found.looked[-1] == "/opt/rbti (modinfo -n)"


def test_module_ko_nowhere(machine):
    put(machine, "/kmod/rbtree_inspector.ko", elf("dd" * 20))      # another build
    found = checks(machine)["module-debug-info"]
    assert found.blocks == ["verify"]
    assert "no rbtree_inspector.ko with that build id" in found.found
    assert "--debug-info" in found.fix and "modules_install" in found.fix


def test_module_build_id_unreadable_blocks_verify_only(machine):
    (machine / "sys/module/rbtree_inspector/notes/.note.gnu.build-id").unlink()
    assert failing(checks(machine)) == {"module-debug-info": ["verify"]}


def test_debugfs_not_mounted(machine):
    put(machine, "/proc/mounts", MOUNTS.replace("debugfs /sys/kernel/debug debugfs", "x /x x"))
    found = checks(machine)["debugfs"]
    assert found.blocks == ["module", "verify"]
    assert found.fix == "sudo mount -t debugfs none /sys/kernel/debug"


def test_unreadable_files_and_missing_directories_are_findings(tmp_path):
    """Every file a directory, or no machine at all: each probe still
    gives a verdict."""
    root = tmp_path / "dirs"
    for path in ("/proc/kcore", "/proc/mounts", "/etc/os-release", "/sys/kernel/notes",
                 "/sys/kernel/security/lockdown",
                 f"/usr/lib/debug/boot/vmlinux-{RELEASE}",
                 "/sys/module/rbtree_inspector/initstate",
                 "/sys/module/rbtree_inspector/notes/.note.gnu.build-id",
                 "/sys/kernel/debug/rbtree_inspector/trees"):
        (root / path.lstrip("/")).mkdir(parents=True)
    for where in (root, tmp_path / "nothing"):
        found = doctor.examine(host(where, environ={"RBTI_KMOD": "/nowhere"}))
        assert [c.name for c in found] == [
            "drgn", "root", "lockdown", "kcore", "vmlinux", "module", "module-debug-info",
            "debugfs"]
        assert not any("probe failed" in c.found for c in found)
        text = doctor.report(host(where), found)
        assert text.count("fix:") == sum(1 for c in found if c.fix)
        json.dumps(doctor.document(host(where), found))


def test_a_probe_that_raises_is_reported_not_raised(machine, monkeypatch):
    def bad(h):
        raise ValueError("oops")
    monkeypatch.setattr(doctor, "PROBES", (doctor.probe_root, bad))
    found = doctor.examine(host(machine))
    assert found[0].ok and found[1].blocks == ["census"]
    assert "the probe failed: ValueError: oops" in found[1].found


def test_the_report_docs_show_is_the_doctor_s(tmp_path):
    """docs/your-kernel.md's example: a Debian machine without the -dbg
    package, the module not loaded."""
    import re
    from pathlib import Path
    page = (Path(__file__).resolve().parents[2] / "docs" / "your-kernel.md").read_text(
        encoding="utf-8")
    shown = re.search(r"^```\n(rbti doctor: .*?)^```$", page, re.S | re.M).group(1)
    release = "6.1.0-21-amd64"
    put(tmp_path, "/proc/kcore", b"\x7fELF")
    put(tmp_path, "/proc/mounts", MOUNTS)
    put(tmp_path, "/etc/os-release", "ID=debian\n")
    put(tmp_path, "/sys/kernel/security/lockdown", "[none] integrity confidentiality\n")
    put(tmp_path, "/sys/kernel/notes", notes("3f9c0d8e21aa47b1c2d5e6f708192a3b4c5d6e7f"))
    fake = host(tmp_path, environ={}, release=release)
    assert doctor.report(fake, doctor.examine(fake)) == shown
