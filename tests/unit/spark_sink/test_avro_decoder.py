"""The Avro decoder against its JSON twin: each record is written by JsonConverter (schemas on), read back into a
Connect record, and written again by the worker's AvroConverter (converters/avro.py) into an in-memory registry;
the sink must decode both into the same change event (schema, sink types, values, position). Plus the Avro
schema mapping (AvroData.toConnectSchema rules) and the failure paths."""

from __future__ import annotations

import base64
import io
import json
import math
import struct
from decimal import Decimal
from typing import Any

import fastavro
import pytest

from converters.avro import AvroConverter, convert_blocking
from converters.json import JsonConverter
from spark_sink.connect_schema import ConnectSchema, SchemaError, parse_schema
from spark_sink.decoding import ChangeEvent, DecodeFailure, RawRecord, Skipped, TxMarker, decoder_for
from spark_sink.decoding.avro_decoder import AvroDecoder, WriterSchema
from spark_sink.decoding.avro_schema import to_connect_schema
from spark_sink.decoding.schema_registry import RegistryClient, RegistryError, UnknownSchema, split_user_info
from spark_sink.types.model import BINARY, BYTE, DOUBLE, FLOAT, INT, LONG, SHORT, STRING, DecimalT, MapT, StructT
from tests.integration.spark_sink.debezium_records import (
    PLACEHOLDER,
    Table,
    decimal_b64,
    f,
    tx_record,
)

PH_B64 = base64.b64encode(PLACEHOLDER.encode()).decode()


class MemoryRegistry:
    """The registry both sides share: the worker's converter registers (as its client would), the sink reads by
    id (`schema_text`, the decoder's SchemaSource). Counts the sink's reads."""

    def __init__(self) -> None:
        self.texts: list[str] = []
        self.reads = 0

    # the worker's SchemaRegistryClient API, as AvroConverter calls it
    def register(self, subject: str, text: str) -> int:
        if text not in self.texts:
            self.texts.append(text)
        return self.texts.index(text) + 1

    def lookup(self, subject: str, text: str) -> tuple[int, int]:
        return self.register(subject, text), 1

    def schema_by_id(self, schema_id: int) -> str:
        return self.schema_text(schema_id)

    # the sink's SchemaSource
    def schema_text(self, schema_id: int) -> str:
        self.reads += 1
        if not 1 <= schema_id <= len(self.texts):
            raise UnknownSchema(f"schema id {schema_id} is not in the registry")
        return self.texts[schema_id - 1]


class Twin:
    """JSON record bytes → a Connect record → that record as the worker's JsonConverter and AvroConverter write it
    (JsonConverter applies field defaults to nulls, as AvroData does: the hand-written JSON may not)."""

    def __init__(self) -> None:
        self.registry = MemoryRegistry()
        self.json = {side: JsonConverter() for side in (True, False)}
        self.avro = {side: AvroConverter() for side in (True, False)}
        for side in (True, False):
            self.json[side].configure({"schemas.enable": "true"}, side)
            self.avro[side].configure({"schema.registry.url": "http://registry.invalid"}, side)
            self.avro[side]._client = self.registry  # type: ignore[assignment]

    def convert(self, topic: str, data: bytes | None, is_key: bool, avro: bool = True) -> bytes | None:
        sv = self.json[is_key].to_connect_data(topic, data)
        if not avro:
            return self.json[is_key].from_connect_data(topic, sv.schema, sv.value)
        return convert_blocking(self.avro[is_key], topic, sv.schema, sv.value)

    def record(self, raw: RawRecord, avro: bool = True) -> RawRecord:
        return RawRecord(
            raw.topic,
            raw.partition,
            raw.offset,
            self.convert(raw.topic, raw.key, True, avro),
            self.convert(raw.topic, raw.value, False, avro),
        )

    def pair(self, raw: RawRecord) -> tuple[Any, Any]:
        """The record decoded from the worker's JSON and from its Avro."""
        return json_decode(self.record(raw, avro=False)), avro_decoder(self).decode(self.record(raw))


