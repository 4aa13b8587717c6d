"""A small part of org.apache.kafka.connect.data.Values: infer a schema for a literal string.

InsertHeader parses `value.literal` this way: `true`/`false` are booleans, whole numbers take the smallest
integer type that holds them, other numbers are float32 when that keeps them finite, else float64; `null` is
no value; everything else is a string. (Java also parses arrays, maps and ISO dates; those stay strings here.)
"""

from __future__ import annotations

import math
import re
import struct as _struct

from connect_worker.api.record import SchemaAndValue
from connect_worker.api.schema import (
    BOOLEAN_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
)

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def to_float32(value: float) -> float:
    """The nearest float32, as a Python float (inf when it overflows)."""
    try:
        result: float = _struct.unpack("<f", _struct.pack("<f", value))[0]
    except OverflowError:
        return math.copysign(math.inf, value)
    return result


def parse_string(text: str) -> SchemaAndValue:
    s = text.strip()
    if s == "null":
        return SchemaAndValue(None, None)
    if s.lower() in ("true", "false"):
        return SchemaAndValue(BOOLEAN_SCHEMA, s.lower() == "true")
    if _NUMBER.fullmatch(s):
        is_whole = re.fullmatch(r"[+-]?\d+", s) is not None
        if is_whole:
            n = int(s)
            for schema, bits in ((INT8_SCHEMA, 8), (INT16_SCHEMA, 16), (INT32_SCHEMA, 32), (INT64_SCHEMA, 64)):
                if -(2 ** (bits - 1)) <= n < 2 ** (bits - 1):
                    return SchemaAndValue(schema, n)
        f = float(s)
        f32 = to_float32(f)
        if math.isfinite(f32):
            return SchemaAndValue(FLOAT32_SCHEMA, f32)
        if math.isfinite(f):
            return SchemaAndValue(FLOAT64_SCHEMA, f)
    return SchemaAndValue(STRING_SCHEMA, text)


def _java_layout(digits: str, exp10: int, negative: bool) -> str:
    """Java's Double/Float.toString layout of a shortest digit string d1d2... times 10^exp10 (d1 the first)."""
    sign = "-" if negative else ""
    if -3 <= exp10 < 7:
        if exp10 >= 0:
            whole = digits[: exp10 + 1].ljust(exp10 + 1, "0")
            frac = digits[exp10 + 1 :] or "0"
        else:
            whole = "0"
            frac = "0" * (-exp10 - 1) + digits
        return f"{sign}{whole}.{frac}"
    return f"{sign}{digits[0]}.{digits[1:] or '0'}E{exp10}"


def _shortest(text: str) -> tuple[str, int]:
    """Significant digits and decimal exponent of a Python float repr/format string."""
    mantissa, _, exp = text.lower().partition("e")
    whole, _, frac = mantissa.lstrip("-").partition(".")
    digits = (whole + frac).lstrip("0")
    lead_zeros = len(whole + frac) - len((whole + frac).lstrip("0"))
    exp10 = len(whole) - 1 - lead_zeros + (int(exp) if exp else 0)
    return digits.rstrip("0") or "0", exp10


def java_double_to_string(x: float) -> str:
    """Double.toString (shortest round-trip digits, Java's plain/E-notation thresholds)."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "Infinity" if x > 0 else "-Infinity"
    if x == 0:
        return "-0.0" if math.copysign(1, x) < 0 else "0.0"
    digits, exp10 = _shortest(repr(abs(x)))
    return _java_layout(digits, exp10, x < 0)


def java_float_to_string(x: float) -> str:
    """Float.toString: the shortest digits that round-trip through float32."""
    x = to_float32(x)
    if math.isnan(x) or math.isinf(x) or x == 0:
        return java_double_to_string(x)
    for precision in range(1, 10):
        text = f"{abs(x):.{precision - 1}e}"
        if to_float32(float(text)) == abs(x):
            break
    digits, exp10 = _shortest(text)
    return _java_layout(digits, exp10, x < 0)
