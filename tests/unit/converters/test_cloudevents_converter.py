"""CloudEventsConverter (pure behaviour). The expected bytes below are what Debezium 3.6.3's converter wrote for the
same event (tests/java_golden/test_cloudevents_golden.py compares many more cases with the real classes)."""

from __future__ import annotations

import datetime as dt
import json
import re
from decimal import Decimal
from importlib.metadata import entry_points
from typing import Any

import pytest

from connect_worker.api.converter import PendingIO
from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.record import Header
from connect_worker.api.schema import (
    INT8_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    Type,
    decimal_schema,
    struct_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from connectors.postgres.source_info import SOURCE_SCHEMA, SourceInfo
from connectors.relational.metadata_schemas import EVENT_BLOCK_SCHEMA, event_block
from converters.avro import AvroConverter
from converters.avro_apicurio import ApicurioAvroConverter
from converters.cloudevents import CloudEventsConverter
from converters.cloudevents_config import CONFIG_DEF, Origin, parse_metadata_source, resolve_metadata_sources
from converters.cloudevents_java import java_text, validate_value
from converters.cloudevents_maker import SourceLayout, ce_time, envelope_name, extension_name
from converters.cloudevents_writers import NEED_REGISTRY_URLS, registry_converter

ROW = struct_schema([("id", INT32_SCHEMA), ("name", OPTIONAL_STRING_SCHEMA)], name="srv.public.t.Value", optional=True)


def envelope(row: Schema = ROW, source: Schema = SOURCE_SCHEMA, name: str = "srv.public.t.Envelope") -> Schema:
    return struct_schema(
        [
            ("before", row),
            ("after", row),
            ("source", source),
            ("transaction", EVENT_BLOCK_SCHEMA),
            ("op", STRING_SCHEMA),
            ("ts_ms", OPTIONAL_INT64_SCHEMA),
            ("ts_us", OPTIONAL_INT64_SCHEMA),
            ("ts_ns", OPTIONAL_INT64_SCHEMA),
        ],
        name=name,
        version=2,
    )


ENV = envelope()


def source(**changes: Any) -> Struct:
    s = SourceInfo("srv", "inventory").struct(
        ts_us=1_700_000_000_123_456, schema="public", table="t", tx_id=555, lsn=1234, last_commit_lsn=1200
    )
    for k, v in changes.items():
        s = s.put(k, v)
    return s


def update(src: Struct | None = None, **changes: Any) -> Struct:
    values = {
        "before": Struct(ROW, {"id": 1, "name": "a"}),
        "after": Struct(ROW, {"id": 1, "name": "b"}),
        "source": src if src is not None else source(),
        "transaction": event_block("555:1234", 2, 1),
        "op": "u",
        "ts_ms": 1_700_000_000_200,
    }
    values.update(changes)
    return Struct(ENV, values)


def converter(**config: str) -> CloudEventsConverter:
    c = CloudEventsConverter()
    c.configure(config, False)
    return c


def convert(config: dict[str, str], value: Struct, schema: Schema = ENV, headers: tuple[Header, ...] = ()) -> Any:
    out = converter(**config).from_connect_data("srv.public.t", schema, value, headers)
    return None if out is None else json.loads(out)


HEAD = (
    '{"id":"name:srv;lsn:1234;txId:555;sequence:[\\"1200\\",\\"1234\\"]","source":"/debezium/postgresql/srv",'
    '"specversion":"1.0","type":"io.debezium.connector.postgresql.DataChangeEvent","time":"2023-11-14T22:13:20.123Z",'
    '"datacontenttype":"application/json",'
)
EXTENSIONS = (
    '"iodebeziumop":"u","iodebeziumversion":"3.6.3.Final","iodebeziumconnector":"postgresql","iodebeziumname":"srv",'
    '"iodebeziumtsms":"1700000000123","iodebeziumsnapshot":"false","iodebeziumdb":"inventory",'
    '"iodebeziumsequence":"[\\"1200\\",\\"1234\\"]","iodebeziumtsus":"1700000000123456",'
    '"iodebeziumtsns":"1700000000123456000","iodebeziumschema":"public","iodebeziumtable":"t","iodebeziumtxId":"555",'
    '"iodebeziumlsn":"1234","iodebeziumxmin":null,"iodebeziumorigin":null,"iodebeziumoriginlsn":null,'
    '"iodebeziumtxid":"555:1234","iodebeziumtxtotalorder":"2","iodebeziumtxdatacollectionorder":"1",'
)
ROW_SCHEMA_JSON = (
    '{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"},'
    '{"type":"string","optional":true,"field":"name"}],"optional":true,"name":"srv.public.t.Value","field":"%s"}'
)
DATA_WITH_SCHEMA = (
    '"data":{"schema":{"type":"struct","fields":['
    + ROW_SCHEMA_JSON % "before"
    + ","
    + ROW_SCHEMA_JSON % "after"
    + '],"optional":false,"name":"io.debezium.connector.postgresql.Data"},'
    '"payload":{"before":{"id":1,"name":"a"},"after":{"id":1,"name":"b"}}}}'
)
DATA_PLAIN = '"data":{"before":{"id":1,"name":"a"},"after":{"id":1,"name":"b"}}}'


# -- the bytes Debezium writes -----------------------------------------------------------------------------------
def test_defaults_write_debezium_s_bytes() -> None:
    out = converter().from_connect_data("srv.public.t", ENV, update())
    assert out == (HEAD + EXTENSIONS + DATA_WITH_SCHEMA).encode()


def test_data_without_schema() -> None:
    out = converter(**{"json.schemas.enable": "false"}).from_connect_data("t", ENV, update())
    assert out == (HEAD + EXTENSIONS + DATA_PLAIN).encode()


def test_without_extension_attributes() -> None:
    config = {"extension.attributes.enable": "false", "json.schemas.enable": "false"}
    assert converter(**config).from_connect_data("t", ENV, update()) == (HEAD + DATA_PLAIN).encode()


def test_json_keys_reach_both_inner_converters() -> None:
    price = Schema(Type.BYTES, name="org.apache.kafka.connect.data.Decimal", version=1, parameters={"scale": "1"})
    row = struct_schema(
        [("p", price.with_(optional=True)), ("d", OPTIONAL_STRING_SCHEMA.with_(default="x"))], optional=True
    )
    env = envelope(row)
    value = Struct(env, {"after": Struct(row, {"p": Decimal("1.5")}), "source": source(), "op": "c"})
    got = convert({"json.decimal.format": "NUMERIC", "json.schemas.enable": "false"}, value, env)
    assert got["data"] == {"before": None, "after": {"p": 1.5, "d": "x"}}
    got = convert({"json.replace.null.with.default": "false", "json.schemas.enable": "false"}, value, env)
    assert got["data"]["after"] == {"p": "Dw==", "d": None}


def test_snapshot_default_and_nulls_in_the_source_block() -> None:
    got = convert({}, update(source(snapshot=None, sequence=None, lsn=None, txId=None)))
    assert got["id"] == "name:srv;lsn:null;txId:null;sequence:null"
    assert got["iodebeziumsnapshot"] == "false"  # the field's default stands for its null, as Struct.get gives it
    assert got["iodebeziumlsn"] is None


def test_snapshot_read_has_no_transaction() -> None:
    snap = SourceInfo("srv", "inventory").snapshot_template(schema="public", table="t", tx_id=9, lsn=100)
    got = convert({}, update(snap.at(1_000, "last"), transaction=None, op="r", before=None))
    assert (got["iodebeziumop"], got["iodebeziumsnapshot"], got["time"]) == ("r", "last", "1970-01-01T00:00:00.001Z")
    assert [got[k] for k in ("iodebeziumtxid", "iodebeziumtxtotalorder", "iodebeziumtxdatacollectionorder")] == [
        None,
        None,
        None,
    ]


def test_vitess_id() -> None:
    vsrc = struct_schema(
        [(n, STRING_SCHEMA) for n in ("version", "connector", "name")]
        + [("ts_ms", INT64_SCHEMA), ("db", STRING_SCHEMA), ("keyspace", STRING_SCHEMA), ("vgtid", STRING_SCHEMA)],
        name="io.debezium.connector.vitess.Source",
    )
    env = envelope(source=vsrc)
    block = Struct(vsrc, {"version": "2.7.0.Final", "connector": "vitess", "name": "v", "ts_ms": 0, "db": "",
                          "keyspace": "ks", "vgtid": "[]"})  # fmt: skip
    got = convert({}, Struct(env, {"source": block, "op": "c"}), env)
    assert (got["id"], got["source"], got["iodebeziumkeyspace"]) == ("name:v;vgtid:[]", "/debezium/vitess/v", "ks")


# -- what is not a change event ------------------------------------------------------------------------------------
def test_records_that_are_not_envelopes_convert_to_null() -> None:
    c = converter()
    heartbeat = struct_schema([("ts_ms", INT64_SCHEMA)], name="io.debezium.connector.common.Heartbeat")
    assert c.from_connect_data("t", heartbeat, Struct(heartbeat, {"ts_ms": 1})) is None
    assert c.from_connect_data("t", ENV, None) is None
    assert c.from_connect_data("t", None, {"a": 1}) is None
    key = struct_schema([("id", INT32_SCHEMA)], name="srv.public.t.Key")
    k = CloudEventsConverter()
    k.configure({}, True)
    assert k.from_connect_data("t", key, Struct(key, {"id": 1})) is None


def test_refusals_with_debezium_s_messages() -> None:
    c = converter()
    with pytest.raises(DataError, match=r"^Mismatching schema$"):
        c.from_connect_data("t", Schema(Type.STRING, name="x.Envelope"), "s")
    with pytest.raises(DataError, match=r"^Only Struct objects supported for \[CloudEvents converter\]"):
        c.from_connect_data("t", ENV, {"op": "c"})
    with pytest.raises(DataError, match=r"without a name"):
        c.from_connect_data("t", struct_schema([("a", INT32_SCHEMA)]), Struct(struct_schema([("a", INT32_SCHEMA)])))
    no_source = struct_schema([("before", ROW), ("after", ROW), ("op", STRING_SCHEMA)], name="x.Envelope")
    with pytest.raises(DataError, match=r"^source is not a valid field name$"):
        c.from_connect_data("t", no_source, Struct(no_source, {"op": "c"}))
    with pytest.raises(DataError, match=r'^No usable CloudEvents converters for connector type "mysql"$'):
        c.from_connect_data("t", ENV, update(source(connector="mysql")))


def test_a_value_debezium_s_struct_puts_refuse_gets_their_message() -> None:
    with pytest.raises(DataError, match=r'^Invalid value: null used for required field: "id", schema type: INT32$'):
        converter().from_connect_data("t", ENV, update(after=Struct(ROW, {"name": "x"})))
    with pytest.raises(DataError, match=r'required field: "iodebeziumname", schema type: STRING$'):
        converter().from_connect_data("t", ENV, update(source(name=None)))
    # metadata.source=value alone: the id is neither generated nor in a header
    with pytest.raises(DataError, match=r'^Invalid value: null used for required field: "id", schema type: STRING$'):
        converter(**{"metadata.source": "value"}).from_connect_data("t", ENV, update())


def test_source_fields_without_an_attribute_type() -> None:
    odd = struct_schema([*((f.name, f.schema) for f in SOURCE_SCHEMA.fields), ("f", OPTIONAL_FLOAT64_SCHEMA)])
    env = envelope(source=odd)
    block = Struct(odd, {**source().as_dict(), "f": 1.5})
    with pytest.raises(DataError, match=r"^Source field of type FLOAT64 cannot be converted"):
        converter().from_connect_data("t", env, Struct(env, {"source": block, "op": "c"}))
    assert converter(**{"extension.attributes.enable": "false"}).from_connect_data(
        "t", env, Struct(env, {"source": block, "op": "c"})
    )
    tiny = struct_schema([*((f.name, f.schema) for f in SOURCE_SCHEMA.fields), ("b", INT8_SCHEMA)])
    env = envelope(source=tiny)
    with pytest.raises(DataError, match=r'class java.lang.Byte for field: "iodebeziumb"$'):
        converter().from_connect_data("t", env, Struct(env, {"source": Struct(tiny, {**source().as_dict(), "b": 1}),
                                                                 "op": "c"}))  # fmt: skip


# -- metadata from headers -----------------------------------------------------------------------------------------
def _headers(*extra: Header) -> tuple[Header, ...]:
    return (
        Header("source", SOURCE_SCHEMA, source()),
        Header("op", STRING_SCHEMA, "c"),
        Header("transaction", EVENT_BLOCK_SCHEMA, event_block("t1", 1, 1)),
        *extra,
    )


def test_header_metadata_reads_source_op_and_ids_from_headers() -> None:
    flat = Struct(ROW, {"id": 7, "name": "n"})
    hs = _headers(Header("id", STRING_SCHEMA, "the-id"), Header("type", STRING_SCHEMA, "the.type"))
    got = convert({"metadata.source": "header", "json.schemas.enable": "false"}, flat, ROW, hs)
    assert (got["id"], got["type"], got["iodebeziumop"], got["iodebeziumtxid"]) == ("the-id", "the.type", "c", "t1")
    assert got["data"] == {"id": 7, "name": "n"}  # every field of the value
    assert convert({"metadata.source": "header"}, flat, ROW, hs[1:]) is None  # no source header: no event
    with pytest.raises(DataError, match=r"^Header `id` was not provided$"):
        convert({"metadata.source": "header"}, flat, ROW, _headers())


def test_data_schema_name_from_a_header_only_when_enabled() -> None:
    hs = _headers(Header("dataSchemaName", STRING_SCHEMA, "my.Data"))
    config = {"metadata.source": "value,id:generate,type:generate,dataSchemaName:header"}
    assert convert(config, update(), ENV, hs)["data"]["schema"]["name"] == "io.debezium.connector.postgresql.Data"
    config["schema.data.name.source.header.enable"] = "true"
    assert convert(config, update(), ENV, hs)["data"]["schema"]["name"] == "my.Data"


def test_traceparent() -> None:
    tracing = {"opentelemetry.tracing.attributes.enable": "true", "extension.attributes.enable": "false"}
    hs = (Header("traceparent", STRING_SCHEMA, "00-abc-def-01"),)
    got = convert(tracing, update(), ENV, hs)
    assert list(got)[6:8] == ["traceparent", "data"] and got["traceparent"] == "00-abc-def-01"
    with pytest.raises(DataError, match=r'required field: "traceparent"'):
        convert(tracing, update(), ENV, ())
    with pytest.raises(DataError, match=r"can only be obtained from a record header"):
        convert({**tracing, "metadata.source": "value,id:generate,type:generate,traceparent:generate"}, update())


# -- configuration -------------------------------------------------------------------------------------------------
NOWHERE = "http://127.0.0.1:1"  # no registry: nothing here is asked before a conversion's pending call runs
APICURIO = {
    "avro.apicurio.registry.url": NOWHERE + "/apis/registry/v2",
    "avro.apicurio.registry.as-confluent": "true",
    "avro.apicurio.registry.use-id": "contentId",
    "avro.apicurio.registry.headers.enabled": "false",
}
AVRO_AVRO = {"serializer.type": "avro", "data.serializer.type": "avro"}


def test_avro_needs_registry_urls_and_avro_data() -> None:
    for config in (AVRO_AVRO, {"data.serializer.type": "AVRO"}, {**AVRO_AVRO, "avro.schema.registry.url": ",,"}):
        with pytest.raises(ConfigError, match="^" + re.escape(NEED_REGISTRY_URLS) + "$"):
            converter(**config)
    with pytest.raises(ConfigError, match="^" + re.escape(NEED_REGISTRY_URLS)):
        converter(**{**AVRO_AVRO, "schema.registry.url": NOWHERE})  # only avro.* keys reach the Avro converter
    with pytest.raises(ConfigError, match=r"^Cannot use 'application/json' data content type within Avro events$"):
        converter(**{"serializer.type": "avro", "avro.schema.registry.url": NOWHERE})
    with pytest.raises(ConfigError, match=r"serializer.type"):
        converter(**{"serializer.type": "xml"})


def test_the_registry_key_picks_the_avro_converter_as_debezium_does() -> None:
    conv, base = registry_converter({"schema.registry.url": f"{NOWHERE}/a,{NOWHERE}/b,"})
    assert type(conv) is AvroConverter and base == f"{NOWHERE}/a,{NOWHERE}/b"  # Java's split drops the trailing ""
    both = {k.removeprefix("avro."): v for k, v in APICURIO.items()} | {"schema.registry.url": NOWHERE}
    conv, base = registry_converter(both)
    assert type(conv) is ApicurioAvroConverter and base == NOWHERE + "/apis/registry/v2"  # Apicurio's key first
    # configured as a value converter whichever side the CloudEvents converter serves
    assert conv.subject("t", conv.plan(ROW)) == "t-value"
    key_side = CloudEventsConverter()
    key_side.configure({**AVRO_AVRO, **APICURIO}, True)
    with pytest.raises(PendingIO, match=r"^schema id for subject srv.public.t-data-value$"):
        key_side.from_connect_data("srv.public.t", ENV, update())


def test_a_pending_registry_call_goes_up_untouched() -> None:
    for config, subject in (
        ({**AVRO_AVRO, "avro.schema.registry.url": NOWHERE}, "t-data-value"),
        ({"data.serializer.type": "avro", **APICURIO}, "t-value"),
    ):
        c = converter(**config)
        with pytest.raises(PendingIO) as pending:
            c.from_connect_data("t", ENV, update())
        assert str(pending.value) == f"schema id for subject {subject}"
        with pytest.raises(PendingIO):  # nothing was kept from the attempt: the same call is pending again
            c.from_connect_data("t", ENV, update())
    # the data's problems are found before any registry call, as Debezium makes the data first
    c = converter(**AVRO_AVRO, **{"avro.schema.registry.url": NOWHERE})
    with pytest.raises(DataError, match=r"^No usable CloudEvents converters"):
        c.from_connect_data("t", ENV, update(source(connector="mysql")))


def test_the_avro_envelope_s_name() -> None:
    layout = SourceLayout(SOURCE_SCHEMA, extensions=False)
    assert envelope_name(source(), layout) == "srv.inventory.CloudEvents.Envelope"
    assert envelope_name(source(name=None, db=None), layout) == "null.null.CloudEvents.Envelope"


def test_reading_a_json_envelope_with_avro_data_gives_null_data_as_debezium() -> None:
    """Debezium hands the Avro converter the bytes of a binary JSON node only; a parsed base64 string is text."""
    c = converter(**{"data.serializer.type": "avro", **APICURIO})
    event = b'{"id":"1","source":"s","specversion":"1.0","type":"t","dataschema":"u","data":"AAAAAAEC"}'
    back = c.to_connect_data("t", event)
    assert back.schema is None and back.value["data"] is None and back.value["dataschema"] == "u"
    with pytest.raises(DataError, match=r"no data attribute"):
        c.to_connect_data("t", b'{"id":"1","source":"s","specversion":"1.0","type":"t"}')
    with pytest.raises(DataError, match=r"value=null$"):
        c.to_connect_data("t", None)
    with pytest.raises(DataError, match=r"without a schema name"):  # Debezium: a NullPointerException
        converter(**AVRO_AVRO, **APICURIO).to_connect_data("t", None)


def test_metadata_source_parsing() -> None:
    assert parse_metadata_source(["HEADER", "id:generate", "dataSchemaName: header"]) == (
        Origin.HEADER,
        {"id": Origin.GENERATE, "data_schema_name": Origin.HEADER},
    )
    default = CONFIG_DEF["metadata.source"].default
    resolved = resolve_metadata_sources(default, tracing=False, data_name_from_header=False)
    assert (resolved.global_, resolved.id, resolved.traceparent) == (Origin.VALUE, Origin.GENERATE, Origin.GENERATE)
    resolved = resolve_metadata_sources(["header"], tracing=True, data_name_from_header=False)
    assert (resolved.id, resolved.type, resolved.traceparent, resolved.data_schema_name) == (
        Origin.HEADER,
        Origin.HEADER,
        Origin.HEADER,
        Origin.GENERATE,
    )
    for items, message in [
        (["generate"], "Global metadata source can't be GENERATE"),
        (["bogus"], "Global metadata source can't be bogus"),
        (["value", "id:value"], "Field metadata source can't be VALUE"),
        (["value", "id:nowhere"], "Field source `nowhere` is not valid"),
        (["value", "op:header"], "Field `op` is not allowed to set custom source"),
        (["value", "id:"], "Field `id:` has no metadata source"),
    ]:
        with pytest.raises(ConfigError, match="^" + re.escape(message)):
            parse_metadata_source(items)


def test_plugin_registration_and_keys() -> None:
    (ep,) = [e for e in entry_points(group="connect_worker.converters") if e.name == CloudEventsConverter.class_name]
    assert ep.load() is CloudEventsConverter
    assert CloudEventsConverter().version() == "3.6.3.Final"
    assert all(k.internal for k in CONFIG_DEF.keys)  # Debezium's converter has no Connect ConfigDef to show
    with pytest.raises(ConfigError, match=r"not configured"):
        CloudEventsConverter().to_connect_data("t", b"{}")


# -- reading back ----------------------------------------------------------------------------------------------------
def test_round_trip() -> None:
    for config in ({}, {"json.schemas.enable": "false"}):
        c = converter(**config)
        back = c.to_connect_data("t", c.from_connect_data("t", ENV, update()))
        assert back.schema is None and back.value["iodebeziumlsn"] == "1234"
        data = back.value["data"]
        if config:
            assert data == {"before": {"id": 1, "name": "a"}, "after": {"id": 1, "name": "b"}}
        else:
            assert isinstance(data, Struct) and data.schema.name == "io.debezium.connector.postgresql.Data"
            assert data.get("after") == Struct(ROW, {"id": 1, "name": "b"})


def test_reading_what_is_not_a_cloud_event() -> None:
    c = converter()
    with pytest.raises(
        DataError, match=r"^A deserialized record's value is not a CloudEvent: value=\{a=1, b=\[1, x\]\}$"
    ):
        c.to_connect_data("t", b'{"a":1,"b":[1,"x"]}')
    with pytest.raises(DataError, match=r"value=null$"):
        c.to_connect_data("t", None)
    with pytest.raises(DataError, match=r"^Converting byte"):
        c.to_connect_data("t", b'{"id":')


# -- pieces ----------------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("ms", "text"),
    [  # SimpleDateFormat("yyyy-MM-dd'T'HH:mm:ss.SSSXXX") in UTC, as Java 17 prints them
        (0, "1970-01-01T00:00:00.000Z"),
        (-1, "1969-12-31T23:59:59.999Z"),
        (951_782_400_000, "2000-02-29T00:00:00.000Z"),
        (-12_219_292_800_000, "1582-10-15T00:00:00.000Z"),
        (-12_219_292_800_001, "1582-10-04T23:59:59.999Z"),  # the Julian calendar before the cutover
        (-62_135_596_800_000, "0001-01-03T00:00:00.000Z"),
        (-62_198_755_200_000, "0002-01-03T00:00:00.000Z"),  # 2 BC: the year of the era
        (253_402_300_800_000, "10000-01-01T00:00:00.000Z"),
        (9_223_372_036_854_775, "294247-01-10T04:00:54.775Z"),
        (-9_223_372_036_854_775, "290303-12-10T19:59:05.225Z"),
    ],
)
def test_ce_time(ms: int, text: str) -> None:
    assert ce_time(ms) == text


