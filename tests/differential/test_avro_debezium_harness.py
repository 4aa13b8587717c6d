"""Smoke test of the Avro side of the differential harness: the REAL Debezium 3.6.3 on Kafka Connect 4.3.1, with
Apicurio Registry's Java AvroConverter 2.6.13 as key and value converter (avro_support.py) against the devstack's
Apicurio Registry 3.3.3, on a table of common column types. Only Debezium runs here (no worker of this project).

It checks what a byte-for-byte comparison with this project's Avro converter relies on: Confluent framing (magic 0,
a 4-byte big-endian id, the Avro body), ids that the registry's Confluent API resolves and that are content ids
(not Apicurio's global ids), TopicNameStrategy subjects, every key and value decoding with the registry's writer
schema, and the exact schema text the converter registered (attribute order included: a different text would be a
different content, hence a different id).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import psycopg
import pytest

from tests.differential.avro_support import (
    HEADER_SIZE,
    AvroRecord,
    SchemaRegistry,
    apicurio_avro_converter_config,
    read_avro_topic,
)
from tests.differential.debezium import (
    ConnectDebezium,
    collect_records,
    delete_topics,
    drop_replication_slot,
    pg_dsn,
    postgres_connector_config,
    scratch_database,
    unique_token,
)

pytestmark = [pytest.mark.integration, pytest.mark.debezium, pytest.mark.timeout(900)]

TABLE = "avro_types"
DDL = f"""CREATE TABLE public.{TABLE} (
    id int PRIMARY KEY, big bigint NOT NULL, txt text, amount numeric(10,2), ts timestamp, tstz timestamptz,
    d date, flag boolean, raw bytea, u uuid, doc jsonb, note text)"""
ROW_1 = (
    f"INSERT INTO public.{TABLE} VALUES (1, 9000000000, 'héllo', 12.34, '2024-01-02 03:04:05.123456', "
    "'2024-01-02 03:04:05+02', '2024-02-29', true, '\\x00ff', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', "
    """'{"a": 1}', NULL)"""
)
ROW_2 = f"INSERT INTO public.{TABLE} (id, big) VALUES (2, -1)"  # every nullable column NULL
STREAM = [
    f"INSERT INTO public.{TABLE} VALUES (3, 0, '', -0.01, '1969-12-31 23:59:59.999999', '1970-01-01 00:00:00Z', "
    "'1969-12-31', false, '', '00000000-0000-0000-0000-000000000000', '[]', 'n')",
    f"UPDATE public.{TABLE} SET note = 'x' WHERE id = 1",
    f"DELETE FROM public.{TABLE} WHERE id = 2",
]
EXPECTED_OPS = ["r", "r", "c", "u", "d", None]  # None: the tombstone after the delete

AFTER_1 = {
    "id": 1,
    "big": 9000000000,
    "txt": "héllo",
    "amount": b"\x04\xd2",  # 1234 unscaled, scale 2: decode() gives the raw forms of logical types
    "ts": 1704164645123456,  # io.debezium.time.MicroTimestamp
    "tstz": "2024-01-02T01:04:05.000000Z",  # io.debezium.time.ZonedTimestamp
    "d": 19782,  # io.debezium.time.Date: days since the epoch
    "flag": True,
    "raw": b"\x00\xff",
    "u": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
    "doc": '{"a": 1}',
    "note": None,
}
AFTER_2 = {"id": 2, "big": -1} | {k: None for k in AFTER_1 if k not in ("id", "big")}
AFTER_3 = {
    "id": 3,
    "big": 0,
    "txt": "",
    "amount": b"\xff",  # -1 unscaled
    "ts": -1,
    "tstz": "1970-01-01T00:00:00.000000Z",
    "d": -1,
    "flag": False,
    "raw": b"",
    "u": "00000000-0000-0000-0000-000000000000",
    "doc": "[]",
    "note": "n",
}

# The schemas Apicurio's converter registers, as the registry returns them; PFX is the topic prefix. Written out
# with whitespace for reading: the registered text is the same JSON without any whitespace, in this key order
# (Avro's Schema.toString of what Apicurio's AvroData made of Debezium's Connect schemas).
KEY_SCHEMA = """{"type": "record", "name": "Key", "namespace": "PFX.public.avro_types",
  "fields": [{"name": "id", "type": "int"}], "connect.name": "PFX.public.avro_types.Key"}"""
VALUE_SCHEMA = """{"type": "record", "name": "Envelope", "namespace": "PFX.public.avro_types", "fields": [
  {"name": "before", "type": ["null", {"type": "record", "name": "Value", "fields": [
    {"name": "id", "type": "int"},
    {"name": "big", "type": "long"},
    {"name": "txt", "type": ["null", "string"], "default": null},
    {"name": "amount", "type": ["null", {"type": "bytes", "scale": 2, "precision": 10, "connect.version": 1,
      "connect.parameters": {"scale": "2", "connect.decimal.precision": "10"},
      "connect.name": "org.apache.kafka.connect.data.Decimal", "logicalType": "decimal"}], "default": null},
    {"name": "ts", "type": ["null", {"type": "long", "connect.version": 1,
      "connect.name": "io.debezium.time.MicroTimestamp"}], "default": null},
    {"name": "tstz", "type": ["null", {"type": "string", "connect.version": 1,
      "connect.name": "io.debezium.time.ZonedTimestamp"}], "default": null},
    {"name": "d", "type": ["null", {"type": "int", "connect.version": 1,
      "connect.name": "io.debezium.time.Date"}], "default": null},
    {"name": "flag", "type": ["null", "boolean"], "default": null},
    {"name": "raw", "type": ["null", "bytes"], "default": null},
    {"name": "u", "type": ["null", {"type": "string", "connect.version": 1,
      "connect.name": "io.debezium.data.Uuid"}], "default": null},
    {"name": "doc", "type": ["null", {"type": "string", "connect.version": 1,
      "connect.name": "io.debezium.data.Json"}], "default": null},
    {"name": "note", "type": ["null", "string"], "default": null}
  ], "connect.name": "PFX.public.avro_types.Value"}], "default": null},
  {"name": "after", "type": ["null", "Value"], "default": null},
  {"name": "source", "type": {"type": "record", "name": "Source", "namespace": "io.debezium.connector.postgresql",
   "fields": [
    {"name": "version", "type": "string"},
    {"name": "connector", "type": "string"},
    {"name": "name", "type": "string"},
    {"name": "ts_ms", "type": "long"},
    {"name": "snapshot", "type": [{"type": "string", "connect.version": 1, "connect.parameters": {
      "allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"},
      "connect.default": "false", "connect.name": "io.debezium.data.Enum"}, "null"], "default": "false"},
    {"name": "db", "type": "string"},
    {"name": "sequence", "type": ["null", "string"], "default": null},
    {"name": "ts_us", "type": ["null", "long"], "default": null},
    {"name": "ts_ns", "type": ["null", "long"], "default": null},
    {"name": "schema", "type": "string"},
    {"name": "table", "type": "string"},
    {"name": "txId", "type": ["null", "long"], "default": null},
    {"name": "lsn", "type": ["null", "long"], "default": null},
    {"name": "xmin", "type": ["null", "long"], "default": null},
    {"name": "origin", "type": ["null", "string"], "default": null},
    {"name": "origin_lsn", "type": ["null", "long"], "default": null}
  ], "connect.version": 1, "connect.name": "io.debezium.connector.postgresql.Source"}},
  {"name": "transaction", "type": ["null", {"type": "record", "name": "block", "namespace": "event", "fields": [
    {"name": "id", "type": "string"}, {"name": "total_order", "type": "long"},
    {"name": "data_collection_order", "type": "long"}], "connect.version": 1, "connect.name": "event.block"}],
   "default": null},
  {"name": "op", "type": "string"},
  {"name": "ts_ms", "type": ["null", "long"], "default": null},
  {"name": "ts_us", "type": ["null", "long"], "default": null},
  {"name": "ts_ns", "type": ["null", "long"], "default": null}
], "connect.version": 2, "connect.name": "PFX.public.avro_types.Envelope"}"""


def _registered_text(pretty: str, prefix: str) -> str:
    """The registry's text for one of the schemas above: compact JSON, key order kept."""
    return json.dumps(json.loads(pretty.replace("PFX", prefix)), separators=(",", ":"), ensure_ascii=False)


