# SPDX-License-Identifier: GPL-2.0
"""Hostile inputs that grow with a size N: the corpora of
tools/tests/test_cli_hostile.py and test_hostile_bounds.py (and of
viz/tests/test_flipbook_hostile.py)."""

from rbtilib.dump import format_dump, format_node
from rbtilib.dumptypes import Node


def chain(n: int, aug: bool = False) -> str:
    """A santos dump of *n* black nodes, each the right child of the one
    before: a corrupted tree as deep as it is large (every node with a NIL
    child past the first breaks black-height), well-formed otherwise."""
    lines = ["tree chain", "api santos",
             "flags unique,leftmost,rightmost,count" +
             (",augmented" if aug else ""),
             f"count {n}", f"nodes {n}", f"root {1 if n else '-'}",
             f"leftmost {1 if n else '-'}", f"rightmost {n if n else '-'}",
             f"height {n}", f"aug {'size' if aug else '-'}"]
    for i in range(1, n + 1):
        lines.append(format_node(Node(
            i, i * 10, "B", i - 1 if i > 1 else None, None,
            i + 1 if i < n else None, n - i + 1 if aug else None)))
    lines.append(f"end {n}")
    return "\n".join(lines) + "\n"


def huge_number(text: str, field: int, digits: int = 5000) -> str:
    """*text* (a dump) with field *field* of its first node line replaced
    by a number of *digits* digits."""
    lines = text.split("\n")
    i = next(i for i, line in enumerate(lines) if line.startswith("node "))
    fields = lines[i].split(" ")
    fields[field] = "9" * digits
    lines[i] = " ".join(fields)
    return "\n".join(lines)


def huge_header(text: str, tag: str, digits: int = 5000) -> str:
    """*text* with header *tag*'s value a number of *digits* digits."""
    return "\n".join(f"{tag} {'9' * digits}" if line.startswith(tag + " ")
                     else line for line in text.split("\n"))


__all__ = ["chain", "huge_number", "huge_header", "format_dump"]
