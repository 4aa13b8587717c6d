"""/connector-plugins…: listing order, plugin config keys and validation."""

from __future__ import annotations

import httpx

from tests.unit.rest.helpers import error, send


async def test_connector_plugins_default_to_connectors_only(client: httpx.AsyncClient) -> None:
    for url in ["/connector-plugins", "/connector-plugins?connectorsOnly=", "/connector-plugins?connectorsOnly=true"]:
        response = await client.get(url)
        assert response.status_code == 200
        assert response.json() == [
            {"class": "org.apache.kafka.connect.file.FileStreamSinkConnector", "type": "sink", "version": "4.3.0"},
            {"class": "io.debezium.connector.postgresql.PostgresConnector", "type": "source", "version": "3.6.3.Final"},
            {"class": "org.apache.kafka.connect.file.FileStreamSourceConnector", "type": "source", "version": "4.3.0"},
        ], url


async def test_all_plugins_in_connects_order(client: httpx.AsyncClient) -> None:
    response = await client.get("/connector-plugins?connectorsOnly=false")

    assert [(p["type"], p["class"]) for p in response.json()] == [
        ("sink", "org.apache.kafka.connect.file.FileStreamSinkConnector"),
        ("source", "io.debezium.connector.postgresql.PostgresConnector"),
        ("source", "org.apache.kafka.connect.file.FileStreamSourceConnector"),
        ("transformation", "io.debezium.transforms.ExtractNewRecordState"),
        ("transformation", "org.apache.kafka.connect.transforms.RegexRouter"),
        ("predicate", "org.apache.kafka.connect.transforms.predicates.TopicNameMatches"),
        ("converter", "org.apache.kafka.connect.json.JsonConverter"),
        ("converter", "org.apache.kafka.connect.storage.StringConverter"),
        ("header_converter", "org.apache.kafka.connect.json.JsonConverter"),
    ]
    # version "undefined" is left out
    assert response.json()[7] == {"class": "org.apache.kafka.connect.storage.StringConverter", "type": "converter"}


async def test_plugin_config_matches_capture(client: httpx.AsyncClient) -> None:
    response = await client.get("/connector-plugins/RegexRouter/config")

    assert response.status_code == 200
    assert response.content == (
        b'[{"name":"regex","type":"STRING","required":true,"default_value":null,"importance":"HIGH",'
        b'"documentation":"Regular expression to use for matching.","group":null,"order_in_group":-1,'
        b'"width":"NONE","display_name":"regex","dependents":[]},{"name":"replacement","type":"STRING",'
        b'"required":true,"default_value":null,"importance":"HIGH","documentation":"Replacement string.",'
        b'"group":null,"order_in_group":-1,"width":"NONE","display_name":"replacement","dependents":[]}]'
    )


async def test_unknown_plugin_config_is_404(client: httpx.AsyncClient) -> None:
    assert error(await client.get("/connector-plugins/NoSuchPlugin/config")) == (404, "Unknown plugin NoSuchPlugin.")


async def test_validate_answers_200_even_with_errors(client: httpx.AsyncClient) -> None:
    config = {"connector.class": "FileStreamSource", "tasks.max": 0, "name": "fs"}

    response = await send(client, "PUT", "/connector-plugins/FileStreamSourceConnector/config/validate", config)

    assert response.status_code == 200
    body = response.json()
    assert body["name"] == "FileStreamSource"
    assert body["error_count"] == 2
    # Connect's framework groups (tests/differential/golden/pg_validate.json, captured from Connect 4.3.1, starts
    # with the same seven); FileStreamSource's own keys have no group
    assert body["groups"] == [
        "Common",
        "Transforms",
        "Predicates",
        "Error Handling",
        "Topic Creation",
        "Exactly Once Support",
        "offsets.topic",
    ]
    tasks_max = next(c for c in body["configs"] if c["definition"]["name"] == "tasks.max")
    assert tasks_max["value"] == {
        "name": "tasks.max",
        "value": "0",
        "recommended_values": [],
        "errors": ["Invalid value 0 for configuration tasks.max: Value must be at least 1"],
        "visible": True,
    }


async def test_validate_with_mismatching_class_is_400(client: httpx.AsyncClient) -> None:
    config = {"connector.class": "io.debezium.connector.postgresql.PostgresConnector"}

    response = await send(client, "PUT", "/connector-plugins/FileStreamSource/config/validate", config)

    assert error(response) == (
        400,
        "Included connector type io.debezium.connector.postgresql.PostgresConnector does not match request "
        "type FileStreamSource",
    )


async def test_validate_matches_simple_and_full_names(client: httpx.AsyncClient) -> None:
    config = {"connector.class": "io.debezium.connector.postgresql.PostgresConnector", "topic.prefix": "p"}
    for plugin in ["PostgresConnector", "Postgres", "io.debezium.connector.postgresql.PostgresConnector"]:
        response = await send(client, "PUT", f"/connector-plugins/{plugin}/config/validate", config)
        assert response.status_code == 200, plugin


async def test_validate_without_connector_class_is_500(client: httpx.AsyncClient) -> None:
    response = await send(client, "PUT", "/connector-plugins/FileStreamSource/config/validate", {"topic": "x"})

    assert error(response) == (
        500,
        "org.apache.kafka.connect.runtime.rest.errors.BadRequestException: "
        "Connector config {topic=x} contains no connector type",
    )
