"""The Vitess type registry (vitess.md §4; acceptance items 27-30): schemas, value parsing, binary round trips."""

from __future__ import annotations

import base64
import datetime as dt
import importlib
import logging
from decimal import Decimal
from typing import Any

import pytest

from connect_worker.api.errors import DataError
from connect_worker.api.schema import (
    BYTES_SCHEMA,
    FLOAT64_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    STRING_SCHEMA,
    Schema,
    Type,
    date_schema,
    decimal_schema,
    struct_schema,
    time_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from connectors.relational import metadata_schemas as md
from connectors.relational import schema_builder
from connectors.relational.schema_builder import SchemaBuilderSettings, TableSchema
from connectors.relational.table import Column, ColumnType, Table, TableId
from connectors.relational.temporal import days_from_civil
from connectors.vitess.value_converters import (
    BUILTIN_TYPES,
    ColumnConverter,
    QueryType,
    VitessTypeOptions,
    converter_for,
    is_binary,
)
from connectors.vitess.value_converters.text import parse_labels
from converters.json import JsonConverter

Q = QueryType
ALL_BYTES = bytes(range(256))


def column(oid: int, name: str, *, scale: int = 0, optional: bool = True, length: int | None = None) -> Column:
    return Column(
        "c", 1, ColumnType(oid=int(oid), name=name, category="V"), length=length, scale=scale, optional=optional
    )


def conv(oid: int, name: str, *, scale: int = 0, optional: bool = True, **options: Any) -> ColumnConverter:
    converter = converter_for(column(oid, name, scale=scale, optional=optional), VitessTypeOptions(**options))
    assert converter is not None, f"{name} unexpectedly left out"
    return converter


def value(oid: int, name: str, text: str, *, scale: int = 0, **options: Any) -> Any:
    return conv(oid, name, scale=scale, **options).from_text(text)


def json_of(schema: Schema, v: Any) -> str:
    """The field as JsonConverter writes it inside a one-field struct."""
    envelope = struct_schema([("f", schema)], name="t")
    data = JsonConverter()
    data.configure({"schemas.enable": "true"}, is_key=False)
    out = data.from_connect_data("topic", envelope, Struct.of(envelope, [v]))
    assert out is not None
    return out.decode("utf-8")


def opt(schema: Schema) -> Schema:
    return schema.with_(optional=True)


# -- registry basics -------------------------------------------------------------------------------------
def test_query_type_codes_match_the_protocol() -> None:
    query: Any = importlib.import_module("connectors.vitess.proto.query_pb2")
    for member in QueryType:
        assert query.Type.Value(member.name) == member.value, member.name


def test_satisfies_the_schema_builder_protocol() -> None:
    converter: schema_builder.ColumnConverter = conv(Q.INT32, "int(11)")
    assert converter.from_snapshot_text is None


@pytest.mark.parametrize("optional", [True, False])
def test_optional_follows_the_column(optional: bool) -> None:
    for oid, name in [
        (Q.INT64, "bigint(20)"),
        (Q.VARCHAR, "varchar(10)"),
        (Q.BLOB, "blob"),
        (Q.ENUM, "enum('a')"),
        (Q.DATETIME, "datetime"),
        (Q.UINT64, "bigint(20) unsigned"),
    ]:
        assert conv(oid, name, optional=optional).schema.optional is optional


def test_equal_types_give_equal_schemas() -> None:
    assert conv(Q.INT32, "int(11)").schema == conv(Q.INT24, "mediumint(9)").schema == opt(INT32_SCHEMA)
    assert conv(Q.INT32, "int(11)", optional=False).schema == INT32_SCHEMA
    assert conv(Q.ENUM, "enum('a','b')").schema == conv(Q.ENUM, "enum('a','b')").schema


# -- integers, floats, decimals --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("oid", "name", "schema", "text", "expected"),
    [
        (Q.INT8, "tinyint(1)", INT16_SCHEMA, "1", 1),
        (Q.INT8, "tinyint(4)", INT16_SCHEMA, "-128", -128),
        (Q.UINT8, "tinyint(3) unsigned", INT16_SCHEMA, "255", 255),
        (Q.INT16, "smallint(6)", INT16_SCHEMA, "-32768", -32768),
        (Q.UINT16, "smallint(5) unsigned", INT32_SCHEMA, "65535", 65535),
        (Q.INT24, "mediumint(9)", INT32_SCHEMA, "-8388608", -8388608),
        (Q.UINT24, "mediumint(8) unsigned", INT32_SCHEMA, "16777215", 16777215),
        (Q.INT32, "int(11)", INT32_SCHEMA, "-2147483648", -2147483648),
        (Q.UINT32, "int(10) unsigned", INT64_SCHEMA, "4294967295", 4294967295),
        (Q.INT64, "bigint(20)", INT64_SCHEMA, "-9223372036854775808", -9223372036854775808),
        (Q.FLOAT32, "float", FLOAT64_SCHEMA, "1.5", 1.5),
        (Q.FLOAT64, "double", FLOAT64_SCHEMA, "-2.5e+30", -2.5e30),
        (Q.FLOAT64, "double(10,2)", FLOAT64_SCHEMA, "3", 3.0),
    ],
)
def test_numbers(oid: int, name: str, schema: Schema, text: str, expected: Any) -> None:
    c = conv(oid, name, optional=False)
    assert c.schema == schema
    result = c.from_text(text)
    assert result == expected and type(result) is type(expected)


