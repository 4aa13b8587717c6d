"""AvroConverter against the real registry (Apicurio 3.3.3's Confluent API): subjects and ids, evolution, the
registry's refusals and its absence, the naming strategies, use.latest.version, lookups, several URLs, and
Apicurio's own converter class name. The worker-level behaviour (retries within errors.retry.timeout, then a
failed task naming the registry, or skipped records under errors.tolerance=all) runs a real worker."""

from __future__ import annotations

import asyncio
import json
import urllib.parse
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from connect_worker.api.converter import PendingIO
from connect_worker.api.errors import ConfigError, DataError, RetriableError
from connect_worker.api.schema import Schema, Type
from connect_worker.api.struct import Struct
from connect_worker.kafka.reader import read_to_end
from converters.avro import AvroConverter, convert_blocking
from converters.avro_apicurio import ApicurioAvroConverter
from tests.worker_support import free_port, running_worker, wait_for

pytestmark = pytest.mark.integration


def _v1(name: str) -> Schema:
    return Schema(Type.STRUCT, name=name, fields=[("id", Schema(Type.INT32))])


def _v2(name: str, *, optional: bool) -> Schema:
    return Schema(
        Type.STRUCT, name=name, fields=[("id", Schema(Type.INT32)), ("note", Schema(Type.STRING, optional=optional))]
    )


def _converter(url: str, is_key: bool = False, extra: dict[str, str] | None = None) -> AvroConverter:
    c = AvroConverter()
    c.configure({"schema.registry.url": url, **(extra or {})}, is_key)
    return c


def _http(method: str, url: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/vnd.schemaregistry.v1+json"}
    )
    with urllib.request.urlopen(req, timeout=10) as resp:
        return json.loads(resp.read() or b"null")


def _versions(registry_url: str, subject: str) -> list[int]:
    return list(_http("GET", f"{registry_url}/subjects/{subject}/versions"))


def test_evolution_registers_a_version_and_old_records_still_decode(registry_url: str, unique_name: str) -> None:
    topic, name = unique_name, f"{unique_name}.Value"
    conv = _converter(registry_url)
    old = convert_blocking(conv, topic, _v1(name), Struct(_v1(name), {"id": 1}))
    v2 = _v2(name, optional=True)
    new = convert_blocking(conv, topic, v2, Struct(v2, {"id": 2, "note": "n"}))
    assert old is not None and new is not None
    assert old[1:5] != new[1:5]  # two schema ids
    assert _versions(registry_url, f"{topic}-value") == [1, 2]
    reader = _converter(registry_url)
    first, second = reader.to_connect_data(topic, old), reader.to_connect_data(topic, new)
    assert first.schema is not None and second.schema is not None
    assert first.value.values == (1,) and [f.name for f in first.schema.fields] == ["id"]
    assert second.value.values == (2, "n") and second.schema.field("note").schema.optional  # type: ignore[union-attr]
    # the subject's version rides on the read schema (AvroData does this when the Avro schema has no version)
    assert first.schema.version == 1 and second.schema.version == 2


def test_an_incompatible_schema_fails_naming_the_subject_and_the_registry_reason(
    registry_url: str, unique_name: str
) -> None:
    topic, name = unique_name, f"{unique_name}.Value"
    subject = f"{topic}-value"
    conv = _converter(registry_url)
    convert_blocking(conv, topic, _v1(name), Struct(_v1(name), {"id": 1}))
    _http("PUT", f"{registry_url}/config/{subject}", {"compatibility": "BACKWARD"})
    v2 = _v2(name, optional=False)  # a new required field without a default: not backward compatible
    with pytest.raises(PendingIO) as pending:
        conv.from_connect_data(topic, v2, Struct(v2, {"id": 2, "note": "n"}))
    with pytest.raises(DataError) as refused:
        pending.value.work()
    assert f'incompatible with an earlier schema for subject "{subject}"' in str(refused.value)
    assert registry_url in str(refused.value)
    assert _versions(registry_url, subject) == [1]


def test_an_unreachable_registry_is_retriable_and_named(unique_name: str) -> None:
    url = f"http://127.0.0.1:{free_port()}/apis/ccompat/v7"
    conv = _converter(url)
    schema = _v1(f"{unique_name}.Value")
    with pytest.raises(PendingIO) as pending:
        conv.from_connect_data(unique_name, schema, Struct(schema, {"id": 1}))
    with pytest.raises(RetriableError) as unreachable:
        pending.value.work()
    assert url in str(unreachable.value)


def test_several_urls_fall_over_to_the_one_that_answers(registry_url: str, unique_name: str) -> None:
    dead = f"http://127.0.0.1:{free_port()}/apis/ccompat/v7"
    conv = _converter(f"{dead},{registry_url}")
    schema = _v1(f"{unique_name}.Value")
    data = convert_blocking(conv, unique_name, schema, Struct(schema, {"id": 7}))
    assert conv.to_connect_data(unique_name, data).value.values == (7,)


