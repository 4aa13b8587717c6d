"""Records Kafka does not accept (here: larger than the topic's max.message.bytes, refused by the real broker).
Without error tolerance the task fails, naming the topic; with errors.tolerance=all the record is skipped and
its offset still advances, as Kafka Connect 3.2+ does (KIP-779)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from connect_worker.kafka.reader import read_to_end
from tests.worker_support import running_worker, wait_for

pytestmark = pytest.mark.integration

BIG = "x" * 20_000


def config(source: Path, topic: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSource",
        "file": str(source),
        "topic": topic,
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "1",
        "topic.creation.default.max.message.bytes": "4096",
        **extra,
    }


async def payloads(bootstrap: str, topic: str) -> list[Any]:
    return [
        orjson.loads(r.value or b"null")["payload"] for r in await read_to_end({"bootstrap.servers": bootstrap}, topic)
    ]


async def append_when_read(source: Path, bootstrap: str, topic: str, expected: list[str], line: str) -> None:
    async def arrived() -> bool:
        return await payloads(bootstrap, topic) == expected

    await wait_for(arrived)
    with source.open("a") as f:
        f.write(line + "\n")


async def test_a_refused_record_fails_the_task_by_default(
    worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("alpha\n")
    topic = f"{unique_name}-strict"
    async with running_worker(worker_props) as (_worker, client):
        r = await client.post("/connectors", json={"name": "fs", "config": config(source, topic)})
        assert r.status_code == 201, r.text
        await append_when_read(source, kafka_bootstrap, topic, ["alpha"], BIG)

        async def failed() -> Any:
            task = (await client.get("/connectors/fs/status")).json()["tasks"][0]
            return task if task["state"] == "FAILED" else None

        task = await wait_for(failed, 30)
        assert f"Kafka did not accept a record for topic {topic}" in task["trace"]


async def test_errors_tolerance_all_skips_a_refused_record_and_moves_on(
    worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("alpha\n")
    topic = f"{unique_name}-tolerant"
    tolerant = config(source, topic, **{"errors.tolerance": "all", "errors.log.enable": "true"})
    worker_props = {**worker_props, "offset.flush.interval.ms": "300"}
    async with running_worker(worker_props) as (_worker, client):
        r = await client.post("/connectors", json={"name": "fs", "config": tolerant})
        assert r.status_code == 201, r.text
        await append_when_read(source, kafka_bootstrap, topic, ["alpha"], BIG)
        await asyncio.sleep(2)  # the big line is read and refused before the next one is written
        with source.open("a") as f:
            f.write("omega\n")

        async def omega() -> bool:
            return await payloads(kafka_bootstrap, topic) == ["alpha", "omega"]

        await wait_for(omega, 30)
        status = (await client.get("/connectors/fs/status")).json()
        assert status["tasks"][0]["state"] == "RUNNING"
        end = source.stat().st_size

        async def offset_at_end() -> Any:
            body = (await client.get("/connectors/fs/offsets")).json()
            return body if body["offsets"] and body["offsets"][0]["offset"]["position"] == end else None

        await wait_for(offset_at_end)  # past the skipped record too
