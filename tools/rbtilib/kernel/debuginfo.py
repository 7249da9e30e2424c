# SPDX-License-Identifier: GPL-2.0
"""drgn: its memory and types, and the debug info it loads."""

import os
import struct
import sys

from . import Fault, KernelError
from .drgnload import FLATTENED, has_module_api, load_drgn as _drgn
from .coredump import (core_release, core_vmlinux, module_symbol_address,
                       no_core_vmlinux, open_core)
from .vmcore import elf_notes, needs_patch, patched_copy
from .walk import PTR, Memory, PageReads, TypeInfo


class DrgnMemory(Memory):
    """Memory of a drgn Program; FaultError becomes Fault."""

    def __init__(self, prog) -> None:
        self.prog = prog
        self.fault = _drgn().FaultError

    def read(self, addr: int, size: int) -> bytes:
        try:
            return self.prog.read(addr, size)
        except (self.fault, ValueError, OverflowError):
            raise Fault(addr) from None

    def pass_reader(self) -> Memory:
        # A read of /proc/kcore costs a system call whatever its size
        # (18-19 us for 8 to 512 bytes, 23 us for a page, in the 6.1
        # debug guest): a pass reads whole pages.
        return PageReads(self)


def unalias(type_):
    """*type_* without typedefs and qualifiers."""
    kinds = _drgn().TypeKind
    type_ = type_.unqualified()
    while type_.kind == kinds.TYPEDEF:
        type_ = type_.type.unqualified()
    return type_


class DrgnType(TypeInfo):
    """TypeInfo of a drgn Type."""

    def __init__(self, type_) -> None:
        self.type = unalias(type_)
        self.cache: dict = {}

    def member(self, name: str) -> tuple:
        if name in self.cache:
            return self.cache[name]
        kinds = _drgn().TypeKind
        try:
            member = self.type.member(name)
        except (LookupError, ValueError, TypeError):
            raise AttributeError(f"{self.type.type_name()} has no member "
                                 f"{name!r}") from None
        off = member.bit_offset // 8
        mtype = unalias(member.type)
        if mtype.kind in (kinds.STRUCT, kinds.UNION):
            value = (off, 0, False, DrgnType(mtype))
        else:
            signed = False
            if mtype.kind == kinds.INT:
                signed = mtype.is_signed
            elif mtype.kind == kinds.ENUM and mtype.type is not None:
                signed = mtype.type.is_signed
            value = (off, mtype.size or PTR, signed, None)
        self.cache[name] = value
        return value


def _build_id_of_notes(data: bytes) -> str | None:
    """The GNU build id (NT_GNU_BUILD_ID) in a run of ELF notes."""
    return next((desc.hex() for name, ntype, desc in elf_notes(data)
                 if ntype == 3 and name == b"GNU"), None)


