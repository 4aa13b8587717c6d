"""Signals and incremental snapshots (postgresql.md §2.4-2.5, issue 16) on the real PostgreSQL 15 and Kafka.

Each test has its own schema, signal table, slot, publication and topic prefix. What the records and offsets must
hold follows Debezium 3.6.3 (tests/differential/test_signals_differential.py compares with it directly).
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from typing import Any

import pytest

from tests.integration.postgres.acceptance.pg_harness import (
    Harness,
    connector,
    harness_fixture,
    key_payload,
    payload,
    signal_setup,
    wait,
)

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="module")]

h = harness_fixture("accg")


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
    items, sig = await signal_setup(h, name, 2500)
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
        notes = await h.records(f"{name}.notifications", 6, timeout=30)
        assert payload(notes[0])["aggregate_type"] == "Initial Snapshot" and payload(notes[0])["type"] == "SKIPPED"
        notes = [n for n in notes if payload(n)["aggregate_type"] == "Incremental Snapshot"]
        types = [payload(n)["type"] for n in notes]
        assert types[0] == "STARTED" and types[-1] == "COMPLETED", types
        assert "TABLE_SCAN_COMPLETED" in types and "IN_PROGRESS" in types
        completed = next(payload(n) for n in notes if payload(n)["type"] == "TABLE_SCAN_COMPLETED")
        assert completed["additional_data"]["status"] == "SUCCEEDED"
        assert completed["additional_data"]["total_rows_scanned"] == "2500"
        assert completed["id"] == "ad-hoc-1" and completed["aggregate_type"] == "Incremental Snapshot"


async def _snapshot_under_a_writer(h: Harness, extra: Callable[[str], dict[str, str]], signal_file: Any = None) -> str:
    """A 100,000-row incremental snapshot while a writer updates, deletes and inserts rows of the table: the final
    content read from Kafka, deduplicated per key, equals the table's (the DBLog guarantee). Returns the signal
    table's name."""
    name = h.name()
    rows = 100_000
    items, sig = await signal_setup(h, name, rows)
    config = h.config(
        name, name, **{"snapshot.mode": "no_data", "incremental.snapshot.chunk.size": "1024", **extra(name)}
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
        request = {"data-collections": [items]}
        if signal_file is None:
            await signal(h, sig, "ad-hoc-2", "execute-snapshot", request)
        else:
            signal_file.write_text(json.dumps({"id": "ad-hoc-2", "type": "execute-snapshot", "data": request}) + "\n")

        await asyncio.sleep(3)  # the offsets show the snapshot running before it is waited for
        await wait(lambda: _snapshot_finished(h, name), 240)
        stop.set()
        writes = await task
        assert writes > 100, writes  # the writer ran during the whole snapshot
        await asyncio.sleep(3)
        got = await h.read(f"{name}.{items}")
        assert sum(1 for r in got if (p := payload(r)) is not None and p["op"] == "r") >= rows // 2
        table = {r[0]: r for r in await h.query(f"SELECT id, label, qty FROM {items}")}
        state = final_state(got)
        assert state.keys() == table.keys()
        for i, after in state.items():
            assert (after["id"], after["label"], after["qty"]) == table[i]
    return sig


async def test_incremental_snapshot_while_a_writer_updates_and_deletes(h: Harness) -> None:
    sig = await _snapshot_under_a_writer(
        h,
        lambda name: {
            "signal.data.collection": f"{name}.dbz_signal",
            "incremental.snapshot.watermarking.strategy": "insert_delete",
        },
    )
    # insert_delete leaves no watermark behind
    left = await h.query(f"SELECT count(*) FROM {sig} WHERE type LIKE 'snapshot-window-%%'")
    assert left == [(0,)]


async def test_read_only_incremental_snapshot_while_a_writer_updates_and_deletes(h: Harness, tmp_path: Any) -> None:
    """read.only: windows bounded by transaction ids, nothing written (the signal table stays empty)."""
    signal_file = tmp_path / "signals.txt"
    sig = await _snapshot_under_a_writer(
        h,
        lambda name: {
            "read.only": "true",
            "signal.enabled.channels": "file",
            "signal.file": str(signal_file),
            "signal.poll.interval.ms": "200",
        },
        signal_file,
    )
    assert await h.query(f"SELECT count(*) FROM {sig}") == [(0,)]


async def _snapshot_finished(h: Harness, name: str) -> bool:
    """No incremental snapshot in the connector's stored offsets any more."""
    offsets = await h.offsets(name)
    return bool(offsets) and all("incremental_snapshot_collections" not in o["offset"] for o in offsets)


def _reads(records: list[Any]) -> list[int]:
    return [p["after"]["id"] for r in records if (p := payload(r)) is not None and p["op"] == "r"]


async def _settled_reads(h: Harness, topic: str, quiet: float = 1.5) -> list[int]:
    """The READ ids once nothing new arrived for `quiet` seconds."""
    last = _reads(await h.read(topic))
    while True:
        await asyncio.sleep(quiet)
        now = _reads(await h.read(topic))
        if len(now) == len(last):
            return now
        last = now


async def test_pause_resume_and_stop(h: Harness) -> None:
    name = h.name()
    items, sig = await signal_setup(h, name, 60000)
    await h.sql(f"CREATE TABLE {name}.other (id int PRIMARY KEY)", f"INSERT INTO {name}.other VALUES (1), (2)")
    config = h.config(
        name,
        name,
        **{
            "snapshot.mode": "no_data",
            "signal.data.collection": sig,
            "incremental.snapshot.chunk.size": "50",
            "notification.enabled.channels": "sink",
            "notification.sink.topic.name": f"{name}.notifications",
        },
    )
    topic = f"{name}.{items}"
    async with connector(h, name, config):
        await h.task_state(name, "RUNNING")
        await asyncio.sleep(2)
        await signal(h, sig, "s1", "execute-snapshot", {"data-collections": [items, f"{name}.other"]})
        await h.records(topic, 500, timeout=30)
        await signal(h, sig, "p1", "pause-snapshot", None)
        paused = await _settled_reads(h, topic)
        assert len(paused) < 60000
        await asyncio.sleep(2)
        assert len(_reads(await h.read(topic))) == len(paused), "rows read while paused"
        await signal(h, sig, "r1", "resume-snapshot", None)
        await h.records(topic, len(paused) + 500, timeout=30)
        await signal(h, sig, "st1", "stop-snapshot", {"data-collections": [items], "type": "incremental"})
        stopped = await _settled_reads(h, topic)
        assert len(stopped) < 60000 and stopped == sorted(stopped)
        # the next table of the snapshot still comes after the stopped one
        others = _reads(await h.records(f"{name}.{name}.other", 2, timeout=30))
        assert others == [1, 2]
        notes = [payload(n) for n in await h.read(f"{name}.notifications")]
        incremental = [n["type"] for n in notes if n["aggregate_type"] == "Incremental Snapshot"]
        for kind in ("STARTED", "PAUSED", "RESUMED", "ABORTED", "COMPLETED"):
            assert kind in incremental, incremental
        aborted = next(n for n in notes if n["type"] == "ABORTED")
        assert aborted["additional_data"]["data_collections"] == items
        assert (await h.status(name))["tasks"][0]["state"] == "RUNNING"


async def test_kafka_and_file_channels_and_bad_signals(h: Harness, tmp_path: Any) -> None:
    from confluent_kafka import Producer
    from confluent_kafka.admin import AdminClient, NewTopic

    name = h.name()
    items, sig = await signal_setup(h, name, 40)
    await h.sql(
        f"CREATE TABLE {name}.more (id int PRIMARY KEY)", f"INSERT INTO {name}.more SELECT generate_series(1, 7)"
    )
    signal_topic = f"{name}-signal"
    admin = AdminClient({"bootstrap.servers": h.bootstrap})
    for future in admin.create_topics([NewTopic(signal_topic, 1, 1)]).values():
        future.result(30)
    signal_file = tmp_path / "signals.txt"
    config = h.config(
        name,
        name,
        **{
            "snapshot.mode": "no_data",
            "signal.data.collection": sig,
            "signal.enabled.channels": "source,kafka,file",
            "signal.kafka.bootstrap.servers": h.bootstrap,
            "signal.kafka.groupId": f"{name}-group",
            "signal.file": str(signal_file),
            "signal.poll.interval.ms": "300",
        },
    )
    async with connector(h, name, config):
        await h.task_state(name, "RUNNING")
        await asyncio.sleep(2)
        # bad signals first: logged and dropped, the task keeps running
        await signal(h, sig, "bad-1", "execute-snapshot", "{not json")
        await signal(h, sig, "bad-2", "no-such-action", {})
        await signal(h, sig, "bad-3", "stop-snapshot", {"type": "incremental"})
        producer = Producer({"bootstrap.servers": h.bootstrap})
        wrong = json.dumps({"id": "k0", "type": "execute-snapshot", "data": {"data-collections": [f"{name}.more"]}})
        producer.produce(signal_topic, key="someone-else", value=wrong)  # another connector's: ignored
        good = json.dumps({"id": "k1", "type": "execute-snapshot", "data": {"data-collections": [items]}})
        producer.produce(signal_topic, key=name, value=good)
        producer.flush(30)
        got = await h.records(f"{name}.{items}", 40, timeout=60)
        assert sorted(_reads(got)) == list(range(1, 41))
        await asyncio.sleep(1)
        assert await h.read(f"{name}.{name}.more") == [], "a signal keyed for another connector was processed"
        signal_file.write_text(
            json.dumps({"id": "f1", "type": "execute-snapshot", "data": {"data-collections": [f"{name}.more"]}}) + "\n"
        )
        more = await h.records(f"{name}.{name}.more", 7, timeout=60)
        assert sorted(_reads(more)) == list(range(1, 8))
        assert signal_file.read_text() == "", "the file channel empties the file once read"
        assert (await h.status(name))["tasks"][0]["state"] == "RUNNING"
        # every signal counted by outcome (ours: the dropped ones were also logged with their id)
        metrics = (await h.client.get("/metrics")).text
        counted = {
            outcome: float(line.rsplit(" ", 1)[1])
            for line in metrics.splitlines()
            if line.startswith("debezium_postgres_connector_metrics_SignalsReceived") and f'server="{name}"' in line
            for outcome in ("processed", "unknown", "malformed", "failed")
            if f'outcome="{outcome}"' in line
        }
        assert counted["unknown"] == 1 and counted["malformed"] == 1 and counted["processed"] >= 3, counted


async def test_a_table_added_to_the_include_list_is_snapshotted_by_signal(h: Harness) -> None:
    name = h.name()
    items, sig = await signal_setup(h, name, 5)
    await h.sql(f"CREATE TABLE {name}.late (id int PRIMARY KEY, v text)", f"INSERT INTO {name}.late VALUES (1, 'a')")
    base = {
        "signal.data.collection": sig,
        "table.include.list": items,
        "notification.enabled.channels": "sink",
        "notification.sink.topic.name": f"{name}.notifications",
    }
    config = h.config(name, name, **base)
    async with connector(h, name, config):
        await h.records(f"{name}.{items}", 5, timeout=30)
        await h.reconfigure(name, {**config, "table.include.list": f"{items},{name}.late"})
        await asyncio.sleep(3)
        await h.task_state(name, "RUNNING")
        await h.sql(f"INSERT INTO {name}.late VALUES (2, 'b')")  # streamed: the table is captured now
        await signal(h, sig, "add-1", "execute-snapshot", {"data-collections": [f"{name}.late"]})
        got = [payload(r) for r in await h.records(f"{name}.{name}.late", 3, timeout=60)]
        assert [(p["op"], p["after"]["id"]) for p in got] == [("c", 2), ("r", 1), ("r", 2)]


async def _snapshot_of(h: Harness, table: str, ddl: str, fill: str, rows: int, chunk: int, **request: Any) -> list[Any]:
    """Create `table` (in a new schema with a signal table), snapshot it incrementally; its READ payloads."""
    name = h.name()
    _, sig = await signal_setup(h, name, 0)
    await h.sql(ddl.format(t=f"{name}.{table}"), fill.format(t=f"{name}.{table}"))
    extra = {"snapshot.mode": "no_data", "signal.data.collection": sig, "incremental.snapshot.chunk.size": str(chunk)}
    async with connector(h, name, h.config(name, name, **extra)):
        await h.task_state(name, "RUNNING")
        await asyncio.sleep(2)
        await signal(h, sig, "t1", "execute-snapshot", {"data-collections": [f"{name}.{table}"], **request})
        got = await h.records(f"{name}.{name}.{table}", rows, timeout=30, settle=1.0)
    return [payload(r) for r in got]


async def test_surrogate_key_on_a_table_without_a_key_emits_every_row(h: Harness) -> None:
    """Debezium keys its window by the record key, which a keyless table does not have: it emits one row per
    chunk. This worker keeps such rows apart by their chunk key and emits all of them (a deliberate difference)."""
    got = await _snapshot_of(
        h,
        "nokey",
        "CREATE TABLE {t} (n int NOT NULL, label text)",
        "INSERT INTO {t} SELECT g, 'x' || g FROM generate_series(1, 25) g",
        25,
        7,
        **{"surrogate-key": "n"},
    )
    assert sorted(p["after"]["n"] for p in got) == list(range(1, 26))


async def test_a_money_key_is_read_to_the_end(h: Harness) -> None:
    """Debezium binds a money key as a numeric ("operator does not exist: money > numeric") and skips the table
    after its first chunk; here every chunk is read (a deliberate difference)."""
    got = await _snapshot_of(
        h,
        "by_money",
        "CREATE TABLE {t} (m money PRIMARY KEY, n int)",
        "INSERT INTO {t} SELECT (g * 1234.5)::numeric::money, g FROM generate_series(-4, 8) g",
        13,
        5,
    )
    assert sorted(p["after"]["n"] for p in got) == list(range(-4, 9))


async def test_allow_schema_changes_reads_on_with_the_new_columns(h: Harness) -> None:
    """incremental.snapshot.allow.schema.changes: a column added while the snapshot is paused is noticed at the
    next window; the chunk is read again from the last row emitted, with the new column."""
    name = h.name()
    items, sig = await signal_setup(h, name, 60000)
    config = h.config(
        name,
        name,
        **{
            "snapshot.mode": "no_data",
            "signal.data.collection": sig,
            "incremental.snapshot.chunk.size": "50",
            "incremental.snapshot.allow.schema.changes": "true",
        },
    )
    topic = f"{name}.{items}"
    async with connector(h, name, config):
        await h.task_state(name, "RUNNING")
        await asyncio.sleep(2)
        await signal(h, sig, "s1", "execute-snapshot", {"data-collections": [items]})
        await h.records(topic, 300, timeout=30)
        await signal(h, sig, "p1", "pause-snapshot", None)
        before = await _settled_reads(h, topic)
        assert len(before) < 60000
        await h.sql(f"ALTER TABLE {items} ADD COLUMN extra text DEFAULT 'new'")
        await signal(h, sig, "r1", "resume-snapshot", None)
        await h.records(topic, 60000, timeout=90)
        await asyncio.sleep(2)
        got = await h.read(topic)
        reads = [p for r in got if (p := payload(r)) is not None and p["op"] == "r"]
        assert {p["after"]["id"] for p in reads} == set(range(1, 60001))
        later = [p for p in reads[len(before) :]]
        assert later and all(p["after"].get("extra") == "new" for p in later), later[:2]
        # the watermark rows in Debezium's SignalMetadata form: its key order, a space after ':' and ','
        rows = await h.query(f"SELECT id, type, data FROM {sig} WHERE type LIKE 'snapshot-window-%%'")
        for row_id, kind, data in rows:
            keys = ["openWindowTimestamp"] + (["closeWindowTimestamp"] if kind.endswith("close") else [])
            assert list(json.loads(data)) == [*keys, "correlationId", "dataCollectionId"], data
            assert row_id.endswith("-" + kind.rsplit("-", 1)[1]) and '", "' in data and '": "' in data
        assert (await h.status(name))["tasks"][0]["state"] == "RUNNING"


async def test_a_watermark_that_cannot_be_written_skips_the_table_and_the_task_runs_on(h: Harness) -> None:
    """The signal table is dropped after the signal: the watermark write fails, the table is skipped with a
    TABLE_SCAN_COMPLETED notification (SQL_EXCEPTION), the snapshot completes and the task keeps streaming."""
    name = h.name()
    items, sig = await signal_setup(h, name, 10)
    config = h.config(
        name,
        name,
        **{
            "snapshot.mode": "no_data",
            "signal.data.collection": sig,
            "signal.enabled.channels": "source,jmx",
            "notification.enabled.channels": "sink",
            "notification.sink.topic.name": f"{name}.notifications",
        },
    )
    async with connector(h, name, config):
        await h.task_state(name, "RUNNING")
        await asyncio.sleep(2)
        await h.sql(f"DROP TABLE {sig}")

        async def posted() -> bool:
            body = {"id": "gone-1", "type": "execute-snapshot", "data": {"data-collections": [items]}}
            return (await h.client.post(f"/connectors/{name}/signals", json=body)).status_code == 202

        await wait(posted, 30)
        notes = await h.records(f"{name}.notifications", 3, timeout=30)
        kinds = [(payload(n)["type"], payload(n)["additional_data"].get("status")) for n in notes]
        assert ("TABLE_SCAN_COMPLETED", "SQL_EXCEPTION") in kinds and ("COMPLETED", None) in kinds, kinds
        await h.sql(f"INSERT INTO {items} VALUES (11, 'streamed', 1)")
        got = await h.records(f"{name}.{items}", 1, timeout=30)
        assert [payload(r)["op"] for r in got] == ["c"]
        assert (await h.status(name))["tasks"][0]["state"] == "RUNNING"
