# SPDX-License-Identifier: GPL-2.0
"""The vmcore suite's formats (tools/kernel-vmcore-test): every file
format of one guest's memory that drgn reads, each read with ``rbti
census --core`` and ``rbti kernel --core`` as a user runs them and
compared with the reading of the ELF dump, tree for tree.

The files are all of the same memory: QEMU's ELF dump, QEMU's own
kdump-compressed dumps written while the guest stayed stopped
(``qemu/run-in-guest --dump-formats``: zlib, lzo and snappy, each where
this QEMU was built with it; QEMU_FORMATS), and makedumpfile's files
made of the ELF dump (zlib, lzo, snappy and zstd where makedumpfile has
them, one lzo file through the flattened format; MAKEDUMPFILE_FORMATS).
A kdump-compressed file needs the kernel's VMCOREINFO in its header,
which QEMU has only from a guest that published it (CONFIG_FW_CFG_SYSFS
and ``-device vmcoreinfo``): :func:`check_published` tests that first.
"""

import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__))))
"""tools/, where rbti is."""

QEMU_FORMATS = (("kdump-zlib", "-z"), ("kdump-lzo", "-l"),
                ("kdump-snappy", "-s"))
"""QEMU's dump-guest-memory formats besides ELF, and the option of its
monitor's ``dump-guest-memory`` command for each."""

MAKEDUMPFILE_FORMATS = (("zlib", "-c", 3), ("lzo", "-l", 1),
                        ("snappy", "-p", 3), ("zstd", "-z", 3))
"""makedumpfile's compressions, its option for each and the dump level
(-d) each is made at: lzo with every page not all zero (-d 1), the
others without the page cache too (-d 3: no tree lives there, and it is
most of a guest that copied its vmlinux to tmpfs).  The lzo file is made
as a dump sent through a pipe is (makedumpfile -F, the flattened format),
then reassembled (makedumpfile -R)."""


