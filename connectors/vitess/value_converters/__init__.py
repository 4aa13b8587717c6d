"""The Vitess type registry: which Connect schema a column gets and how its VStream values convert.

`converter_for(column, options)` resolves a column once per FIELD event (not per row) into a
`ColumnConverter`: the field schema as Debezium's Vitess connector (2.7) declares it, optional as the column
is nullable, and `from_text`, the precompiled parser of one non-NULL value. The column is what a FIELD event
says of it: `type.oid` the query.Type code, `type.name` the MySQL column type text (`enum('a','b')`,
`bigint(20) unsigned`, `varchar(255)`), `scale` Field.decimals.

Values reach the parsers as `str`: UTF-8 text for every column except the binary ones (`is_binary`), which
the row decoder reads as latin-1 so their bytes come back unchanged with `.encode("latin-1")`.

The registry is one dict per type family (numeric, temporal, text, binary), merged here. Types Debezium
does not map (BIT, GEOMETRY and the spatial types, NULL_TYPE, anything unknown) leave the column out, or with
include.unknown.datatypes give its bytes per binary.handling.mode.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Final

from connect_worker.api.schema import Schema
from connectors.relational.table import Column
from connectors.vitess.value_converters import binary, numeric, temporal, text
from connectors.vitess.value_converters._base import (
    Factory,
    QueryType,
    TextParser,
    ValueConversionError,
    VitessTypeOptions,
)

__all__ = [
    "BUILTIN_TYPES",
    "ColumnConverter",
    "QueryType",
    "ValueConversionError",
    "VitessTypeOptions",
    "converter_for",
    "is_binary",
]

log = logging.getLogger(__name__)

BUILTIN_TYPES: Final[dict[int, Factory]] = {
    **numeric.BUILTIN,
    **temporal.BUILTIN,
    **text.BUILTIN,
    **binary.BUILTIN,
}
"""Mapped types by query.Type code."""

_ALWAYS_BINARY: Final = frozenset({QueryType.BINARY, QueryType.BLOB})


@dataclasses.dataclass(frozen=True, slots=True)
class ColumnConverter:
    """A column's field schema and the converter of its non-NULL values."""

    schema: Schema
    from_text: TextParser
    from_snapshot_text: TextParser | None = None
    """Always None: the copy phase and the stream print values alike."""
    rebind: None = None
    """Always None: no Vitess value is a struct whose schema would need re-binding."""


def is_binary(column: Column) -> bool:
    """Whether the row decoder must keep this column's bytes (latin-1) rather than decode UTF-8 text: binary
    string types, and every type without a mapping (whose raw bytes are all include.unknown.datatypes keeps)."""
    oid = column.type.oid
    if oid in _ALWAYS_BINARY:
        return True
    if oid == QueryType.VARBINARY:
        return not binary.is_character_varbinary(column)
    return oid not in BUILTIN_TYPES


def converter_for(column: Column, options: VitessTypeOptions) -> ColumnConverter | None:
    """The column's converter, or None when the column is left out (a type without a mapping)."""
    factory = BUILTIN_TYPES.get(column.type.oid)
    if factory is not None:
        mapping = factory(column, options)
    elif options.include_unknown_datatypes:
        mapping = binary.bytes_mapping(options.binary_handling_mode)
    else:
        log.warning(
            "Column %s of type '%s' (query.Type %s) has no mapping and is left out of the events; "
            "set include.unknown.datatypes=true to emit its raw bytes",
            column.name,
            column.type.name,
            _type_label(column.type.oid),
        )
        return None
    schema = mapping.schema.with_(optional=True) if column.optional else mapping.schema
    return ColumnConverter(schema, mapping.from_text)


def _type_label(oid: int) -> str:
    try:
        return QueryType(oid).name
    except ValueError:
        return str(oid)
