"""GET /connector-plugins/{p}/config and PUT …/config/validate, checked without Java against the answers the REAL
Kafka Connect 4.3.1 + Debezium 3.6.3.Final gave for the same requests (tests/differential/golden/pg_*.json), and
the Connect rules behind them one by one."""

from __future__ import annotations

import json
from typing import Any

import pytest

from connect_worker.api import ConnectorTransactionBoundaries, ExactlyOnceSupport, PluginType
from connect_worker.runtime.connector_config import TRANSFORM_COMMON_KEYS, embed, sorted_configs
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.validation import (
    java_hash_order,
    plugin_config_keys,
    validate_connector_config,
    version_requirement,
)
from connectors.postgres.config import POSTGRES_CONFIG_DEF
from connectors.postgres.connector import PostgresConnector
from tests.differential.config_infos import (
    CONFIG_DEFS_GOLDEN,
    VALIDATE_GOLDEN,
    diff_config_defs,
    diff_validate,
    installed_plugins,
)

GOLDEN_VALIDATE: dict[str, Any] = json.loads(VALIDATE_GOLDEN.read_text())
REGISTRY = PluginRegistry.from_entry_points()
INSTALLED = installed_plugins(REGISTRY)
BASE = next(iter(GOLDEN_VALIDATE.values()))["body"]


async def validate(body: dict[str, str], **kw: Any) -> dict[str, Any]:
    infos = await validate_connector_config(
        REGISTRY, PostgresConnector, body, class_value=body["connector.class"], **kw
    )
    return infos.to_json()


def entry(answer: dict[str, Any], name: str) -> dict[str, Any]:
    return next(c for c in answer["configs"] if c["definition"] and c["definition"]["name"] == name)


def test_plugin_config_listing_equals_connects() -> None:
    ours = [k.to_json() for k in plugin_config_keys(PluginType.SOURCE, PostgresConnector)]

    assert diff_config_defs(json.loads(CONFIG_DEFS_GOLDEN.read_text()), ours) == []


@pytest.mark.parametrize("case", sorted(GOLDEN_VALIDATE))
async def test_validate_equals_connects(case: str) -> None:
    golden = GOLDEN_VALIDATE[case]
    assert golden["status"] == 200

    ours = await validate(golden["body"])

    assert diff_validate(golden["answer"], ours, INSTALLED) == []


def test_the_comparison_sees_a_difference() -> None:
    golden = GOLDEN_VALIDATE["transforms_predicates_converters"]["answer"]
    changed = json.loads(json.dumps(golden))
    entry(changed, "tasks.max")["definition"]["order_in_group"] = 3
    entry(changed, "transforms.route.type")["value"]["recommended_values"] = INSTALLED[PluginType.TRANSFORMATION][1:]

    diffs = diff_validate(golden, changed, INSTALLED)

    assert any(d.startswith("tasks.max.definition.order_in_group") for d in diffs)
    assert any(d.startswith("transforms.route.type.value.recommended_values") for d in diffs)


async def test_internal_keys_are_never_shown() -> None:
    internal = {k.name for k in POSTGRES_CONFIG_DEF.keys if k.internal}
    assert "topic.delimiter" in internal
    listed = {k.name for k in plugin_config_keys(PluginType.SOURCE, PostgresConnector)}
    enrs = REGISTRY.find(PluginType.TRANSFORMATION, "io.debezium.transforms.ExtractNewRecordState")
    assert enrs is not None

    answer = await validate(
        {
            **BASE,
            "topic.delimiter": "_",
            "transforms": "u",
            "transforms.u.type": "ExtractNewRecordState",
            "transforms.u.replace.null.with.default": "false",
        }
    )

    shown = {c["value"]["name"] for c in answer["configs"]}
    assert not internal & listed
    assert not internal & shown
    assert "transforms.u.replace.null.with.default" not in shown
    assert "replace.null.with.default" not in {k.name for k in plugin_config_keys(PluginType.TRANSFORMATION, enrs)}


