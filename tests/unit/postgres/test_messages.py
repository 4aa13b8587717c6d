"""Logical decoding message records in the shape the real Debezium 3.6.3 writes them."""

from __future__ import annotations

import random
import re

from connectors.postgres.messages import MESSAGE_KEY_SCHEMA, message_collection_id, message_record
from connectors.postgres.source_info import SourceInfo
from connectors.relational import metadata_schemas as md


def test_message_record_schema_and_value() -> None:
    source = SourceInfo("tp", "db").struct(ts_us=5_000, schema="", table="", tx_id=7, lsn=9, last_commit_lsn=None)
    block = md.event_block("7:9", 2, 1)
    rec = message_record({"server": "tp"}, (), topic="tp.message", prefix="foo", content=b"bar", source=source,
                         transaction=block, offset={"lsn": 9})  # fmt: skip
    assert rec.key_schema is MESSAGE_KEY_SCHEMA and MESSAGE_KEY_SCHEMA.version == 1
    assert rec.value_schema is not None and rec.value_schema.version == 1
    assert [f.name for f in rec.value_schema.fields] == ["op", "ts_ms", "source", "transaction", "message"]
    assert rec.value is not None and rec.value["transaction"] is block and rec.value["op"] == "m"
    assert rec.value["message"]["content"] == b"bar"
    assert rec.headers == ()


def test_message_collection_id_is_a_java_object_name() -> None:
    name = message_collection_id(random.Random(1))
    assert re.fullmatch(
        r"io\.debezium\.connector\.postgresql\.LogicalDecodingMessageMonitor\$LogicalDecodingMessageId@[0-9a-f]{1,8}",
        name,
    )