def test_bad_number_is_a_data_error() -> None:
    with pytest.raises(DataError, match="abc"):
        value(Q.INT32, "int(11)", "abc")
    with pytest.raises(DataError):
        value(Q.FLOAT64, "double", "x1")


def test_decimal_is_its_plain_text() -> None:  # item 29
    c = conv(Q.DECIMAL, "decimal(10,2)", scale=2)
    assert c.schema == opt(STRING_SCHEMA)
    assert c.from_text("12.30") == "12.30"
    assert c.from_text("-0.05") == "-0.05"


def test_bigint_unsigned_string() -> None:  # item 28
    c = conv(Q.UINT64, "bigint(20) unsigned")
    assert c.schema == opt(STRING_SCHEMA)
    assert c.from_text("18446744073709551615") == "18446744073709551615"


def test_bigint_unsigned_precise() -> None:  # item 28
    c = conv(Q.UINT64, "bigint(20) unsigned", bigint_unsigned_handling_mode="precise")
    assert c.schema == decimal_schema(0, optional=True)
    assert c.schema.name == "org.apache.kafka.connect.data.Decimal" and c.schema.parameters == {"scale": "0"}
    v = c.from_text("18446744073709551615")
    assert isinstance(v, Decimal) and v == Decimal(18446744073709551615) and v.as_tuple().exponent == 0
    assert c.from_text("-1") == Decimal(18446744073709551615)  # a raw negative read back as unsigned
    assert '"f":"AP//////////"' in json_of(c.schema, v)  # unscaled 00 ff*8: two's complement, big-endian


def test_bigint_unsigned_long() -> None:  # item 28
    c = conv(Q.UINT64, "bigint(20) unsigned", bigint_unsigned_handling_mode="long")
    assert c.schema == opt(INT64_SCHEMA)
    assert c.from_text("12345") == 12345
    assert c.from_text("9223372036854775807") == 9223372036854775807
    assert c.from_text("9223372036854775808") == -9223372036854775808  # wraps as Java's long does
    assert c.from_text("18446744073709551615") == -1


# -- strings, JSON, ENUM, SET ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("oid", "name"),
    [
        (Q.CHAR, "char(3)"),
        (Q.VARCHAR, "varchar(255)"),
        (Q.TEXT, "text"),
        (Q.TEXT, "longtext"),
        (Q.VARBINARY, "varchar(20)"),  # a binary-collation VARCHAR
    ],
)
def test_strings_pass_through(oid: int, name: str) -> None:
    c = conv(oid, name)
    assert c.schema == opt(STRING_SCHEMA)
    assert c.from_text("héllo ✓") == "héllo ✓"
    assert getattr(c.from_text, "is_identity", False)  # the row converters inline it away
    assert not is_binary(column(oid, name))


def test_json() -> None:  # item 29
    c = conv(Q.JSON, "json")
    assert c.schema == Schema(Type.STRING, optional=True, name="io.debezium.data.Json", version=1)
    assert c.from_text('{"k": [1, 2]}') == '{"k": [1, 2]}'


