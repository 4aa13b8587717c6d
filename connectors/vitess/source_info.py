"""The `source` block of Vitess change events (io.debezium.connector.vitess.Source, Debezium 2.7; spec
vitess.md §3.5): field order as the connector's code writes it, `ts_us`/`ts_ns` optional, `vgtid` the
transaction's VGTID JSON, `snapshot` always "false" (VStream Copy rows are ordinary inserts), `db` empty."""

from __future__ import annotations

from typing import Final

from connect_worker.api import Schema, Struct, Type
from connect_worker.api.schema import struct_schema

CONNECTOR_NAME: Final = "vitess"
VITESS_DEBEZIUM_VERSION: Final = "2.7.0.Final"

_STRING = Schema(Type.STRING)
_OPT_INT64 = Schema(Type.INT64, optional=True)

SNAPSHOT_ENUM: Final = Schema(
    Type.STRING,
    optional=True,
    name="io.debezium.data.Enum",
    version=1,
    parameters={"allowed": "true,last,false,incremental"},  # the seed's listing; only "false" is ever sent
    default="false",
)

VITESS_SOURCE_SCHEMA: Final = struct_schema(
    [
        ("version", _STRING),
        ("connector", _STRING),
        ("name", _STRING),
        ("ts_ms", Schema(Type.INT64)),
        ("snapshot", SNAPSHOT_ENUM),
        ("db", _STRING),
        ("sequence", Schema(Type.STRING, optional=True)),
        ("ts_us", _OPT_INT64),
        ("ts_ns", _OPT_INT64),
        ("keyspace", _STRING),
        ("table", _STRING),
        ("shard", _STRING),
        ("vgtid", _STRING),
    ],
    name="io.debezium.connector.vitess.Source",
    version=1,
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
