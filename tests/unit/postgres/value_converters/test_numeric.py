"""Booleans, integers, floats, NUMERIC and MONEY (postgresql.md §6.1, §6.3; §11 items 59, 60)."""

from __future__ import annotations

import math
from decimal import MAX_PREC, Context, Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from connect_worker.api.schema import Type
from connect_worker.api.struct import Struct
from connectors.postgres.value_converters import ValueConversionError
from connectors.postgres.value_converters.numeric import strip_trailing_zeros, unscaled_bytes

from ._helpers import conv, json_of


@pytest.mark.parametrize(
    ("type_name", "text", "expected", "schema_type"),
    [
        ("bool", "t", True, Type.BOOLEAN),
        ("bool", "f", False, Type.BOOLEAN),
        ("bool", "true", True, Type.BOOLEAN),
        ("int2", "-32768", -32768, Type.INT16),
        ("int4", "2147483647", 2147483647, Type.INT32),
        ("int8", "-9223372036854775808", -9223372036854775808, Type.INT64),
        ("oid", "4294967295", 4294967295, Type.INT64),
        ("float4", "3.4028235e+38", 3.4028235e38, Type.FLOAT32),
        ("float8", "1.5e+30", 1.5e30, Type.FLOAT64),
        ("float8", "-Infinity", -math.inf, Type.FLOAT64),
    ],
)
def test_basic_numbers(type_name: str, text: str, expected: object, schema_type: Type) -> None:
    c = conv(type_name)
    assert c.schema.type is schema_type and c.schema.name is None and c.schema.optional
    assert c.from_text(text) == expected


def test_float_nan() -> None:
    assert math.isnan(conv("float8").from_text("NaN"))


def test_numeric_precise_is_connect_decimal_with_precision() -> None:  # §11 item 59, Appendix A.1
    c = conv("numeric", length=10, scale=2)
    assert c.schema.name == "org.apache.kafka.connect.data.Decimal"
    assert c.schema.parameters == {"scale": "2", "connect.decimal.precision": "10"}
    assert c.from_text("123.45") == Decimal("123.45")
    out = json_of(c.schema, c.from_text("12.34"))
    assert (
        '{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,'
        '"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"f"}' in out
    )
    assert '"payload":{"f":"BNI="}' in out
    assert '"payload":{"f":"/do="}' in json_of(c.schema, c.from_text("-5.50"))


def test_numeric_scale_zero_and_required() -> None:
    c = conv("numeric", length=5, scale=0, optional=False)
    assert not c.schema.optional and c.schema.parameters == {"scale": "0", "connect.decimal.precision": "5"}
    assert c.from_text("12345") == Decimal("12345")


def test_variable_scale_decimal() -> None:  # Appendix A.1: 3.14159 → {"scale":5,"value":"BMsv"}
    c = conv("numeric")
    assert c.schema.name == "io.debezium.data.VariableScaleDecimal" and c.schema.doc == "Variable scaled decimal"
    value = c.from_text("3.14159")
    assert isinstance(value, Struct) and value.values == (5, b"\x04\xcb\x2f")
    out = json_of(c.schema, value)
    assert '"f":{"scale":5,"value":"BMsv"}' in out
    assert (
        '{"type":"struct","fields":[{"type":"int32","optional":false,"field":"scale"},'
        '{"type":"bytes","optional":false,"field":"value"}],"optional":true,'
        '"name":"io.debezium.data.VariableScaleDecimal","version":1,"doc":"Variable scaled decimal","field":"f"}'
    ) in out
    assert '"f":{"scale":7,"value":"AQ=="}' in json_of(c.schema, c.from_text("0.0000001"))


@pytest.mark.parametrize(
    ("text", "scale", "unscaled"),
    [
        ("100", 0, 100),
        ("1.500", 1, 15),
        ("0.00", 0, 0),
        ("-0.5", 1, -5),
        ("12345678901234567890.1", 1, 123456789012345678901),
    ],
)
def test_variable_scale_strips_trailing_zeros(text: str, scale: int, unscaled: int) -> None:
    assert conv("numeric").from_text(text).values == (scale, unscaled_bytes(unscaled))


