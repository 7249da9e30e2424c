# SPDX-License-Identifier: GPL-2.0
"""Tests of rbtilib.record, the dataclasses subset rbti uses."""

import pytest

from rbtilib.record import factory, fields, record, replace


@record(frozen=True)
class Point:
    x: int
    y: int
    label: str = ""


@record
class Bag:
    name: str
    items: list = factory(list)
    size: int | None = None


def test_init_defaults_eq_repr_and_hash():
    p = Point(1, 2)
    assert (p.x, p.y, p.label) == (1, 2, "")
    assert p == Point(1, 2, "") and p != Point(2, 1)
    assert p != (1, 2, "")
    assert repr(p) == "Point(x=1, y=2, label='')"
    assert hash(p) == hash(Point(x=1, y=2))
    assert len({p, Point(1, 2), Point(1, 3)}) == 2


def test_frozen_cannot_change():
    p = Point(1, 2)
    with pytest.raises(AttributeError):
        p.x = 5
    with pytest.raises(AttributeError):
        del p.y


def test_mutable_record_has_a_fresh_factory_default_and_no_hash():
    a, b = Bag("a"), Bag("b")
    a.items.append(1)
    assert b.items == [] and a.items == [1]
    a.size = 3
    assert a == Bag("a", [1], 3)
    with pytest.raises(TypeError):
        hash(a)


def test_replace_and_fields():
    p = Point(1, 2, "p")
    q = replace(p, y=7)
    assert q == Point(1, 7, "p") and p == Point(1, 2, "p")
    assert fields(p) == ("x", "y", "label") == fields(Point)
    with pytest.raises(TypeError):
        replace(p, z=1)
    with pytest.raises(TypeError):
        Point(1)


def test_a_required_field_after_a_default_is_refused():
    with pytest.raises(TypeError):
        @record
        class Bad:  # noqa: F841
            a: int = 0
            b: int

