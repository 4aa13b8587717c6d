"""Acceptance checklist (postgresql.md §11) items 1-20, and the start-up failures of §10, against the real
PostgreSQL 15 and Kafka: setup and validation, the initial snapshot and the snapshot modes.

One scratch database and one in-process worker serve the module; each test has its own schema, slot,
publication, topic.prefix and connector (all removed afterwards). Where Debezium 3.6.3 itself (run with
tests/differential/debezium.py) behaves differently from the spec text, the tests follow Debezium and say so.
"""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import orjson
import pytest

from tests.integration.postgres.acceptance.pg_harness import (
    Harness,
    connector,
    harness_fixture,
    key_payload,
    payload,
    wait,
)

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="module")]


h = harness_fixture("accs")


def ids_and_ops(records: list[Any]) -> list[tuple[str, int]]:
    out = []
    for r in records:
        p = payload(r)
        if p is not None:
            row = p["after"] or p["before"]
            out.append((p["op"], row["id"]))
    return out


# -- setup and validation ---------------------------------------------------------------------------------------------
async def test_item01_default_autocreate_makes_all_tables_publication_and_pgoutput_slot(h: Harness) -> None:
    name = h.name()
    await h.customers(name, rows=1)
    # default publication.autocreate.mode (all_tables) and default publication.name (dbz_publication, unique to
    # this module's database); the slot gets a unique name instead of `debezium` so runs never collide
    config = h.config(name, name, **{"publication.autocreate.mode": None, "publication.name": None})
    try:
        async with connector(h, name, config):
            await h.records(f"{name}.{name}.customers", 1)
            pubs = await h.query("SELECT pubname, puballtables FROM pg_publication WHERE pubname = 'dbz_publication'")
            assert pubs == [("dbz_publication", True)]
            slot = await h.slot(name)
            assert slot is not None and slot[1] == "pgoutput" and slot[2] == h.dbname
    finally:
        await h.sql("DROP PUBLICATION IF EXISTS dbz_publication")


async def test_item02_filtered_publication_lists_exactly_the_included_table(h: Harness) -> None:
    name = h.name()
    await h.customers(name, rows=1)
    await h.sql(f"CREATE TABLE {name}.other (id int PRIMARY KEY)")
    config = h.config(name, name, **{"table.include.list": f"{name}.customers"})
    async with connector(h, name, config):
        await h.records(f"{name}.{name}.customers", 1)
        tables = await h.query("SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s", (name,))
        assert tables == [(name, "customers")]


async def test_item03_filtered_restart_alters_existing_publication_to_the_filtered_tables(h: Harness) -> None:
    name = h.name()
    await h.customers(name, rows=1)
    await h.sql(f"CREATE TABLE {name}.other (id int PRIMARY KEY)", f"CREATE PUBLICATION {name} FOR TABLE {name}.other")
    config = h.config(name, name, **{"table.include.list": f"{name}.customers"})
    async with connector(h, name, config):
        await h.records(f"{name}.{name}.customers", 1)
        tables = await h.query("SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s", (name,))
        assert tables == [(name, "customers")]
        # a restart with another filter re-applies ALTER PUBLICATION ... SET TABLE
        await h.stop(name)
        await h.reconfigure(name, {**config, "table.include.list": f"{name}.customers,{name}.other"})
        await h.resume(name)
        await h.task_state(name, "RUNNING")

        async def altered() -> list[Any]:
            rows = await h.query(
                "SELECT schemaname, tablename FROM pg_publication_tables WHERE pubname = %s ORDER BY 2", (name,)
            )
            return rows if len(rows) == 2 else []

        assert await wait(altered, 20) == [(name, "customers"), (name, "other")]


