# SPDX-License-Identifier: GPL-2.0
"""Where rbti finds the loaded rbtree_inspector's .ko, and what it does
when it finds none: --debug-info names it, $RBTI_KMOD, then the kernel's
module directories; without it the kernel's trees are still read."""

import argparse

import pytest

from rbtilib import kernel
from rbtilib.kernel import debuginfo
from tests_support.fakedrgn import FakeDrgn

KERNEL_ID = "aabb"
MODULE_ID = "mmmm"


@pytest.fixture
def ids(monkeypatch):
    """Build ids: the running kernel's, the loaded module's (from its
    notes under /sys/module) and each file's ("<id>" written in it)."""
    def running(path):
        if path == debuginfo.KERNEL_NOTES:
            return KERNEL_ID
        if path.endswith("rbtree_inspector/notes/.note.gnu.build-id"):
            return MODULE_ID
        return None

    def of_elf(path):
        try:
            with open(path) as f:
                return f.read().strip()
        except OSError:
            return None
    monkeypatch.setattr(debuginfo, "running_build_id", running)
    monkeypatch.setattr(debuginfo, "build_id_of_elf", of_elf)
    monkeypatch.delenv("RBTI_KMOD", raising=False)
    monkeypatch.delenv("RBTI_KBUILD", raising=False)


def ko(where, build_id=MODULE_ID, name="rbtree_inspector.ko"):
    where.mkdir(parents=True, exist_ok=True)
    path = where / name
    path.write_text(build_id)
    return str(path)


def test_module_dirs_are_rbti_kmod_then_the_kernel_s_own():
    assert debuginfo.module_dirs({}, "6.1.0-57-amd64") == [
        "/lib/modules/6.1.0-57-amd64", "/usr/lib/debug/lib/modules/6.1.0-57-amd64"]
    assert debuginfo.module_dirs({"RBTI_KMOD": "/k"}, "R") == [
        "/k", "/lib/modules/R", "/usr/lib/debug/lib/modules/R"]
    assert debuginfo.module_dirs({"RBTI_KMOD": ""}, "R")[0] == "/lib/modules/R"


def test_debug_info_file_comes_first_then_the_directories(tmp_path, ids):
    """--debug-info FILE with the loaded module's build id is the module's
    .ko whatever its name; else the first *name*.ko with it in the
    directories, in their order (another build is passed over)."""
    named = ko(tmp_path / "named", name="my.ko")
    other = ko(tmp_path / "a", build_id="dddd")
    installed = ko(tmp_path / "b" / "updates")
    dirs = [str(tmp_path / "a"), str(tmp_path / "b")]
    assert debuginfo.find_module_ko("rbtree_inspector", dirs,
                                    files=[other, named]) == named
    assert debuginfo.find_module_ko("rbtree_inspector", dirs,
                                    files=[other]) == installed


def test_no_ko_anywhere_names_every_place(tmp_path, ids):
    other = ko(tmp_path / "a", build_id="dddd")
    with pytest.raises(kernel.KernelError) as e:
        debuginfo.find_module_ko("rbtree_inspector", [str(tmp_path / "a"), "/none"],
                                 files=[other])
    assert str(e.value) == (
        f"module rbtree_inspector is loaded (build id {MODULE_ID}) but no "
        f"rbtree_inspector.ko with that build id in {tmp_path}/a, /none, "
        f"--debug-info {other}")


def open_live(tmp_path, fake, monkeypatch, **kw):
    monkeypatch.setattr(debuginfo, "_drgn", lambda: fake)
    kcore = tmp_path / "kcore"
    kcore.write_bytes(b"")
    args = dict(core=None, kcore=str(kcore), vmlinux=None, debug_info=None,
                command="census")
    args.update(kw)
    return debuginfo.open_program(argparse.Namespace(**args))


def test_loaded_module_without_its_ko_reads_the_kernel_on(tmp_path, ids,
                                                          monkeypatch, capsys):
    """The census and the kernel's presets need only the vmlinux: a
    loaded module whose .ko rbti cannot find is said on stderr, once, and
    drgn loads the rest (it stopped every command before)."""
    monkeypatch.setattr(debuginfo, "MODULE_KO_PATHS", (str(tmp_path / "none"),))
    fake = FakeDrgn()
    open_live(tmp_path, fake, monkeypatch)
    assert fake.loads == [([], True)]
    err = capsys.readouterr().err
    assert err.startswith("rbti census: module rbtree_inspector is loaded "
                          f"(build id {MODULE_ID}) but no rbtree_inspector.ko")
    assert err.rstrip().endswith("the module's trees are not read "
                                 "(--debug-info FILE or RBTI_KMOD=DIR names its .ko)")


def test_installed_or_named_ko_is_loaded_once(tmp_path, ids, monkeypatch, capsys):
    """The .ko under the kernel's module directory is loaded with no
    variable set; one named by --debug-info is loaded once, as named."""
    installed = ko(tmp_path / "lib" / "updates")
    monkeypatch.setattr(debuginfo, "MODULE_KO_PATHS", (str(tmp_path / "lib"),))
    fake = FakeDrgn()
    open_live(tmp_path, fake, monkeypatch)
    assert fake.loads == [([installed], True)]
    named = ko(tmp_path / "kmod")
    open_live(tmp_path, fake, monkeypatch, debug_info=[named])
    assert fake.loads[-1] == ([named], True)
    assert capsys.readouterr().err == ""
