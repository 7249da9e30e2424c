# SPDX-License-Identifier: GPL-2.0
"""Values read from a tree's entries, described once for both checkers.

A census kind's key, augmented value and the value its augment rule
folds are expressions over the entry's fields: called as any key is,
``(entry, ctx) -> int or tuple``, by the Python walk, and compiled by
:meth:`Expr.code` into the C core's programs (``ccore/rbti_cc.h``, enum
rbti_cc_op), which compute the same integers (128-bit, so that no sum or
difference of 64-bit fields overflows).  An expression that cannot be
compiled (a field the entry's type does not have as a scalar) makes the
tree the Python walk's.

    Get("va_end") - Get("va_start")                 # a vmap area's size
    S64(Get("vruntime") - Base())                   # relative to a base
    Load(Get("vma"), 8, 8, False)                   # a word through a pointer
    Tuple(Get("namelen"), Bytes(Get("name"), Get("namelen")))
"""

from .walk import Field, TypeInfo, s64

# enum rbti_cc_op
END, FIELD, LOAD, CONST, BASE, ADD, SUB, SHR, S64_, IFNEG, BYTES = range(11)


class Expr:
    """A value of an entry; ``a + b``, ``a - b``, ``a >> n`` and an int
    operand make new ones."""

    def __call__(self, e, c):
        raise NotImplementedError

    def code(self, info: TypeInfo) -> list | None:
        """The program's instructions, ``(op, size, sign, arg)`` each, or
        None if *info* lacks a field it reads."""
        raise NotImplementedError

    def width(self) -> int:
        """How many values it leaves (a :class:`Tuple`: its items)."""
        return 1

    def __add__(self, other):
        return Add(self, _expr(other))

    def __sub__(self, other):
        return Sub(self, _expr(other))

    def __rshift__(self, n: int):
        return Shr(self, n)


def _expr(value) -> Expr:
    return value if isinstance(value, Expr) else Const(int(value))


def _codes(info: TypeInfo, *items: Expr) -> list | None:
    out: list = []
    for item in items:
        got = item.code(info)
        if got is None:
            return None
        out += got
    return out


class Get(Field, Expr):
    """The entry's field at a path of members (``"shared.rb_subtree_last"``);
    the Python walk reads it at its offset (:class:`~.walk.Field`)."""

    def code(self, info):
        at = self.at(info)
        return None if at is None else [(FIELD, at[1], int(at[2]), at[0])]


class Const(Expr):
    def __init__(self, value: int) -> None:
        self.value = value

    def __call__(self, e, c):
        return self.value

    def code(self, info):
        return [(CONST, 0, 0, self.value)] \
            if -(1 << 63) <= self.value < 1 << 63 else None


class Base(Expr):
    """The container's base value (``ctx.base``: a runqueue's
    min_vruntime), read once a pass."""

    def __call__(self, e, c):
        return c.base

    def code(self, info):
        return [(BASE, 0, 0, 0)]


class _Binary(Expr):
    op = END

    def __init__(self, a: Expr, b: Expr) -> None:
        self.a, self.b = a, b

    def code(self, info):
        got = _codes(info, self.a, self.b)
        return None if got is None else got + [(self.op, 0, 0, 0)]


class Add(_Binary):
    op = ADD

    def __call__(self, e, c):
        return self.a(e, c) + self.b(e, c)


class Sub(_Binary):
    op = SUB

    def __call__(self, e, c):
        return self.a(e, c) - self.b(e, c)


class Shr(Expr):
    def __init__(self, a: Expr, n: int) -> None:
        self.a, self.n = a, n

    def __call__(self, e, c):
        return self.a(e, c) >> self.n

    def code(self, info):
        got = self.a.code(info)
        return None if got is None or not 0 <= self.n < 128 else \
            got + [(SHR, 0, 0, self.n)]


class S64(Expr):
    """C's ``(s64)`` cast."""

    def __init__(self, a: Expr) -> None:
        self.a = a

    def __call__(self, e, c):
        return s64(self.a(e, c))

    def code(self, info):
        got = self.a.code(info)
        return None if got is None else got + [(S64_, 0, 0, 0)]


class Load(Expr):
    """The integer of *size* bytes at the address *ptr* + *off* (through a
    pointer of the entry: an anon_vma_chain's vma)."""

    def __init__(self, ptr: Expr, off: int, size: int = 8,
                 signed: bool = False) -> None:
        self.ptr, self.off, self.size, self.signed = ptr, off, size, signed

    def __call__(self, e, c):
        return c.mem.int(self.ptr(e, c) + self.off, self.size, self.signed)

    def code(self, info):
        got = self.ptr.code(info)
        return None if got is None else \
            got + [(LOAD, self.size, int(self.signed), self.off)]


class IfNeg(Expr):
    """*then* if *cond* < 0, else *other*; both are read, in both
    checkers (a fault in either makes the node unreadable)."""

    def __init__(self, cond: Expr, then: Expr, other: Expr) -> None:
        self.cond, self.then, self.other = cond, then, other

    def __call__(self, e, c):
        cond, then, other = (x(e, c) for x in (self.cond, self.then,
                                              self.other))
        return then if cond < 0 else other

    def code(self, info):
        got = _codes(info, self.cond, self.then, self.other)
        return None if got is None else got + [(IFNEG, 0, 0, 0)]


class Bytes(Expr):
    """The *length* bytes at *ptr* (a name), compared as bytes."""

    def __init__(self, ptr: Expr, length: Expr) -> None:
        self.ptr, self.length = ptr, length

    def __call__(self, e, c):
        size = self.length(e, c)
        return c.mem.read(self.ptr(e, c), size) if size else b""

    def code(self, info):
        got = _codes(info, self.ptr, self.length)
        return None if got is None else got + [(BYTES, 0, 0, 0)]


class Tuple(Expr):
    """Values compared in turn (a key of a name after its length, or a
    file and a descriptor)."""

    def __init__(self, *items: Expr) -> None:
        self.items = items

    def __call__(self, e, c):
        return tuple(item(e, c) for item in self.items)

    def code(self, info):
        return _codes(info, *self.items)

    def width(self) -> int:
        return len(self.items)
