"""Helpers of the PostgreSQL acceptance suite: one scratch database, connector, slot and publication per capture,
all named by one token (database = topic.prefix = connector = slot = publication), removed afterwards.

Every wait is bounded; Kafka topics are read to their end with the project's reader.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

import httpx
import orjson
import psycopg
from confluent_kafka.admin import AdminClient

from connect_worker.kafka.reader import TopicRecord, read_to_end
from tests import names
from tests.worker_support import postgres_connector

PG_PORT = os.environ.get("CW_PG_PORT", "5433")
CONNECTOR_CLASS = "io.debezium.connector.postgresql.PostgresConnector"
CUSTOMERS_DDL = (
    "CREATE TABLE public.customers (id serial primary key, first_name varchar(255) not null,"
    " last_name varchar(255) not null, email varchar(255) not null)"
)


def dsn(dbname: str) -> str:
    return f"host=127.0.0.1 port={PG_PORT} user=postgres dbname={dbname}"


def token(prefix: str = "acc") -> str:
    return names.unique(prefix, 12)


async def until(predicate: Callable[[], Awaitable[Any]], timeout: float = 30.0, what: str = "condition") -> Any:
    """Poll `predicate` every 0.2 s until it returns something truthy; AssertionError after `timeout` s."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    last: Any = None
    while True:
        last = await predicate()
        if last:
            return last
        if loop.time() > deadline:
            raise AssertionError(f"{what}: not met within {timeout} s (last: {last!r})")
        await asyncio.sleep(0.2)


def payload(record: TopicRecord) -> Any:
    return None if record.value is None else orjson.loads(record.value)["payload"]


def value_schema(record: TopicRecord) -> Any:
    assert record.value is not None
    return orjson.loads(record.value)["schema"]


def key_payload(record: TopicRecord) -> Any:
    return None if record.key is None else orjson.loads(record.key)["payload"]


def key_schema(record: TopicRecord) -> Any:
    assert record.key is not None
    return orjson.loads(record.key)["schema"]


def headers(record: TopicRecord) -> dict[str, bytes | None]:
    return dict(record.headers)


def connector_config(name: str, extra: Mapping[str, str]) -> dict[str, str]:
    return postgres_connector(name, PG_PORT, **extra)


async def create_database(name: str, setup: Sequence[str]) -> None:
    async with await psycopg.AsyncConnection.connect(dsn("postgres"), autocommit=True) as conn:
        await conn.execute(f'CREATE DATABASE "{name}"')
    async with await psycopg.AsyncConnection.connect(dsn(name), autocommit=True) as conn:
        for statement in setup:
            await conn.execute(statement)


async def drop_everything(name: str, bootstrap: str) -> None:
    """Drop the slot (once inactive), the database and the topics of capture `name`."""
    async with await psycopg.AsyncConnection.connect(dsn("postgres"), autocommit=True) as conn:
        for _ in range(75):
            row = await (
                await conn.execute("SELECT active_pid FROM pg_replication_slots WHERE slot_name = %s", (name,))
            ).fetchone()
            if row is None:
                break
            if row[0] is not None:
                with contextlib.suppress(psycopg.Error):
                    await conn.execute("SELECT pg_terminate_backend(%s)", (row[0],))
                await asyncio.sleep(0.2)
                continue
            with contextlib.suppress(psycopg.Error):
                await conn.execute("SELECT pg_drop_replication_slot(%s)", (name,))
        with contextlib.suppress(psycopg.Error):
            await conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    await asyncio.to_thread(_delete_topics, bootstrap, name)