@pytest.fixture
def twin() -> Twin:
    return Twin()


def json_decode(raw: RawRecord) -> Any:
    return decoder_for("json", schemas="true", placeholder=PLACEHOLDER).decode(raw)


def avro_decoder(twin: Twin) -> AvroDecoder:
    decoder = decoder_for("avro", placeholder=PLACEHOLDER, registry=twin.registry)
    assert isinstance(decoder, AvroDecoder)
    return decoder


def compiled(decoder: AvroDecoder, frame: bytes | None) -> WriterSchema:
    """The writer schema a framed record names."""
    assert frame is not None
    writer = decoder.writer(int.from_bytes(frame[1:5], "big"))
    assert not isinstance(writer, str), writer
    return writer


def as_float32(v: Any) -> Any:
    return struct.unpack("f", struct.pack("f", v))[0]


def event_view(event: Any) -> Any:
    """What the sink takes from an event (NaN made comparable). A FloatType column holds 32 bits: JSON has the
    shortest decimal text of a float (1.1), Avro the float itself (1.100000023841858); Spark stores both as 1.1f."""
    if not isinstance(event, ChangeEvent):
        return event
    types = dict(event.schema.columns)
    row = None
    if event.row is not None:
        row = {
            k: "NaN" if v != v else as_float32(v) if v is not None and types.get(k) == FLOAT else v
            for k, v in event.row.items()
        }
    return (
        event.op,
        event.key,
        row,
        event.schema,
        event.position,
        event.unavailable,
        event.source_ts_ms,
        event.source_table,
        event.tx_id,
        event.typed,
    )


DBZ = "io.debezium"
WIDE_FIELDS = [
    f("id", "int32", False),
    f("small", "int16"),
    f("tiny", "int8"),
    f("big", "int64"),
    f("real", "float"),
    f("dbl", "double"),
    f("flag", "boolean"),
    f("txt", "string"),
    f("bin", "bytes"),
    f(
        "price",
        "bytes",
        True,
        "org.apache.kafka.connect.data.Decimal",
        parameters={"scale": "2", "connect.decimal.precision": "10"},
    ),
    f("money", "bytes", True, "org.apache.kafka.connect.data.Decimal", parameters={"scale": "2"}),
    f(
        "amount",
        "struct",
        True,
        f"{DBZ}.data.VariableScaleDecimal",
        fields=[f("scale", "int32", False), f("value", "bytes", False)],
    ),
    f("born", "int32", True, f"{DBZ}.time.Date"),
    f("kdate", "int32", True, "org.apache.kafka.connect.data.Date"),
    f("ktime", "int32", True, "org.apache.kafka.connect.data.Time"),
    f("kts", "int64", True, "org.apache.kafka.connect.data.Timestamp"),
    f("local_ts", "int64", True, f"{DBZ}.time.MicroTimestamp"),
    f("seen", "string", True, f"{DBZ}.time.ZonedTimestamp"),
    f("at", "int64", True, f"{DBZ}.time.MicroTime"),
    f("span", "int64", True, f"{DBZ}.time.MicroDuration"),
    f("doc", "string", True, f"{DBZ}.data.Json"),
    f("mood", "string", True, f"{DBZ}.data.Enum", parameters={"allowed": "happy,sad"}),
    f("tags", "array", True, items={"type": "string", "optional": True}),
    f("blobs", "array", True, items={"type": "bytes", "optional": True}),
    f(
        "prices",
        "array",
        True,
        items={
            "type": "bytes",
            "optional": True,
            "name": "org.apache.kafka.connect.data.Decimal",
            "version": 1,
            "parameters": {"scale": "2", "connect.decimal.precision": "10"},
        },
    ),
    f("attrs", "map", True, keys={"type": "string", "optional": False}, values={"type": "string", "optional": True}),
    f("counts", "map", True, keys={"type": "int32", "optional": False}, values={"type": "int64", "optional": True}),
    f(
        "point",
        "struct",
        True,
        f"{DBZ}.data.geometry.Point",
        fields=[f("x", "double", False), f("y", "double", False), f("wkb", "bytes"), f("srid", "int32")],
    ),
    f("defaulted", "int32", True, default=5),
]
WIDE = Table("dbz", "public", "wide", WIDE_FIELDS, ["id"])
FULL_ROW: dict[str, Any] = {
    "id": 1,
    "small": -32768,
    "tiny": 127,
    "big": -(2**63),
    "real": 1.1,
    "dbl": 1.5e300,
    "flag": True,
    "txt": "héllo 😀",
    "bin": base64.b64encode(b"\x00\x01\xff").decode(),
    "price": decimal_b64(Decimal("-5.50"), 2),
    "money": decimal_b64(Decimal("1234.56"), 2),
    "amount": {"scale": 7, "value": base64.b64encode(b"\x01").decode()},
    "born": -735160,
    "kdate": 9,
    "ktime": 36930123,
    "kts": 1529507596945,
    "local_ts": 1529507596945104,
    "seen": "2018-06-20T13:13:16.945104Z",
    "at": 86_400_000_000,
    "span": -79_200_000_000,
    "doc": '{"k": [1, "x"]}',
    "mood": "happy",
    "tags": ["a", None, ""],
    "blobs": [base64.b64encode(b"\x02").decode(), None],
    "prices": [decimal_b64(Decimal("1.50"), 2), None],
    "attrs": {"a": "1", "b c": None},
    "counts": [[1, 10], [2, None]],
    "point": {"x": 1.0, "y": -2.5, "wkb": base64.b64encode(b"\x01\x01").decode(), "srid": None},
    "defaulted": 7,
}
EMPTY_ROW = {"id": 2, **dict.fromkeys(list(FULL_ROW)[1:])}


