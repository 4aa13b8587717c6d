"""Booleans, integers, floating point, NUMERIC and MONEY (postgresql.md §6.1, §6.3).

PostgreSQL text output: `t`/`f`; decimal integers; floats as `1.5e+30`, `NaN`, `Infinity`, `-Infinity`;
numerics in plain notation (never exponent form) or `NaN` / `Infinity` / `-Infinity`; money per lc_monetary
(`$1,234.56`, `-$1,234.56`).
"""

from __future__ import annotations

from decimal import MAX_PREC, ROUND_HALF_UP, Context, Decimal, Inexact, InvalidOperation
from typing import Final

from connect_worker.api.javacompat import java_bigdecimal_to_plain_string
from connect_worker.api.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    Schema,
    decimal_schema,
    struct_schema,
)
from connect_worker.api.struct import Struct
from connectors.postgres.value_converters import fastparse
from connectors.postgres.value_converters._base import (
    Factory,
    Mapping,
    TextParser,
    TypeOptions,
    TypeSpec,
    ValueConversionError,
    bad_value,
)

VARIABLE_SCALE_DECIMAL_NAME: Final = "io.debezium.data.VariableScaleDecimal"
VARIABLE_SCALE_DECIMAL_SCHEMA: Final = struct_schema(
    [("scale", INT32_SCHEMA), ("value", BYTES_SCHEMA)],
    name=VARIABLE_SCALE_DECIMAL_NAME,
    version=1,
    doc="Variable scaled decimal",
)

