"""The YugabyteDB connector end to end: this worker → real Kafka, fed by the real PostgreSQL 15 cluster
standing in for YugabyteDB.

No YugabyteDB server can run here (no package source has one). YugabyteDB's yboutput is PostgreSQL's
pgoutput code under another name, so the devstack cluster carries a 'yboutput' library that is pgoutput
(devstack/postgres.sh): the connector creates a real yboutput slot and streams real pgoutput bytes, on
its real path. An UPDATE that leaves a TOASTed column alone sends that column as 'u', the same byte
YugabyteDB sends for every column a replica-identity-CHANGE update leaves out.
"""

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
from tests.worker_support import free_port, running_worker, wait_for

pytestmark = pytest.mark.integration

PG_PORT = os.environ.get("CW_PG_PORT", "5433")
BIG = "".join(f"{i:08x}" for i in range(4000))  # 32 kB that does not compress: stored out of line (TOAST)


@contextlib.asynccontextmanager
async def employees(pg_dsn: str, schema: str) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
        await conn.execute(f"CREATE SCHEMA {schema}")
        await conn.execute(
            f"CREATE TABLE {schema}.employees (employee_id int PRIMARY KEY, employee_name text, "
            "employee_dept text, notes text)"
        )
        await conn.execute(f"ALTER TABLE {schema}.employees ALTER COLUMN notes SET STORAGE EXTERNAL")
        await conn.execute(f"INSERT INTO {schema}.employees VALUES (1001, 'Alice', 'Packaging', NULL)")
        try:
            yield conn
        finally:
            await conn.execute(f"DROP SCHEMA {schema} CASCADE")
            with contextlib.suppress(psycopg.Error):
                await conn.execute("SELECT pg_drop_replication_slot(%s)", (f"slot_{schema}",))
            await conn.execute(f"DROP PUBLICATION IF EXISTS pub_{schema}")


def yb_config(schema: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "io.debezium.connector.postgresql.YugabyteDBConnector",
        # a dead server first: the connector must go on to the next one (database.port applies to it)
        "database.hostname": f"127.0.0.1:{free_port()},127.0.0.1",
        "database.port": PG_PORT,
        "database.user": "postgres",
        "database.dbname": "postgres",
        "topic.prefix": schema,
        "slot.name": f"slot_{schema}",
        "publication.name": f"pub_{schema}",
        "publication.autocreate.mode": "filtered",
        "schema.include.list": schema,
        **extra,
    }


async def records_of(bootstrap: str, topic: str, at_least: int) -> list[TopicRecord]:
    async def enough() -> list[TopicRecord]:
        got = await read_to_end({"bootstrap.servers": bootstrap}, topic)
        return got if len(got) >= at_least else []

    result: list[TopicRecord] = await wait_for(enough, 40)
    return result


def payload(record: TopicRecord) -> Any:
    return None if record.value is None else orjson.loads(record.value)["payload"]


def cells(**values: Any) -> dict[str, Any]:
    return {k: None if v is None else {"value": v, "set": True} for k, v in values.items()}


