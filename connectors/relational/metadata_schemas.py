"""The fixed Connect schemas of Debezium's common records (io.debezium.schema.SchemaFactory) and their values.

* heartbeat: key `io.debezium.connector.common.ServerNameKey` v1 `{serverName}`, value
  `io.debezium.connector.common.Heartbeat` v1 `{ts_ms}`;
* transaction topic: key `io.debezium.connector.common.TransactionMetadataKey` v1 `{id}`, value
  `io.debezium.connector.common.TransactionMetadataValue` v1 `{status, id, event_count?, data_collections?:
  [event.collection v1 (optional) {data_collection, event_count}], ts_ms}`;
* the envelope's `transaction` field: `event.block` v1, optional, `{id, total_order, data_collection_order}`;
* notifications: key `io.debezium.connector.common.NotificationKey` v1 `{id}`, value
  `io.debezium.connector.common.Notification` v1 `{id, type, aggregate_type, additional_data?: map, timestamp}`.

Record names pass through the connector's schema-name adjuster (as in Debezium); `event.block` and
`event.collection` do not. The module-level schemas use the identity adjuster (mode `none`, the default).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Final

from connect_worker.api.javacompat import java_hashmap_order
from connect_worker.api.schema import (
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    Type,
    struct_schema,
)
from connect_worker.api.struct import Struct

__all__ = [
    "EVENT_BLOCK_SCHEMA",
    "EVENT_COLLECTION_SCHEMA",
    "HEARTBEAT_KEY_SCHEMA",
    "HEARTBEAT_VALUE_SCHEMA",
    "NOTIFICATION_KEY_SCHEMA",
    "NOTIFICATION_VALUE_SCHEMA",
    "TRANSACTION_KEY_SCHEMA",
    "TRANSACTION_VALUE_SCHEMA",
    "event_block",
    "heartbeat_key",
    "heartbeat_key_schema",
    "heartbeat_value",
    "heartbeat_value_schema",
    "notification_key",
    "notification_key_schema",
    "notification_value",
    "notification_value_schema",
    "transaction_begin_value",
    "transaction_end_value",
    "transaction_key",
    "transaction_key_schema",
    "transaction_value_schema",
]

HEARTBEAT_KEY_NAME: Final = "io.debezium.connector.common.ServerNameKey"
HEARTBEAT_VALUE_NAME: Final = "io.debezium.connector.common.Heartbeat"
TRANSACTION_KEY_NAME: Final = "io.debezium.connector.common.TransactionMetadataKey"
TRANSACTION_VALUE_NAME: Final = "io.debezium.connector.common.TransactionMetadataValue"
EVENT_BLOCK_NAME: Final = "event.block"
EVENT_COLLECTION_NAME: Final = "event.collection"
NOTIFICATION_KEY_NAME: Final = "io.debezium.connector.common.NotificationKey"
NOTIFICATION_VALUE_NAME: Final = "io.debezium.connector.common.Notification"

STATUS_BEGIN: Final = "BEGIN"
STATUS_END: Final = "END"

Adjust = Callable[[str], str]


def _same(name: str) -> str:
    return name


# -- schemas ---------------------------------------------------------------------------------------------------
def heartbeat_key_schema(adjust: Adjust = _same) -> Schema:
    return struct_schema([("serverName", STRING_SCHEMA)], name=adjust(HEARTBEAT_KEY_NAME), version=1)


def heartbeat_value_schema(adjust: Adjust = _same) -> Schema:
    return struct_schema([("ts_ms", INT64_SCHEMA)], name=adjust(HEARTBEAT_VALUE_NAME), version=1)


def event_block_schema() -> Schema:
    return struct_schema(
        [("id", STRING_SCHEMA), ("total_order", INT64_SCHEMA), ("data_collection_order", INT64_SCHEMA)],
        name=EVENT_BLOCK_NAME,
        version=1,
        optional=True,
    )


def event_collection_schema() -> Schema:
    return struct_schema(
        [("data_collection", STRING_SCHEMA), ("event_count", INT64_SCHEMA)],
        name=EVENT_COLLECTION_NAME,
        version=1,
        optional=True,
    )


def transaction_key_schema(adjust: Adjust = _same) -> Schema:
    return struct_schema([("id", STRING_SCHEMA)], name=adjust(TRANSACTION_KEY_NAME), version=1)


def transaction_value_schema(adjust: Adjust = _same) -> Schema:
    return struct_schema(
        [
            ("status", STRING_SCHEMA),
            ("id", STRING_SCHEMA),
            ("event_count", OPTIONAL_INT64_SCHEMA),
            ("data_collections", SchemaBuilder.array(event_collection_schema()).optional().build()),
            ("ts_ms", INT64_SCHEMA),
        ],
        name=adjust(TRANSACTION_VALUE_NAME),
        version=1,
    )


def notification_key_schema(adjust: Adjust = _same) -> Schema:
    return struct_schema([("id", STRING_SCHEMA)], name=adjust(NOTIFICATION_KEY_NAME), version=1)


def notification_value_schema(adjust: Adjust = _same) -> Schema:
    return struct_schema(
        [
            ("id", STRING_SCHEMA),
            ("type", STRING_SCHEMA),
            ("aggregate_type", STRING_SCHEMA),
            ("additional_data", Schema(Type.MAP, key_schema=STRING_SCHEMA, value_schema=STRING_SCHEMA, optional=True)),
            ("timestamp", INT64_SCHEMA),
        ],
        name=adjust(NOTIFICATION_VALUE_NAME),
        version=1,
    )


HEARTBEAT_KEY_SCHEMA: Final = heartbeat_key_schema()
HEARTBEAT_VALUE_SCHEMA: Final = heartbeat_value_schema()
EVENT_BLOCK_SCHEMA: Final = event_block_schema()
EVENT_COLLECTION_SCHEMA: Final = event_collection_schema()
TRANSACTION_KEY_SCHEMA: Final = transaction_key_schema()
TRANSACTION_VALUE_SCHEMA: Final = transaction_value_schema()
NOTIFICATION_KEY_SCHEMA: Final = notification_key_schema()
NOTIFICATION_VALUE_SCHEMA: Final = notification_value_schema()


# -- values ----------------------------------------------------------------------------------------------------
def heartbeat_key(server_name: str, schema: Schema = HEARTBEAT_KEY_SCHEMA) -> Struct:
    return Struct.of(schema, (server_name,))


def heartbeat_value(ts_ms: int, schema: Schema = HEARTBEAT_VALUE_SCHEMA) -> Struct:
    return Struct.of(schema, (ts_ms,))


def transaction_key(tx_id: str, schema: Schema = TRANSACTION_KEY_SCHEMA) -> Struct:
    return Struct.of(schema, (tx_id,))


def transaction_begin_value(tx_id: str, ts_ms: int, schema: Schema = TRANSACTION_VALUE_SCHEMA) -> Struct:
    return Struct.of(schema, (STATUS_BEGIN, tx_id, None, None, ts_ms))


def transaction_end_value(
    tx_id: str,
    ts_ms: int,
    event_count: int,
    per_collection: Mapping[str, int] | Iterable[tuple[str, int]],
    schema: Schema = TRANSACTION_VALUE_SCHEMA,
) -> Struct:
    """The END record. `per_collection` maps `schema.table` to its event count, in the order the collections
    were first seen; they are listed in the iteration order of the `java.util.HashMap` Debezium keeps them in."""
    counts = dict(per_collection.items() if isinstance(per_collection, Mapping) else per_collection)
    item_schema = schema.field("data_collections")
    assert item_schema is not None
    collection_schema = item_schema.schema.element_schema
    collections = [Struct.of(collection_schema, (name, count)) for name, count in java_hashmap_order(counts).items()]
    return Struct.of(schema, (STATUS_END, tx_id, event_count, collections, ts_ms))


def event_block(
    tx_id: str, total_order: int, data_collection_order: int, schema: Schema = EVENT_BLOCK_SCHEMA
) -> Struct:
    """The envelope's `transaction` value."""
    return Struct.of(schema, (tx_id, total_order, data_collection_order))


def notification_key(notification_id: str, schema: Schema = NOTIFICATION_KEY_SCHEMA) -> Struct:
    return Struct.of(schema, (notification_id,))


def notification_value(
    notification_id: str,
    type: str,
    aggregate_type: str,
    additional_data: Mapping[str, str] | None,
    timestamp: int,
    schema: Schema = NOTIFICATION_VALUE_SCHEMA,
) -> Struct:
    data = dict(additional_data) if additional_data is not None else None
    return Struct.of(schema, (notification_id, type, aggregate_type, data, timestamp))