# SpecialValueDecimal's enum names, which `decimal.handling.mode=string` emits for the special values.
_SPECIAL_STRINGS: Final = {"NaN": "NAN", "Infinity": "POSITIVE_INFINITY", "-Infinity": "NEGATIVE_INFINITY"}
_SPECIAL_DOUBLES: Final = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def unscaled_bytes(unscaled: int) -> bytes:
    """BigInteger.toByteArray(): minimal big-endian two's complement (zero is one 0x00 byte)."""
    return unscaled.to_bytes((unscaled + (unscaled < 0)).bit_length() // 8 + 1, "big", signed=True)


def strip_trailing_zeros(value: Decimal) -> tuple[int, int]:
    """(unscaled, scale) of BigDecimal.stripTrailingZeros() with a negative scale set to 0, exactly: no context
    (whose 28-digit precision would round) takes part, whatever the number of digits."""
    sign, digits, exponent = value.as_tuple()
    assert isinstance(exponent, int)
    end = len(digits)
    while end > 1 and digits[end - 1] == 0:
        end -= 1
    exponent += len(digits) - end
    # int() of a Decimal is exact and, unlike int() of a str, has no limit on the number of digits
    unscaled = int(Decimal((sign, digits[:end], 0))) if end else 0
    if unscaled == 0:
        return 0, 0
    if exponent > 0:
        return unscaled * 10**exponent, 0
    return unscaled, -exponent


def variable_scale_struct(value: Decimal, schema: Schema = VARIABLE_SCALE_DECIMAL_SCHEMA) -> Struct:
    """VariableScaleDecimal.fromLogical after Debezium's stripTrailingZeros (negative scales become 0)."""
    unscaled, scale = strip_trailing_zeros(value)
    return Struct.of(schema, (scale, unscaled_bytes(unscaled)))


def _special_in_precise(text: str) -> ValueConversionError:
    return ValueConversionError(
        f"Got a special value ({text}) for Decimal type but current mode does not handle it. "
        "If you need to support it then set decimal handling mode to 'string'."
    )


def _parse_bool(text: str) -> bool:
    # `t` from the output function (pgoutput, COPY); `true` from a `::text` cast.
    return text == "t" or text == "true"


def _bool(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(BOOLEAN_SCHEMA, _parse_bool)


def _int16(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(INT16_SCHEMA, int)


def _int32(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(INT32_SCHEMA, int)


def _int64(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(INT64_SCHEMA, int)


def _float32(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(FLOAT32_SCHEMA, float)


def _float64(spec: TypeSpec, options: TypeOptions) -> Mapping:
    return Mapping(FLOAT64_SCHEMA, float)


def is_variable_scale(spec: TypeSpec) -> bool:
    """Debezium's isVariableScaleDecimal: no precision given (and no scale)."""
    return (spec.length is None or spec.length == 0) and not spec.scale


def numeric_mapping(spec: TypeSpec, options: TypeOptions) -> Mapping:
    mode = options.decimal_handling_mode
    scale = spec.scale or 0
    if mode == "double":

        def to_double(text: str) -> float:
            special = _SPECIAL_DOUBLES.get(text)
            return special if special is not None else float(text)

        return Mapping(FLOAT64_SCHEMA, to_double)

    variable = is_variable_scale(spec)
    quantum = Decimal(1).scaleb(-scale)
    fixed_point = not variable and scale > 0

    def scaled(text: str) -> Decimal:
        try:
            value = Decimal(text)
        except InvalidOperation:
            raise bad_value("numeric", text) from None
        if variable or (fixed_point and text[-scale - 1 : -scale] == "." and text[-scale:].isdigit()):
            return value  # PostgreSQL's own text of a numeric(p, s): exactly `scale` fraction digits already
        if value.as_tuple().exponent != -scale:
            try:
                # BigDecimal.setScale(scale) without a rounding mode: exact or an error.
                value = value.quantize(quantum, context=_EXACT)
            except (InvalidOperation, Inexact):
                raise bad_value("numeric", text) from None
        return value

    if mode == "string":

        def to_string(text: str) -> str:
            special = _SPECIAL_STRINGS.get(text)
            return special if special is not None else java_bigdecimal_to_plain_string(scaled(text))

        return Mapping(STRING_SCHEMA, to_string)

    if variable:

        def struct_parser(schema: Schema) -> TextParser:
            def to_struct(text: str) -> Struct:
                if text in _SPECIAL_STRINGS:
                    raise _special_in_precise(text)
                return variable_scale_struct(scaled(text), schema)

            return to_struct

        return Mapping(
            VARIABLE_SCALE_DECIMAL_SCHEMA,
            struct_parser(VARIABLE_SCALE_DECIMAL_SCHEMA),
            struct_parser,
            snapshot_specials_null=True,
        )

    def to_decimal(text: str) -> Decimal:
        if text in _SPECIAL_STRINGS:
            raise _special_in_precise(text)
        return scaled(text)

    precision = spec.length if spec.length is not None else 0
    # `[-]digits.<scale digits>` (scaled's own fast path) in C, this function for everything else
    parse = fastparse.fixed_scale_decimal(scale, to_decimal) if fixed_point else to_decimal
    return Mapping(decimal_schema(scale, precision=precision), parse, snapshot_specials_null=True)


# Traps inexact results, so quantize raises instead of rounding (BigDecimal.setScale without rounding mode).
_EXACT: Final = Context(prec=MAX_PREC, traps=[Inexact, InvalidOperation])


def parse_money(text: str) -> Decimal:
    """PostgresMoney.parse (Debezium 3.6): a leading `-` or parentheses for negative, one currency symbol, `,`
    groups removed, the rest read as an exact BigDecimal (`$1,234.50` is 1234.50, scale kept)."""
    negative = False
    s = text
    if s.startswith("-"):
        negative = True
        s = s[1:]
    elif s.startswith("(") and s.endswith(")"):
        negative = True
        s = s[1:-1]
    s = s[1:] if s and not (s[0].isdigit() or s[0] == ".") else s
    try:
        value = Decimal(s.replace(",", ""))
    except InvalidOperation:
        raise bad_value("money", text) from None
    if not value.is_finite():
        raise bad_value("money", text)
    return value.copy_negate() if negative else value  # unary minus would round to the context's precision


def money_mapping(spec: TypeSpec, options: TypeOptions) -> Mapping:
    mode = options.decimal_handling_mode
    digits = options.money_fraction_digits
    if mode == "double":
        return Mapping(FLOAT64_SCHEMA, lambda text: float(parse_money(text)))  # BigDecimal.doubleValue
    if mode == "string":
        return Mapping(STRING_SCHEMA, lambda text: java_bigdecimal_to_plain_string(parse_money(text)))
    quantum = Decimal(1).scaleb(-digits)

    def to_decimal(text: str) -> Decimal:
        # BigDecimal.setScale(digits, HALF_UP)
        return parse_money(text).quantize(quantum, rounding=ROUND_HALF_UP, context=_EXACT_ROUNDING)

    return Mapping(decimal_schema(digits), to_decimal)


# quantize with a rounding mode of its own, never limited by the default context's 28 digits
_EXACT_ROUNDING: Final = Context(prec=MAX_PREC)


BUILTIN: Final[dict[str, Factory]] = {
    "bool": _bool,
    "int2": _int16,
    "int4": _int32,
    "int8": _int64,
    "oid": _int64,
    "float4": _float32,
    "float8": _float64,
    "numeric": numeric_mapping,
    "money": money_mapping,
}