async def test_yboutput_cells_debezium_2_5_shape_and_failover(
    worker_props: dict[str, str], kafka_bootstrap: str, pg_dsn: str, unique_name: str
) -> None:
    s = unique_name
    config = yb_config(s, **{"provide.transaction.metadata": "true"})  # plugin.name left to its default
    async with employees(pg_dsn, s) as conn, running_worker(worker_props) as (_w, client):
        r = await client.post("/connectors", json={"name": "yb", "config": config})
        assert r.status_code == 201, r.text
        topic = f"{s}.{s}.employees"
        (snap,) = await records_of(kafka_bootstrap, topic, 1)
        whole = orjson.loads(snap.value or b"")
        envelope = whole["schema"]
        assert [f["field"] for f in envelope["fields"]] == ["before", "after", "source", "op", "ts_ms", "transaction"]
        row_fields = envelope["fields"][1]["fields"]
        assert row_fields[0] == {
            "type": "struct",
            "fields": [{"type": "int32", "optional": False, "field": "value"},
                       {"type": "boolean", "optional": False, "field": "set"}],
            "optional": False,
            "name": "employee_id",
            "field": "employee_id",
        }  # fmt: skip
        assert row_fields[1]["optional"] is True and row_fields[1]["fields"][0]["optional"] is True
        source_fields = [f["field"] for f in envelope["fields"][2]["fields"]]
        assert source_fields == [
            "version", "connector", "name", "ts_ms", "snapshot", "db", "sequence", "schema", "table", "txId", "lsn",
            "xmin",
        ]  # fmt: skip
        p = whole["payload"]
        assert p["op"] == "r"
        assert p["after"] == cells(employee_id=1001, employee_name="Alice", employee_dept="Packaging", notes=None)
        assert p["source"]["connector"] == "YugabyteDB"
        assert p["source"]["version"] == "2.5.2.Final"
        assert p["source"]["snapshot"] == "last"
        assert orjson.loads(snap.key or b"")["payload"] == {"employee_id": {"value": 1001, "set": True}}
        cur = await conn.execute("SELECT plugin FROM pg_replication_slots WHERE slot_name = %s", (f"slot_{s}",))
        assert await cur.fetchone() == ("yboutput",)

        await conn.execute(f"INSERT INTO {s}.employees VALUES (1002, 'Bob', NULL, %s)", (BIG,))
        await conn.execute(f"UPDATE {s}.employees SET employee_name = 'Bobby' WHERE employee_id = 1002")
        await conn.execute(f"DELETE FROM {s}.employees WHERE employee_id = 1002")
        await conn.execute(f"UPDATE {s}.employees SET employee_id = 1003 WHERE employee_id = 1001")
        got = await records_of(kafka_bootstrap, topic, 8)
        ops = [payload(r)["op"] if r.value else None for r in got[1:]]
        assert ops == ["c", "u", "d", None, "d", None, "c"]
        create, update, delete, tombstone = (payload(r) for r in got[1:5])
        assert create["after"] == cells(employee_id=1002, employee_name="Bob", employee_dept=None, notes=BIG)
        assert create["before"] is None
        assert isinstance(create["source"]["lsn"], int) and isinstance(create["source"]["txId"], int)
        assert "ts_us" not in create and "ts_us" not in create["source"]
        # the unchanged TOASTed column came as 'u': no value in the event, so a null cell (no placeholder)
        assert update["before"] is None
        assert update["after"] == cells(employee_id=1002, employee_name="Bobby", employee_dept=None, notes=None)
        assert delete["before"] == cells(employee_id=1002, employee_name=None, employee_dept=None, notes=None)
        assert tombstone is None and got[4].key == got[3].key
        tx = create["transaction"]
        assert tx["total_order"] == 1 and tx["id"].startswith(f"{create['source']['txId']}:")
        old_key_delete, new_key_create = got[5], got[7]
        assert next(h[0] for h in old_key_delete.headers or []) == "__debezium.newkey"
        assert next(h[0] for h in new_key_create.headers or []) == "__debezium.oldkey"
        assert payload(new_key_create)["after"]["employee_id"] == {"value": 1003, "set": True}

        boundaries = await records_of(kafka_bootstrap, f"{s}.transaction", 2)
        assert [payload(b)["status"] for b in boundaries[:2]] == ["BEGIN", "END"]


async def test_pgoutput_gives_plain_values(
    worker_props: dict[str, str], kafka_bootstrap: str, pg_dsn: str, unique_name: str
) -> None:
    s = unique_name
    async with employees(pg_dsn, s) as conn, running_worker(worker_props) as (_w, client):
        r = await client.post("/connectors", json={"name": "yb", "config": yb_config(s, **{"plugin.name": "pgoutput"})})
        assert r.status_code == 201, r.text
        topic = f"{s}.{s}.employees"
        await records_of(kafka_bootstrap, topic, 1)
        await conn.execute(f"INSERT INTO {s}.employees VALUES (1002, 'Bob', 'Sales', NULL)")
        got = await records_of(kafka_bootstrap, topic, 2)
        p = payload(got[1])
        assert p["op"] == "c"
        assert p["after"] == {"employee_id": 1002, "employee_name": "Bob", "employee_dept": "Sales", "notes": None}
        assert p["source"]["connector"] == "YugabyteDB"
        cur = await conn.execute("SELECT plugin FROM pg_replication_slots WHERE slot_name = %s", (f"slot_{s}",))
        assert await cur.fetchone() == ("pgoutput",)


async def test_unsupported_settings_are_refused_over_rest(worker_props: dict[str, str], unique_name: str) -> None:
    async with running_worker(worker_props) as (_w, client):
        config = yb_config(unique_name, **{"plugin.name": "decoderbufs", "snapshot.mode": "always"})
        r = await client.put("/connector-plugins/YugabyteDBConnector/config/validate", json={**config, "name": "yb"})
        assert r.status_code == 200, r.text
        answer = r.json()
        assert answer["name"] == "io.debezium.connector.postgresql.YugabyteDBConnector"
        assert answer["error_count"] == 2
        bad = {c["value"]["name"]: c["value"]["errors"] for c in answer["configs"] if c["value"]["errors"]}
        assert set(bad) == {"plugin.name", "snapshot.mode"}
        r = await client.post("/connectors", json={"name": "yb", "config": config})
        assert r.status_code == 400
        assert "supports only yboutput and pgoutput" in r.text
        r = await client.get("/connector-plugins")
        listed = {p["class"]: p for p in r.json()}
        assert listed["io.debezium.connector.postgresql.YugabyteDBConnector"]["version"] == "2.5.2.Final"
        r = await client.get("/connector-plugins", params={"connectorsOnly": "false"})
        transforms = {p["class"]: p["type"] for p in r.json()}
        assert transforms["io.debezium.connector.postgresql.transforms.yugabytedb.YBExtractNewRecordState"] == (
            "transformation"
        )


