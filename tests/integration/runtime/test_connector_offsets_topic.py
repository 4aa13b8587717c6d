"""A connector's own offsets topic (`offsets.storage.topic`, KIP-618) on the real broker, in both delivery modes.

A FileStreamSource connector first keeps its offsets in the worker's topic; reconfigured with a topic of its own, it
continues from those (reads fall back to the worker's topic) and writes there from then on, a copy going to the
worker's topic; a new worker resumes from it; GET /connectors/{name}/offsets shows the position; a reset through
REST clears it in both topics."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from connect_worker.kafka.reader import read_to_end
from tests.worker_support import exactly_once_worker, running_worker, wait_for, worker_properties

pytestmark = pytest.mark.integration


async def offsets_in(bootstrap: str, topic: str) -> list[Any]:
    """(key, value) of the offsets topic's records, JSON-decoded."""
    records = await read_to_end({"bootstrap.servers": bootstrap}, topic)
    return [(orjson.loads(r.key or b"null"), None if r.value is None else orjson.loads(r.value)) for r in records]


@pytest.mark.parametrize("mode", ["at-least-once", "exactly-once"])
async def test_a_connector_moves_to_its_own_offsets_topic(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path, mode: str
) -> None:
    props = worker_properties(kafka_bootstrap, unique_name)
    props.update({"key.converter": "org.apache.kafka.connect.storage.StringConverter"})
    props.update({"value.converter": "org.apache.kafka.connect.storage.StringConverter"})
    if mode == "exactly-once":
        props.update(exactly_once_worker(unique_name))
    source, topic = tmp_path / "in.txt", f"{unique_name}-lines"
    own = f"{unique_name}-fs-offsets"
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic}

    async def lines() -> list[bytes]:
        return [r.value or b"" for r in await read_to_end({"bootstrap.servers": kafka_bootstrap}, topic)]

    def expect(n: int) -> Any:
        async def arrived() -> bool:
            return len(await lines()) >= n

        return arrived

    source.write_text("".join(f"a{i}\n" for i in range(100)))
    async with running_worker(props) as (_w, client):
        assert (await client.put("/connectors/fs/config", json=config)).status_code == 201
        await wait_for(expect(100), 30)
    global_before = await offsets_in(kafka_bootstrap, props["offset.storage.topic"])
    assert global_before and global_before[-1][0][0] == "fs"

    async with running_worker(props) as (_w, client):
        answer = await client.put("/connectors/fs/config", json={**config, "offsets.storage.topic": own})
        assert answer.status_code == 200, answer.text
        # the task configs did not change, so the tasks run on (as in Connect): restart them on the new topic
        restart = await client.post("/connectors/fs/restart", params={"includeTasks": "true"})
        assert restart.status_code in (200, 202, 204), restart.text

        async def running() -> bool:
            tasks = (await client.get("/connectors/fs/status")).json()["tasks"]
            return bool(tasks) and tasks[0]["state"] == "RUNNING"

        await asyncio.sleep(0.5)
        await wait_for(running, 30)
        with source.open("a") as f:
            f.write("".join(f"b{i}\n" for i in range(50)))
        await wait_for(expect(150), 30)

        async def own_written() -> bool:
            return bool(await offsets_in(kafka_bootstrap, own))

        await wait_for(own_written, 30)
    # continued from the worker's topic: nothing read twice
    assert await lines() == [f"a{i}".encode() for i in range(100)] + [f"b{i}".encode() for i in range(50)]
    ((key, value),) = {(orjson.dumps(k), orjson.dumps(v)) for k, v in await offsets_in(kafka_bootstrap, own)}
    position = orjson.loads(value)["position"]
    assert orjson.loads(key) == ["fs", {"filename": str(source)}] and position == source.stat().st_size
    global_after = await offsets_in(kafka_bootstrap, props["offset.storage.topic"])
    assert global_after[-1][1] == {"position": position}  # the copy in the worker's topic

    with source.open("a") as f:
        f.write("".join(f"c{i}\n" for i in range(20)))
    async with running_worker(props) as (_w, client):
        await wait_for(expect(170), 30)
        assert (await client.put("/connectors/fs/stop")).status_code == 204

        async def stopped() -> bool:
            return bool((await client.get("/connectors/fs/status")).json()["connector"]["state"] == "STOPPED")

        await wait_for(stopped, 30)
        shown = (await client.get("/connectors/fs/offsets")).json()["offsets"]
        assert shown == [{"partition": {"filename": str(source)}, "offset": {"position": source.stat().st_size}}]
        assert (await client.delete("/connectors/fs/offsets")).status_code == 200
        assert (await client.get("/connectors/fs/offsets")).json()["offsets"] == []
    assert len(await lines()) == 170  # the third worker resumed from the connector's own topic
    assert (await offsets_in(kafka_bootstrap, own))[-1][1] is None  # reset: a tombstone in both topics
    assert (await offsets_in(kafka_bootstrap, props["offset.storage.topic"]))[-1][1] is None
