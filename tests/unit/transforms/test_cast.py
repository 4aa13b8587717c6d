from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.schema import (
    BYTES_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    STRING_SCHEMA,
    Schema,
    Type,
    decimal_schema,
    struct_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.transforms.cast import CastKey, CastValue, cast_value

from ._helpers import make, rec


@pytest.mark.parametrize(
    ("schema", "value", "target", "expected"),
    [
        (INT64_SCHEMA, 300, Type.INT8, 44),  # Java (byte) wraps
        (FLOAT64_SCHEMA, 1e20, Type.INT32, 2**31 - 1),  # double -> int saturates
        (FLOAT64_SCHEMA, 1e20, Type.INT8, -1),  # (byte)(int)1e20
        (FLOAT64_SCHEMA, -2.7, Type.INT64, -2),
        (STRING_SCHEMA, "-12", Type.INT16, -12),
        (STRING_SCHEMA, "TRUE", Type.BOOLEAN, True),
        (STRING_SCHEMA, "yes", Type.BOOLEAN, False),
        (INT64_SCHEMA, 2, Type.BOOLEAN, True),
        (Schema(Type.BOOLEAN), True, Type.INT32, 1),
        (FLOAT64_SCHEMA, 1e7, Type.STRING, "1.0E7"),
        (FLOAT64_SCHEMA, 0.5, Type.STRING, "0.5"),
        (FLOAT32_SCHEMA, 0.1, Type.STRING, "0.1"),
        (FLOAT64_SCHEMA, 0.1, Type.FLOAT32, 0.10000000149011612),
        (STRING_SCHEMA, "2.5", Type.FLOAT64, 2.5),
        (BYTES_SCHEMA, b"\x01\x02", Type.STRING, "AQI="),
        (decimal_schema(2), Decimal("12.34"), Type.STRING, "12.34"),
        (decimal_schema(2), Decimal("12.34"), Type.INT32, 12),
        (decimal_schema(2), Decimal("12.34"), Type.FLOAT64, 12.34),
        (timestamp_schema(), dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.UTC), Type.INT64, 1000),
        (
            timestamp_schema(),
            dt.datetime(2024, 1, 2, 3, 4, 5, 6000, tzinfo=dt.UTC),
            Type.STRING,
            "2024-01-02T03:04:05.006Z",
        ),
        (timestamp_schema(), dt.datetime(2024, 1, 2, tzinfo=dt.UTC), Type.STRING, "2024-01-02"),
        (INT64_SCHEMA, None, Type.STRING, None),
    ],
)
def test_cast_value(schema: Schema, value: object, target: Type, expected: object) -> None:
    assert cast_value(schema, value, target) == expected


def test_cast_fields_with_schema() -> None:
    s = struct_schema(
        [("a", INT64_SCHEMA), ("b", Schema(Type.STRING, optional=True, default="7")), ("c", STRING_SCHEMA)], name="r"
    )
    t = make(CastValue, spec="a:string,b:int8")
    out = t.apply(rec(Struct(s, {"a": 5, "b": None, "c": "x"}), s))
    fields = {f.name: f.schema for f in out.value_schema.fields}
    assert fields["a"] == STRING_SCHEMA
    assert fields["b"].type is Type.INT8 and fields["b"].optional and fields["b"].default == 7
    assert fields["c"] is s.fields[2].schema
    assert out.value_schema.name == "r"
    assert out.value.values == ("5", 7, "x")


def test_cast_whole_value_and_key() -> None:
    out = make(CastValue, spec="string").apply(rec(12, OPTIONAL_INT64_SCHEMA))
    assert out.value == "12" and out.value_schema.type is Type.STRING and out.value_schema.optional
    assert make(CastKey, spec="int8").apply(rec(None, key="5")).key == 5
    assert make(CastValue, spec="a:int32").apply(rec({"a": "9", "b": "x"})).value == {"a": 9, "b": "x"}


def test_cast_errors() -> None:
    with pytest.raises(ConfigError, match="Invalid type found in casting spec: nope"):
        make(CastValue, spec="a:nope")
    with pytest.raises(ConfigError, match="may only specify a single cast"):
        make(CastValue, spec="int8,a:int16")
    with pytest.raises(ConfigError, match="does not support casting to/from BYTES"):
        make(CastValue, spec="a:bytes")
    s = struct_schema([("n", struct_schema([("x", INT8_SCHEMA)]))])
    with pytest.raises(DataError, match="does not support casting to/from STRUCT"):
        make(CastValue, spec="n:string").apply(rec(Struct(s, {"n": None}), s))
    with pytest.raises(DataError):
        cast_value(STRING_SCHEMA, "x1", Type.INT32)