async def test_item04_disabled_autocreate_without_publication_fails_and_creates_no_slot(h: Harness) -> None:
    name = h.name()
    await h.customers(name, rows=1)
    config = h.config(name, name, **{"publication.autocreate.mode": "disabled"})
    async with connector(h, name, config):
        task = await h.task_state(name, "FAILED")
        assert "Publication autocreation is disabled, please create one and restart the connector." in task["trace"]
        assert await h.slot(name) is None
        assert await h.query("SELECT 1 FROM pg_publication WHERE pubname = %s", (name,)) == []


async def test_item05_filtered_with_existing_all_tables_publication_fails(h: Harness) -> None:
    name = h.name()
    await h.customers(name, rows=1)
    await h.sql(f"CREATE PUBLICATION {name} FOR ALL TABLES")
    try:
        async with connector(h, name, h.config(name, name)):
            task = await h.task_state(name, "FAILED")
            assert "is already active on the server and can not be altered" in task["trace"]
            assert await h.slot(name) is None
    finally:
        await h.sql(f"DROP PUBLICATION IF EXISTS {name}")


async def test_item06_validation_rejects_bad_slot_name_and_both_table_lists(h: Harness) -> None:
    name = h.name()
    config = h.config(
        name, name, **{"slot.name": "MySlot", "table.include.list": "a.b", "table.exclude.list": "a.c", "name": name}
    )
    r = await h.client.put("/connector-plugins/PostgresConnector/config/validate", json=config)
    assert r.status_code == 200, r.text
    body = r.json()
    errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
    assert "slot.name" in errors, errors
    assert "table.exclude.list" in errors or "table.include.list" in errors, errors
    assert body["error_count"] >= 2
    # the valid counterpart has no error on those fields
    ok = await h.client.put("/connector-plugins/PostgresConnector/config/validate", json=h.config(name, name))
    assert not [
        c
        for c in ok.json()["configs"]
        if c["value"]["name"] in ("slot.name", "table.exclude.list") and c["value"]["errors"]
    ]


async def test_item07_replica_identity_autoset_sets_full(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=1)
    config = h.config(name, name, **{"replica.identity.autoset.values": f"{table}:FULL"})
    async with connector(h, name, config):
        await h.records(f"{name}.{table}", 1)
        rows = await h.query(
            "SELECT c.relreplident FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE n.nspname = %s AND c.relname = 'customers'",
            (name,),
        )
        assert rows == [("f",)]


async def test_item08_slot_drop_on_stop_drops_slot_on_delete(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=1)
    await h.create(name, h.config(name, name, **{"slot.drop.on.stop": "true"}))
    try:
        await h.records(f"{name}.{table}", 1)
        assert await h.slot(name) is not None
    finally:
        await h.delete(name, drop_slot=False)

    async def slot_gone() -> bool:
        return await h.slot(name) is None

    try:
        await wait(slot_gone, 20)
    finally:
        await h.drop_slot(name)


# -- initial snapshot -------------------------------------------------------------------------------------------------
async def test_items09_to_12_initial_snapshot_marks_positions_and_no_repeat_on_restart(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=3)
    topic = f"{name}.{table}"
    async with connector(h, name, h.config(name, name)):
        records = await h.records(topic, 3, settle=1.0)
        assert len(records) == 3
        payloads = [payload(r) for r in records]
        # item 9
        assert [p["op"] for p in payloads] == ["r", "r", "r"]
        assert all(p["before"] is None for p in payloads)
        assert payloads[0]["after"] == {
            "id": 1,
            "first_name": "First1",
            "last_name": "Last1",
            "email": "user1@example.com",
        }
        assert all(p["source"]["snapshot"] != "false" for p in payloads)
        # item 10
        assert payloads[0]["source"]["snapshot"] == "first"
        assert payloads[1]["source"]["snapshot"] == "true"
        assert payloads[-1]["source"]["snapshot"] == "last"
        # item 11
        for p in payloads:
            assert isinstance(p["source"]["lsn"], int) and isinstance(p["source"]["txId"], int)
            assert p["source"]["db"] == h.dbname
        assert [key_payload(r) for r in records] == [{"id": 1}, {"id": 2}, {"id": 3}]

        # item 12: once the completed snapshot is committed, a restart emits no further r
        async def completed() -> bool:
            offs = await h.offsets(name)
            return bool(offs and offs[0]["offset"].get("snapshot_completed") is True)

        await wait(completed, 20)
        await h.stop(name)
        await h.resume(name)
        await h.task_state(name, "RUNNING")
        await h.insert_customers(table, [4])
        after = await h.records(topic, 4, settle=1.0)
        assert ids_and_ops(after) == [("r", 1), ("r", 2), ("r", 3), ("c", 4)]