@dataclass
class AvroRun:
    prefix: str
    topic: str
    records: list[AvroRecord]
    registry: SchemaRegistry

    @property
    def subjects(self) -> list[str]:
        return [f"{self.topic}-key", f"{self.topic}-value"]


def _diverge_ids(registry: SchemaRegistry, prefix: str) -> list[str]:
    """Register the key schema the converter is about to register under a subject of its own first. Apicurio
    Registry 3.3.3 draws a content id and a global id on every registration (deduplicated content included), so a
    schema new to the registry usually gets a content id equal to the global id of its first version; only a
    schema whose content is already there shows which of the two ids the converter writes: the converter's
    version of it is then a new global id of the old content. Returns the subject."""
    subject = f"{prefix}-pad"
    registry.register(subject, _registered_text(KEY_SCHEMA, prefix))
    return [subject]


def _run(connect: ConnectDebezium, registry: SchemaRegistry, prefix: str, pg_port: int) -> AvroRun:
    bootstrap = connect.kafka_bootstrap
    topic = f"{prefix}.public.{TABLE}"
    with scratch_database(prefix, port=pg_port) as dsn:
        with psycopg.connect(dsn) as conn:
            for statement in (DDL, ROW_1, ROW_2):
                conn.execute(statement)
            conn.commit()
        config = postgres_connector_config(
            prefix=prefix,
            dbname=prefix,
            slot=prefix,
            publication=prefix,
            tables=[f"public.{TABLE}"],
            pg_port=pg_port,
            **apicurio_avro_converter_config(registry.root),
        )
        connect.create_connector(prefix, config)
        try:
            connect.wait_running(prefix)
            collect_records(bootstrap, {topic: 2}, timeout=120, settle=0)
            with psycopg.connect(dsn) as conn:
                for statement in STREAM:
                    with conn.transaction():
                        conn.execute(statement)
            collect_records(bootstrap, {topic: len(EXPECTED_OPS)}, timeout=120)
            return AvroRun(prefix, topic, read_avro_topic(bootstrap, topic, registry), registry)
        finally:
            connect.delete_connector(prefix)
            drop_replication_slot(pg_dsn("postgres", port=pg_port), prefix)


