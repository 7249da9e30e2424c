# SPDX-License-Identifier: GPL-2.0
"""The census's C core as a shared library: where it is, how it is built.

The sources are ``ccore/*.c`` beside this module; the library is built
with the system compiler (``$CC``, else ``gcc``), and found, in order:

1. ``$RBTI_CCORE``: a path to the library, or ``python`` (or ``off``, ``0``)
   for none: the census then checks in Python;
2. the extension ``pip install .`` built beside this package
   (``rbtilib/kernel/_rbti_cc*.so``, setup.py);
3. ``librbti_cc-HASH.so`` (HASH: of the sources and the flags) under
   ``$RBTI_OUT/ccore`` (the checkout's ``out/ccore`` without it), where
   ``make`` builds it (``tools/build-ccore``), else under the user's cache
   (``$RBTI_CACHE``, ``$XDG_CACHE_HOME/rbtree-inspector``, ``~/.cache/...``,
   ``/ccore``); missing, it is built there at first use, under a lock, so
   that concurrent censuses build it once.

A library that cannot be built or loaded is no error: :func:`load` says
why, and the census checks in Python (and says so once).
"""

import ctypes
import fcntl
import glob
import hashlib
import os
import subprocess
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
SRC = os.path.join(HERE, "ccore")
SOURCES = ("rbti_cc_mem.c", "rbti_cc_tree.c", "rbti_cc_check.c",
           "rbti_cc_batch.c")
HEADERS = ("rbti_cc.h", "rbti_cc_int.h")
CFLAGS = ("-O2", "-g", "-std=gnu11", "-fPIC", "-Wall", "-Wextra")
"""The flags of every build; the hygiene test adds -Werror."""
OFF = ("python", "off", "0", "no")


def digest(src: str = SRC) -> str | None:
    """12 hex digits of the sources and the flags (None: no sources)."""
    h = hashlib.sha256(" ".join(CFLAGS).encode())
    for name in SOURCES + HEADERS:
        try:
            with open(os.path.join(src, name), "rb") as f:
                h.update(name.encode() + b"\0" + f.read())
        except OSError:
            return None
    return h.hexdigest()[:12]


def _checkout_out() -> str | None:
    """The checkout's out/ (this package in tools/rbtilib of a checkout)."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
    if os.path.exists(os.path.join(repo, "Makefile")) and \
            os.path.isdir(os.path.join(repo, "kmod")):
        return os.path.join(repo, "out")
    return None


def dirs(environ=None) -> list:
    """Where the library is looked for and built, in order."""
    env = os.environ if environ is None else environ
    out = env.get("RBTI_OUT") or _checkout_out()
    cache = env.get("RBTI_CACHE") or os.path.join(
        env.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache"), "rbtree-inspector")
    return [os.path.join(d, "ccore") for d in (out, cache) if d]


def lib_name(hashed: str) -> str:
    return f"librbti_cc-{hashed}.so"


def compile_command(out: str, strict: bool = False, extra=()) -> list:
    """The compiler's command line that builds the library into *out*."""
    cc = os.environ.get("CC", "gcc").split()
    return cc + list(CFLAGS) + (["-Werror"] if strict else []) + \
        list(extra) + ["-shared", "-o", out] + \
        [os.path.join(SRC, s) for s in SOURCES]


def build(dest: str, strict: bool = False) -> str:
    """Build the library into directory *dest* (once: under a lock, and
    not again if it is there); returns its path.  OSError or
    RuntimeError (the compiler's message) if it cannot."""
    hashed = digest()
    if hashed is None:
        raise RuntimeError(f"no C sources in {SRC}")
    os.makedirs(dest, exist_ok=True)
    path = os.path.join(dest, lib_name(hashed))
    with open(os.path.join(dest, ".lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if os.path.exists(path):
            return path
        fd, tmp = tempfile.mkstemp(prefix=".build-", suffix=".so", dir=dest)
        os.close(fd)
        try:
            run = subprocess.run(compile_command(tmp, strict),
                                 capture_output=True, text=True, timeout=300)
            if run.returncode != 0:
                lines = (run.stderr or run.stdout).strip().splitlines()
                raise RuntimeError(" / ".join(lines[-3:]) or
                                   f"the compiler exited {run.returncode}")
            os.replace(tmp, path)
        finally:
            if os.path.exists(tmp):
                os.remove(tmp)
    return path


def find(environ=None) -> tuple:
    """(path or None, why none): the library to load, built if need be."""
    env = os.environ if environ is None else environ
    choice = env.get("RBTI_CCORE", "").strip()
    if choice.lower() in OFF:
        return None, f"RBTI_CCORE={choice}"
    if choice:
        return choice, ""
    installed = sorted(glob.glob(os.path.join(HERE, "_rbti_cc*.so")))
    if installed:
        return installed[0], ""
    hashed = digest()
    if hashed is None:
        return None, f"no C sources in {SRC}"
    places = dirs(env)
    for d in places:
        path = os.path.join(d, lib_name(hashed))
        if os.path.exists(path):
            return path, ""
    why = []
    for d in places:
        try:
            return build(d), ""
        except (OSError, RuntimeError, subprocess.SubprocessError) as e:
            why.append(f"{d}: {e}")
    return None, "cannot build it: " + "; ".join(why)


_LOADED: dict = {}


def load(environ=None) -> tuple:
    """(ctypes.CDLL or None, path or why not), found once a process."""
    key = (os.environ if environ is None else environ).get("RBTI_CCORE", "")
    if key not in _LOADED:
        path, why = find(environ)
        lib = None
        if path:
            try:
                lib = ctypes.CDLL(path)
                why = path
            except OSError as e:
                why = f"cannot load {path}: {e}"
        _LOADED[key] = (lib, why)
    return _LOADED[key]