def _unscaled(struct_value: Struct) -> Decimal:
    scale, raw = struct_value.values
    return Decimal(int.from_bytes(raw, "big", signed=True)).scaleb(-scale, _EXACT)


_EXACT = Context(prec=MAX_PREC)
_DIGITS = st.text("0123456789", min_size=1, max_size=400)


@given(whole=_DIGITS, fraction=st.text("0123456789", max_size=400), negative=st.booleans())
@settings(max_examples=300, deadline=None)
def test_every_numeric_comes_out_exact_in_every_mode(whole: str, fraction: str, negative: bool) -> None:
    """No decimal context takes part (issue 14, item 1): the value, its scale after stripTrailingZeros, the
    plain string and the correctly rounded double, for any number of digits."""
    # as PostgreSQL prints a numeric: no leading zeros, no negative zero
    digits = (whole.lstrip("0") or "0") + ("." + fraction if fraction else "")
    text = ("-" if negative and Decimal(digits) != 0 else "") + digits
    exact = Decimal(text)
    struct_value = conv("numeric").from_text(text)
    assert _unscaled(struct_value) == exact
    unscaled, scale = strip_trailing_zeros(exact)
    assert struct_value.values[0] == scale and (scale == 0 or unscaled % 10 != 0)
    assert conv("numeric", decimal_handling_mode="string").from_text(text) == text
    assert conv("numeric", decimal_handling_mode="double").from_text(text) == float(text)
    if fraction:
        fixed = conv("numeric", length=1000, scale=len(fraction)).from_text(text)
        assert fixed == exact and fixed.as_tuple().exponent == -len(fraction)
        assert fixed.as_tuple().digits == exact.as_tuple().digits


def test_numeric_29_digits_is_not_rounded() -> None:
    """The value of issue 14: 29 significant digits came out rounded to the default context's 28."""
    text = "12345678901234567890.123456789"
    assert conv("numeric").from_text(text).values == (9, unscaled_bytes(12345678901234567890123456789))
    assert '"f":{"scale":9,"value":"J+QbMka+ybFuOYEV"}' in json_of(
        conv("numeric").schema, conv("numeric").from_text(text)
    )
    assert conv("numeric", decimal_handling_mode="string").from_text(text) == text


def test_numeric_at_postgresqls_limits() -> None:
    """131072 digits before the point and 16383 after, the most an unconstrained numeric holds."""
    text = "9" * 131072 + "." + "0" * 16382 + "1"
    struct_value = conv("numeric").from_text(text)
    assert struct_value.values[0] == 16383 and _unscaled(struct_value) == Decimal(text)
    assert conv("numeric", decimal_handling_mode="string").from_text(text) == text
    assert conv("numeric", decimal_handling_mode="double").from_text(text) == math.inf
    big = "-" + "1" + "0" * 131071 + ".000"
    assert conv("numeric").from_text(big).values[0] == 0
    assert _unscaled(conv("numeric").from_text(big)) == Decimal(big)


def test_unscaled_bytes_like_biginteger() -> None:
    assert unscaled_bytes(0) == b"\x00"
    assert unscaled_bytes(128) == b"\x00\x80"
    assert unscaled_bytes(-128) == b"\x80"
    assert unscaled_bytes(-129) == b"\xff\x7f"