@pytest.mark.parametrize(
    ("op", "after", "before"),
    [("r", FULL_ROW, None), ("c", EMPTY_ROW, None), ("u", FULL_ROW, EMPTY_ROW), ("d", None, FULL_ROW)],
)
def test_every_type_decodes_as_its_json_twin(twin: Twin, op: str, after: Any, before: Any) -> None:
    row = after or before
    raw = RawRecord(WIDE.topic, 0, 7, WIDE.key_bytes(row), WIDE.value_bytes(op, 5000, after, before, total_order=3))
    avro = twin.record(raw)
    assert avro.value is not None and avro.value[0] == 0 and avro.key is not None and avro.key[0] == 0
    want, got = twin.pair(raw)
    assert isinstance(want, ChangeEvent), want
    assert event_view(got) == event_view(want)


def test_wide_row_sink_types_and_values(twin: Twin) -> None:
    raw = RawRecord(WIDE.topic, 0, 0, WIDE.key_bytes(FULL_ROW), WIDE.value_bytes("c", 10, FULL_ROW))
    event = avro_decoder(twin).decode(twin.record(raw))
    assert isinstance(event, ChangeEvent) and event.row is not None
    types = dict(event.schema.columns)
    assert types["small"] == SHORT and types["tiny"] == BYTE and types["real"] == FLOAT and types["dbl"] == DOUBLE
    assert types["bin"] == BINARY and types["price"] == DecimalT(10, 2) and types["money"] == DecimalT(38, 2)
    assert types["counts"] == MapT(INT, LONG) and types["attrs"] == MapT(STRING, STRING)
    assert isinstance(types["point"], StructT) and types["mood"] == STRING
    assert event.row["bin"] == b"\x00\x01\xff" and event.row["price"] == Decimal("-5.50")
    assert event.row["counts"] == {1: 10, 2: None} and event.row["attrs"] == {"a": "1", "b c": None}
    assert event.row["prices"] == [Decimal("1.50"), None] and event.row["blobs"] == [b"\x02", None]
    assert math.isclose(event.row["real"], 1.1, rel_tol=1e-7)