async def test_worker_converters_are_the_defaults_in_validate_only() -> None:
    body = {k: v for k, v in BASE.items() if not k.startswith(("key.converter", "value.converter"))}
    worker = {
        "key.converter": "StringConverter",
        "value.converter": "org.apache.kafka.connect.converters.ByteArrayConverter",
        "header.converter": "org.apache.kafka.connect.json.JsonConverter",
    }

    answer = await validate(body, worker_converters=worker)

    key = entry(answer, "key.converter")
    assert (
        key["definition"]["default_value"]
        == key["value"]["value"]
        == "org.apache.kafka.connect.storage.StringConverter"
    )
    assert entry(answer, "value.converter")["value"]["value"] == worker["value.converter"]
    assert entry(answer, "header.converter")["definition"]["default_value"] == worker["header.converter"]
    version = entry(answer, "key.converter.plugin.version")
    assert version["definition"]["default_value"] == "4.3.1"
    assert version["value"]["recommended_values"] == ["4.3.1"]
    # converters not named in the connector config add no keys of their own
    assert not any(c["value"]["name"].startswith("key.converter.converter") for c in answer["configs"])
    listing = {k.name: k for k in plugin_config_keys(PluginType.SOURCE, PostgresConnector)}
    assert listing["key.converter"].default_value is None
    assert listing["key.converter.plugin.version"].default_value is None
    assert listing["connector.plugin.version"].default_value == "3.6.3.Final"


async def test_a_connector_version_no_plugin_has_answers_with_connector_config_only() -> None:
    """The shape Connect 4.3.1 answered the first time it was asked (later it fails with a 500 NPE)."""
    body = {
        **BASE,
        "name": "pv",
        "connector.plugin.version": "0.1",
        "tasks.max": "0",
        "header.converter": "JsonConverter",
    }
    body.pop("value.converter")

    answer = await validate(body)

    message = (
        "Plugin io.debezium.connector.postgresql.PostgresConnector not found that matches the version range "
        "[0.1,0.1], available versions: [3.6.3.Final]"
    )
    assert answer["groups"] == ["Common", "Transforms", "Predicates", "Error Handling"]
    assert [c["definition"]["name"] for c in answer["configs"]][-6:] == [
        "config.action.reload",
        "errors.retry.timeout",
        "errors.retry.delay.max.ms",
        "errors.tolerance",
        "errors.log.enable",
        "errors.log.include.messages",
    ]
    assert entry(answer, "connector.class")["value"]["errors"] == [message]
    assert entry(answer, "connector.plugin.version")["value"]["errors"] == [message]
    assert entry(answer, "connector.plugin.version")["value"]["recommended_values"] == ["3.6.3.Final"]
    assert entry(answer, "header.converter")["value"]["value"] == "org.apache.kafka.connect.json.JsonConverter"
    assert entry(answer, "header.converter")["value"]["recommended_values"] == []
    assert entry(answer, "value.converter.plugin.version")["value"]["visible"] is False
    assert entry(answer, "header.converter.plugin.version")["value"]["visible"] is True
    assert answer["error_count"] == 3  # the version twice, tasks.max once


async def test_exactly_once_required_needs_a_worker_with_it() -> None:
    body = {**BASE, "exactly.once.support": "required"}

    refused = entry(await validate(body), "exactly.once.support")["value"]["errors"]
    accepted = entry(await validate(body, exactly_once_source=True), "exactly.once.support")["value"]["errors"]

    assert refused == ["This worker does not have exactly-once source support enabled."]
    assert accepted == []


async def test_exactly_once_required_of_a_connector_without_it(monkeypatch: pytest.MonkeyPatch) -> None:
    body = {**BASE, "exactly.once.support": "required"}
    monkeypatch.setattr(PostgresConnector, "exactly_once_support", lambda self, props: ExactlyOnceSupport.UNSUPPORTED)

    errors = entry(await validate(body), "exactly.once.support")["value"]["errors"]

    # both, as DistributedHerder.validateSourceConnectorExactlyOnceSupport adds them
    assert errors == [
        "This worker does not have exactly-once source support enabled.",
        "The connector does not support exactly-once semantics with the provided configuration.",
    ]


async def test_exactly_once_support_that_raises_is_an_unexpected_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(self: Any, props: Any) -> ExactlyOnceSupport:
        raise RuntimeError("  cannot tell  ")

    monkeypatch.setattr(PostgresConnector, "exactly_once_support", broken)
    body = {**BASE, "exactly.once.support": "required"}

    errors = entry(await validate(body, exactly_once_source=True), "exactly.once.support")["value"]["errors"]

    assert errors == ["An unexpected error occurred during validation: cannot tell"]