def makedumpfile_has() -> tuple[str, set]:
    """makedumpfile's version line and the compressions it was built
    with (``-v``: ``lzo enabled``, ...; zlib always)."""
    try:
        run = subprocess.run(["makedumpfile", "-v"], capture_output=True,
                             text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"no makedumpfile ({e}; qemu/install-deps test)", set()
    lines = (run.stdout + run.stderr).splitlines()
    return (lines[0] if lines else "makedumpfile",
            {"zlib"} | {line.split()[0] for line in lines[1:]
                        if line.split()[1:] == ["enabled"]})


def rbti(command: str, core: str, saved: dict, out: str,
         vmlinux: bool = True, env: dict | None = None):
    """``rbti census --core CORE --json --out OUT`` (*command*
    ``census``) or ``rbti kernel --core CORE --preset inspector --all
    --out OUT`` (``kernel``) as a user runs it: (the process, the
    census's JSON document or the kernel's dumps by file name; None where
    it wrote none).  Without *vmlinux*, rbti finds the dump's kernel's by
    its build id ($RBTI_KBUILD in *env*) or says how to get it."""
    shutil.rmtree(out, ignore_errors=True)
    argv = [sys.executable, os.path.join(HERE, "rbti"), command, "--core",
            core, "--debug-info", saved["ko"], "--attempts", "4", "--out",
            out]
    argv += ["--json"] if command == "census" else \
        ["--preset", "inspector", "--all"]
    argv += ["--vmlinux", saved["vmlinux"]] if vmlinux else []
    run = subprocess.run(argv, capture_output=True, text=True, env=env,
                         timeout=600)
    if command == "kernel":
        return run, dumps_in(out) if run.returncode == 0 else None
    try:
        return run, json.loads(run.stdout)
    except ValueError:
        return run, None


def dumps_in(out: str) -> dict | None:
    """Every tree's dump file in *out* by name, or None if none."""
    if not os.path.isdir(out):
        return None
    got = {}
    for name in sorted(os.listdir(out)):
        if name.endswith(".dump"):
            with open(os.path.join(out, name)) as f:
                got[name] = f.read()
    return got or None


def census_files(doc: dict, out: str) -> dict:
    """A census as rbti wrote it, for comparing: its JSON document but
    for its times, and every tree's dump file by name."""
    got = {k: v for k, v in doc.items() if k != "seconds"}
    got["notes"] = [re.sub(r" in [0-9.]+s$", "", n) for n in doc["notes"]]
    got.update(dumps_in(out) or {})
    return got


def census_diff(want: dict, got: dict) -> str:
    """What differs between two census_files(), the first few of it: the
    trees, their verdicts and dumps, the counts and the kinds.  The notes
    (how each route went) are the census's diagnostics, not its answer: a
    filtered dump can leave out a page a route reads on its way, so a
    difference there is printed (:func:`notes_diff`), not a failure."""
    diff = [k for k in sorted(set(want) | set(got))
            if k != "notes" and want.get(k) != got.get(k)]
    return f"{len(diff)} differ: {', '.join(diff[:6])}" if diff else ""


def notes_diff(want: dict, got: dict) -> list:
    """The notes only one of two census_files() has."""
    a, b = set(want.get("notes", [])), set(got.get("notes", []))
    return [f"ELF only: {n}" for n in sorted(a - b)] + \
        [f"this file only: {n}" for n in sorted(b - a)]


def kernel_diff(want, got) -> str:
    """What differs between two ``rbti kernel --out`` readings (the
    inspector's trees, :func:`dumps_in`), the first few of it."""
    if not want or not got:
        return "rbti kernel wrote no dump"
    diff = [k for k in sorted(set(want) | set(got))
            if want.get(k) != got.get(k)]
    return f"rbti kernel: {len(diff)} differ: {', '.join(diff[:6])}" \
        if diff else ""


class Reference:
    """``rbti census --core`` and ``rbti kernel --core`` of the ELF dump,
    and each other file's against them."""

    def __init__(self, outdir: str, saved: dict, census: dict,
                 kernel) -> None:
        self.outdir, self.saved = outdir, saved
        self.census, self.kernel = census, kernel

    def compare(self, label: str, path: str, vmlinux: bool = True,
                env: dict | None = None) -> tuple[bool, str]:
        """(same, what differs) of the file *path*'s census (exit 1: the
        broken trees) and inspector trees against the ELF dump's."""
        out = os.path.join(self.outdir, f"census-{label}")
        run, doc = rbti("census", path, self.saved, out, vmlinux, env)
        if doc is None:
            return False, run.stderr.strip()[-300:]
        files = census_files(doc, out)
        for line in notes_diff(self.census, files)[:4]:
            print(f"# {label}: census note, {line[:200]}")
        diff = census_diff(self.census, files)
        if run.returncode != 1 or diff:
            return False, diff or f"rbti census exit {run.returncode}"
        run, doc = rbti("kernel", path, self.saved, out + "-kernel",
                        vmlinux, env)
        if doc is None:
            return False, run.stderr.strip()[-300:]
        return not kernel_diff(self.kernel, doc), kernel_diff(self.kernel,
                                                              doc)


def published(guest: dict) -> tuple[bool, str]:
    """Whether the guest handed QEMU its VMCOREINFO (guest.json's
    ``fw_cfg_vmcoreinfo``, :func:`guestdump.fw_cfg_vmcoreinfo`), and
    what it said."""
    got = guest.get("fw_cfg_vmcoreinfo")
    if not isinstance(got, dict):
        return False, "the guest did not say (an older guest.json)"
    if got.get("error"):
        return False, got["error"]
    return bool(got.get("guest_format") == 1 and got.get("size") and
                got.get("paddr")), json.dumps(got)


def qemu_result(said: dict | None, fmt: str) -> tuple[str, str]:
    """What ``run-in-guest --dump-formats`` says of QEMU's format *fmt*
    (its DUMP.formats, read as *said*): ``("ok", "")``, ``("lacks",
    QEMU's error)`` where this QEMU was built without it (not in its
    query-dump-guest-memory-capability, and the dump refused), or
    ``("failed", why)``."""
    if not said:
        return "failed", "no DUMP.formats: run-in-guest wrote no kdump file"
    why = said.get("formats", {}).get(fmt)
    if why == "ok":
        return "ok", ""
    if why is None:
        return "failed", f"{fmt} not asked for"
    if fmt not in said.get("capability", []):
        return "lacks", (f"QEMU {said.get('qemu', '?')} was built without "
                         f"it (its formats: "
                         f"{', '.join(said.get('capability', []))}): {why}")
    return "failed", why


def check_qemu(res, ref: Reference, core: str, kbuild: dict) -> list:
    """QEMU's kdump-compressed files of the same memory as the ELF dump
    *core* (CORE.FORMAT, qemu/run-in-guest --dump-formats), each read
    with no --vmlinux (found by the build id in its VMCOREINFO) against
    the ELF dump's reading.  QEMU before 8.2 writes them flattened, as
    makedumpfile -F does: rbti refuses such a file naming makedumpfile -R
    (or reads it, by a drgn that does), and its reassembled file is the
    one read.  One test a format, whether this QEMU writes it or, built
    without it, refuses it (the test then says so).  Returns the files
    (the caller removes them)."""
    from rbtilib.kernel import kdump
    said = None
    if os.path.exists(core + ".formats"):
        with open(core + ".formats") as f:
            said = json.load(f)
    made = [core + ".formats"]
    for fmt, opt in QEMU_FORMATS:
        path = f"{core}.{fmt}"
        made += [path, path + ".kdump"]
        state, why = qemu_result(said, fmt)
        name = f"{fmt} (QEMU's dump-guest-memory {opt}"
        if state == "lacks":
            res.test(f"{name}): not written here, {why}"[:300], True)
            continue
        if state == "failed" or not os.path.exists(path):
            res.test(f"{name}): written", False, why or f"no {path}")
            continue
        if kdump.sniff(path) == "flat":
            same, diff, reads = flat_refused(ref, path, fmt)
            name += "; flattened, " + ("read" if reads else "refused") + \
                " naming makedumpfile -R, then makedumpfile -R"
            if same:
                if os.path.exists(path + ".kdump"):   # a --keep run's
                    os.remove(path + ".kdump")
                with open(path, "rb") as flat:
                    mk = subprocess.run(["makedumpfile", "-R",
                                         path + ".kdump"], stdin=flat,
                                        capture_output=True, text=True)
                same, diff = mk.returncode == 0, mk.stderr.strip()[-300:]
            if not same:
                res.test(f"{name})", False, diff)
                continue
            path += ".kdump"
        size = os.path.getsize(path) >> 20
        try:
            comp = kdump.kdump_header(path)["compression"]
        except Exception as e:           # KernelError: no VMCOREINFO, ...
            res.test(f"{name}, {size} MiB): a kdump file with VMCOREINFO",
                     False, str(e))
            continue
        same, diff = ref.compare(fmt, path, vmlinux=False, env=kbuild)
        res.test(f"{name}: {comp}, {size} MiB, its vmlinux found by build "
                 "id): rbti census and rbti kernel = the ELF ones, tree for "
                 "tree", same, diff)
    return made


def flat_refused(ref: Reference, path: str, label: str) -> tuple:
    """(as it should be, what is not, whether this drgn reads it) of
    ``rbti census --core`` of the flattened file *path*: exit 2 naming
    makedumpfile -R where this drgn cannot read it, else read (exit 1)
    with a notice naming it."""
    from rbtilib.kernel import kdump
    run, doc = rbti("census", path, ref.saved, os.path.join(
        ref.outdir, f"census-{label}-flat"))
    reads = kdump.probe(path) is None
    want = 1 if reads else 2
    return (run.returncode == want and "makedumpfile -R" in run.stderr,
            f"exit {run.returncode}, not {want}: "
            f"{run.stderr.strip()[-300:]}", reads)


def check_makedumpfile(res, ref: Reference, core: str, kbuild: dict) -> list:
    """``rbti census --core`` and ``rbti kernel --core`` of the
    kdump-compressed files makedumpfile makes of the ELF dump *core*, one
    a compression it has, against the ELF dump's: the same JSON and the
    same dump of every tree; a flattened one refused naming
    ``makedumpfile -R`` (or, by a drgn that reads it, read as the others
    are with a notice naming it).  Returns the files made."""
    made: list = []
    version, have = makedumpfile_has()
    for fmt, opt, level in MAKEDUMPFILE_FORMATS:
        if fmt not in have:
            res.note(f"{version}: no {fmt} ({opt}), not made")
            continue
        path = os.path.join(ref.outdir, f"guest.{fmt}.kdump")
        made.append(path)
        if fmt == "lzo":
            made.append(path + ".flat")
            mk = flattened(res, ref, core, path, opt, level)
        else:
            mk = subprocess.run(["makedumpfile", opt, "-d", str(level), core,
                                 path], capture_output=True, text=True)
        if mk.returncode != 0 or not os.path.exists(path):
            res.test(f"makedumpfile {opt}: a {fmt} file", False,
                     mk.stderr.strip().splitlines()[-2:])
            continue
        size = os.path.getsize(path) >> 20
        # lzo: no --vmlinux, $RBTI_KBUILD's found by the dump's build id
        same, diff = ref.compare(fmt, path, vmlinux=fmt != "lzo",
                                 env=kbuild if fmt == "lzo" else None)
        how = f"-F {opt} -d {level}, then -R" if fmt == "lzo" else \
            f"{opt} -d {level}"
        res.test(f"{fmt} (makedumpfile {how}: {size} MiB"
                 f"{', its vmlinux found by build id' if fmt == 'lzo' else ''}"
                 "): rbti census and rbti kernel = the ELF ones, tree for "
                 "tree", same, diff)
    return made


def flattened(res, ref: Reference, core: str, path: str, opt: str,
              level: int):
    """makedumpfile -F of *core* into PATH.flat, read (or refused naming
    makedumpfile -R) as :func:`check_makedumpfile` says, then
    reassembled into *path* (makedumpfile -R): that process."""
    from rbtilib.kernel import kdump
    with open(path + ".flat", "wb") as flat:
        mk = subprocess.run(["makedumpfile", "-F", opt, "-d", str(level),
                             core], stdout=flat, stderr=subprocess.PIPE,
                            text=True)
    out = os.path.join(ref.outdir, "census-flat")
    run, doc = rbti("census", path + ".flat", ref.saved, out)
    if mk.returncode == 0 and kdump.probe(path + ".flat") is None:
        # drgnload.FLATTENED: this drgn (0.0.31's libkdumpfile) reads it;
        # 0.0.22's does not.
        diff = census_diff(ref.census, census_files(doc, out)) if doc \
            else run.stderr.strip()[-300:]
        res.test("a flattened dump (makedumpfile -F), which this drgn "
                 "reads: rbti census = the ELF one, naming makedumpfile -R",
                 doc is not None and run.returncode == 1 and not diff and
                 "makedumpfile -R" in run.stderr, diff)
    else:
        res.test("a flattened dump (makedumpfile -F): exit 2 naming "
                 "makedumpfile -R", mk.returncode == 0 and
                 run.returncode == 2 and "makedumpfile -R" in run.stderr,
                 (mk.stderr + run.stderr).strip().splitlines()[-2:])
    with open(path + ".flat", "rb") as flat:
        return subprocess.run(["makedumpfile", "-R", path], stdin=flat,
                              capture_output=True, text=True)


def check_formats(res, outdir: str, core: str, saved: dict) -> list:
    """Every format of the guest's memory against its ELF dump *core*
    (module docstring): the guest published its VMCOREINFO and QEMU's ELF
    dump carries it, then QEMU's kdump files and makedumpfile's; a kdump
    file with no vmlinux found says how to get one.  Returns the files
    made (the caller removes them)."""
    from rbtilib.kernel import vmcore
    ok, said = published(saved)
    res.test("the guest handed QEMU its VMCOREINFO (fw_cfg's "
             "etc/vmcoreinfo: CONFIG_FW_CFG_SYSFS, -device vmcoreinfo)",
             ok, said)
    info = vmcore.elf_vmcoreinfo(core) or {}
    res.test("QEMU's ELF dump carries the kernel's VMCOREINFO note",
             "OSRELEASE" in info and "BUILD-ID" in info,
             f"note: {sorted(info)[:8]}")
    os.chmod(core, 0o600)           # QEMU writes it read-only
    # makedumpfile's input, and the ELF census's: read as it is, no copy.
    vmcore.for_makedumpfile(core)
    release = (vmcore.elf_vmcoreinfo(core) or {}).get("OSRELEASE")
    run, doc = rbti("census", core, saved, os.path.join(outdir,
                                                        "census-elf"))
    krun, kdoc = rbti("kernel", core, saved, os.path.join(outdir,
                                                          "kernel-elf"))
    res.test(f"rbti census and rbti kernel --core of the ELF dump: the "
             f"census's JSON and every tree's dump, the "
             f"{len(kdoc or {})} inspector trees' dumps", doc is not None
             and run.returncode == 1 and kdoc is not None and
             len(kdoc) == len(saved["trees"]),
             (run.stderr + krun.stderr).strip().splitlines()[-2:])
    if doc is None or kdoc is None:
        return [core + ".formats"] + [f"{core}.{fmt}"
                                      for fmt, _ in QEMU_FORMATS]
    ref = Reference(outdir, saved, census_files(
        doc, os.path.join(outdir, "census-elf")), kdoc)
    kbuild = dict(os.environ, RBTI_KBUILD=os.path.dirname(saved["vmlinux"]))
    made = check_qemu(res, ref, core, kbuild)
    made += check_makedumpfile(res, ref, core, kbuild)
    from rbtilib.kernel import kdump
    kdumps = [p for p in made if os.path.exists(p) and
              kdump.sniff(p) == "kdump"]
    if kdumps:
        env = {k: v for k, v in os.environ.items() if k != "RBTI_KBUILD"}
        run, _ = rbti("census", kdumps[0], saved, os.path.join(
            outdir, "census-none"), vmlinux=False, env=env)
        res.test("a kdump file with no vmlinux found: exit 2 naming "
                 f"linux-image-{release}-dbg and --vmlinux",
                 run.returncode == 2 and f"linux-image-{release}-dbg" in
                 run.stderr and "--vmlinux PATH" in run.stderr,
                 run.stderr.strip().splitlines()[-1:])
    return made
