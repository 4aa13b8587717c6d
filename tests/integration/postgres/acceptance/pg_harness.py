"""What the acceptance modules share: a scratch database and an in-process worker per module, and helpers to
drive one connector at a time through the worker's REST API against the real PostgreSQL and Kafka.

Every name a test creates (schema, slot, publication, topic.prefix, connector) starts with the module's token,
so teardown can remove all of it: the connectors, the database with its slots, and every topic of the module.
Every wait is bounded.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import os
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Final

import httpx
import orjson
import psycopg
import pytest_asyncio
from confluent_kafka.admin import AdminClient

from connect_worker.kafka.reader import TopicRecord, read_to_end
from tests import names
from tests.growing_topic import GrowingTopic

PG_HOST = "127.0.0.1"
PG_PORT: Final = int(os.environ.get("CW_PG_PORT", "5433"))
CONNECTOR_CLASS = "io.debezium.connector.postgresql.PostgresConnector"

CUSTOMERS_DDL = (
    "CREATE TABLE {t} (id serial PRIMARY KEY, first_name varchar(255) NOT NULL, last_name varchar(255) NOT NULL, "
    "email varchar(255) NOT NULL)"
)


def token(prefix: str = "acc") -> str:
    return names.unique(prefix, 10)


def admin_dsn(port: int) -> str:
    return f"host={PG_HOST} port={port} user=postgres dbname=postgres"


def create_database(port: int, name: str, attempts: int = 20) -> str:
    """CREATE DATABASE, retried while template1 is briefly in use by another session (concurrent test runs)."""
    import time

    for attempt in range(attempts):
        try:
            with psycopg.connect(admin_dsn(port), autocommit=True) as conn:
                conn.execute(f'CREATE DATABASE "{name}"')
            break
        except psycopg.errors.ObjectInUse:
            if attempt == attempts - 1:
                raise
            time.sleep(0.5)
    return f"host={PG_HOST} port={port} user=postgres dbname={name}"


def drop_database(port: int, name: str, timeout: float = 30.0) -> None:
    """Drop the slots of `name` (terminating a walsender left behind) and the database itself."""
    import time

    deadline = time.monotonic() + timeout
    with psycopg.connect(admin_dsn(port), autocommit=True) as conn:
        while True:
            rows = conn.execute(
                "SELECT slot_name, active_pid FROM pg_replication_slots WHERE database = %s", (name,)
            ).fetchall()
            if not rows:
                break
            for slot, pid in rows:
                if pid is not None:
                    conn.execute("SELECT pg_terminate_backend(%s)", (pid,))
                with contextlib.suppress(psycopg.Error):
                    conn.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
            if time.monotonic() > deadline:
                raise AssertionError(f"could not drop the slots of {name}: {rows}")
            time.sleep(0.2)
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def delete_topics_with_prefix(bootstrap: str, prefix: str) -> None:
    admin = AdminClient({"bootstrap.servers": bootstrap})
    names = [t for t in admin.list_topics(timeout=10).topics if t.startswith(prefix)]
    if names:
        for fut in admin.delete_topics(names, operation_timeout=30).values():
            with contextlib.suppress(Exception):
                fut.result(30)


def payload(record: TopicRecord) -> Any:
    return None if record.value is None else orjson.loads(record.value)["payload"]


def value_schema(record: TopicRecord) -> Any:
    assert record.value is not None
    return orjson.loads(record.value)["schema"]


def key_payload(record: TopicRecord) -> Any:
    return None if record.key is None else orjson.loads(record.key)["payload"]


def after_field_schema(record: TopicRecord, field: str) -> dict[str, Any]:
    """The field schema of `field` in the envelope's `after` struct."""
    after = next(f for f in value_schema(record)["fields"] if f["field"] == "after")
    found: dict[str, Any] = next(f for f in after["fields"] if f["field"] == field)
    return found


