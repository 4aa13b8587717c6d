"""What Debezium's SMTs need to know about the change-event envelope (io.debezium.data.Envelope)."""

from __future__ import annotations

from typing import Final

from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import Schema
from connect_worker.api.struct import Struct

BEFORE: Final = "before"
AFTER: Final = "after"
SOURCE: Final = "source"
TRANSACTION: Final = "transaction"
OP: Final = "op"
TS_MS: Final = "ts_ms"
TS_US: Final = "ts_us"
TS_NS: Final = "ts_ns"
ENVELOPE_SUFFIX: Final = ".Envelope"
OP_DELETE: Final = "d"


def is_envelope_schema(schema: Schema | None) -> bool:
    return schema is not None and schema.name is not None and schema.name.endswith(ENVELOPE_SUFFIX)


def is_envelope_record(record: SourceRecord) -> bool:
    """A change event in Debezium's envelope (not a heartbeat, transaction or schema-change record)."""
    return isinstance(record.value, Struct) and is_envelope_schema(record.value_schema)


def envelope_schema_name(topic: str) -> str:
    return topic + ENVELOPE_SUFFIX