def test_enum_labels_parsed_from_the_column_type() -> None:
    assert parse_labels("enum('a','b','it''s')") == ("a", "b", "it's")
    assert parse_labels("enum('')") == ("",)
    assert parse_labels("set('x,y', 'z')") == ("x,y", "z")
    assert parse_labels("enum('''','a''''b')") == ("'", "a''b")
    assert parse_labels("enum()") == ()
    assert parse_labels("enum") == ()


def test_enum_schema() -> None:
    c = conv(Q.ENUM, "enum('a','b','it''s')", optional=False)
    assert c.schema == Schema(Type.STRING, name="io.debezium.data.Enum", version=1, parameters={"allowed": "a,b,it's"})


def test_enum_values() -> None:  # item 27
    c = conv(Q.ENUM, "enum('a','b','c')")
    assert c.from_text("2") == "b"  # binlog streaming: the 1-based index
    assert c.from_text("1") == "a" and c.from_text("3") == "c"
    assert c.from_text("b") == "b"  # copy phase / enum_set_string_values: the label
    assert c.from_text("0") == ""  # MySQL's empty-string error value
    assert c.from_text("4") == "" and c.from_text("-1") == ""  # out of range
    assert c.from_text("zz") == "zz"  # neither: passed on


def test_enum_label_that_looks_like_an_index_is_a_label() -> None:
    c = conv(Q.ENUM, "enum('2','1','x')")
    assert c.from_text("2") == "2" and c.from_text("1") == "1"
    assert c.from_text("3") == "x"


def test_set_schema_and_values() -> None:  # item 27
    c = conv(Q.SET, "set('a','b','c')")
    assert c.schema == Schema(
        Type.STRING, optional=True, name="io.debezium.data.EnumSet", version=1, parameters={"allowed": "a,b,c"}
    )
    assert c.from_text("5") == "a,c"  # bitmask 0b101
    assert c.from_text("7") == "a,b,c"
    assert c.from_text("0") == ""
    assert c.from_text("a,c") == "a,c"  # copy phase: the labels
    assert c.from_text("") == ""
    assert c.from_text("b") == "b"


def test_set_label_that_looks_like_a_number_is_a_label() -> None:
    c = conv(Q.SET, "set('1','2','4')")
    assert c.from_text("4") == "4"
    assert c.from_text("3") == "1,2"  # not a label: a bitmask


# -- binary ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(("oid", "name"), [(Q.BINARY, "binary(16)"), (Q.VARBINARY, "varbinary(255)"), (Q.BLOB, "blob")])
def test_binary_round_trip_of_every_byte(oid: int, name: str) -> None:
    assert is_binary(column(oid, name))
    text = ALL_BYTES.decode("latin-1")  # what the row decoder hands over
    c = conv(oid, name)
    assert c.schema == opt(BYTES_SCHEMA)
    assert c.from_text(text) == ALL_BYTES
    assert conv(oid, name, binary_handling_mode="base64").from_text(text) == base64.b64encode(ALL_BYTES).decode()
    url = conv(oid, name, binary_handling_mode="base64-url-safe")
    assert url.from_text(text) == base64.urlsafe_b64encode(ALL_BYTES).decode()
    hexed = conv(oid, name, binary_handling_mode="hex")
    assert hexed.schema == opt(STRING_SCHEMA)
    assert hexed.from_text(text) == ALL_BYTES.hex()


@pytest.mark.parametrize("mode", ["base64", "base64-url-safe", "hex"])
def test_binary_as_text_is_a_string(mode: Any) -> None:
    assert conv(Q.BLOB, "blob", binary_handling_mode=mode).schema == opt(STRING_SCHEMA)


def test_binary_empty_value() -> None:
    assert value(Q.VARBINARY, "varbinary(4)", "") == b""


# -- unsupported types -------------------------------------------------------------------------------------
UNSUPPORTED = [
    (Q.BIT, "bit(1)"),
    (Q.BIT, "bit(64)"),
    (Q.GEOMETRY, "geometry"),
    (Q.GEOMETRY, "point"),
    (Q.GEOMETRY, "multipolygon"),
    (Q.NULL_TYPE, ""),
    (31, "expression"),
    (99999, "mystery"),
]