def test_special_floats_match(twin: Twin) -> None:
    row = dict(EMPTY_ROW, real=float("-inf"), dbl=float("nan"))
    # JsonConverter writes non-finite floats as strings it cannot read back: build the Avro side from Connect data
    raw = RawRecord(WIDE.topic, 0, 0, WIDE.key_bytes(row), WIDE.value_bytes("c", 10, dict(row, real=None, dbl=None)))
    avro = twin.record(raw)
    assert avro.value is not None
    decoder = avro_decoder(twin)
    parsed = compiled(decoder, avro.value).parsed
    datum: Any = fastavro.schemaless_reader(io.BytesIO(avro.value[5:]), parsed, None)
    datum["after"].update(real=float("-inf"), dbl=float("nan"))
    out = io.BytesIO()
    fastavro.schemaless_writer(out, parsed, datum)
    event = decoder.decode(RawRecord(WIDE.topic, 0, 0, avro.key, avro.value[:5] + out.getvalue()))
    assert isinstance(event, ChangeEvent) and event.row is not None
    assert event.row["real"] == float("-inf") and math.isnan(event.row["dbl"])


def test_toast_placeholder_in_text_bytes_and_arrays(twin: Twin) -> None:
    after = dict(EMPTY_ROW, id=3, txt=PLACEHOLDER, bin=PH_B64, tags=[PLACEHOLDER], blobs=[PH_B64], big=4)
    raw = RawRecord(WIDE.topic, 0, 0, WIDE.key_bytes(after), WIDE.value_bytes("u", 10, after))
    want, got = twin.pair(raw)
    assert isinstance(got, ChangeEvent) and got.unavailable == {"txt", "bin", "tags", "blobs"}
    assert event_view(got) == event_view(want)


def test_tombstone_truncate_transactions_and_heartbeats(twin: Twin) -> None:
    decoder = avro_decoder(twin)
    tomb = twin.record(RawRecord(WIDE.topic, 0, 1, WIDE.key_bytes(FULL_ROW), None))
    assert tomb.value is None and isinstance(decoder.decode(tomb), Skipped)
    truncate = twin.record(RawRecord(WIDE.topic, 0, 2, None, WIDE.value_bytes("t", 11)))
    event = decoder.decode(truncate)
    assert isinstance(event, ChangeEvent) and event.op == "t" and event.key is None and event.row is None
    key, value = tx_record("END", 730, 22183064, {"public.wide": 3})
    marker = decoder.decode(twin.record(RawRecord("dbz.transaction", 0, 0, key, value)))
    assert isinstance(marker, TxMarker) and marker.status == "END" and marker.tx_id == "730"
    assert marker.data_collections == {"public.wide": 3} and marker.commit_lsn == 22183064 and marker.event_count == 3
    beat_schema = {
        "type": "struct",
        "fields": [f("ts_ms", "int64", False)],
        "optional": False,
        "name": "io.debezium.connector.common.Heartbeat",
    }
    beat = json.dumps({"schema": beat_schema, "payload": {"ts_ms": 1}}).encode()
    skipped = decoder.decode(twin.record(RawRecord("__debezium-heartbeat.dbz", 0, 0, None, beat)))
    assert isinstance(skipped, Skipped) and skipped.reason == "heartbeat"


def test_one_registry_read_per_schema_id(twin: Twin) -> None:
    decoder = avro_decoder(twin)
    records = [
        twin.record(
            RawRecord(WIDE.topic, 0, i, WIDE.key_bytes({"id": i}), WIDE.value_bytes("c", i, dict(EMPTY_ROW, id=i)))
        )
        for i in range(50)
    ]
    assert all(isinstance(decoder.decode(r), ChangeEvent) for r in records)
    assert twin.registry.reads == 2  # the key schema and the envelope schema


