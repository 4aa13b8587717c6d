"""The number converters and BooleanConverter against the real Kafka 4.3.1 classes: bytes, schemas, values and
error messages (with the deserializer's complaint, the cause), as key, value and header converters.

A Python number has no boxed class, so each case's Java twin is the object converters.numbers says the
value stands for: the class its schema names, or for a number no schema describes the converter's own type
when that holds it exactly, else a Long (BigInteger past 64 bits) or a Double.
"""

from __future__ import annotations

import base64
import datetime as dt
import math
import random
import struct
from collections.abc import Callable, Iterator
from decimal import Decimal
from typing import Any

import pytest

from connect_worker.api.errors import ConfigError, ConnectError, DataError
from connect_worker.api.schema import (
    BOOLEAN_SCHEMA,
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    Type,
    date_schema,
    decimal_schema,
    struct_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from converters.boolean import BooleanConverter
from converters.numbers import (
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    NumberConverter,
    SerializationError,
    ShortConverter,
)
from tests.java_golden.conftest import RunJava
from tests.java_golden.tags import to_tag

pytestmark = pytest.mark.java

PROGRAM = "NumberConverterGolden.java"
CONVERTERS: dict[str, type[NumberConverter] | type[BooleanConverter]] = {
    c.__name__: c
    for c in (ShortConverter, IntegerConverter, LongConverter, FloatConverter, DoubleConverter, BooleanConverter)
}
MODES = ("key", "value", "header")
MODE_CONFIG: dict[str, dict[str, str]] = {"key": {}, "value": {}, "header": {"converter.type": "header"}}
_INT_TAGS = {Type.INT8: "i8", Type.INT16: "i16", Type.INT32: "i32", Type.INT64: "i64"}
_FLOAT_TAGS = {Type.FLOAT32: "f32", Type.FLOAT64: "f64"}


# -- values, tags and the Java twin of a Python value -----------------------------------------------------------
def f32_bits(v: float) -> int:
    """Signed raw bits of the float32 a Python float stands for (a NaN keeps its payload's top 23 bits)."""
    if math.isnan(v):
        d = int(struct.unpack(">Q", struct.pack(">d", v))[0])
        bits = (d >> 32) & 0x80000000 | 0x7F800000 | ((d >> 29) & 0x7FFFFF or 0x400000)
    else:
        try:
            bits = int(struct.unpack(">I", struct.pack(">f", v))[0])
        except OverflowError:
            bits = 0x7F800000 | (0x80000000 if v < 0 else 0)
    return bits - (1 << 32) if bits >= 1 << 31 else bits


def f64_bits(v: float) -> str:
    return str(struct.unpack(">q", struct.pack(">d", v))[0])


def double_from_bits(bits: int) -> float:
    return float(struct.unpack(">d", struct.pack(">Q", bits))[0])


def float_from_f32_bits(bits: int) -> float:
    """A Python float standing for the float32 with these raw bits (the NaN payload moved up, not quieted)."""
    bits &= 0xFFFFFFFF
    if bits & 0x7F800000 == 0x7F800000 and bits & 0x7FFFFF:
        return double_from_bits((bits & 0x80000000) << 32 | 0x7FF0000000000000 | (bits & 0x7FFFFF) << 29)
    return float(struct.unpack(">f", struct.pack(">I", bits))[0])


def _holds_short(v: Any) -> bool:
    return type(v) is int and -(2**15) <= v < 2**15


def _holds_int(v: Any) -> bool:
    return type(v) is int and -(2**31) <= v < 2**31


def _holds_long(v: Any) -> bool:
    return type(v) is int and -(2**63) <= v < 2**63


def _holds_float(v: Any) -> bool:
    return type(v) is float and (math.isnan(v) or bool(float_from_f32_bits(f32_bits(v)) == v))


# converter -> (tag of its own boxed type, whether a schemaless number is exactly one)
OWN_TYPE: dict[str, tuple[str, Callable[[Any], bool]]] = {
    "ShortConverter": ("i16", _holds_short),
    "IntegerConverter": ("i32", _holds_int),
    "LongConverter": ("i64", _holds_long),
    "FloatConverter": ("f32", _holds_float),
    "DoubleConverter": ("f64", lambda v: type(v) is float),
}


def _number_tag(kind: str, v: int | float) -> dict[str, Any]:
    if kind == "f32":
        return {"f32": f32_bits(float(v))}
    if kind == "f64":
        return {"f64": f64_bits(float(v))}
    return {kind: str(v) if kind == "i64" else v}


def java_twin(converter: str, schema: Schema | None, v: Any) -> Any:
    """The tag of the Java object a Python value stands for, given to this converter."""
    if v is None:
        return None
    is_int = type(v) is int
    if schema is not None and is_int and schema.type in _INT_TAGS:
        return _number_tag(_INT_TAGS[schema.type], v)
    if schema is not None and (is_int or type(v) is float) and schema.type in _FLOAT_TAGS:
        return _number_tag(_FLOAT_TAGS[schema.type], v)
    if is_int or type(v) is float:
        own = OWN_TYPE.get(converter)
        if own is not None and own[1](v):
            return _number_tag(own[0], v)
        if is_int:
            return _number_tag("i64", v) if _holds_long(v) else {"bigint": str(v)}
        return _number_tag("f64", v)
    return to_tag(None, v)


def schema_json(schema: Schema | None) -> dict[str, Any] | None:
    return None if schema is None else {"type": schema.type.name, "optional": schema.optional, "name": schema.name}


# -- the Python side, answering like the Java program --------------------------------------------------------
def _error(e: ConnectError) -> dict[str, Any]:
    cause = e.__cause__
    return {
        "error": str(e),
        "class": "ConfigException" if isinstance(e, ConfigError) else "DataException",
        "cause": str(cause) if isinstance(cause, SerializationError) else None,
    }


def _java_error(answer: dict[str, Any]) -> dict[str, Any]:
    """What of Java's failure Python must match: the cause only when a deserializer said something."""
    serialization = answer["causeClass"] == "SerializationException"
    return {"error": answer["error"], "class": answer["class"], "cause": answer["cause"] if serialization else None}


def py_answer(case: dict[str, Any], schema: Schema | None, value: Any) -> dict[str, Any]:
    conv = CONVERTERS[case["converter"]]()
    header = case["mode"] == "header"
    try:
        if header:
            conv.configure(case["config"])
        else:
            conv.configure(case["config"], case["mode"] == "key")
        if case["op"] == "configure":
            return {"configured": True}
        if case["op"] == "from":
            if header:
                out = conv.from_connect_header("topic", "h", schema, value)
            else:
                out = conv.from_connect_data("topic", schema, value)
            return {"bytes": None if out is None else base64.b64encode(out).decode()}
        data = None if case["data"] is None else base64.b64decode(case["data"])
        sv = conv.to_connect_header("topic", "h", data) if header else conv.to_connect_data("topic", data)
        return {"schema": schema_json(sv.schema), "value": _result_tag(sv.schema, sv.value)}
    except (DataError, ConfigError) as e:
        return _error(e)


def _result_tag(schema: Schema | None, v: Any) -> Any:
    if v is None:
        return None
    assert schema is not None
    if schema.type is Type.BOOLEAN:
        assert type(v) is bool
        return {"bool": v}
    if schema.type in _FLOAT_TAGS:
        assert type(v) is float
    else:
        assert type(v) is int
    kind = _INT_TAGS.get(schema.type) or _FLOAT_TAGS[schema.type]
    return _number_tag(kind, v)


def _same(java: dict[str, Any], py: dict[str, Any]) -> bool:
    return py == (_java_error(java) if "error" in java else java)


# -- cases -------------------------------------------------------------------------------------------------------
_INTS = [0, 1, -1, 7, 127, -128, 128, 255, 32767, -32768, 32768, -32769, 2**31 - 1, -(2**31), 2**31, -(2**31) - 1]
_INTS += [2**53 + 1, 2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**80]
_F32_MAX = float_from_f32_bits(0x7F7FFFFF)
_FLOATS = [0.0, -0.0, 1.0, -1.5, 0.5, 0.1, 1 / 3, 3.141592653589793, 1e10, 1e-10, 1e300, -1e300, 5e-324]
_FLOATS += [2.2250738585072014e-308, 1.7976931348623157e308, _F32_MAX, -_F32_MAX, _F32_MAX * (1 + 2**-24)]
_FLOATS += [float_from_f32_bits(1), float_from_f32_bits(0x00800000), float_from_f32_bits(0x80000001), 16777217.0]
_FLOATS += [math.inf, -math.inf, math.nan, -math.nan, double_from_bits(0x7FF0000000000001)]
_FLOATS += [double_from_bits(0xFFF8000000000001), float_from_f32_bits(0x7F800001), float_from_f32_bits(0x7FC00001)]
_FLOATS += [float_from_f32_bits(0xFFBFFFFF)]
_POINT = struct_schema([("id", OPTIONAL_INT32_SCHEMA)])


def _in_range(schema: Schema, v: int) -> bool:
    bits = {Type.INT8: 8, Type.INT16: 16, Type.INT32: 32, Type.INT64: 64}[schema.type]
    return bool(-(2 ** (bits - 1)) <= v < 2 ** (bits - 1))


def schema_values() -> Iterator[tuple[Schema | None, Any]]:
    for s in (INT8_SCHEMA, INT16_SCHEMA, INT32_SCHEMA, INT64_SCHEMA, OPTIONAL_INT32_SCHEMA, OPTIONAL_INT64_SCHEMA):
        for v in _INTS:
            if _in_range(s, v):
                yield s, v
        yield s, None
    for s in (FLOAT32_SCHEMA, FLOAT64_SCHEMA, OPTIONAL_FLOAT32_SCHEMA):
        for f in _FLOATS:
            yield s, f
        for v in (0, 7, -(2**53) - 1, 2**63):  # ints where a float goes: the Float or Double they round to
            yield s, v
        yield s, None
    for n in [*_INTS, *_FLOATS]:
        yield None, n
    foreign: list[Any] = [True, False, "7", "", b"\x07", bytearray(b""), Decimal("1.50"), dt.date(2024, 1, 2)]
    foreign += [dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC), [1, 2], {"a": 1}, Struct.of(_POINT, [3])]
    for x in foreign:
        yield None, x
    yield None, None
    others: list[tuple[Schema, Any]] = [
        (BOOLEAN_SCHEMA, True),
        (BOOLEAN_SCHEMA, False),
        (BOOLEAN_SCHEMA, None),
        (BOOLEAN_SCHEMA, 1),
        (BOOLEAN_SCHEMA, "true"),
        (SchemaBuilder(Type.BOOLEAN).optional().build(), True),
        (STRING_SCHEMA, "x"),
        (STRING_SCHEMA, 5),
        (STRING_SCHEMA, None),
        (BYTES_SCHEMA, b"\x01"),
        (INT32_SCHEMA, 1.5),
        (INT32_SCHEMA, True),
        (INT32_SCHEMA, "5"),
        (FLOAT64_SCHEMA, False),
        (date_schema(), dt.date(2024, 1, 2)),
        (timestamp_schema(), dt.datetime(2024, 1, 2, tzinfo=dt.UTC)),
        (decimal_schema(2), Decimal("1.50")),
        (_POINT, Struct.of(_POINT, [3])),
        (_POINT, None),
        (SchemaBuilder.array(INT32_SCHEMA).build(), [1]),
        (SchemaBuilder.map(STRING_SCHEMA, INT32_SCHEMA).build(), {"a": 1}),
    ]
    yield from others


