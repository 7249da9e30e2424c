# SPDX-License-Identifier: GPL-2.0
"""``rbti doctor``: what rbti can do on this machine, and why not.

Each probe looks at one thing (drgn, root, lockdown, /proc/kcore, the
running kernel's debug info, the module, its debug info, debugfs) and
returns a :class:`Check`; none raises: a file that cannot be read or a
directory that is not there is a finding like any other.  A check lists
the capabilities (:data:`CAPABILITIES`) its finding blocks, with the fix.
The debug info is looked for where ``rbti census`` looks for it
(:mod:`rbtilib.kernel.debuginfo`: ``--vmlinux``, $RBTI_KBUILD, then
drgn's own places; the module's .ko in $RBTI_KMOD, then under
/lib/modules/RELEASE), so that a green doctor is a census that starts.

Every path is read through a :class:`Host`, under its *root* (``/``; the
tests build a fake machine in a directory).
"""

import os

from .driver import DEFAULT_ROOT
from .record import factory, record

MODULE = "rbtree_inspector"
LOCKDOWN = "/sys/kernel/security/lockdown"

CAPABILITIES = {
    "census": "rbti census, rbti kernel (the running kernel's trees)",
    "module": "rbti trees, dump, check, show, fuzz, replay, overlap, stress "
              "(the module's trees), viz/walkthrough",
    "verify": "rbti verify, rbti kernel --preset inspector",
}
"""What the checks' findings may block, and the commands each is.  Saved
dumps (``rbti check FILE``, ``rbti show FILE``, viz/render) need none of
it."""

DRGN_FIX = ("sudo apt-get install python3-drgn (Debian 12 and later, Ubuntu "
            "22.04 and later); a venv sees it only if made with "
            "--system-site-packages; elsewhere: pip install drgn")
ROOT_FIX = ("run it as root: sudo rbti ... (an rbti installed in a venv: "
            "sudo \"$(command -v rbti)\" ...); sudo drops RBTI_KMOD and "
            "RBTI_KBUILD: sudo --preserve-env=RBTI_KMOD,RBTI_KBUILD ...")
CORE_INSTEAD = "or read a crash dump instead: rbti census --core VMCORE --vmlinux VMLINUX"


@record
class Check:
    """One probe's verdict: *name* (the JSON's), *title* (the text's),
    what it *found*, the capabilities it *blocks* and the *fix*, and the
    places it *looked* (the debug info's)."""
    name: str
    title: str
    found: str
    blocks: list = factory(list)
    fix: str = ""
    looked: list = factory(list)

    @property
    def ok(self) -> bool:
        return not self.blocks


class Host:
    """The machine the probes look at.

    *root*: the directory every path is read under (``/``); *environ*,
    *euid* and *release* (``uname -r``): the process's unless given;
    *import_drgn* ``() -> module`` (raises if there is none); *modinfo*
    ``(name) -> path | None`` (``modinfo -n``); *kcore*, *vmlinux* and
    *debugfs*: rbti's options ``--kcore``, ``--vmlinux`` and ``--root``
    (the module's debugfs directory)."""

    def __init__(self, root: str = "/", environ=None, euid=None, release=None,
                 import_drgn=None, modinfo=None, kcore: str = "/proc/kcore",
                 vmlinux=None, debugfs: str = DEFAULT_ROOT) -> None:
        self.root = root
        self.environ = dict(os.environ if environ is None else environ)
        self.euid = os.geteuid() if euid is None else euid
        self.release = os.uname().release if release is None else release
        self.import_drgn = import_drgn or _import_drgn
        self.modinfo = modinfo or _modinfo
        self.kcore, self.vmlinux = kcore, vmlinux
        self.debugfs = debugfs

    def path(self, path: str) -> str:
        """*path* on this machine (under *root*)."""
        if self.root in ("", "/"):
            return path
        return os.path.join(self.root, path.lstrip("/"))

    def exists(self, path: str) -> bool:
        return os.path.exists(self.path(path))

    def read(self, path: str, size: int = 1 << 20):
        """``(text, None)``, or ``(None, why)`` if *path* cannot be read."""
        try:
            with open(self.path(path), "rb") as f:
                return f.read(size).decode("utf-8", "replace"), None
        except OSError as e:
            return None, e.strerror or str(e)

    def head(self, path: str, size: int) -> bytes:
        """The first *size* bytes of *path* (OSError if it cannot be read)."""
        with open(self.path(path), "rb") as f:
            return f.read(size)


