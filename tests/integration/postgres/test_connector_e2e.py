"""The PostgreSQL connector end to end: real PostgreSQL 15 → this worker → real Kafka, compared with the
literal Debezium 3.6.3 captures of the spec (kafka-connect.md §4 and Appendix A)."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator
from typing import Any

import orjson
import psycopg
import pytest

from connect_worker.kafka.reader import TopicRecord, read_to_end
from tests.spec_captures import LIVE_ROW_SCHEMA_FIELDS
from tests.worker_support import running_worker, wait_for

pytestmark = pytest.mark.integration

ENVELOPE_FIELDS = ["before", "after", "source", "transaction", "op", "ts_ms", "ts_us", "ts_ns"]


@contextlib.asynccontextmanager
async def customers_table(pg_dsn: str, name: str) -> AsyncIterator[str]:
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        await conn.execute(f"CREATE SCHEMA {name}")
        await conn.execute(
            f"CREATE TABLE {name}.customers (id int PRIMARY KEY, email text, balance numeric(10,2), created date, "
            "ts timestamptz, tags text[], payload jsonb, amount numeric)"
        )
        await conn.execute(
            f"INSERT INTO {name}.customers VALUES (1, 'a@x.org', 12.34, '2024-01-02', '2024-01-02 03:04:05.123456Z',"
            " '{a,b}', '{\"k\":1}', 3.14159)"
        )
        try:
            yield name
        finally:
            await conn.execute(f"DROP SCHEMA {name} CASCADE")
            for slot in ("slot_" + name,):
                with contextlib.suppress(psycopg.Error):
                    await conn.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
            with contextlib.suppress(psycopg.Error):
                await conn.execute(f"DROP PUBLICATION IF EXISTS pub_{name}")


def connector_config(name: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": os.environ.get("CW_PG_PORT", "5433"),
        "database.user": "postgres",
        "database.dbname": "postgres",
        "topic.prefix": name,
        "plugin.name": "pgoutput",
        "slot.name": "slot_" + name,
        "publication.name": "pub_" + name,
        "publication.autocreate.mode": "filtered",
        "schema.include.list": name,
        **extra,
    }


async def topic_records(bootstrap: str, topic: str, at_least: int) -> list[TopicRecord]:
    async def enough() -> list[TopicRecord]:
        got = await read_to_end({"bootstrap.servers": bootstrap}, topic)
        return got if len(got) >= at_least else []

    result: list[TopicRecord] = await wait_for(enough, 40)
    return result


def value(record: TopicRecord) -> Any:
    return None if record.value is None else orjson.loads(record.value)


async def test_snapshot_then_streaming_match_debezium(
    worker_props: dict[str, str], kafka_bootstrap: str, pg_dsn: str, unique_name: str
) -> None:
    worker_props = {**worker_props, "offset.flush.interval.ms": "500"}
    async with customers_table(pg_dsn, unique_name) as schema, running_worker(worker_props) as (_w, client):
        r = await client.post("/connectors", json={"name": "pg", "config": connector_config(schema)})
        assert r.status_code == 201, r.text
        topic = f"{schema}.{schema}.customers"
        snap = await topic_records(kafka_bootstrap, topic, 1)
        first = value(snap[0])
        assert [f["field"] for f in first["schema"]["fields"]] == ENVELOPE_FIELDS
        assert first["schema"]["name"] == f"{schema}.{schema}.customers.Envelope"
        assert first["schema"]["version"] == 2
        assert first["schema"]["fields"][1]["fields"] == LIVE_ROW_SCHEMA_FIELDS
        payload = first["payload"]
        assert payload["op"] == "r"
        assert payload["after"] == {
            "id": 1,
            "email": "a@x.org",
            "balance": "BNI=",
            "created": 19724,
            "ts": "2024-01-02T03:04:05.123456Z",
            "tags": ["a", "b"],
            "payload": '{"k": 1}',
            "amount": {"scale": 5, "value": "BMsv"},
        }
        assert payload["source"]["snapshot"] == "last"
        assert payload["source"]["connector"] == "postgresql"
        assert payload["source"]["version"] == "3.6.3.Final"
        assert snap[0].key == (
            b'{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,'
            b'"name":"' + f"{schema}.{schema}.customers.Key".encode() + b'"},"payload":{"id":1}}'
        )

        async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
            await conn.execute(f"INSERT INTO {schema}.customers (id, email, balance) VALUES (2, 'b@x.org', -5.50)")
            await conn.execute(f"UPDATE {schema}.customers SET email = 'c@x.org' WHERE id = 2")
            await conn.execute(f"DELETE FROM {schema}.customers WHERE id = 2")
            await conn.execute(f"UPDATE {schema}.customers SET id = 3 WHERE id = 1")

        records = await topic_records(kafka_bootstrap, topic, 8)
        ops = [(value(r)["payload"]["op"] if r.value else None) for r in records[1:8]]
        assert ops == ["c", "u", "d", None, "d", None, "c"]
        created = value(records[1])["payload"]
        assert created["after"]["balance"] == "/do="  # -5.50, the capture's literal
        assert created["source"]["snapshot"] == "false"
        assert created["source"]["lsn"] > 0 and created["source"]["txId"] > 0
        seq = orjson.loads(created["source"]["sequence"])
        assert seq[1] == str(created["source"]["lsn"])
        update = value(records[2])["payload"]
        assert update["before"] is None  # REPLICA IDENTITY DEFAULT, key unchanged: no old tuple
        assert update["after"]["email"] == "c@x.org"
        delete = value(records[3])["payload"]
        assert delete["before"]["id"] == 2 and delete["after"] is None
        assert records[4].key == records[3].key and records[4].value is None  # tombstone
        # primary-key change: delete on the old key with __debezium.newkey, tombstone, create with oldkey
        assert value(records[5])["payload"]["before"]["id"] == 1
        pk_headers = {k: v for k, v in (records[5].headers or [])}
        assert pk_headers["__debezium.newkey"] == b'{"id":3}'
        create_headers = {k: v for k, v in (records[7].headers or [])}
        assert create_headers["__debezium.oldkey"] == b'{"id":1}'
        assert create_headers["__debezium.context.connectorName"] == b"postgresql"
        assert value(records[7])["payload"]["after"]["id"] == 3

        # the slot is confirmed only up to what the offsets topic holds
        async def confirmed() -> Any:
            async with await psycopg.AsyncConnection.connect(pg_dsn) as conn:
                row = await (
                    await conn.execute(
                        "SELECT confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = %s",
                        ("slot_" + schema,),
                    )
                ).fetchone()
            offsets = (await client.get("/connectors/pg/offsets")).json()["offsets"]
            if not offsets or row is None:
                return None
            stored = offsets[0]["offset"]
            return (int(row[0]), stored) if stored.get("lsn_commit") else None

        flushed, stored = await wait_for(confirmed, 30)
        assert stored["messageType"] in ("INSERT", "UPDATE", "DELETE", "COMMIT")
        assert flushed <= max(stored["lsn_commit"], stored["lsn_proc"])
        assert (await client.delete("/connectors/pg")).status_code == 204
        await asyncio.sleep(0.5)


async def test_snapshot_under_a_tiny_queue_byte_limit_delivers_every_row(
    worker_props: dict[str, str], kafka_bootstrap: str, pg_dsn: str, unique_name: str
) -> None:
    """max.queue.size.in.bytes far below the snapshot's size: the snapshot waits for poll() instead of
    buffering, and every row still arrives once."""
    async with customers_table(pg_dsn, unique_name) as schema:
        async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
            await conn.execute(
                f"INSERT INTO {schema}.customers (id, email) SELECT g, repeat('x', 200) FROM generate_series(2, 800) g"
            )
        async with running_worker(worker_props) as (_w, client):
            config = connector_config(
                schema, **{"max.queue.size.in.bytes": "4096", "max.batch.size": "16", "max.queue.size": "64"}
            )
            r = await client.post("/connectors", json={"name": "pgq", "config": config})
            assert r.status_code == 201, r.text
            got = await topic_records(kafka_bootstrap, f"{schema}.{schema}.customers", 800)
            ids = [value(r)["payload"]["after"]["id"] for r in got]
            assert sorted(ids) == list(range(1, 801))
            assert (await client.delete("/connectors/pgq")).status_code == 204