@pytest.mark.parametrize(("oid", "name"), UNSUPPORTED)
def test_unsupported_types_are_left_out(oid: int, name: str, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="connectors.vitess.value_converters"):
        assert converter_for(column(oid, name), VitessTypeOptions()) is None
    assert len(caplog.records) == 1 and "include.unknown.datatypes" in caplog.records[0].getMessage()
    assert is_binary(column(oid, name))  # decoded losslessly even when left out


@pytest.mark.parametrize(("oid", "name"), UNSUPPORTED)
def test_unknown_datatypes_included_as_bytes(oid: int, name: str) -> None:
    text = ALL_BYTES.decode("latin-1")
    c = conv(oid, name, include_unknown_datatypes=True)
    assert c.schema == opt(BYTES_SCHEMA)
    assert c.from_text(text) == ALL_BYTES
    h = conv(oid, name, include_unknown_datatypes=True, binary_handling_mode="hex", optional=False)
    assert h.schema == STRING_SCHEMA and h.from_text("\x01\xff") == "01ff"


def test_every_mapped_type_but_binary_is_text() -> None:
    binary = {Q.BINARY, Q.VARBINARY, Q.BLOB}
    for oid in BUILTIN_TYPES:
        assert is_binary(column(oid, "x")) is (oid in binary), QueryType(oid).name


# -- temporal ----------------------------------------------------------------------------------------------
def test_days_from_civil_agrees_with_datetime() -> None:
    epoch = dt.date(1970, 1, 1)
    for d in [
        dt.date(1, 1, 1),
        dt.date(1000, 2, 28),
        dt.date(1969, 12, 31),
        dt.date(2000, 2, 29),
        dt.date(9999, 12, 31),
    ]:
        assert days_from_civil(d.year, d.month, d.day) == (d - epoch).days


def test_year() -> None:  # item 29
    c = conv(Q.YEAR, "year(4)")
    assert c.schema == Schema(Type.INT32, optional=True, name="io.debezium.time.Year", version=1)
    assert c.from_text("2024") == 2024


def test_date() -> None:
    c = conv(Q.DATE, "date")
    assert c.schema == Schema(Type.INT32, optional=True, name="io.debezium.time.Date", version=1)
    assert c.from_text("2018-06-20") == 17702
    assert c.from_text("1969-12-31") == -1
    assert c.from_text("0000-00-00") is None
    assert c.from_text("2018-00-20") is None
    assert conv(Q.DATE, "date", optional=False).from_text("0000-00-00") == 0
    with pytest.raises(DataError):
        c.from_text("20180620")


def test_date_connect() -> None:
    c = conv(Q.DATE, "date", time_precision_mode="connect")
    assert c.schema == date_schema(optional=True)
    assert c.from_text("2018-06-20") == dt.date(2018, 6, 20)
    assert c.from_text("0000-00-00") is None
    assert conv(Q.DATE, "date", optional=False, time_precision_mode="connect").from_text("0000-00-00") == dt.date(
        1970, 1, 1
    )
    assert '"f":17702' in json_of(c.schema, c.from_text("2018-06-20"))


def test_time_micro() -> None:  # item 30
    c = conv(Q.TIME, "time(3)", scale=3)
    assert c.schema == Schema(Type.INT64, optional=True, name="io.debezium.time.MicroTime", version=1)
    assert c.from_text("12:00:00.5") == 43_200_500_000
    assert c.from_text("00:00:00") == 0
    assert c.from_text("23:59:59.999999") == 86_399_999_999
    assert c.from_text("838:59:59") == (838 * 3600 + 59 * 60 + 59) * 1_000_000
    assert c.from_text("-01:30:00.25") == -(5400 * 1_000_000 + 250_000)
    assert conv(Q.TIME, "time").schema.name == "io.debezium.time.MicroTime"  # every precision
    with pytest.raises(DataError):
        c.from_text("12:00")


def test_time_connect() -> None:
    c = conv(Q.TIME, "time(3)", scale=3, time_precision_mode="connect")
    assert c.schema == time_schema(optional=True)
    v = c.from_text("12:00:00.5")
    assert v == dt.time(12, 0, 0, 500_000)
    assert '"f":43200500' in json_of(c.schema, v)
    assert c.from_text("25:00:00") == 90_000_000  # beyond a day: the millisecond count
    assert c.from_text("-00:00:01") == -1000


