"""Helpers for tests that run the whole worker in process against the real services."""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from connect_worker.app import WorkerProcess
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.worker_config import WorkerConfig


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def worker_properties(kafka_bootstrap: str, prefix: str) -> dict[str, str]:
    return {
        "bootstrap.servers": kafka_bootstrap,
        "listeners": f"http://127.0.0.1:{free_port()}",
        "offset.storage.topic": f"{prefix}-offsets",
        "config.storage.topic": f"{prefix}-configs",
        "status.storage.topic": f"{prefix}-status",
        "offset.storage.replication.factor": "1",
        "config.storage.replication.factor": "1",
        "status.storage.replication.factor": "1",
        # one partition each (Connect: 25 and 5): every test has its own internal topics, and the local
        # broker (512 MB heap) keeps them all; tests/integration/storage covers the 25-partition layout
        "offset.storage.partitions": "1",
        "status.storage.partitions": "1",
        "offset.flush.interval.ms": "200",
        "key.converter": "org.apache.kafka.connect.json.JsonConverter",
        "value.converter": "org.apache.kafka.connect.json.JsonConverter",
    }


@contextlib.asynccontextmanager
async def running_worker(props: dict[str, str]) -> AsyncIterator[tuple[WorkerProcess, httpx.AsyncClient]]:
    worker = WorkerProcess(WorkerConfig.from_properties(props), PluginRegistry.from_entry_points())
    await worker.start()
    try:
        async with httpx.AsyncClient(base_url=props["listeners"], timeout=30) as client:
            yield worker, client
    finally:
        await worker.stop()


async def wait_for(predicate: Callable[[], Any], timeout: float = 20.0) -> Any:
    deadline = asyncio.get_running_loop().time() + timeout
    while True:
        result = await predicate()
        if result:
            return result
        if asyncio.get_running_loop().time() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(0.2)


def postgres_connector(name: str, port: int | str, **extra: str) -> dict[str, str]:
    """A PostgreSQL connector capturing database `name` on 127.0.0.1:`port` with pgoutput, its topic prefix, slot
    and publication all named `name`; `extra` keys added."""
    return {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": str(port),
        "database.user": "postgres",
        "database.dbname": name,
        "topic.prefix": name,
        "plugin.name": "pgoutput",
        "slot.name": name,
        "publication.name": name,
        **extra,
    }


#: the worker and connector settings of exactly-once delivery with poll boundaries (issue 19's tests)
EXACTLY_ONCE_CONNECTOR = {"exactly.once.support": "required", "transaction.boundary": "poll"}


def exactly_once_worker(group: str) -> dict[str, str]:
    return {"exactly.once.source.support": "enabled", "group.id": group}


def drop_slot_and_database(admin_dsn: str, name: str) -> None:
    """Drop replication slot `name` once no walsender holds it (a worker just stopped), then database `name`."""
    import time

    import psycopg

    with contextlib.suppress(psycopg.Error), psycopg.connect(admin_dsn, autocommit=True) as conn:
        for _ in range(100):
            active = conn.execute(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = %s AND active", (name,)
            ).fetchone()
            if not active or not active[0]:
                break
            time.sleep(0.2)
        conn.execute(
            "SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = %s", (name,)
        )
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


AVRO_CONVERTER = "io.confluent.connect.avro.AvroConverter"


async def create_json_and_avro_twins(
    client: httpx.AsyncClient, base: dict[str, str], registry_url: str, json_prefix: str, avro_prefix: str
) -> None:
    """Two connectors `json` and `avro` on the same tables, each with its own topic prefix, slot and publication:
    JsonConverter values with schemas, and Avro keys and values through the registry."""
    for name, prefix, converters in (
        ("json", json_prefix, {"value.converter.schemas.enable": "true"}),
        (
            "avro",
            avro_prefix,
            {
                "key.converter": AVRO_CONVERTER,
                "value.converter": AVRO_CONVERTER,
                "key.converter.schema.registry.url": registry_url,
                "value.converter.schema.registry.url": registry_url,
            },
        ),
    ):
        config = {
            **base,
            "topic.prefix": prefix,
            "slot.name": f"slot_{prefix}",
            "publication.name": f"pub_{prefix}",
            **converters,
        }
        r = await client.post("/connectors", json={"name": name, "config": config})
        assert r.status_code == 201, r.text
