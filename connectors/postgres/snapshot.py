"""The initial snapshot: every captured table read in one consistent transaction, as `op=r` records.

With a slot created in this run, the transaction imports the slot's exported snapshot (REPEATABLE READ +
SET TRANSACTION SNAPSHOT), so the snapshot ends exactly where streaming starts: no gap, no duplicate.
Otherwise it runs SERIALIZABLE READ ONLY DEFERRABLE and its position is pg_current_wal_lsn().
Rows are read with COPY … TO STDOUT in PostgreSQL's text format, the same text pgoutput sends, so a value
converts identically from the snapshot and from the stream.
The `source.snapshot` marks follow Debezium: first / first_in_data_collection / true /
last_in_data_collection / last; one record is held back so the last one emitted is always "last".
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import time
from collections.abc import AsyncGenerator, Callable, Mapping, Sequence
from typing import Any, Protocol

import psycopg
from psycopg import sql

from connect_worker.api import SourceRecord
from connectors.postgres.copy_out import Row, copy_text_rows
from connectors.postgres.offsets import snapshot_offset
from connectors.postgres.snapshot_chunks import (
    ChunkReader,
    Connect,
    Snapshot,
    export_snapshot,
    import_statement,
    open_reader,
    plan_table,
)
from connectors.postgres.source_info import SnapshotSourceTemplate, SourceInfo
from connectors.postgres.streaming import record_size
from connectors.relational.emitter import RecordFactory
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.schema_builder import TableSchema
from connectors.relational.table import TableId

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, slots=True)
class SnapshotSettings:
    lock_tables: bool = False
    lock_timeout_ms: int = 10000
    select_overrides: dict[TableId, str] = dataclasses.field(default_factory=dict)
    delay_s: float = 0.0
    estimate_sizes: bool = False  # max.queue.size.in.bytes is set: records carry a size estimate
    # snapshot.query.mode=custom: the SELECT for a table and its captured columns (None: do not snapshot it)
    query_for: Callable[[TableId, Sequence[str]], str | None] | None = None
    # snapshot.locking.mode=custom: the statement locking a table (None: no lock), given lock_timeout_ms
    lock_statement: Callable[[int, TableId], str | None] | None = None
    # snapshot.max.threads: connections reading at once (snapshot_chunks.py); chunks_per_table: heap ranges per
    # table (snapshot.max.threads x snapshot.max.threads.multiplier; 1 with legacy.snapshot.max.threads)
    max_threads: int = 1
    chunks_per_table: int = 1


@dataclasses.dataclass(frozen=True, slots=True)
class SnapshotResult:
    lsn: int
    tx_id: int
    records: int


async def _begin(conn: psycopg.AsyncConnection[Any], exported_snapshot: Snapshot | None) -> tuple[int, int]:
    """Open the snapshot transaction; returns (snapshot LSN as int, transaction id)."""
    if exported_snapshot is not None:
        await conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        await conn.execute(import_statement(exported_snapshot))
        lsn = None
    else:
        await conn.execute("BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY DEFERRABLE")
        row = await (await conn.execute("SELECT pg_current_wal_lsn()::text")).fetchone()
        assert row is not None
        lsn = _lsn_int(row[0])
    row = await (await conn.execute("SELECT txid_current()")).fetchone()
    assert row is not None
    return (lsn if lsn is not None else -1), int(row[0])


def _lsn_int(text: str) -> int:
    hi, lo = text.split("/")
    return (int(hi, 16) << 32) | int(lo, 16)


def _select(
    schema: TableSchema, override: str | None, query_for: Callable[[TableId, Sequence[str]], str | None] | None
) -> tuple[sql.Composable, tuple[str, ...] | None] | None:
    """The statement reading a table and its column names when known; None when a custom query skips it."""
    if override is not None:
        return sql.SQL(override), None  # an operator-supplied statement
    names = tuple(dict.fromkeys([f.column for f in schema.key_fields] + [f.column for f in schema.value_fields]))
    if query_for is not None:
        custom = query_for(schema.id, names)
        return None if custom is None else (sql.SQL(custom), None)
    stmt = sql.SQL("SELECT {} FROM {}.{}").format(
        sql.SQL(", ").join(sql.Identifier(n) for n in names),
        sql.Identifier(schema.id.schema),
        sql.Identifier(schema.id.table),
    )
    return stmt, names


async def _columns_of(conn: psycopg.AsyncConnection[Any], statement: sql.Composable) -> tuple[str, ...]:
    cur = await conn.execute(sql.SQL("SELECT * FROM ({}) AS snapshot_source LIMIT 0").format(statement))
    assert cur.description is not None
    return tuple(d.name for d in cur.description)


async def run_snapshot(
    conn: psycopg.AsyncConnection[Any],
    tables: Sequence[TableSchema],
    *,
    exported_snapshot: Snapshot | None,
    consistent_lsn: int | None,
    records: RecordFactory,
    source: SourceInfo,
    topic_for: Callable[[TableId], str],
    queue: ChangeEventQueue,
    settings: SnapshotSettings,
    connect: Connect | None = None,
    progress: SnapshotProgress | None = None,
    position: StreamPosition | None = None,
) -> SnapshotResult:
    """Read every table and emit its rows; the caller commits nothing: offsets travel with the records.

    With settings.max_threads > 1, `connect` opens the further reading connections (snapshot_chunks.py)."""
    lsn, tx_id = await _begin(conn, exported_snapshot)
    if exported_snapshot is not None:
        assert consistent_lsn is not None
        lsn = consistent_lsn
    try:
        await _lock(conn, tables, settings)
        reads = await _reads(conn, tables, settings)
        parallel = settings.max_threads > 1 and connect is not None and bool(reads)
        log.info(
            "snapshot of %d tables at LSN %d (transaction %d)%s",
            len(tables),
            lsn,
            tx_id,
            f" with {settings.max_threads} connections" if parallel else "",
        )
        async with contextlib.AsyncExitStack() as stack:
            if parallel:
                assert connect is not None
                sources = await _parallel_sources(conn, reads, exported_snapshot, settings, connect, stack)
            else:
                sources = [[functools.partial(copy_text_rows, conn, statement)] for _, _, statement, _ in reads]
            result = await _emit(
                reads, sources, lsn, tx_id, records, source, topic_for, queue, settings, progress, position
            )
        await conn.execute("COMMIT")
        return result
    except BaseException:
        await conn.execute("ROLLBACK")
        raise


@dataclasses.dataclass(frozen=True, slots=True)
class StreamPosition:
    """A blocking snapshot's records carry the paused stream's position instead of the snapshot's own LSN:
    its offset (with ``snapshot: BLOCKING``) and, in the `source` block, its txId, LSN and last commit."""

    offset: Mapping[str, Any]
    tx_id: int | None
    lsn: int | None
    last_commit_lsn: int | None

    def row_offset(self, ts_usec: int, *, last: bool) -> dict[str, Any]:
        out = dict(self.offset)
        out.update(
            {"ts_usec": ts_usec, "snapshot": "BLOCKING", "last_snapshot_record": last, "snapshot_completed": last}
        )
        return out


class SnapshotProgress(Protocol):
    """Told when each table's rows start and end (the initial snapshot's notifications)."""

    async def table_started(self, table: str, offset: Mapping[str, Any]) -> None: ...

    async def table_done(self, table: str, rows: int, offset: Mapping[str, Any]) -> None: ...


_Read = tuple[TableSchema, tuple[str, ...], sql.Composable, bool]  # table, columns, SELECT, chunkable
BatchSource = Callable[[], AsyncGenerator[list[Row], None]]


async def _reads(
    conn: psycopg.AsyncConnection[Any], tables: Sequence[TableSchema], settings: SnapshotSettings
) -> list[_Read]:
    """What to read of each table: its columns and statement (None from a custom query: left out)."""
    reads: list[_Read] = []
    for ts in tables:
        select = _select(ts, settings.select_overrides.get(ts.id), settings.query_for)
        if select is None:
            log.info("snapshot of %s skipped: the custom snapshot query returned none", ts.id)
            continue
        statement, names = select
        chunkable = names is not None  # the connector's own SELECT … FROM table, not an operator's statement
        if names is None:
            names = await _columns_of(conn, statement)
        reads.append((ts, names, statement, chunkable))
    return reads


async def _parallel_sources(
    conn: psycopg.AsyncConnection[Any],
    reads: Sequence[_Read],
    exported_snapshot: Snapshot | None,
    settings: SnapshotSettings,
    connect: Connect,
    stack: contextlib.AsyncExitStack,
) -> list[list[BatchSource]]:
    """Each table's chunks, read by `max_threads` connections on this transaction's snapshot."""
    plans = [
        await plan_table(conn, ts.id, statement, settings.chunks_per_table if chunkable else 1)
        for ts, _, statement, chunkable in reads
    ]
    snapshot = exported_snapshot if exported_snapshot is not None else await export_snapshot(conn)
    helpers = []
    for _ in range(settings.max_threads - 1):
        helper = await open_reader(connect, snapshot)
        stack.push_async_callback(helper.close)
        helpers.append(helper)
    reader = ChunkReader([conn, *helpers], [statement for plan in plans for statement in plan])
    stack.push_async_callback(reader.close)  # before the helpers close and before COMMIT / ROLLBACK on conn
    log.info("snapshot: %d chunks of %d tables", sum(map(len, plans)), len(plans))
    sources: list[list[BatchSource]] = []
    index = 0
    for plan in plans:
        sources.append([functools.partial(reader.rows, i) for i in range(index, index + len(plan))])
        index += len(plan)
    return sources


async def _emit(
    reads: Sequence[_Read],
    sources: Sequence[Sequence[BatchSource]],
    lsn: int,
    tx_id: int,
    records: RecordFactory,
    source: SourceInfo,
    topic_for: Callable[[TableId], str],
    queue: ChangeEventQueue,
    settings: SnapshotSettings,
    progress: SnapshotProgress | None = None,
    position: StreamPosition | None = None,
) -> SnapshotResult:
    """Every row as an `op=r` record, in table order, each table's batches in the order of its sources."""
    # the row read last, kept until the next one shows whether it ends its table or the snapshot:
    # (table, topic, source template, key, value, row index, last in its table, size)
    pending: tuple[TableSchema, str, SnapshotSourceTemplate, Any, Any, int, bool, int] | None = None
    estimate = settings.estimate_sizes
    count = 0
    first_table = reads[0][0] if reads else None
    started = time.monotonic()

    offer = queue.offer
    time_ns = time.time_ns
    # what every row shares: the offset but for its time (all rows but the snapshot's last one)
    row_offset = (
        snapshot_offset(lsn=lsn, tx_id=tx_id, ts_usec=0, last=False)
        if position is None
        else position.row_offset(0, last=False)
    )

    def take(last: bool) -> tuple[SourceRecord, int]:
        """The pending row's record (its offset says whether it is the last of the snapshot)."""
        nonlocal pending
        assert pending is not None
        ts, topic, template, key, value, row_index, last_in_table, size = pending
        pending = None
        # RelationalSnapshotChangeEventSource.SnapshotMarkerResolver: the snapshot's last record; the first row of
        # the first table (none when that table is empty); the last row of a table; its first row
        if last:
            mark = "last"
        elif row_index == 0 and ts is first_table:
            mark = "first"
        elif last_in_table:
            mark = "last_in_data_collection"
        elif row_index == 0:
            mark = "first_in_data_collection"
        else:
            mark = "true"
        now_us = time_ns() // 1000
        if last:
            offset = (
                snapshot_offset(lsn=lsn, tx_id=tx_id, ts_usec=now_us, last=True)
                if position is None
                else position.row_offset(now_us, last=True)
            )
        else:
            offset = row_offset.copy()
            offset["ts_usec"] = now_us
        return records.read_or_create(ts, topic, "r", key, value, template.at(now_us, mark), None, offset), size

    for (ts, names, _, _), table_sources in zip(reads, sources, strict=True):
        key_fn, value_fn = ts.row_converter(names, snapshot=True)
        key_of = ts.key_from_value
        topic = topic_for(ts.id)
        # the table's source block but for the read time and the mark, made once
        template = (
            source.snapshot_template(schema=ts.id.schema, table=ts.id.table, tx_id=tx_id, lsn=lsn)
            if position is None
            else source.snapshot_template(
                schema=ts.id.schema,
                table=ts.id.table,
                tx_id=position.tx_id,
                lsn=position.lsn,
                last_commit_lsn=position.last_commit_lsn,
            )
        )
        row_index = 0
        if progress is not None:
            await progress.table_started(str(ts.id), {**row_offset, "ts_usec": time_ns() // 1000})
        for batch_source in table_sources:
            # closed at once when a row fails or the task stops: the COPY is cancelled before ROLLBACK
            async with contextlib.aclosing(batch_source()) as batches:
                async for batch in batches:
                    for row in batch:
                        if pending is not None:
                            record, size = take(False)
                            if not offer(record, size):  # no await per row while the queue has room
                                await queue.put(record, size)
                        value = value_fn(row)
                        key = key_of(value) if key_of is not None else key_fn(row) if key_fn else None
                        size = record_size(row) if estimate else 0
                        pending = (ts, topic, template, key, value, row_index, False, size)
                        row_index += 1
                        count += 1
        if pending is not None and pending[0] is ts:
            pending = (*pending[:6], True, pending[7])
        log.info("snapshot of %s: %d rows", ts.id, row_index)
        if progress is not None:
            await progress.table_done(str(ts.id), row_index, {**row_offset, "ts_usec": time_ns() // 1000})
    if pending is not None:
        await queue.put(*take(last=True))
    elapsed = time.monotonic() - started
    log.info("snapshot completed: %d rows in %.1f s", count, elapsed)
    return SnapshotResult(lsn, tx_id, count)


async def _lock(conn: psycopg.AsyncConnection[Any], tables: Sequence[TableSchema], settings: SnapshotSettings) -> None:
    """snapshot.locking.mode: shared takes ACCESS SHARE locks, custom runs the plug-in's statements; both under
    lock_timeout = snapshot.lock.timeout.ms, inside the snapshot transaction."""
    custom = settings.lock_statement
    if not tables or (not settings.lock_tables and custom is None):
        return
    await conn.execute(sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(settings.lock_timeout_ms)))
    for t in tables:
        if custom is not None:
            statement = custom(settings.lock_timeout_ms, t.id)
            if statement:
                await conn.execute(sql.SQL(statement))
        else:
            await conn.execute(
                sql.SQL("LOCK TABLE {}.{} IN ACCESS SHARE MODE").format(
                    sql.Identifier(t.id.schema), sql.Identifier(t.id.table)
                )
            )
