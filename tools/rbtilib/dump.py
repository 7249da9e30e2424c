# SPDX-License-Identifier: GPL-2.0
"""Parse and format the ``dump`` file (kmod/DEBUGFS.md, format 1).

:func:`parse_dump` is the one dump parser; :func:`format_dump` is its
inverse (``parse_dump(format_dump(t)) == t``).
"""

from dataclasses import dataclass
from typing import Iterator

UNKNOWN_PARENT = -1
"""``Node.parent`` value for a parent pointer that points at no node (``?``)."""

FLAG_ORDER = ("unique", "dup", "replace", "leftmost", "rightmost", "count",
              "augmented", "outofline")
"""Flags in the order the contract lists them (used when formatting)."""

_HEADER = ("tree", "api", "flags", "count", "root", "leftmost", "rightmost",
           "height", "aug")


class DumpError(ValueError):
    """A malformed dump; the message names the offending line."""

    def __init__(self, lineno: int, message: str) -> None:
        super().__init__(f"dump line {lineno}: {message}")
        self.lineno = lineno


@dataclass(frozen=True)
class Node:
    """One ``node`` line of a dump."""

    id: int
    key: int
    color: str                  # 'R' or 'B'
    parent: int | None          # UNKNOWN_PARENT for '?'
    left: int | None
    right: int | None
    aug: int | None


@dataclass
class Tree:
    """A parsed dump.  ``nodes`` is in dump order (preorder)."""

    name: str
    api: str
    flags: frozenset[str]
    count: int
    root: int | None
    leftmost: int | None
    rightmost: int | None
    height: int
    aug: str | None
    nodes: dict[int, Node]
    error: str | None = None    # 'depth' when the dump was truncated


def format_flags(flags: frozenset) -> str:
    """Format a flag set the way ``trees`` and ``dump`` write it."""
    known = [f for f in FLAG_ORDER if f in flags]
    extra = sorted(f for f in flags if f not in FLAG_ORDER)
    return ",".join(known + extra) or "-"


def parse_flags(text: str) -> frozenset:
    """Parse a ``FLAGS`` field (``-`` is the empty set)."""
    return frozenset() if text == "-" else frozenset(text.split(","))


def _int(lineno: int, text: str, what: str) -> int:
    try:
        return int(text, 10)
    except ValueError:
        raise DumpError(lineno, f"bad {what} {text!r}") from None


def _ref(lineno: int, text: str, what: str) -> int | None:
    """Parse a node reference: an id or ``-``."""
    return None if text == "-" else _int(lineno, text, what)


def _node(lineno: int, fields: list) -> Node:
    if len(fields) != 8:
        raise DumpError(lineno, f"node line has {len(fields)} fields, "
                        "expected 8")
    color = fields[3]
    if color not in ("R", "B"):
        raise DumpError(lineno, f"bad color {color!r}")
    parent = (UNKNOWN_PARENT if fields[4] == "?"
              else _ref(lineno, fields[4], "parent"))
    return Node(id=_int(lineno, fields[1], "node id"),
                key=_int(lineno, fields[2], "key"),
                color=color,
                parent=parent,
                left=_ref(lineno, fields[5], "left"),
                right=_ref(lineno, fields[6], "right"),
                aug=_ref(lineno, fields[7], "aug"))


