"""Requests and literal answers shared by the REST tests (captures from Kafka Connect 4.3, spec §1)."""

from __future__ import annotations

import json
from typing import Any

import httpx

from connect_worker.runtime.standalone_herder import StandaloneHerder
from tests.unit.rest.fake_plugins import REGISTRY
from tests.unit.runtime.fakes import FakeLoggers, HerderRig, herder_rig

FS_CONFIG = {
    "connector.class": "FileStreamSource",
    "file": "/data/in.txt",
    "topic": "fs-topic",
    "tasks.max": "1",
}
# ConnectorInfo for FS_CONFIG, byte for byte as Connect 4.3 standalone answered it [LIVE].
FS_INFO = (
    b'{"name":"fs","config":{"connector.class":"FileStreamSource","file":"/data/in.txt","topic":"fs-topic",'
    b'"tasks.max":"1","name":"fs"},"tasks":[{"connector":"fs","task":0}],"type":"source"}'
)
JSON_HEADERS = {"Content-Type": "application/json"}


async def send(client: httpx.AsyncClient, method: str, url: str, body: Any = None) -> httpx.Response:
    """A request as Connect clients send it: JSON body with the JSON content type."""
    content = None if body is None else json.dumps(body).encode()
    headers = JSON_HEADERS if body is not None else {}
    return await client.request(method, url, content=content, headers=headers)


async def create(
    client: httpx.AsyncClient, name: str = "fs", config: dict[str, Any] | None = None, **extra: Any
) -> httpx.Response:
    body = {"name": name, "config": dict(FS_CONFIG if config is None else config), **extra}
    response = await send(client, "POST", "/connectors", body)
    assert response.status_code == 201, response.text
    return response


def error(response: httpx.Response) -> tuple[int, str]:
    """(status, message) after checking the body is Connect's error shape with error_code == status."""
    body = response.json()
    assert set(body) == {"error_code", "message"}
    assert body["error_code"] == response.status_code
    return response.status_code, body["message"]


# the loggers the REST tests' worker has (besides root)
LOGGERS = ("org.apache.kafka.connect.runtime.rest", "org.apache.kafka.connect.runtime.rest.RestServer")


def rest_rig(herder_class: type[StandaloneHerder] = StandaloneHerder) -> HerderRig:
    """The real herder as the REST tests' worker has it (not started): the stand-in plugins, the loggers above,
    in-memory stores and a fake Worker."""
    return herder_rig(REGISTRY, herder_class=herder_class, loggers=FakeLoggers(LOGGERS))


async def started_herder(herder_class: type[StandaloneHerder] = StandaloneHerder) -> StandaloneHerder:
    herder = rest_rig(herder_class).herder
    await herder.start()
    return herder
