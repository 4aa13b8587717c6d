"""/connectors…: answers compared with the Kafka Connect 4.3 captures of spec §1."""

from __future__ import annotations

import json

import httpx

from connect_worker.runtime.herder import ConnectorTaskId, TargetState
from connect_worker.runtime.standalone_herder import StandaloneHerder
from tests.unit.rest.helpers import FS_CONFIG, FS_INFO, create, error, send
from tests.unit.runtime.fakes import HerderRig


# -- create ----------------------------------------------------------------------------------------------
async def test_create_answers_201_with_absolute_location_and_connector_info(client: httpx.AsyncClient) -> None:
    response = await send(client, "POST", "/connectors", {"name": "fs", "config": FS_CONFIG})

    assert response.status_code == 201
    assert response.headers["location"] == "http://127.0.0.1:18083/connectors/fs"
    assert response.headers["content-type"] == "application/json"
    assert response.content == FS_INFO


async def test_create_trims_name_and_encodes_it_in_location(client: httpx.AsyncClient, rig: HerderRig) -> None:
    response = await send(client, "POST", "/connectors", {"name": "  my conn/é \t", "config": FS_CONFIG})

    assert response.status_code == 201
    assert response.json()["name"] == "my conn/é"
    assert response.json()["config"]["name"] == "my conn/é"
    assert response.headers["location"] == "http://127.0.0.1:18083/connectors/my%20conn/%C3%A9"
    # stored under the trimmed name, with no initial target state; a POST does not replace
    assert rig.configs.records[0] == ("connector-my conn/é", {"properties": {**FS_CONFIG, "name": "my conn/é"}})
    assert not any(key.startswith("target-state-") for key, _ in rig.configs.records)
    again = await send(client, "POST", "/connectors", {"name": "my conn/é", "config": FS_CONFIG})
    assert error(again) == (409, "Connector my conn/é already exists")


async def test_create_coerces_scalar_config_values_to_their_json_text(client: httpx.AsyncClient) -> None:
    body = (
        b'{"name":"fs","config":{"connector.class":"FileStreamSource","topic":"t","tasks.max":1,'
        b'"batch.size":2000,"x.flag":true,"x.ratio":1.50,"x.big":1E3,"file":null}}'
    )
    response = await client.post("/connectors", content=body, headers={"Content-Type": "application/json"})

    assert response.status_code == 201
    assert response.json()["config"] == {
        "connector.class": "FileStreamSource",
        "topic": "t",
        "tasks.max": "1",
        "batch.size": "2000",
        "x.flag": "true",
        "x.ratio": "1.50",
        "x.big": "1E3",
        "file": None,  # real Connect 4.3.1 keeps a key sent as null, and answers it back with null
        "name": "fs",
    }


async def test_create_with_initial_state_is_case_insensitive(client: httpx.AsyncClient, rig: HerderRig) -> None:
    response = await create(client, initial_state="stopped")

    assert response.json()["tasks"] == []
    assert [key for key, _ in rig.configs.records[:2]] == ["target-state-fs", "connector-fs"]  # with the config
    assert rig.configs.snapshot.target_state("fs") is TargetState.STOPPED
    status = (await client.get("/connectors/fs/status")).json()
    assert status["connector"]["state"] == "STOPPED"
    assert status["tasks"] == []
    await create(client, "p", initial_state="Paused")
    assert rig.configs.snapshot.target_state("p") is TargetState.PAUSED


async def test_create_with_bogus_initial_state_is_500_like_jackson(client: httpx.AsyncClient) -> None:
    response = await send(client, "POST", "/connectors", {"name": "fs", "config": FS_CONFIG, "initial_state": "bogus"})

    status, message = error(response)
    assert status == 500
    assert message.startswith(
        "Cannot construct instance of "
        "`org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest$InitialState`, "
        "problem: No enum constant "
        "org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest.InitialState.BOGUS"
    )


