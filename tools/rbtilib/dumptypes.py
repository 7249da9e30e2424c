# SPDX-License-Identifier: GPL-2.0
"""The records of a parsed dump (kmod/DEBUGFS.md, format 1) and the
fields' vocabularies: flags, APIs, augment rules, number ranges.

:mod:`rbtilib.dump` parses and formats them (and re-exports every name
here, the one place callers import them from).
"""

from collections.abc import Iterator

from .record import factory, record

S64_MIN = -(1 << 63)
S64_MAX = (1 << 63) - 1
U64_MAX = (1 << 64) - 1
"""Keys of an ``api kernel`` dump may be unsigned (``va_start``)."""
ID_MAX = S64_MAX
"""Node ids are 0 .. 2^63-1 (kmod/DEBUGFS.md)."""


class Unknown:
    """The ``?`` of a link that points at no node of this tree.

    A singleton that is not an int, so it can never equal a node id.
    """

    _instance = None

    def __new__(cls) -> "Unknown":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "?"

    def __reduce__(self):
        return (Unknown, ())


UNKNOWN = Unknown()
UNKNOWN_PARENT = UNKNOWN
"""Old name of :data:`UNKNOWN` (``Node.parent`` for ``?``)."""

FLAG_ORDER = ("unique", "dup", "replace", "leftmost", "rightmost", "count",
              "augmented", "outofline", "value", "interval", "latch",
              "lockless")
"""Flags in the order the contract lists them (used when formatting)."""

APIS = ("overstreet", "santos", "mainline", "interval", "latch",
        "kernel")
"""`kernel`: a tree read from kernel memory by `rbti kernel` (rbtilib.kernel)."""

AUG_RULES = ("size", "max", "interval-last")
"""Augment rules a module's dump names (kmod/DEBUGFS.md): ``size`` = 1 +
the children's sizes; ``max`` and ``interval-last`` = the largest VALUE
(LAST) in the subtree."""
VALUE_NAMES = {"interval": "last", "value": "value"}
"""The ``value NAME`` header of a tree with the flag (``interval`` first)."""


TREE_FILES = ("insert", "find", "erase", "near", "dump", "stats", "check",
              "clear", "ops", "corrupt")
"""The files of every tree's directory (kmod/inspector_main.c's rbti_files);
interval trees add ``overlap``, latch and lockless ones ``stress``."""


class TreeKind:
    """What a tree of its ``flags`` and ``api`` is and can do
    (kmod/DEBUGFS.md, "Semantics of the flags"), derived here only: the
    base of :class:`Tree` and :class:`rbtilib.driver.TreeInfo`."""

    __slots__ = ()

    @property
    def dup(self) -> bool:
        """Equal keys are kept (a new one after its equals)."""
        return "dup" in self.flags

    @property
    def rejects_present(self) -> bool:
        """An insert of a present key fails with EEXIST (``unique``
        without ``replace``)."""
        return "unique" in self.flags and "replace" not in self.flags

    @property
    def augmented(self) -> bool:
        return "augmented" in self.flags

    @property
    def valued(self) -> bool:
        """Every node has a VALUE (LAST on an interval tree): inserts
        take ``KEY VALUE`` pairs, finds answer ``ID KEY VALUE``."""
        return "value" in self.flags

    @property
    def interval(self) -> bool:
        """Nodes are intervals [KEY, VALUE]: ``erase`` and the ``e`` op
        take START LAST, and there is ``overlap`` (the ``o`` op)."""
        return "interval" in self.flags

    @property
    def latch(self) -> bool:
        """Two copies (``struct latch_tree_root``), both dumped."""
        return "latch" in self.flags

    @property
    def lockless(self) -> bool:
        return "lockless" in self.flags

    @property
    def hints(self) -> bool:
        """The Santos API: ``KEY@HINTKEY`` inserts, ``near K HINTKEY``,
        the hinted ``I`` and ``N`` ops."""
        return self.api == "santos"

    @property
    def has_near(self) -> bool:
        """``near`` works (interval and latch trees: EOPNOTSUPP)."""
        return not self.interval and not self.latch

    @property
    def dialect(self) -> str:
        """How the tree reads the fuzzer's op stream (one of
        :data:`rbtilib.opstream.DIALECTS`)."""
        if self.interval:
            return "interval"
        if self.valued:
            return "value"
        if self.latch:
            return "latch"
        return "hints" if self.hints else "plain"

    @property
    def files(self) -> tuple[str, ...]:
        """The files of the tree's debugfs directory."""
        return TREE_FILES + (("overlap",) if self.interval else ()) + \
            (("stress",) if self.latch or self.lockless else ())


def aug_rule(flags: frozenset) -> str | None:
    """The augment rule a module's tree with *flags* keeps, or None."""
    if "augmented" not in flags:
        return None
    if "interval" in flags:
        return "interval-last"
    return "max" if "value" in flags else "size"


RULE_OPS = ("size", "max", "min", "sum")
"""The augment rules a dump can carry (``aug NAME RULE``, the syntax of
``rbti kernel --aug-rule``): ``size`` = 1 + the children's; ``max:V``,
``min:V``, ``sum:V`` = the largest, least or sum of VALUE over the
subtree, VALUE being the dump's ``value V``."""


def parse_rule(text: str) -> tuple[str, str | None]:
    """``size`` or ``OP:NAME`` as ``(op, name)``; ValueError otherwise."""
    op, colon, name = text.partition(":")
    if op not in RULE_OPS or (op == "size") == bool(colon) or \
            (colon and not name):
        raise ValueError(f"bad augment rule {text[:40]!r} (expected size, "
                         "max:NAME, min:NAME or sum:NAME)")
    return op, name or None


