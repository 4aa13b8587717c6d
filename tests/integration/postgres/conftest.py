"""Fixtures of the PostgreSQL integration tests: a plain SQL connection and end-of-test clean-up."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import psycopg
import pytest

from connectors.postgres.replication import fetch_slot_info


@pytest.fixture
async def sql(pg_dsn: str) -> AsyncIterator[psycopg.AsyncConnection[Any]]:
    conn = await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True)
    yield conn
    await conn.close()


@pytest.fixture
async def cleanup(sql: psycopg.AsyncConnection[Any]) -> AsyncIterator[list[str]]:
    """Statements to run at the end, last first; 'slot:<name>' drops a slot once it is released."""
    todo: list[str] = []
    yield todo
    for item in reversed(todo):
        if item.startswith("slot:"):
            await drop_slot_when_released(sql, item[5:])
        else:
            await sql.execute(item.encode())


async def drop_slot_when_released(sql: psycopg.AsyncConnection[Any], slot: str) -> None:
    for _ in range(100):
        info = await fetch_slot_info(sql, slot)
        if info is None:
            return
        if not info.active:
            with contextlib.suppress(psycopg.errors.UndefinedObject, psycopg.errors.ObjectInUse):
                await sql.execute("SELECT pg_drop_replication_slot(%s)", [slot])
            continue
        await asyncio.sleep(0.1)