async def test_item13_insert_during_snapshot_is_streamed_after_it(h: Harness) -> None:
    name = h.name()
    rows = 20000
    table = await h.customers(name, rows=0)
    await h.sql(
        f"INSERT INTO {table} SELECT i, 'F' || i, 'L' || i, 'e' || i FROM generate_series(1, {rows}) i",
        f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), {rows})",
    )
    topic = f"{name}.{table}"
    config = h.config(name, name, **{"max.batch.size": "200", "max.queue.size": "400"})
    async with connector(h, name, config):
        first = await h.records(topic, 1, timeout=30)
        assert payload(first[0])["op"] == "r"
        await h.insert_customers(table, [rows + 1])  # while the (throttled) snapshot is still being read
        records = await h.records(topic, rows + 1, timeout=90, settle=1.0)
        got = ids_and_ops(records)
        snapshot_ids = [i for op, i in got if op == "r"]
        assert len(snapshot_ids) < rows + 1 or got[-1] == ("c", rows + 1)
        assert sorted(snapshot_ids) == list(range(1, rows + 1))
        assert got.count(("c", rows + 1)) == 1 and got[-1] == ("c", rows + 1)
        assert len(got) == rows + 1


async def test_item14_always_resnapshots_on_every_restart_then_streams(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=2)
    topic = f"{name}.{table}"
    async with connector(h, name, h.config(name, name, **{"snapshot.mode": "always"})):
        await h.records(topic, 2)
        await h.insert_customers(table, [3])
        await h.records(topic, 3)
        await h.stop(name)
        await h.resume(name)
        records = await h.records(topic, 6, settle=0.5)
        assert ids_and_ops(records)[:6] == [("r", 1), ("r", 2), ("c", 3), ("r", 1), ("r", 2), ("r", 3)]
        await h.insert_customers(table, [4])
        records = await h.records(topic, 7, settle=1.0)
        assert ids_and_ops(records) == [("r", 1), ("r", 2), ("c", 3), ("r", 1), ("r", 2), ("r", 3), ("c", 4)]


async def test_item15_initial_only_snapshots_and_then_emits_nothing(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=2)
    topic = f"{name}.{table}"
    async with connector(h, name, h.config(name, name, **{"snapshot.mode": "initial_only"})):
        records = await h.records(topic, 2)
        assert [payload(r)["source"]["snapshot"] for r in records] == ["first", "last"]
        await h.insert_customers(table, [3])
        await asyncio.sleep(3)
        assert ids_and_ops(await h.read(topic)) == [("r", 1), ("r", 2)]
        assert (await h.status(name))["tasks"][0]["state"] == "RUNNING"
        # Debezium 3.6.3 neither streams nor creates a slot in initial_only
        assert await h.slot(name) is None


@pytest.mark.parametrize("mode", ["no_data", "never"])
async def test_item16_no_data_and_never_stream_without_snapshot(h: Harness, mode: str) -> None:
    name = h.name()
    table = await h.customers(name, rows=2)
    topic = f"{name}.{table}"
    async with connector(h, name, h.config(name, name, **{"snapshot.mode": mode})):
        await h.task_state(name, "RUNNING")

        async def slot_ready() -> bool:
            return await h.slot(name) is not None

        await wait(slot_ready, 20)
        await h.insert_customers(table, [3])
        records = await h.records(topic, 1, settle=1.0)
        assert ids_and_ops(records) == [("c", 3)]
        assert payload(records[0])["source"]["snapshot"] == "false"


