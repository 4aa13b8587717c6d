"""StreamingChangeSource: max.queue.size.in.bytes back-pressure and event.processing.failure.handling.mode."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from connect_worker.api import DataError
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol import pgoutput as pg
from connectors.postgres.source_info import SOURCE_SCHEMA, SourceInfo
from connectors.postgres.streaming import StreamingChangeSource, StreamingSettings
from connectors.postgres.value_converters import TypeOptions, converter_for
from connectors.relational import metadata_schemas as md
from connectors.relational.emitter import RecordFactory
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.schema_builder import SchemaBuilderSettings, TableSchema
from connectors.relational.table import Column, ColumnType, Table, TableId

TABLE = Table(
    TableId("public", "t"),
    (
        Column("id", 1, ColumnType(23, "int4", "N"), optional=False),
        Column("v", 2, ColumnType(25, "text", "S")),
        Column("n", 3, ColumnType(1700, "numeric", "N")),
    ),
    primary_key=("id",),
)
RELATION = pg.Relation(
    None, 1, "public", "t", "d", (pg.Column(1, "id", 23, -1), pg.Column(0, "v", 25, -1), pg.Column(0, "n", 1700, -1))
)


def _source(queue: ChangeEventQueue, **settings: Any) -> StreamingChangeSource:
    options = TypeOptions(decimal_handling_mode="precise")
    schema = TableSchema(
        TABLE,
        SchemaBuilderSettings(
            topic_prefix="p",
            converter_for=lambda c: converter_for(c, options),
            mapper_for=lambda t, c: None,
            key_columns_for=lambda t: None,
            column_included=lambda t, c: True,
            adjust_schema_name=lambda s: s,
            adjust_field_name=lambda s: s,
            source_schema=SOURCE_SCHEMA,
            transaction_schema=md.EVENT_BLOCK_SCHEMA,
        ),
    )

    async def schema_for(_t: TableId, _r: pg.Relation) -> TableSchema:
        return schema

    return StreamingChangeSource(
        queue=queue,
        records=RecordFactory(partition={"server": "p"}, headers=(), tombstones_on_delete=True),
        source_info=SourceInfo("p", "db"),
        schema_for=schema_for,
        topic_for=lambda t: f"p.{t}",
        transactions=None,
        message_records=lambda **kw: None,  # type: ignore[arg-type]
        settings=StreamingSettings(
            skipped_operations=frozenset(),
            message_filter=lambda _p: True,
            message_topic="p.message",
            binary_message_content=lambda b: b,
            **settings,
        ),
        stored=None,
    )


def _tx(xid: int, *changes: Any) -> list[tuple[Lsn, Any]]:
    base = xid * 1000
    out: list[tuple[Lsn, Any]] = [(Lsn(base), pg.Begin(Lsn(0), 1_000_000, xid)), (Lsn(base), RELATION)]
    out += [(Lsn(base + 10 * (i + 1)), c) for i, c in enumerate(changes)]
    out.append((Lsn(base + 999), pg.Commit(0, Lsn(base + 999), Lsn(base + 999), 1_000_000)))
    return out


def _insert(row_id: int, v: str | None = "x", n: str | None = "1.5") -> pg.Insert:
    return pg.Insert(None, 1, (str(row_id), v, n))


# -- max.queue.size.in.bytes ------------------------------------------------------------------------------


async def test_a_byte_limit_blocks_the_producer_until_poll_frees_room() -> None:
    queue = ChangeEventQueue(max_size=100, max_batch=10, poll_interval_s=0.05, max_bytes=3000)
    source = _source(queue, estimate_sizes=True)
    big = "y" * 1000
    batch = _tx(1, *(_insert(i, big) for i in range(5)))
    task = asyncio.get_running_loop().create_task(source.handle_batch(batch))
    await asyncio.sleep(0.1)
    # each record is estimated at ~1.5 kB: the second one reaches the limit, the third waits
    assert not task.done()
    assert len(queue) == 2
    first = await queue.poll()
    assert len(first) == 2
    rest: list[Any] = []

    async def drain() -> None:
        while len(first) + len(rest) < 5:
            rest.extend(await queue.poll())

    await asyncio.wait_for(drain(), 5)
    await asyncio.wait_for(task, 5)
    assert [r.value.get("after").get("id") for r in first + rest] == [0, 1, 2, 3, 4]


async def test_without_a_byte_limit_records_are_put_with_size_zero() -> None:
    queue = ChangeEventQueue(max_size=100, max_batch=10, poll_interval_s=0.05, max_bytes=0)
    source = _source(queue)
    await source.handle_batch(_tx(1, *(_insert(i, "y" * 10_000) for i in range(20))))
    assert len(queue) == 20
    assert queue._bytes == 0  # no estimate made at all


def test_the_estimate_counts_the_text_of_both_tuples() -> None:
    size = StreamingChangeSource._size_of
    assert size(pg.Insert(None, 1, ("1", "abc", None))) == size(pg.Insert(None, 1, (None, None, None))) + 4
    update = pg.Update(None, 1, None, ("1", "ab", None), ("1", "abcd", None))
    assert size(update) == size(pg.Insert(None, 1, ())) + 8
    assert size(pg.Delete(None, 1, ("12", None, None), None)) == size(pg.Insert(None, 1, ())) + 2


# -- event.processing.failure.handling.mode -------------------------------------------------------------------


async def test_fail_mode_raises_with_the_offset() -> None:
    queue = ChangeEventQueue(max_size=100, max_batch=10, poll_interval_s=0.05)
    source = _source(queue)
    with pytest.raises(DataError) as failure:
        await source.handle_batch(_tx(7, _insert(1), _insert(2, n="NaN")))
    message = str(failure.value)
    assert message.startswith("Error while processing event at offset {")
    assert "lsn=7020" in message and "txId=7" in message and "messageType=INSERT" in message
    assert isinstance(failure.value.__cause__, Exception)


@pytest.mark.parametrize("mode", ["warn", "skip", "ignore"])
async def test_warn_and_skip_modes_go_on_past_the_change(mode: str, caplog: pytest.LogCaptureFixture) -> None:
    queue = ChangeEventQueue(max_size=100, max_batch=10, poll_interval_s=0.05)
    source = _source(queue, failure_handling_mode=mode)
    with caplog.at_level(logging.DEBUG, logger="connectors.postgres.streaming"):
        await source.handle_batch(_tx(7, _insert(1), _insert(2, n="NaN"), _insert(3)))
    records = await queue.poll()
    assert [r.value.get("after").get("id") for r in records] == [1, 3]
    assert source.events_failed == 1
    assert source.last_commit_lsn == 7999  # the position advanced past the failed change
    warned = [r for r in caplog.records if r.levelno == logging.WARNING and "Error while processing" in r.message]
    debugged = [r for r in caplog.records if r.levelno == logging.DEBUG and "Error while processing" in r.message]
    assert (len(warned), len(debugged)) == ((1, 0) if mode == "warn" else (0, 1))
    assert "lsn=7020" in (warned or debugged)[0].message


# -- the commit position ---------------------------------------------------------------------------------------


async def test_a_transaction_without_a_change_moves_the_commit_position_without_a_record() -> None:
    """(decoderbufs sends BEGIN/COMMIT of a transaction nothing was captured of) Debezium takes its COMMIT as its
    commit position: the next transaction's events have it in `sequence` and the offset moves to it."""
    queue = ChangeEventQueue(max_size=100, max_batch=10, poll_interval_s=0.05)
    source = _source(queue)
    await source.handle_batch(_tx(1, _insert(1)))
    await source.handle_batch(
        [(Lsn(2400), pg.Begin(Lsn(0), 3_000_000, 2)), (Lsn(2500), pg.Commit(0, Lsn(2500), Lsn(2500), 3_000_000))]
    )
    assert len(queue) == 1
    assert source.last_offset is not None
    assert {k: source.last_offset[k] for k in ("lsn", "lsn_commit", "messageType")} == {
        "lsn": 2500,
        "lsn_commit": 2500,
        "messageType": "COMMIT",
    }
    await source.handle_batch(_tx(3, _insert(2)))
    records = await queue.poll()
    assert [r.value.get("source").get("sequence") for r in records] == ['[null,"1010"]', '["2500","3010"]']
