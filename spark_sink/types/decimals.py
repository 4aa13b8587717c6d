"""Connect `Decimal` (fixed scale, precision from `connect.decimal.precision`) and Debezium
`VariableScaleDecimal` ({scale, value}, PG `numeric` without precision) → exact DecimalType. Pure."""

from __future__ import annotations

import decimal
from decimal import Decimal
from typing import Any

from spark_sink.connect_schema import ConnectSchema
from spark_sink.types.model import STRING, DecimalT
from spark_sink.types.primitives import to_bytes
from spark_sink.types.registry import ConversionError, Rule, TypeMapping, TypeRegistry, param_int

CONNECT_DECIMAL = "org.apache.kafka.connect.data.Decimal"
VARIABLE_SCALE_DECIMAL = "io.debezium.data.VariableScaleDecimal"
MAX_PRECISION = 38
_CTX = decimal.Context(prec=200)


def unscaled_to_decimal(raw: bytes, scale: int) -> Decimal:
    """Big-endian two's-complement unscaled bytes (JsonConverter BASE64 format) → Decimal."""
    return Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-scale, _CTX)


def decode_decimal(value: Any, scale: int) -> Decimal:
    if isinstance(value, Decimal):  # decimal.format=NUMERIC read with parse_float=Decimal
        return value
    if isinstance(value, int) and not isinstance(value, bool):
        return Decimal(value)
    if isinstance(value, float):
        return Decimal(repr(value))
    # a JSON string is always base64 here: the base type is `bytes` (a NUMERIC-format decimal is a JSON number)
    return unscaled_to_decimal(to_bytes(value), scale)


def fit(value: Decimal, precision: int, scale: int) -> Decimal:
    """`value` at exactly `scale` digits, rejecting (never rounding) values that would lose digits or overflow."""
    if not value.is_finite():
        raise ConversionError(f"{value} cannot be stored in decimal({precision},{scale})")
    quantized = value.quantize(Decimal(1).scaleb(-scale), context=_CTX)
    if quantized != value:
        raise ConversionError(f"{value} has more than {scale} fractional digits for decimal({precision},{scale})")
    if len(quantized.as_tuple().digits) > precision and quantized != 0:
        raise ConversionError(f"{value} does not fit decimal({precision},{scale})")
    return quantized


def _connect_decimal(schema: ConnectSchema, registry: TypeRegistry) -> TypeMapping:
    scale = param_int(schema.parameters, "scale", 0) or 0
    precision = param_int(schema.parameters, "connect.decimal.precision", registry.options.default_decimal_precision)
    assert precision is not None
    if scale < 0 or scale > MAX_PRECISION or precision > MAX_PRECISION:
        # beyond what Spark's DecimalType holds: keep it exact as text
        return TypeMapping(STRING, lambda v: str(decode_decimal(v, scale)))
    precision = max(precision, scale, 1)
    return TypeMapping(DecimalT(precision, scale), lambda v: fit(decode_decimal(v, scale), precision, scale))


def _variable_scale(schema: ConnectSchema, registry: TypeRegistry) -> TypeMapping:
    scale = registry.options.variable_scale

    def conv(value: Any) -> Decimal:
        if not isinstance(value, dict) or "value" not in value:
            raise ConversionError(f"VariableScaleDecimal must be {{scale, value}}: {value!r}")
        return fit(decode_decimal(value["value"], int(value.get("scale") or 0)), MAX_PRECISION, scale)

    return TypeMapping(DecimalT(MAX_PRECISION, scale), conv)


BY_NAME: dict[str, Rule] = {CONNECT_DECIMAL: _connect_decimal, VARIABLE_SCALE_DECIMAL: _variable_scale}
