# SPDX-License-Identifier: GPL-2.0
"""The interface fuzzer's replay scripts.

:func:`render_script` writes a list of :class:`.ifuzz.Cmd` as a
replayable shell script (one python3 process reads the commands from its
here-document, so that every command is exactly one write(2));
:func:`parse_script` reads it back; :func:`line_of` and :func:`cmd_of`
are one command's line.
"""

import re
from .ifuzz import Cmd

PRINTABLE = frozenset(range(0x21, 0x7f)) - {ord("\\")}


def encode(data: bytes) -> str:
    """``s:TEXT``: printable ASCII as itself (a space too, but at either
    end), every other byte and the backslash as ``\\xHH``."""
    out = []
    for i, b in enumerate(data):
        inner = b == 0x20 and 0 < i < len(data) - 1
        out.append(chr(b) if b in PRINTABLE or inner else f"\\x{b:02x}")
    return "s:" + "".join(out)


def decode(text: str) -> bytes:
    if not text.startswith("s:"):
        raise ValueError(f"bad data {text!r}")
    parts = re.split(r"(\\x[0-9a-f]{2})", text[2:])
    return b"".join(bytes([int(p[2:], 16)]) if i % 2 else p.encode()
                    for i, p in enumerate(parts))


def line_of(cmd: Cmd) -> str:
    """The script line of *cmd*: ``KIND PATH [DATA]``."""
    if cmd.kind == "r":
        return f"r {cmd.path}"
    return f"{cmd.kind} {cmd.path} {encode(cmd.data)}"


def cmd_of(line: str) -> Cmd:
    """The command of a script line (ValueError if malformed)."""
    kind, _, rest = line.partition(" ")
    if kind == "r":
        if not rest or " " in rest:
            raise ValueError(f"bad line {line!r}")
        return Cmd("r", rest)
    path, _, data = rest.partition(" ")
    if kind not in ("w", "q", "k") or not path:
        raise ValueError(f"bad line {line!r}")
    return Cmd(kind, path, decode(data))


REPLAYER = r'''import errno, os, re, sys, time
root = os.environ.get("IFUZZ_ROOT", "/sys/kernel/debug/rbtree_inspector")
params = os.environ.get("IFUZZ_PARAMS",
                        "/sys/module/rbtree_inspector/parameters")
for n, line in enumerate(sys.stdin, 1):
    line = line.rstrip("\n")
    if not line or line.startswith("#"):
        continue
    kind, _, rest = line.partition(" ")
    path, _, data = rest.partition(" ")
    data = b"".join(bytes([int(p[2:], 16)]) if i % 2 else p.encode()
                    for i, p in enumerate(re.split(r"(\\x[0-9a-f]{2})",
                                                   data[2:])))
    full = os.path.join(params, path[1:]) if path.startswith("@") else \
        os.path.join(root, path)
    out, fd = [], None
    if kind == "k":
        pid = os.fork()
        if pid == 0:
            os.write(os.open(full, os.O_WRONLY), data)
            os._exit(0)
        time.sleep(0.2)
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        print(f"{n}: k {path}: killed", flush=True)
        continue
    try:
        fd = os.open(full, os.O_RDWR if kind == "q" else
                     os.O_RDONLY if kind == "r" else os.O_WRONLY)
        if kind in "wq":
            os.write(fd, data)
        if kind in "rq":
            while True:
                chunk = os.read(fd, 65536)
                if not chunk:
                    break
                out.append(chunk)
        res = "ok"
    except OSError as e:
        res = "EOPNOTSUPP" if e.errno == errno.EOPNOTSUPP else \
            errno.errorcode.get(e.errno, str(e.errno))
    finally:
        if fd is not None:
            os.close(fd)
    text = b"".join(out).decode(errors="replace").splitlines()
    print(f"{n}: {kind} {path}: {res}" + (f": {text[0]}" if text else ""),
          flush=True)
'''


def render_script(cmds: list[Cmd], header: list[str]) -> str:
    """A shell script that replays *cmds* in the guest, each its one
    write(2) or read, printing each result; *header* lines (the seed,
    the failure) become comments at its top."""
    lines = ["#!/bin/sh", "# SPDX-License-Identifier: GPL-2.0"]
    lines += [f"# {h}" for h in header]
    lines += [
        "# Replay in the guest as root, on a freshly loaded module:",
        "#   rmmod rbtree_inspector; insmod $RBTI_KMOD/rbtree_inspector.ko",
        "#   sh THIS-SCRIPT",
        "# Lines: KIND PATH DATA; KIND w (write), r (read), q (write then",
        "# read on one descriptor), k (write from a process killed 0.2 s",
        "# later); PATH under the debugfs directory, or",
        "# @PARAM; DATA s:TEXT (\\xHH: that byte), written in one write(2).",
        "exec python3 -c '" + REPLAYER.replace("'", "'\\''") +
        "' <<'IFUZZ_END'"]
    lines += [line_of(c) for c in cmds]
    lines.append("IFUZZ_END")
    return "\n".join(lines) + "\n"


def parse_script(text: str) -> list[Cmd]:
    """The commands of a script :func:`render_script` wrote, or of a
    command list (a corpus entry: ``#`` comment lines, then one command a
    line, with no replayer of its own)."""
    if "<<'IFUZZ_END'\n" in text:
        text = text.split("<<'IFUZZ_END'\n", 1)[1].split("\nIFUZZ_END",
                                                         1)[0]
    return [cmd_of(line) for line in text.splitlines()
            if line.strip() and not line.startswith("#")]


def header_of(text: str) -> list[str]:
    """The comment lines at the top of a command list, without ``# `` (its
    SPDX line left out): :func:`render_script`'s *header*."""
    out = []
    for line in text.splitlines():
        if not line.startswith("#"):
            break
        if "SPDX-License-Identifier" not in line:
            out.append(line[1:].removeprefix(" "))
    return out