@pytest.mark.parametrize(
    ("strategy", "subject"),
    [
        ("io.confluent.kafka.serializers.subject.RecordNameStrategy", "{name}"),
        ("TopicRecordNameStrategy", "{topic}-{name}"),
        ("io.confluent.kafka.serializers.subject.TopicNameStrategy", "{topic}-key"),
    ],
)
def test_subject_name_strategies(registry_url: str, unique_name: str, strategy: str, subject: str) -> None:
    topic, name = unique_name, f"ns{unique_name}.Key"
    conv = _converter(registry_url, True, {"key.subject.name.strategy": strategy})
    convert_blocking(conv, topic, _v1(name), Struct(_v1(name), {"id": 1}))
    assert _versions(registry_url, subject.format(topic=topic, name=name)) == [1]


def test_lookup_only_and_latest_version(registry_url: str, unique_name: str) -> None:
    topic, name = unique_name, f"{unique_name}.Value"
    schema = _v1(name)
    lookup = _converter(registry_url, extra={"auto.register.schemas": "false"})
    with pytest.raises(PendingIO) as pending:
        lookup.from_connect_data(topic, schema, Struct(schema, {"id": 1}))
    with pytest.raises(DataError, match=f'Error retrieving Avro schema for subject "{topic}-value"'):
        pending.value.work()
    written = convert_blocking(_converter(registry_url), topic, schema, Struct(schema, {"id": 1}))
    assert convert_blocking(lookup, topic, schema, Struct(schema, {"id": 1})) == written
    latest = _converter(registry_url, extra={"auto.register.schemas": "false", "use.latest.version": "true"})
    assert convert_blocking(latest, topic, schema, Struct(schema, {"id": 1})) == written
    # a latest version that is not the record's schema: refused while latest.compatibility.strict (the default)
    v2 = _v2(name, optional=True)
    convert_blocking(_converter(registry_url), topic, v2, Struct(v2, {"id": 1, "note": None}))
    strict = _converter(registry_url, extra={"auto.register.schemas": "false", "use.latest.version": "true"})
    with pytest.raises(DataError, match=r"latest\.compatibility\.strict"):
        convert_blocking(strict, topic, schema, Struct(schema, {"id": 3}))
    # not strict: the record is written with the latest schema (by field name; the new field takes its default)
    loose = _converter(
        registry_url,
        extra={"auto.register.schemas": "false", "use.latest.version": "true", "latest.compatibility.strict": "false"},
    )
    data = convert_blocking(loose, topic, schema, Struct(schema, {"id": 3}))
    assert _converter(registry_url).to_connect_data(topic, data).value.values == (3, None)


def test_foreign_bytes_are_refused_clearly(registry_url: str) -> None:
    with pytest.raises(DataError, match="Unknown magic byte"):
        _converter(registry_url).to_connect_data("t", b"\x01\x00\x00\x00\x01\x02")


def test_apicurio_class_name_with_its_own_keys(registry_url: str, unique_name: str) -> None:
    root = registry_url.removesuffix("/apis/ccompat/v7")
    settings = {
        "apicurio.registry.url": root + "/apis/registry/v2",
        "apicurio.registry.auto-register": "true",
        "apicurio.registry.as-confluent": "true",
        "apicurio.registry.use-id": "contentId",
        "apicurio.registry.headers.enabled": "false",
    }
    conv = ApicurioAvroConverter()
    conv.configure(settings, False)
    schema = _v1(f"{unique_name}.Value")
    data = convert_blocking(conv, unique_name, schema, Struct(schema, {"id": 5}))
    assert _versions(registry_url, f"{unique_name}-value") == [1]
    assert _converter(registry_url).to_connect_data(unique_name, data).value.values == (5,)
    for key, value in (
        ("apicurio.registry.headers.enabled", "true"),
        ("apicurio.registry.use-id", "globalId"),
        ("apicurio.registry.as-confluent", "false"),
        ("apicurio.registry.serde.validation-enabled", "true"),
    ):
        with pytest.raises(ConfigError, match=key.replace(".", r"\.")):
            ApicurioAvroConverter().configure({**settings, key: value}, False)
    with pytest.raises(ConfigError, match="must be set"):
        ApicurioAvroConverter().configure({k: v for k, v in settings.items() if "use-id" not in k}, False)


def _file_source(source: Path, topic: str, registry: str, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "FileStreamSource",
        "file": str(source),
        "topic": topic,
        "value.converter": "io.confluent.connect.avro.AvroConverter",
        "value.converter.schema.registry.url": registry,
        **extra,
    }


