"""pgoutput protocol 2 with streaming of in-progress transactions (`slot.stream.params=streaming=on`), against
the real PostgreSQL 15 and Kafka: two connectors capture the same changes, one with streaming and one without, and
must write the same events (same LSNs, txIds, sequences and offsets). The module's database gets
logical_decoding_work_mem = 64kB, so the server streams every transaction above that while it runs, with savepoints
rolled back inside it and another transaction committing in the middle; the connector spills the long one to
disk and emits it at its commit."""

from __future__ import annotations

import asyncio
from typing import Any

import psycopg
import pytest

from connect_worker.kafka.reader import TopicRecord
from tests.integration.postgres.acceptance.pg_harness import (
    Harness,
    connector,
    harness_fixture,
    key_payload,
    payload,
    wait,
)

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="module")]

ROWS = 6000  # about 1.3 MB of changes: streamed in blocks, and more than one spill chunk


h = harness_fixture("accst", "ALTER DATABASE {dbname} SET logical_decoding_work_mem = '64kB'")


def _comparable(record: TopicRecord) -> Any:
    """What must be equal between the two connectors: everything but the topic prefix (source.name)."""
    p = payload(record)
    if p is None:
        return ("tombstone", key_payload(record))
    source = {k: v for k, v in p["source"].items() if k != "name"}
    return p["op"], p["before"], p["after"], source


async def _streaming_slot(h: Harness, slot: str) -> bool:
    rows = await h.query(
        "SELECT r.state = 'streaming' FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = s.active_pid"
        " WHERE s.slot_name = %s",
        (slot,),
    )
    return bool(rows and rows[0][0])


async def test_streamed_transactions_match_transactions_sent_at_commit(h: Harness) -> None:
    schema = h.name()
    await h.sql(
        f"CREATE SCHEMA {schema}",
        f"CREATE TABLE {schema}.t (id int PRIMARY KEY, v text, pad text)",
        f"INSERT INTO {schema}.t VALUES (0, 'seed', 'x')",
    )
    plain, streamed = h.name(), h.name()
    base = {"snapshot.mode": "no_data", "provide.transaction.metadata": "true"}
    async with (
        connector(h, plain, h.config(plain, schema, **base)),
        connector(h, streamed, h.config(streamed, schema, **base, **{"slot.stream.params": "streaming=on"})),
    ):
        for slot in (plain, streamed):
            await wait(lambda slot=slot: _streaming_slot(h, slot), 30)
        async with (
            await psycopg.AsyncConnection.connect(h.dsn) as big,
            await psycopg.AsyncConnection.connect(h.dsn, autocommit=True) as other,
        ):
            pad = "p" * 200
            await big.execute(
                f"INSERT INTO {schema}.t SELECT g, 'v' || g, %s FROM generate_series(1, {ROWS}) g", (pad,)
            )
            await big.execute("SAVEPOINT s1")
            await big.execute(f"INSERT INTO {schema}.t SELECT g, 'gone', %s FROM generate_series(-900, -1) g", (pad,))
            await big.execute("ROLLBACK TO SAVEPOINT s1")  # an aborted subtransaction inside a streamed one
            await big.execute("SAVEPOINT s2")
            await big.execute(f"UPDATE {schema}.t SET v = 'u' || id WHERE id <= 50")
            await big.execute("RELEASE SAVEPOINT s2")
            await other.execute(f"INSERT INTO {schema}.t VALUES (100000, 'meanwhile', 'x')")  # commits first
            await asyncio.sleep(0.5)
            await big.execute(f"DELETE FROM {schema}.t WHERE id BETWEEN 51 AND 60")
            await big.commit()
            # a streamed transaction that aborts as a whole emits nothing
            await big.execute(
                f"INSERT INTO {schema}.t SELECT g, 'never', %s FROM generate_series(-5000, -1001) g", (pad,)
            )
            await big.rollback()
            await other.execute(f"INSERT INTO {schema}.t VALUES (100001, 'last', 'x')")

        # 'meanwhile', the inserts, 51 updates (ids 0-50), 10 deletes + tombstones, 'last'
        expected = 1 + ROWS + 51 + 10 * 2 + 1
        got_plain = await h.records(f"{plain}.{schema}.t", expected, timeout=120, settle=1.0)
        got_streamed = await h.records(f"{streamed}.{schema}.t", expected, timeout=120, settle=1.0)
        assert len(got_plain) == len(got_streamed) == expected
        assert [_comparable(r) for r in got_streamed] == [_comparable(r) for r in got_plain]
        assert [key_payload(r) for r in got_streamed] == [key_payload(r) for r in got_plain]
        ops = [payload(r)["after"]["v"] if payload(r) and payload(r)["op"] == "c" else None for r in got_streamed]
        assert ops[0] == "meanwhile" and ops[-1] == "last" and "gone" not in ops and "never" not in ops
        # the transaction topic says the same (BEGIN/END with the same ids and counts)
        tx_plain = [_tx(r) for r in await h.records(f"{plain}.transaction", 6)]
        tx_streamed = [_tx(r) for r in await h.records(f"{streamed}.transaction", 6)]
        assert tx_streamed == tx_plain
        # the server really streamed to the one connector and not to the other
        stats = dict(await h.query("SELECT slot_name, stream_txns FROM pg_stat_replication_slots"))
        assert stats.get(streamed, 0) >= 2 and stats.get(plain, 0) == 0
        # and the committed offsets are the same
        assert await _offsets(h, streamed) == await _offsets(h, plain)


def _tx(record: TopicRecord) -> Any:
    p = payload(record)
    return p["status"], p["id"], p["event_count"], p["data_collections"]


async def _offsets(h: Harness, name: str) -> Any:
    async def settled() -> Any:
        offsets = await h.offsets(name)
        return offsets[0]["offset"] if offsets and offsets[0]["offset"].get("lsn_proc") else None

    return await wait(settled, 30)
