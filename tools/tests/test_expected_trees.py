# SPDX-License-Identifier: GPL-2.0
"""kmod/tests/module-trees, the trees a kernel's version calls for,
against kmod/compat.h and the module's sources."""

import os
import re

import pytest

from rbtilib import expected_trees

KMOD = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir,
                    os.pardir, "kmod")


def test_the_table_is_compat_h():
    """Each tree's SINCE is the KERNEL_VERSION compat.h tests for its
    MACRO, and the tree's source is built only under that MACRO."""
    compat = open(os.path.join(KMOD, "compat.h"), encoding="utf-8").read()
    rows = expected_trees.table()
    assert rows
    for tree, since, macro in rows:
        m = re.search(r"#if KERNEL_VERSION\((\d+), (\d+), 0\) <= "
                      r"LINUX_VERSION_CODE\n#define " + re.escape(macro)
                      + r" 1\n", compat)
        assert m, f"compat.h does not define {macro} by kernel version"
        assert (int(m.group(1)), int(m.group(2))) == since, tree
        src = open(os.path.join(KMOD, f"tree_{tree}.c"),
                   encoding="utf-8").read()
        assert f"#if {macro}" in src


@pytest.mark.parametrize("release,want", [
    ("6.1.0-40-amd64", False), ("6.1.192", False), ("6.11.9", False),
    ("6.12.0", True), ("6.12.57+deb13-amd64", True), ("7.0.1", True),
    ("6.100.0", True)])
def test_expected_follows_the_version(release, want):
    assert expected_trees.expected(release) == {"mainline_rcu": want}


def test_a_release_that_is_not_a_version_is_an_error():
    with pytest.raises(ValueError):
        expected_trees.expected("linux")


FAMILY_SH = os.path.join(KMOD, "tests", "debugfs-family.sh")


def family_sh(tmp_path, release: str, dirs: list) -> str:
    """debugfs-family.sh's test_family_expected_trees under busybox sh on
    a fake debugfs with *dirs*, as if on a kernel of *release*."""
    import shutil
    import subprocess
    d = tmp_path / "debugfs"
    for name in dirs:
        (d / name).mkdir(parents=True)
    sh = shutil.which("busybox")
    assert sh, "busybox (busybox-static, qemu/install-deps) runs the suite"
    script = ('ok() { echo "ok - $1"; }; not_ok() { echo "not ok - $1: $2"; };'
              'is() { if [ "$2" = "$3" ]; then ok "$1"; else not_ok "$1" '
              '"got $2, want $3"; fi; }; TMP=$T; TREES="santos mainline";'
              f'. "{FAMILY_SH}"; test_family_expected_trees; echo "TREES $TREES"')
    env = dict(os.environ, D=str(d), T=str(tmp_path),
               RBTI_KERNEL_RELEASE=release,
               RBTI_MODULE_TREES=expected_trees.TABLE)
    return subprocess.run([sh, "sh", "-c", script], env=env, timeout=60,
                          capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("release,dirs,verdict", [
    ("6.12.57+deb13-amd64", ["latch"], "not ok"),
    ("6.12.0", ["latch", "mainline_rcu"], "ok"),
    ("6.1.0-40-amd64", ["latch"], "ok"),
    ("6.1.192", ["latch", "mainline_rcu"], "not ok")])
def test_debugfs_family_expects_trees_by_version(tmp_path, release, dirs,
                                                 verdict):
    out = family_sh(tmp_path, release, dirs)
    assert out.startswith(f"{verdict} - mainline_rcu: there on {release}"), out
    # On 6.12 the generic tests run on mainline_rcu, there or not.
    assert ("mainline_rcu" in out.splitlines()[-1]) == release.startswith("6.12")
