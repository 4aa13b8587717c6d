"""PostgreSQL restarted under a streaming worker (issue 14, item 6): the fast shutdown every DBA and package
upgrade runs (`pg_ctl stop -m fast`, through devstack/postgres.sh) completes promptly while the worker streams a
steady write load, the worker reconnects by itself when the database is back, and no committed change is lost.

The server's walsender exits at fast shutdown only once the client's reported position equals everything it
sent, which includes WAL without captured changes; before the fix the worker's keepalive replies carried only the
offset-confirmed position and the shutdown waited for as long as the worker stayed connected (150 s and more).

It stops and starts a private cluster of the devstack's kind (the `cluster` fixture), not the shared devstack
server: `make test` runs the Spark sink's end-to-end tests beside in a second process, on the shared server.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from typing import Any

import orjson
import psycopg
import pytest

from connect_worker.kafka.reader import read_to_end
from tests.integration.postgres.private_cluster import POSTGRES_SH, Cluster
from tests.worker_support import drop_slot_and_database, running_worker, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.timeout(400)]

SHUTDOWN_LIMIT_S = 10.0


async def _postgres(cluster: Cluster, action: str) -> tuple[int, float, str]:
    """devstack/postgres.sh <action> on the cluster, without blocking the event loop the worker runs on: (exit
    code, seconds, output)."""
    started = time.monotonic()
    proc = await asyncio.create_subprocess_exec(
        str(POSTGRES_SH), action, env=cluster.env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 180)
    return proc.returncode or 0, time.monotonic() - started, out.decode(errors="replace")


async def _start_again(cluster: Cluster) -> None:
    """Start the server once it is down (a stop that gave up waiting leaves the shutdown running)."""
    for _ in range(300):
        code, _, out = await _postgres(cluster, "status")
        if "stopped" in out:
            break
        await asyncio.sleep(1)
    code, _, out = await _postgres(cluster, "start")
    assert code == 0, f"postgres.sh start failed: {out}"


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


async def test_fast_shutdown_completes_while_streaming_and_nothing_is_lost(
    cluster: Cluster, worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str
) -> None:
    admin, dsn = cluster.dsn(), cluster.dsn(unique_name)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{unique_name}"')
    loader: Loader | None = None
    try:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE public.captured (id int PRIMARY KEY, v text)")
            conn.execute("CREATE TABLE public.noise (id int)")
        config = {
            "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
            "database.hostname": "127.0.0.1",
            "database.port": str(cluster.port),
            "database.user": "postgres",
            "database.dbname": unique_name,
            "topic.prefix": unique_name,
            "plugin.name": "pgoutput",
            "slot.name": unique_name,
            "publication.name": unique_name,
            "publication.autocreate.mode": "filtered",
            "table.include.list": "public.captured",
            "retriable.restart.connector.wait.ms": "1000",
        }
        topic = f"{unique_name}.public.captured"
        async with running_worker(worker_props) as (_worker, client):
            answer = await client.post("/connectors", json={"name": unique_name, "config": config})
            assert answer.status_code == 201, answer.text

            async def running() -> bool:
                status = (await client.get(f"/connectors/{unique_name}/status")).json()
                return bool(status.get("tasks")) and status["tasks"][0]["state"] == "RUNNING"

            await wait_for(running, 60)
            loader = Loader(dsn)
            loader.start()

            async def streaming() -> bool:
                return len(await read_to_end({"bootstrap.servers": kafka_bootstrap}, topic)) >= 200

            await wait_for(streaming, 60)
            code, stop_s, out = -1, 0.0, ""
            try:
                code, stop_s, out = await _postgres(cluster, "stop")
            finally:
                if code != 0:  # the shutdown still waits for the worker: let it go, so the server can stop
                    await client.delete(f"/connectors/{unique_name}")
                await asyncio.sleep(2)
                await _start_again(cluster)
            assert code == 0, f"fast shutdown did not complete with the worker connected: {out}"
            assert stop_s < SHUTDOWN_LIMIT_S, f"fast shutdown took {stop_s:.1f} s with the worker connected"
            print(f"fast shutdown with the worker streaming: {stop_s:.2f} s")

            after_restart = len(loader.committed)

            async def loading_again() -> bool:
                return len(loader.committed) >= after_restart + 300

            await wait_for(loading_again, 60)
            loader.stop_event.set()
            await asyncio.to_thread(loader.join, 30)
            committed = set(loader.committed)

            async def all_delivered() -> list[Any]:
                records = await read_to_end({"bootstrap.servers": kafka_bootstrap}, topic)
                ids = [orjson.loads(r.value)["payload"]["after"]["id"] for r in records if r.value]
                return ids if committed <= set(ids) else []

            try:
                ids = await wait_for(all_delivered, 120)
            except TimeoutError:
                records = await read_to_end({"bootstrap.servers": kafka_bootstrap}, topic)
                seen = {orjson.loads(r.value)["payload"]["after"]["id"] for r in records if r.value}
                missing = sorted(committed - seen)
                status = (await client.get(f"/connectors/{unique_name}/status")).json()
                raise AssertionError(f"{len(missing)} committed rows never arrived: {missing[:20]}; {status}") from None
            assert set(ids) <= committed | loader.uncertain  # nothing that was not written
            status = (await client.get(f"/connectors/{unique_name}/status")).json()
            assert status["tasks"][0]["state"] == "RUNNING", status
            await client.delete(f"/connectors/{unique_name}")
    finally:
        await asyncio.to_thread(_clean_up, loader, admin, unique_name)


def _clean_up(loader: Loader | None, admin: str, name: str) -> None:
    if loader is not None:
        loader.stop_event.set()
        loader.join(30)
    drop_slot_and_database(admin, name)
