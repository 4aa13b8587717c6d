"""The common head of every connector's `source` block (Debezium's ``CommonSourceInfoStructMaker``): version,
connector, name, ts_ms, snapshot, db, sequence and (Debezium 2.6 and later) ts_us/ts_ns, then the connector's own
fields. Each connector's source_info.py builds its schema here and fills the values on its hot path.
"""

from __future__ import annotations

from collections.abc import Sequence

from connect_worker.api import Schema, Type
from connect_worker.api.schema import struct_schema

_STRING = Schema(Type.STRING)
_OPT_STRING = Schema(Type.STRING, optional=True)
_OPT_INT64 = Schema(Type.INT64, optional=True)


def snapshot_enum(allowed: str) -> Schema:
    """The `snapshot` field: an optional ``io.debezium.data.Enum`` of the marks a connector sends, default false."""
    return Schema(
        Type.STRING,
        optional=True,
        name="io.debezium.data.Enum",
        version=1,
        parameters={"allowed": allowed},
        default="false",
    )


def source_schema(
    name: str, snapshot: Schema, own_fields: Sequence[tuple[str, Schema]], *, micro_nano: bool = True
) -> Schema:
    """A connector's `source` schema: the common head (with ts_us/ts_ns unless ``micro_nano`` is false, as in
    Debezium before 2.6), then ``own_fields``."""
    head = [
        ("version", _STRING),
        ("connector", _STRING),
        ("name", _STRING),
        ("ts_ms", Schema(Type.INT64)),
        ("snapshot", snapshot),
        ("db", _STRING),
        ("sequence", _OPT_STRING),
    ]
    if micro_nano:
        head += [("ts_us", _OPT_INT64), ("ts_ns", _OPT_INT64)]
    return struct_schema([*head, *own_fields], name=name, version=1)