def test_bad_frames_unknown_ids_and_bad_bodies_fail_with_a_reason(twin: Twin) -> None:
    decoder = avro_decoder(twin)
    good = twin.record(RawRecord(WIDE.topic, 0, 0, WIDE.key_bytes(FULL_ROW), WIDE.value_bytes("c", 1, FULL_ROW)))
    assert good.key is not None and good.value is not None
    cases = [
        (RawRecord("t", 0, 0, good.key, b'{"schema":null}'), "value is not Confluent Avro (magic byte 7b"),
        (RawRecord("t", 0, 0, good.key, b"\x00\x00\x01"), "3 bytes"),
        (RawRecord("t", 0, 0, b"plain", good.value), "key is not Confluent Avro"),
        (
            RawRecord("t", 0, 0, good.key, b"\x00\x00\x00\x03\xe7" + good.value[5:]),
            "schema id 999 is not in the registry",
        ),
        (RawRecord("t", 0, 0, good.key, good.value[:12]), "does not read with its schema id"),
    ]
    for raw, reason in cases:
        result = decoder.decode(raw)
        assert isinstance(result, DecodeFailure) and reason in result.reason, (reason, result)
    reads = twin.registry.reads
    assert isinstance(decoder.decode(cases[3][0]), DecodeFailure)
    assert twin.registry.reads == reads  # an unknown id is asked once too


def test_an_unreachable_registry_stops_the_batch_instead_of_dead_lettering() -> None:
    decoder = decoder_for(
        "avro", placeholder=PLACEHOLDER, registry=RegistryClient(("http://127.0.0.1:9",), timeout_s=2)
    )
    with pytest.raises(RegistryError, match="unreachable"):
        decoder.decode(RawRecord("t", 0, 0, None, b"\x00\x00\x00\x00\x01\x02"))


def test_avro_needs_a_registry() -> None:
    with pytest.raises(ValueError, match="schema registry"):
        decoder_for("avro", placeholder=PLACEHOLDER)


# -- the schema mapping -------------------------------------------------------------------------------------------
def test_json_and_avro_connect_schemas_agree_on_names_and_parameters(twin: Twin) -> None:
    raw = RawRecord(WIDE.topic, 0, 0, WIDE.key_bytes(FULL_ROW), WIDE.value_bytes("c", 1, FULL_ROW))
    avro = twin.record(raw)
    got = compiled(avro_decoder(twin), avro.value).connect
    want = parse_schema(json.loads(raw.value or b"")["schema"])

    def view(s: ConnectSchema) -> Any:  # names, versions and Connect parameters (the Avro-only doc/default flags aside)
        params = tuple((k, v) for k, v in s.params if not k.startswith("io.confluent.connect.avro."))
        nested = tuple(view(x) for x in (s.items, s.keys, s.values) if x is not None)
        return (s.type, s.name, s.version, params, tuple((f.name, view(f.schema)) for f in s.fields), nested)

    assert view(got) == view(want)