def test_numeric_string_and_double_modes() -> None:  # §11 item 59
    s = conv("numeric", length=10, scale=2, decimal_handling_mode="string")
    assert s.schema.type is Type.STRING and s.schema.name is None
    assert s.from_text("123.45") == "123.45"
    assert conv("numeric", decimal_handling_mode="string").from_text("NaN") == "NAN"
    assert conv("numeric", decimal_handling_mode="string").from_text("Infinity") == "POSITIVE_INFINITY"
    # SpecialValueDecimal.fromLogical: BigDecimal.toPlainString, never an exponent (issue 14, item 2)
    assert conv("numeric", decimal_handling_mode="string").from_text("0.0000001") == "0.0000001"
    assert conv("numeric", decimal_handling_mode="string").from_text("-0.000000001") == "-0.000000001"
    assert conv("numeric", decimal_handling_mode="string").from_text("1.500") == "1.500"
    d = conv("numeric", length=10, scale=2, decimal_handling_mode="double")
    assert d.schema.type is Type.FLOAT64 and d.from_text("123.45") == 123.45
    assert math.isnan(conv("numeric", decimal_handling_mode="double").from_text("NaN"))
    assert conv("numeric", decimal_handling_mode="double").from_text("-Infinity") == -math.inf


def test_numeric_nan_in_precise_mode_is_an_error() -> None:
    with pytest.raises(ValueConversionError, match="decimal handling mode"):
        conv("numeric").from_text("NaN")
    with pytest.raises(ValueConversionError):
        conv("numeric", length=10, scale=2).from_text("Infinity")


def test_money_precise() -> None:  # §11 item 60
    c = conv("money")
    assert c.schema.name == "org.apache.kafka.connect.data.Decimal" and c.schema.parameters == {"scale": "2"}
    assert c.from_text("$12.34") == Decimal("12.34")
    assert c.from_text("$1,234.56") == Decimal("1234.56")
    assert c.from_text("-$1,234.56") == Decimal("-1234.56")
    assert c.from_text("$0.00") == Decimal("0.00")
    three = conv("money", money_fraction_digits=3)
    assert three.schema.parameters == {"scale": "3"} and three.from_text("$12.34") == Decimal("12.340")


def test_money_other_modes() -> None:
    # Debezium 3.6 reads money as a BigDecimal (PostgresMoney.parse): toPlainString keeps the text's scale
    assert conv("money", decimal_handling_mode="double").from_text("-$1,234.56") == -1234.56
    assert conv("money", decimal_handling_mode="string").from_text("$12.00") == "12.00"
    assert conv("money", decimal_handling_mode="string").from_text("$0.00") == "0.00"
    assert conv("money", decimal_handling_mode="string").from_text("$10,000,000.00") == "10000000.00"
    assert conv("money", decimal_handling_mode="string").from_text("($5.10)") == "-5.10"


def test_money_extremes_are_exact() -> None:
    """money's range is int64 cents: its ends have 19 significant digits, more than a double holds."""
    top, bottom = "$92,233,720,368,547,758.07", "-$92,233,720,368,547,758.08"
    assert conv("money").from_text(top) == Decimal("92233720368547758.07")
    assert conv("money").from_text(bottom) == Decimal("-92233720368547758.08")
    assert conv("money", decimal_handling_mode="string").from_text(bottom) == "-92233720368547758.08"
    assert conv("money", decimal_handling_mode="double").from_text(top) == 92233720368547758.07
    assert conv("money", money_fraction_digits=1).from_text("$0.05") == Decimal("0.1")  # HALF_UP
    assert conv("money", money_fraction_digits=1).from_text("-$0.05") == Decimal("-0.1")


@pytest.mark.parametrize(
    ("text", "exponent"),
    [("123.45", -2), ("-0.05", -2), ("5", -2), ("1.5", -2), ("1.E5", -2), ("12345.6", -2), ("1e2", -2)],
)
def test_numeric_fixed_scale_value_always_has_the_columns_scale(text: str, exponent: int) -> None:
    """PostgreSQL's text of numeric(p, 2) is taken as is; any other form is set to scale 2 exactly."""
    value = conv("numeric", length=10, scale=2).from_text(text)
    assert value == Decimal(text) and value.as_tuple().exponent == exponent


def test_numeric_fixed_scale_that_would_round_is_refused() -> None:
    with pytest.raises(ValueConversionError):
        conv("numeric", length=10, scale=2).from_text("1.234")
