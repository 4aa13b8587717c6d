"""POST /connectors/{name}/signals (our extension: Debezium's JMX signal channel over REST), through the real
herder on the fake Worker: 202 and what the tasks were handed, 404, 409, 400, and the basic-auth seam."""

from __future__ import annotations

import httpx
import pytest
from starlette.middleware import Middleware

from connect_worker.api.errors import ConflictError
from connect_worker.runtime.herder import ConnectorTaskId
from connect_worker.runtime.standalone_herder import StandaloneHerder
from rest.app import create_app
from rest.security import BasicAuthMiddleware, BasicAuthSettings
from tests.unit.rest.conftest import BASE_URL
from tests.unit.rest.helpers import FS_CONFIG, JSON_HEADERS, create, error, send
from tests.unit.runtime.fakes import HerderRig

URL = "/connectors/fs/signals"
NOT_ENABLED = "signals over the REST API need 'jmx' (or 'rest') in signal.enabled.channels of this connector"


def handed(rig: HerderRig, name: str = "fs", task: int = 0) -> list[tuple[str, str, str | None]]:
    return rig.worker.tasks(name)[task].signals


async def test_a_signal_with_object_data_is_accepted_and_handed_over_as_compact_json(
    client: httpx.AsyncClient, rig: HerderRig
) -> None:
    await create(client)
    body = {"id": "rest-1", "type": "execute-snapshot", "data": {"data-collections": ["s.items"], "n": 1.5}}

    response = await send(client, "POST", URL, body)

    assert response.status_code == 202
    assert response.headers["content-type"] == "application/json"
    assert response.content == b'{"id":"rest-1","type":"execute-snapshot"}'
    assert handed(rig) == [("rest-1", "execute-snapshot", '{"data-collections":["s.items"],"n":1.5}')]


async def test_string_data_is_passed_as_is_and_data_may_be_left_out(client: httpx.AsyncClient, rig: HerderRig) -> None:
    await create(client)

    as_text = await send(client, "POST", URL, {"id": "a", "type": "log", "data": '{"message": "é"}'})
    without = await send(client, "POST", URL, {"id": "b", "type": "pause-snapshot"})
    null = await send(client, "POST", URL, {"id": "c", "type": "resume-snapshot", "data": None})

    assert [as_text.status_code, without.status_code, null.status_code] == [202, 202, 202]
    assert handed(rig) == [
        ("a", "log", '{"message": "é"}'),
        ("b", "pause-snapshot", None),
        ("c", "resume-snapshot", None),
    ]


async def test_a_paused_connector_still_takes_signals(client: httpx.AsyncClient, rig: HerderRig) -> None:
    await create(client)
    assert (await client.put("/connectors/fs/pause")).status_code == 202

    response = await send(client, "POST", URL, {"id": "p", "type": "log"})

    assert response.status_code == 202
    assert handed(rig) == [("p", "log", None)]


async def test_an_unknown_connector_is_404(client: httpx.AsyncClient) -> None:
    response = await send(client, "POST", "/connectors/nope/signals", {"id": "x", "type": "log"})

    assert error(response) == (404, "Connector nope not found")


async def test_a_stopped_connector_has_no_running_task_409(client: httpx.AsyncClient) -> None:
    await create(client)
    assert (await client.put("/connectors/fs/stop")).status_code == 204

    response = await send(client, "POST", URL, {"id": "x", "type": "log"})

    assert error(response) == (409, "Connector fs has no running task in this worker")


async def test_a_failed_task_takes_no_signal_409(client: httpx.AsyncClient, rig: HerderRig) -> None:
    await create(client)
    rig.worker.fail_task(ConnectorTaskId("fs", 0), "boom")

    response = await send(client, "POST", URL, {"id": "x", "type": "log"})

    assert error(response) == (409, "Connector fs has no running task in this worker")
    assert handed(rig) == []


async def test_a_task_not_ready_for_signals_is_409_with_its_message(client: httpx.AsyncClient, rig: HerderRig) -> None:
    await create(client)
    rig.worker.tasks("fs")[0].signal_error = ConflictError("The connector's task is not streaming yet; try again")

    response = await send(client, "POST", URL, {"id": "x", "type": "log"})

    assert error(response) == (409, "The connector's task is not streaming yet; try again")


async def test_a_task_refusing_rest_signals_is_400_with_its_message(client: httpx.AsyncClient, rig: HerderRig) -> None:
    await create(client)
    rig.worker.tasks("fs")[0].signal_error = PermissionError(NOT_ENABLED)

    response = await send(client, "POST", URL, {"id": "x", "type": "log"})

    assert error(response) == (400, NOT_ENABLED)


@pytest.mark.parametrize(
    ("body", "message"),
    [
        (b"", 'A signal is a JSON object: {"id": "...", "type": "...", "data": {...}}'),
        (b'["x"]', 'A signal is a JSON object: {"id": "...", "type": "...", "data": {...}}'),
        (b'"x"', 'A signal is a JSON object: {"id": "...", "type": "...", "data": {...}}'),
        (b'{"type": "log"}', "The signal's 'id' must be given as a string"),
        (b'{"id": 7, "type": "log"}', "The signal's 'id' must be given as a string"),
        (b'{"id": "x"}', "The signal's 'type' must be given as a string"),
        (b'{"id": "x", "type": null}', "The signal's 'type' must be given as a string"),
        (b'{"id": "x", "type": {"a": 1}}', "The signal's 'type' must be given as a string"),
        (
            b'{"id": "x", "type": "log", "data": 3}',
            "The signal's 'data' must be a JSON object or a string holding JSON",
        ),
        (
            b'{"id": "x", "type": "log", "data": ["a"]}',
            "The signal's 'data' must be a JSON object or a string holding JSON",
        ),
        (
            b'{"id": "x", "type": "log", "data": true}',
            "The signal's 'data' must be a JSON object or a string holding JSON",
        ),
        (
            b'{"id": "x", "type": "log", "Data": {}}',
            "Unknown field 'Data' in the signal: it has only id, type and data",
        ),
    ],
)
async def test_a_body_that_is_not_a_signal_is_400(
    client: httpx.AsyncClient, rig: HerderRig, body: bytes, message: str
) -> None:
    await create(client)

    response = await client.post(URL, content=body, headers=JSON_HEADERS)

    assert error(response) == (400, message)
    assert handed(rig) == []


async def test_malformed_json_is_400(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await client.post(URL, content=b'{"id": "x",', headers=JSON_HEADERS)

    status, message = error(response)
    assert status == 400
    assert message.startswith("Unexpected end-of-input")


async def test_a_body_that_is_not_json_is_415_like_every_connector_route(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await client.post(URL, content=b"id=x", headers={"Content-Type": "text/plain"})

    assert error(response) == (415, "HTTP 415 Unsupported Media Type")


async def test_basic_auth_guards_the_route(herder: StandaloneHerder, rig: HerderRig) -> None:
    auth = BasicAuthSettings({"admin": "pw"})
    app = create_app(herder, middleware=[Middleware(BasicAuthMiddleware, settings=auth)])
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=BASE_URL) as c:
        created = await c.post(
            "/connectors", json={"name": "fs", "config": FS_CONFIG}, auth=httpx.BasicAuth("admin", "pw")
        )
        assert created.status_code == 201
        anonymous = await c.post(URL, json={"id": "x", "type": "log"})
        allowed = await c.post(URL, json={"id": "y", "type": "log"}, auth=httpx.BasicAuth("admin", "pw"))

    assert error(anonymous) == (401, "User cannot access the resource.")
    assert allowed.status_code == 202
    assert handed(rig) == [("y", "log", None)]
