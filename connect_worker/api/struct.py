"""Struct: a row of values laid out by a struct schema (org.apache.kafka.connect.data.Struct)."""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Self

from connect_worker.api.errors import DataError
from connect_worker.api.schema import Schema, Type


class _PyStructBase:
    """Struct's two slots and its constructor in Python: the reference for connect_worker/api/_struct.c, and
    what an install without a C compiler uses."""

    __slots__ = ("schema", "values")

    schema: Schema
    values: tuple[Any, ...]

    @classmethod
    def of(cls, schema: Schema, values: Sequence[Any]) -> Self:
        if len(values) != len(schema.fields):
            raise DataError(f"Expected {len(schema.fields)} values for {schema!r}, got {len(values)}")
        s = _new(cls)
        _set_schema(s, schema)  # the slots' own setters: half the cost of object.__setattr__
        _set_values(s, values if values.__class__ is tuple else tuple(values))
        return s


_new = object.__new__
_set_schema = _PyStructBase.__dict__["schema"].__set__  # the slot descriptors
_set_values = _PyStructBase.__dict__["values"].__set__


def _base() -> type[_PyStructBase]:
    """The C base (built from _struct.c by `pip install`), else the Python one."""
    try:
        accel = importlib.import_module("connect_worker.api._struct")
    except ImportError:
        return _PyStructBase
    accel.init(DataError)
    base: type[_PyStructBase] = accel.StructBase
    return base


class Struct(_base()):  # type: ignore[misc]
    """Values in the order of the schema's fields. Immutable once built; `put` returns a new Struct.

    `Struct(schema, {"id": 1})` builds from a mapping (missing fields are None);
    `Struct.of(schema, values)` takes the values already in field order (the hot path, in C where built).
    """

    __slots__ = ()

    schema: Schema
    values: tuple[Any, ...]

    def __init__(self, schema: Schema, data: Mapping[str, Any] | None = None) -> None:
        if schema.type is not Type.STRUCT:
            raise DataError("Not a struct schema: " + repr(schema))
        if data:
            unknown = [k for k in data if schema.field(k) is None]
            if unknown:
                raise DataError(f"{unknown[0]} is not a valid field name")
            values = tuple(data.get(f.name) for f in schema.fields)
        else:
            values = (None,) * len(schema.fields)
        object.__setattr__(self, "schema", schema)
        object.__setattr__(self, "values", values)

    if TYPE_CHECKING:

        @classmethod
        def of(cls, schema: Schema, values: Sequence[Any]) -> Struct: ...

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Struct is immutable")

    def get(self, name: str) -> Any:
        f = self.schema.field(name)
        if f is None:
            raise DataError(f"{name} is not a valid field name")
        return self.values[f.index]

    def __getitem__(self, name: str) -> Any:
        return self.get(name)

    def put(self, name: str, value: Any) -> Struct:
        f = self.schema.field(name)
        if f is None:
            raise DataError(f"{name} is not a valid field name")
        values = list(self.values)
        values[f.index] = value
        return Struct.of(self.schema, values)

    def as_dict(self) -> dict[str, Any]:
        return {f.name: v for f, v in zip(self.schema.fields, self.values, strict=True)}

    def validate(self) -> None:
        """Raise DataError when a required field is None and has no default."""
        for f, v in zip(self.schema.fields, self.values, strict=True):
            if v is None and not f.schema.optional and not f.schema.has_default:
                raise DataError(
                    f'Invalid value: null used for required field: "{f.name}", schema type: {f.schema.type.name}'
                )

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Struct) and self.schema == other.schema and self.values == other.values

    def __hash__(self) -> int:
        return hash((self.schema, tuple(_hashable(v) for v in self.values)))

    def __repr__(self) -> str:
        inner = ",".join(f"{f.name}={v!r}" for f, v in zip(self.schema.fields, self.values, strict=True))
        return "Struct{" + inner + "}"


def _hashable(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple(sorted((k, _hashable(x)) for k, x in v.items()))
    if isinstance(v, bytearray):
        return bytes(v)
    return v
