# SPDX-License-Identifier: GPL-2.0
"""Permissions: every file is 0600 root:root, and a non-root process can
neither read nor write any of them.

debugfs's own root is 0700, which alone keeps non-root users out; so the
test is made twice: as mounted, and with the debugfs root opened to 0755
for the duration, so that the files' own modes are what is tested.
"""

import json
import os
import stat

from rbtilib.driver import Debugfs, TreeInfo

from .kernel import DEBUGFS, FAILSLAB, PARAMS, errname
from .procs import in_child
from .tap import Reporter

NOBODY = 65534
PARAM_FILES = {"max_nodes", "max_total_nodes", "allow_corrupt"}
FAULT_ATTR = "fail_stress_spawn"
"""The module's fault attr, a directory of the debugfs root on kernels
with CONFIG_FAULT_INJECTION_DEBUG_FS (DEBUGFS.md, "Top level")."""


def top_level(have: set[str]) -> set[str]:
    """The entries of the debugfs root besides the trees' directories:
    ``trees``, and the fault attr where the kernel has fault injection's
    debugfs (failslab's directory proves it; a kernel without failslab
    may still have it, so there its presence is taken as it comes)."""
    want = {"trees"}
    if os.path.isdir(FAILSLAB) or FAULT_ATTR in have:
        want.add(FAULT_ATTR)
    return want


def every_file(dfs: Debugfs, infos: list[TreeInfo]) -> list[str]:
    """The top-level file, every per-tree file, the fault attr's files
    (if any), the module parameters."""
    out = [dfs.path(None, "trees")]
    for info in infos:
        out += [dfs.path(info.name, f) for f in sorted(info.files)]
    attr = os.path.join(dfs.root, FAULT_ATTR)
    if os.path.isdir(attr):
        out += [os.path.join(attr, f) for f in sorted(os.listdir(attr))]
    out += [os.path.join(PARAMS, p) for p in sorted(PARAM_FILES)]
    return out


def run(rep: Reporter, dfs: Debugfs, infos: list[TreeInfo]) -> None:
    """Modes, then open() as nobody with and without the 0700 fence."""
    bad = []
    for info in infos:
        have = set(os.listdir(os.path.join(dfs.root, info.name)))
        if have != set(info.files):
            bad.append(f"{info.name}: files {sorted(have)}, expected "
                       f"{sorted(info.files)}")
    have = set(os.listdir(dfs.root)) - {i.name for i in dfs.trees()}
    if have != top_level(have):
        bad.append(f"top level: entries {sorted(have)}, expected "
                   f"{sorted(top_level(have))}")
    rep.expect(bad, "debugfs holds exactly trees, the fault attr "
               f"{FAULT_ATTR} where the kernel has fault injection's "
               "debugfs, and each tree's files (ten, overlap on interval "
               "trees, stress on latch and lockless ones)")
    paths = every_file(dfs, infos)
    bad = []
    for path in paths:
        st = os.stat(path)
        if not stat.S_ISREG(st.st_mode) or stat.S_IMODE(st.st_mode) != 0o600 \
                or (st.st_uid, st.st_gid) != (0, 0):
            bad.append(f"{path}: mode {stat.filemode(st.st_mode)} "
                       f"uid {st.st_uid} gid {st.st_gid}")
    rep.expect(bad, f"all {len(paths)} files (debugfs and parameters) are "
               "regular, 0600, root:root")
    rep.expect(_as_nobody(paths, need_stat=False),
               "as uid/gid 65534: open() of every file for read, write and "
               "read-write -> EACCES (debugfs root as mounted)")
    saved = stat.S_IMODE(os.stat(DEBUGFS).st_mode)
    os.chmod(DEBUGFS, 0o755)
    try:
        rep.expect(_as_nobody(paths, need_stat=True),
                   "as uid/gid 65534 with the debugfs root opened to 0755: "
                   "every file visible, every open() -> EACCES")
    finally:
        os.chmod(DEBUGFS, saved)
    rep.count("permission probes", 2 * 3 * len(paths))


def _as_nobody(paths: list[str], need_stat: bool) -> list[str]:
    """Try every open mode on every path as nobody; return the problems."""
    def probe() -> str:
        os.setgroups([])
        os.setgid(NOBODY)
        os.setuid(NOBODY)
        out = []
        for path in paths:
            if need_stat:
                try:
                    os.stat(path)
                except OSError as e:
                    out.append(f"{path}: stat {errname(e.errno or 0)} "
                               "(the directory should be searchable)")
            for flag, what in ((os.O_RDONLY, "read"), (os.O_WRONLY, "write"),
                               (os.O_RDWR, "read-write")):
                try:
                    os.close(os.open(path, flag))
                    got = "ok"
                except OSError as e:
                    got = errname(e.errno or 0)
                if got != "EACCES":
                    out.append(f"{path}: open for {what}: {got}")
        return json.dumps(out)

    status, text = in_child(probe)
    if status != 0:
        return [f"child failed (status {status}): {text}"]
    return json.loads(text)