def test_schema_mapping_rules() -> None:
    record = {
        "type": "record",
        "name": "ConnectDefault",
        "namespace": "io.confluent.connect.avro",
        "fields": [
            {"name": "d", "type": {"type": "bytes", "logicalType": "decimal", "precision": 64, "scale": 3}},
            {"name": "p", "type": {"type": "bytes", "logicalType": "decimal", "precision": 9, "scale": 1}},
            {"name": "day", "type": ["null", {"type": "int", "logicalType": "date"}], "default": None},
            {"name": "ms", "type": {"type": "long", "logicalType": "timestamp-millis"}},
            {"name": "us", "type": {"type": "long", "logicalType": "timestamp-micros"}},
            {"name": "s", "type": {"type": "int", "connect.type": "int16"}},
            {"name": "e", "type": {"type": "enum", "name": "Mood", "namespace": "x", "symbols": ["a", "b"]}},
            {"name": "fx", "type": {"type": "fixed", "name": "F4", "size": 4}},
            {"name": "m", "type": {"type": "map", "values": "long"}},
            {"name": "u", "type": ["null", "string", "long", {"type": "record", "name": "R", "fields": []}]},
            {"name": "again", "type": ["R", "null"], "default": {}},
        ],
    }
    s = to_connect_schema(record)
    assert s.type == "struct" and s.name is None and not s.optional
    fields = {fl.name: fl.schema for fl in s.fields}
    assert fields["d"].name == "org.apache.kafka.connect.data.Decimal" and fields["d"].parameters == {"scale": "3"}
    assert fields["p"].parameters == {"scale": "1", "connect.decimal.precision": "9"}
    assert fields["day"].optional and fields["day"].name == "org.apache.kafka.connect.data.Date"
    assert fields["ms"].name == "org.apache.kafka.connect.data.Timestamp" and fields["us"].name is None
    assert fields["s"].type == "int16"
    assert fields["e"].type == "string" and fields["e"].parameters["io.confluent.connect.avro.Enum"] == "x.Mood"
    assert fields["fx"].type == "bytes" and fields["fx"].parameters == {"connect.fixed.size": "4"}
    assert fields["fx"].name == "io.confluent.connect.avro.F4"
    assert fields["m"].keys == ConnectSchema("string", optional=False) and fields["m"].values.type == "int64"  # type: ignore[union-attr]
    u = fields["u"]
    assert u.name == "io.confluent.connect.avro.Union" and u.optional
    assert [fl.name for fl in u.fields] == ["string", "long", "R"]
    assert fields["again"].type == "struct" and fields["again"].name == "io.confluent.connect.avro.R"
    assert fields["again"].parameters == {"io.confluent.connect.avro.field.default": "true"}


def test_general_unions_decode_to_the_connect_union_struct() -> None:
    member = {"type": "record", "name": "R", "fields": [{"name": "i", "type": "int"}]}
    other = {"type": "record", "name": "Q", "fields": [{"name": "j", "type": "int"}]}
    avro = {
        "type": "record",
        "name": "Row",
        "fields": [
            {"name": "id", "type": "int"},
            {"name": "u", "type": ["null", "string", "long", member, other]},
        ],
    }
    text = json.dumps(avro)
    registry = {1: text}

    class Source:
        def schema_text(self, schema_id: int) -> str:
            return registry[schema_id]

    decoder = decoder_for("avro", placeholder=PLACEHOLDER, registry=Source())
    assert isinstance(decoder, AvroDecoder)
    writer = decoder.writer(1)
    assert not isinstance(writer, str) and writer.shape is not None
    parsed = fastavro.parse_schema(avro)
    for datum, want in [
        ("s", {"string": "s"}),
        (5, {"long": 5}),
        (("R", {"i": 1}), {"R": {"i": 1}}),
        (("Q", {"j": 2}), {"Q": {"j": 2}}),
        (None, None),
    ]:
        out = io.BytesIO()
        fastavro.schemaless_writer(out, parsed, {"id": 1, "u": datum})
        got = fastavro.schemaless_reader(
            io.BytesIO(out.getvalue()), writer.parsed, None, return_named_type=True, return_named_type_override=True
        )
        assert writer.shape(got)["u"] == want


def test_recursive_and_invalid_schemas_are_refused() -> None:
    recursive = {"type": "record", "name": "N", "fields": [{"name": "next", "type": ["null", "N"]}]}
    with pytest.raises(SchemaError, match="recursive"):
        to_connect_schema(recursive)
    with pytest.raises(SchemaError, match="unknown Avro type"):
        to_connect_schema({"type": "record", "name": "A", "fields": [{"name": "x", "type": "Nope"}]})
    with pytest.raises(SchemaError, match="null"):
        to_connect_schema("null")


def test_registry_urls_carry_user_info() -> None:
    assert split_user_info("http://u%40x:p%3Aw@host:8081/apis/ccompat/v7") == (
        "http://host:8081/apis/ccompat/v7",
        "u@x:p:w",
    )
    client = RegistryClient.from_config(" http://a:b@h1/x/ , http://h2 ")
    assert client.urls == ("http://h1/x", "http://h2") and client.user_info == "a:b"
    assert RegistryClient.from_config("http://a:b@h1", "c:d").user_info == "c:d"