def implied_rule(flags: frozenset) -> str | None:
    """The rule of a module tree with *flags*, in the dump's rule syntax
    (``size``, ``max:value``, ``max:last``): a module's dump names it by
    the tree's kind and writes no rule."""
    rule = aug_rule(flags)
    if rule is None:
        return None
    return {"size": "size", "max": "max:value",
            "interval-last": "max:last"}[rule]


def tree_rule(tree) -> str | None:
    """The augment rule *tree*'s aug values follow: the one its dump
    carries (``aug NAME RULE``), else the one its flags imply; None if
    the tree has an aug whose rule its dump does not name (its aug is
    not checked, and the checker says so)."""
    return tree.aug_rule or implied_rule(tree.flags)


def value_name(flags: frozenset) -> str | None:
    """The ``value`` header a module's tree with *flags* writes, or None."""
    return next((VALUE_NAMES[f] for f in VALUE_NAMES if f in flags), None)


Ref = int | Unknown | None
"""A link: a node id, :data:`UNKNOWN` (``?``) or None (``-``, NIL)."""


@record(frozen=True)
class Node:
    """One ``node`` (or ``lost``) line of a dump."""

    id: int
    key: int
    color: str                  # 'R' or 'B'
    parent: Ref
    left: Ref
    right: Ref
    aug: int | None
    value: int | None = None
    """VALUE (the 9th field) on a tree with a ``value`` header: the
    second value, or LAST of an interval [KEY, VALUE]."""


@record
class Copy:
    """The ``copy 1`` section of a latch tree's dump: the second copy's
    root, height and ``node`` lines (copy 1's colours and links; ids and
    keys are those of the same nodes in copy 0)."""

    root: Ref
    height: int
    nodes: dict[int, Node]
    error: str | None = None


@record
class Tree(TreeKind):
    """A parsed dump.

    ``nodes`` holds the ``node`` lines in dump order (preorder through
    child links), ``lost`` the ``lost`` lines (allocated nodes the walk did
    not reach, in allocation order).  ``allocated`` is the ``nodes N``
    header, None if the dump has none (a dump without a node list).
    """

    name: str
    api: str
    flags: frozenset[str]
    count: int
    root: Ref
    leftmost: Ref
    rightmost: Ref
    height: int
    aug: str | None
    nodes: dict[int, Node]
    error: str | None = None    # 'depth' when the dump was truncated
    allocated: int | None = None
    lost: dict[int, Node] = factory(dict)
    hex: frozenset[str] = frozenset()
    """The ``hex`` header: fields (``key``, ``aug``) that are addresses
    or sizes, printed in hexadecimal by show, render and JSON."""
    value: str | None = None
    """The ``value NAME`` header (``value``, ``last``): every node has a
    VALUE; None on a tree without."""
    copy1: Copy | None = None
    """A latch tree's second copy; None on other trees."""
    aug_rule: str | None = None
    """The rule of the ``aug NAME RULE`` line (``size``, ``max:V``,
    ``min:V``, ``sum:V``) of a tree read from kernel memory; None on a
    module's tree (its flags imply the rule: :func:`tree_rule`) and on a
    dump that names no rule."""


HEX_FIELDS = ("key", "aug")


def number_text(tree: Tree, field: str, value: int | None) -> str:
    """*value* of *field* (``key``, ``aug`` or ``value``) as the tree's
    readers print it: hexadecimal (``0xffff...``) if the dump's ``hex``
    header names the field (for ``value``: the aug, if the aug's rule is
    over the VALUEs), else decimal."""
    if value is None:
        return "-"
    if field == "value":
        # VALUE under a rule over it (max:V of a kernel tree) is of the
        # aug's kind: an address or size where the aug is one.
        rule = getattr(tree, "aug_rule", None) or ""
        field = "aug" if ":" in rule else field
    return f"{value:#x}" if field in tree.hex else str(value)


def format_flags(flags: frozenset) -> str:
    """Format a flag set the way ``trees`` and ``dump`` write it."""
    known = [f for f in FLAG_ORDER if f in flags]
    extra = sorted(f for f in flags if f not in FLAG_ORDER)
    return ",".join(known + extra) or "-"


def flags_problem(flags: frozenset) -> str | None:
    """Why a flag set is not one the contract allows, or None."""
    unknown = sorted(f for f in flags if f not in FLAG_ORDER)
    if unknown:
        return f"unknown flag {unknown[0]!r}"
    if "unique" in flags and "dup" in flags:
        return "flags 'unique' and 'dup' together"
    if "unique" not in flags and "dup" not in flags:
        return "neither 'unique' nor 'dup'"
    if "replace" in flags and "unique" not in flags:
        return "'replace' without 'unique'"
    if "interval" in flags and "value" not in flags:
        return "'interval' without 'value'"
    return None


def parse_flags(text: str) -> frozenset:
    """Parse a ``FLAGS`` field (``-`` is the empty set); ValueError if a
    flag is unknown, repeated or empty."""
    if text == "-":
        return frozenset()
    words = text.split(",")
    flags = frozenset(words)
    if len(flags) != len(words) or "" in flags:
        raise ValueError(f"bad flags {text!r}")
    unknown = sorted(f for f in flags if f not in FLAG_ORDER)
    if unknown:
        raise ValueError(f"unknown flag {unknown[0]!r} in {text!r}")
    return flags


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
