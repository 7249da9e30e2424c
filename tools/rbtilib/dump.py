# SPDX-License-Identifier: GPL-2.0
"""Parse and format the ``dump`` file (kmod/DEBUGFS.md, format 1).

:func:`parse_dump` is the one dump parser (the fuzzer, the tests, viz and
the CLI all use it); :func:`format_dump` is its inverse
(``parse_dump(format_dump(t)) == t``).

The parser is strict: a dump is either exactly what the contract allows
or a :class:`DumpError` naming the line.  Numbers are decimal ASCII only
(``-`` sign allowed on keys, no ``+``, no leading zeros, no ``_``, no
other digits), keys are s64, ids are 0 .. 2^63-1, ``?`` is the
:data:`UNKNOWN` sentinel (never an int, so never equal to an id), and
every field must agree with the tree's flags.
"""

import re
import sys

from .dumptypes import (  # noqa: F401 (re-exported: import them from here)
    APIS, AUG_RULES, FLAG_ORDER, HEX_FIELDS, ID_MAX, S64_MAX, S64_MIN,
    U64_MAX, UNKNOWN, UNKNOWN_PARENT, VALUE_NAMES, Copy, Node, Ref, Tree,
    Unknown, aug_rule, flags_problem, format_flags, implied_rule,
    number_text, parse_flags, parse_rule, tree_rule, value_name,
    children, inorder, preorder)


_HEADER = ("tree", "api", "flags", "count", "nodes", "root", "leftmost",
           "rightmost", "height", "aug")
_OPTIONAL = ("nodes",)
"""Header lines a dump may leave out (``nodes``: a dump without a node
list has neither it nor ``lost`` lines)."""

_DIGITS = 20
"""The most digits a number of a dump has (2^64-1 has 20): a longer one is
out of range before it is converted (Python's int() refuses strings of
over 4,300 digits with a ValueError of its own)."""
_NUM = rf"[1-9][0-9]{{0,{_DIGITS - 1}}}"
_ID = rf"(0|{_NUM})"
_LINK = rf"(-|\?|0|{_NUM})"
_NODE = re.compile(rf"(node|lost) {_ID} (0|-?{_NUM}) ([RB]) {_LINK} "
                   rf"{_LINK} {_LINK} (-|0|-?{_NUM})"
                   rf"(?: (0|-?{_NUM}))?\Z", re.ASCII)
"""A well-formed node line whose numbers have at most _DIGITS digits;
anything else takes the slow path, which names the bad field."""
_NAME_CHARS = "A-Za-z0-9_.:/-"
_NAME = re.compile(rf"[A-Za-z0-9_][{_NAME_CHARS}]*\Z", re.ASCII)
"""A tree or aug name; ':' and '/' for trees read from kernel memory
(``cfs/cpu0``, ``kernfs:/sys/module``)."""


def tree_name(text: str) -> str:
    """*text* (a tree read from kernel memory: a variable and the path to
    a root in it, or a --root-expr) as a name :data:`_NAME` takes: an
    index ``[i]`` becomes ``.i``, any other byte outside the set ``_``."""
    if _NAME.match(text):       # a name already: both rewrites are none
        return text
    out = re.sub(r"\[([^\]]*)\]", r".\1", text)
    out = re.sub(rf"[^{_NAME_CHARS}]", "_", out, flags=re.ASCII)
    return out if _NAME.match(out) else "_" + out


class DumpError(ValueError):
    """A malformed dump; the message names the offending line."""

    def __init__(self, lineno: int, message: str) -> None:
        super().__init__(f"dump line {lineno}: {message}")
        self.lineno = lineno
        self.message = message


def parse_int(text: str, lo: int = S64_MIN, hi: int = S64_MAX) -> int:
    """Parse a decimal ASCII integer in [lo, hi] as the module prints it
    (``%lld``/``%llu``: optional ``-``, no ``+``, no leading zeros);
    ValueError otherwise."""
    digits = text[1:] if text[:1] == "-" else text
    if not (digits.isascii() and digits.isdigit()) or \
            (digits[0] == "0" and len(text) > 1):
        raise ValueError(f"not a decimal number: {quoted(text)}")
    if len(digits) > _DIGITS:
        raise ValueError(f"{len(digits)} digits: out of range [{lo}, {hi}]")
    value = int(text)
    if not lo <= value <= hi:
        raise ValueError(f"{text} is out of range [{lo}, {hi}]")
    return value