def _delete_topics(bootstrap: str, name: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    topics = [t for t in admin.list_topics(timeout=10).topics if name in t]
    if topics:
        for fut in admin.delete_topics(topics, operation_timeout=20).values():
            with contextlib.suppress(Exception):
                fut.result(20)


@dataclasses.dataclass
class Capture:
    """One running connector on its own database."""

    name: str
    client: httpx.AsyncClient
    bootstrap: str
    offsets_topic: str

    @property
    def dsn(self) -> str:
        return dsn(self.name)

    def topic(self, suffix: str) -> str:
        return f"{self.name}.{suffix}"

    async def tx(self, *statements: str) -> list[Any]:
        """Run the statements in one transaction; returns the first column of each statement's first row."""
        out: list[Any] = []
        async with await psycopg.AsyncConnection.connect(self.dsn) as conn, conn.transaction():
            for statement in statements:
                cur = await conn.execute(statement)
                row = await cur.fetchone() if cur.description else None
                out.append(None if row is None else row[0])
        return out

    async def scalar(self, sql: str, params: Sequence[Any] = ()) -> Any:
        async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as conn:
            row = await (await conn.execute(sql, params)).fetchone()
        return None if row is None else row[0]

    async def read(self, topic: str) -> list[TopicRecord]:
        return await read_to_end({"bootstrap.servers": self.bootstrap}, topic)

    async def records(self, topic: str, at_least: int, timeout: float = 30.0) -> list[TopicRecord]:
        async def enough() -> list[TopicRecord]:
            got = await self.read(topic)
            return got if len(got) >= at_least else []

        result: list[TopicRecord] = await until(enough, timeout, f"{at_least} records on {topic}")
        return result

    async def confirmed_flush_lsn(self) -> int:
        value = await self.scalar(
            "SELECT confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = %s", (self.name,)
        )
        return int(value)

    async def slot_active(self) -> bool:
        return bool(await self.scalar("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (self.name,)))

    async def slot_streaming(self) -> bool:
        """The slot's walsender runs START_REPLICATION (an active slot may still be building its snapshot)."""
        return bool(
            await self.scalar(
                "SELECT r.state = 'streaming' FROM pg_replication_slots s JOIN pg_stat_replication r"
                " ON r.pid = s.active_pid WHERE s.slot_name = %s",
                (self.name,),
            )
        )

    async def stored_offset(self) -> dict[str, Any] | None:
        """The connector's committed offset, through GET /connectors/{name}/offsets."""
        answer = await self.client.get(f"/connectors/{self.name}/offsets")
        offsets = answer.json().get("offsets") or []
        return dict(offsets[0]["offset"]) if offsets else None

    async def offset_records(self) -> list[TopicRecord]:
        """The offsets-topic records of this connector (key `["<name>",{"server":"<prefix>"}]`)."""
        key = f'["{self.name}",{{"server":"{self.name}"}}]'.encode()
        return [r for r in await self.read(self.offsets_topic) if r.key == key]

    async def state(self) -> tuple[str | None, str | None]:
        status = (await self.client.get(f"/connectors/{self.name}/status")).json()
        tasks = status.get("tasks") or []
        return status.get("connector", {}).get("state"), (tasks[0]["state"] if tasks else None)

    async def wait_streaming(self, timeout: float = 30.0) -> None:
        async def ready() -> bool:
            connector, task = await self.state()
            if task == "FAILED":
                raise AssertionError(f"task failed: {(await self.client.get(f'/connectors/{self.name}/status')).text}")
            return connector == "RUNNING" and task == "RUNNING" and await self.slot_streaming()

        await until(ready, timeout, f"connector {self.name} streaming")

    async def stop(self) -> None:
        r = await self.client.put(f"/connectors/{self.name}/stop")
        assert r.status_code in (200, 202, 204), r.text

        async def stopped() -> bool:
            return (await self.state())[0] == "STOPPED" and not await self.slot_active()

        await until(stopped, 30, f"connector {self.name} stopped")

    async def resume(self) -> None:
        r = await self.client.put(f"/connectors/{self.name}/resume")
        assert r.status_code in (200, 202, 204), r.text
        await self.wait_streaming()


@contextlib.asynccontextmanager
async def capture(
    client: httpx.AsyncClient,
    bootstrap: str,
    offsets_topic: str,
    setup: Sequence[str],
    config: Mapping[str, str] | None = None,
) -> AsyncIterator[Capture]:
    name = token()
    await create_database(name, setup)
    try:
        r = await client.post("/connectors", json={"name": name, "config": connector_config(name, config or {})})
        assert r.status_code == 201, r.text
        cap = Capture(name, client, bootstrap, offsets_topic)
        await cap.wait_streaming()
        yield cap
    finally:
        with contextlib.suppress(Exception):
            await client.delete(f"/connectors/{name}")
        await drop_everything(name, bootstrap)
