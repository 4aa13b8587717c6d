"""One Connect cluster of a REAL Kafka Connect 4.3.1 worker (with Debezium 3.6.3) and this worker (`--distributed`):
both join one group on Kafka's coordinator with Connect's protocol, the leader (whichever the coordinator picks)
assigns Debezium PostgreSQL connectors and tasks to both, writes made on either worker reach the leader, each reads
the other's statuses, and when this worker leaves, the Java worker takes its work over.

This proves the group protocol (join metadata, assignments, the incremental cooperative rounds), the config-topic
records and status records interoperate with Connect's own implementation, not just with ourselves."""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncIterator
from typing import Any

import httpx
import psycopg
import pytest

from connect_worker.app import WorkerProcess
from connect_worker.runtime.distributed_herder import DistributedHerder
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.request_signature import SessionKey, signature_headers
from connect_worker.runtime.worker_config import WorkerConfig
from tests.differential.debezium import ConnectDebezium, delete_topics, unique_token
from tests.integration.postgres.acceptance.pg_harness import create_database
from tests.worker_support import drop_slot_and_database, postgres_connector, wait_for, worker_properties

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]


@pytest.fixture(params=["java-first", "ours-first"])
async def mixed_cluster(
    request: pytest.FixtureRequest, kafka_bootstrap: str, pg_port: int
) -> AsyncIterator[tuple[ConnectDebezium, WorkerProcess, httpx.AsyncClient]]:
    """The first worker to join leads: each order makes the other language's worker the follower that hands its
    task configs (signed) to the leader."""
    java = ConnectDebezium(kafka_bootstrap=kafka_bootstrap, name=unique_token("mix"), pg_port=pg_port)
    props = {
        **worker_properties(kafka_bootstrap, java.name),
        "group.id": java.group_id,
        "config.storage.topic": java.config_topic,
        "offset.storage.topic": java.offset_topic,
        "status.storage.topic": java.status_topic,
        "scheduled.rebalance.max.delay.ms": "0",  # as the Java worker's (devstack/debezium.sh)
        "offset.flush.interval.ms": "1000",
    }
    ours = WorkerProcess(WorkerConfig.from_properties(props), PluginRegistry.from_entry_points(), distributed=True)
    try:
        if request.param == "java-first":
            await asyncio.to_thread(java.start)
            await ours.start()
        else:
            await ours.start()
            await asyncio.to_thread(java.start)
        async with httpx.AsyncClient(base_url=props["listeners"], timeout=60) as client:
            yield java, ours, client
    finally:
        with contextlib.suppress(Exception):
            await ours.stop()
        await asyncio.to_thread(java.stop)
        await asyncio.to_thread(java.delete_internal_topics)


async def _status(client: httpx.AsyncClient, name: str) -> dict[str, Any] | None:
    r = await client.get(f"/connectors/{name}/status")
    return r.json() if r.status_code == 200 else None


