#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# interval-parent-climb: after `corrupt parent 2` the interval tree's
# find and overlap climb parent pointers (iter_next) into the node whose
# parent link points at itself, past a wide interval under it: they must
# be refused (EUCLEAN), never loop. The tree is cleared at the end.
# Replay in the guest as root, on a freshly loaded module:
#   rmmod rbtree_inspector; insmod $RBTI_KMOD/rbtree_inspector.ko
#   sh THIS-SCRIPT
# Lines: KIND PATH DATA; KIND w (write), r (read), q (write then
# read on one descriptor), k (write from a process killed 0.2 s
# later); PATH under the debugfs directory, or
# @PARAM; DATA s:TEXT (\xHH: that byte), written in one write(2).
exec python3 -c 'import errno, os, re, sys, time
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
' <<'IFUZZ_END'
w @allow_corrupt s:1
w interval/clear s:1
w interval/insert s:5 5 2 3 6 6 1 10 3 4
w interval/corrupt s:parent 2
q interval/find s:7
q interval/overlap s:7 7
w interval/clear s:1
IFUZZ_END