@dataclasses.dataclass
class Harness:
    """One module's database, worker REST client and Kafka; tests make names with `name()`."""

    client: httpx.AsyncClient
    bootstrap: str
    pg_port: int
    dbname: str
    prefix: str

    @property
    def dsn(self) -> str:
        return f"host={PG_HOST} port={self.pg_port} user=postgres dbname={self.dbname}"

    def name(self) -> str:
        return names.unique(self.prefix, 8)

    # -- SQL -----------------------------------------------------------------------------------------------------
    async def sql(self, *statements: str | tuple[str, Sequence[Any]]) -> None:
        async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as conn:
            for s in statements:
                if isinstance(s, tuple):
                    await conn.execute(s[0], s[1])
                else:
                    await conn.execute(s)

    async def query(self, statement: str, params: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as conn:
            cur = await conn.execute(statement, params)
            return await cur.fetchall()

    async def customers(self, schema: str, rows: int = 3, table: str = "customers") -> str:
        """CREATE SCHEMA + the checklist's customers table with `rows` rows; returns "schema.table"."""
        qualified = f"{schema}.{table}"
        await self.sql(f"CREATE SCHEMA IF NOT EXISTS {schema}", CUSTOMERS_DDL.format(t=qualified))
        if rows:
            await self.insert_customers(qualified, range(1, rows + 1))
        return qualified

    async def insert_customers(self, qualified: str, ids: Sequence[int] | range) -> None:
        async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as conn:
            for i in ids:
                await conn.execute(
                    f"INSERT INTO {qualified} (id, first_name, last_name, email) VALUES (%s, %s, %s, %s)",
                    (i, f"First{i}", f"Last{i}", f"user{i}@example.com"),
                )

    async def slot(self, slot: str) -> tuple[Any, ...] | None:
        rows = await self.query(
            "SELECT slot_name, plugin, database, active, restart_lsn - '0/0'::pg_lsn,"
            " confirmed_flush_lsn - '0/0'::pg_lsn FROM pg_replication_slots WHERE slot_name = %s",
            (slot,),
        )
        return rows[0] if rows else None

    # -- connectors ----------------------------------------------------------------------------------------------
    def config(self, name: str, schema: str, /, **extra: str | None) -> dict[str, str]:
        """A connector named `name` with its own slot, publication and topic.prefix, capturing `schema`."""
        config = {
            "connector.class": CONNECTOR_CLASS,
            "database.hostname": PG_HOST,
            "database.port": str(self.pg_port),
            "database.user": "postgres",
            "database.dbname": self.dbname,
            "topic.prefix": name,
            "plugin.name": "pgoutput",
            "slot.name": name,
            "publication.name": name,
            "publication.autocreate.mode": "filtered",
            "schema.include.list": schema,
            "status.update.interval.ms": "500",
        }
        merged: dict[str, str | None] = {**config, **extra}
        return {k: v for k, v in merged.items() if v is not None}

    async def create(self, name: str, config: Mapping[str, str]) -> None:
        r = await self.client.post("/connectors", json={"name": name, "config": dict(config)})
        assert r.status_code == 201, r.text

    async def status(self, name: str) -> dict[str, Any]:
        r = await self.client.get(f"/connectors/{name}/status")
        assert r.status_code == 200, r.text
        result: dict[str, Any] = r.json()
        return result

    async def task_state(self, name: str, want: str, timeout: float = 30.0) -> dict[str, Any]:
        """Wait until task 0 is in state `want`; returns the task status (with its trace when FAILED)."""
        last: Any = None

        async def reached() -> dict[str, Any] | None:
            nonlocal last
            last = await self.status(name)
            tasks = last.get("tasks") or []
            if tasks and tasks[0]["state"] == want:
                found: dict[str, Any] = tasks[0]
                return found
            return None

        try:
            task: dict[str, Any] = await wait(reached, timeout)
        except AssertionError as e:
            raise AssertionError(f"task of {name} not {want} within {timeout}s: {last}") from e
        return task

    async def stop(self, name: str) -> None:
        r = await self.client.put(f"/connectors/{name}/stop")
        assert r.status_code in (202, 204), r.text

        async def stopped() -> bool:
            st = await self.status(name)
            return bool(st["connector"]["state"] == "STOPPED" and not st["tasks"])

        await wait(stopped, 30)

    async def resume(self, name: str) -> None:
        r = await self.client.put(f"/connectors/{name}/resume")
        assert r.status_code in (202, 204), r.text

    async def reconfigure(self, name: str, config: Mapping[str, str]) -> None:
        r = await self.client.put(f"/connectors/{name}/config", json=dict(config))
        assert r.status_code in (200, 201), r.text

    async def offsets(self, name: str) -> list[dict[str, Any]]:
        r = await self.client.get(f"/connectors/{name}/offsets")
        assert r.status_code == 200, r.text
        result: list[dict[str, Any]] = r.json()["offsets"]
        return result

    async def delete(self, name: str, *, drop_slot: bool = True) -> None:
        """DELETE the connector (if it exists) and drop its slot once released."""
        r = await self.client.delete(f"/connectors/{name}")
        assert r.status_code in (204, 404), r.text

        async def gone() -> bool:
            return (await self.client.get(f"/connectors/{name}")).status_code == 404

        await wait(gone, 30)
        if drop_slot:
            await self.drop_slot(name)

    async def drop_slot(self, slot: str, timeout: float = 30.0) -> None:
        async def dropped() -> bool:
            row = await self.slot(slot)
            if row is None:
                return True
            if not row[3]:
                with contextlib.suppress(psycopg.Error):
                    await self.sql(("SELECT pg_drop_replication_slot(%s)", (slot,)))
            return False

        await wait(dropped, timeout)

    # -- Kafka ---------------------------------------------------------------------------------------------------
    async def read(self, topic: str) -> list[TopicRecord]:
        return await read_to_end({"bootstrap.servers": self.bootstrap}, topic)

    async def records(self, topic: str, at_least: int, timeout: float = 45.0, settle: float = 0.0) -> list[TopicRecord]:
        """At least `at_least` records of `topic` (then `settle` more seconds for extras that should not come)."""

        tail = GrowingTopic(self.bootstrap, topic)  # reads on at each look instead of from the start

        async def enough() -> list[TopicRecord]:
            got = await tail.read_on()
            return list(got) if len(got) >= at_least else []

        try:
            got: list[TopicRecord] = await wait(enough, timeout)
        except AssertionError as e:
            have = await self.read(topic)
            raise AssertionError(f"{topic}: {len(have)} records, wanted {at_least}") from e
        finally:
            await tail.aclose()
        if settle:
            await asyncio.sleep(settle)
            got = await self.read(topic)
        return got


SIGNAL_DDL = "CREATE TABLE {s}.dbz_signal (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))"


async def signal_setup(h: Harness, name: str, rows: int) -> tuple[str, str]:
    """Schema `name` with an `items` table of `rows` rows and a signal table; returns (items, signal table)."""
    await h.sql(
        f"CREATE SCHEMA {name}",
        f"CREATE TABLE {name}.items (id int PRIMARY KEY, label text NOT NULL, qty int)",
        SIGNAL_DDL.format(s=name),
        f"INSERT INTO {name}.items SELECT g, 'item ' || g, g % 7 FROM generate_series(1, {rows}) g",
    )
    return f"{name}.items", f"{name}.dbz_signal"


async def wait(predicate: Any, timeout: float) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        result = await predicate()
        if result:
            return result
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.2)


