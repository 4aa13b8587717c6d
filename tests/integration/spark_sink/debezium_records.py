"""Building Debezium PostgreSQL change events as JsonConverter writes them (kafka-connect.md §4.3, Appendix A)."""

from __future__ import annotations

import base64
import json
from decimal import Decimal
from typing import Any

PLACEHOLDER = "__debezium_unavailable_value"


def f(field: str, type_: str, optional: bool = True, name: str | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": type_, "optional": optional}
    if name:
        out["name"] = name
        out["version"] = 1
    out.update(extra)
    out["field"] = field
    return out


def decimal_b64(value: Decimal, scale: int) -> str:
    unscaled = int((value * (Decimal(10) ** scale)).to_integral_value())
    length = max(1, (unscaled.bit_length() + 8) // 8)
    return base64.b64encode(unscaled.to_bytes(length, "big", signed=True)).decode()


SOURCE_FIELDS = [
    f("version", "string", False),
    f("connector", "string", False),
    f("name", "string", False),
    f("ts_ms", "int64", False),
    f("snapshot", "string", True, "io.debezium.data.Enum", default="false"),
    f("db", "string", False),
    f("sequence", "string"),
    f("schema", "string", False),
    f("table", "string", False),
    f("txId", "int64"),
    f("lsn", "int64"),
]


class Table:
    def __init__(self, prefix: str, schema: str, table: str, fields: list[dict[str, Any]], key: list[str]) -> None:
        self.prefix, self.schema, self.table = prefix, schema, table
        self.fields = fields
        self.key = key

    @property
    def topic(self) -> str:
        return f"{self.prefix}.{self.schema}.{self.table}"

    def key_bytes(self, row: dict[str, Any], schemas: bool = True) -> bytes:
        kfields = [dict(x, optional=False) for x in self.fields if x["field"] in self.key]
        payload = {k: row[k] for k in self.key}
        if not schemas:
            return json.dumps(payload).encode()
        schema = {"type": "struct", "fields": kfields, "optional": False, "name": f"{self.topic}.Key"}
        return json.dumps({"schema": schema, "payload": payload}).encode()

    def value_bytes(
        self,
        op: str,
        lsn: int,
        after: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        ts_ms: int = 1_700_000_000_000,
        tx_id: int = 700,
        total_order: int | None = None,
        schemas: bool = True,
        fields: list[dict[str, Any]] | None = None,
    ) -> bytes:
        row_schema = {
            "type": "struct",
            "fields": fields or self.fields,
            "optional": True,
            "name": f"{self.topic}.Value",
        }
        source = {
            "version": "3.6.3.Final",
            "connector": "postgresql",
            "name": self.prefix,
            "ts_ms": ts_ms,
            "snapshot": "true" if op == "r" else "false",
            "db": "postgres",
            "sequence": json.dumps([None, str(lsn)]),
            "schema": self.schema,
            "table": self.table,
            "txId": tx_id,
            "lsn": lsn,
        }
        tx = (
            None
            if total_order is None
            else {"id": f"{tx_id}:{lsn}", "total_order": total_order, "data_collection_order": total_order}
        )
        payload = {"before": before, "after": after, "source": source, "transaction": tx, "op": op, "ts_ms": ts_ms + 5}
        if not schemas:
            return json.dumps(payload).encode()
        schema = {
            "type": "struct",
            "fields": [
                dict(row_schema, field="before"),
                dict(row_schema, field="after"),
                {
                    "type": "struct",
                    "fields": SOURCE_FIELDS,
                    "optional": False,
                    "name": "io.debezium.connector.postgresql.Source",
                    "field": "source",
                },
                {
                    "type": "struct",
                    "fields": [
                        f("id", "string", False),
                        f("total_order", "int64", False),
                        f("data_collection_order", "int64", False),
                    ],
                    "optional": True,
                    "name": "event.block",
                    "version": 1,
                    "field": "transaction",
                },
                f("op", "string", False),
                f("ts_ms", "int64"),
            ],
            "optional": False,
            "name": f"{self.topic}.Envelope",
            "version": 2,
        }
        return json.dumps({"schema": schema, "payload": payload}).encode()


TX_KEY_SCHEMA = {
    "type": "struct",
    "fields": [f("id", "string", False)],
    "optional": False,
    "name": "io.debezium.connector.common.TransactionMetadataKey",
    "version": 1,
}
TX_VALUE_SCHEMA = {
    "type": "struct",
    "fields": [
        f("status", "string", False),
        f("id", "string", False),
        f("event_count", "int64"),
        f(
            "data_collections",
            "array",
            True,
            items={
                "type": "struct",
                "fields": [f("data_collection", "string", False), f("event_count", "int64", False)],
                "optional": False,
                "name": "event.collection",
                "version": 1,
            },
        ),
        f("ts_ms", "int64", False),
    ],
    "optional": False,
    "name": "io.debezium.connector.common.TransactionMetadataValue",
    "version": 1,
}


def tx_record(
    status: str, tx_id: int, lsn: int, counts: dict[str, int] | None = None, ts_ms: int = 1_700_000_000_000
) -> tuple[bytes, bytes]:
    """A transaction-topic record (kafka-connect.md §4.4) as JsonConverter writes it: key and value. The id is
    "<txId>:<lsn>" like PostgreSQL's; `counts` (schema.table → events) only on END."""
    tx = f"{tx_id}:{lsn}"
    collections = None
    if status == "END":
        counts = counts or {}
        collections = [{"data_collection": c, "event_count": n} for c, n in counts.items()]
    value = {
        "status": status,
        "id": tx,
        "event_count": None if status == "BEGIN" else sum((counts or {}).values()),
        "data_collections": collections,
        "ts_ms": ts_ms,
    }
    key = json.dumps({"schema": TX_KEY_SCHEMA, "payload": {"id": tx}}).encode()
    return key, json.dumps({"schema": TX_VALUE_SCHEMA, "payload": value}).encode()