async def test_create_with_an_unknown_field_is_500_like_jackson(client: httpx.AsyncClient, rig: HerderRig) -> None:
    """Captured from real Kafka Connect 4.3.1 (a 763-character body ending in `, "bogus": 1}`): Jackson binds the
    request through its creator and reports the unknown property at the end of the object."""
    body = {"name": "u1", "config": FS_CONFIG, "bogus": 1}
    text = json.dumps(body)
    response = await client.post("/connectors", content=text.encode(), headers={"Content-Type": "application/json"})

    status, message = error(response)
    assert status == 500
    assert message == (
        'Unrecognized field "bogus" (class org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest), '
        'not marked as ignorable (3 known properties: "config", "name", "initial_state")\n'
        " at [Source: REDACTED (`StreamReadFeature.INCLUDE_SOURCE_IN_LOCATION` disabled); "
        f"line: 1, column: {len(text) + 1}] "
        '(through reference chain: org.apache.kafka.connect.runtime.rest.entities.CreateConnectorRequest["bogus"])'
    )
    assert rig.configs.records == []


async def test_a_binding_error_column_counts_utf8_bytes_like_jackson(client: httpx.AsyncClient) -> None:
    """Measured against real Kafka Connect 4.3.1 (tests/differential/rest_lifecycle.py): Jackson reads the body
    as bytes, so after `zü` and `é` on the line the object value of "x" is at column 31, not 29."""
    text = '{"name": "caf\u00e9 \u20ac \U0001f600",\n "config": {"z\u00fc": "\u00e9", "x": {"a": 1}}}'
    response = await client.post("/connectors", content=text.encode(), headers={"Content-Type": "application/json"})

    status, message = error(response)
    assert status == 500 and "; line: 2, column: 31] (through reference chain:" in message, message


async def test_create_existing_name_is_409(client: httpx.AsyncClient) -> None:
    await create(client)
    response = await send(client, "POST", "/connectors", {"name": "fs", "config": FS_CONFIG})

    assert error(response) == (409, "Connector fs already exists")


async def test_create_with_mismatching_config_name_is_400(client: httpx.AsyncClient) -> None:
    response = await send(client, "POST", "/connectors", {"name": "fs2", "config": {**FS_CONFIG, "name": "other"}})

    assert error(response) == (
        400,
        "Connector name configuration (other) doesn't match connector name in the URL (fs2)",
    )


async def test_create_with_invalid_config_lists_every_error(client: httpx.AsyncClient) -> None:
    config = {"connector.class": "FileStreamSource", "tasks.max": "0"}
    response = await send(client, "POST", "/connectors", {"name": "fs", "config": config})

    assert error(response) == (
        400,
        "Connector configuration is invalid and contains the following 2 error(s):\n"
        "Invalid value 0 for configuration tasks.max: Value must be at least 1\n"
        'Missing required configuration "topic" which has no default value.\n'
        "You can also find the above list of errors at the endpoint "
        "`/connector-plugins/{connectorType}/config/validate`",
    )


async def test_create_without_name_fails_validation(client: httpx.AsyncClient) -> None:
    response = await send(client, "POST", "/connectors", {"config": FS_CONFIG})

    status, message = error(response)
    assert status == 400
    assert message.startswith(
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        "Invalid value  for configuration name: String may not be empty\n"
    )


async def test_a_name_with_control_characters_fails_validation(client: httpx.AsyncClient, rig: HerderRig) -> None:
    """Connect's NonEmptyStringWithoutControlChars (measured against Connect 4.3.1 in the lifecycle differential):
    ISO control characters listed by code, in order; other non-ASCII text is fine."""
    response = await send(client, "POST", "/connectors", {"name": "a\u0001b\tc\u0085\u00e9", "config": FS_CONFIG})

    status, message = error(response)
    assert status == 400
    assert message.startswith(
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        "Invalid value a\u0001b\tc\u0085\u00e9 for configuration name: String may not contain control sequences but"
        " had the following ASCII chars: 1, 9, 133\n"
    ), message
    assert rig.configs.records == []


