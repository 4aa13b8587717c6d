"""The parallel, chunked initial snapshot (`snapshot.max.threads` > 1, connectors/postgres/snapshot_chunks.py)
against the real PostgreSQL 15 and Kafka.

What must hold: the records, their order and their `source.snapshot` marks equal the serial snapshot's, for
tables with and without a primary key and with a SELECT override; several connections share one snapshot, so
changes made while the chunks are read are streamed after the snapshot and never seen in it; the same holds
when no exported snapshot exists (snapshot.mode=always on an existing slot); a failing chunk fails the task.
"""

from __future__ import annotations

import logging
import re
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

ROWS = 20_000  # about 160 heap pages: split into several ranges
PARALLEL = {"snapshot.max.threads": "3", "snapshot.max.threads.multiplier": "2"}


h = harness_fixture("accp")


async def _tables(h: Harness, schema: str) -> None:
    """customers (primary key), events (no key, repeated rows), picked (snapshotted by a SELECT override)."""
    await h.sql(
        f"CREATE SCHEMA {schema}",
        f"CREATE TABLE {schema}.customers (id int PRIMARY KEY, name text NOT NULL, note text)",
        f"INSERT INTO {schema}.customers SELECT i, 'name ' || i, repeat('x', i % 40) FROM generate_series(1, {ROWS}) i",
        f"CREATE TABLE {schema}.events (kind text, amount numeric(10,2))",
        f"ALTER TABLE {schema}.events REPLICA IDENTITY FULL",
        f"INSERT INTO {schema}.events SELECT 'k' || (i % 7), (i % 13) * 1.5 FROM generate_series(1, 8000) i",
        f"CREATE TABLE {schema}.picked (id int PRIMARY KEY, v text)",
        f"INSERT INTO {schema}.picked SELECT i, 'v' || i FROM generate_series(1, 50) i",
        f"ANALYZE {schema}.customers",
    )


async def _customers(h: Harness, schema: str, rows: int) -> None:
    """Schema `schema` with a table customers(id, name) of ids 1..rows."""
    await h.sql(
        f"CREATE SCHEMA {schema}",
        f"CREATE TABLE {schema}.customers (id int PRIMARY KEY, name text NOT NULL)",
        f"INSERT INTO {schema}.customers SELECT i, 'name ' || i FROM generate_series(1, {rows}) i",
    )


def _view(records: list[Any]) -> list[tuple[Any, ...]]:
    """What a consumer sees of snapshot records, without the per-run fields (LSN, txId, times, names)."""
    out = []
    for r in records:
        p = payload(r)
        out.append((p["op"], key_payload(r), p["after"], p["source"]["snapshot"], p["source"]["table"]))
    return out


def _chunk_log(caplog: pytest.LogCaptureFixture) -> tuple[int, int]:
    for rec in caplog.records:
        m = re.match(r"snapshot: (\d+) chunks of (\d+) tables", rec.getMessage())
        if m:
            return int(m.group(1)), int(m.group(2))
    raise AssertionError("the parallel snapshot did not run (no chunk plan logged)")


async def _snapshot(h: Harness, schema: str, extra: dict[str, str]) -> dict[str, list[tuple[Any, ...]]]:
    name = h.name()
    picked = f"{schema}.picked"
    config = h.config(
        name,
        schema,
        **{
            "snapshot.select.statement.overrides": picked,
            f"snapshot.select.statement.overrides.{picked}": f"SELECT * FROM {picked} WHERE id % 5 = 0",
            **extra,
        },
    )
    wanted = {"customers": ROWS, "events": 8000, "picked": 10}
    async with connector(h, name, config):
        return {t: _view(await h.records(f"{name}.{schema}.{t}", n, timeout=90, settle=0.5)) for t, n in wanted.items()}


