"""Decoder for Debezium's decoderbufs output plug-in: one protobuf ``RowMessage`` per XLogData (pure).

BEGIN and COMMIT frames carry only the xid and the commit time (µs since 1970-01-01); their WAL
position is the XLogData's ``wal_start``. Change frames carry the qualified table name and the new
and/or old tuple. Datum values arrive typed (int, float, bool, str, bytes, point); a column whose
datum is not set is SQL NULL (or, in an old tuple under REPLICA IDENTITY DEFAULT, simply not sent);
``datum_missing`` marks an unchanged TOASTed value and becomes :data:`UNCHANGED_TOAST`.
decoderbufs has no TRUNCATE and no logical messages.
"""

from __future__ import annotations

import enum
import importlib
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from connect_worker.api.errors import DataError
from connectors.postgres.protocol.toast import UNCHANGED_TOAST, UnchangedToast

# The generated module and protobuf ship no type information (mypy would need types-protobuf and
# stubs of generated code, which is fenced off from lint): both are used as Any, behind this module.
pb: Any = importlib.import_module("connectors.postgres.protocol.proto.pg_logicaldec_pb2")
_DecodeError: type[Exception] = importlib.import_module("google.protobuf.message").DecodeError

__all__ = [
    "Datum",
    "DatumValue",
    "DecoderbufsMessage",
    "Op",
    "Point",
    "RowChange",
    "TxBegin",
    "TxCommit",
    "TypeInfo",
    "decode_row_message",
]


class Op(enum.IntEnum):
    UNKNOWN = -1
    INSERT = 0
    UPDATE = 1
    DELETE = 2
    BEGIN = 3
    COMMIT = 4


@dataclass(frozen=True, slots=True)
class Point:
    x: float
    y: float


DatumValue: TypeAlias = int | float | bool | str | bytes | Point | UnchangedToast | None


@dataclass(frozen=True, slots=True)
class Datum:
    """One column value: ``column_type`` is the type OID."""

    column_name: str
    column_type: int
    value: DatumValue


@dataclass(frozen=True, slots=True)
class TypeInfo:
    """Per-column type text (``format_type``) and nullability; sent with the new tuple of changes."""

    modifier: str
    value_optional: bool


@dataclass(frozen=True, slots=True)
class TxBegin:
    xid: int
    commit_time: int


@dataclass(frozen=True, slots=True)
class TxCommit:
    xid: int
    commit_time: int


@dataclass(frozen=True, slots=True)
class RowChange:
    """An INSERT, UPDATE or DELETE on ``table`` (``schema.table`` as quote_qualified_identifier prints it)."""

    op: Op
    xid: int
    commit_time: int
    table: str
    new_tuple: tuple[Datum, ...]
    old_tuple: tuple[Datum, ...]
    new_typeinfo: tuple[TypeInfo, ...]


DecoderbufsMessage: TypeAlias = TxBegin | TxCommit | RowChange

_OP_INSERT: Final = int(pb.INSERT)
_OP_UPDATE: Final = int(pb.UPDATE)
_OP_DELETE: Final = int(pb.DELETE)
_OP_BEGIN: Final = int(pb.BEGIN)
_OP_COMMIT: Final = int(pb.COMMIT)


def _datum(d: Any) -> Datum:
    which = d.WhichOneof("datum")
    value: DatumValue
    if which is None:
        value = None
    elif which == "datum_missing":
        value = UNCHANGED_TOAST
    elif which == "datum_point":
        value = Point(d.datum_point.x, d.datum_point.y)
    else:
        value = getattr(d, which)
    return Datum(d.column_name, d.column_type, value)


def decode_row_message(buf: memoryview | bytes) -> DecoderbufsMessage:
    """Decode one decoderbufs frame; malformed input raises :class:`DataError`."""
    msg = pb.RowMessage()
    try:
        msg.ParseFromString(bytes(buf))
    except _DecodeError as e:
        raise DataError(f"malformed decoderbufs RowMessage ({len(buf)} bytes): {e}") from e
    if not msg.HasField("op"):
        raise DataError("decoderbufs RowMessage without an op")
    op = msg.op
    if op == _OP_BEGIN:
        return TxBegin(msg.transaction_id, msg.commit_time)
    if op == _OP_COMMIT:
        return TxCommit(msg.transaction_id, msg.commit_time)
    if op not in (_OP_INSERT, _OP_UPDATE, _OP_DELETE):
        raise DataError(f"decoderbufs RowMessage with unsupported op {op}")
    return RowChange(
        Op(op),
        msg.transaction_id,
        msg.commit_time,
        msg.table,
        tuple(_datum(d) for d in msg.new_tuple),
        tuple(_datum(d) for d in msg.old_tuple),
        tuple(TypeInfo(t.modifier, t.value_optional) for t in msg.new_typeinfo),
    )
