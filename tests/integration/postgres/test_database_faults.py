"""PostgreSQL restarted under a running connector (issue 19, faults), in both delivery modes, on a private cluster
(the `cluster` fixture, tests/integration/postgres/private_cluster.py), so the other tests keep theirs.

- Mid-stream, fast and immediate shutdown (immediate: no checkpoint, crash recovery when it starts again): the
  connector reconnects by itself (`retriable.restart.connector.wait.ms`) and resumes from the last position it
  handed over: no committed change is lost, and none is sent twice (the task, its producer and its transaction
  live on; only the capture inside restarts).
- The fast shutdown every DBA and package upgrade runs (`pg_ctl stop -m fast`) completes promptly while the worker
  streams (issue 14, item 6). The server's walsender exits only once the client's reported position equals
  everything it sent, which includes WAL without captured changes; before the fix the worker's keepalive replies
  carried only the offset-confirmed position and the shutdown waited for as long as the worker stayed connected
  (150 s and more).
- Mid-snapshot: the snapshot is taken again from the start, as Debezium takes it, then streaming follows: nothing is
  lost; the rows the cut snapshot had read are sent again (counted), in both modes.
"""

from __future__ import annotations

import asyncio
import contextlib
import subprocess
import threading
import time
from collections import Counter
from typing import Any

import orjson
import psycopg
import pytest

from connect_worker.kafka.reader import read_to_end
from tests.growing_topic import GrowingTopic
from tests.integration.postgres.private_cluster import Cluster
from tests.worker_support import (
    EXACTLY_ONCE_CONNECTOR,
    drop_slot_and_database,
    exactly_once_worker,
    postgres_connector,
    running_worker,
    wait_for,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]

SHUTDOWN_LIMIT_S = 10.0


class Loader(threading.Thread):
    """One row per transaction into the captured table (and one into an uncaptured one, so there is WAL without
    captured changes), reconnecting while the database is down. `committed` holds the ids whose COMMIT
    succeeded; an id whose COMMIT failed may or may not be in the database and is left out of both sets."""

    def __init__(self, dsn: str) -> None:
        super().__init__(daemon=True)
        self.dsn = dsn
        self.committed: list[int] = []
        self.uncertain: set[int] = set()
        self.failures = 0
        self.stop_event = threading.Event()

    def run(self) -> None:
        next_id = 1
        conn: psycopg.Connection[Any] | None = None
        while not self.stop_event.is_set():
            try:
                if conn is None:
                    conn = psycopg.connect(self.dsn, connect_timeout=2)
                with conn.transaction():
                    conn.execute("INSERT INTO public.captured VALUES (%s, repeat('x', 100))", (next_id,))
                    conn.execute("INSERT INTO public.noise VALUES (%s)", (next_id,))
                self.committed.append(next_id)
                next_id += 1
                time.sleep(0.005)
            except psycopg.Error:
                self.failures += 1
                self.uncertain.add(next_id)
                next_id += 1
                with contextlib.suppress(Exception):
                    if conn is not None:
                        conn.close()
                conn = None
                time.sleep(0.2)
        if conn is not None:
            conn.close()


def connector_config(cluster: Cluster, name: str, exactly_once: bool, **extra: str) -> dict[str, str]:
    return postgres_connector(
        name,
        cluster.port,
        **{
            "publication.autocreate.mode": "filtered",
            "table.include.list": "public.captured",
            "retriable.restart.connector.wait.ms": "1000",
            "key.converter": "org.apache.kafka.connect.json.JsonConverter",
            "key.converter.schemas.enable": "false",
            "value.converter": "org.apache.kafka.connect.json.JsonConverter",
            "value.converter.schemas.enable": "false",
            **(EXACTLY_ONCE_CONNECTOR if exactly_once else {}),
            **extra,
        },
    )


def props_for(worker_props: dict[str, str], name: str, exactly_once: bool) -> dict[str, str]:
    return {**worker_props, **(exactly_once_worker(name) if exactly_once else {})}


async def ids_in(bootstrap: str, topic: str, op: str | None = None) -> list[int]:
    records = await read_to_end({"bootstrap.servers": bootstrap}, topic, timeout=60)
    out = []
    for r in records:
        if r.value:
            event = orjson.loads(r.value)
            if op is None or event["op"] == op:
                out.append(event["after"]["id"])
    return out


async def ids_read_on(tail: GrowingTopic) -> list[int]:
    """The ids of the records a GrowingTopic has read, after it read on (the waits below look every 0.2 s at a topic
    growing to 400,000 records, which ids_in would read from its start at each look)."""
    return [orjson.loads(r.value)["after"]["id"] for r in await tail.read_on() if r.value]


async def task_running(client: Any, name: str) -> bool:
    status = (await client.get(f"/connectors/{name}/status")).json()
    return bool(status.get("tasks")) and status["tasks"][0]["state"] == "RUNNING"