def test_datetime_millis_and_micros() -> None:  # item 30
    c = conv(Q.DATETIME, "datetime")
    assert c.schema == Schema(Type.INT64, optional=True, name="io.debezium.time.Timestamp", version=1)
    assert c.from_text("2018-06-20 06:37:03") == 1529476623000
    c3 = conv(Q.DATETIME, "datetime(3)", scale=3)
    assert c3.schema.name == "io.debezium.time.Timestamp"
    assert c3.from_text("2018-06-20 06:37:03.123") == 1529476623123
    c6 = conv(Q.DATETIME, "datetime(6)", scale=6)
    assert c6.schema == Schema(Type.INT64, optional=True, name="io.debezium.time.MicroTimestamp", version=1)
    assert c6.from_text("2018-06-20 06:37:03.123456") == 1529476623123456
    assert conv(Q.DATETIME, "datetime(4)", scale=4).from_text("2018-06-20 06:37:03.1234") == 1529476623123400
    assert c6.from_text("1969-12-31 23:59:59.999999") == -1
    assert c.from_text("1969-12-31 23:59:59.999") == -1  # floored, as Instant.toEpochMilli
    assert c.from_text("0000-00-00 00:00:00") is None and c6.from_text("0000-00-00 00:00:00.000000") is None
    assert conv(Q.DATETIME, "datetime", optional=False).from_text("0000-00-00 00:00:00") == 0
    with pytest.raises(DataError):
        c.from_text("2018-06-20")


def test_datetime_connect() -> None:
    c = conv(Q.DATETIME, "datetime(6)", scale=6, time_precision_mode="connect")
    assert c.schema == timestamp_schema(optional=True)
    v = c.from_text("2018-06-20 06:37:03.123456")
    assert v == dt.datetime(2018, 6, 20, 6, 37, 3, 123000)
    assert '"f":1529476623123' in json_of(c.schema, v)
    assert c.from_text("0000-00-00 00:00:00") is None
    required = conv(Q.DATETIME, "datetime", optional=False, time_precision_mode="connect")
    assert required.from_text("0000-00-00 00:00:00") == dt.datetime(1970, 1, 1)


def test_timestamp_is_zoned_utc() -> None:
    c = conv(Q.TIMESTAMP, "timestamp")
    assert c.schema == Schema(Type.STRING, optional=True, name="io.debezium.time.ZonedTimestamp", version=1)
    assert c.from_text("2018-06-20 13:37:03") == "2018-06-20T13:37:03Z"
    assert c.from_text("0000-00-00 00:00:00") is None
    assert conv(Q.TIMESTAMP, "timestamp", optional=False).from_text("0000-00-00 00:00:00") == "1970-01-01T00:00:00Z"
    with pytest.raises(DataError):
        c.from_text("2018-06-20T13:37:03+02:00")


def test_timestamp_fraction_follows_the_precision() -> None:
    c3 = conv(Q.TIMESTAMP, "timestamp(3)", scale=3)
    assert c3.from_text("2018-06-20 13:37:03.5") == "2018-06-20T13:37:03.500Z"
    assert c3.from_text("2018-06-20 13:37:03.123") == "2018-06-20T13:37:03.123Z"
    assert c3.from_text("2018-06-20 13:37:03") == "2018-06-20T13:37:03.000Z"
    c6 = conv(Q.TIMESTAMP, "timestamp(6)", scale=6)
    assert c6.from_text("2018-06-20 13:37:03.123456") == "2018-06-20T13:37:03.123456Z"
    assert c6.from_text("2018-06-20 13:37:03.000000") == "2018-06-20T13:37:03.000000Z"
    c0 = conv(Q.TIMESTAMP, "timestamp", scale=0)
    assert c0.from_text("2018-06-20 13:37:03.120") == "2018-06-20T13:37:03.12Z"  # no precision: digits as needed
    required = conv(Q.TIMESTAMP, "timestamp(3)", scale=3, optional=False)
    assert required.from_text("0000-00-00 00:00:00.000") == "1970-01-01T00:00:00.000Z"


