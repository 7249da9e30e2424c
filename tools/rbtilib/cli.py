# SPDX-License-Identifier: GPL-2.0
"""What the rbti subcommands share: exit codes, errors, where a tree comes from.

A subcommand names a tree as a live tree (a name from the ``trees`` file)
or a saved dump: ``-`` (stdin), or an argument that names an existing file
or contains a ``/``.  :func:`environment_error` says why debugfs cannot be
read, telling apart "not root", "debugfs not mounted" and "module not
loaded".
"""

import os

from .dump import DumpError, Tree, parse_dump, read_dump_file

EXIT_OK, EXIT_FAIL, EXIT_USAGE = 0, 1, 2


class UsageError(Exception):
    """A bad argument or an unusable environment: exit status 2."""


def tree_infos(driver, names: list[str] | None):
    """TreeInfo for *names* (all trees if None); UsageError if unknown."""
    infos = driver.trees()
    if not names:
        return infos
    by_name = {i.name: i for i in infos}
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise UsageError(f"unknown tree {', '.join(unknown)} (have: "
                         f"{', '.join(by_name)})")
    return [by_name[n] for n in names]


def is_saved_dump(arg: str) -> bool:
    """True if *arg* names a saved dump rather than a live tree: ``-``, a
    path, an existing file, or a name with a dot (the module's trees are
    named like C identifiers), so that a mistyped ``x.dump`` is reported as
    a missing file, not as a tree debugfs lacks."""
    return arg == "-" or "/" in arg or "." in arg or os.path.isfile(arg)


def read_saved_dump(arg: str) -> tuple[Tree | None, str | None]:
    """Parse the dump in file *arg* (``-``: stdin).

    Returns ``(tree, None)``, or ``(None, message)`` for a malformed dump;
    raises UsageError if the file cannot be read.
    """
    try:
        text = read_dump_file(arg)
    except OSError as e:
        raise UsageError(f"{arg}: {e.strerror or e}") from None
    try:
        return parse_dump(text), None
    except DumpError as e:
        return None, str(e)


def _debugfs_mounted(path: str, mounts: str) -> bool:
    """True if a debugfs is mounted at *path* according to /proc/mounts."""
    for line in mounts.splitlines():
        fields = line.split()
        if len(fields) >= 3 and fields[2] == "debugfs" and \
                os.path.normpath(fields[1]) == os.path.normpath(path):
            return True
    return False


def environment_error(root: str, params: str, euid: int | None = None,
                      mounts: str | None = None) -> str:
    """Why ``ROOT/trees`` cannot be read: the first cause that applies.

    *euid* and *mounts* (the text of /proc/mounts) default to this
    process's; tests pass their own.
    """
    euid = os.geteuid() if euid is None else euid
    if mounts is None:
        try:
            with open("/proc/mounts", encoding="utf-8") as f:
                mounts = f.read()
        except OSError:
            mounts = ""
    trees = os.path.join(root, "trees")
    try:
        os.stat(trees)
    except PermissionError:
        return (f"not root: {trees} is readable by root only (debugfs); "
                "run rbti as root")
    except OSError:
        pass
    else:
        return f"{trees}: not a readable file"
    mount_point = os.path.dirname(os.path.normpath(root))
    if not _debugfs_mounted(mount_point, mounts):
        if euid != 0 and not os.access(mount_point, os.R_OK | os.X_OK):
            return (f"not root: {mount_point} is readable by root only; "
                    "run rbti as root")
        return (f"debugfs not mounted at {mount_point}: mount -t debugfs "
                f"none {mount_point}")
    if not os.path.isdir(os.path.dirname(os.path.normpath(params))):
        return ("module not loaded: no "
                f"{os.path.dirname(os.path.normpath(params))}; "
                "insmod rbtree_inspector.ko")
    return (f"{trees} not found, though rbtree_inspector is loaded and "
            f"debugfs is mounted at {mount_point}")
