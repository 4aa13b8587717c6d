"""The `source` block of Vitess change events (io.debezium.connector.vitess.Source, Debezium 2.7; spec
vitess.md §3.5): field order as the connector's code writes it, `ts_us`/`ts_ns` optional, `vgtid` the
transaction's VGTID JSON, `snapshot` always "false" (VStream Copy rows are ordinary inserts), `db` empty."""

from __future__ import annotations

from typing import Final

from connect_worker.api import Schema, Struct, Type
from connectors.relational.source_info import snapshot_enum, source_schema

CONNECTOR_NAME: Final = "vitess"
VITESS_DEBEZIUM_VERSION: Final = "2.7.0.Final"

_STRING = Schema(Type.STRING)

SNAPSHOT_ENUM: Final = snapshot_enum("true,last,false,incremental")  # the seed's listing; only "false" is sent

VITESS_SOURCE_SCHEMA: Final = source_schema(
    "io.debezium.connector.vitess.Source",
    SNAPSHOT_ENUM,
    [("keyspace", _STRING), ("table", _STRING), ("shard", _STRING), ("vgtid", _STRING)],
)


def source_block(name: str, *, commit_seconds: int, keyspace: str, table: str, shard: str, vgtid: str) -> Struct:
    """The block of a row committed at `commit_seconds` (binlog time: whole seconds)."""
    return Struct.of(
        VITESS_SOURCE_SCHEMA,
        (
            VITESS_DEBEZIUM_VERSION,
            CONNECTOR_NAME,
            name,
            commit_seconds * 1000,
            "false",
            "",
            None,
            commit_seconds * 1_000_000,
            commit_seconds * 1_000_000_000,
            keyspace,
            table,
            shard,
            vgtid,
        ),
    )
