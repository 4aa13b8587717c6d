"""Fixtures of the PostgreSQL integration tests: a plain SQL connection, end-of-test clean-up, a database of the
test's own, a private cluster to stop and start."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Iterator
from typing import Any

import psycopg
import pytest

from connectors.postgres.replication import fetch_slot_info
from tests.integration.postgres.acceptance.pg_harness import admin_dsn, create_database
from tests.integration.postgres.private_cluster import Cluster


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
    await run_cleanup(sql, todo)


async def run_cleanup(sql: psycopg.AsyncConnection[Any], todo: list[str]) -> None:
    """What `cleanup` does at the end of a test, for a test with a connection of its own."""
    for item in reversed(todo):
        if item.startswith("slot:"):
            await drop_slot_when_released(sql, item[5:])
        else:
            await sql.execute(item.encode())


@pytest.fixture
def own_database(pg_dsn: str, unique_name: str) -> Iterator[str]:
    """A database of the test's own (its DSN): a slot decodes every transaction of its database and decoderbufs
    sends the BEGIN/END of each (and every table's rows: it has no publication), so another test's or
    autovacuum's transaction in a shared database would add a transaction pgoutput does not have."""
    port = int(str(psycopg.conninfo.conninfo_to_dict(pg_dsn)["port"]))
    dsn = create_database(port, unique_name)
    yield dsn
    with psycopg.connect(admin_dsn(port), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{unique_name}" WITH (FORCE)')


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A private PostgreSQL cluster, started, for a module whose tests stop and start their database."""
    c = Cluster()
    try:
        c.run("start")
        yield c
    finally:
        with contextlib.suppress(Exception):
            c.remove()


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
