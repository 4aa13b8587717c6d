"""Logical decoding message records (op = m), from pg_logical_emit_message, on `<prefix>.message`.

Key io.debezium.connector.postgresql.MessageKey {prefix}; value io.debezium.connector.postgresql.MessageValue
{op, ts_ms, ts_us, ts_ns, source, message {prefix, content}} (ts_us/ts_ns added after ts_ms, as the newer
Debezium documentation shows; additive for consumers).
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Final

from connect_worker.api import Header, Schema, SourceRecord, Struct, Type
from connect_worker.api.schema import struct_schema
from connectors.postgres.source_info import SOURCE_SCHEMA

_OPT_STRING = Schema(Type.STRING, optional=True)
_OPT_INT64 = Schema(Type.INT64, optional=True)

MESSAGE_KEY_SCHEMA: Final = struct_schema([("prefix", _OPT_STRING)], name="io.debezium.connector.postgresql.MessageKey")


def _value_schema(content: Schema) -> Schema:
    block = struct_schema(
        [("prefix", _OPT_STRING), ("content", content)], name="io.debezium.connector.postgresql.Message"
    )
    return struct_schema(
        [
            ("op", Schema(Type.STRING)),
            ("ts_ms", _OPT_INT64),
            ("ts_us", _OPT_INT64),
            ("ts_ns", _OPT_INT64),
            ("source", SOURCE_SCHEMA),
            ("message", block),
        ],
        name="io.debezium.connector.postgresql.MessageValue",
    )


_BYTES_VALUE: Final = _value_schema(Schema(Type.BYTES, optional=True))
_STRING_VALUE: Final = _value_schema(_OPT_STRING)


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
    del transaction  # Debezium's message value has no transaction block
    schema = _BYTES_VALUE if isinstance(content, bytes) else _STRING_VALUE
    message = schema.field("message")
    assert message is not None
    ns = time.time_ns()
    value = Struct.of(
        schema,
        ("m", ns // 1_000_000, ns // 1000, ns, source, Struct.of(message.schema, (prefix, content))),
    )
    key = Struct.of(MESSAGE_KEY_SCHEMA, (prefix,))
    return SourceRecord(partition, offset, topic, None, MESSAGE_KEY_SCHEMA, key, schema, value, None, headers)