async def test_a_graceful_restart_resumes_without_gaps_or_duplicates(
    worker_props: dict[str, str], kafka_bootstrap: str, pg_dsn: str, unique_name: str
) -> None:
    """Acceptance items 25 and 26: the slot is told only committed positions (its confirmed_flush_lsn moves
    once the offsets are flushed), and a stopped worker resumes exactly where its offsets left off."""
    s = unique_name
    worker_props = {**worker_props, "offset.flush.interval.ms": "300"}
    topic = f"{s}.{s}.employees"
    async with employees(pg_dsn, s) as conn:
        async with running_worker(worker_props) as (_w, client):
            r = await client.post("/connectors", json={"name": "yb", "config": yb_config(s)})
            assert r.status_code == 201, r.text
            await records_of(kafka_bootstrap, topic, 1)
            for n in (1, 2, 3):
                await conn.execute(f"INSERT INTO {s}.employees VALUES ({n}, 'e{n}', NULL, NULL)")
            await records_of(kafka_bootstrap, topic, 4)

            async def confirmed() -> Any:
                cur = await conn.execute(
                    "SELECT confirmed_flush_lsn > %s::pg_lsn FROM pg_replication_slots WHERE slot_name = %s",
                    (start_lsn, f"slot_{s}"),
                )
                row = await cur.fetchone()
                return row is not None and row[0]

            cur = await conn.execute("SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = %s",
                                     (f"slot_{s}",))  # fmt: skip
            start_lsn = (await cur.fetchone() or ("0/0",))[0]
            await conn.execute(f"INSERT INTO {s}.employees VALUES (4, 'e4', NULL, NULL)")
            await records_of(kafka_bootstrap, topic, 5)
            await wait_for(confirmed, 20)
        for n in (5, 6):  # while the worker is down
            await conn.execute(f"INSERT INTO {s}.employees VALUES ({n}, 'e{n}', NULL, NULL)")
        async with running_worker(worker_props):
            got = await records_of(kafka_bootstrap, topic, 7)
            await asyncio.sleep(1.5)  # a duplicate, if any, would show by now
            got = await read_to_end({"bootstrap.servers": kafka_bootstrap}, topic)
    ids = [payload(r)["after"]["employee_id"]["value"] for r in got]
    assert ids == [1001, 1, 2, 3, 4, 5, 6]
    lsns = [payload(r)["source"]["lsn"] for r in got[1:]]
    assert lsns == sorted(set(lsns))


async def test_incremental_snapshot_by_signal_with_yboutput(
    worker_props: dict[str, str], kafka_bootstrap: str, pg_dsn: str, unique_name: str
) -> None:
    """Signals and incremental snapshots are the PostgreSQL connector's (YugabyteDB's fork inherits them): the
    signal table's cells are read as plain values, the READ records carry cells and `snapshot=incremental`."""
    s = unique_name
    config = yb_config(
        s,
        **{
            "snapshot.mode": "never",
            "signal.data.collection": f"{s}.dbz_signal",
            "incremental.snapshot.chunk.size": "3",
        },
    )
    async with employees(pg_dsn, s) as conn, running_worker(worker_props) as (_w, client):
        await conn.execute(
            f"CREATE TABLE {s}.dbz_signal (id varchar(64) PRIMARY KEY, type varchar(32), data varchar(2048))"
        )
        await conn.execute(f"INSERT INTO {s}.employees SELECT g, 'e' || g, 'd', NULL FROM generate_series(1, 7) g")
        r = await client.post("/connectors", json={"name": "yb", "config": config})
        assert r.status_code == 201, r.text

        async def slot_active() -> bool:
            cur = await conn.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (f"slot_{s}",))
            row = await cur.fetchone()
            return bool(row and row[0])

        await wait_for(slot_active, 30)
        await asyncio.sleep(1)
        await conn.execute(
            f"INSERT INTO {s}.dbz_signal VALUES ('yb-1', 'execute-snapshot', %s)",
            ('{"data-collections": ["' + s + '.employees"]}',),
        )
        got = await records_of(kafka_bootstrap, f"{s}.{s}.employees", 8)
        reads = [payload(r) for r in got if payload(r)["op"] == "r"]
        assert sorted(p["after"]["employee_id"]["value"] for p in reads) == [1, 2, 3, 4, 5, 6, 7, 1001]
        assert {p["source"]["snapshot"] for p in reads} == {"incremental"}
        assert all(p["source"]["lsn"] is None for p in reads)
