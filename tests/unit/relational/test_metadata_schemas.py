"""Heartbeat, transaction-topic and event.block schemas, serialised by JsonConverter, against the captures."""

from __future__ import annotations

from typing import Any

from connect_worker.api.schema import Schema
from connectors.relational.metadata_schemas import (
    EVENT_BLOCK_SCHEMA,
    HEARTBEAT_KEY_SCHEMA,
    HEARTBEAT_VALUE_SCHEMA,
    NOTIFICATION_VALUE_SCHEMA,
    TRANSACTION_KEY_SCHEMA,
    TRANSACTION_VALUE_SCHEMA,
    event_block,
    heartbeat_key,
    heartbeat_value,
    notification_value,
    transaction_begin_value,
    transaction_end_value,
    transaction_key,
    transaction_value_schema,
)
from connectors.relational.naming import schema_name_adjuster
from converters.json import JsonConverter


def to_json(schema: Schema, value: Any, *, schemas: bool = True) -> str:
    c = JsonConverter()
    c.configure({"schemas.enable": "true" if schemas else "false"}, False)
    out = c.from_connect_data("t", schema, value)
    assert out is not None
    return out.decode("utf-8")


def schema_json(schema: Schema, value: Any) -> str:
    """The "schema" part of JsonConverter's envelope for (schema, value)."""
    text = to_json(schema, value)
    tail = ',"payload":' + to_json(schema, value, schemas=False) + "}"
    assert text.startswith('{"schema":') and text.endswith(tail)
    return text[len('{"schema":') : -len(tail)]


# kafka-connect.md §A.1 (the envelope's transaction field, minus its trailing "field" member)
EVENT_BLOCK_CAPTURE = (
    '{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"},'
    '{"type":"int64","optional":false,"field":"total_order"},'
    '{"type":"int64","optional":false,"field":"data_collection_order"}],'
    '"optional":true,"name":"event.block","version":1}'
)


def test_event_block_schema_matches_the_capture() -> None:
    assert schema_json(EVENT_BLOCK_SCHEMA, event_block("1:2", 1, 1)) == EVENT_BLOCK_CAPTURE


def test_event_block_value_matches_the_capture() -> None:
    # kafka-connect.md §4.3: "transaction":{"id":"729:22182192","total_order":1,"data_collection_order":1}
    value = event_block("729:22182192", 1, 1)
    assert to_json(EVENT_BLOCK_SCHEMA, value, schemas=False) == (
        '{"id":"729:22182192","total_order":1,"data_collection_order":1}'
    )


def test_transaction_records_match_the_captures() -> None:
    # kafka-connect.md §4.4 [LIVE]
    begin = transaction_begin_value("730:22182440", 1795303602365)
    end = transaction_end_value("730:22183064", 1795303602365, 3, {"public.customers": 3})
    assert to_json(TRANSACTION_VALUE_SCHEMA, begin, schemas=False) == (
        '{"status":"BEGIN","id":"730:22182440","event_count":null,"data_collections":null,"ts_ms":1795303602365}'
    )
    assert to_json(TRANSACTION_VALUE_SCHEMA, end, schemas=False) == (
        '{"status":"END","id":"730:22183064","event_count":3,'
        '"data_collections":[{"data_collection":"public.customers","event_count":3}],"ts_ms":1795303602365}'
    )
    assert to_json(TRANSACTION_KEY_SCHEMA, transaction_key("730:22182440"), schemas=False) == '{"id":"730:22182440"}'


def test_transaction_schemas() -> None:
    # kafka-connect.md §4.4 / postgresql.md §4.3: names, version 1, field order and optionality
    assert schema_json(TRANSACTION_KEY_SCHEMA, transaction_key("1:2")) == (
        '{"type":"struct","fields":[{"type":"string","optional":false,"field":"id"}],"optional":false,'
        '"name":"io.debezium.connector.common.TransactionMetadataKey","version":1}'
    )
    assert schema_json(TRANSACTION_VALUE_SCHEMA, transaction_begin_value("1:2", 3)) == (
        '{"type":"struct","fields":['
        '{"type":"string","optional":false,"field":"status"},'
        '{"type":"string","optional":false,"field":"id"},'
        '{"type":"int64","optional":true,"field":"event_count"},'
        '{"type":"array","items":{"type":"struct","fields":['
        '{"type":"string","optional":false,"field":"data_collection"},'
        '{"type":"int64","optional":false,"field":"event_count"}],'
        '"optional":true,"name":"event.collection","version":1},"optional":true,"field":"data_collections"},'
        '{"type":"int64","optional":false,"field":"ts_ms"}],'
        '"optional":false,"name":"io.debezium.connector.common.TransactionMetadataValue","version":1}'
    )


def test_heartbeat_records() -> None:
    # kafka-connect.md §4.5 [LIVE]: {"serverName":"dbserver1"} / {"ts_ms":1795303593511}, both version 1
    assert to_json(HEARTBEAT_KEY_SCHEMA, heartbeat_key("dbserver1")) == (
        '{"schema":{"type":"struct","fields":[{"type":"string","optional":false,"field":"serverName"}],'
        '"optional":false,"name":"io.debezium.connector.common.ServerNameKey","version":1},'
        '"payload":{"serverName":"dbserver1"}}'
    )
    assert to_json(HEARTBEAT_VALUE_SCHEMA, heartbeat_value(1795303593511)) == (
        '{"schema":{"type":"struct","fields":[{"type":"int64","optional":false,"field":"ts_ms"}],'
        '"optional":false,"name":"io.debezium.connector.common.Heartbeat","version":1},'
        '"payload":{"ts_ms":1795303593511}}'
    )


def test_end_record_lists_collections_in_java_hashmap_order() -> None:
    counts = {"public.b": 1, "public.a": 2, "inventory.orders": 3}
    end = transaction_end_value("1:2", 0, 6, counts)
    names = [s["data_collection"] for s in end["data_collections"]]
    assert sorted(names) == sorted(counts)
    # java.util.HashMap buckets by String.hashCode(): this order is what Debezium's END record shows
    from connect_worker.api.javacompat import java_hashmap_order

    assert names == list(java_hashmap_order(counts))


def test_record_names_pass_through_the_adjuster() -> None:
    schema = transaction_value_schema(schema_name_adjuster("avro_unicode").adjust)
    assert schema.name == "io.debezium.connector.common.TransactionMetadataValue"
    item = schema.field("data_collections")
    assert item is not None and item.schema.element_schema.name == "event.collection"


def test_notification_value() -> None:
    value = notification_value("5563ae14", "STARTED", "Incremental Snapshot", {"connector_name": "dbserver1"}, 1)
    assert to_json(NOTIFICATION_VALUE_SCHEMA, value, schemas=False) == (
        '{"id":"5563ae14","type":"STARTED","aggregate_type":"Incremental Snapshot",'
        '"additional_data":{"connector_name":"dbserver1"},"timestamp":1}'
    )