def to_inputs() -> list[bytes | None]:
    rng = random.Random(4_3_1)
    hexes = ["", "00", "01", "02", "7f", "80", "ff", "0000", "0001", "7fff", "8000", "ffff", "0102", "000000"]
    hexes += ["00000000", "7fffffff", "80000000", "ffffffff", "3f800000", "bf800000", "7f800000", "ff800000"]
    hexes += ["7fc00000", "ffc00000", "7f800001", "7fbfffff", "7fc00001", "ff800001", "00000001", "80000001"]
    hexes += ["007fffff", "00800000", "7f7fffff", "4b800001", "0000000000"]
    hexes += ["0000000000000000", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff", "3ff0000000000000"]
    hexes += ["7ff0000000000000", "fff0000000000000", "7ff8000000000000", "fff8000000000000", "7ff0000000000001"]
    hexes += ["7ff4000000000000", "fff8000000000001", "0000000000000001", "8000000000000000", "7fefffffffffffff"]
    hexes += ["0010000000000000", "000000000000000000"]
    data: list[bytes | None] = [None, *(bytes.fromhex(h) for h in hexes)]
    for size in (1, 2, 3, 4, 5, 8, 9, 16):
        data += [rng.randbytes(size) for _ in range(3)]
    return data


def _from_case(converter: str, mode: str, schema: Schema | None, value: Any) -> dict[str, Any]:
    return {
        "op": "from",
        "converter": converter,
        "mode": mode,
        "config": MODE_CONFIG[mode],
        "schema": schema_json(schema),
        "value": java_twin(converter, schema, value),
    }


def _to_case(converter: str, mode: str, data: bytes | None) -> dict[str, Any]:
    encoded = None if data is None else base64.b64encode(data).decode()
    return {"op": "to", "converter": converter, "mode": mode, "config": MODE_CONFIG[mode], "data": encoded}


def _failures(rows: list[tuple[str, dict[str, Any], dict[str, Any]]]) -> str:
    bad = [f"{label}\n  java {java}\n  py   {py}" for label, java, py in rows if not _same(java, py)]
    return f"{len(bad)}/{len(rows)} differ:\n" + "\n".join(bad[:30]) if bad else ""


# -- tests -------------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def from_results(run_java: RunJava) -> list[tuple[dict[str, Any], Schema | None, Any, dict[str, Any]]]:
    rows = [(_from_case(c, mode, s, v), s, v) for c in CONVERTERS for mode in MODES for s, v in schema_values()]
    answers = run_java(PROGRAM, [case for case, _, _ in rows])
    return [(*row, ans) for row, ans in zip(rows, answers, strict=True)]


def test_from_connect_matches_java(from_results: list[tuple[dict[str, Any], Schema | None, Any, Any]]) -> None:
    rows = [
        (f"{c['converter']} {c['mode']} {schema} {value!r}", java, py_answer(c, schema, value))
        for c, schema, value, java in from_results
    ]
    failures = _failures(rows)
    assert not failures, failures
    serialized = sum(1 for _, java, _ in rows if java.get("bytes"))
    refused = sum(1 for _, java, _ in rows if "error" in java)
    assert serialized > 500 and refused > 1000, (serialized, refused)


def test_to_connect_matches_java(run_java: RunJava, from_results: list[Any]) -> None:
    cases = [_to_case(c, mode, d) for c in CONVERTERS for mode in MODES for d in to_inputs()]
    for case, _schema, _value, java in from_results:  # read back what Java wrote, as the same converter
        if java.get("bytes") is not None:
            cases.append(_to_case(case["converter"], case["mode"], base64.b64decode(java["bytes"])))
    answers = run_java(PROGRAM, cases)
    rows = [
        (f"{c['converter']} {c['mode']} {c['data']}", java, py_answer(c, None, None))
        for c, java in zip(cases, answers, strict=True)
    ]
    failures = _failures(rows)
    assert not failures, failures


def test_round_trip_keeps_java_bytes(from_results: list[Any]) -> None:
    """Bytes Java wrote, read and written again by us, come out the same (NaN payloads included)."""
    for case, _schema, _value, java in from_results:
        if not java.get("bytes"):
            continue
        conv = CONVERTERS[case["converter"]]()
        conv.configure({}, False)
        data = base64.b64decode(java["bytes"])
        sv = conv.to_connect_data("topic", data)
        assert conv.from_connect_data("topic", sv.schema, sv.value) == data, case


CONFIGS: list[tuple[str, dict[str, str]]] = [
    ("header", {}),
    ("header", {"converter.type": "header"}),
    ("header", {"converter.type": "key"}),
    ("header", {"converter.type": "value"}),
    ("header", {"converter.type": " value "}),
    ("header", {"converter.type": "bogus"}),
    ("header", {"converter.type": "KEY"}),
    ("header", {"converter.type": ""}),
    ("header", {"converter.type": "header", "converter.encoding": "UTF-16", "unknown": "x"}),
    ("key", {}),
    ("key", {"converter.type": "bogus"}),
    ("value", {"converter.type": "header"}),
]


def test_configure_and_config_def_match_java(run_java: RunJava) -> None:
    cases = [
        {"op": "configure", "converter": c, "mode": mode, "config": config}
        for c in CONVERTERS
        for mode, config in CONFIGS
    ]
    meta = [{"op": "meta", "converter": c} for c in CONVERTERS]
    answers = run_java(PROGRAM, cases + meta)
    rows = [
        (f"{c['converter']} {c['mode']} {c['config']}", java, py_answer(c, None, None))
        for c, java in zip(cases, answers[: len(cases)], strict=True)
    ]
    failures = _failures(rows)
    assert not failures, failures
    for m, java in zip(meta, answers[len(cases) :], strict=True):
        cls = CONVERTERS[m["converter"]]
        keys = [
            {
                "name": k.name,
                "type": k.type.value,
                "required": k.required,
                "default": k.default_string,
                "importance": k.importance.value,
                "doc": k.documentation,
            }
            for k in cls.config_def().keys
        ]
        assert {"version": cls.plugin_version, "config": keys} == java
        assert cls.class_name == "org.apache.kafka.connect.converters." + m["converter"]
