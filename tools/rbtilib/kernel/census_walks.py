# SPDX-License-Identifier: GPL-2.0
"""The directory walks of ``rbti census``: kernfs and procfs.

A directory's children are the entries of its tree, so each directory's
tree, once read, names the next ones: every entry that is a directory
(a kernfs_node of type KERNFS_DIR, a proc_dir_entry with S_ISDIR) has
its own tree.  The walk starts at sysfs's root (and cgroup's, where
there is one) and at each network namespace's /proc/net; /proc itself
is the variable proc_root, found with the other variables.
"""

from . import Fault
from .census_find import Finder
from .debuginfo import _drgn

KERNFS_TYPE_MASK, KERNFS_DIR = 0x000f, 0x0001
S_IFMT, S_IFDIR = 0o170000, 0o040000
NAME_MAX_READ = 48


def _name(mem, ptr: int, size: int | None = None) -> str:
    """A C string at *ptr* (at most NAME_MAX_READ bytes), or its address."""
    try:
        raw = mem.read(ptr, size if size is not None else NAME_MAX_READ)
    except Fault:
        return f"{ptr:#x}"
    raw = raw.split(b"\0", 1)[0]
    return raw.decode("ascii", "replace") or "?"


class _Offsets:
    """Offsets into a type, looked up once per program."""

    cache: dict = {}

    @classmethod
    def of(cls, prog, type_name: str, *members: str) -> tuple:
        key = (id(prog), type_name, members)
        if key not in cls.cache:
            t = prog.type(type_name)
            cls.cache[key] = tuple(_drgn().offsetof(t, m) for m in members)
        return cls.cache[key]


def kernfs_children(f: Finder, inst, snap, spec) -> None:
    """Each kernfs_node of *snap* that is a directory: its children."""
    prog, mem = f.prog, f.mem
    flags_off, children, name_off = _Offsets.of(
        prog, "struct kernfs_node", "flags", "dir.children", "name")
    size = prog.type("struct kernfs_node").member("flags").type.size
    for addr in snap.nodes:
        kn = addr - spec.layout.node_off
        try:
            flags = mem.int(kn + flags_off, size, False)
            if flags & KERNFS_TYPE_MASK != KERNFS_DIR:
                continue
            name = _name(mem, mem.ptr(kn + name_off))
        except Fault:
            continue
        f.add("kernfs_elem_dir.children", "kernfs", f"{inst.name}/{name}",
              kn + children, False, kn)


def proc_children(f: Finder, inst, snap, spec) -> None:
    """Each proc_dir_entry of *snap* that is a directory: its subdir."""
    prog, mem = f.prog, f.mem
    mode_off, subdir, name_off, len_off = _Offsets.of(
        prog, "struct proc_dir_entry", "mode", "subdir", "name", "namelen")
    for addr in snap.nodes:
        pde = addr - spec.layout.node_off
        try:
            mode = mem.int(pde + mode_off, 2, False)
            if mode & S_IFMT != S_IFDIR:
                continue
            name = _name(mem, mem.ptr(pde + name_off),
                         mem.int(pde + len_off, 1, False))
        except Fault:
            continue
        f.add("proc_dir_entry.subdir", "procfs", f"{inst.name}/{name}",
              pde + subdir, False, pde)


def lock_waiters(f: Finder, inst, snap, spec) -> None:
    """Each rt_mutex_waiter of a task's pi_waiters: the lock it waits on,
    whose own tree (rt_mutex_base.waiters) holds it too."""
    lock_off, = _Offsets.of(f.prog, "struct rt_mutex_waiter", "lock")
    base_t = f.prog.type("struct rt_mutex_base")
    for addr in snap.nodes:
        slot = addr - spec.layout.node_off + lock_off
        try:
            lock = f.mem.ptr(slot)
        except Fault:
            continue
        if lock:
            f.add_object(base_t, lock, "pi-locks", f"lock {lock:#x} "
                         f"(a waiter of {inst.name})",
                         still=_waits(f.mem, inst.root, addr, slot, lock,
                                      spec.layout))


MAX_WAITERS = 1 << 12
"""Nodes of a task's pi_waiters looked through at most by :func:`_waits`."""


def _waits(mem, root: int, node: int, slot: int, lock: int, layout):
    """A check that the waiter whose rb_node is at *node* is still in the
    tree rooted at *root* and still waits on *lock* (the word at *slot*):
    a waiter lives on its task's stack, and a lock found through one that
    has gone may be read as that stack's garbage.  Where it cannot be
    told (a read faults), the check says it is."""
    def still() -> bool:
        try:
            todo, seen = [mem.ptr(root)], set()
            while todo and len(seen) < MAX_WAITERS:
                n = todo.pop()
                if not n or n in seen:
                    continue
                if n == node:
                    return mem.ptr(slot) == lock
                seen.add(n)
                todo += [mem.ptr(n + layout.left_off),
                         mem.ptr(n + layout.right_off)]
            return len(seen) >= MAX_WAITERS
        except Fault:
            return True
    return still


CHILDREN = {"kernfs_elem_dir.children": kernfs_children,
            "proc_dir_entry.subdir": proc_children,
            "task_struct.pi_waiters": lock_waiters}
"""Kind -> the walk that finds more trees in a read tree's entries."""


def _kernfs_root(f: Finder, kn: int, name: str) -> int:
    if not kn:
        return 0
    children, = _Offsets.of(f.prog, "struct kernfs_node", "dir.children")
    f.add("kernfs_elem_dir.children", "kernfs", name, kn + children,
          False, kn)
    return 1


def find_kernfs_roots(f: Finder) -> int:
    """sysfs's root directory, and cgroup's default hierarchy's."""
    prog = f.prog
    n = 0
    try:
        n += _kernfs_root(f, int(prog["sysfs_root_kn"]), "/sys")
    except KeyError:
        pass
    try:
        kf_root = prog["cgrp_dfl_root"].kf_root
        if kf_root:
            n += _kernfs_root(f, int(kf_root.kn), "cgroup2:")
    except (KeyError, AttributeError):
        pass
    return n


def find_proc_net(f: Finder) -> int:
    """Each network namespace's /proc/net directory."""
    from drgn.helpers.linux.list import list_for_each_entry
    prog = f.prog
    try:
        head = prog["net_namespace_list"]
    except KeyError:
        return 0
    subdir, = _Offsets.of(prog, "struct proc_dir_entry", "subdir")
    n = 0
    for net in list_for_each_entry("struct net", head.address_of_(),
                                   "list"):
        pde = int(net.proc_net)
        if pde:
            n += f.add("proc_dir_entry.subdir", "procfs",
                       f"/proc/net (net {int(net.value_()):#x})",
                       pde + subdir, False, pde)
        if n > 4096:
            break
    return n
