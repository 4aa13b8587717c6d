"""JsonConverter unit tests: the literal captures of the spec (§3.1, §3.2, Appendix A) and error paths."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from connect_worker.api.errors import DataError
from connect_worker.api.schema import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    SchemaBuilder,
    Type,
    decimal_schema,
    struct_schema,
)
from connect_worker.api.struct import Struct
from converters.json import JsonConverter
from tests.java_golden.json_cases import dbz_record


def _conv(**cfg: str) -> JsonConverter:
    c = JsonConverter()
    c.configure(cfg, False)
    return c


def test_envelope_and_tombstone() -> None:
    c = _conv()
    assert c.from_connect_data("t", None, None) is None
    assert c.from_connect_data("t", OPTIONAL_STRING_SCHEMA, None) == (
        b'{"schema":{"type":"string","optional":true},"payload":null}'
    )


def test_offsets_key_schemaless() -> None:
    c = _conv(**{"schemas.enable": "false"})
    assert c.from_connect_data("t", None, ["inventory", {"server": "dbserver1"}]) == (
        b'["inventory",{"server":"dbserver1"}]'
    )


def test_debezium_key_literal() -> None:
    key = struct_schema([("id", INT32_SCHEMA)], name="dbserver1.public.customers.Key")
    assert _conv().from_connect_data("t", key, Struct.of(key, [2])) == (
        b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,'
        b'"name":"dbserver1.public.customers.Key"},"payload":{"id":2}}'
    )


def test_appendix_a_schema_and_payload_encodings() -> None:
    schema, value = dbz_record()
    out = _conv().from_connect_data("t", schema, value)
    assert out is not None
    text = out.decode()
    assert text.startswith('{"schema":{"type":"struct","fields":[{"type":"struct","fields":[{"type":"int32"')
    assert (
        '{"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,'
        '"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"balance"}'
    ) in text
    assert '"default":"false","field":"snapshot"}' in text
    assert '"balance":"BNI="' in text  # 12.34, as in Appendix A
    assert '"amount":{"scale":5,"value":"BMsv"}' in text
    assert '"snapshot":"false"' in text  # null replaced by the default
    assert '"optional":false,"name":"dbserver1.public.customers.Envelope","version":2},"payload":' in text


def test_decimal_encodings() -> None:
    s = decimal_schema(2)
    assert _conv(**{"schemas.enable": "false"}).from_connect_data("t", s, Decimal("-12.34")) == b'"+y4="'
    assert _conv(**{"schemas.enable": "false"}).from_connect_data("t", s, Decimal("-5.50")) == b'"/do="'
    numeric = _conv(**{"schemas.enable": "false", "decimal.format": "NUMERIC"})
    assert numeric.from_connect_data("t", s, Decimal("-12.34")) == b"-12.34"
    with pytest.raises(DataError, match="mismatching scale"):
        _conv().from_connect_data("t", s, Decimal("1.5"))


def test_errors() -> None:
    c = _conv()
    with pytest.raises(DataError, match="null value for field that is required"):
        c.from_connect_data("t", STRING_SCHEMA, None)
    with pytest.raises(DataError, match="Invalid type for INT32"):
        c.from_connect_data("t", INT32_SCHEMA, "x")
    other = struct_schema([("id", INT32_SCHEMA)], name="other")
    mine = struct_schema([("id", INT32_SCHEMA)], name="mine")
    with pytest.raises(DataError, match=r"Mismatching schema\."):
        c.from_connect_data("t", mine, Struct.of(other, [1]))
    with pytest.raises(DataError, match='requires "schema" and "payload"'):
        c.to_connect_data("t", b'{"a":1}')


def test_replace_null_with_default_off() -> None:
    s = SchemaBuilder(Type.STRING).optional().default("dflt").build()
    assert _conv().from_connect_data("t", s, None) == (
        b'{"schema":{"type":"string","optional":true,"default":"dflt"},"payload":"dflt"}'
    )
    assert _conv(**{"replace.null.with.default": "false"}).from_connect_data("t", s, None) == (
        b'{"schema":{"type":"string","optional":true,"default":"dflt"},"payload":null}'
    )


def test_round_trip_logical_types() -> None:
    s = struct_schema(
        [
            ("ts", SchemaBuilder(Type.INT64).name("org.apache.kafka.connect.data.Timestamp").version(1).build()),
            ("d", SchemaBuilder(Type.INT32).name("org.apache.kafka.connect.data.Date").version(1).build()),
        ]
    )
    v = Struct.of(s, [dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC), dt.date(2024, 1, 2)])
    c = _conv()
    data = c.from_connect_data("t", s, v)
    assert b'"payload":{"ts":1700000000123,"d":19724}' in (data or b"")
    back = c.to_connect_data("t", data)
    assert back.schema == s and back.value == v


def test_schema_json_cached_once() -> None:
    c = _conv()
    s = struct_schema([("a", INT32_SCHEMA)])
    assert c.as_json_schema(s) is c.as_json_schema(s)


def test_source_block_memo_follows_every_change() -> None:
    """Debezium source blocks remember each field's last encoding by identity: a repeated object reuses it,
    any other value (also an equal new object, None, or a required null) is encoded afresh."""
    source = struct_schema(
        [
            ("name", STRING_SCHEMA),
            ("ts_ms", INT64_SCHEMA),
            ("lsn", OPTIONAL_INT64_SCHEMA),
        ],
        name="io.debezium.connector.postgresql.Source",
    )
    c = _conv(**{"schemas.enable": "false"})
    name = "srv"
    ts = 1795303602364
    seen = [
        c.from_connect_data("t", source, Struct.of(source, v))
        for v in ([name, ts, 1], [name, ts, 2], ['sr"v', ts + 1, None], [name, ts, None], ["".join(("s", "rv")), ts, 3])
    ]
    assert seen == [
        b'{"name":"srv","ts_ms":1795303602364,"lsn":1}',
        b'{"name":"srv","ts_ms":1795303602364,"lsn":2}',
        b'{"name":"sr\\"v","ts_ms":1795303602365,"lsn":null}',
        b'{"name":"srv","ts_ms":1795303602364,"lsn":null}',
        b'{"name":"srv","ts_ms":1795303602364,"lsn":3}',
    ]
    with pytest.raises(DataError, match="null value for field that is required"):
        c.from_connect_data("t", source, Struct.of(source, [None, ts, 1]))
    assert c.from_connect_data("t", source, Struct.of(source, [name, ts, 1])) == seen[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("0.00", b'"AA=="'),
        ("-0.00", b'"AA=="'),
        ("1.27", b'"fw=="'),
        ("1.28", b'"AIA="'),
        ("-1.28", b'"gA=="'),
        ("-1.29", b'"/38="'),
        ("-12.34", b'"+y4="'),
    ],
)
def test_decimal_fast_path_equals_bigdecimal_bytes(text: str, expected: bytes) -> None:
    assert _conv(**{"schemas.enable": "false"}).from_connect_data("t", decimal_schema(2), Decimal(text)) == expected


@pytest.mark.parametrize("text", ["1.5", "1.500", "1E+3", "NaN", "Infinity", "-Infinity"])
def test_decimal_of_another_scale_or_no_bigdecimal_form_is_refused(text: str) -> None:
    with pytest.raises(DataError, match=r"mismatching scale|no BigDecimal form"):
        _conv(**{"schemas.enable": "false"}).from_connect_data("t", decimal_schema(2), Decimal(text))
