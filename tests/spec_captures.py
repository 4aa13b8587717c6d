"""Literal captures of real Kafka Connect 4.3 + Debezium 3.6.3 output from the spec, shared by tests."""

from typing import Any

# kafka-connect.md Appendix A.1: the value schema of `customers` (id int PK, email text, balance numeric(10,2),
# created date, ts timestamptz, tags text[], payload jsonb, amount numeric) as real Debezium 3.6.3 writes it
LIVE_ROW_SCHEMA_FIELDS: list[dict[str, Any]] = [
    {"type": "int32", "optional": False, "field": "id"},
    {"type": "string", "optional": True, "field": "email"},
    {
        "type": "bytes",
        "optional": True,
        "name": "org.apache.kafka.connect.data.Decimal",
        "version": 1,
        "parameters": {"scale": "2", "connect.decimal.precision": "10"},
        "field": "balance",
    },
    {"type": "int32", "optional": True, "name": "io.debezium.time.Date", "version": 1, "field": "created"},
    {"type": "string", "optional": True, "name": "io.debezium.time.ZonedTimestamp", "version": 1, "field": "ts"},
    {"type": "array", "items": {"type": "string", "optional": True}, "optional": True, "field": "tags"},
    {"type": "string", "optional": True, "name": "io.debezium.data.Json", "version": 1, "field": "payload"},
    {
        "type": "struct",
        "fields": [
            {"type": "int32", "optional": False, "field": "scale"},
            {"type": "bytes", "optional": False, "field": "value"},
        ],
        "optional": True,
        "name": "io.debezium.data.VariableScaleDecimal",
        "version": 1,
        "doc": "Variable scaled decimal",
        "field": "amount",
    },
]
