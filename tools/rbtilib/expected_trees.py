# SPDX-License-Identifier: GPL-2.0
"""Which of the module's trees a kernel must have, from its version.

kmod/tests/module-trees lists the trees that only some kernels can have
(``TREE SINCE MACRO``): on a kernel of version SINCE or later the tree
must exist, before it must not. The guest suites read this, not the
module under test, so a module that loses a tree fails.
"""

import os
import re

TABLE = os.path.join(os.path.dirname(os.path.realpath(__file__)), os.pardir,
                     os.pardir, "kmod", "tests", "module-trees")


def version(release: str) -> tuple[int, int]:
    """(major, minor) of a kernel release such as ``6.12.57+deb13-amd64``;
    ValueError if it does not begin with two numbers."""
    m = re.match(r"(\d+)\.(\d+)", release)
    if not m:
        raise ValueError(f"not a kernel release: {release!r}")
    return int(m.group(1)), int(m.group(2))


def table(path: str = TABLE) -> list[tuple[str, tuple[int, int], str]]:
    """(tree, since, macro) for every line of the table."""
    out = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            fields = line.split("#", 1)[0].split()
            if not fields:
                continue
            if len(fields) != 3:
                raise ValueError(f"{path}: bad line: {line.strip()}")
            out.append((fields[0], version(fields[1]), fields[2]))
    return out


def expected(release: str, path: str = TABLE) -> dict[str, bool]:
    """Tree -> whether a kernel of *release* must have it (the table's
    trees only; every other tree is on every kernel)."""
    have = version(release)
    return {tree: have >= since for tree, since, _ in table(path)}


def since(tree: str, path: str = TABLE) -> str:
    """The first version that has *tree*, as "6.12"."""
    for name, first, _ in table(path):
        if name == tree:
            return f"{first[0]}.{first[1]}"
    raise KeyError(tree)
