"""The whole worker, in process, against the real broker and over real HTTP: connectors created through
REST, records in Kafka, offsets/configs/statuses in their topics, and a restart that resumes."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import orjson
import pytest

from connect_worker.kafka.reader import TopicRecord, read_to_end
from tests.worker_support import running_worker, wait_for

pytestmark = pytest.mark.integration


async def records(bootstrap: str, topic: str) -> list[TopicRecord]:
    return await read_to_end({"bootstrap.servers": bootstrap}, topic)


async def test_file_source_end_to_end_and_resume(
    worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("alpha\nbeta\n")
    topic = f"{unique_name}-lines"
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic, "tasks.max": 1}

    async with running_worker(worker_props) as (_worker, client):
        r = await client.post("/connectors", json={"name": "fs", "config": config})
        assert r.status_code == 201, r.text
        assert r.headers["location"] == worker_props["listeners"] + "/connectors/fs"
        assert r.json() == {
            "name": "fs",
            "config": {
                "connector.class": "FileStreamSource",
                "file": str(source),
                "topic": topic,
                "tasks.max": "1",
                "name": "fs",
            },
            "tasks": [{"connector": "fs", "task": 0}],
            "type": "source",
        }

        async def two_lines() -> list[TopicRecord]:
            got = await records(kafka_bootstrap, topic)
            return got if len(got) >= 2 else []

        got = await wait_for(two_lines)
        assert [r.value for r in got] == [
            b'{"schema":{"type":"string","optional":false},"payload":"alpha"}',
            b'{"schema":{"type":"string","optional":false},"payload":"beta"}',
        ]
        status = (await client.get("/connectors/fs/status")).json()
        assert status["connector"]["state"] == "RUNNING"
        assert status["tasks"][0]["state"] == "RUNNING"
        assert status["tasks"][0]["worker_id"] == worker_props["listeners"].removeprefix("http://")

        async def offset_committed() -> Any:
            body = (await client.get("/connectors/fs/offsets")).json()
            return body if body["offsets"] else None

        offsets = await wait_for(offset_committed)
        assert offsets == {"offsets": [{"partition": {"filename": str(source)}, "offset": {"position": 11}}]}
        assert (await client.get("/connectors/fs/topics")).json() == {"fs": {"topics": [topic]}}

    # The worker is down: new lines arrive; a new worker must resume after "beta", not from the start.
    with source.open("a") as f:
        f.write("gamma\n")
    async with running_worker(worker_props) as (_worker, client):
        assert (await client.get("/connectors")).json() == ["fs"]

        async def three_lines() -> list[TopicRecord]:
            got = await records(kafka_bootstrap, topic)
            return got if len(got) >= 3 else []

        got = await wait_for(three_lines)
        await asyncio.sleep(1.5)  # a duplicate, if any, would show up by now
        payloads = [orjson.loads(r.value or b"null")["payload"] for r in await records(kafka_bootstrap, topic)]
        assert payloads == ["alpha", "beta", "gamma"]

    offsets_records = await records(kafka_bootstrap, worker_props["offset.storage.topic"])
    key = orjson.dumps(["fs", {"filename": str(source)}])
    assert any(r.key == key for r in offsets_records)

    configs = await records(kafka_bootstrap, worker_props["config.storage.topic"])
    keys = [r.key for r in configs]
    assert keys[:3] == [b"connector-fs", b"task-fs-0", b"commit-fs"]
    assert orjson.loads(configs[2].value or b"null") == {"tasks": 1}
    task_cfg = orjson.loads(configs[1].value or b"null")["properties"]
    assert task_cfg["task.class"] == "org.apache.kafka.connect.file.FileStreamSourceTask"

    statuses = await records(kafka_bootstrap, worker_props["status.storage.topic"])
    running = [orjson.loads(r.value) for r in statuses if r.key == b"status-task-fs-0" and r.value]
    assert running and list(running[0]) == ["state", "trace", "worker_id", "generation", "version"]


async def test_stop_alter_offsets_resume(
    worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("one\ntwo\nthree\n")
    topic = f"{unique_name}-lines"
    config = {
        "connector.class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
        "file": str(source),
        "topic": topic,
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    }
    async with running_worker(worker_props) as (_worker, client):
        r = await client.post("/connectors", json={"name": "fs2", "config": config, "initial_state": "STOPPED"})
        assert r.status_code == 201, r.text
        assert r.json()["tasks"] == []
        status = (await client.get("/connectors/fs2/status")).json()
        assert status["connector"]["state"] == "STOPPED" and status["tasks"] == []

        # offsets can only change while STOPPED; skip the first line ("one\n" is 4 bytes)
        r = await client.patch(
            "/connectors/fs2/offsets",
            json={"offsets": [{"partition": {"filename": str(source)}, "offset": {"position": 4}}]},
        )
        assert r.status_code == 200, r.text
        assert r.json() == {"message": "The offsets for this connector have been altered successfully"}

        assert (await client.put("/connectors/fs2/resume")).status_code == 202

        async def lines() -> list[TopicRecord]:
            got = await records(kafka_bootstrap, topic)
            return got if len(got) >= 2 else []

        got = await wait_for(lines)
        assert [r.value for r in got] == [b"two", b"three"]

        r = await client.patch(
            "/connectors/fs2/offsets", json={"offsets": [{"partition": {"filename": str(source)}, "offset": None}]}
        )
        assert r.status_code == 400
        assert r.json()["message"].startswith("Connectors must be in the STOPPED state")

        assert (await client.put("/connectors/fs2/pause")).status_code == 202

        async def paused() -> bool:
            s = (await client.get("/connectors/fs2/status")).json()
            return bool(s["connector"]["state"] == "PAUSED" and s["tasks"][0]["state"] == "PAUSED")

        await wait_for(paused)
        assert (await client.delete("/connectors/fs2")).status_code == 204
        assert (await client.get("/connectors/fs2")).status_code == 404


async def test_invalid_config_is_rejected_with_connects_message(worker_props: dict[str, str]) -> None:
    async with running_worker(worker_props) as (_worker, client):
        r = await client.post(
            "/connectors", json={"name": "bad", "config": {"connector.class": "FileStreamSource", "tasks.max": "0"}}
        )
        assert r.status_code == 400
        assert r.json() == {
            "error_code": 400,
            "message": "Connector configuration is invalid and contains the following 2 error(s):\n"
            "Invalid value 0 for configuration tasks.max: Value must be at least 1\n"
            'Missing required configuration "topic" which has no default value.\n'
            "You can also find the above list of errors at the endpoint "
            "`/connector-plugins/{connectorType}/config/validate`",
        }
        r = await client.post("/connectors", json={"name": "x", "config": {"connector.class": "NoSuchConnector"}})
        assert r.status_code == 400
        assert r.json()["message"].startswith(
            "Failed to find any class that implements Connector and which name matches NoSuchConnector"
        )
        assert (await client.get("/connectors")).json() == []


async def test_topic_creation_groups_and_producer_overrides(
    worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    from connect_worker.kafka.admin import TopicAdmin

    source = tmp_path / "in.txt"
    source.write_text("x\n")
    topic = f"{unique_name}-created"
    config = {
        "connector.class": "FileStreamSource",
        "file": str(source),
        "topic": topic,
        "topic.creation.groups": "hourly",
        "topic.creation.default.replication.factor": "1",
        "topic.creation.default.partitions": "2",
        "topic.creation.hourly.include": f"{unique_name}-.*",
        "topic.creation.hourly.partitions": "3",
        "topic.creation.hourly.retention.ms": "3600000",
        "producer.override.compression.type": "lz4",
    }
    async with running_worker(worker_props) as (_worker, client):
        r = await client.put("/connectors/tc/config", json=config)
        assert r.status_code == 201, r.text

        async def created() -> list[TopicRecord]:
            return await records(kafka_bootstrap, topic)

        await wait_for(created)
        admin = TopicAdmin({"bootstrap.servers": kafka_bootstrap})
        assert await admin.partition_count(topic) == 3
        assert (await admin.topic_config(topic))["retention.ms"] == "3600000"

        r = await client.put("/connectors/tc/config", json=config)
        assert r.status_code == 200  # an update, not a creation


async def test_plugins_and_validate_on_the_real_herder(worker_props: dict[str, str]) -> None:
    async with running_worker(worker_props) as (_worker, client):
        plugins = (await client.get("/connector-plugins")).json()
        assert {
            "class": "org.apache.kafka.connect.file.FileStreamSourceConnector",
            "type": "source",
            "version": "4.3.1",
        } in plugins
        assert all(p["type"] in ("source", "sink") for p in plugins)
        everything = (await client.get("/connector-plugins?connectorsOnly=false")).json()
        types = [p["type"] for p in everything]
        assert types == sorted(
            types, key=["sink", "source", "transformation", "predicate", "converter", "header_converter"].index
        )
        assert {
            "class": "io.debezium.transforms.ExtractNewRecordState",
            "type": "transformation",
            "version": "3.6.3.Final",
        } in everything

        cfg = (await client.get("/connector-plugins/RegexRouter/config")).json()
        assert [k["name"] for k in cfg] == ["regex", "replacement"]

        r = await client.put(
            "/connector-plugins/FileStreamSource/config/validate",
            json={
                "connector.class": "FileStreamSource",
                "tasks.max": "0",
                "transforms": "r",
                "transforms.r.type": "RegexRouter",
                "transforms.r.regex": "a(.*)",
            },
        )
        assert r.status_code == 200
        body = r.json()
        assert body["name"] == "FileStreamSource"
        assert body["groups"][:7] == [
            "Common",
            "Transforms",
            "Predicates",
            "Error Handling",
            "Topic Creation",
            "Exactly Once Support",
            "offsets.topic",
        ]
        assert body["groups"][-1] == "Transforms: r"
        errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
        assert errors == {
            "name": ['Missing required configuration "name" which has no default value.'],
            "tasks.max": ["Invalid value 0 for configuration tasks.max: Value must be at least 1"],
            "transforms.r.replacement": [
                'Missing required configuration "transforms.r.replacement" which has no default value.'
            ],
            "topic": ['Missing required configuration "topic" which has no default value.'],
        }
        assert body["error_count"] == 4
        first = body["configs"][0]
        assert first["definition"]["name"] == "name" and first["definition"]["group"] == "Common"

        r = await client.put(
            "/connector-plugins/RegexRouter/config/validate", json={"connector.class": "FileStreamSource"}
        )
        assert r.status_code == 400
        assert r.json()["message"] == (
            "Included connector type FileStreamSource does not match request type RegexRouter"
        )


async def test_a_config_value_sent_as_null_is_kept_as_connect_keeps_it(
    worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    """Real Kafka Connect 4.3.1 stores a key sent as JSON null and answers it back with null (checked against the
    real worker); for the connector the key is unset. It survives the config topic and a worker restart."""
    source = tmp_path / "in.txt"
    source.write_text("alpha\n")
    topic = f"{unique_name}-nulls"
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic, "batch.size": None}

    async with running_worker(worker_props) as (_worker, client):
        r = await client.post("/connectors", json={"name": "nl", "config": config})
        assert r.status_code == 201, r.text
        assert r.json()["config"]["batch.size"] is None
        assert (await client.get("/connectors/nl/config")).json()["batch.size"] is None

        async def one_line() -> list[TopicRecord]:
            return await records(kafka_bootstrap, topic)

        await wait_for(one_line)  # the connector runs with batch.size unset (its default)
        assert (await client.get("/connectors/nl/status")).json()["tasks"][0]["state"] == "RUNNING"

    stored = [
        r for r in await records(kafka_bootstrap, worker_props["config.storage.topic"]) if r.key == b"connector-nl"
    ]
    assert orjson.loads(stored[-1].value or b"null")["properties"]["batch.size"] is None
    async with running_worker(worker_props) as (_worker, client):
        assert (await client.get("/connectors/nl/config")).json()["batch.size"] is None