@pytest.fixture(scope="module")
def avro_run(debezium_connect: ConnectDebezium, pg_port: int) -> Iterator[AvroRun]:
    registry = SchemaRegistry()
    try:
        registry.subjects()
    except (OSError, LookupError) as e:
        pytest.fail(f"the schema registry does not answer at {registry.ccompat} (make up starts it): {e}")
    prefix = unique_token("avro")
    debezium_connect.note_token(prefix)
    subjects = [f"{prefix}.public.{TABLE}-key", f"{prefix}.public.{TABLE}-value"]
    try:
        subjects += _diverge_ids(registry, prefix)
        yield _run(debezium_connect, registry, prefix, pg_port)
    finally:
        delete_topics(debezium_connect.kafka_bootstrap, [f"{prefix}.public.{TABLE}"])
        registry.delete_subjects(subjects)


def _value(rec: AvroRecord) -> Any:
    return None if rec.value is None else rec.value.decode()


def test_every_record_is_confluent_framed_with_a_registered_id(avro_run: AvroRun) -> None:
    assert [None if (v := _value(r)) is None else v["op"] for r in avro_run.records] == EXPECTED_OPS
    for rec in avro_run.records:
        assert rec.record.key is not None and rec.key is not None
        for data, part in ((rec.record.key, rec.key), (rec.record.value, rec.value)):
            if data is None:
                continue
            assert part is not None
            assert data[0] == 0
            assert int.from_bytes(data[1:5], "big") == part.schema_id
            assert data[HEADER_SIZE:] == part.body
        # ids in the payload, none in headers: only Debezium's own context headers
        assert all(name.startswith("__debezium.") for name, _ in rec.record.headers), rec.record.headers
    # a key of one int: zigzag varint, nothing else
    assert [r.key.body for r in avro_run.records if r.key] == [b"\x02", b"\x04", b"\x06", b"\x02", b"\x04", b"\x04"]


