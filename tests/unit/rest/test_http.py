"""Jersey/Jetty behaviour around the endpoints: unknown routes, methods, media types, bodies, errors."""

from __future__ import annotations

import asyncio
import json

import httpx

from connect_worker.runtime.herder import ServerInfo
from connect_worker.runtime.standalone_herder import StandaloneHerder
from rest.app import create_app
from tests.unit.rest.helpers import FS_CONFIG, create, error, send, started_herder
from tests.unit.runtime.fakes import HerderRig


async def test_unknown_route_is_404_without_content_type(client: httpx.AsyncClient) -> None:
    for path in ["/nonexistent", "/connectors/fs/tasks-config"]:
        response = await client.get(path)
        assert error(response) == (404, "HTTP 404 Not Found"), path
        assert "content-type" not in response.headers
    # an empty segment never reaches the resources: Jetty's 400 (Connect 4.3.1, rest/uri_compliance.py)
    refused = await client.get("/connectors//config")
    assert refused.status_code == 400 and refused.headers["content-type"] == "text/html;charset=iso-8859-1"


async def test_wrong_method_is_405_without_content_type(client: httpx.AsyncClient) -> None:
    response = await client.delete("/connectors")

    assert error(response) == (405, "HTTP 405 Method Not Allowed")
    assert "content-type" not in response.headers  # as Connect 4.3.1 answers (test_rest_lifecycle)
    assert "allow" not in response.headers  # Connect's exception mapper drops Jersey's Allow header
    pause = await client.get("/connectors/fs/pause")
    assert error(pause) == (405, "HTTP 405 Method Not Allowed") and "allow" not in pause.headers


async def test_body_with_other_content_type_is_415_without_content_type(client: httpx.AsyncClient) -> None:
    form = await client.post(
        "/connectors", content=b"name=fs", headers={"Content-Type": "application/x-www-form-urlencoded"}
    )
    put = await client.put("/admin/loggers/x", content=b'{"level":"DEBUG"}', headers={"Content-Type": "text/plain"})

    assert error(form) == (415, "HTTP 415 Unsupported Media Type")
    assert error(put) == (415, "HTTP 415 Unsupported Media Type")
    assert "content-type" not in form.headers and "content-type" not in put.headers


async def test_json_content_type_with_parameters_is_accepted(client: httpx.AsyncClient) -> None:
    body = b'{"name":"fs","config":{"connector.class":"FileStreamSource","topic":"t"}}'
    response = await client.post(
        "/connectors", content=body, headers={"Content-Type": "application/json; charset=UTF-8"}
    )

    assert response.status_code == 201


async def test_accept_without_json_is_406(client: httpx.AsyncClient) -> None:
    assert error(await client.get("/connectors", headers={"Accept": "text/html"})) == (406, "HTTP 406 Not Acceptable")
    assert (await client.get("/connectors", headers={"Accept": "text/html, */*;q=0.8"})).status_code == 200


async def test_malformed_json_is_500_with_a_jackson_like_message(client: httpx.AsyncClient) -> None:
    body = b'{"name":"fs","config":{"connector.class":"FileStreamSource"'
    response = await client.post("/connectors", content=body, headers={"Content-Type": "application/json"})

    status, message = error(response)
    assert status == 500
    assert message.startswith("Unexpected end-of-input")
    assert "line: 1, column: " in message


async def test_nested_config_value_is_500(client: httpx.AsyncClient, rig: HerderRig) -> None:
    body = {"name": "fs", "config": {**FS_CONFIG, "a": {"b": 1}}}
    response = await send(client, "POST", "/connectors", body)

    column = json.dumps(body).index('{"b"') + 1  # Jackson places it where the value starts
    assert error(response) == (
        500,
        "Cannot deserialize value of type `java.lang.String` from Object value (token `JsonToken.START_OBJECT`)\n"
        " at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled);"
        f" line: 1, column: {column}]"
        ' (through reference chain: org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest["config"]'
        '->java.util.LinkedHashMap["a"])',
    )
    array = await send(client, "PUT", "/connectors/fs/config", {**FS_CONFIG, "a": [1]})
    assert error(array)[0] == 500
    assert "from Array value (token `JsonToken.START_ARRAY`)" in error(array)[1]
    assert rig.configs.records == []
    assert await rig.herder.connectors() == []


