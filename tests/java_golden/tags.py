"""Type-tagged values shared with tests/java/JsonConverterGolden.java (see its header for the format)."""

from __future__ import annotations

import base64
import datetime as dt
import struct
from decimal import Decimal
from typing import Any

from connect_worker.api.javacompat import to_float32
from connect_worker.api.schema import DATE_NAME, DECIMAL_NAME, TIME_NAME, TIMESTAMP_NAME, Schema, Type
from connect_worker.api.struct import Struct

_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_INT_TAG = {Type.INT8: "i8", Type.INT16: "i16", Type.INT32: "i32", Type.INT64: "i64"}


def f64_bits(v: float) -> str:
    return str(struct.unpack("<q", struct.pack("<d", v))[0])


def f32_bits(v: float) -> int:
    return int(struct.unpack("<i", struct.pack("<f", to_float32(v)))[0])


def millis(v: Any) -> int:
    if isinstance(v, dt.datetime):
        aware = v if v.tzinfo else v.replace(tzinfo=dt.UTC)
        d = aware - _EPOCH
        return d.days * 86_400_000 + d.seconds * 1000 + d.microseconds // 1000
    if isinstance(v, dt.date):
        return (v - _EPOCH.date()).days * 86_400_000
    assert isinstance(v, dt.time)
    return ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000


def to_tag(schema: Schema | None, v: Any) -> Any:
    """The tag of a Python value, typed by its schema (or by its Python type when schemaless)."""
    if v is None:
        return None
    if schema is None:
        if isinstance(v, bool):
            return {"bool": v}
        if isinstance(v, int):
            return {"i64": v}
        if isinstance(v, float):
            return {"f64": f64_bits(v)}
        if isinstance(v, str):
            return {"str": v}
        if isinstance(v, (bytes, bytearray)):
            return {"bytes": base64.b64encode(v).decode()}
        if isinstance(v, (list, tuple)):
            return {"list": [to_tag(None, x) for x in v]}
        if isinstance(v, dict):
            return {"map": [[to_tag(None, k), to_tag(None, x)] for k, x in v.items()]}
        if isinstance(v, Struct):
            return to_tag(v.schema, v)
        if isinstance(v, Decimal):
            return _dec(v)
        if isinstance(v, (dt.date, dt.time)):
            return {"date_ms": millis(v)}
        raise TypeError(type(v))
    if schema.name == DECIMAL_NAME:
        return _dec(v)
    if schema.name in (DATE_NAME, TIME_NAME, TIMESTAMP_NAME):
        return {"date_ms": millis(v)}
    t = schema.type
    if (t in _INT_TAG or t is Type.BOOLEAN) and isinstance(v, bool) != (t is Type.BOOLEAN):
        return to_tag(None, v)  # a bool for an int or an int for a bool: Java gets the same wrong object
    if t in _INT_TAG:
        return {_INT_TAG[t]: v}
    if t is Type.FLOAT32:
        return {"f32": f32_bits(v)}
    if t is Type.FLOAT64:
        return {"f64": f64_bits(v)}
    if t is Type.BOOLEAN:
        return {"bool": v}
    if t is Type.STRING:
        return {"str": v}
    if t is Type.BYTES:
        return {"bytes": base64.b64encode(v).decode()}
    if t is Type.ARRAY:
        return {"list": [to_tag(schema.value_schema, x) for x in v]}
    if t is Type.MAP:
        return {"map": [[to_tag(schema.key_schema, k), to_tag(schema.value_schema, x)] for k, x in v.items()]}
    assert isinstance(v, Struct)
    return {"struct": [to_tag(f.schema, x) for f, x in zip(schema.fields, v.values, strict=True)]}


def _dec(v: Decimal) -> dict[str, Any]:
    sign, digits, exp = v.as_tuple()
    assert isinstance(exp, int)
    n = int("".join(map(str, digits)) or "0")
    return {"dec": str(-n if sign else n), "scale": -exp}