async def test_java_and_python_workers_share_one_cluster(
    mixed_cluster: tuple[ConnectDebezium, WorkerProcess, httpx.AsyncClient], pg_port: int, kafka_bootstrap: str
) -> None:
    java, ours, client = mixed_cluster
    herder = ours.herder
    assert isinstance(herder, DistributedHerder)
    java_client = httpx.AsyncClient(base_url=java.url, timeout=60)
    names = [unique_token("mixpg") for _ in range(2)]
    try:
        # both workers are members of one generation with one leader, which may be either
        await wait_for(lambda: _joined(herder), timeout=60)
        leader_url = herder.member.leader_url
        assert leader_url is not None
        # Connect's default protocol on both sides: inter-worker requests are signed with the leader's session key
        assert herder.member.protocol == "sessioned"
        for name in names:
            dsn = create_database(pg_port, name)
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("CREATE TABLE items (id int PRIMARY KEY, v text)")
                conn.execute("INSERT INTO items VALUES (1, 'one')")
        # one connector created on each worker: a write on a non-leader is forwarded, across languages. A Java
        # follower answers 409 while the rebalance the previous create started is under way (Connect's "no known
        # leader URL"): its clients retry, and so does this one
        for name, c in zip(names, (client, java_client), strict=True):
            request = {"name": name, "config": postgres_connector(name, pg_port)}

            async def create(c: httpx.AsyncClient = c, request: dict[str, Any] = request) -> bool:
                r = await c.post("/connectors", json=request)
                if r.status_code == 409 and "rebalance" in r.text:
                    return False
                assert r.status_code == 201, r.text
                return True

            await wait_for(create, timeout=60)

        async def running_everywhere() -> dict[str, Any] | None:
            out = {}
            for name in names:
                views = [await _status(client, name), await _status(java_client, name)]
                if None in views or views[0] != views[1]:
                    return None  # both workers read the same statuses from the status topic
                s = views[0]
                assert s is not None
                states = [s["connector"]["state"], *(t["state"] for t in s["tasks"])]
                if not s["tasks"] or states != ["RUNNING"] * len(states):
                    return None
                out[name] = s
            return out

        statuses = await wait_for(running_everywhere, timeout=120)
        owners = {s["connector"]["worker_id"] for s in statuses.values()}
        owners |= {t["worker_id"] for s in statuses.values() for t in s["tasks"]}
        assert owners == {java.worker_id, ours.config.worker_id}, owners  # 2 connectors + 2 tasks over 2 workers

        # the change events of both connectors reach Kafka, whichever worker runs their task
        for name in names:
            dsn = f"host=127.0.0.1 port={pg_port} user=postgres dbname={name}"
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("INSERT INTO items VALUES (2, 'two')")
        for topic in (f"{n}.public.items" for n in names):
            await wait_for(functools.partial(_has_ids, kafka_bootstrap, topic, {1, 2}), timeout=60)

        # an internal request unsigned, forged, or signed with a MAC not accepted: both workers answer alike
        body = b'[{"task.class":"x"}]'
        forged = SessionKey(b"\0" * 32, "HmacSHA256", 0)
        for extra in ({}, signature_headers(forged, "HmacSHA256", body), signature_headers(forged, "HmacSHA512", body)):
            headers = {"Content-Type": "application/json", **extra}
            answers = [
                await c.post(f"/connectors/{names[0]}/tasks", content=body, headers=headers)
                for c in (client, java_client)
            ]
            assert answers[0].status_code == answers[1].status_code in (400, 403), [a.text for a in answers]
            assert answers[0].json() == answers[1].json()

        # this worker leaves: the Java worker runs everything, and says so
        await ours.stop()

        async def all_on_java() -> bool:
            for name in names:
                s = await _status(java_client, name)
                if s is None:
                    return False
                parts = [s["connector"], *s["tasks"]]
                if any(p["worker_id"] != java.worker_id or p["state"] != "RUNNING" for p in parts):
                    return False
            return True

        await wait_for(all_on_java, timeout=120)
    finally:
        for name in names:
            with contextlib.suppress(httpx.HTTPError):
                await java_client.delete(f"/connectors/{name}")
        await java_client.aclose()
        await asyncio.sleep(3)
        for name in names:
            await asyncio.to_thread(drop_slot_and_database, f"host=127.0.0.1 port={pg_port} user=postgres", name)
        delete_topics(kafka_bootstrap, [f"{n}.public.items" for n in names])


async def _joined(herder: DistributedHerder) -> bool:
    m = herder.member
    return m.assignment is not None and not m.rebalancing and m.leader_url is not None


async def _has_ids(bootstrap: str, topic: str, ids: set[int]) -> bool:
    import orjson

    from connect_worker.kafka.reader import read_to_end

    got = set()
    for r in await read_to_end({"bootstrap.servers": bootstrap}, topic):
        if r.value is not None:
            payload = orjson.loads(r.value).get("payload") or {}
            after = payload.get("after") or {}
            if "id" in after:
                got.add(after["id"])
    return ids <= got
