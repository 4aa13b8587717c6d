"""The snapshot's COPY reader against real PostgreSQL 15: the same rows as psycopg's own `Copy.rows()`."""

from __future__ import annotations

import contextlib
from typing import Any

import psycopg
import pytest
from psycopg import sql as q
from psycopg.types.json import Jsonb

from connectors.postgres.copy_out import copy_text_rows

pytestmark = pytest.mark.integration

NASTY = [
    "plain",
    "",
    "tab\there",
    "new\nline\r\nand cr",
    "back\\slash \\N \\\\N \\t",
    "\\",
    "\b\f\v\x01 controls",
    "ünïcödé ✓ 𝄞",
    "ends with backslash\\",
    "\\N",
]


async def _psycopg_rows(conn: psycopg.AsyncConnection[Any], stmt: q.Composable) -> list[tuple[Any, ...]]:
    async with conn.cursor().copy(q.SQL("COPY ({}) TO STDOUT").format(stmt)) as copy:
        return [row async for row in copy.rows()]


async def test_rows_equal_psycopg_copy_for_every_escape(sql: psycopg.AsyncConnection[Any], unique_name: str) -> None:
    table = q.Identifier(unique_name)
    await sql.execute(
        q.SQL("CREATE TABLE {} (id int PRIMARY KEY, t text, n numeric(8,2), j jsonb, b bytea, a text[])").format(table)
    )
    try:
        for i, text in enumerate(NASTY):
            await sql.execute(
                q.SQL("INSERT INTO {} VALUES (%s, %s, %s, %s, %s, %s)").format(table),
                [i, text, None if i % 3 else i / 4, Jsonb({"k": text}), text.encode(), [text, None]],
            )
        await sql.execute(q.SQL("INSERT INTO {} (id) VALUES (100)").format(table))  # every other column NULL
        stmt = q.SQL("SELECT id, t, n, j, b, a FROM {} ORDER BY id").format(table)
        batches = [b async for b in copy_text_rows(sql, stmt, batch=3)]
        ours = [row for b in batches for row in b]
        assert ours == await _psycopg_rows(sql, stmt)
        assert len(ours) == len(NASTY) + 1 and all(0 < len(b) <= 3 for b in batches)
        assert ours[0][1] == "plain" and ours[-1][1:] == (None,) * 5
        assert [r[1] for r in ours[:-1]] == NASTY
    finally:
        await sql.execute(q.SQL("DROP TABLE {}").format(table))


async def test_many_rows_come_in_full_batches_and_the_connection_stays_usable(
    sql: psycopg.AsyncConnection[Any],
) -> None:
    stmt = q.SQL("SELECT g, repeat('x', g % 50) FROM generate_series(1, 20000) AS g")
    sizes = []
    total = 0
    async for batch in copy_text_rows(sql, stmt, batch=1024):
        sizes.append(len(batch))
        total += sum(int(r[0] or 0) for r in batch)
    assert total == sum(range(1, 20001))
    # one wait takes what libpq holds: hundreds of rows, never more than asked for
    assert sum(sizes) == 20000 and max(sizes) <= 1024 and len(sizes) < 20000 / 50
    row = await (await sql.execute("SELECT 42")).fetchone()
    assert row == (42,)


async def test_an_error_during_copy_is_raised_and_the_connection_stays_usable(
    sql: psycopg.AsyncConnection[Any],
) -> None:
    stmt = q.SQL("SELECT 1 / (g - 5000) FROM generate_series(1, 10000) AS g")
    seen = 0
    with pytest.raises(psycopg.errors.DivisionByZero):
        async for batch in copy_text_rows(sql, stmt):
            seen += len(batch)
    assert seen < 10000
    row = await (await sql.execute("SELECT 7")).fetchone()
    assert row == (7,)


async def test_a_reader_that_stops_early_cancels_the_copy(sql: psycopg.AsyncConnection[Any]) -> None:
    """What the snapshot does when a row fails or the task stops: the COPY ends before the next statement."""
    stmt = q.SQL("SELECT g, repeat('y', 200) FROM generate_series(1, 200000) AS g")
    async with contextlib.aclosing(copy_text_rows(sql, stmt)) as batches:
        async for batch in batches:
            assert batch[0][0] == "1"
            break
    row = await (await sql.execute("SELECT 8")).fetchone()
    assert row == (8,)
