"""Logical decoding message records (op = m), from pg_logical_emit_message, on `<prefix>.message`.

What the real Debezium 3.6.3 writes (checked against it with the differential harness; the spec's §5.8 differs):
key `io.debezium.connector.postgresql.MessageKey` v1 `{prefix}`; value `io.debezium.connector.postgresql.MessageValue`
v1 `{op, ts_ms, source, transaction, message}` where `transaction` is the `event.block` of a transactional message
(null otherwise) and `message` is `io.debezium.connector.postgresql.Message` v1 `{prefix, content}`. No ts_us/ts_ns
and no context headers.

A transactional message is an event of its transaction: Debezium counts it under a data collection named after a
fresh Java object (`...LogicalDecodingMessageMonitor$LogicalDecodingMessageId@<identity hash>`), so each message is
a collection of its own in the END record and in the offsets. `message_collection_id()` makes such a name.
"""

from __future__ import annotations

import random
import time
from collections.abc import Mapping
from typing import Any, Final

from connect_worker.api import Header, Schema, SourceRecord, Struct, Type
from connect_worker.api.schema import struct_schema
from connectors.postgres.source_info import SOURCE_SCHEMA
from connectors.relational.metadata_schemas import EVENT_BLOCK_SCHEMA

_OPT_STRING = Schema(Type.STRING, optional=True)
_OPT_INT64 = Schema(Type.INT64, optional=True)

MESSAGE_KEY_SCHEMA: Final = struct_schema(
    [("prefix", _OPT_STRING)], name="io.debezium.connector.postgresql.MessageKey", version=1
)
MESSAGE_ID_CLASS: Final = "io.debezium.connector.postgresql.LogicalDecodingMessageMonitor$LogicalDecodingMessageId"


def _value_schema(content: Schema) -> Schema:
    block = struct_schema(
        [("prefix", _OPT_STRING), ("content", content)], name="io.debezium.connector.postgresql.Message", version=1
    )
    return struct_schema(
        [
            ("op", Schema(Type.STRING)),
            ("ts_ms", _OPT_INT64),
            ("source", SOURCE_SCHEMA),
            ("transaction", EVENT_BLOCK_SCHEMA),
            ("message", block),
        ],
        name="io.debezium.connector.postgresql.MessageValue",
        version=1,
    )


_BYTES_VALUE: Final = _value_schema(Schema(Type.BYTES, optional=True))
_STRING_VALUE: Final = _value_schema(_OPT_STRING)


def message_collection_id(rng: random.Random | None = None) -> str:
    """The data-collection name Debezium gives one transactional message: Object.toString() of a new object,
    i.e. the class name, `@` and a (non-zero, 31-bit) identity hash code in unpadded lower-case hex."""
    return f"{MESSAGE_ID_CLASS}@{(rng or random).randrange(1, 1 << 31):x}"


def message_record(
    partition: Mapping[str, Any],
    headers: tuple[Header, ...],
    *,
    topic: str,
    prefix: str,
    content: bytes | str,
    source: Struct,
    transaction: Struct | None,
    offset: Mapping[str, Any],
) -> SourceRecord:
    """One `op = m` record. `headers` is accepted for the caller's convenience and not used: Debezium's message
    records carry no headers."""
    del headers
    schema = _BYTES_VALUE if isinstance(content, bytes) else _STRING_VALUE
    message = schema.field("message")
    assert message is not None
    value = Struct.of(
        schema,
        ("m", time.time_ns() // 1_000_000, source, transaction, Struct.of(message.schema, (prefix, content))),
    )
    key = Struct.of(MESSAGE_KEY_SCHEMA, (prefix,))
    return SourceRecord(partition, offset, topic, None, MESSAGE_KEY_SCHEMA, key, schema, value)