async def test_item18_snapshot_include_collection_list_limits_snapshot_not_streaming(h: Harness) -> None:
    name = h.name()
    await h.sql(
        f"CREATE SCHEMA {name}",
        f"CREATE TABLE {name}.a (id int PRIMARY KEY)",
        f"CREATE TABLE {name}.b (id int PRIMARY KEY)",
        f"INSERT INTO {name}.a VALUES (1)",
        f"INSERT INTO {name}.b VALUES (1)",
    )
    config = h.config(
        name,
        name,
        **{
            "table.include.list": f"{name}.a,{name}.b",
            "snapshot.include.collection.list": f"{name}.a",
        },
    )
    async with connector(h, name, config):
        a = await h.records(f"{name}.{name}.a", 1)
        assert ids_and_ops(a) == [("r", 1)]
        await h.sql(f"INSERT INTO {name}.b VALUES (2)")
        b = await h.records(f"{name}.{name}.b", 1, settle=1.0)
        assert ids_and_ops(b) == [("c", 2)]


async def test_item19_select_statement_override_limits_snapshot_only(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=3)
    topic = f"{name}.{table}"
    config = h.config(
        name,
        name,
        **{
            "snapshot.select.statement.overrides": table,
            f"snapshot.select.statement.overrides.{table}": f"SELECT * FROM {table} WHERE id > 1",
        },
    )
    async with connector(h, name, config):
        await h.records(topic, 2)
        await h.insert_customers(table, [4])
        await h.sql(f"UPDATE {table} SET email = 'x@y.z' WHERE id = 1")
        records = await h.records(topic, 4, settle=1.0)
        assert ids_and_ops(records) == [("r", 2), ("r", 3), ("c", 4), ("u", 1)]


# -- stored positions: lost WAL, interrupted snapshots (§10) -----------------------------------------------------------
async def _stream_then_lose_position(h: Harness, name: str, table: str, config: dict[str, str]) -> None:
    """Snapshot rows 1-2, stream row 3, stop with its offset committed, then drop the slot, write row 4,
    recreate the slot and write row 5: the stored position is gone from the server."""
    topic = f"{name}.{table}"
    await h.records(topic, 2)
    await h.insert_customers(table, [3])
    await h.records(topic, 3)

    async def streamed_offset() -> bool:
        offs = await h.offsets(name)
        return bool(offs and "lsn_proc" in offs[0]["offset"])

    await wait(streamed_offset, 20)
    await h.stop(name)
    await h.drop_slot(name)
    await h.insert_customers(table, [4])
    await h.sql(("SELECT pg_create_logical_replication_slot(%s, 'pgoutput')", (name,)))
    await h.insert_customers(table, [5])
    restart, stored = (await h.slot(name) or (None,) * 6)[4], (await h.offsets(name))[0]["offset"]
    assert restart is not None and int(restart) > int(stored["lsn_proc"])


async def test_item20_when_needed_snapshots_when_stored_position_is_lost(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=2)
    topic = f"{name}.{table}"
    config = h.config(name, name, **{"snapshot.mode": "when_needed"})
    async with connector(h, name, config):
        await _stream_then_lose_position(h, name, table, config)
        await h.resume(name)
        records = await h.records(topic, 8, settle=1.0)
        got = ids_and_ops(records)
        assert got[:3] == [("r", 1), ("r", 2), ("c", 3)]
        assert got[3:] == [("r", 1), ("r", 2), ("r", 3), ("r", 4), ("r", 5)]
        assert payload(records[3])["source"]["snapshot"] == "first"
        assert payload(records[-1])["source"]["snapshot"] == "last"
        await h.insert_customers(table, [6])
        assert ids_and_ops(await h.records(topic, 9))[-1] == ("c", 6)