def create_database(cluster: Cluster, name: str, rows: int = 0) -> str:
    with psycopg.connect(cluster.dsn(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    dsn = cluster.dsn(name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE public.captured (id int PRIMARY KEY, v text)")
        conn.execute("CREATE TABLE public.noise (id int)")
        if rows:
            conn.execute(f"INSERT INTO public.captured SELECT g, repeat('s', 50) FROM generate_series(-{rows}, -1) g")
    return dsn


@pytest.mark.parametrize(
    ("shutdown", "mode"),
    [(shutdown, mode) for shutdown in ("immediate", "fast") for mode in ("at-least-once", "exactly-once")],
)
async def test_restart_mid_stream(
    cluster: Cluster, worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, shutdown: str, mode: str
) -> None:
    name, exactly_once = unique_name, mode == "exactly-once"
    dsn = create_database(cluster, name)
    topic = f"{name}.public.captured"
    loader = Loader(dsn)
    try:
        async with running_worker(props_for(worker_props, name, exactly_once)) as (_worker, client):
            answer = await client.post(
                "/connectors", json={"name": name, "config": connector_config(cluster, name, exactly_once)}
            )
            assert answer.status_code == 201, answer.text
            await wait_for(lambda: task_running(client, name), 60)
            loader.start()
            await wait_for(lambda: _at_least(ids_in(kafka_bootstrap, topic), 200), 60)
            try:
                stop_s = await asyncio.to_thread(cluster.run, "stop", shutdown)
            except subprocess.CalledProcessError as e:  # the shutdown waits for the worker: let it go
                await client.delete(f"/connectors/{name}")
                stuck = f"{shutdown} shutdown did not complete with the worker connected: {e.stdout}"
                raise AssertionError(stuck) from e
            await asyncio.sleep(2)
            await asyncio.to_thread(cluster.run, "start")
            after = len(loader.committed)
            await wait_for(lambda: asyncio.sleep(0, len(loader.committed) >= after + 300), 60)
            loader.stop_event.set()
            await asyncio.to_thread(loader.join, 30)
            committed = set(loader.committed)
            await wait_for(lambda: _holds(ids_in(kafka_bootstrap, topic), committed), 120)
            assert await task_running(client, name)
            await client.delete(f"/connectors/{name}")
    finally:
        loader.stop_event.set()
        await asyncio.to_thread(_drop, cluster, name)
    ids = await ids_in(kafka_bootstrap, topic)
    twice = len(ids) - len(set(ids))
    print(f"{shutdown} shutdown mid-stream, {mode}: stop {stop_s:.1f} s; {len(committed)} rows, {twice} twice")
    assert committed <= set(ids) <= committed | loader.uncertain
    assert twice == 0, f"{twice} changes sent twice"
    if shutdown == "fast":
        assert stop_s < SHUTDOWN_LIMIT_S, f"fast shutdown took {stop_s:.1f} s with the worker connected"


@pytest.mark.parametrize("mode", ["at-least-once", "exactly-once"])
async def test_restart_mid_snapshot(
    cluster: Cluster, worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, mode: str
) -> None:
    name, exactly_once, rows = unique_name, mode == "exactly-once", 200_000
    dsn = create_database(cluster, name, rows)
    topic = f"{name}.public.captured"
    seen = GrowingTopic(kafka_bootstrap, topic)
    try:
        async with running_worker(props_for(worker_props, name, exactly_once)) as (_worker, client):
            config = connector_config(cluster, name, exactly_once, **{"snapshot.fetch.size": "2000"})
            answer = await client.post("/connectors", json={"name": name, "config": config})
            assert answer.status_code == 201, answer.text
            await wait_for(lambda: _at_least(ids_read_on(seen), 10_000), 60)
            await asyncio.to_thread(cluster.run, "stop", "fast")
            cut_at = len(await ids_in(kafka_bootstrap, topic))
            await asyncio.sleep(2)
            await asyncio.to_thread(cluster.run, "start")
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("INSERT INTO public.captured SELECT g, 'after' FROM generate_series(1, 500) g")
            expected = set(range(-rows, 0)) | set(range(1, 501))
            await wait_for(lambda: _holds(ids_read_on(seen), expected), 180)
            assert await task_running(client, name)
            await client.delete(f"/connectors/{name}")
    finally:
        await seen.aclose()
        await asyncio.to_thread(_drop, cluster, name)
    ids = await ids_in(kafka_bootstrap, topic)
    counts = Counter(ids)
    print(f"fast shutdown mid-snapshot, {mode}: cut after {cut_at} of {rows} rows; {len(ids) - len(counts)} sent twice")
    assert cut_at < rows, "the shutdown was meant to cut the snapshot"
    assert set(ids) == expected, "nothing lost, nothing invented"
    assert all(counts[i] == 1 for i in range(1, 501)), "the streamed changes once each"
    assert max(counts.values()) <= 2, "a cut snapshot is taken again once"


async def _at_least(ids: Any, n: int) -> bool:
    return len(await ids) >= n


async def _holds(ids: Any, wanted: set[int]) -> bool:
    return wanted <= set(await ids)


def _drop(cluster: Cluster, name: str) -> None:
    drop_slot_and_database(cluster.dsn(), name)