def _import_drgn():
    from .kernel.debuginfo import _drgn
    return _drgn()


def _modinfo(name: str):
    """The file ``modinfo -n NAME`` names, or None (no modinfo, no such
    module, anything else)."""
    import subprocess
    try:
        out = subprocess.run(["modinfo", "-n", name], capture_output=True,
                             text=True, timeout=10, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    path = out.stdout.strip()
    return path if out.returncode == 0 and path.startswith("/") else None


def _mounts(host: Host) -> list:
    """(mount point, type) of each line of /proc/mounts."""
    text, _ = host.read("/proc/mounts")
    return [(f[1], f[2]) for f in (line.split() for line in (text or "").splitlines())
            if len(f) >= 3]


def os_ids(host: Host) -> set:
    """ID and ID_LIKE of /etc/os-release: {"debian"}, {"ubuntu", "debian"}..."""
    text, _ = host.read("/etc/os-release")
    ids = set()
    for line in (text or "").splitlines():
        key, _, value = line.partition("=")
        if key in ("ID", "ID_LIKE"):
            ids.update(value.strip().strip('"').lower().split())
    return ids


def debuginfo_fix(host: Host) -> str:
    """How to get the running kernel's vmlinux on this distribution."""
    r, ids = host.release, os_ids(host)
    own = ("or, for a kernel you built, set RBTI_KBUILD to its build "
           "directory or pass --vmlinux FILE")
    if "ubuntu" in ids:
        get = (f"sudo apt-get install linux-image-unsigned-{r}-dbgsym (or "
               f"linux-image-{r}-dbgsym), from the ddebs.ubuntu.com archive")
    elif "debian" in ids:
        get = f"sudo apt-get install linux-image-{r}-dbg"
    elif ids & {"fedora", "rhel", "centos", "rocky", "almalinux"}:
        get = f"sudo dnf debuginfo-install kernel-{r} (kernel-debuginfo)"
    elif ids & {"suse", "opensuse"}:
        get = "sudo zypper install kernel-default-debuginfo"
    else:
        get = (f"install kernel {r}'s debug info package (Debian: "
               f"linux-image-{r}-dbg; Ubuntu: linux-image-unsigned-{r}-dbgsym; "
               f"Fedora: dnf debuginfo-install kernel-{r})")
    return f"{get}; {own}"


def probe_drgn(host: Host) -> Check:
    from .kernel import KernelError
    try:
        drgn = host.import_drgn()
    except KernelError:         # not installed (its message is DRGN_FIX's)
        return Check("drgn", "drgn", "not installed", ["census", "verify"], DRGN_FIX)
    except Exception as e:      # pylint: disable=broad-except
        # An install that does not load (a missing library, a bad build).
        return Check("drgn", "drgn", f"import drgn fails: {type(e).__name__}: {e}",
                     ["census", "verify"], DRGN_FIX)
    where = os.path.dirname(getattr(drgn, "__file__", None) or "") or "?"
    return Check("drgn", "drgn",
                 f"drgn {getattr(drgn, '__version__', '(no version)')} at {where}")


def probe_root(host: Host) -> Check:
    if host.euid == 0:
        return Check("root", "root", "running as root")
    return Check("root", "root",
                 f"running as uid {host.euid}: /proc/kcore and debugfs are root's",
                 ["census", "module", "verify"], ROOT_FIX)


def lockdown_mode(host: Host) -> str | None:
    """The lockdown mode (none, integrity, confidentiality), or None if
    the file cannot be read."""
    text, _ = host.read(LOCKDOWN)
    if text is None:
        return None
    for word in text.split():
        if word.startswith("[") and word.endswith("]"):
            return word[1:-1]
    return text.strip() or None


def probe_lockdown(host: Host) -> Check:
    mode = lockdown_mode(host)
    if mode is None:
        _, why = host.read(LOCKDOWN)
        if not host.exists(LOCKDOWN) and \
                any(t == "securityfs" for _, t in _mounts(host)):
            return Check("lockdown", "lockdown",
                         f"no {LOCKDOWN}: this kernel has no lockdown")
        return Check("lockdown", "lockdown",
                     f"unknown: {LOCKDOWN}: {why} (securityfs not mounted? "
                     "mount -t securityfs none /sys/kernel/security); the "
                     "/proc/kcore check says whether it is readable")
    if mode == "none":
        return Check("lockdown", "lockdown", "none")
    module_fix = ("to load the module and write to it: boot without "
                  "lockdown=integrity or, where Secure Boot sets it, turn Secure "
                  "Boot off (mokutil --disable-validation); signing "
                  "rbtree_inspector.ko with a key enrolled in MOK (mokutil "
                  "--import) lets it load, but its debugfs writes stay refused")
    if mode == "integrity":
        return Check("lockdown", "lockdown",
                     "integrity (set by Secure Boot, or lockdown=integrity): "
                     "/proc/kcore stays readable; unsigned modules and debugfs "
                     "files that can be written (the module's insert, erase, "
                     "...) are refused", ["module", "verify"], module_fix)
    return Check("lockdown", "lockdown",
                 f"{mode}: /proc/kcore is refused, and unsigned modules and "
                 "debugfs writes", ["census", "module", "verify"],
                 f"boot without lockdown={mode} (or with Secure Boot off where "
                 f"it sets lockdown: mokutil --disable-validation); {CORE_INSTEAD}")


def probe_kcore(host: Host) -> Check:
    import errno
    kcore = host.kcore
    blocks = ["census", "verify"]
    try:
        head = host.head(kcore, 4)
    except FileNotFoundError:
        return Check("kcore", kcore, f"{kcore} does not exist: the kernel was "
                     "built without CONFIG_PROC_KCORE (or /proc is not mounted)",
                     blocks, f"a kernel with CONFIG_PROC_KCORE=y; {CORE_INSTEAD}")
    except OSError as e:
        why = f"{kcore}: {e.strerror or e}"
        if host.euid != 0:
            return Check("kcore", kcore, f"{why} (root only)", blocks, ROOT_FIX)
        if e.errno == errno.EPERM and lockdown_mode(host) not in (None, "none"):
            return Check("kcore", kcore, f"{why}: refused by lockdown", blocks,
                         "see lockdown")
        return Check("kcore", kcore, f"{why}: refused though running as root",
                     blocks, "a security module refuses it (lockdown, SELinux, "
                     f"AppArmor: see dmesg); {CORE_INSTEAD}")
    if head != b"\x7fELF":
        return Check("kcore", kcore, f"{kcore} is not an ELF core ({head!r})",
                     blocks, "give --kcore the kernel's /proc/kcore")
    return Check("kcore", kcore, "readable")


def _describe(path: str, want: str | None) -> tuple:
    """``(usable, what)`` of a vmlinux at *path*, for the running kernel's
    build id *want*."""
    from .kernel.debuginfo import build_id_of_elf, elf_has_debug_info
    if not os.path.exists(path):
        return False, "absent"
    if not elf_has_debug_info(path):
        return False, "no debug info (not an ELF file with .debug_info)"
    have = build_id_of_elf(path)
    if want and have and have != want:
        return False, f"build id {have}, not the running kernel's"
    return True, "debug info" + (f", build id {have}" if have else "")


def probe_vmlinux(host: Host) -> Check:
    from .kernel.debuginfo import (DRGN_VMLINUX_PATHS, KERNEL_NOTES,
                                   find_vmlinux, running_build_id)
    want = running_build_id(host.path(KERNEL_NOTES))
    title = "debug info"
    kernel = f"kernel {host.release} (build id {want or 'unknown'})"
    blocks = ["census", "verify"]
    if host.vmlinux:
        usable, what = _describe(host.path(host.vmlinux), want)
        looked = [f"--vmlinux {host.vmlinux}: {what}"]
        if usable:
            return Check("vmlinux", title, f"{host.vmlinux} for {kernel}", [], "", looked)
        return Check("vmlinux", title, f"--vmlinux {host.vmlinux} will not do for "
                     f"{kernel}: {what}", blocks, debuginfo_fix(host), looked)
    build = host.environ.get("RBTI_KBUILD")
    looked = []
    if build:
        env = {"RBTI_KBUILD": host.path(build)}
        found = find_vmlinux(None, env, host.path(KERNEL_NOTES))
        _, what = _describe(host.path(os.path.join(build, "vmlinux")), want)
        looked.append(f"$RBTI_KBUILD/vmlinux ({build}/vmlinux): {what}")
        if found:
            return Check("vmlinux", title, f"{build}/vmlinux for {kernel}",
                         [], "", looked)
    else:
        looked.append("$RBTI_KBUILD: unset")
    first = None
    for fmt in DRGN_VMLINUX_PATHS:
        path = fmt.format(release=host.release)
        usable, what = _describe(host.path(path), want)
        looked.append(f"{path}: {what}")
        if first is None and what != "absent":
            first = (path, usable, what)
    if first and first[1]:
        return Check("vmlinux", title, f"{first[0]} for {kernel} (drgn's search)",
                     [], "", looked)
    if first:
        return Check("vmlinux", title, f"drgn would take {first[0]}, the first "
                     f"vmlinux of its search, for {kernel}: {first[2]}", blocks,
                     f"remove or replace {first[0]}, or pass --vmlinux FILE; "
                     + debuginfo_fix(host), looked)
    return Check("vmlinux", title, f"no vmlinux for {kernel}", blocks,
                 debuginfo_fix(host), looked)


def probe_module(host: Host) -> Check:
    sysdir = f"/sys/module/{MODULE}"
    if not os.path.isdir(host.path(sysdir)):
        return Check("module", "module", f"{MODULE} is not loaded (no {sysdir})",
                     ["module", "verify"],
                     "build it and load it: make -C kmod (KDIR=your build; "
                     "Debian: apt-get install linux-headers-$(uname -r)), then "
                     "sudo insmod kmod/rbtree_inspector.ko")
    state, _ = host.read(f"{sysdir}/initstate")
    state = (state or "").strip()
    if state and state != "live":
        return Check("module", "module", f"{MODULE} is {state}, not live",
                     ["module", "verify"], "wait for it, or reload it")
    return Check("module", "module", f"{MODULE} is loaded")


def probe_module_debuginfo(host: Host) -> Check:
    from .kernel import KernelError
    from .kernel.debuginfo import find_module_ko, module_dirs, running_build_id
    title = "module debug info"
    sys_module = host.path("/sys/module")
    if not os.path.isdir(os.path.join(sys_module, MODULE)):
        return Check("module-debug-info", title, "not needed: the module is not loaded")
    want = running_build_id(os.path.join(sys_module, MODULE, "notes",
                                         ".note.gnu.build-id"))
    if want is None:
        return Check("module-debug-info", title, "the loaded module's build id "
                     f"cannot be read (/sys/module/{MODULE}/notes): rbti reads "
                     "the kernel without the module's debug info",
                     ["verify"], "run as root, on a kernel that gives modules' notes")
    dirs = module_dirs(host.environ, host.release)
    kmod = host.environ.get("RBTI_KMOD")
    looked = [f"$RBTI_KMOD: {kmod or 'unset'}"] + dirs[1 if kmod else 0:]
    try:
        ko = find_module_ko(MODULE, [host.path(d) for d in dirs], sys_module)
    except KernelError:
        ko = None
    if ko:
        return Check("module-debug-info", title, f"{ko} (build id {want})",
                     [], "", looked)
    # Not where rbti looks: is it where modinfo says?
    named = host.modinfo(MODULE)
    elsewhere = [os.path.dirname(named)] if named else []
    looked += [f"{d} (modinfo -n)" for d in elsewhere]
    try:
        other = find_module_ko(MODULE, [host.path(d) for d in elsewhere], sys_module)
    except KernelError:
        other = None
    sudo = (" (sudo drops it: sudo --preserve-env=RBTI_KMOD ...)"
            if host.environ.get("SUDO_USER") or host.euid == 0 else "")
    found = (f"{MODULE} is loaded (build id {want}) and rbti finds no .ko of it: "
             "rbti census and rbti kernel read on without the module's trees")
    if other:
        return Check("module-debug-info", title, f"{found}; it is {other}",
                     ["verify"], f"pass --debug-info {other}, or export "
                     f"RBTI_KMOD={os.path.dirname(other)}{sudo}", looked)
    return Check("module-debug-info", title, f"{found}; no {MODULE}.ko with that "
                 "build id where rbti looked", ["verify"],
                 "pass --debug-info FILE, the .ko that was loaded (kmod/"
                 f"{MODULE}.ko after make -C kmod), or set RBTI_KMOD to its "
                 f"directory{sudo}, or install it where rbti looks: sudo make -C "
                 "/lib/modules/$(uname -r)/build M=$PWD/kmod modules_install",
                 looked)


def probe_debugfs(host: Host) -> Check:
    mount = os.path.dirname(os.path.normpath(host.debugfs))
    if not any(t == "debugfs" and os.path.normpath(m) == mount for m, t in _mounts(host)):
        return Check("debugfs", "debugfs", f"not mounted at {mount}",
                     ["module", "verify"], f"sudo mount -t debugfs none {mount}")
    trees = os.path.join(host.debugfs, "trees")
    if not os.path.isdir(host.path(f"/sys/module/{MODULE}")):
        return Check("debugfs", "debugfs", f"mounted at {mount}")
    text, why = host.read(trees, 64)
    if text is None:
        return Check("debugfs", "debugfs", f"mounted at {mount}; {trees}: {why}",
                     ["module", "verify"],
                     ROOT_FIX if host.euid != 0 else "see lockdown and module")
    return Check("debugfs", "debugfs", f"mounted at {mount}; {trees} readable")


PROBES = (probe_drgn, probe_root, probe_lockdown, probe_kcore, probe_vmlinux,
          probe_module, probe_module_debuginfo, probe_debugfs)
"""Every probe, in the order the report lists them."""


def examine(host: Host) -> list:
    """Every probe's Check on *host*; a probe that fails is a Check too
    (a bug in it must not hide the others' findings)."""
    out = []
    for probe in PROBES:
        name = probe.__name__[len("probe_"):].replace("_", "-")
        try:
            out.append(probe(host))
        except Exception as e:  # pylint: disable=broad-except
            out.append(Check(name, name, f"the probe failed: {type(e).__name__}: {e}",
                             ["census"], "a bug in rbti doctor: please report it"))
    return out


def blocked(checks: list) -> dict:
    """Capability -> the titles of the checks that block it."""
    return {cap: [c.title for c in checks if cap in c.blocks] for cap in CAPABILITIES}


def report(host: Host, checks: list) -> str:
    """The text report: a line a check (its fix and, for the debug info,
    where it looked, below it), then a line a capability."""
    lines = [f"rbti doctor: Linux {host.release}, uid {host.euid}"]
    for c in checks:
        mark = "ok" if c.ok else "FAIL" if "census" in c.blocks else "warn"
        lines.append(f"{mark:<4}  {c.title}: {c.found}")
        if c.fix:
            lines.append(f"      fix: {c.fix}")
        for i, place in enumerate(c.looked):
            lines.append(f"      {'looked in:' if i == 0 else ' ' * 10} {place}")
    lines += ["", "what runs here:"]
    for cap, by in blocked(checks).items():
        verdict = "yes " if not by else "no  "
        lines.append(f"  {verdict} {CAPABILITIES[cap]}"
                     + (f": needs {', '.join(by)}" if by else ""))
    lines.append("  yes  saved dumps and pictures (rbti check FILE, rbti show FILE, "
                 "viz/render)")
    return "\n".join(lines) + "\n"


def document(host: Host, checks: list) -> dict:
    """The ``--json`` body (docs/json.md, "doctor")."""
    can = {cap: not by for cap, by in blocked(checks).items()}
    return {"ok": can["census"], "release": host.release, "euid": host.euid,
            "checks": [{"check": c.name, "ok": c.ok, "blocks": c.blocks,
                        "found": c.found, "fix": c.fix or None, "looked": c.looked}
                       for c in checks],
            "can": can}