@pytest.mark.parametrize("mode", ["initial", "no_data"])
async def test_s10_lost_position_fails_in_modes_without_snapshot_on_data_error(h: Harness, mode: str) -> None:
    """Debezium 3.6.3 (BaseSourceTask.validateSchemaHistory, checked against the real connector) fails the task
    here; the spec's 2.7 text (warn, then stream from the slot) is outdated."""
    name = h.name()
    table = await h.customers(name, rows=2)
    config = h.config(name, name)
    async with connector(h, name, config):
        await _stream_then_lose_position(h, name, table, config)
        await h.reconfigure(name, {**config, "snapshot.mode": mode})
        await h.resume(name)
        task = await h.task_state(name, "FAILED")
        assert "The connector is trying to read change stream starting at " in task["trace"]
        assert (
            "but this is no longer available on the server. Reconfigure the connector to use a snapshot mode when "
            "needed." in task["trace"]
        )


async def test_s10_no_data_with_interrupted_snapshot_fails(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=2)
    config = h.config(name, name)
    async with connector(h, name, config):
        await h.records(f"{name}.{table}", 2)
        await h.stop(name)
        offs = await h.offsets(name)
        in_progress = {
            "last_snapshot_record": False,
            "lsn": offs[0]["offset"]["lsn"],
            "txId": offs[0]["offset"]["txId"],
            "ts_usec": offs[0]["offset"]["ts_usec"],
            "snapshot": "INITIAL",
            "snapshot_completed": False,
        }
        r = await h.client.patch(
            f"/connectors/{name}/offsets",
            json={"offsets": [{"partition": offs[0]["partition"], "offset": in_progress}]},
        )
        assert r.status_code == 200, r.text
        await h.reconfigure(name, {**config, "snapshot.mode": "no_data"})
        await h.resume(name)
        task = await h.task_state(name, "FAILED")
        assert (
            "The connector previously stopped while taking a snapshot, but now the connector is configured to never "
            "allow snapshots. Reconfigure the connector to use snapshots initially or when needed." in task["trace"]
        )


async def test_s10_lost_database_connections_recover_without_loss_or_duplicates(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=2)
    topic = f"{name}.{table}"
    config = h.config(name, name, **{"errors.max.retries": "10", "retriable.restart.connector.wait.ms": "300"})
    async with connector(h, name, config):
        await h.records(topic, 2)
        await h.insert_customers(table, [3, 4])
        await h.records(topic, 4)
        for round_ in range(2):
            backends = await h.query(
                "SELECT pid, backend_type FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                (h.dbname,),
            )
            assert {b for _, b in backends} >= {"walsender", "client backend"}, backends
            await h.sql(*[("SELECT pg_terminate_backend(%s)", (pid,)) for pid, _ in backends])
            base = 5 + 2 * round_
            await h.insert_customers(table, [base])  # committed while the connector is cut off
            await asyncio.sleep(1.0)
            await h.insert_customers(table, [base + 1])

            async def active_again() -> bool:
                slot = await h.slot(name)
                return bool(slot and slot[3])

            await wait(active_again, 30)
        records = await h.records(topic, 8, timeout=45, settle=2.0)
        assert ids_and_ops(records) == [("r", 1), ("r", 2)] + [("c", i) for i in range(3, 9)]
        assert (await h.status(name))["tasks"][0]["state"] == "RUNNING"


# -- item 17: kill -9 of the worker process in the middle of a snapshot ----------------------------------------------
KILL_ROWS = 150_000


