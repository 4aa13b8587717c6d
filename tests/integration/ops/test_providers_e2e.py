"""Config providers on a real in-process worker with FileStreamSource: REST shows placeholders, the connector
and its task get the secrets, the config topic keeps placeholders, and no secret reaches status, the status
topic, validation answers or log records."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from connect_worker.kafka.reader import read_to_end
from tests.worker_support import running_worker, wait_for

pytestmark = pytest.mark.integration

PROVIDERS = {
    "config.providers": "file,env,dir",
    "config.providers.file.class": "org.apache.kafka.common.config.provider.FileConfigProvider",
    "config.providers.env.class": "org.apache.kafka.common.config.provider.EnvVarConfigProvider",
    "config.providers.dir.class": "org.apache.kafka.common.config.provider.DirectoryConfigProvider",
}


async def test_placeholders_stay_placeholders_and_secrets_stay_inside(
    worker_props: dict[str, str],
    kafka_bootstrap: str,
    unique_name: str,
    tmp_path: Path,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    caplog.set_level(logging.DEBUG)
    source = tmp_path / "in.txt"
    source.write_text("one\ntwo\n")
    secret_topic = f"{unique_name}-secret-topic"  # the "secret": the connector only works if it got it
    secrets = tmp_path / "secrets.properties"
    secrets.write_text(f"topic={secret_topic}\nbatch=1000\n")
    secret_dir = tmp_path / "secrets.d"
    secret_dir.mkdir()
    (secret_dir / "file-path").write_text(str(source))  # no trailing newline: taken as it is
    monkeypatch.setenv("CW_TEST_BATCH_SIZE_SECRET", "5000")
    topic_ph = f"${{file:{secrets}:topic}}"
    batch_ph = f"${{file:{secrets}:batch}}"
    file_ph = f"${{dir:{secret_dir}:file-path}}"
    config = {
        "connector.class": "FileStreamSource",
        "file": file_ph,
        "topic": topic_ph,
        "batch.size": batch_ph,
        "errors.retry.timeout": "${env:CW_TEST_BATCH_SIZE_SECRET}",
        "tasks.max": "1",
    }
    props = {**worker_props, **PROVIDERS}
    async with running_worker(props) as (_worker, client):
        r = await client.post("/connectors", json={"name": "fs", "config": config})
        assert r.status_code == 201, r.text
        assert r.json()["config"] == {**config, "name": "fs"}
        assert (await client.get("/connectors/fs/config")).json() == {**config, "name": "fs"}
        assert (await client.get("/connectors/fs")).json()["config"] == {**config, "name": "fs"}

        async def lines() -> list[bytes | None]:
            got = await read_to_end({"bootstrap.servers": kafka_bootstrap}, secret_topic)
            return [x.value for x in got] if len(got) >= 2 else []

        assert await wait_for(lines) == [
            b'{"schema":{"type":"string","optional":false},"payload":"one"}',
            b'{"schema":{"type":"string","optional":false},"payload":"two"}',
        ]
        tasks = (await client.get("/connectors/fs/tasks")).json()
        assert tasks[0]["config"]["topic"] == topic_ph and tasks[0]["config"]["file"] == file_ph
        assert tasks[0]["config"]["errors.retry.timeout"] == "${env:CW_TEST_BATCH_SIZE_SECRET}"

        # a validation error about a resolved value names the placeholder, never the value
        secrets.write_text(f"topic={secret_topic}\nbatch=not-a-number-s3cr3t\n")
        r = await client.put("/connectors/fs2/config", json={**config, "name": "fs2"})
        assert r.status_code == 400
        assert "not-a-number-s3cr3t" not in r.text
        assert f"Invalid value {batch_ph} for configuration batch.size" in r.json()["message"]

        # the running connector restarts with the bad value: FAILED, with a trace that hides it
        r = await client.post("/connectors/fs/restart")
        assert r.status_code == 204

        async def failed() -> dict[str, object] | None:
            status = (await client.get("/connectors/fs/status")).json()
            return status if status["connector"]["state"] == "FAILED" else None

        status = await wait_for(failed)
        trace = str(status["connector"]["trace"])
        assert batch_ph in trace and "not-a-number-s3cr3t" not in trace

        # placeholders that cannot be resolved fail validation naming the placeholder
        missing = f"${{file:{tmp_path}/nope.properties:password}}"
        r = await client.put(
            "/connector-plugins/FileStreamSource/config/validate",
            json={**config, "name": "v", "batch.size": "100", "topic": missing, "extra.secret": "${env:CW_NOT_SET}"},
        )
        body = r.json()
        errors = {c["value"]["name"]: c["value"]["errors"] for c in body["configs"] if c["value"]["errors"]}
        assert errors["topic"][0] == (
            f"Could not resolve {missing}: could not read properties from file {tmp_path}/nope.properties: "
            "No such file or directory"
        )
        assert errors["extra.secret"] == ["Could not resolve ${env:CW_NOT_SET}: no value for CW_NOT_SET"]
        values = {c["value"]["name"]: c["value"]["value"] for c in body["configs"]}
        assert values["file"] == file_ph  # shown as given, not resolved
        r = await client.post("/connectors", json={"name": "bad", "config": {**config, "topic": missing}})
        assert r.status_code == 400 and f"Could not resolve {missing}" in r.json()["message"]

    stored = await read_to_end({"bootstrap.servers": kafka_bootstrap}, worker_props["config.storage.topic"])
    statuses = await read_to_end({"bootstrap.servers": kafka_bootstrap}, worker_props["status.storage.topic"])
    configs_topic = b"".join((x.value or b"") for x in stored)
    assert topic_ph.encode() in configs_topic
    for secret in (secret_topic, str(source), "not-a-number-s3cr3t", "5000"):
        assert secret.encode() not in configs_topic, secret
    # the status topic tracks the topics a connector writes to (topic-<topic>-<connector>): a topic name is
    # public once records are in it; nothing else resolved may appear there
    status_values = b"".join((x.value or b"") for x in statuses)
    for secret in (str(source), "not-a-number-s3cr3t"):
        assert secret.encode() not in status_values, secret
    logged = "\n".join(caplog.messages) + "\n".join(r.exc_text or "" for r in caplog.records)
    assert "connector fs is FAILED" in logged
    for secret in (secret_topic, "not-a-number-s3cr3t"):
        assert secret not in logged, secret
