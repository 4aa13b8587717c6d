"""Signals and incremental snapshots (postgresql.md §2.4-2.5, issue 16) on the real PostgreSQL 15 and Kafka.

Each test has its own schema, signal table, slot, publication and topic prefix. What the records and offsets must
hold follows Debezium 3.6.3 (tests/differential/test_signals_differential.py compares with it directly).
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

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

h = harness_fixture("accg")

SIGNAL_DDL = "CREATE TABLE {s}.dbz_signal (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))"


async def setup(h: Harness, name: str, rows: int) -> tuple[str, str]:
    """A schema with a `items` table of `rows` rows and a signal table; returns (items, signal table)."""
    await h.sql(
        f"CREATE SCHEMA {name}",
        f"CREATE TABLE {name}.items (id int PRIMARY KEY, label text NOT NULL, qty int)",
        SIGNAL_DDL.format(s=name),
        f"INSERT INTO {name}.items SELECT g, 'item ' || g, g % 7 FROM generate_series(1, {rows}) g",
    )
    return f"{name}.items", f"{name}.dbz_signal"


async def signal(h: Harness, table: str, signal_id: str, kind: str, data: Any) -> None:
    text = data if isinstance(data, str) or data is None else json.dumps(data)
    await h.sql((f"INSERT INTO {table} VALUES (%s, %s, %s)", (signal_id, kind, text)))


def final_state(records: list[Any]) -> dict[int, Any]:
    """The table content the topic describes: the last value per key (a delete removes it)."""
    state: dict[int, Any] = {}
    for r in records:
        key = key_payload(r)
        if key is None:
            continue
        p = payload(r)
        if p is None or p["op"] == "d":
            state.pop(key["id"], None)
        else:
            state[key["id"]] = p["after"]
    return state


async def test_incremental_snapshot_of_a_table_signalled_through_the_signal_table(h: Harness) -> None:
    name = h.name()
    items, sig = await setup(h, name, 2500)
    config = h.config(
        name,
        name,
        **{
            "snapshot.mode": "no_data",
            "signal.data.collection": sig,
            "incremental.snapshot.chunk.size": "1000",
            "notification.enabled.channels": "sink,log",
            "notification.sink.topic.name": f"{name}.notifications",
        },
    )
    async with connector(h, name, config):
        await h.task_state(name, "RUNNING")
        await asyncio.sleep(2)  # the slot exists: the signal is in the stream
        await signal(h, sig, "ad-hoc-1", "execute-snapshot", {"data-collections": [items], "type": "incremental"})
        got = await h.records(f"{name}.{items}", 2500, timeout=60)
        reads = [payload(r) for r in got]
        assert {p["op"] for p in reads} == {"r"}
        assert sorted(p["after"]["id"] for p in reads) == list(range(1, 2501))
        first = reads[0]
        assert first["source"]["snapshot"] == "incremental"
        assert first["source"]["lsn"] is None and first["source"]["txId"] is None
        # three chunks, each an open and a close watermark in the signal table (insert_insert), plus the signal
        rows = await h.query(f"SELECT id, type FROM {sig} ORDER BY type, id")
        kinds = [t for _, t in rows]
        assert kinds.count("snapshot-window-open") == kinds.count("snapshot-window-close") >= 3
        notes = await h.records(f"{name}.notifications", 5, timeout=30)
        types = [payload(n)["type"] for n in notes]
        assert types[0] == "STARTED" and types[-1] == "COMPLETED", types
        assert "TABLE_SCAN_COMPLETED" in types and "IN_PROGRESS" in types
        completed = next(payload(n) for n in notes if payload(n)["type"] == "TABLE_SCAN_COMPLETED")
        assert completed["additional_data"]["status"] == "SUCCEEDED"
        assert completed["additional_data"]["total_rows_scanned"] == "2500"
        assert completed["id"] == "ad-hoc-1" and completed["aggregate_type"] == "Incremental Snapshot"


async def test_incremental_snapshot_while_a_writer_updates_and_deletes(h: Harness) -> None:
    """The final content read from Kafka, deduplicated per key, equals the table's (the DBLog guarantee)."""
    name = h.name()
    rows = 100_000
    items, sig = await setup(h, name, rows)
    config = h.config(
        name,
        name,
        **{
            "snapshot.mode": "no_data",
            "signal.data.collection": sig,
            "incremental.snapshot.chunk.size": "1024",
            "incremental.snapshot.watermarking.strategy": "insert_delete",
        },
    )
    async with connector(h, name, config):
        await h.task_state(name, "RUNNING")
        await asyncio.sleep(2)
        stop = asyncio.Event()

        async def writer() -> int:
            rng = random.Random(16)
            n = 0
            while not stop.is_set():
                i = rng.randint(1, rows + 2000)
                choice = rng.random()
                if choice < 0.5:
                    await h.sql(f"UPDATE {items} SET qty = coalesce(qty, 0) + 1, label = 'w{n}' WHERE id = {i}")
                elif choice < 0.7:
                    await h.sql(f"DELETE FROM {items} WHERE id = {i}")
                else:
                    await h.sql(f"INSERT INTO {items} VALUES ({i}, 'new {n}', 0) ON CONFLICT (id) DO NOTHING")
                n += 1
            return n

        task = asyncio.create_task(writer())
        await signal(h, sig, "ad-hoc-2", "execute-snapshot", {"data-collections": [items]})

        await asyncio.sleep(3)  # the offsets show the snapshot running before it is waited for
        await wait(lambda: _snapshot_finished(h, name), 240)
        stop.set()
        writes = await task
        assert writes > 100, writes  # the writer ran during the whole snapshot
        await asyncio.sleep(3)
        got = await h.read(f"{name}.{items}")
        table = {r[0]: r for r in await h.query(f"SELECT id, label, qty FROM {items}")}
        state = final_state(got)
        assert state.keys() == table.keys()
        for i, after in state.items():
            assert (after["id"], after["label"], after["qty"]) == table[i]
        # insert_delete leaves no watermark behind
        left = await h.query(f"SELECT count(*) FROM {sig} WHERE type LIKE 'snapshot-window-%%'")
        assert left == [(0,)]


async def _snapshot_finished(h: Harness, name: str) -> bool:
    """No incremental snapshot in the connector's stored offsets any more."""
    offsets = await h.offsets(name)
    return bool(offsets) and all("incremental_snapshot_collections" not in o["offset"] for o in offsets)