def _worker_props(path: Path, bootstrap: str, prefix: str, port: int) -> None:
    path.write_text(
        "\n".join(
            [
                f"bootstrap.servers={bootstrap}",
                f"listeners=http://127.0.0.1:{port}",
                f"offset.storage.topic={prefix}-offsets",
                f"config.storage.topic={prefix}-configs",
                f"status.storage.topic={prefix}-status",
                "offset.storage.replication.factor=1",
                "config.storage.replication.factor=1",
                "status.storage.replication.factor=1",
                "offset.flush.interval.ms=100",
                "key.converter=org.apache.kafka.connect.json.JsonConverter",
                "value.converter=org.apache.kafka.connect.json.JsonConverter",
                "value.converter.schemas.enable=false",
            ]
        )
        + "\n"
    )


async def _wait_healthy(url: str, proc: asyncio.subprocess.Process, timeout: float = 30) -> None:
    async def healthy() -> bool:
        if proc.returncode is not None:
            raise AssertionError(f"worker exited early with {proc.returncode}")
        try:
            async with httpx.AsyncClient(timeout=1) as c:
                return bool((await c.get(url + "/health")).json().get("status") == "healthy")
        except httpx.HTTPError:
            return False

    await wait(healthy, timeout)


async def _kill(proc: asyncio.subprocess.Process, sig: int, timeout: float) -> None:
    if proc.returncode is None:
        proc.send_signal(sig)
    try:
        await asyncio.wait_for(proc.wait(), timeout)
    except TimeoutError:
        proc.kill()
        await asyncio.wait_for(proc.wait(), 10)


async def test_item17_kill_mid_snapshot_restarts_the_snapshot_from_the_first_row(h: Harness, tmp_path: Path) -> None:
    from tests.worker_support import free_port

    name = h.name()
    table = await h.customers(name, rows=0)
    await h.sql(f"INSERT INTO {table} SELECT i, 'F' || i, 'L' || i, 'e' || i FROM generate_series(1, {KILL_ROWS}) i")
    topic = f"{name}.{table}"
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    props = tmp_path / "worker.properties"
    _worker_props(props, h.bootstrap, name + "w", port)
    connector_props = tmp_path / "pg.properties"
    config = h.config(name, name, **{"max.batch.size": "500", "max.queue.size": "1000", "name": name})
    connector_props.write_text("".join(f"{k}={v}\n" for k, v in config.items()))
    cmd = [sys.executable, "-m", "connect_worker", str(props), str(connector_props)]
    logs = tmp_path / "worker.log"

    def snapshot_marks(records: list[Any]) -> list[tuple[int, str]]:
        out = []
        for r in records:
            v = orjson.loads(r.value)
            out.append((v["after"]["id"], v["source"]["snapshot"]))
        return out

    with logs.open("wb") as log:
        first = await asyncio.create_subprocess_exec(*cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            await _wait_healthy(url, first)

            async def snapshot_offset_committed() -> bool:
                async with httpx.AsyncClient(base_url=url, timeout=5) as c:
                    r = await c.get(f"/connectors/{name}/offsets")
                offs = r.json().get("offsets") if r.status_code == 200 else None
                return bool(offs and offs[0]["offset"].get("snapshot_completed") is False)

            await wait(snapshot_offset_committed, 60)
        finally:
            await _kill(first, signal.SIGKILL, 10)
        before = await h.read(topic)
        assert 0 < len(before) < KILL_ROWS, f"kill must land mid-snapshot ({len(before)} of {KILL_ROWS})"

        second = await asyncio.create_subprocess_exec(*cmd, stdout=log, stderr=subprocess.STDOUT)
        try:
            await _wait_healthy(url, second)
            records = await h.records(topic, len(before) + KILL_ROWS, timeout=120)
        finally:
            await _kill(second, signal.SIGTERM, 60)
    rerun = snapshot_marks(records[len(before) :])
    assert rerun[0] == (1, "first"), rerun[:3]
    assert rerun[-1][1] == "last"
    assert sorted(i for i, _ in rerun) == list(range(1, KILL_ROWS + 1))
    await h.drop_slot(name)
    await h.sql(f"DROP PUBLICATION IF EXISTS {name}")
