"""The shared vocabulary of the Vitess type registry: query.Type codes, options, the per-type mapping.

A *factory* looks at one column (its query.Type, the lower-cased MySQL column type text, Field.decimals as
`scale`, nullability) and the connector's type options, and returns a `Mapping`: the required Connect schema
and the parser of one non-NULL value, both fixed for that column so per-value work is only the parse.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from typing import Any, Literal, TypeAlias

from connect_worker.api.errors import DataError
from connect_worker.api.schema import Schema
from connectors.relational.table import Column

TimePrecisionMode: TypeAlias = Literal["adaptive_time_microseconds", "connect"]
BigintUnsignedHandlingMode: TypeAlias = Literal["string", "long", "precise"]
BinaryHandlingMode: TypeAlias = Literal["bytes", "base64", "base64-url-safe", "hex"]

TextParser: TypeAlias = Callable[[str], Any]


class QueryType(enum.IntEnum):
    """The query.Type codes VStream's FIELD events carry (vitess.md §9)."""

    NULL_TYPE = 0
    INT8 = 257
    UINT8 = 770
    INT16 = 259
    UINT16 = 772
    INT24 = 261
    UINT24 = 774
    INT32 = 263
    UINT32 = 776
    INT64 = 265
    UINT64 = 778
    FLOAT32 = 1035
    FLOAT64 = 1036
    TIMESTAMP = 2061
    DATE = 2062
    TIME = 2063
    DATETIME = 2064
    YEAR = 785
    DECIMAL = 18
    TEXT = 6163
    BLOB = 10260
    VARCHAR = 6165
    VARBINARY = 10262
    CHAR = 6167
    BINARY = 10264
    BIT = 2073
    ENUM = 2074
    SET = 2075
    GEOMETRY = 2077
    JSON = 2078


@dataclasses.dataclass(frozen=True, slots=True)
class VitessTypeOptions:
    """The connector properties that decide type mappings (vitess.md §4, §5)."""

    time_precision_mode: TimePrecisionMode = "adaptive_time_microseconds"
    bigint_unsigned_handling_mode: BigintUnsignedHandlingMode = "string"
    binary_handling_mode: BinaryHandlingMode = "bytes"
    include_unknown_datatypes: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class Mapping:
    """A resolved mapping: the required (non-optional) schema and the parser of one non-NULL value."""

    schema: Schema
    from_text: TextParser


Factory: TypeAlias = Callable[[Column, VitessTypeOptions], Mapping]


class ValueConversionError(DataError):
    """A Vitess value that cannot be converted to its column's Connect value."""


def bad_value(kind: str, text: str) -> ValueConversionError:
    return ValueConversionError(f"Cannot convert Vitess {kind} value {text!r}")


def identity(text: str) -> str:
    return text


identity.is_identity = True  # type: ignore[attr-defined]  # the schema builder's row converters inline it away
