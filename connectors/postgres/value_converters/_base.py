"""The shared vocabulary of the type registry: options, the per-type mapping, the factory signature.

A *factory* looks at one column type (already resolved through domains) with the column's length and scale
and the connector's type options, and returns a `Mapping` (the non-optional Connect schema without default,
and the text parser precompiled for that column) or None when Debezium has no mapping for it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal, TypeAlias

from connect_worker.api.errors import DataError
from connect_worker.api.schema import Schema
from connectors.relational.table import ColumnType

TimePrecisionMode: TypeAlias = Literal[
    "adaptive", "adaptive_time_microseconds", "connect", "isostring", "microseconds", "nanoseconds"
]
DecimalHandlingMode: TypeAlias = Literal["precise", "double", "string"]
HstoreHandlingMode: TypeAlias = Literal["json", "map"]
IntervalHandlingMode: TypeAlias = Literal["numeric", "string"]
BinaryHandlingMode: TypeAlias = Literal["bytes", "base64", "base64-url-safe", "hex"]

TextParser: TypeAlias = Callable[[str], Any]


@dataclasses.dataclass(frozen=True, slots=True)
class TypeOptions:
    """The connector properties that decide type mappings (postgresql.md §8.3)."""

    time_precision_mode: TimePrecisionMode = "adaptive"
    decimal_handling_mode: DecimalHandlingMode = "precise"
    hstore_handling_mode: HstoreHandlingMode = "json"
    interval_handling_mode: IntervalHandlingMode = "numeric"
    binary_handling_mode: BinaryHandlingMode = "bytes"
    money_fraction_digits: int = 2
    include_unknown_datatypes: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class TypeSpec:
    """What a factory may look at: the (domain-resolved) type and the column's length and scale.

    For an array column, the element factory gets the element type with the *column's* length and scale
    (as Debezium builds its element column).
    """

    type: ColumnType
    length: int | None = None
    scale: int | None = None


@dataclasses.dataclass(frozen=True, slots=True)
class Mapping:
    """A resolved mapping: the required (non-optional, default-less) schema and the text parser.

    Struct-valued mappings also give `rebind`: the parser producing structs of another (the final,
    optional or defaulted) variant of the schema, since a Connect Struct carries its exact schema.
    """

    schema: Schema
    from_text: TextParser
    rebind: Callable[[Schema], TextParser] | None = None
    snapshot_specials_null: bool = False
    """Snapshot reads of NaN/±Infinity give null (Debezium reads them as a JDBC double it cannot convert);
    streamed ones go through `from_text` (which fails in `precise` mode, as Debezium does)."""

    def parser_for(self, schema: Schema) -> TextParser:
        """The parser whose values fit `schema` (a variant of `self.schema`)."""
        if self.rebind is None or schema == self.schema:
            return self.from_text
        return self.rebind(schema)


Factory: TypeAlias = Callable[[TypeSpec, TypeOptions], Mapping | None]


class ValueConversionError(DataError):
    """A PostgreSQL text value that cannot be converted to the column's Connect value."""


def bad_value(kind: str, text: str) -> ValueConversionError:
    return ValueConversionError(f"Cannot convert PostgreSQL {kind} value {text!r}")