async def test_parallel_snapshot_equals_the_serial_one(h: Harness, caplog: pytest.LogCaptureFixture) -> None:
    schema = h.name()
    await _tables(h, schema)
    serial = await _snapshot(h, schema, {})
    with caplog.at_level(logging.INFO, logger="connectors.postgres.snapshot"):
        parallel = await _snapshot(h, schema, PARALLEL)
    chunks, tables = _chunk_log(caplog)
    assert tables == 3 and chunks >= 3 + 5, "customers should be read in 6 ranges, events in several"
    for table in ("customers", "events", "picked"):
        assert parallel[table] == serial[table], table
    # the marks of one snapshot across its three tables (sorted table order: customers, events, picked)
    marks = [v[3] for t in ("customers", "events", "picked") for v in parallel[t]]
    assert marks[0] == "first" and marks[-1] == "last"
    assert marks.count("first_in_data_collection") == 2 and marks.count("last_in_data_collection") == 2
    assert sorted(v[1]["id"] for v in parallel["customers"]) == list(range(1, ROWS + 1))


async def test_changes_during_a_parallel_snapshot_are_streamed_after_it(h: Harness) -> None:
    name = h.name()
    rows = 3 * ROWS  # ranges of 10,000 rows: more than a reader buffers ahead, so the last ones are read late
    await _customers(h, name, rows)
    topic = f"{name}.{name}.customers"
    # a throttled snapshot: the changes below land while most chunks are still to be read
    config = h.config(name, name, **PARALLEL, **{"max.batch.size": "200", "max.queue.size": "400"})
    async with connector(h, name, config):
        first = await h.records(topic, 1, timeout=30)
        assert payload(first[0])["op"] == "r"
        await h.sql(
            f"UPDATE {name}.customers SET name = 'changed' WHERE id = {rows}",  # in the last range
            f"DELETE FROM {name}.customers WHERE id = {rows // 2}",  # in a middle one
            f"INSERT INTO {name}.customers VALUES ({rows + 1}, 'new')",
        )
        records = await h.records(topic, rows + 4, timeout=180, settle=1.0)
    ops = [(payload(r)["op"] if payload(r) else None, key_payload(r)["id"]) for r in records]
    reads = [v for v in records if payload(v) and payload(v)["op"] == "r"]
    assert sorted(key_payload(r)["id"] for r in reads) == list(range(1, rows + 1))
    by_id = {key_payload(r)["id"]: payload(r)["after"] for r in reads}
    assert by_id[rows] == {"id": rows, "name": f"name {rows}"}  # the snapshot's value, not the update
    assert ops[rows:] == [("u", rows), ("d", rows // 2), (None, rows // 2), ("c", rows + 1)]


async def test_readers_share_the_snapshot_taken_before_they_start(h: Harness) -> None:
    """Rows changed after the snapshot was taken but before the readers' first statement stay out of it: every
    reader imports the snapshot transaction's snapshot (a reader with its own would see these changes)."""
    name = h.name()
    await _customers(h, name, ROWS)
    topic = f"{name}.{name}.customers"
    plugins = "tests.integration.postgres.acceptance.snapshot_plugins"
    pause = {"snapshot.locking.mode": "custom", "snapshot.locking.mode.custom.name": f"{plugins}:PauseBeforeReading"}
    async with connector(h, name, h.config(name, name, **PARALLEL, **pause)):

        async def pausing() -> bool:
            rows = await h.query(
                "SELECT 1 FROM pg_stat_activity WHERE datname = %s AND query = 'SELECT pg_sleep(2)'", (h.dbname,)
            )
            return bool(rows)

        await wait(pausing, 30)
        await h.sql(
            f"UPDATE {name}.customers SET name = 'changed' WHERE id IN (1, {ROWS})",  # first and last range
            f"INSERT INTO {name}.customers VALUES ({ROWS + 1}, 'new')",
        )
        records = await h.records(topic, ROWS + 3, timeout=90, settle=1.0)
    reads = {key_payload(r)["id"]: payload(r)["after"]["name"] for r in records if payload(r)["op"] == "r"}
    assert sorted(reads) == list(range(1, ROWS + 1))
    assert reads[1] == "name 1" and reads[ROWS] == f"name {ROWS}"
    assert [(payload(r)["op"], key_payload(r)["id"]) for r in records[ROWS:]] == [
        ("u", 1),
        ("u", ROWS),
        ("c", ROWS + 1),
    ]


async def test_always_mode_resnapshots_in_parallel_without_an_exported_snapshot(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """On a restart the slot exists: the snapshot transaction exports its own snapshot for the readers."""
    name = h.name()
    await _customers(h, name, ROWS)
    topic = f"{name}.{name}.customers"
    async with connector(h, name, h.config(name, name, **PARALLEL, **{"snapshot.mode": "always"})):
        await h.records(topic, ROWS, timeout=90)
        await h.stop(name)
        await h.sql(f"UPDATE {name}.customers SET name = 'again' WHERE id <= 3")
        caplog.clear()
        with caplog.at_level(logging.INFO, logger="connectors.postgres.snapshot"):
            await h.resume(name)
            records = await h.records(topic, 2 * ROWS, timeout=90, settle=0.5)
        _chunk_log(caplog)
    second = [payload(r) for r in records[ROWS:]]
    assert [p["op"] for p in second] == ["r"] * ROWS
    assert sorted(p["after"]["id"] for p in second) == list(range(1, ROWS + 1))
    assert {p["after"]["id"]: p["after"]["name"] for p in second}[2] == "again"
    assert second[0]["source"]["snapshot"] == "first" and second[-1]["source"]["snapshot"] == "last"


async def test_a_failing_chunk_fails_the_task(h: Harness) -> None:
    """A reader's error (the database fails the chunk's COPY part way) reaches the task as its failure."""
    name = h.name()
    await _customers(h, name, ROWS)
    table = f"{name}.customers"
    config = h.config(
        name,
        name,
        **PARALLEL,
        **{  # division by zero at row 15000, inside the COPY of a reader connection
            "snapshot.select.statement.overrides": table,
            f"snapshot.select.statement.overrides.{table}": (
                f"SELECT id, name || (1 / (id - 15000))::text AS name FROM {table} ORDER BY id"
            ),
        },
    )
    async with connector(h, name, config):
        status = await h.task_state(name, "FAILED", timeout=60)
        assert "division by zero" in status.get("trace", ""), status.get("trace", "")[:800]


async def test_stopping_mid_snapshot_cancels_every_reader_and_resumes_cleanly(
    h: Harness, caplog: pytest.LogCaptureFixture
) -> None:
    """A stop while the readers wait on full buffers (the snapshot connection among them, inside a COPY): every
    COPY is cancelled before the transaction ends, nothing is logged as an error, no reader connection stays,
    and the resumed task redoes the snapshot from the first row (the snapshot was not completed)."""
    name = h.name()
    rows = 3 * ROWS
    await _customers(h, name, rows)
    topic = f"{name}.{name}.customers"
    config = h.config(name, name, **PARALLEL, **{"max.batch.size": "200", "max.queue.size": "400"})
    with caplog.at_level(logging.INFO):
        async with connector(h, name, config):
            await h.records(topic, 1, timeout=30)
            await h.stop(name)

            async def readers_gone() -> bool:
                left = await h.query(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND query ILIKE 'COPY%%'", (h.dbname,)
                )
                return bool(left[0][0] == 0)

            await wait(readers_gone, 20)
            assert not [r for r in caplog.records if r.levelno >= logging.ERROR], [
                r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR
            ]
            await h.resume(name)
            records = await h.records(topic, rows + 1, timeout=180, settle=1.0)
    ops = [(payload(r)["op"], key_payload(r)["id"]) for r in records]
    assert all(op == "r" for op, _ in ops)
    first_of_second = max(i for i, r in enumerate(records) if payload(r)["source"]["snapshot"] == "first")
    assert first_of_second > 0, "the resumed task starts a new snapshot"
    assert sorted(i for _, i in ops[first_of_second:]) == list(range(1, rows + 1))
