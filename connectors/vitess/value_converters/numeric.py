"""Integers, BIGINT UNSIGNED, floating point and DECIMAL (vitess.md §4.1).

VStream prints numbers as MySQL does: decimal integers (unsigned ones without a sign), floats in Go's
shortest form (`1.5`, `1e+30`), DECIMAL in plain notation with its scale (`12.30`). Signed and narrow unsigned
types widen to the next Connect integer that holds them; BIGINT UNSIGNED follows bigint.unsigned.handling.mode.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Final

from connect_worker.api.schema import (
    FLOAT64_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    decimal_schema,
)
from connectors.relational.table import Column
from connectors.vitess.value_converters._base import (
    Factory,
    Mapping,
    QueryType,
    VitessTypeOptions,
    bad_value,
    identity,
)

UNSIGNED_BIGINT_DECIMAL_SCHEMA: Final = decimal_schema(0)
_TWO_64: Final = 1 << 64
_MAX_LONG: Final = (1 << 63) - 1


def parse_int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise bad_value("integer", text) from None


def parse_float(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise bad_value("floating-point", text) from None


def unsigned_as_long(text: str) -> int:
    """An unsigned 64-bit value as Java's long holds it: above 2^63-1 it wraps to the negative range."""
    value = parse_int(text)
    return value - _TWO_64 if value > _MAX_LONG else value


def unsigned_as_decimal(text: str) -> Decimal:
    """An unsigned 64-bit value as a scale-0 Decimal (a negative raw value is read back as unsigned)."""
    value = parse_int(text)
    return Decimal(value + _TWO_64 if value < 0 else value)


def _int16(column: Column, options: VitessTypeOptions) -> Mapping:
    return Mapping(INT16_SCHEMA, parse_int)


def _int32(column: Column, options: VitessTypeOptions) -> Mapping:
    return Mapping(INT32_SCHEMA, parse_int)


def _int64(column: Column, options: VitessTypeOptions) -> Mapping:
    return Mapping(INT64_SCHEMA, parse_int)


def _uint64(column: Column, options: VitessTypeOptions) -> Mapping:
    mode = options.bigint_unsigned_handling_mode
    if mode == "long":
        return Mapping(INT64_SCHEMA, unsigned_as_long)
    if mode == "precise":
        return Mapping(UNSIGNED_BIGINT_DECIMAL_SCHEMA, unsigned_as_decimal)
    return Mapping(STRING_SCHEMA, identity)


def _float64(column: Column, options: VitessTypeOptions) -> Mapping:
    return Mapping(FLOAT64_SCHEMA, parse_float)


def _decimal(column: Column, options: VitessTypeOptions) -> Mapping:
    # The Vitess connector has no decimal.handling.mode: DECIMAL is its plain text, unchanged.
    return Mapping(STRING_SCHEMA, identity)


BUILTIN: Final[dict[int, Factory]] = {
    QueryType.INT8: _int16,
    QueryType.UINT8: _int16,
    QueryType.INT16: _int16,
    QueryType.UINT16: _int32,
    QueryType.INT24: _int32,
    QueryType.UINT24: _int32,
    QueryType.INT32: _int32,
    QueryType.UINT32: _int64,
    QueryType.INT64: _int64,
    QueryType.UINT64: _uint64,
    QueryType.FLOAT32: _float64,
    QueryType.FLOAT64: _float64,
    QueryType.DECIMAL: _decimal,
}
