"""Debezium-shaped PostgreSQL change events (spec §4.3 / A.1) for the Debezium SMT tests."""

from __future__ import annotations

from typing import Any

from connect_worker.api.record import Header, SourceRecord
from connect_worker.api.schema import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    Type,
    struct_schema,
)
from connect_worker.api.struct import Struct

PREFIX = "dbserver1.public.customers"
KEY = struct_schema([("id", INT32_SCHEMA)], name=f"{PREFIX}.Key")
ROW = struct_schema(
    [
        ("id", INT32_SCHEMA),
        ("email", OPTIONAL_STRING_SCHEMA),
        ("status", Schema(Type.STRING, optional=True, default="new")),
    ],
    name=f"{PREFIX}.Value",
    optional=True,
)
SOURCE = struct_schema(
    [
        ("version", STRING_SCHEMA),
        ("connector", STRING_SCHEMA),
        ("name", STRING_SCHEMA),
        ("ts_ms", INT64_SCHEMA),
        (
            "snapshot",
            Schema(
                Type.STRING,
                optional=True,
                name="io.debezium.data.Enum",
                version=1,
                parameters={
                    "allowed": "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
                },
                default="false",
            ),
        ),
        ("db", STRING_SCHEMA),
        ("sequence", OPTIONAL_STRING_SCHEMA),
        ("ts_us", OPTIONAL_INT64_SCHEMA),
        ("ts_ns", OPTIONAL_INT64_SCHEMA),
        ("schema", STRING_SCHEMA),
        ("table", STRING_SCHEMA),
        ("txId", OPTIONAL_INT64_SCHEMA),
        ("lsn", OPTIONAL_INT64_SCHEMA),
        ("xmin", OPTIONAL_INT64_SCHEMA),
        ("origin", OPTIONAL_STRING_SCHEMA),
        ("origin_lsn", OPTIONAL_INT64_SCHEMA),
    ],
    name="io.debezium.connector.postgresql.Source",
    version=1,
)
TX = struct_schema(
    [("id", STRING_SCHEMA), ("total_order", INT64_SCHEMA), ("data_collection_order", INT64_SCHEMA)],
    name="event.block",
    version=1,
    optional=True,
)
ENVELOPE = struct_schema(
    [
        ("before", ROW),
        ("after", ROW),
        ("source", SOURCE),
        ("transaction", TX),
        ("op", STRING_SCHEMA),
        ("ts_ms", OPTIONAL_INT64_SCHEMA),
        ("ts_us", OPTIONAL_INT64_SCHEMA),
        ("ts_ns", OPTIONAL_INT64_SCHEMA),
    ],
    name=f"{PREFIX}.Envelope",
    version=2,
)
CONTEXT_HEADERS = (Header("__debezium.context.connectorLogicalName", STRING_SCHEMA, "dbserver1"),)


def row(id: int, email: str | None = "a@x.org", status: str | None = "active") -> Struct:
    return Struct(ROW, {"id": id, "email": email, "status": status})


def source(lsn: int = 22182192, snapshot: str = "false") -> Struct:
    return Struct(
        SOURCE,
        {
            "version": "3.6.3.Final",
            "connector": "postgresql",
            "name": "dbserver1",
            "ts_ms": 1795303602364,
            "snapshot": snapshot,
            "db": "postgres",
            "sequence": f'[null,"{lsn}"]',
            "ts_us": 1795303602364902,
            "ts_ns": 1795303602364902000,
            "schema": "public",
            "table": "customers",
            "txId": 729,
            "lsn": lsn,
        },
    )


def event(op: str, before: Struct | None, after: Struct | None, *, tx: bool = True, **extra: Any) -> SourceRecord:
    key_id = (after or before).get("id") if (after or before) is not None else 1  # type: ignore[union-attr]
    envelope = Struct(
        ENVELOPE,
        {
            "before": before,
            "after": after,
            "source": source(snapshot="last" if op == "r" else "false"),
            "transaction": Struct(TX, {"id": "729:22182192", "total_order": 1, "data_collection_order": 1})
            if tx
            else None,
            "op": op,
            "ts_ms": 1795303602825,
            "ts_us": 1795303602825167,
            "ts_ns": 1795303602825167310,
        },
    )
    return SourceRecord(
        source_partition={"server": "dbserver1"},
        source_offset={"lsn": 22182192},
        topic=extra.get("topic", PREFIX),
        kafka_partition=None,
        key_schema=KEY,
        key=Struct(KEY, {"id": key_id}),
        value_schema=ENVELOPE,
        value=envelope,
        timestamp=1795303602825,
        headers=CONTEXT_HEADERS,
    )


def create(id: int = 1) -> SourceRecord:
    return event("c", None, row(id))


def read(id: int = 1) -> SourceRecord:
    return event("r", None, row(id), tx=False)


def update(id: int = 1) -> SourceRecord:
    return event("u", row(id, email="old@x.org"), row(id, email="new@x.org"))


def delete(id: int = 1) -> SourceRecord:
    return event("d", row(id), None)


def tombstone(id: int = 1) -> SourceRecord:
    return SourceRecord(
        source_partition={"server": "dbserver1"},
        source_offset={"lsn": 22182192},
        topic=PREFIX,
        kafka_partition=None,
        key_schema=KEY,
        key=Struct(KEY, {"id": id}),
        value_schema=None,
        value=None,
        headers=CONTEXT_HEADERS,
    )


def truncate() -> SourceRecord:
    r = event("t", None, None)
    return r.with_(key_schema=None, key=None)


HEARTBEAT_KEY = struct_schema(
    [("serverName", STRING_SCHEMA)], name="io.debezium.connector.common.ServerNameKey", version=1
)
HEARTBEAT_VALUE = struct_schema([("ts_ms", INT64_SCHEMA)], name="io.debezium.connector.common.Heartbeat", version=1)


def heartbeat() -> SourceRecord:
    return SourceRecord(
        source_partition={"server": "dbserver1"},
        source_offset={"lsn": 1},
        topic="__debezium-heartbeat.dbserver1",
        kafka_partition=None,
        key_schema=HEARTBEAT_KEY,
        key=Struct(HEARTBEAT_KEY, {"serverName": "dbserver1"}),
        value_schema=HEARTBEAT_VALUE,
        value=Struct(HEARTBEAT_VALUE, {"ts_ms": 1795303593511}),
    )