def _elf_sections(f) -> list[tuple[int, int, int, int]] | None:
    """The section headers of the ELF64 file open as *f*: (name offset,
    type, file offset, size) each, or None if it is no ELF64 file."""
    head = f.read(64)
    if head[:4] != b"\x7fELF" or head[4] != 2:
        return None
    shoff, = struct.unpack_from("<Q", head, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", head, 0x3a)
    f.seek(shoff)
    table = f.read(shentsize * shnum)
    out = []
    for i in range(shnum):
        name, stype = struct.unpack_from("<II", table, i * shentsize)
        off, size = struct.unpack_from("<QQ", table, i * shentsize + 0x18)
        out.append((name, stype, off, size))
    return out


def build_id_of_elf(path: str) -> str | None:
    """The GNU build id of an ELF64 file (from its SHT_NOTE sections)."""
    try:
        with open(path, "rb") as f:
            for _, stype, off, size in _elf_sections(f) or ():
                if stype == 7 and size < 1 << 16:
                    f.seek(off)
                    found = _build_id_of_notes(f.read(size))
                    if found:
                        return found
    except (OSError, struct.error):
        return None
    return None


def running_build_id(notes: str) -> str | None:
    """The build id in a sysfs notes file, or None if absent."""
    try:
        with open(notes, "rb") as f:
            return _build_id_of_notes(f.read())
    except OSError:
        return None


KERNEL_NOTES = "/sys/kernel/notes"
"""The running kernel's ELF notes: its build id."""

DRGN_VMLINUX_PATHS = (
    "/usr/lib/debug/boot/vmlinux-{release}",
    "/usr/lib/debug/lib/modules/{release}/vmlinux",
    "/boot/vmlinux-{release}",
    "/lib/modules/{release}/build/vmlinux",
    "/lib/modules/{release}/vmlinux",
)
"""Where drgn's own search (``load_debug_info(default=True)``) looks for
the running kernel's vmlinux, in its order (libdrgn's linux_kernel.c,
``vmlinux_paths``, as of 0.0.22): it takes the first ELF file there is,
without checking its build id or that it has debug info.  ``rbti
doctor`` says which one that is and whether it will do."""


def find_vmlinux(explicit: str | None, environ=None,
                 notes: str = KERNEL_NOTES) -> str | None:
    """The vmlinux of the running kernel in the places only rbti knows
    (--vmlinux, $RBTI_KBUILD, if its build id matches), or None: drgn's
    own search (:data:`DRGN_VMLINUX_PATHS`) does the rest.  *environ*
    and *notes* are the process's and the kernel's unless given."""
    if explicit:
        return explicit
    build = (os.environ if environ is None else environ).get("RBTI_KBUILD")
    path = os.path.join(build, "vmlinux") if build else None
    if path and os.path.exists(path):
        want = running_build_id(notes)
        if want is None or build_id_of_elf(path) == want:
            return path
    return None


def elf_has_debug_info(path: str) -> bool:
    """True if *path* is an ELF64 file with a .debug_info section (what
    drgn needs of a vmlinux); False for anything else, unreadable too."""
    try:
        with open(path, "rb") as f:
            head = f.read(64)
            f.seek(0)
            sections = _elf_sections(f)
            if not sections:
                return False
            shstrndx, = struct.unpack_from("<H", head, 0x3e)
            _, _, off, size = sections[shstrndx]
            f.seek(off)
            names = f.read(min(size, 1 << 20))
            return any(names[name:name + 12] == b".debug_info\0"
                       for name, _, _, _ in sections)
    except (OSError, struct.error, IndexError):
        return False


def no_vmlinux(error: Exception) -> KernelError:
    """The error for a running kernel whose vmlinux neither rbti nor drgn
    found (*error*: drgn's)."""
    want = running_build_id(KERNEL_NOTES)
    build = os.environ.get("RBTI_KBUILD")
    where = f"{build}/vmlinux has another build id; " if build else ""
    return KernelError(
        f"no vmlinux for the running kernel (build id {want or 'unknown'})"
        f": {where}drgn: {error}; set RBTI_KBUILD or pass --vmlinux")


MODULE_KO_PATHS = (
    "/lib/modules/{release}",
    "/usr/lib/debug/lib/modules/{release}",
)
"""Where a module of the running kernel is installed, after $RBTI_KMOD:
its module directory (``make modules_install``, DKMS, a distribution's
package) and that of its separate debug info."""


def module_dirs(environ=None, release: str | None = None) -> list:
    """Where rbti looks for the loaded module's .ko, in order: $RBTI_KMOD
    (the process's environment unless *environ* is given), then
    :data:`MODULE_KO_PATHS` of *release* (the running kernel's unless
    given)."""
    env = os.environ if environ is None else environ
    release = os.uname().release if release is None else release
    return [d for d in (env.get("RBTI_KMOD"),) if d] + \
        [p.format(release=release) for p in MODULE_KO_PATHS]


def find_module_ko(name: str, dirs: list,
                   sys_module: str = "/sys/module",
                   files: list | tuple = ()) -> str | None:
    """The .ko of loaded module *name* whose build id matches, if any
    (None if the kernel gives no build id): the first of *files* (the
    ones ``--debug-info`` names) with that build id, else a *name*.ko
    under *dirs*.  KernelError if the module is loaded and none has it."""
    want = running_build_id(f"{sys_module}/{name}/notes/.note.gnu.build-id")
    if want is None:
        return None
    for path in files:
        if build_id_of_elf(path) == want:
            return path
    for d in dirs:
        for root, _, names in os.walk(d):
            for fname in names:
                if fname == f"{name}.ko":
                    path = os.path.join(root, fname)
                    if build_id_of_elf(path) == want:
                        return path
    where = list(dirs) + [f"--debug-info {f}" for f in files]
    raise KernelError(f"module {name} is loaded (build id {want}) but no "
                      f"{name}.ko with that build id in "
                      f"{', '.join(where) or '(nowhere)'}")


def _fstype(path: str) -> str:
    """The type of the filesystem holding *path* (from /proc/mounts)."""
    best, kind = "", ""
    path = os.path.realpath(path)
    try:
        with open("/proc/mounts") as f:
            for line in f:
                fields = line.split()
                mnt = fields[1]
                if (path == mnt or path.startswith(mnt.rstrip("/") + "/")) \
                        and len(mnt) >= len(best):
                    best, kind = mnt, fields[2]
    except OSError:
        pass
    return kind


def local_copy(path: str) -> str:
    """*path*, or a copy under $TMPDIR if it is on 9p: drgn reads debug
    info through mmap, and page faults over 9p made loading vmlinux take
    121 s in the debug guest (copy 20 s + load from tmpfs 11 s)."""
    if _fstype(path) != "9p":
        return path
    tmp = os.environ.get("TMPDIR", "/tmp")
    if _fstype(tmp) == "9p":
        return path
    st = os.stat(path)
    key = build_id_of_elf(path) or f"{st.st_size}-{int(st.st_mtime)}"
    dest = os.path.join(tmp, "rbti-debuginfo", key, os.path.basename(path))
    if not os.path.exists(dest) or os.path.getsize(dest) != st.st_size:
        os.makedirs(os.path.dirname(dest), exist_ok=True)
        part = dest + ".part"
        with open(path, "rb") as src, open(part, "wb") as out:
            while True:
                chunk = src.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
        os.replace(part, dest)
    return dest


def open_program(args):
    """A drgn Program over /proc/kcore (or --core) with debug info."""
    drgn = _drgn()
    core = args.core or args.kcore
    if not os.path.exists(core):
        if args.core:
            raise KernelError(f"{args.core}: no such core dump")
        raise KernelError(f"{args.kcore} does not exist: the kernel was "
                          "built without CONFIG_PROC_KCORE (or /proc is "
                          "not mounted)")
    dump = None
    if args.core:
        # Its format first: drgn must read it, whatever the debug info.
        dump = open_core(args.core, drgn)
    try:
        return _open(drgn, args, core, dump)
    finally:
        # A copy rbti made for drgn (kdump.uts_copy, vmcore.patched_copy):
        # drgn holds it open, or failed.
        if dump and dump["copy"] and os.path.exists(dump["copy"]):
            os.unlink(dump["copy"])


def _open(drgn, args, core: str, dump):
    """open_program() once the core dump is known (*dump*, from
    open_core(), or None for the live kernel)."""
    if args.core:
        files, search = [args.vmlinux] if args.vmlinux else [], False
        core = dump["copy"] or core
    else:
        files = [path for path in (find_vmlinux(args.vmlinux),) if path]
        search = not files      # no vmlinux found: drgn looks for one
        try:
            ko = find_module_ko("rbtree_inspector", module_dirs(),
                                files=args.debug_info or [])
        except KernelError as e:
            # The kernel's trees need only the vmlinux: read on.
            ko = None
            print(f"rbti {args.command}: {e}: the module's trees are not "
                  "read (--debug-info FILE or RBTI_KMOD=DIR names its .ko)",
                  file=sys.stderr)
        if ko and ko not in (args.debug_info or []):
            files.append(ko)
    files += args.debug_info or []
    for path in files:
        if not os.path.exists(path):
            raise KernelError(f"{path}: no such debug info file")
    files = [local_copy(path) for path in files]
    if dump and dump["notice"]:
        print(f"rbti {args.command}: {dump['notice']}", file=sys.stderr)
    if dump and dump["format"] == "elf" and needs_patch(args.core):
        core, where = patched_copy(args.core)
        dump["copy"] = core
        if where is None:
            print(f"rbti {args.command}: {args.core} maps physical "
                  "addresses only (QEMU's dump-guest-memory without "
                  "paging): reading a copy with the kernel image's virtual "
                  f"addresses added ({args.core} is not changed)",
                  file=sys.stderr)
        else:
            print(f"rbti {args.command}: {args.core} has no VMCOREINFO "
                  "note (a QEMU dump of a guest without CONFIG_FW_CFG_SYSFS "
                  "or without -device vmcoreinfo): reading a copy with the "
                  "kernel's own added, found at file offset "
                  f"{where:#x} ({args.core} is not changed)",
                  file=sys.stderr)
        dump.update(core_release(core))
    if dump and not args.vmlinux:
        # $RBTI_KBUILD's vmlinux if it is the dump's kernel's; else drgn
        # looks for the dump's release's (DRGN_VMLINUX_PATHS).
        vmlinux = core_vmlinux(dump, build_id_of_elf)
        files[:0] = [local_copy(vmlinux)] if vmlinux else []
        search = not vmlinux
    prog = drgn.Program()
    try:
        if core == "/proc/kcore":
            prog.set_kernel()
        else:
            prog.set_core_dump(core)
    except (OSError, ValueError) as e:
        raise KernelError(f"{args.core or core}: {e}") from None
    if dump and dump["format"] == FLATTENED:
        # drgnload.FLATTENED: this drgn reads it (its probe opened it).
        version = getattr(drgn, "__version__", "?")
        print(f"rbti {args.command}: {args.core} is makedumpfile's "
              f"flattened format (makedumpfile -F), which this drgn "
              f"({version}) reads, slowly, without a kdump header (no "
              "VMCOREINFO to find its vmlinux by): 'makedumpfile -R "
              f"NEWFILE < {args.core}' makes a kdump file of it",
              file=sys.stderr)
    try:
        # drgn's own search only where rbti's places had no vmlinux: it
        # would also look for every loaded module's debug info.
        prog.load_debug_info(files, default=search)
    except drgn.MissingDebugInfoError as e:
        # Missing info for modules we do not read is fine.
        if kernel_info_missing(prog, e):
            if not args.core and not args.vmlinux:
                raise no_vmlinux(e) from None
            if dump and search:
                raise no_core_vmlinux(args.core, dump, e,
                                      DRGN_VMLINUX_PATHS) from None
            raise KernelError(f"no debug info for the kernel: {e}") from None
    return prog




def kernel_info_missing(prog, error: Exception) -> bool:
    """Whether drgn's MissingDebugInfoError *error*, raised by
    ``load_debug_info()`` on *prog*, means the kernel's own debug info
    (vmlinux) is missing, not only some module's.  drgnload.MODULE_API:
    drgn 0.0.31 says which in no exception, so the program is asked
    (its main module, the kernel, has no debug file); 0.0.22 names the
    kernel and vmlinux in the message."""
    if has_module_api(prog):
        try:
            return prog.main_module().debug_file_path is None
        except LookupError:         # no main module: no kernel at all
            return True
    return "vmlinux" in str(error) and "kernel" in str(error).lower()


# The lowest kernel address on x86-64: a symbol below it was not relocated.
KERNEL_SPACE = 0xffff800000000000


def module_object(prog, name: str, kallsyms: str = "/proc/kallsyms"):
    """The object of the module symbol *name*, at its real address.

    drgn 0.0.22 places a module's symbols from the kernel's struct module,
    whose layout changed in 6.4 (module_memory: it looks for
    ``core_size``): on newer kernels it leaves them at their offsets in
    the .ko. The live kernel's /proc/kallsyms (read as root) has the real
    address, and in a dump the module's own symbol table, which the
    kernel keeps in memory (:func:`~.coredump.module_symbol_address`);
    the type still comes from the module's debug info. A KernelError
    where neither places the symbol."""
    drgn = _drgn()
    try:
        obj = prog[name]
    except KeyError:
        raise KernelError(f"no symbol {name}") from None
    if obj.address_ is not None and obj.address_ >= KERNEL_SPACE:
        return obj
    if not prog.flags & drgn.ProgramFlags.IS_LIVE:
        try:
            addr = module_symbol_address(prog, name)
        except KernelError as e:
            raise KernelError(
                f"drgn {drgn.__version__} cannot place the module symbol "
                f"{name} (this kernel's struct module is newer than it "
                f"knows), and the dump does not say where it is: {e}") \
                from None
        return drgn.Object(prog, obj.type_, address=addr)
    addr = module_symbols(kallsyms).get(name)
    if addr:
        return drgn.Object(prog, obj.type_, address=addr)
    raise KernelError(f"{name} has no address in {kallsyms} (not root, or "
                      "kptr_restrict?)")


# module_symbols()' table of each kallsyms file: {path: (state, symbols)}.
_MODULE_SYMBOLS: dict = {}


def _symbols_state(kallsyms: str):
    """What says that *kallsyms* still lists the same module symbols: the
    loaded modules, their sizes and addresses (/proc/modules) for the
    kernel's own list, the file's identity and size for another file."""
    try:
        if kallsyms == "/proc/kallsyms":
            with open("/proc/modules", encoding="ascii",
                      errors="replace") as f:
                return f.read()
        st = os.stat(kallsyms)
        return (st.st_ino, st.st_size, st.st_mtime_ns)
    except OSError:
        return None


def module_symbols(kallsyms: str = "/proc/kallsyms") -> dict:
    """{name: address} of the module symbols (the lines that name a
    [module]) of *kallsyms*, the first listed address of each name that
    is not 0. A kernel lists some 200,000 symbols, slowly under KASAN:
    the table is read once and kept while the modules stay the same
    (:func:`_symbols_state`). A KernelError where the file cannot be
    read."""
    state = _symbols_state(kallsyms)
    kept = _MODULE_SYMBOLS.get(kallsyms)
    if state is not None and kept is not None and kept[0] == state:
        return kept[1]
    symbols: dict = {}
    try:
        with open(kallsyms, encoding="ascii", errors="replace") as f:
            for line in f:
                if not line.rstrip().endswith("]"):
                    continue
                fields = line.split()
                if len(fields) >= 4 and fields[2] not in symbols:
                    addr = int(fields[0], 16)
                    if addr:        # 0: hidden (kptr_restrict, not root)
                        symbols[fields[2]] = addr
    except (OSError, ValueError) as e:
        raise KernelError(f"{kallsyms}: {e}") from None
    if state is not None:
        _MODULE_SYMBOLS[kallsyms] = (state, symbols)
    return symbols
