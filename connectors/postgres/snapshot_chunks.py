"""The parallel, chunked initial snapshot (`snapshot.max.threads` > 1).

Each table is split into block ranges of its heap (`ctid` ranges, read by PostgreSQL's TID range scan), so a
table is chunked the same way whether or not it has a primary key. `threads` connections read the chunks at
once, each in its own transaction importing the snapshot transaction's snapshot (`SET TRANSACTION SNAPSHOT`),
so every chunk sees exactly the data of the serial snapshot. Chunks are read ahead into bounded buffers and
handed to the snapshot in table and block order: the records, their order and their `snapshot` marks are the
serial snapshot's.

Why the ranges are exact: the snapshot transaction takes ACCESS SHARE on a table before it counts the table's
pages and keeps it to its end, so nothing can rewrite the heap (VACUUM FULL, CLUSTER, TRUNCATE, ALTER TABLE
need ACCESS EXCLUSIVE) while its chunks are read; a row visible to the snapshot lies in a page that existed
when the pages were counted, and the last range has no upper bound anyway. The serial snapshot holds the same
lock on a table from its read to its end.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncGenerator, Awaitable, Callable, Sequence
from typing import Any, Final

import psycopg
from psycopg import sql

from connectors.postgres.copy_out import Row, copy_text_rows
from connectors.relational.table import TableId

Connect = Callable[[], Awaitable[psycopg.AsyncConnection[Any]]]

MIN_BLOCKS_PER_CHUNK: Final = 16  # 128 KiB of heap: smaller tables (or pieces) are read in one statement
READ_AHEAD_BATCHES: Final = 4  # per chunk being read: batches of up to 1,024 rows waiting for the snapshot


def chunk_bounds(blocks: int, pieces: int) -> list[tuple[int | None, int | None]]:
    """At most `pieces` block ranges [low, high) covering a heap of `blocks` pages; the first range has no
    lower bound and the last no upper bound. One unbounded range when the table is too small to split."""
    n = max(1, min(pieces, blocks // MIN_BLOCKS_PER_CHUNK))
    if n == 1:
        return [(None, None)]
    cuts = [k * blocks // n for k in range(1, n)]
    return list(zip([None, *cuts], [*cuts, None], strict=True))


def chunk_statement(select: sql.Composable, low: int | None, high: int | None) -> sql.Composable:
    """`select` (a plain SELECT … FROM table) limited to the heap blocks [low, high)."""
    conditions = []
    if low is not None:
        conditions.append(sql.SQL("ctid >= {}::tid").format(sql.Literal(f"({low},0)")))
    if high is not None:
        conditions.append(sql.SQL("ctid < {}::tid").format(sql.Literal(f"({high},0)")))
    if not conditions:
        return select
    return sql.SQL("{} WHERE {}").format(select, sql.SQL(" AND ").join(conditions))


async def plan_table(
    conn: psycopg.AsyncConnection[Any], table: TableId, select: sql.Composable, pieces: int
) -> list[sql.Composable]:
    """The chunk statements of one table, in block order (ACCESS SHARE taken first, see the module's doc)."""
    if pieces <= 1:
        return [select]
    await conn.execute(
        sql.SQL("LOCK TABLE {}.{} IN ACCESS SHARE MODE").format(
            sql.Identifier(table.schema), sql.Identifier(table.table)
        )
    )
    cur = await conn.execute(
        "SELECT c.relkind, pg_relation_size(c.oid) / current_setting('block_size')::bigint"
        " FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname = %s",
        (table.schema, table.table),
    )
    row = await cur.fetchone()
    if row is None or row[0] != "r":  # partitioned parents and anything else: one statement
        return [select]
    return [chunk_statement(select, low, high) for low, high in chunk_bounds(int(row[1]), pieces)]


async def export_snapshot(conn: psycopg.AsyncConnection[Any]) -> str:
    """The snapshot of `conn`'s open transaction, for other transactions to import."""
    row = await (await conn.execute("SELECT pg_export_snapshot()")).fetchone()
    assert row is not None
    return str(row[0])


@dataclasses.dataclass(frozen=True, slots=True)
class HybridTimeSnapshot:
    """YugabyteDB's snapshot at a slot's consistent point: the hybrid time its CREATE_REPLICATION_SLOT answers
    as ``snapshot_name``, read at with ``SET LOCAL yb_read_time`` (YugabyteDB exports no snapshots)."""

    hybrid_time: str


Snapshot = str | HybridTimeSnapshot  # a PostgreSQL exported snapshot's name, or a YugabyteDB hybrid time


def import_statement(snapshot: Snapshot) -> sql.Composed:
    """The statement that makes an open REPEATABLE READ transaction see exactly `snapshot`."""
    if isinstance(snapshot, HybridTimeSnapshot):
        return sql.SQL("SET LOCAL yb_read_time TO {}").format(sql.Literal(f"{snapshot.hybrid_time} ht"))
    return sql.SQL("SET TRANSACTION SNAPSHOT {}").format(sql.Literal(snapshot))


async def open_reader(connect: Connect, snapshot: Snapshot) -> psycopg.AsyncConnection[Any]:
    """A connection whose transaction sees exactly `snapshot`."""
    conn = await connect()
    try:
        await conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        await conn.execute(import_statement(snapshot))
    except BaseException:
        await conn.close()
        raise
    return conn


_END: Final = object()


@dataclasses.dataclass(slots=True)
class _Failed:
    error: BaseException


class ChunkReader:
    """Reads chunk statements with several connections at once; `rows(i)` yields chunk i's batches.

    Chunks are taken in index order by whichever connection is free and buffered (READ_AHEAD_BATCHES per
    chunk); the consumer takes them in index order, so the readers run at most one chunk each ahead of it.
    A reader's error reaches the consumer when it gets to that chunk. `close()` cancels the reads.
    """

    def __init__(self, conns: Sequence[psycopg.AsyncConnection[Any]], statements: Sequence[sql.Composable]) -> None:
        self._statements = list(statements)
        self._buffers: list[asyncio.Queue[Any]] = [asyncio.Queue(READ_AHEAD_BATCHES) for _ in statements]
        self._next = 0
        self._tasks = [asyncio.create_task(self._read(conn)) for conn in conns]

    async def _read(self, conn: psycopg.AsyncConnection[Any]) -> None:
        while self._next < len(self._statements):
            index = self._next
            self._next += 1
            buffer = self._buffers[index]
            try:
                async with contextlib.aclosing(copy_text_rows(conn, self._statements[index])) as batches:
                    async for batch in batches:
                        await buffer.put(batch)
            except Exception as e:  # noqa: BLE001 - handed to the consumer, which raises it in the task
                await buffer.put(_Failed(e))
                return
            await buffer.put(_END)

    async def rows(self, index: int) -> AsyncGenerator[list[Row], None]:
        buffer = self._buffers[index]
        while True:
            item = await buffer.get()
            if item is _END:
                return
            if isinstance(item, _Failed):
                raise item.error
            yield item

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