@pytest.mark.parametrize("enabled", [False, True])
async def test_connector_defined_transaction_boundaries(enabled: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    body = {**BASE, "transaction.boundary": "Connector"}

    # ours defines them (one Kafka transaction per database transaction); Debezium 3.6.3's refuses
    accepted = entry(await validate(body, exactly_once_source=enabled), "transaction.boundary")["value"]["errors"]
    monkeypatch.setattr(
        PostgresConnector,
        "can_define_transaction_boundaries",
        lambda self, props: ConnectorTransactionBoundaries.UNSUPPORTED,
    )
    refused = entry(await validate(body, exactly_once_source=enabled), "transaction.boundary")["value"]["errors"]

    # Connect checks the boundary whether or not the worker has exactly-once support
    assert refused == [
        "The connector does not support connector-defined transaction boundaries with the given configuration. "
        "Please reconfigure it to use a different transaction boundary definition."
    ]
    assert accepted == []


def test_java_hash_order_is_a_java_hashmaps() -> None:
    # what java.util.HashMap.keySet() printed for these names put in this order (16 buckets, then 32 after resize)
    json_converter = ["converter.type", "schemas.enable", "schemas.cache.size", "schema.content", "decimal.format"]
    json_converter.append("replace.null.with.default")
    assert java_hash_order(json_converter) == [
        "decimal.format",
        "converter.type",
        "schemas.cache.size",
        "replace.null.with.default",
        "schemas.enable",
        "schema.content",
    ]
    more = [*json_converter, "topic.prefix", "database.hostname", "database.port", "database.user"]
    more += ["database.password", "database.dbname", "plugin.name", "slot.name", "publication.name"]
    assert ",".join(java_hash_order(more)) == (
        "database.user,database.dbname,converter.type,slot.name,schemas.cache.size,publication.name,"
        "replace.null.with.default,database.port,plugin.name,decimal.format,topic.prefix,database.hostname,"
        "database.password,schemas.enable,schema.content"
    )


@pytest.mark.parametrize(
    ("spec", "version", "shown", "matches"),
    [
        ("4.3.1", "4.3.1", "[4.3.1,4.3.1]", True),
        ("1.0", "4.3.1", "[1.0,1.0]", False),
        ("3.6.3.Final", "3.6.3.Final", "[3.6.3.Final,3.6.3.Final]", True),
        ("[4.0,5.0)", "4.3.1", "[4.0,5.0)", True),
        ("[4.3.1,)", "4.3.1", "[4.3.1,)", True),
        ("(4.3.1,)", "4.3.1", "(4.3.1,)", False),
        ("[3.6,3.7)", "3.6.3.Final", "[3.6,3.7)", True),
        ("[1.0]", "1.0", "[1.0]", True),
        ("[1.0]", "1.0.1", "[1.0]", False),
    ],
)
def test_version_requirement(spec: str, version: str, shown: str, matches: bool) -> None:
    text, test = version_requirement(spec)

    assert (text, test(version)) == (shown, matches)


def test_embedded_keys_follow_connects_sorted_order() -> None:
    regex_router = REGISTRY.find(PluginType.TRANSFORMATION, "RegexRouter")
    assert regex_router is not None
    keys = [*regex_router.config_def().keys, *TRANSFORM_COMMON_KEYS]

    embedded = embed("transforms.r.", "Transforms: r", 2, keys)

    # no default first (regex, replacement), then by importance and name (negate, predicate)
    assert [k.name for k in sorted_configs(keys)] == ["regex", "replacement", "negate", "predicate"]
    assert [(k.name, k.group, k.order_in_group) for k in embedded] == [
        ("transforms.r.regex", "Transforms: r", 2),
        ("transforms.r.replacement", "Transforms: r", 3),
        ("transforms.r.negate", "Transforms: r", 4),
        ("transforms.r.predicate", "Transforms: r", 5),
    ]


def test_schema_include_list_names_its_dependent() -> None:
    listing = {k.name: k for k in plugin_config_keys(PluginType.SOURCE, PostgresConnector)}

    assert listing["schema.include.list"].dependents == ("table.include.list",)