# -- through a table schema --------------------------------------------------------------------------------
def test_row_through_a_table_schema() -> None:
    columns = [
        Column("id", 1, ColumnType(Q.INT64, "bigint(20)", "V"), optional=False),
        Column("status", 2, ColumnType(Q.ENUM, "enum('new','paid')", "V")),
        Column("payload", 3, ColumnType(Q.BLOB, "blob", "V")),
        Column("created", 4, ColumnType(Q.DATETIME, "datetime(6)", "V"), scale=6),
        Column("shape", 5, ColumnType(Q.GEOMETRY, "point", "V")),
        Column("name", 6, ColumnType(Q.VARCHAR, "varchar(20)", "V")),
    ]
    table = Table(TableId("commerce", "orders"), tuple(columns), primary_key=("id",))
    options = VitessTypeOptions()
    settings = SchemaBuilderSettings(
        topic_prefix="p",
        converter_for=lambda c: converter_for(c, options),
        mapper_for=lambda t, c: None,
        key_columns_for=lambda t: None,
        column_included=lambda t, c: True,
        adjust_schema_name=lambda s: s,
        adjust_field_name=lambda s: s,
        source_schema=struct_schema([("db", STRING_SCHEMA)], name="source"),
        transaction_schema=md.EVENT_BLOCK_SCHEMA,
    )
    ts = TableSchema(table, settings)
    assert [f.name for f in ts.value_schema.fields] == ["id", "status", "payload", "created", "name"]
    key_fn, value_fn = ts.row_converter([c.name for c in columns])
    binary = [is_binary(c) for c in columns]
    assert binary == [False, False, True, False, True, False]
    raw = [b"7", b"2", b"\x00\xff", b"2018-06-20 06:37:03.123456", b"\x01\x02", None]
    row = tuple(None if r is None else r.decode("latin-1" if b else "utf-8") for r, b in zip(raw, binary, strict=True))
    after = value_fn(row)
    after.validate()
    assert after.values == (7, "paid", b"\x00\xff", 1529476623123456, None)
    assert key_fn is not None and key_fn(row).values == (7,)


def test_fast_and_general_temporal_paths_agree() -> None:
    """Plain values are parsed in C; zero, out-of-calendar, `T`-separated and >24h values by the regexes."""
    epoch = dt.datetime(1970, 1, 1)
    micro = conv(Q.DATETIME, "datetime(6)", scale=6).from_text
    zoned = conv(Q.TIMESTAMP, "timestamp(6)", scale=6).from_text
    days = conv(Q.DATE, "date").from_text
    clock = conv(Q.TIME, "time(6)", scale=6).from_text
    for d in [
        dt.datetime(1000, 1, 1),
        dt.datetime(1969, 7, 20, 20, 17, 40, 1),
        dt.datetime(2038, 1, 19, 3, 14, 7, 999999),
    ]:
        text = d.isoformat(" ", "microseconds")
        expected = (d - epoch) // dt.timedelta(microseconds=1)
        assert micro(text) == micro(text.replace(" ", "T")) == expected
        assert zoned(text) == zoned(text.replace(" ", "T")) == d.isoformat("T", "microseconds") + "Z"
        assert days(text[:10]) == (d.date() - epoch.date()).days
        assert clock(text[11:]) == clock("0" + text[11:]) == expected % 86_400_000_000
    assert micro("2018-02-30 00:00:00") == micro("2018-03-02 00:00:00")  # MySQL's ALLOW_INVALID_DATES: arithmetic
    assert days("2018-02-30") == days("2018-03-02")
    assert clock("24:00:00") == 86_400_000_000
    assert zoned("2018-02-30 00:00:00.5") == "2018-02-30T00:00:00.500000Z"


def test_connect_timestamp_paths_agree() -> None:
    c = conv(Q.DATETIME, "datetime(6)", scale=6, time_precision_mode="connect").from_text
    for text in ["2018-06-20 06:37:03.123456", "1969-12-31 23:59:59.999999", "2018-06-20 06:37:03"]:
        assert c(text) == c(text.replace(" ", "T"))
    assert c("1969-12-31 23:59:59.999999") == dt.datetime(1969, 12, 31, 23, 59, 59, 999000)
