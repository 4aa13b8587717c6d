"""A decoded row's values as JSON text, the form in which they cross from the Python decoders to Spark (parsed back
by `from_json` with the table's Spark schema: spark_sink/stage/reduce.py). Exact both ways: decimals as their text,
instants as UTC ISO text with microseconds (`...Z`), local date-times without a zone, dates as ISO dates, bytes as
base64, NaN and infinities as JSON's non-numeric tokens. Pure."""

from __future__ import annotations

import base64
import datetime as dt
import json
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any

from spark_sink.decoding.base import RowSchema
from spark_sink.types.model import ArrayT, MapT, SinkType, StructT

TIMESTAMP_FORMAT = "yyyy-MM-dd'T'HH:mm:ss[.SSSSSS]XXX"
# a date-only text reads as midnight: the values of a date column a batch widens to timestamp_ntz (older events)
TIMESTAMP_NTZ_FORMAT = "yyyy-MM-dd['T'HH:mm:ss[.SSSSSS]]"
DATE_FORMAT = "yyyy-MM-dd"
FROM_JSON_OPTIONS = {
    "mode": "FAILFAST",  # a value that does not parse is a bug here, never a silent NULL
    "timestampFormat": TIMESTAMP_FORMAT,
    "timestampNTZFormat": TIMESTAMP_NTZ_FORMAT,
    "dateFormat": DATE_FORMAT,
    "allowNonNumericNumbers": "true",
}


def _default(value: Any) -> Any:
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            return value.isoformat(timespec="microseconds")
        return value.astimezone(dt.UTC).replace(tzinfo=None).isoformat(timespec="microseconds") + "Z"
    if isinstance(value, dt.date):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(f"a {type(value).__name__} value cannot be written as JSON")


_ENCODER = json.JSONEncoder(default=_default, allow_nan=True, separators=(",", ":"), ensure_ascii=False)


def dumps(row: Mapping[str, Any] | None) -> str | None:
    return None if row is None else _ENCODER.encode(row)


Convert = Callable[[Any], Any]


def _named(t: SinkType) -> Convert | None:
    """How a value of `t` becomes JSON-shaped: the converters give structs as tuples (Spark's row form), JSON
    needs them as objects keyed by field name. None: the value is JSON-shaped already."""
    if isinstance(t, StructT):
        names = [n for n, _ in t.fields]
        inner = [_named(f) for _, f in t.fields]

        def struct(v: Any) -> Any:
            if v is None or isinstance(v, Mapping):
                return v
            return {n: (x if f is None or x is None else f(x)) for n, f, x in zip(names, inner, v, strict=True)}

        return struct
    if isinstance(t, ArrayT):
        element = _named(t.element)
        return None if element is None else (lambda v: None if v is None else [element(x) for x in v])
    if isinstance(t, MapT):
        value = _named(t.value)
        return None if value is None else (lambda v: None if v is None else {k: value(x) for k, x in v.items()})
    return None


class RowEncoder:
    """`dumps` for the rows of one row schema, structs named (built once per schema)."""

    def __init__(self, schema: RowSchema) -> None:
        self.fixes = [(n, f) for n, t in schema.columns if (f := _named(t)) is not None]

    def dumps(self, row: Mapping[str, Any] | None) -> str | None:
        if row is None or not self.fixes:
            return dumps(row)
        fixed = dict(row)
        for name, fix in self.fixes:
            if fixed.get(name) is not None:
                fixed[name] = fix(fixed[name])
        return dumps(fixed)