def quoted(text: str, limit: int = 40) -> str:
    """*text* as repr() quotes it, cut to *limit* characters (a message
    about a huge field stays one short line)."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}... ({len(text)} characters)"


def _int(lineno: int, text: str, what: str, lo: int = S64_MIN,
         hi: int = S64_MAX) -> int:
    try:
        return parse_int(text, lo, hi)
    except ValueError as e:
        raise DumpError(lineno, f"bad {what} {quoted(text)} ({e})") from None


def _ref(lineno: int, text: str, what: str, unknown: bool = False,
         id_min: int = 1) -> Ref:
    """Parse a node reference: an id, ``-`` or (if allowed) ``?``."""
    if text == "-":
        return None
    if text == "?":
        if unknown:
            return UNKNOWN
        raise DumpError(lineno, f"'?' is not allowed as {what}")
    return _int(lineno, text, what, id_min, ID_MAX)


def _fast_node(line: str, augmented: bool, key_max: int = S64_MAX,
               id_min: int = 1, valued: bool = False) -> Node | None:
    """The node of a well-formed line in range, or None."""
    m = _NODE.match(line)
    if m is None:
        return None
    _, nid, key, color, parent, left, right, aug, second = m.groups()
    if (second is None) == valued:
        return None
    if second is not None:
        second = int(second)
        if not S64_MIN <= second <= key_max:
            return None
    # Each test in the form the regex left possible (a link is '-', '?'
    # or digits); anything out of range goes to the slow path.
    nid, key = int(nid), int(key)
    if not id_min <= nid <= ID_MAX or not S64_MIN <= key <= key_max:
        return None
    links = []
    for text in (parent, left, right):
        if text == "-":
            links.append(None)
        elif text == "?":
            links.append(UNKNOWN)
        else:
            ref = int(text)
            if not id_min <= ref <= ID_MAX:
                return None
            links.append(ref)
    if aug == "-":
        if augmented:
            return None
        value = None
    else:
        value = int(aug)
        if not augmented or not S64_MIN <= value <= key_max:
            return None
    return Node(nid, key, color, links[0], links[1], links[2], value,
                second)


def _node(lineno: int, fields: list, augmented: bool,
          key_max: int = S64_MAX, id_min: int = 1,
          valued: bool = False) -> Node:
    want = 9 if valued else 8
    if len(fields) != want:
        raise DumpError(lineno, f"{fields[0]} line has {len(fields)} "
                        f"fields, expected {want}"
                        + (" (the 9th is VALUE)" if valued else ""))
    color = fields[3]
    if color not in ("R", "B"):
        raise DumpError(lineno, f"bad color {quoted(color)}")
    if augmented:
        aug = _int(lineno, fields[7], "aug", S64_MIN, key_max)
    elif fields[7] != "-":
        raise DumpError(lineno, f"aug {quoted(fields[7])} on a tree without "
                        "'augmented' (expected '-')")
    else:
        aug = None
    return Node(id=_int(lineno, fields[1], "node id", id_min, ID_MAX),
                key=_int(lineno, fields[2], "key", S64_MIN, key_max),
                color=color,
                parent=_ref(lineno, fields[4], "parent", True, id_min),
                left=_ref(lineno, fields[5], "left", True, id_min),
                right=_ref(lineno, fields[6], "right", True, id_min),
                aug=aug,
                value=_int(lineno, fields[8], "value", S64_MIN, key_max)
                if valued else None)


def _fields(lineno: int, line: str) -> list:
    """The space-separated fields of a line of printable ASCII."""
    if not line:
        raise DumpError(lineno, "empty line")
    if not line.isascii() or not line.isprintable():
        raise DumpError(lineno, "non-ASCII or control character")
    fields = line.split(" ")
    if "" in fields:
        raise DumpError(lineno, "fields must be separated by one space")
    return fields


class _Parser:
    """One parse; fields are checked as their line is read."""

    def __init__(self) -> None:
        self.header: dict = {}
        self.nodes: dict = {}
        self.lost: dict = {}
        self.error: str | None = None
        self.end: int | None = None
        self.hex: frozenset | None = None
        self.limits: tuple | None = None
        """(augmented, key_max, id_min, valued) once the header is
        complete."""
        self.value: str | None = None
        self.copy: Copy | None = None
        """The latch ``copy 1`` section, once its line is read."""
        self.copy_end: int | None = None
        self.rule: str | None = None
        """The RULE of an ``aug NAME RULE`` line."""
        self.rule_value: str | None = None

    def header_line(self, lineno: int, tag: str, fields: list) -> None:
        pos = len(self.header)
        want = _HEADER[pos] if pos < len(_HEADER) else "node"
        if want in _OPTIONAL and tag == _HEADER[pos + 1]:
            self.header[want] = None        # a dump without a node list
            want = tag
        if self.nodes or self.lost or self.error or tag != want:
            raise DumpError(lineno, f"unexpected {quoted(tag)} line (expected "
                            f"{want!r})")
        if len(fields) != 2 and not (tag == "aug" and len(fields) == 3):
            raise DumpError(lineno, f"{tag} line has {len(fields)} fields, "
                            "expected 2" + (" or 3 (aug NAME RULE)"
                                            if tag == "aug" else ""))
        value = fields[1]
        flags = self.header.get("flags", frozenset())
        if tag == "tree":
            if not _NAME.match(value):
                raise DumpError(lineno, f"bad tree name {quoted(value)}")
        elif tag == "api":
            if value not in APIS:
                raise DumpError(lineno, f"unknown api {quoted(value)}")
        elif tag == "flags":
            try:
                value = parse_flags(value)
            except ValueError as e:
                raise DumpError(lineno, str(e)) from None
            problem = flags_problem(value)
            if problem:
                raise DumpError(lineno, problem)
        elif tag in ("count", "nodes", "height"):
            value = _int(lineno, value, tag, 0)
        elif tag == "root":
            value = _ref(lineno, value, tag, id_min=self.id_min())
        elif tag in ("leftmost", "rightmost"):
            value = _ref(lineno, value, tag, id_min=self.id_min())
            if value is not None and tag not in flags:
                raise DumpError(lineno, f"{tag} {value} on a tree without "
                                f"the {quoted(tag)} cache (expected '-')")
        elif tag == "aug":
            want = aug_rule(flags) or "-"
            # A kernel tree names its own augmented value (e.g.
            # subtree_max_size); rbtilib.kernel checks its rule.
            if self.header.get("api") == "kernel" and want == "-" and \
                    _NAME.match(value):
                want = value
            if value != want:
                raise DumpError(lineno, f"aug {quoted(value)}, expected {want!r} "
                                f"on a tree {'with' if want != '-' else 'without'}"
                                " 'augmented'")
            value = None if value == "-" else value
            if len(fields) == 3:
                self.rule_field(lineno, value, fields[2])
        self.header[tag] = value

    def rule_field(self, lineno: int, aug: str | None, text: str) -> None:
        """The RULE of ``aug NAME RULE``: only on a tree read from kernel
        memory (``api kernel``; a module's tree has the rule its flags
        imply); ``OP:V`` needs the ``value V`` line that follows."""
        if aug is None or self.header.get("api") != "kernel" or \
                "augmented" in self.header.get("flags", ()):
            raise DumpError(lineno, "an augment rule on a tree whose rule "
                            "follows from its flags (only an 'api kernel' "
                            "tree's aug line carries one)")
        try:
            _, self.rule_value = parse_rule(text)
        except ValueError as e:
            raise DumpError(lineno, str(e)) from None
        self.rule = text

    def value_line(self, lineno: int, fields: list) -> None:
        """``value NAME``: right after ``aug`` on a tree flagged
        ``value``, never elsewhere."""
        if len(self.header) != len(_HEADER) or self.value is not None or \
                self.hex is not None or self.nodes or self.lost or \
                self.error:
            raise DumpError(lineno, "unexpected 'value' line (it comes "
                            "right after 'aug')")
        if len(fields) != 2:
            raise DumpError(lineno, f"value line has {len(fields)} fields,"
                            " expected 2")
        want = value_name(self.header["flags"])
        if want is None:
            raise DumpError(lineno, "value line on a tree without 'value'")
        if self.header["api"] == "kernel" and _NAME.match(fields[1]):
            want = fields[1]        # a kernel tree names its own VALUE
        if fields[1] != want:
            raise DumpError(lineno, f"value {quoted(fields[1])}, expected "
                            f"{want!r}")
        self.value = want

    def header_done(self, lineno: int, what: str) -> None:
        """The header must be complete before *what*."""
        if len(self.header) != len(_HEADER):
            raise DumpError(lineno, f"{what} before the header ended")
        if self.value is None and value_name(self.header["flags"]):
            raise DumpError(lineno, f"{what} before the 'value' line (a "
                            "tree flagged 'value' has one)")
        if self.rule_value is not None and self.rule_value != self.value:
            raise DumpError(lineno, f"{what}: the augment rule {self.rule} "
                            f"needs the line 'value {self.rule_value}' "
                            "(each node's VALUE is its own value)")

    def hex_line(self, lineno: int, fields: list) -> None:
        """``hex key``, ``hex aug`` or ``hex key,aug``: optional, right
        after the ``aug`` line (kmod/DEBUGFS.md)."""
        if len(self.header) != len(_HEADER) or self.hex is not None or \
                self.nodes or self.lost or self.error:
            raise DumpError(lineno, "unexpected 'hex' line (it comes "
                            "right after 'aug')")
        if len(fields) != 2:
            raise DumpError(lineno, f"hex line has {len(fields)} fields, "
                            "expected 2")
        words = fields[1].split(",")
        if len(set(words)) != len(words) or \
                not set(words) <= set(HEX_FIELDS):
            raise DumpError(lineno, f"bad hex fields {quoted(fields[1])} "
                            "(expected key, aug or key,aug)")
        if "aug" in words and self.header["aug"] is None:
            raise DumpError(lineno, "hex aug on a tree without an aug")
        self.hex = frozenset(words)

    def id_min(self) -> int:
        """The least node id: the module's count from 1; a kernel tree's
        ids are in-order positions, from 0."""
        return 0 if self.header.get("api") == "kernel" else 1

    def node_line(self, lineno: int, tag: str, fields: list | None,
                  line: str = "") -> None:
        """A node or lost line; *fields* None: *line* not split yet, and
        only a well-formed line may take the fast path."""
        limits = self.limits
        if limits is None:
            self.header_done(lineno, f"{tag} line")
            # Fixed from here on: the header is complete.
            limits = self.limits = (
                self.header["aug"] is not None,
                U64_MAX if self.header["api"] == "kernel" else S64_MAX,
                self.id_min(), self.value is not None)
        if self.copy is not None:
            raise DumpError(lineno, f"{tag} line after copy 1")
        if tag == "node":
            if self.error is not None:
                raise DumpError(lineno, "node line after 'error'")
            if self.lost:
                raise DumpError(lineno, "node line after a lost line")
        elif self.header["nodes"] is None:
            raise DumpError(lineno, "lost line in a dump without 'nodes'")
        node = _fast_node(line, *limits)
        if node is None:
            # Not well-formed or out of range: the slow path names the
            # problem.
            if fields is None:
                fields = _fields(lineno, line)
            node = _node(lineno, fields, *limits)
        if node.id in self.nodes or node.id in self.lost:
            raise DumpError(lineno, f"node {node.id} listed twice")
        (self.nodes if tag == "node" else self.lost)[node.id] = node

    def copy_line(self, lineno: int, fields: list) -> None:
        """A line of the latch ``copy 1`` section: ``root``, ``height``,
        ``node`` lines (8 fields, copy 1's links), ``error depth``,
        ``end N``."""
        copy, tag = self.copy, fields[0]
        step = ("root" if copy.root is UNKNOWN else
                "height" if copy.height < 0 else "node")
        if tag in ("root", "height"):
            if tag != step or len(fields) != 2:
                raise DumpError(lineno, f"unexpected copy 1 {quoted(tag)} line "
                                f"(expected {step!r})")
            if tag == "root":
                copy.root = _ref(lineno, fields[1], "copy 1 root",
                                 id_min=self.id_min())
            else:
                copy.height = _int(lineno, fields[1], "copy 1 height", 0)
        elif step != "node":
            raise DumpError(lineno, f"unexpected {quoted(tag)} line in copy 1 "
                            f"(expected {step!r})")
        elif tag == "node":
            if copy.error is not None:
                raise DumpError(lineno, "node line after 'error'")
            node = _node(lineno, fields, False, S64_MAX, self.id_min())
            if node.id in copy.nodes:
                raise DumpError(lineno, f"node {node.id} listed twice in "
                                "copy 1")
            same = self.nodes.get(node.id) or self.lost.get(node.id)
            if same is None and self.error is None:
                raise DumpError(lineno, f"copy 1 node {node.id} is no node "
                                "of copy 0")
            if same is not None and same.key != node.key:
                raise DumpError(lineno, f"copy 1 node {node.id} has key "
                                f"{node.key}, copy 0 {same.key}")
            copy.nodes[node.id] = node
        elif tag == "error":
            if copy.error is not None or fields[1:] != ["depth"]:
                raise DumpError(lineno, "unexpected or malformed error "
                                "line in copy 1")
            copy.error = "depth"
        elif tag == "end":
            if len(fields) != 2:
                raise DumpError(lineno, "malformed end line")
            self.copy_end = _int(lineno, fields[1], "end count", 0)
            if self.copy_end != len(copy.nodes):
                raise DumpError(lineno, f"copy 1 end {self.copy_end} but "
                                f"{len(copy.nodes)} node lines")
        else:
            raise DumpError(lineno, f"unexpected {quoted(tag)} line in copy 1")

    def line(self, lineno: int, line: str) -> None:
        if self.end is not None:
            raise DumpError(lineno, "text after 'end'")
        if self.copy is not None and self.copy_end is None:
            self.copy_line(lineno, _fields(lineno, line))
            return
        if line[:5] in ("node ", "lost "):
            # Most of a dump: _NODE admits only ASCII fields separated
            # by single spaces, so a line it matches needs no _fields().
            self.node_line(lineno, line[:4], None, line)
            return
        fields = _fields(lineno, line)
        tag = fields[0]
        if tag in ("node", "lost"):
            self.node_line(lineno, tag, fields, line)
        elif tag == "hex":
            self.hex_line(lineno, fields)
        elif tag == "value":
            self.value_line(lineno, fields)
        elif tag == "copy":
            self.header_done(lineno, "copy line")
            if fields[1:] != ["1"] or self.copy is not None:
                raise DumpError(lineno, "unexpected or malformed copy line "
                                "(expected one 'copy 1')")
            if "latch" not in self.header["flags"]:
                raise DumpError(lineno, "copy 1 on a tree without 'latch'")
            self.copy = Copy(root=UNKNOWN, height=-1, nodes={})
        elif tag == "error":
            if len(self.header) != len(_HEADER) or self.error is not None \
                    or self.copy is not None:
                raise DumpError(lineno, "unexpected error line")
            if fields[1:] != ["depth"]:
                raise DumpError(lineno, "malformed error line (expected "
                                "'error depth')")
            self.error = fields[1]
        elif tag == "end":
            self.header_done(lineno, "end line")
            if "latch" in self.header["flags"] and self.copy is None:
                raise DumpError(lineno, "end line before the 'copy 1' "
                                "section of a latch tree")
            if len(fields) != 2:
                raise DumpError(lineno, "malformed end line")
            self.end = _int(lineno, fields[1], "end count", 0)
            if self.end != len(self.nodes):
                raise DumpError(lineno, f"end {self.end} but "
                                f"{len(self.nodes)} node lines")
            allocated = self.header["nodes"]
            listed = len(self.nodes) + len(self.lost)
            if allocated is not None and self.error is None and \
                    allocated != listed:
                raise DumpError(lineno, f"nodes {allocated} in the header "
                                f"but {listed} node and lost lines")
        elif tag in _HEADER:
            self.header_line(lineno, tag, fields)
        else:
            raise DumpError(lineno, f"unknown record {quoted(tag)}")

    def tree(self) -> Tree:
        h = self.header
        return Tree(name=h["tree"], api=h["api"], flags=h["flags"],
                    count=h["count"], root=h["root"], leftmost=h["leftmost"],
                    rightmost=h["rightmost"], height=h["height"],
                    aug=h["aug"], nodes=self.nodes, error=self.error,
                    allocated=h["nodes"], lost=self.lost,
                    hex=self.hex or frozenset(), value=self.value,
                    copy1=self.copy, aug_rule=self.rule)


def read_dump_file(path: str) -> str:
    """The text of a saved dump at *path* (``-``: standard input), for
    :func:`parse_dump`.

    Read as bytes, so that no newline is translated: a carriage return is
    a control character of its line, which the parser rejects, never a
    line end.  Bytes that are not UTF-8 become U+FFFD, so that the parser
    names their line too.  OSError if the file cannot be read.
    """
    if path == "-":
        data = sys.stdin.buffer.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return data.decode("utf-8", errors="replace")


def parse_dump(text: str) -> Tree:
    """Parse the text of a ``dump`` file into a :class:`Tree`.

    Raises :class:`DumpError` (a ValueError) naming the first bad line.
    """
    lines = text.split("\n")
    unended = lines[-1] != ""       # the last line has no newline
    if not unended:
        lines.pop()
    parser = _Parser()
    try:
        for lineno, line in enumerate(lines, 1):
            parser.line(lineno, line)
    except DumpError as e:
        if unended and e.lineno == len(lines):
            raise _cut(parser, e, lines[-1]) from None
        raise
    if parser.end is None:
        raise DumpError(len(lines), f"truncated: {_UNENDED}, and no 'end' "
                        "line") if unended else \
            DumpError(len(lines) + 1, "missing 'end' line (truncated?)")
    return parser.tree()


_RECORDS = (*_HEADER, "value", "hex", "node", "lost", "error", "copy", "end")
_UNENDED = "the dump ends mid-line (no newline)"


def _cut(parser: _Parser, error: DumpError, line: str) -> DumpError:
    """*error* of a last line without a newline: a dump cut mid-line if
    the line starts a record (a part of the word of one of _RECORDS, or
    short of fields), else *error* saying that its line has no newline."""
    fields = line.split(" ")
    tag, valued = fields[0], parser.value is not None and parser.copy is None
    want = (9 if valued else 8) if tag in ("node", "lost") else 2
    if tag in _RECORDS and (len(fields) < want or fields[-1] == ""):
        why = f"{len(fields) - (fields[-1] == '')} of the {tag} line's " \
            f"{want} fields"
    elif len(fields) == 1 and any(r.startswith(tag) for r in _RECORDS):
        why = "the start of a record"
    else:
        return DumpError(error.lineno, f"{error.message} (the last line, "
                         "with no newline: a truncated dump?)")
    return DumpError(error.lineno, f"truncated: {_UNENDED}: {quoted(line)}"
                     f" is {why}")


def _fmt_ref(ref: Ref) -> str:
    if ref is None:
        return "-"
    return "?" if ref is UNKNOWN else str(ref)


def format_node(node: Node, tag: str = "node") -> str:
    """Format one ``node`` (or ``lost``) line (without the newline); the
    9th field if the node has a VALUE."""
    value = "" if node.value is None else f" {node.value}"
    return (f"{tag} {node.id} {node.key} {node.color} "
            f"{_fmt_ref(node.parent)} {_fmt_ref(node.left)} "
            f"{_fmt_ref(node.right)} {_fmt_ref(node.aug)}{value}")


def format_dump(tree: Tree) -> str:
    """Format a :class:`Tree` as ``dump`` text (inverse of parse_dump)."""
    out = [f"tree {tree.name}", f"api {tree.api}",
           f"flags {format_flags(tree.flags)}", f"count {tree.count}"]
    if tree.allocated is not None:
        out.append(f"nodes {tree.allocated}")
    out += [f"root {_fmt_ref(tree.root)}",
            f"leftmost {_fmt_ref(tree.leftmost)}",
            f"rightmost {_fmt_ref(tree.rightmost)}",
            f"height {tree.height}", f"aug {tree.aug or '-'}"
            + (f" {tree.aug_rule}" if tree.aug_rule else "")]
    if tree.value:
        out.append(f"value {tree.value}")
    if tree.hex:
        out.append("hex " + ",".join(f for f in HEX_FIELDS if f in tree.hex))
    out.extend(format_node(n) for n in tree.nodes.values())
    if tree.error:
        out.append(f"error {tree.error}")
    out.extend(format_node(n, "lost") for n in tree.lost.values())
    copy = tree.copy1
    if copy is not None:
        out += ["copy 1", f"root {_fmt_ref(copy.root)}",
                f"height {copy.height}"]
        out.extend(format_node(n) for n in copy.nodes.values())
        if copy.error:
            out.append(f"error {copy.error}")
        out.append(f"end {len(copy.nodes)}")
    out.append(f"end {len(tree.nodes)}")
    return "\n".join(out) + "\n"