async def test_worker_retries_an_unreachable_registry_then_fails_naming_it(
    worker_props: dict[str, str], unique_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("alpha\n")
    dead = f"http://127.0.0.1:{free_port()}/apis/ccompat/v7"
    config = _file_source(source, unique_name, dead, **{"errors.retry.timeout": "2000"})
    async with running_worker(worker_props) as (_worker, client):
        r = await client.post("/connectors", json={"name": "fs", "config": config})
        assert r.status_code == 201, r.text

        async def failed() -> Any:
            task = (await client.get("/connectors/fs/status")).json()["tasks"][0]
            return task if task["state"] == "FAILED" else None

        task = await wait_for(failed, 30)
        assert dead in task["trace"] and "RetriableError" in task["trace"]


async def _forward(port: int, target: tuple[str, int]) -> asyncio.Server:
    """A plain TCP forwarder on 127.0.0.1:port to the real registry: the registry "comes up" on that port."""

    async def pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                writer.write(data)
                await writer.drain()
        finally:
            writer.close()

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        up_reader, up_writer = await asyncio.open_connection(*target)
        await asyncio.gather(pipe(reader, up_writer), pipe(up_reader, writer), return_exceptions=True)

    return await asyncio.start_server(handle, "127.0.0.1", port)


async def test_worker_waits_for_the_registry_within_the_retry_timeout(
    worker_props: dict[str, str], kafka_bootstrap: str, registry_url: str, unique_name: str, tmp_path: Path
) -> None:
    """The registry is down when the records come and up 3 s later: the records wait (retried with Connect's
    backoff within errors.retry.timeout), nothing is lost or reordered, the task never fails."""
    source = tmp_path / "in.txt"
    source.write_text("alpha\nbeta\n")
    port = free_port()
    config = _file_source(
        source, unique_name, f"http://127.0.0.1:{port}/apis/ccompat/v7", **{"errors.retry.timeout": "60000"}
    )
    target = urllib.parse.urlsplit(registry_url)
    async with running_worker(worker_props) as (_worker, client):
        r = await client.post("/connectors", json={"name": "fs", "config": config})
        assert r.status_code == 201, r.text
        await asyncio.sleep(3)
        status = (await client.get("/connectors/fs/status")).json()
        assert status["tasks"][0]["state"] == "RUNNING", status
        assert await read_to_end({"bootstrap.servers": kafka_bootstrap}, unique_name, timeout=5) == []
        server = await _forward(port, (target.hostname or "127.0.0.1", target.port or 80))
        try:

            async def both() -> Any:
                got = await read_to_end({"bootstrap.servers": kafka_bootstrap}, unique_name)
                return got if len(got) == 2 else None

            records = await wait_for(both, 30)
        finally:
            server.close()
    reader = _converter(registry_url)
    assert [reader.to_connect_data(unique_name, r.value).value for r in records] == ["alpha", "beta"]


async def test_errors_tolerance_all_skips_records_the_registry_cannot_take(
    worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    source = tmp_path / "in.txt"
    source.write_text("alpha\nbeta\n")
    dead = f"http://127.0.0.1:{free_port()}/apis/ccompat/v7"
    config = _file_source(source, unique_name, dead, **{"errors.tolerance": "all", "errors.retry.timeout": "0"})
    async with running_worker({**worker_props, "offset.flush.interval.ms": "200"}) as (_worker, client):
        r = await client.post("/connectors", json={"name": "fs", "config": config})
        assert r.status_code == 201, r.text

        async def offset_moved() -> Any:
            offsets = (await client.get("/connectors/fs/offsets")).json()["offsets"]
            return offsets if offsets and offsets[0]["offset"].get("position", 0) >= len("alpha\nbeta\n") else None

        await wait_for(offset_moved, 30)
        status = (await client.get("/connectors/fs/status")).json()
        assert status["tasks"][0]["state"] == "RUNNING"
    assert await read_to_end({"bootstrap.servers": kafka_bootstrap}, unique_name) == []


def test_max_schemas_per_subject_is_a_limit(registry_url: str, unique_name: str) -> None:
    """Confluent's client takes at most max.schemas.per.subject schemas per subject, then refuses."""
    topic, name = unique_name, f"{unique_name}.Value"
    conv = _converter(registry_url, extra={"max.schemas.per.subject": "1"})
    convert_blocking(conv, topic, _v1(name), Struct(_v1(name), {"id": 1}))
    convert_blocking(conv, topic, _v1(name), Struct(_v1(name), {"id": 2}))  # the same schema again: fine
    v2 = _v2(name, optional=True)
    with pytest.raises(DataError, match=f"Too many schema objects created for {topic}-value!"):
        convert_blocking(conv, topic, v2, Struct(v2, {"id": 3, "note": None}))


def test_a_registry_that_accepts_but_never_answers_times_out_on_the_read_timeout(unique_name: str) -> None:
    import socket
    import time

    with socket.socket() as silent:  # connects (the kernel's backlog accepts), never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/apis/ccompat/v7"
        conv = _converter(url, extra={"http.read.timeout.ms": "500", "http.connect.timeout.ms": "60000"})
        schema = _v1(f"{unique_name}.Value")
        with pytest.raises(PendingIO) as pending:
            conv.from_connect_data(unique_name, schema, Struct(schema, {"id": 1}))
        started = time.monotonic()
        with pytest.raises(RetriableError, match="timed out"):
            pending.value.work()
        assert time.monotonic() - started < 5


def test_an_http_proxy_is_refused_not_ignored() -> None:
    with pytest.raises(ConfigError, match=r"proxy\.host is not supported"):
        _converter("http://127.0.0.1:1/apis/ccompat/v7", extra={"proxy.host": "proxy.example", "proxy.port": "3128"})