@contextlib.asynccontextmanager
async def connector(h: Harness, name: str, config: Mapping[str, str]) -> Any:
    """Create the connector; always delete it and drop its slot afterwards."""
    await h.create(name, config)
    try:
        yield name
    finally:
        await h.delete(name, drop_slot=True)


@contextlib.asynccontextmanager
async def module_harness(kafka_bootstrap: str, pg_port: int, prefix: str) -> Any:
    """A scratch database and an in-process worker for one test module; everything removed afterwards."""
    from tests.worker_support import running_worker, worker_properties

    name = token(prefix)
    create_database(pg_port, name)
    props = worker_properties(kafka_bootstrap, name)
    props["offset.flush.interval.ms"] = "300"
    try:
        async with running_worker(props) as (_worker, client):
            yield Harness(client, kafka_bootstrap, pg_port, name, name)
    finally:
        await asyncio.to_thread(drop_database, pg_port, name)
        await asyncio.to_thread(delete_topics_with_prefix, kafka_bootstrap, name)


def harness_fixture(prefix: str, *setup: str) -> Any:
    """An acceptance module's `h` fixture: its scratch database and in-process worker, names starting with
    `prefix`, and `setup` statements run once (`{dbname}` is the database). Module-scoped; use as
    `h = harness_fixture("accx")`."""

    @pytest_asyncio.fixture(scope="module", loop_scope="module", name="h")
    async def fixture(kafka_bootstrap: str) -> AsyncIterator[Harness]:
        async with module_harness(kafka_bootstrap, PG_PORT, prefix) as harness:
            if setup:
                await harness.sql(*(statement.format(dbname=harness.dbname) for statement in setup))
            yield harness

    return fixture
