# SPDX-License-Identifier: GPL-2.0
"""Plain record classes, the part of :mod:`dataclasses` rbti uses.

``import dataclasses`` also imports inspect, ast, dis, tokenize and about
fifteen other modules; in the debug TCG guest each import costs tens of
milliseconds of 9p lookups and unmarshalling, which would be most of the
time ``rbti show`` takes there.  This module builds the same ``__init__``,
``__eq__``, ``__repr__`` (and ``__hash__`` and read-only attributes when
frozen) from the class annotations, with :func:`replace` and
:func:`fields` for the callers that need them.

It is the one way rbtilib and rbtiviz declare records.  Measured against
``@dataclass(frozen=True, slots=True)`` on the host (Python 3.11): a
frozen record of seven fields is built in 450-580 ns, the dataclass in
1,000-1,170 ns; the checker takes 39-41 ms on a 32,767-node tree with
records, 45-50 ms with dataclasses (parse_dump and the fuzzer are the
same either way); and ``import dataclasses`` costs 26-49 ms of rbti's
start-up (59 modules loaded for ``rbti show`` against 77).
"""

import operator     # built in: no import cost

__all__ = ["record", "factory", "replace", "fields"]


class factory:  # noqa: N801 (used like dataclasses.field(default_factory=))
    """A default made fresh for each instance: ``lost: dict = factory(dict)``."""

    def __init__(self, make) -> None:
        self.make = make


def _frozen_setattr(self, name, value):
    raise AttributeError(f"cannot assign to field {name!r} of a frozen "
                         f"{type(self).__name__}")


def _frozen_delattr(self, name):
    raise AttributeError(f"cannot delete field {name!r} of a frozen "
                         f"{type(self).__name__}")


def record(cls=None, *, frozen: bool = False):
    """Class decorator: fields are the class's annotations, in order.

    A field with a class-level value has that default (a :class:`factory`
    is called per instance); fields without a default must come first.
    """
    def wrap(cls):
        names = tuple(cls.__dict__.get("__annotations__", {}))
        defaults, params, body = {}, [], []
        for name in names:
            if name in cls.__dict__:
                value = cls.__dict__[name]
                defaults[f"_d_{name}"] = value
                params.append(f"{name}=_d_{name}")
                if isinstance(value, factory):
                    # Made per instance; no factory left on the class.
                    body.append(f"if {name} is _d_{name}: "
                                f"{name} = _d_{name}.make()")
                    delattr(cls, name)
            elif defaults:
                raise TypeError(f"{cls.__name__}.{name}: a field without a "
                                "default follows one with a default")
            else:
                params.append(name)
        if frozen and names:
            # Straight into the instance dict: __setattr__ refuses, and
            # object.__setattr__ a call per field is most of the time a
            # dump's 10,000 Node records take to make.
            body.append("_d = self.__dict__")
            body += [f"_d[{name!r}] = {name}" for name in names]
        else:
            body += [f"self.{name} = {name}" for name in names]
        src = (f"def __init__(self, {', '.join(params)}):\n    "
               + ("\n    ".join(body) or "pass") + "\n")
        scope = dict(defaults)
        exec(src, scope)  # noqa: S102 (generated from the annotations)
        init = scope["__init__"]
        init.__qualname__ = f"{cls.__qualname__}.__init__"
        cls.__init__ = init

        # attrgetter of two names or more gives the tuple in C: equality
        # and hashing of records (a census compares every node of two
        # reads of a tree) cost a Python generator a field otherwise.
        if len(names) > 1:
            values = operator.attrgetter(*names)
        else:
            def values(self):
                return tuple(getattr(self, name) for name in names)

        def __eq__(self, other):
            if other.__class__ is not self.__class__:
                return NotImplemented
            return values(self) == values(other)

        def __repr__(self):
            inner = ", ".join(f"{name}={getattr(self, name)!r}"
                              for name in names)
            return f"{cls.__qualname__}({inner})"

        cls.__eq__ = __eq__
        if "__repr__" not in cls.__dict__:
            cls.__repr__ = __repr__
        if frozen:
            cls.__hash__ = lambda self: hash(values(self))
            cls.__setattr__ = _frozen_setattr
            cls.__delattr__ = _frozen_delattr
        else:
            cls.__hash__ = None
        cls.__record_fields__ = names
        return cls

    return wrap if cls is None else wrap(cls)


def fields(obj) -> tuple[str, ...]:
    """The field names of a record (class or instance), in order."""
    return obj.__record_fields__


def replace(obj, **changes):
    """A copy of the record *obj* with *changes*; TypeError on a bad name."""
    names = fields(obj)
    unknown = set(changes) - set(names)
    if unknown:
        raise TypeError(f"{type(obj).__name__} has no field "
                        f"{', '.join(sorted(unknown))}")
    return type(obj)(**{name: changes[name] if name in changes
                        else getattr(obj, name) for name in names})
