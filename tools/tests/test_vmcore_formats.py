# SPDX-License-Identifier: GPL-2.0
"""Tests of the guests' VMCOREINFO and of the vmcore suite's formats:
the debug fragments ask for the fw_cfg driver and the note by each
kernel's names, run-in-guest gives QEMU its vmcoreinfo device and writes
QEMU's kdump formats of the same stopped memory, the guest says what it
told that device (rbtilib.kernel.guestdump), and the suite reads what
QEMU wrote or says why QEMU wrote nothing
(rbtilib.kernel.vmcore_formats).  tools/kernel-vmcore-test reads real
files of every format."""

import json
import os
import re
import socket
import struct
import subprocess
import sys
import threading

import pytest

from rbtilib.kernel import guestdump, vmcore_formats as formats

from test_kernel_kdump import INFO, _kdump

REPO = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
CONFIG = os.path.join(REPO, "qemu", "config")


def _asked(fragments) -> dict:
    """What the fragments ask for, merged as check-config merges them: a
    later fragment's value wins, ``# removed: CONFIG_X`` drops X."""
    want = {}
    for name in fragments:
        path = os.path.join(CONFIG, name)
        if not os.path.exists(path):
            continue
        for line in open(path):
            m = re.match(r"(CONFIG_\w+)=(.*)$", line.strip())
            if m:
                want[m[1]] = m[2]
            m = re.match(r"# removed: (CONFIG_\w+)", line)
            if m:
                want.pop(m[1], None)
    return want


@pytest.mark.parametrize("version,note", [("6.1", "CONFIG_CRASH_CORE"),
                                          ("6.12", "CONFIG_VMCORE_INFO"),
                                          ("7.3", "CONFIG_VMCORE_INFO")])
def test_the_debug_guests_hand_qemu_their_vmcoreinfo(version, note):
    """The fw_cfg driver, and the option under which it writes the note's
    address (6.1: CRASH_CORE; 6.9 on: VMCORE_INFO), on each kernel's
    debug flavour, in the order build-kernel merges the fragments."""
    want = _asked(["base.config", "debug.config", f"linux-{version}.config",
                   f"linux-{version}-debug.config"])
    assert want.get("CONFIG_FW_CFG_SYSFS") == "y"
    assert want.get(note) == "y"
    other = {"CONFIG_CRASH_CORE", "CONFIG_VMCORE_INFO"} - {note}
    assert not other & set(want), f"{version} has no {other}"


def test_qemu_is_given_the_vmcoreinfo_device():
    text = open(os.path.join(REPO, "qemu", "run-in-guest")).read()
    assert re.search(r"^\s*-device vmcoreinfo\)?$", text, re.M)


class _Qmp(threading.Thread):
    """A QMP server on a Unix socket that plays QEMU 7.2 built without
    lzo and snappy: every command it is sent, in order."""

    def __init__(self, path: str) -> None:
        super().__init__(daemon=True)
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.bind(path)
        self.sock.listen(1)
        self.calls: list = []

    def run(self) -> None:
        conn, _ = self.sock.accept()
        f = conn.makefile("rw")
        f.write(json.dumps({"QMP": {"version": {"qemu": {
            "major": 7, "minor": 2, "micro": 22}}}}) + "\n")
        f.flush()
        for line in f:
            cmd = json.loads(line)
            self.calls.append((cmd["execute"], cmd.get("arguments", {})))
            args, reply = cmd.get("arguments", {}), {"return": {}}
            if cmd["execute"] == "query-status":
                reply = {"return": {"running": True}}
            elif cmd["execute"] == "query-dump-guest-memory-capability":
                reply = {"return": {"formats": ["elf", "kdump-zlib",
                                                "win-dmp"]}}
            elif cmd["execute"] == "dump-guest-memory":
                fmt = args.get("format", "elf")
                if fmt in ("kdump-lzo", "kdump-snappy"):
                    reply = {"error": {"desc": f"{fmt} is not available "
                                       "now"}}
                else:
                    open(args["protocol"][5:], "w").write(fmt)
                f.write(json.dumps({"event": "STOP"}) + "\n")
            f.write(json.dumps(reply) + "\n")
            f.flush()


def _dump_memory_script() -> str:
    """run-in-guest's dump_memory(): the Python it runs."""
    text = open(os.path.join(REPO, "qemu", "run-in-guest")).read()
    body = text[text.index("dump_memory() {"):]
    return body[body.index("<<'PY'\n") + 7:body.index("\nPY\n")]


