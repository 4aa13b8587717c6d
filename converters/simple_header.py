"""SimpleHeaderConverter: org.apache.kafka.connect.storage.SimpleHeaderConverter.

Writing follows `Values.convertToString` exactly: strings raw, numbers and booleans as Java's `toString`,
bytes as base64, lists `[a,b]`, maps and structs `{"k":v}` with embedded strings quoted (only `\\` and `"`
escaped), `java.util.Date`s as ISO text chosen by the millisecond value (`HH:mm:ss.SSS'Z'` below one day,
`yyyy-MM-dd` on a day boundary, else `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'`).

Reading follows `Values.parseString` for what headers usually carry: `null`, `true`/`false`, numbers (the
smallest of int8..int64 for whole numbers, else float32, float64 or Decimal), the three ISO temporal forms,
quoted strings, and arrays/maps whose elements share one schema. Arrays or maps with mixed element schemas
(Java: a list with a schemaless element schema) are returned as the original string.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Any, Final

from connect_worker.api.converter import HeaderConverter
from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import (
    java_bigdecimal_to_string,
    java_double_to_string,
    java_float_to_string,
    to_float32,
)
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
    Schema,
    SchemaBuilder,
    Type,
    date_schema,
    decimal_schema,
    time_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from converters import KAFKA_VERSION

MILLIS_PER_DAY: Final = 86_400_000
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


def _millis(value: dt.date | dt.time) -> int:
    if isinstance(value, dt.datetime):
        aware = value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)
        d = aware - _EPOCH
        return d.days * MILLIS_PER_DAY + d.seconds * 1000 + d.microseconds // 1000
    if isinstance(value, dt.date):
        return (value - _EPOCH.date()).days * MILLIS_PER_DAY
    return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000


def format_java_date(ms: int) -> str:
    """`Values.dateFormatFor(date).format(date)` for a java.util.Date of `ms` milliseconds, in UTC."""
    moment = _EPOCH + dt.timedelta(milliseconds=ms)
    if ms < MILLIS_PER_DAY:
        return moment.strftime("%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"
    if ms % MILLIS_PER_DAY == 0:
        return f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}"
    return (
        f"{moment.year:04d}-{moment.month:02d}-{moment.day:02d}T"
        + moment.strftime("%H:%M:%S.")
        + f"{moment.microsecond // 1000:03d}Z"
    )


def _escape(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _append(out: list[str], schema: Schema | None, value: Any, embedded: bool) -> None:
    if value is None:
        out.append("null")
    elif isinstance(value, bool):
        out.append("true" if value else "false")
    elif isinstance(value, int):
        out.append(str(value))
    elif isinstance(value, float):
        if schema is not None and schema.type is Type.FLOAT32:
            out.append(java_float_to_string(value))
        else:
            out.append(java_double_to_string(value))
    elif isinstance(value, Decimal):
        out.append(java_bigdecimal_to_string(value))
    elif isinstance(value, str):
        out.append('"' + _escape(value) + '"' if embedded else value)
    elif isinstance(value, (bytes, bytearray, memoryview)):
        b64 = base64.b64encode(value).decode("ascii")
        out.append('"' + b64 + '"' if embedded else b64)
    elif isinstance(value, (list, tuple)):
        items = schema.value_schema if schema is not None and schema.type is Type.ARRAY else None
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(",")
            _append(out, items, v, True)
        out.append("]")
    elif isinstance(value, Mapping):
        is_map = schema is not None and schema.type is Type.MAP
        ks = schema.key_schema if is_map and schema is not None else None
        vs = schema.value_schema if is_map and schema is not None else None
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            if i:
                out.append(",")
            _append(out, ks, k, True)
            out.append(":")
            _append(out, vs, v, True)
        out.append("}")
    elif isinstance(value, Struct):
        out.append("{")
        for i, (f, v) in enumerate(zip(value.schema.fields, value.values, strict=True)):
            if i:
                out.append(",")
            out.append('"' + _escape(f.name) + '"')
            out.append(":")
            if v is None and f.schema.has_default:
                v = f.schema.default  # Struct.get applies the field default
            _append(out, f.schema, v, True)
        out.append("}")
    elif isinstance(value, (dt.date, dt.time)):
        out.append(format_java_date(_millis(value)))
    else:
        raise DataError(f"Unable to convert {value!r} ({type(value)}) to a string")


def convert_to_string(schema: Schema | None, value: Any) -> str | None:
    """`Values.convertToString(schema, value)`."""
    if value is None:
        return None
    out: list[str] = []
    _append(out, schema, value, False)
    return "".join(out)


# -- parsing (Values.parseString) ----------------------------------------------------------------------
_DATE_RE: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_TIME_RE: Final = re.compile(r"(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")
_TS_RE: Final = re.compile(r"(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\.(\d{3})Z")
_LONG_MIN: Final = -(2**63)
_LONG_MAX: Final = 2**63 - 1


class _NotParsed(Exception):
    pass


def _parse_temporal(token: str) -> SchemaAndValue | None:
    try:
        if m := _TS_RE.fullmatch(token):
            y, mo, d, h, mi, s, ms = map(int, m.groups())
            return SchemaAndValue(timestamp_schema(), dt.datetime(y, mo, d, h, mi, s, ms * 1000, tzinfo=dt.UTC))
        if m := _DATE_RE.fullmatch(token):
            y, mo, d = map(int, m.groups())
            return SchemaAndValue(date_schema(), dt.date(y, mo, d))
        if m := _TIME_RE.fullmatch(token):
            h, mi, s, ms = map(int, m.groups())
            return SchemaAndValue(time_schema(), dt.time(h, mi, s, ms * 1000))
    except ValueError:
        return None
    return None


def _parse_number(token: str) -> SchemaAndValue | None:
    try:
        d = Decimal(token)
    except InvalidOperation:
        return None
    if not d.is_finite() or not re.fullmatch(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?", token):
        return None
    exponent = d.as_tuple().exponent
    assert isinstance(exponent, int)
    scale = -exponent
    a = abs(d)
    norm_exp = d.normalize().as_tuple().exponent
    whole = d.is_zero() or scale <= 0 or (isinstance(norm_exp, int) and norm_exp >= 0)
    if (a >= 1 or a == 0) and a <= Decimal("1e19") and whole:
        n = int(d)
        if _LONG_MIN <= n <= _LONG_MAX:
            if -128 <= n <= 127:
                return SchemaAndValue(INT8_SCHEMA, n)
            if -(2**15) <= n < 2**15:
                return SchemaAndValue(INT16_SCHEMA, n)
            if -(2**31) <= n < 2**31:
                return SchemaAndValue(INT32_SCHEMA, n)
            return SchemaAndValue(INT64_SCHEMA, n)
    if scale != 0:
        f = to_float32(d)
        if not math.isinf(f):
            return SchemaAndValue(FLOAT32_SCHEMA, f)
        dbl = float(d)
        if not math.isinf(dbl):
            return SchemaAndValue(FLOAT64_SCHEMA, dbl)
    if d.is_zero() and d.is_signed():
        d = d.copy_abs()
    return SchemaAndValue(decimal_schema(scale), d)


def _parse_scalar(token: str, embedded: bool) -> SchemaAndValue:
    stripped = token.strip()
    if stripped == "null":
        return SchemaAndValue(None, None)
    if stripped == "true":
        return SchemaAndValue(BOOLEAN_SCHEMA, True)
    if stripped == "false":
        return SchemaAndValue(BOOLEAN_SCHEMA, False)
    if stripped:
        if stripped[0].isdigit():
            temporal = _parse_temporal(stripped)
            if temporal is not None:
                return temporal
        if stripped[0].isdigit() or stripped[0] in "+-.":
            number = _parse_number(stripped)
            if number is not None:
                return number
    if embedded:
        raise _NotParsed(token)
    return SchemaAndValue(STRING_SCHEMA, token)


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos] in " \t\r\n":
            self.pos += 1

    def peek(self) -> str:
        self.skip_ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def value(self) -> SchemaAndValue:
        c = self.peek()
        if c == "[":
            self.pos += 1
            return self.array()
        if c == "{":
            self.pos += 1
            return self.map()
        if c == '"':
            self.pos += 1
            return self.quoted()
        start = self.pos
        while self.pos < len(self.text) and self.text[self.pos] not in ",]}:":
            self.pos += 1
        token = self.text[start : self.pos]
        # temporal values contain ':' delimiters: join the following tokens when they make one
        if self.pos < len(self.text) and self.text[self.pos] == ":" and token.strip()[:1].isdigit():
            end = self.pos
            while end < len(self.text) and self.text[end] not in ",]}":
                end += 1
            temporal = _parse_temporal(self.text[start:end].strip())
            if temporal is not None:
                self.pos = end
                return temporal
        return _parse_scalar(token, True)

    def quoted(self) -> SchemaAndValue:
        out = []
        while self.pos < len(self.text):
            c = self.text[self.pos]
            self.pos += 1
            if c == "\\" and self.pos < len(self.text):
                out.append(self.text[self.pos])
                self.pos += 1
            elif c == '"':
                s = "".join(out)
                return _parse_temporal(s) or SchemaAndValue(STRING_SCHEMA, s)
            else:
                out.append(c)
        raise _NotParsed("unterminated string")

    def array(self) -> SchemaAndValue:
        items: list[SchemaAndValue] = []
        if self.peek() == "]":
            self.pos += 1
        else:
            while True:
                items.append(self.value())
                c = self.peek()
                self.pos += 1
                if c == "]":
                    break
                if c != ",":
                    raise _NotParsed("array")
        schema = _common_schema([sv.schema for sv in items])
        return SchemaAndValue(SchemaBuilder.array(schema).build(), [sv.value for sv in items])

    def map(self) -> SchemaAndValue:
        keys: list[SchemaAndValue] = []
        values: list[SchemaAndValue] = []
        if self.peek() == "}":
            self.pos += 1
        else:
            while True:
                k = self.value()
                if k.value is None or self.peek() != ":":
                    raise _NotParsed("map key")
                self.pos += 1
                keys.append(k)
                values.append(self.value())
                c = self.peek()
                self.pos += 1
                if c == "}":
                    break
                if c != ",":
                    raise _NotParsed("map")
        ks = _common_schema([sv.schema for sv in keys])
        vs = _common_schema([sv.schema for sv in values])
        return SchemaAndValue(
            SchemaBuilder.map(ks, vs).build(),
            {k.value: v.value for k, v in zip(keys, values, strict=True)},
        )


def _common_schema(schemas: list[Schema | None]) -> Schema:
    if not schemas or any(s is None for s in schemas) or any(s != schemas[0] for s in schemas):
        raise _NotParsed("no common schema")  # Java: a schemaless element schema, not representable here
    first = schemas[0]
    assert first is not None
    return first


def parse_string(text: str) -> SchemaAndValue:
    """`Values.parseString(text)` for the forms listed in the module docstring."""
    if text == "":
        return SchemaAndValue(STRING_SCHEMA, text)
    stripped = text.strip()
    if stripped[:1] in ("[", "{"):
        reader = _Reader(text)
        try:
            result = reader.value()
            if reader.peek() == "":
                return result
        except (_NotParsed, IndexError):
            pass
        return SchemaAndValue(STRING_SCHEMA, text)
    if stripped[:1] == '"' and stripped.endswith('"') and len(stripped) >= 2:
        reader = _Reader(stripped[1:])
        try:
            result = reader.quoted()
            if reader.pos == len(stripped) - 1:
                return result
        except _NotParsed:
            pass
        return SchemaAndValue(STRING_SCHEMA, text)
    if stripped[:1].isdigit():
        temporal = _parse_temporal(stripped)
        if temporal is not None:
            return temporal
    return _parse_scalar(text, False)


class SimpleHeaderConverter(HeaderConverter):
    """Header values as `Values.convertToString` text; read back with `Values.parseString`."""

    class_name = "org.apache.kafka.connect.storage.SimpleHeaderConverter"
    aliases = ("SimpleHeaderConverter",)
    plugin_version = KAFKA_VERSION

    def configure(self, configs: Mapping[str, Any]) -> None:
        pass

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        if value is None:
            return None
        text = convert_to_string(schema, value)
        return None if text is None else text.encode("utf-8", "replace")

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(None, None)
        text = data.decode("utf-8", "replace")
        return parse_string(text)


__all__ = ["SimpleHeaderConverter", "convert_to_string", "parse_string"]
