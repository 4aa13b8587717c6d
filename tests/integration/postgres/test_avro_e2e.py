"""Avro end to end: real PostgreSQL 15 → this worker with io.confluent.connect.avro.AvroConverter → real Kafka,
schemas in the real registry (Apicurio 3.3.3, Confluent API).

Every type the connector maps (the table of test_type_mapping, edge values included) goes through two connectors
on one worker, on the same table: one with JsonConverter (schemas on), one with AvroConverter for keys and
values. Each Avro record, read back with AvroConverter.toConnectData, must be the Connect record the JSON twin
reads back as (schema and value), under two option sets (the defaults, and connect time types + string
decimals + hstore maps). Every Avro record is also decoded by confluent-kafka's own AvroDeserializer (a plain
consumer's view) against the registry.
"""

from __future__ import annotations

import contextlib
import re
from typing import Any

import orjson
import psycopg
import pytest
from confluent_kafka.serialization import MessageField, SerializationContext
from psycopg import sql

from connect_worker.api.record import SchemaAndValue
from connect_worker.kafka.reader import TopicRecord, read_to_end
from converters.avro import AvroConverter
from converters.json import JsonConverter
from tests.confluent_avro import avro_deserializer
from tests.integration.postgres.test_connector_e2e import connector_config, customers_table
from tests.integration.postgres.test_type_mapping import COLUMNS
from tests.worker_support import AVRO_CONVERTER, create_json_and_avro_twins, running_worker, wait_for

pytestmark = pytest.mark.integration

OPTION_SETS = {
    "default": {},
    "connect": {
        "time.precision.mode": "connect",
        "decimal.handling.mode": "string",
        "hstore.handling.mode": "map",
        "interval.handling.mode": "string",
        "binary.handling.mode": "hex",
    },
}
VOLATILE = ("ts_ms", "ts_us", "ts_ns")  # processing times


async def _create_table(conn: psycopg.AsyncConnection[Any], schema: str) -> list[str]:
    s = sql.Identifier(schema)
    for ext in ("hstore", "ltree", "citext", "isn"):
        await conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(ext)))
    await conn.execute(sql.SQL("CREATE SCHEMA {}").format(s))
    await conn.execute(sql.SQL("CREATE TYPE {}.mood AS ENUM ('happy', 'sad', 'zen')").format(s))
    await conn.execute(sql.SQL("CREATE DOMAIN {}.amount AS numeric(8,2)").format(s))
    await conn.execute(sql.SQL("CREATE DOMAIN {}.amount2 AS {}.amount").format(s, s))
    decls = [f"{name} {decl.format(schema=schema)}" for name, decl, _, _ in COLUMNS]
    await conn.execute(f"CREATE TABLE {schema}.types (id int PRIMARY KEY, {', '.join(decls)})")
    await conn.execute(f"ALTER TABLE {schema}.types REPLICA IDENTITY FULL")
    return [c[0] for c in COLUMNS]


async def _insert(conn: psycopg.AsyncConnection[Any], schema: str, first_id: int) -> None:
    names = [c[0] for c in COLUMNS]
    for row in range(3):
        values = [c[2][row] for c in COLUMNS]
        await conn.execute(
            f"INSERT INTO {schema}.types (id, {', '.join(names)}) VALUES ({first_id + row}, {', '.join(values)})"
        )


def _as_json(sv: SchemaAndValue) -> bytes | None:
    """A Connect record as JsonConverter (schemas on) writes it."""
    writer = JsonConverter()
    writer.configure({"schemas.enable": "true"}, False)
    return writer.from_connect_data("t", sv.schema, sv.value)


def _rendered(data: bytes | None, prefix: str) -> Any:
    """Schema+payload JSON with the connector's prefix replaced and the volatile times dropped."""
    doc = None if data is None else orjson.loads(re.sub(prefix.encode(), b"PFX", data))
    payload = doc.get("payload") if isinstance(doc, dict) else None
    if isinstance(payload, dict):
        for k in VOLATILE:
            payload.pop(k, None)
        if payload.get("op") == "r":  # each connector's own snapshot: its own time, transaction and slot position
            for k in (*VOLATILE, "lsn", "txId", "sequence", "xmin"):
                payload["source"].pop(k, None)
    return doc


async def _records(bootstrap: str, topic: str, count: int) -> list[TopicRecord]:
    async def enough() -> list[TopicRecord]:
        got = await read_to_end({"bootstrap.servers": bootstrap}, topic)
        return got if len(got) >= count else []

    result: list[TopicRecord] = await wait_for(enough, 60)
    return result