def parse_dump(text: str) -> Tree:
    """Parse the text of a ``dump`` file into a :class:`Tree`.

    A node printed twice (a shared node or a cycle, which only a corrupted
    tree has) is kept once if both lines agree; the checker finds the
    structural fault from the child links.  Raises :class:`DumpError`.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    header: dict = {}
    nodes: dict = {}
    node_lines = 0
    error = None
    end = None
    for lineno, line in enumerate(lines, 1):
        fields = line.split()
        if end is not None:
            raise DumpError(lineno, "text after 'end'")
        if not fields:
            raise DumpError(lineno, "empty line")
        tag = fields[0]
        if tag == "node":
            if len(header) != len(_HEADER):
                raise DumpError(lineno, "node line before the header ended")
            node = _node(lineno, fields)
            old = nodes.setdefault(node.id, node)
            if old != node:
                raise DumpError(lineno, f"node {node.id} printed twice "
                                "with different contents")
            node_lines += 1
        elif tag == "error":
            if len(fields) != 2:
                raise DumpError(lineno, "malformed error line")
            error = fields[1]
        elif tag == "end":
            if len(fields) != 2:
                raise DumpError(lineno, "malformed end line")
            end = _int(lineno, fields[1], "end count")
            if end != node_lines:
                raise DumpError(lineno, f"end {end} but {node_lines} "
                                "node lines")
        elif tag in _HEADER:
            expected = _HEADER[len(header)] if len(header) < len(_HEADER) \
                else None
            if tag != expected:
                raise DumpError(lineno, f"unexpected {tag!r} line "
                                f"(expected {expected or 'node'!r})")
            if len(fields) != 2:
                raise DumpError(lineno, f"{tag} line has {len(fields)} "
                                "fields, expected 2")
            header[tag] = fields[1]
        else:
            raise DumpError(lineno, f"unknown record {tag!r}")
    if end is None:
        raise DumpError(len(lines) + 1, "missing 'end' line (truncated?)")
    return Tree(name=header["tree"],
                api=header["api"],
                flags=parse_flags(header["flags"]),
                count=_int(4, header["count"], "count"),
                root=_ref(5, header["root"], "root"),
                leftmost=_ref(6, header["leftmost"], "leftmost"),
                rightmost=_ref(7, header["rightmost"], "rightmost"),
                height=_int(8, header["height"], "height"),
                aug=None if header["aug"] == "-" else header["aug"],
                nodes=nodes,
                error=error)


def _fmt_ref(ref: int | None) -> str:
    if ref is None:
        return "-"
    return "?" if ref == UNKNOWN_PARENT else str(ref)


def format_node(node: Node) -> str:
    """Format one ``node`` line (without the newline)."""
    return (f"node {node.id} {node.key} {node.color} {_fmt_ref(node.parent)}"
            f" {_fmt_ref(node.left)} {_fmt_ref(node.right)}"
            f" {_fmt_ref(node.aug)}")


def format_dump(tree: Tree) -> str:
    """Format a :class:`Tree` as ``dump`` text (inverse of parse_dump)."""
    out = [f"tree {tree.name}", f"api {tree.api}",
           f"flags {format_flags(tree.flags)}", f"count {tree.count}",
           f"root {_fmt_ref(tree.root)}",
           f"leftmost {_fmt_ref(tree.leftmost)}",
           f"rightmost {_fmt_ref(tree.rightmost)}",
           f"height {tree.height}", f"aug {tree.aug or '-'}"]
    out.extend(format_node(n) for n in tree.nodes.values())
    if tree.error:
        out.append(f"error {tree.error}")
    out.append(f"end {len(tree.nodes)}")
    return "\n".join(out) + "\n"


def children(tree: Tree, node: Node) -> Iterator[Node]:
    """Yield the present children of *node* (left first)."""
    for ref in (node.left, node.right):
        if ref is not None and ref in tree.nodes:
            yield tree.nodes[ref]


def inorder(tree: Tree) -> Iterator[Node]:
    """Yield the nodes reachable from the root in order.

    Follows child links only; a node reached a second time (a corrupted
    tree) and links to ids missing from the dump are skipped, so the walk
    always ends.
    """
    seen: set = set()
    stack: list = []
    ref = tree.root
    while stack or ref is not None:
        while ref is not None and ref in tree.nodes and ref not in seen:
            seen.add(ref)
            node = tree.nodes[ref]
            stack.append(node)
            ref = node.left
        if not stack:
            return
        node = stack.pop()
        yield node
        ref = node.right


def preorder(tree: Tree) -> Iterator[Node]:
    """Yield the nodes reachable from the root in preorder (as dumped)."""
    seen: set = set()
    stack = [tree.root]
    while stack:
        ref = stack.pop()
        if ref is None or ref not in tree.nodes or ref in seen:
            continue
        seen.add(ref)
        node = tree.nodes[ref]
        yield node
        stack.append(node.right)
        stack.append(node.left)
