"""The JSON text of single Connect values, as Kafka's JsonConverter (Jackson) writes them: numbers, booleans,
strings, bytes and the logical types' int forms. Shared by the compiled encoders (converters.json_encoder)
and the reader (converters.json_reader); no schema walking here, one value at a time.
"""

from __future__ import annotations

import base64
import datetime as dt
import decimal
import json
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, Final

from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import jackson_quote, java_double_to_string, java_float_to_string
from connect_worker.api.schema import Schema, Type
from connect_worker.api.struct import Struct

Encoder = Callable[[Any], str]

NULL_REQUIRED: Final = "Conversion error: null value for field that is required and has no default value"

MILLIS_PER_DAY: Final = 86_400_000
EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
EPOCH_DATE: Final = dt.date(1970, 1, 1)


def b64_text(v: Any) -> str:
    return '"' + base64.b64encode(v).decode("ascii") + '"'


_NON_NUMERIC: Final = {"NaN": '"NaN"', "Infinity": '"Infinity"', "-Infinity": '"-Infinity"'}


def double_text(v: Any) -> str:
    """A double as Jackson writes it: Double.toString, with NaN and the infinities quoted."""
    if v.__class__ is float:
        if v - v == 0.0:  # finite
            return java_double_to_string(v)
    elif isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(type(v))
    s = java_double_to_string(float(v))
    return _NON_NUMERIC.get(s, s)


def float_text(v: Any) -> str:
    if isinstance(v, bool) or not isinstance(v, (float, int)):
        raise TypeError(type(v))
    s = java_float_to_string(float(v))
    return _NON_NUMERIC.get(s, s)


BOOL_TEXT: Final = {True: "true", False: "false"}
int_repr: Final = int.__repr__  # takes a bool too: callers check the class first


def int_text(v: Any) -> str:
    """An INT8..INT64 value's text; a bool or a non-int raises TypeError (the checking encoder explains)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(type(v))
    return int_repr(v)


def bool_text(v: Any) -> str:
    """A BOOLEAN value's text; anything but a bool (1, 0 included) raises TypeError."""
    if v.__class__ is not bool:
        raise TypeError(type(v))
    return BOOL_TEXT[v]


_EXACT: Final = decimal.Context(prec=decimal.MAX_PREC)  # scaleb without rounding, whatever the digits


def decimal_unscaled_bytes(value: Decimal, scale: int) -> bytes:
    """`Decimal.fromLogical`: the unscaled value as big-endian two's complement (BigInteger.toByteArray)."""
    try:
        # fast path: the value scaled by 10^scale prints as a plain integer exactly when its exponent is -scale
        text = str(value.scaleb(scale, _EXACT))
    except decimal.DecimalException:
        text = ""
    if text.isdigit() or (text[:1] == "-" and text[1:].isdigit()):
        n = int(text)
        return n.to_bytes((n + (n < 0)).bit_length() // 8 + 1, "big", signed=True)
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):
        raise DataError(f"Invalid type for Decimal: {value} has no BigDecimal form")
    if exponent != -scale:
        raise DataError(
            "Decimal value has mismatching scale for given Decimal schema. "
            f"Schema has scale {scale}, value has scale {-exponent}."
        )
    n = int(value.scaleb(scale, _EXACT))  # the value has exactly `scale` fraction digits: an integer
    return n.to_bytes((n + (n < 0)).bit_length() // 8 + 1, "big", signed=True)


def decimal_scale(schema: Schema) -> int:
    params = schema.parameters or {}
    raw = params.get("scale")
    if raw is None:
        raise DataError("Invalid Decimal schema: scale parameter not found.")
    return int(raw)


def epoch_millis(value: Any) -> int:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        d: dt.timedelta = value - EPOCH
        return d.days * MILLIS_PER_DAY + d.seconds * 1000 + d.microseconds // 1000
    if isinstance(value, dt.date):
        return (value - EPOCH_DATE).days * MILLIS_PER_DAY
    if isinstance(value, dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    raise TypeError(type(value))


def date_days(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # lenient: already the int32 representation
    if not isinstance(value, (dt.date, dt.datetime)):
        raise DataError(f"Invalid type for Date, expected Date but was {type(value)}")
    ms = epoch_millis(value)
    if ms % MILLIS_PER_DAY != 0:
        raise DataError("Kafka Connect Date type should not have any time fields set to non-zero values.")
    return ms // MILLIS_PER_DAY


def time_millis(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, (dt.time, dt.datetime)):
        raise DataError(f"Invalid type for Time, expected Date but was {type(value)}")
    ms = epoch_millis(value)
    if ms < 0 or ms > MILLIS_PER_DAY:
        raise DataError("Kafka Connect Time type should not have any date fields set to non-zero values.")
    return ms


def timestamp_millis(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, (dt.datetime, dt.date)):
        raise DataError(f"Invalid type for Timestamp, expected Date but was {type(value)}")
    return epoch_millis(value)


_QUOTED: dict[str, str] = {}  # short strings recur per event (source block, enum values, names)


def quote_str(v: Any) -> str:
    if v.__class__ is str:
        q = _QUOTED.get(v)
        if q is not None:
            return q
    elif not isinstance(v, str):
        raise TypeError(type(v))
    q = jackson_quote(v)
    if len(v) <= 64:
        if len(_QUOTED) >= 8192:
            _QUOTED.clear()
        _QUOTED[v] = q
    return q


def map_key_text(encoded: str, key: Any) -> str:
    """Jackson's `asText()` of an encoded map key (string keys are the common case)."""
    if isinstance(key, str):
        return key
    if encoded.startswith('"'):
        loaded: str = json.loads(encoded)
        return loaded
    return encoded


def infer_type(value: Any) -> Type:
    """ConnectSchema.schemaType of the Java class a schemaless Python value stands for."""
    if isinstance(value, bool):
        return Type.BOOLEAN
    if isinstance(value, int):
        return Type.INT64
    if isinstance(value, float):
        return Type.FLOAT64
    if isinstance(value, str):
        return Type.STRING
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Type.BYTES
    if isinstance(value, (list, tuple)):
        return Type.ARRAY
    if isinstance(value, Mapping):
        return Type.MAP
    if isinstance(value, Struct):
        return Type.STRUCT
    raise DataError(f"Java class {type(value)} does not have corresponding schema type.")