async def test_text_after_the_json_value_is_ignored_like_jackson(client: httpx.AsyncClient) -> None:
    body = b'{"name":"fs","config":{"connector.class":"FileStreamSource","topic":"t"}} trailing'
    response = await client.post("/connectors", content=body, headers={"Content-Type": "application/json"})

    assert response.status_code == 201


async def test_trailing_slash_is_the_same_resource(client: httpx.AsyncClient) -> None:
    await create(client)

    assert (await client.get("/connectors/")).json() == ["fs"]
    assert (await client.get("/connectors/fs/status/")).status_code == 200


async def test_unexpected_herder_failure_is_500_with_its_message() -> None:
    class Broken(StandaloneHerder):
        async def server_info(self) -> ServerInfo:
            raise RuntimeError("storage is gone")

    app = create_app(await started_herder(Broken))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://h") as c:
        assert error(await c.get("/")) == (500, "storage is gone")


async def test_slow_herder_times_out_with_500() -> None:
    release = asyncio.Event()

    class Slow(StandaloneHerder):
        async def connectors(self) -> list[str]:
            await release.wait()
            return []

    app = create_app(await started_herder(Slow), request_timeout=0.05)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://h") as c:
        assert error(await c.get("/connectors")) == (500, "Request timed out")
    release.set()


async def test_options_lists_the_resource_methods_as_jersey_does(client: httpx.AsyncClient) -> None:
    """Jersey's automatic OPTIONS, as Connect 4.3.1 answers it (tests/differential/rest_lifecycle.py)."""
    for path, methods in (
        ("/connectors", ["HEAD", "POST", "GET", "OPTIONS"]),
        ("/connectors/nope/config", ["HEAD", "GET", "OPTIONS", "PUT", "PATCH"]),
        ("/connectors/nope/tasks/0/restart", ["POST", "OPTIONS"]),
        ("/", ["HEAD", "GET", "OPTIONS"]),
    ):
        response = await client.options(path)
        assert response.status_code == 200, path
        assert response.headers["content-type"] == "text/plain"
        assert response.text == ", ".join(methods) and response.headers["allow"] == ",".join(methods)
    as_json = await client.options("/connectors", headers={"Accept": "application/json"})
    assert as_json.status_code == 200 and as_json.content == b""
    assert as_json.headers["content-type"] == "application/json"
    assert error(await client.options("/nope")) == (404, "HTTP 404 Not Found")


async def test_an_accept_header_with_json_at_quality_zero_still_gets_json(client: httpx.AsyncClient) -> None:
    for accept in ("application/json;q=0", "text/plain;q=1, application/json;q=0"):
        response = await client.get("/connectors", headers={"Accept": accept})
        assert response.status_code == 200 and response.json() == [], accept
    assert error(await client.get("/connectors", headers={"Accept": "text/plain"})) == (406, "HTTP 406 Not Acceptable")


async def test_a_wildcard_body_type_is_415_as_json(client: httpx.AsyncClient) -> None:
    """Connect 4.3.1: `application/*` and `*/*` select the method, then Jersey has no reader for them."""
    for content_type in ("application/*", "*/*"):
        response = await client.post("/connectors", content=b"{not json", headers={"Content-Type": content_type})
        assert error(response) == (415, "HTTP 415 Unsupported Media Type"), content_type
        assert response.headers["content-type"] == "application/json"
    charset = await client.post(
        "/connectors", content=b"{}", headers={"Content-Type": "application/json; charset=UTF-8"}
    )
    assert charset.status_code != 415