@pytest.mark.slow
def test_run_in_guest_writes_every_format_of_one_stopped_guest(tmp_path):
    """The guest stopped once, the ELF dump and each format written, the
    ones this QEMU lacks recorded with its error, the guest resumed."""
    server = _Qmp(str(tmp_path / "qmp.sock"))
    server.start()
    core = str(tmp_path / "guest.core")
    run = subprocess.run(
        [sys.executable, "-c", _dump_memory_script(), str(tmp_path /
                                                          "qmp.sock"),
         core, "kdump-zlib,kdump-lzo,kdump-snappy"],
        capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    names = [c for c, _ in server.calls]
    assert names[names.index("stop"):] == [
        "stop", "query-dump-guest-memory-capability"] + \
        ["dump-guest-memory"] * 4 + ["cont"]
    assert open(core).read() == "elf"
    assert open(core + ".kdump-zlib").read() == "kdump-zlib"
    said = json.load(open(core + ".formats"))
    assert said["qemu"] == "7.2.22"
    assert said["formats"] == {
        "kdump-zlib": "ok",
        "kdump-lzo": "dump-guest-memory: kdump-lzo is not available now",
        "kdump-snappy":
            "dump-guest-memory: kdump-snappy is not available now"}
    assert formats.qemu_result(said, "kdump-zlib") == ("ok", "")
    state, why = formats.qemu_result(said, "kdump-lzo")
    assert state == "lacks" and "QEMU 7.2.22 was built without it" in why \
        and "kdump-lzo is not available now" in why


def test_a_format_qemu_has_and_failed_is_a_failure():
    said = {"qemu": "7.2.22", "capability": ["elf", "kdump-zlib"],
            "formats": {"kdump-zlib": "dump-guest-memory: No space left"}}
    assert formats.qemu_result(said, "kdump-zlib") == (
        "failed", "dump-guest-memory: No space left")
    assert formats.qemu_result(None, "kdump-zlib")[0] == "failed"
    assert formats.qemu_result(said, "kdump-lzo")[0] == "failed"


def _fw_cfg(tmp_path, raw: bytes | None):
    """A fake /sys/firmware/qemu_fw_cfg with etc/vmcoreinfo holding *raw*
    (none if None)."""
    root = tmp_path / "qemu_fw_cfg"
    root.mkdir(parents=True)
    if raw is not None:
        d = root / "by_name" / "etc" / "vmcoreinfo"
        d.mkdir(parents=True)
        (d / "raw").write_bytes(raw)
    return str(root)


def test_the_guest_says_what_it_told_the_vmcoreinfo_device(tmp_path):
    assert "CONFIG_FW_CFG_SYSFS" in guestdump.fw_cfg_vmcoreinfo(
        str(tmp_path / "none"))["error"]
    assert "-device vmcoreinfo" in guestdump.fw_cfg_vmcoreinfo(
        _fw_cfg(tmp_path / "a", None))["error"]
    blank = guestdump.fw_cfg_vmcoreinfo(_fw_cfg(tmp_path / "b",
                                                struct.pack("<HHIQ", 1, 0,
                                                            0, 0)))
    assert "CONFIG_CRASH_CORE" in blank["error"]
    got = guestdump.fw_cfg_vmcoreinfo(_fw_cfg(
        tmp_path / "c", struct.pack("<HHIQ", 1, 1, 0x1000, 0x2a3b000)))
    assert got == {"host_format": 1, "guest_format": 1, "size": 0x1000,
                   "paddr": 0x2a3b000}
    assert formats.published({"fw_cfg_vmcoreinfo": got})[0]
    assert formats.published({"fw_cfg_vmcoreinfo": blank}) == \
        (False, blank["error"])
    assert not formats.published({})[0]


class _Res:
    def __init__(self):
        self.lines = []

    def test(self, name, good, detail=""):
        self.lines.append((name, good, detail))


class _Ref:
    def __init__(self):
        self.compared = []

    def compare(self, label, path, vmlinux=True, env=None):
        self.compared.append((label, vmlinux))
        return True, ""


def test_qemus_files_each_one_test(tmp_path):
    """A file QEMU wrote is read with no --vmlinux against the ELF
    dump's reading; one it cannot write is a test that says why; one
    without VMCOREINFO (a guest that did not publish it) fails naming
    that."""
    core = str(tmp_path / "guest.core")
    json.dump({"qemu": "7.2.22", "capability": ["elf", "kdump-zlib"],
               "formats": {"kdump-zlib": "ok",
                           "kdump-lzo": "dump-guest-memory: kdump-lzo is "
                           "not available now",
                           "kdump-snappy": "dump-guest-memory: "
                           "kdump-snappy is not available now"}},
              open(core + ".formats", "w"))
    _kdump(tmp_path / "guest.core.kdump-zlib", status=0x1, info=INFO)
    res, ref = _Res(), _Ref()
    made = formats.check_qemu(res, ref, core, {})
    assert [good for _, good, _ in res.lines] == [True] * 3
    assert ref.compared == [("kdump-zlib", False)]
    assert "zlib" in res.lines[0][0] and "tree for tree" in res.lines[0][0]
    assert "not available now" in res.lines[1][0]
    assert set(made) == {core + ".formats"} | {
        f"{core}.{fmt}{end}" for fmt, _ in formats.QEMU_FORMATS
        for end in ("", ".kdump")}
    _kdump(tmp_path / "guest.core.kdump-zlib", status=0x1, info=None)
    res = _Res()
    formats.check_qemu(res, _Ref(), core, {})
    assert not res.lines[0][1] and "without VMCOREINFO" in res.lines[0][2]