async def test_create_without_config_is_400_not_a_null_pointer(client: httpx.AsyncClient) -> None:
    assert (await send(client, "POST", "/connectors", {"name": "fs"})).status_code == 400
    empty = await client.post("/connectors", content=b"", headers={"Content-Type": "application/json"})
    assert empty.status_code == 400


async def test_create_with_unknown_class_is_400(client: httpx.AsyncClient) -> None:
    response = await send(
        client, "POST", "/connectors", {"name": "x", "config": {"connector.class": "NoSuchConnector"}}
    )

    status, message = error(response)
    assert status == 400
    assert message.startswith(
        "Failed to find any class that implements Connector and which name matches NoSuchConnector, "
        "available connectors are: "
    )


# -- list and expand -------------------------------------------------------------------------------------
async def test_list_connectors(client: httpx.AsyncClient) -> None:
    assert (await client.get("/connectors")).json() == []
    await create(client, "a")
    await create(client, "b")

    response = await client.get("/connectors")

    assert response.status_code == 200
    assert sorted(response.json()) == ["a", "b"]


async def test_list_expanded_with_status_and_info(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await client.get("/connectors?expand=status&expand=info")

    assert response.json() == {
        "fs": {
            "status": {
                "name": "fs",
                "connector": {"state": "RUNNING", "worker_id": "127.0.0.1:8083", "version": "4.3.0"},
                "tasks": [{"id": 0, "state": "RUNNING", "worker_id": "127.0.0.1:8083", "version": "4.3.0"}],
                "type": "source",
            },
            "info": {
                "name": "fs",
                "config": {**FS_CONFIG, "name": "fs"},
                "tasks": [{"connector": "fs", "task": 0}],
                "type": "source",
            },
        }
    }
    only_status = (await client.get("/connectors?expand=status")).json()
    assert set(only_status["fs"]) == {"status"}


async def test_list_with_unknown_expansion_gives_empty_objects(client: httpx.AsyncClient) -> None:
    await create(client)

    assert (await client.get("/connectors?expand=nope")).json() == {"fs": {}}


# -- one connector ---------------------------------------------------------------------------------------
async def test_get_connector_and_config(client: httpx.AsyncClient) -> None:
    await create(client)

    info = await client.get("/connectors/fs")
    config = await client.get("/connectors/fs/config")

    assert info.status_code == 200
    assert info.content == FS_INFO
    assert config.content == (
        b'{"connector.class":"FileStreamSource","file":"/data/in.txt","topic":"fs-topic","tasks.max":"1","name":"fs"}'
    )


async def test_unknown_connector_messages(client: httpx.AsyncClient) -> None:
    for method, path in [
        ("GET", "/connectors/nope"),
        ("GET", "/connectors/nope/config"),
        ("GET", "/connectors/nope/tasks"),
        ("GET", "/connectors/nope/offsets"),
        ("DELETE", "/connectors/nope"),
    ]:
        assert error(await client.request(method, path)) == (404, "Connector nope not found"), path
    assert error(await send(client, "PATCH", "/connectors/nope/config", {"a": "b"})) == (
        404,
        "Connector nope not found",
    )
    assert error(await client.get("/connectors/nope/status")) == (404, "No status found for connector nope")
    assert error(await client.put("/connectors/nope/pause")) == (404, "Unknown connector nope")
    assert error(await client.put("/connectors/nope/resume")) == (404, "Unknown connector nope")
    assert error(await client.post("/connectors/nope/restart?includeTasks=true")) == (
        404,
        "Unknown connector: nope",
    )
    assert (await client.post("/connectors/nope/restart")).status_code == 404
    assert (await client.put("/connectors/nope/stop")).status_code == 404


async def test_url_encoded_names_address_the_connector(client: httpx.AsyncClient) -> None:
    await create(client, "a b;c")

    response = await client.get("/connectors/a%20b%3Bc/status")

    assert response.status_code == 200
    assert response.json()["name"] == "a b;c"
    # Jetty (Connect 4.3.1) drops a segment's ;parameters and refuses an encoded slash (rest/uri_compliance.py)
    assert (await client.get("/connectors/a%20b;c/status")).json()["message"] == "No status found for connector a b"
    refused = await client.get("/connectors/a%20b%2Fc/status")
    assert refused.status_code == 400 and b"<title>Error 400 Ambiguous URI path separator</title>" in refused.content


async def test_put_config_creates_then_updates(client: httpx.AsyncClient, rig: HerderRig) -> None:
    created = await send(client, "PUT", "/connectors/fs/config", FS_CONFIG)

    assert created.status_code == 201
    assert created.headers["location"] == "http://127.0.0.1:18083/connectors/fs"
    assert created.content == FS_INFO
    assert rig.configs.records[0] == ("connector-fs", {"properties": {**FS_CONFIG, "name": "fs"}})
    assert not any(key.startswith("target-state-") for key, _ in rig.configs.records)

    updated = await send(client, "PUT", "/connectors/fs/config", {**FS_CONFIG, "topic": "other", "name": "fs"})

    assert updated.status_code == 200
    assert "location" not in updated.headers
    assert updated.json()["config"]["topic"] == "other"
    assert rig.configs.snapshot.connectors["fs"] == {**FS_CONFIG, "topic": "other", "name": "fs"}


async def test_put_config_name_mismatch_is_400(client: httpx.AsyncClient) -> None:
    response = await send(client, "PUT", "/connectors/fs/config", {**FS_CONFIG, "name": "other"})

    assert error(response) == (
        400,
        "Connector name configuration (other) doesn't match connector name in the URL (fs)",
    )


async def test_patch_config_removes_null_keys(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await send(client, "PATCH", "/connectors/fs/config", {"file": None, "tasks.max": "1", "batch.size": 100})

    assert response.status_code == 200
    config = response.json()["config"]
    assert "file" not in config
    assert config["batch.size"] == "100"
    assert (await client.get("/connectors/fs/config")).json() == config


async def test_status_of_failed_task_carries_trace(client: httpx.AsyncClient, rig: HerderRig) -> None:
    await create(client)
    rig.worker.fail_task(ConnectorTaskId("fs", 0), "java.lang.NullPointerException: x\n\tat y\n")

    task = (await client.get("/connectors/fs/status")).json()["tasks"][0]

    assert task == {
        "id": 0,
        "state": "FAILED",
        "worker_id": "127.0.0.1:8083",
        "version": "4.3.0",
        "trace": "java.lang.NullPointerException: x\n\tat y\n",
    }


# -- restart, pause, resume, stop, delete ----------------------------------------------------------------
async def test_legacy_restart_is_204_without_body(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await client.post("/connectors/fs/restart")

    assert response.status_code == 204
    assert response.content == b""
    assert "content-type" not in response.headers


async def test_restart_with_tasks_answers_202_plan(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await client.post("/connectors/fs/restart?includeTasks=true")

    assert response.status_code == 202
    body = response.json()
    assert body["connector"]["state"] == "RESTARTING"
    assert [t["state"] for t in body["tasks"]] == ["RESTARTING"]


async def test_restart_only_failed_with_nothing_failed_keeps_states(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await client.post("/connectors/fs/restart?includeTasks=TRUE&onlyFailed=true")

    assert response.status_code == 202
    body = response.json()
    assert body["connector"]["state"] == "RUNNING"
    assert [t["state"] for t in body["tasks"]] == ["RUNNING"]


async def test_restart_flags_other_than_true_are_false(client: httpx.AsyncClient) -> None:
    await create(client)

    assert (await client.post("/connectors/fs/restart?includeTasks=yes&onlyFailed=")).status_code == 204


async def test_pause_and_resume_are_202_with_empty_body(client: httpx.AsyncClient) -> None:
    await create(client)

    paused = await client.put("/connectors/fs/pause")

    assert paused.status_code == 202
    assert paused.headers["content-length"] == "0"
    assert paused.content == b""
    assert (await client.get("/connectors/fs/status")).json()["connector"]["state"] == "PAUSED"

    resumed = await client.put("/connectors/fs/resume?forward=true")

    assert resumed.status_code == 202
    assert resumed.headers["content-length"] == "0"
    assert (await client.get("/connectors/fs/status")).json()["connector"]["state"] == "RUNNING"


async def test_stop_is_204_and_drops_tasks(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await client.put("/connectors/fs/stop")

    assert response.status_code == 204
    assert response.content == b""
    assert (await client.get("/connectors/fs")).json()["tasks"] == []
    assert (await client.get("/connectors/fs/status")).json()["connector"]["state"] == "STOPPED"


async def test_delete_is_204(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await client.delete("/connectors/fs")

    assert response.status_code == 204
    assert (await client.get("/connectors")).json() == []


# -- tasks and topics ------------------------------------------------------------------------------------
async def test_tasks_list_configs_with_task_class(client: httpx.AsyncClient) -> None:
    await create(client)

    response = await client.get("/connectors/fs/tasks")

    assert response.json() == [
        {
            "id": {"connector": "fs", "task": 0},
            "config": {
                **FS_CONFIG,
                "name": "fs",
                "task.class": "org.apache.kafka.connect.file.FileStreamSourceTask",
            },
        }
    ]


async def test_task_status_and_restart(client: httpx.AsyncClient) -> None:
    await create(client)

    status = await client.get("/connectors/fs/tasks/0/status")
    restarted = await client.post("/connectors/fs/tasks/0/restart")
    missing = await client.post("/connectors/fs/tasks/5/restart")

    assert status.json() == {"id": 0, "state": "RUNNING", "worker_id": "127.0.0.1:8083", "version": "4.3.0"}
    assert restarted.status_code == 204
    assert error(missing) == (404, "Task fs-5 not found")


async def test_non_integer_task_id_is_a_json_404(client: httpx.AsyncClient) -> None:
    await create(client)

    for path in [
        "/connectors/fs/tasks/abc/status",
        "/connectors/fs/tasks/1.0/status",
        "/connectors/fs/tasks/99999999999/restart",
    ]:
        response = await client.request("POST" if path.endswith("restart") else "GET", path)
        assert error(response) == (404, "HTTP 404 Not Found"), path
        assert response.headers["content-type"] == "application/json", path  # a method was chosen (4.3.1)


async def test_topics_and_reset(client: httpx.AsyncClient, rig: HerderRig) -> None:
    await create(client)
    rig.worker.report_topic(ConnectorTaskId("fs", 0), "fs-topic")

    assert (await client.get("/connectors/fs/topics")).json() == {"fs": {"topics": ["fs-topic"]}}
    reset = await client.put("/connectors/fs/topics/reset")
    assert reset.status_code == 202
    assert reset.headers["content-length"] == "0"
    assert (await client.get("/connectors/fs/topics")).json() == {"fs": {"topics": []}}
    assert "fs" not in rig.statuses.topics


async def test_topic_tracking_disabled_is_403(herder: StandaloneHerder) -> None:
    from rest.app import create_app

    app = create_app(herder, topic_tracking=True, topic_tracking_reset=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://h") as c:
        assert error(await c.put("/connectors/fs/topics/reset")) == (403, "Topic tracking reset is disabled.")
    app = create_app(herder, topic_tracking=False)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://h") as c:
        assert error(await c.get("/connectors/fs/topics")) == (403, "Topic tracking is disabled.")


async def test_location_uses_configured_base_url(herder: StandaloneHerder) -> None:
    from rest.app import create_app

    app = create_app(herder, base_url="https://connect.example:8443/")
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://h") as c:
        response = await create(c)
    assert response.headers["location"] == "https://connect.example:8443/connectors/fs"
