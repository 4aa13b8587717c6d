"""Pure tests of the Connect → sink type registry (kafka-connect.md §3.2, §3.4; postgresql.md §6)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest

from spark_sink.connect_schema import parse_schema
from spark_sink.types import ConversionError, TypeOptions, default_registry
from spark_sink.types.model import (
    BINARY,
    BYTE,
    DATE,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    SHORT,
    STRING,
    TIMESTAMP,
    TIMESTAMP_NTZ,
    ArrayT,
    DecimalT,
    MapT,
    StructT,
)

REG = default_registry()


def conv(schema: dict[str, Any], value: Any) -> Any:
    return REG.converter_for(parse_schema(schema))(value)


def sink(schema: dict[str, Any]) -> Any:
    return REG.mapping_for(parse_schema(schema)).sink_type


def named(type_: str, name: str, **params: str) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type_, "optional": True, "name": name, "version": 1}
    if params:
        out["parameters"] = params
    return out


DEC = "org.apache.kafka.connect.data.Decimal"


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "int8"}, BYTE),
        ({"type": "int16"}, SHORT),
        ({"type": "int32"}, INT),
        ({"type": "int64"}, LONG),
        ({"type": "float"}, FLOAT),
        ({"type": "double"}, DOUBLE),
        ({"type": "bytes"}, BINARY),
        (named("bytes", DEC, scale="2", **{"connect.decimal.precision": "10"}), DecimalT(10, 2)),
        (named("bytes", DEC, scale="3"), DecimalT(38, 3)),
        (named("bytes", DEC, scale="2", **{"connect.decimal.precision": "60"}), STRING),
        (named("int32", "io.debezium.time.Date"), DATE),
        (named("int32", "org.apache.kafka.connect.data.Date"), DATE),
        (named("int64", "io.debezium.time.MicroTimestamp"), TIMESTAMP_NTZ),
        (named("int64", "io.debezium.time.NanoTimestamp"), TIMESTAMP_NTZ),
        (named("int64", "org.apache.kafka.connect.data.Timestamp"), TIMESTAMP_NTZ),
        (named("string", "io.debezium.time.ZonedTimestamp"), TIMESTAMP),
        (named("int64", "io.debezium.time.MicroTime"), STRING),
        (named("string", "io.debezium.data.Json"), STRING),
        (named("string", "io.debezium.data.Uuid"), STRING),
        (named("string", "io.debezium.data.Enum", allowed="a,b"), STRING),
        (named("bytes", "io.debezium.data.Bits", length="3"), BINARY),
        (named("int64", "io.debezium.time.MicroDuration"), LONG),
        (named("string", "io.debezium.time.Interval"), STRING),
        ({"type": "array", "items": {"type": "int32"}}, ArrayT(INT)),
        ({"type": "map", "keys": {"type": "string"}, "values": {"type": "int32"}}, MapT(STRING, INT)),
        (
            {
                "type": "struct",
                "name": "io.debezium.data.geometry.Geometry",
                "fields": [{"type": "bytes", "field": "wkb"}, {"type": "int32", "field": "srid"}],
            },
            StructT((("wkb", BINARY), ("srid", INT))),
        ),
    ],
)
def test_sink_types(schema: dict[str, Any], expected: Any) -> None:
    assert sink(schema) == expected


def test_decimal_encodings() -> None:
    s = named("bytes", DEC, scale="2", **{"connect.decimal.precision": "10"})
    assert conv(s, "BNI=") == Decimal("12.34")  # Appendix A
    assert conv(s, "/do=") == Decimal("-5.50")
    assert conv(s, "+y4=") == Decimal("-12.34")  # §3.2
    assert conv(s, Decimal("12.34")) == Decimal("12.34")  # decimal.format=NUMERIC
    with pytest.raises(ConversionError):
        conv(s, "!!")
    with pytest.raises(ConversionError):
        conv(s, Decimal("123456789.01"))  # overflows decimal(10,2): rejected, not truncated


def test_variable_scale_decimal_never_rounds() -> None:
    s = {
        "type": "struct",
        "name": "io.debezium.data.VariableScaleDecimal",
        "fields": [{"type": "int32", "field": "scale"}, {"type": "bytes", "field": "value"}],
    }
    assert conv(s, {"scale": 5, "value": "BMsv"}) == Decimal("3.14159")
    assert conv(s, {"scale": 7, "value": "AQ=="}) == Decimal("1E-7")
    narrow = default_registry(TypeOptions(variable_scale=2)).converter_for(parse_schema(s))
    with pytest.raises(ConversionError, match="fractional digits"):
        narrow({"scale": 5, "value": "BMsv"})


def test_temporal_values() -> None:
    assert conv(named("int32", "io.debezium.time.Date"), 19724) == dt.date(2024, 1, 2)
    assert conv(named("int32", "io.debezium.time.Date"), -1) == dt.date(1969, 12, 31)
    assert conv(named("int64", "io.debezium.time.MicroTimestamp"), 1529507596945104) == dt.datetime(
        2018, 6, 20, 15, 13, 16, 945104
    )
    assert conv(named("int64", "io.debezium.time.Timestamp"), 1000) == dt.datetime(1970, 1, 1, 0, 0, 1)
    assert conv(named("int64", "io.debezium.time.NanoTimestamp"), 1_500) == dt.datetime(1970, 1, 1, 0, 0, 0, 1)
    zoned = named("string", "io.debezium.time.ZonedTimestamp")
    assert conv(zoned, "2024-01-02T03:04:05.123456Z") == dt.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=dt.UTC)
    assert conv(zoned, "2024-01-02T03:04:05.123456789Z") == dt.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=dt.UTC)
    assert conv(zoned, "2024-01-02T05:04:05+02:00") == dt.datetime(2024, 1, 2, 3, 4, 5, tzinfo=dt.UTC)
    assert conv(zoned, "infinity").year == 9999
    # years outside 1..9999 (PG BC timestamps; Java writes -0043 for 44 BC) clamp like the epoch-based types
    assert conv(zoned, "-0043-03-15T10:00:00Z") == dt.datetime(1, 1, 1, tzinfo=dt.UTC)
    assert conv(zoned, "0000-12-31T23:00:00Z") == dt.datetime(1, 1, 1, tzinfo=dt.UTC)
    assert conv(zoned, "+10000-01-01T00:00:00Z").year == 9999
    # PG timestamp +infinity in MicroTimestamp clamps to the end of the range
    assert conv(named("int64", "io.debezium.time.MicroTimestamp"), 9223372036825200000).year == 9999
    assert conv(named("int64", "io.debezium.time.MicroTime"), 3723004005) == "01:02:03.004005"
    assert conv(named("int32", "io.debezium.time.Time"), 3723004) == "01:02:03.004000"


def test_containers_and_bytes() -> None:
    assert conv({"type": "bytes"}, "AQID") == b"\x01\x02\x03"
    assert conv({"type": "map", "keys": {"type": "int32"}, "values": {"type": "string"}}, [[7, "seven"]]) == {
        7: "seven"
    }
    assert conv({"type": "array", "items": {"type": "double"}}, [1, "NaN"])[0] == 1.0
    geometry = {"type": "struct", "fields": [{"type": "bytes", "field": "wkb"}, {"type": "int32", "field": "srid"}]}
    assert conv(geometry, {"wkb": "AQID", "srid": None}) == (b"\x01\x02\x03", None)
    with pytest.raises(ConversionError):
        conv({"type": "int32"}, "x")
