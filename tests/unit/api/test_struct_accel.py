"""Struct's C base (connect_worker/api/_struct.c) against its Python reference (`_PyStructBase`)."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from connect_worker.api import struct as struct_module
from connect_worker.api.errors import DataError
from connect_worker.api.schema import Schema, Type, struct_schema
from connect_worker.api.struct import Struct, _PyStructBase

SCHEMA = struct_schema([("a", Schema(Type.INT32)), ("b", Schema(Type.STRING, optional=True))], name="x")
C_BASE: Any = Struct.__mro__[1]


def test_the_extension_is_built() -> None:
    """`pip install -e .` (make) compiles it; a missing build must not pass silently as the Python path."""
    assert C_BASE is not _PyStructBase, "connect_worker.api._struct is not built: run `pip install -e .`"
    assert struct_module._base() is C_BASE


class _PyStruct(_PyStructBase):
    __slots__ = ()


class _CStruct(C_BASE):  # type: ignore[misc]
    __slots__ = ()


BASES = pytest.mark.parametrize("cls", [_PyStruct, _CStruct], ids=["python", "c"])


@BASES
@pytest.mark.parametrize("make", [tuple, list], ids=["tuple", "list"])
@pytest.mark.parametrize("values", [(1, "q"), (None, None)])
def test_of_keeps_the_values_as_a_tuple(cls: Any, make: Any, values: tuple[Any, ...]) -> None:
    s = cls.of(SCHEMA, make(values))
    assert type(s) is cls
    assert s.schema is SCHEMA
    assert s.values == values and type(s.values) is tuple


def test_a_tuple_is_not_copied() -> None:
    values = (1, "q")
    assert Struct.of(SCHEMA, values).values is values


@BASES
@pytest.mark.parametrize("values", [(), (1,), (1, "q", 3)])
def test_a_wrong_number_of_values_is_the_same_data_error(cls: Any, values: tuple[Any, ...]) -> None:
    with pytest.raises(DataError) as e:
        cls.of(SCHEMA, values)
    assert str(e.value) == f"Expected 2 values for {SCHEMA!r}, got {len(values)}"


def test_structs_stay_immutable_and_comparable() -> None:
    s = Struct.of(SCHEMA, (1, "q"))
    with pytest.raises(AttributeError):
        s.values = ()
    assert s == Struct(SCHEMA, {"a": 1, "b": "q"})
    assert hash(s) == hash(Struct(SCHEMA, {"a": 1, "b": "q"}))
    assert not hasattr(s, "__dict__")


def test_a_cycle_through_a_struct_is_collected() -> None:
    """The C base takes part in the cyclic collector (a list value holding its own struct)."""
    gc.collect()
    before = sum(1 for o in gc.get_objects() if o.__class__ is Struct)
    items: list[Any] = []
    s = Struct.of(SCHEMA, (1, items))
    items.append(s)
    assert sum(1 for o in gc.get_objects() if o.__class__ is Struct) == before + 1
    del s, items
    gc.collect()
    assert sum(1 for o in gc.get_objects() if o.__class__ is Struct) == before