def test_subjects_follow_the_topic_name_strategy(avro_run: AvroRun) -> None:
    registry = avro_run.registry
    mine = sorted(s for s in registry.subjects() if s.startswith(avro_run.prefix + "."))
    assert mine == avro_run.subjects
    key_ids = {r.key.schema_id for r in avro_run.records if r.key}
    value_ids = {r.value.schema_id for r in avro_run.records if r.value}
    assert len(key_ids) == 1 and len(value_ids) == 1 and key_ids != value_ids
    for subject, ids in zip(avro_run.subjects, (key_ids, value_ids), strict=True):
        assert registry.versions(subject) == [1]
        latest = registry.version(subject)
        assert (latest["subject"], latest["version"], {latest["id"]}) == (subject, 1, ids)
        # the id is Apicurio's content id, not its global id (the key's differ: _diverge_ids)
        meta = registry.artifact_version(subject, 1)
        assert {meta["contentId"]} == ids, meta
        if subject.endswith("-key"):
            assert meta["globalId"] != meta["contentId"], meta
            assert registry.version(f"{avro_run.prefix}-pad")["id"] == meta["contentId"]
        # the Confluent API finds the same id for the same text: what a Confluent-API client registering this
        # exact text gets back
        text = registry.schema(meta["contentId"]).text
        assert registry.lookup(subject, text)["id"] == meta["contentId"]
        assert latest["schema"] == text


def test_registered_schemas_are_exactly_these(avro_run: AvroRun) -> None:
    first = avro_run.records[0]
    assert first.key is not None and first.value is not None
    key, value = first.key.schema, first.value.schema
    print(f"\nregistered key schema (id {key.id}): {key.text}\nregistered value schema (id {value.id}): {value.text}")
    assert key.text == _registered_text(KEY_SCHEMA, avro_run.prefix)
    assert value.text == _registered_text(VALUE_SCHEMA, avro_run.prefix)
    # the parsing canonical form keeps names, types and order only: no connect.* attributes, defaults, logicalType
    assert key.canonical == (
        '{"name":"' + avro_run.prefix + '.public.avro_types.Key","type":"record","fields":[{"name":"id","type":"int"}]}'
    )
    assert "connect." not in value.canonical and "default" not in value.canonical


def test_every_record_decodes_with_the_registered_writer_schema(avro_run: AvroRun) -> None:
    keys = [r.key.decode() for r in avro_run.records if r.key]
    assert keys == [{"id": i} for i in (1, 2, 3, 1, 2, 2)]
    values = [_value(r) for r in avro_run.records]
    afters = [None if v is None else v["after"] for v in values]
    assert afters[:4] == [AFTER_1, AFTER_2, AFTER_3, AFTER_1 | {"note": "x"}]
    assert afters[4:] == [None, None]
    assert values[3]["before"] is None  # REPLICA IDENTITY DEFAULT: no old row on update
    # the delete's before holds the key; the other NOT NULL column gets its type's default
    assert values[4]["before"] == {"id": 2, "big": 0} | {k: None for k in AFTER_1 if k not in ("id", "big")}
    sources = [v["source"] for v in values if v is not None]
    assert [s["snapshot"] for s in sources] == ["first", "last", "false", "false", "false"]
    assert {(s["connector"], s["name"], s["db"], s["schema"], s["table"]) for s in sources} == {
        ("postgresql", avro_run.prefix, avro_run.prefix, "public", TABLE)
    }
    assert all(v["transaction"] is None for v in values if v is not None)
