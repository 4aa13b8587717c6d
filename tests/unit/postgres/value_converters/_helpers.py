"""Shared builders for the value-converter unit tests."""

from __future__ import annotations

from typing import Any

from connect_worker.api.schema import Schema, struct_schema
from connect_worker.api.struct import Struct
from connectors.postgres.value_converters import ColumnConverter, TypeOptions, converter_for
from connectors.relational.table import Column, ColumnType
from converters.json import JsonConverter


def ctype(name: str, **kw: Any) -> ColumnType:
    return ColumnType(kw.pop("oid", 0), name, **kw)


def array_of(element: ColumnType) -> ColumnType:
    return ColumnType(0, "_" + element.name, category="A", element=element)


def conv(
    type_: ColumnType | str,
    *,
    length: int | None = None,
    scale: int | None = None,
    optional: bool = True,
    default: str | None = None,
    **options: Any,
) -> ColumnConverter:
    column_type = ctype(type_) if isinstance(type_, str) else type_
    column = Column("c", 1, column_type, length=length, scale=scale, optional=optional, default_expression=default)
    converter = converter_for(column, TypeOptions(**options))
    assert converter is not None, f"{column_type.name} unexpectedly unsupported"
    return converter


def json_of(schema: Schema, value: Any) -> str:
    """The field's schema and payload as JsonConverter writes them (inside a one-field struct)."""
    envelope = struct_schema([("f", schema)], name="t")
    data = JsonConverter()
    data.configure({"schemas.enable": "true"}, is_key=False)
    out = data.from_connect_data("topic", envelope, Struct.of(envelope, [value]))
    assert out is not None
    return out.decode("utf-8")