@pytest.mark.parametrize("options", list(OPTION_SETS))
async def test_every_type_round_trips_through_the_registry(
    worker_props: dict[str, str],
    kafka_bootstrap: str,
    pg_dsn: str,
    unique_name: str,
    registry_url: str,
    options: str,
) -> None:
    schema = unique_name
    json_pfx, avro_pfx = f"j{schema}", f"a{schema}"
    avro_conf = {"schema.registry.url": registry_url}
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        await _create_table(conn, schema)
        try:
            await _insert(conn, schema, 1)
            async with running_worker(worker_props) as (_w, client):
                await create_json_and_avro_twins(
                    client, connector_config(schema, **OPTION_SETS[options]), registry_url, json_pfx, avro_pfx
                )
                json_topic, avro_topic = f"{json_pfx}.{schema}.types", f"{avro_pfx}.{schema}.types"
                await _records(kafka_bootstrap, json_topic, 3)
                await _records(kafka_bootstrap, avro_topic, 3)
                await _insert(conn, schema, 11)  # streamed: the same values again
                await conn.execute(f"UPDATE {schema}.types SET c_text = 'changed' WHERE id = 11")
                await conn.execute(f"DELETE FROM {schema}.types WHERE id = 12")
                expected = 3 + 3 + 1 + 2  # snapshot, inserts, update, delete + tombstone
                json_records = await _records(kafka_bootstrap, json_topic, expected)
                avro_records = await _records(kafka_bootstrap, avro_topic, expected)
                status = (await client.get("/connectors/avro/status")).json()
                assert status["tasks"][0]["state"] == "RUNNING", status
        finally:
            for pfx in (json_pfx, avro_pfx):
                with contextlib.suppress(psycopg.Error):
                    await conn.execute("SELECT pg_drop_replication_slot(%s)", (f"slot_{pfx}",))
                await conn.execute(f"DROP PUBLICATION IF EXISTS pub_{pfx}")
            await conn.execute(sql.SQL("DROP SCHEMA {} CASCADE").format(sql.Identifier(schema)))

    assert len(avro_records) == len(json_records) == expected
    assert all(r.value is None or r.value[0] == 0 for r in avro_records)  # Confluent framing: magic byte 0
    # the JSON twin's records as written, against each Avro record read back and written as JSON: JSON cannot
    # carry NaN/Infinity back into a Connect value (Kafka's JsonConverter reads "NaN" as 0.0), Avro can
    for is_key in (False, True):
        side = "key" if is_key else "value"
        reader = AvroConverter()
        reader.configure(avro_conf, is_key)
        want = [_rendered(r.key if is_key else r.value, json_pfx) for r in json_records]
        got = [
            _rendered(_as_json(reader.to_connect_data(avro_topic, r.key if is_key else r.value)), avro_pfx)
            for r in avro_records
        ]
        for i, (w, g) in enumerate(zip(want, got, strict=True)):
            if is_key and w is not None:
                # AvroData gives the top-level schema the subject's version when the Avro schema has none
                assert g["schema"].pop("version") == 1
            assert g == w, f"{side} of record {i} differs"

    # a plain Confluent consumer reads every record with the registry's writer schema (not under the connect time
    # types: Python's fastavro cannot turn PostgreSQL's infinity dates into `date` values; a Java reader can)
    if options != "default":
        return
    deserializer = avro_deserializer(registry_url)
    decoded = [
        deserializer(r.value, SerializationContext(avro_topic, MessageField.VALUE))
        for r in avro_records
        if r.value is not None
    ]
    assert [d["op"] for d in decoded] == ["r", "r", "r", "c", "c", "c", "u", "d"]
    assert decoded[6]["after"]["c_text"] == "changed" and decoded[6]["before"]["c_text"] != "changed"
    assert decoded[3]["after"]["id"] == 11 and decoded[7]["before"]["id"] == 12


async def test_json_keys_with_avro_values(
    worker_props: dict[str, str], kafka_bootstrap: str, pg_dsn: str, unique_name: str, registry_url: str
) -> None:
    """Key and value converters differ: JsonConverter keys (the worker's), Avro values (the connector's)."""
    async with customers_table(pg_dsn, unique_name) as schema, running_worker(worker_props) as (_w, client):
        config = {
            **connector_config(schema),
            "value.converter": AVRO_CONVERTER,
            "value.converter.schema.registry.url": registry_url,
        }
        r = await client.post("/connectors", json={"name": "pg", "config": config})
        assert r.status_code == 201, r.text
        topic = f"{schema}.{schema}.customers"
        (record,) = await _records(kafka_bootstrap, topic, 1)
    assert orjson.loads(record.key or b"null")["payload"] == {"id": 1}
    reader = AvroConverter()
    reader.configure({"schema.registry.url": registry_url}, False)
    value = reader.to_connect_data(topic, record.value)
    assert value.schema is not None and value.schema.name == f"{schema}.{schema}.customers.Envelope"
    assert value.value.values[1].values[1] == "a@x.org"  # after.email
