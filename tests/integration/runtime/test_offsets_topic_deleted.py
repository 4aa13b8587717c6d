"""The offsets topic deleted under a running worker (issue 19, faults): the task fails with a message that names the
topic and says what follows, instead of flushing into nothing (at least once: the worker's internal producer does not
create topics, so its writes would wait out their timeout) or into a topic a producer's metadata request created
again without compaction (exactly once: the task's producer writes the offsets, and it may create data topics)."""

from __future__ import annotations

from pathlib import Path

import pytest
from confluent_kafka.admin import AdminClient

from connect_worker.kafka.reader import read_to_end
from tests.worker_support import exactly_once_worker, running_worker, wait_for, worker_properties

pytestmark = [pytest.mark.integration, pytest.mark.timeout(120)]


@pytest.mark.parametrize("mode", ["at-least-once", "exactly-once"])
async def test_the_task_fails_naming_the_offsets_topic(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path, mode: str
) -> None:
    props = worker_properties(kafka_bootstrap, unique_name)
    props["value.converter"] = "org.apache.kafka.connect.storage.StringConverter"
    if mode == "exactly-once":
        props.update(exactly_once_worker(unique_name))
    source, topic = tmp_path / "in.txt", f"{unique_name}-lines"
    source.write_text("".join(f"a{i}\n" for i in range(100)))
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic}
    async with running_worker(props) as (_w, client):
        assert (await client.put("/connectors/fs/config", json=config)).status_code == 201

        async def delivered() -> bool:
            return len(await read_to_end({"bootstrap.servers": kafka_bootstrap}, topic)) >= 100

        await wait_for(delivered, 30)
        admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
        offsets = props["offset.storage.topic"]
        admin.delete_topics([offsets])[offsets].result(30)
        with source.open("a") as f:
            f.write("".join(f"b{i}\n" for i in range(100)))

        async def failed() -> dict[str, str] | None:
            tasks = (await client.get("/connectors/fs/status")).json()["tasks"]
            return tasks[0] if tasks and tasks[0]["state"] == "FAILED" else None

        task = await wait_for(failed, 40)
    assert f"The offsets topic '{offsets}'" in task["trace"], task["trace"][:600]
    assert "Restore the topic" in task["trace"]