def test_extension_names_and_java_texts() -> None:
    assert [extension_name(n) for n in ("ts_ms", "txId", "origin_lsn", "é-x1")] == [
        "iodebeziumtsms",
        "iodebeziumtxId",
        "iodebeziumoriginlsn",
        "iodebeziumx1",
    ]
    assert [java_text(v) for v in (None, True, 5, 1e10, "s", [1, None], {"a": 0.5})] == [
        "null",
        "true",
        "5",
        "1.0E10",
        "s",
        "[1, null]",
        "{a=0.5}",
    ]
    row = struct_schema(
        [("d", decimal_schema(2, optional=True)), ("n", OPTIONAL_STRING_SCHEMA), ("b", timestamp_schema(optional=True))]
    )
    when = dt.datetime(2024, 2, 29, 12, 0, 1, 5000)
    text = java_text(Struct.of(row, (Decimal("12.30"), None, when)))  # Struct.toString: non-null values only
    assert text == "Struct{d=12.30,b=Thu Feb 29 12:00:01 UTC 2024}"
    blob = struct_schema([("d", OPTIONAL_BYTES_SCHEMA)])
    assert re.fullmatch(r"Struct\{d=\[B@[0-9a-f]+\}", java_text(Struct.of(blob, (b"x",))))


def test_validate_value_follows_connect_schema() -> None:
    validate_value(ROW, Struct(ROW, {"id": 1}), "value")
    with pytest.raises(DataError, match=r"^Struct schemas do not match.$"):
        validate_value(ROW, Struct(ROW.with_(name="other"), {"id": 1}), "value")
    with pytest.raises(
        DataError, match=r'^Invalid Java object for schema with type INT32: class java.lang.String for field: "x"$'
    ):
        validate_value(INT32_SCHEMA, "1", 'field: "x"')
    with pytest.raises(DataError, match=r"^Invalid Java object for schema with type INT32: class java.lang.Boolean"):
        validate_value(INT32_SCHEMA, True, "value")
