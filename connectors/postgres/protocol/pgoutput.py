"""Decoder for pgoutput, PostgreSQL's built-in logical replication output plug-in (pure).

Covers the "Logical Replication Message Formats" of protocol versions 1 and 2 (Begin, Commit, Origin,
Relation, Type, Insert, Update, Delete, Truncate, Message; Stream Start/Stop/Commit/Abort), the
protocol-4 additions to Stream Abort, and the protocol-3 two-phase messages. Integers are big-endian.

Inside a streamed block (between Stream Start and Stream Stop, protocol 2+) the data messages carry the
xid of their transaction as an extra leading Int32, so the decoder keeps one bit of state: a
:class:`PgOutputDecoder` belongs to one replication stream.

Column values stay in PostgreSQL's text format (``str``); ``'b'`` values (binary mode) are ``bytes``;
SQL NULL is ``None``; an unchanged TOASTed value is :data:`UNCHANGED_TOAST`. The message types live in
:mod:`pgoutput_messages` and are re-exported here.
"""

from __future__ import annotations

import functools
import importlib
import struct
from collections.abc import Callable
from typing import Final

from connect_worker.api.errors import DataError
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol.pgoutput_messages import (
    Begin,
    BeginPrepare,
    Column,
    Commit,
    CommitPrepared,
    Delete,
    Insert,
    LogicalMessage,
    Origin,
    PgOutputMessage,
    Prepare,
    Relation,
    RollbackPrepared,
    StreamAbort,
    StreamCommit,
    StreamPrepare,
    StreamStart,
    StreamStop,
    Truncate,
    TupleData,
    TupleValue,
    Type,
    Update,
)
from connectors.postgres.protocol.toast import UNCHANGED_TOAST

__all__ = [
    "Begin",
    "BeginPrepare",
    "Column",
    "Commit",
    "CommitPrepared",
    "Delete",
    "Insert",
    "LogicalMessage",
    "Origin",
    "PgOutputDecoder",
    "PgOutputMessage",
    "Prepare",
    "Relation",
    "RollbackPrepared",
    "StreamAbort",
    "StreamCommit",
    "StreamPrepare",
    "StreamStart",
    "StreamStop",
    "Truncate",
    "TupleData",
    "TupleValue",
    "Type",
    "Update",
]


_H: Final = struct.Struct("!h")
_I: Final = struct.Struct("!I")
_II: Final = struct.Struct("!II")
_IB: Final = struct.Struct("!IB")
_BEGIN: Final = struct.Struct("!QqI")
_COMMIT: Final = struct.Struct("!BQQq")
_STREAM_COMMIT: Final = struct.Struct("!IBQQq")
_QQ: Final = struct.Struct("!Qq")
_Q: Final = struct.Struct("!Q")
_BQ: Final = struct.Struct("!BQ")
_COLUMN_TAIL: Final = struct.Struct("!Ii")
_IIB: Final = struct.Struct("!IIB")
_BEGIN_PREPARE: Final = struct.Struct("!QQqI")
_PREPARE: Final = struct.Struct("!BQQqI")
_ROLLBACK_PREPARED: Final = struct.Struct("!BQQqqI")

_KIND_TEXT: Final = 0x74  # 't'
_KIND_NULL: Final = 0x6E  # 'n'
_KIND_UNCHANGED: Final = 0x75  # 'u'
_KIND_BINARY: Final = 0x62  # 'b'
_NEW: Final = 0x4E  # 'N'
_KEY: Final = 0x4B  # 'K'
_OLD: Final = 0x4F  # 'O'


_STREAM_STOP: Final = StreamStop()

# -- decoding ---------------------------------------------------------------------------------------


def _tuple_data_py(buf: bytes, pos: int, size: int) -> tuple[TupleData, int]:
    """Decode a TupleData at ``pos``; returns the values and the position after them.

    The reference for the C parser (`_tupledata.c`, the same values and errors), used where it is not built.
    """
    (ncols,) = _H.unpack_from(buf, pos)
    if ncols < 0:
        raise DataError(f"negative column count {ncols} in TupleData")
    pos += 2
    values: list[TupleValue] = []
    append = values.append
    unpack_len = _I.unpack_from
    for _ in range(ncols):
        kind = buf[pos]
        if kind == _KIND_TEXT:
            (length,) = unpack_len(buf, pos + 1)
            pos += 5
            end = pos + length
            if end > size:
                raise DataError(f"text value of {length} bytes runs past the end of the message")
            append(buf[pos:end].decode("utf-8"))
            pos = end
        elif kind == _KIND_NULL:
            append(None)
            pos += 1
        elif kind == _KIND_UNCHANGED:
            append(UNCHANGED_TOAST)
            pos += 1
        elif kind == _KIND_BINARY:
            (length,) = unpack_len(buf, pos + 1)
            pos += 5
            end = pos + length
            if end > size:
                raise DataError(f"binary value of {length} bytes runs past the end of the message")
            append(buf[pos:end])
            pos = end
        else:
            raise DataError(f"unknown TupleData kind {kind:#04x}")
    return tuple(values), pos


def _load_tuple_data() -> Callable[[bytes, int, int], tuple[TupleData, int]]:
    """The TupleData parser: the C one built from _tupledata.c by `pip install`, else the Python reference."""
    try:
        module = importlib.import_module("connectors.postgres.protocol._tupledata")
    except ImportError:  # pragma: no cover - built without a C compiler
        return _tuple_data_py
    parse: Callable[[bytes, int, int], tuple[TupleData, int]] = functools.partial(
        module.tuple_data, UNCHANGED_TOAST, DataError
    )
    return parse


_tuple_data: Final = _load_tuple_data()


@functools.cache
def _load_row_change() -> Callable[[bytes, bool], PgOutputMessage | None] | None:
    """Whole Insert/Update/Delete messages in C (None for anything else or anything malformed, which the Python
    decoder then handles), or None where the extension is not built. The extension is told the message classes
    once, when the first decoder is made (not at import)."""
    try:
        module = importlib.import_module("connectors.postgres.protocol._tupledata")
    except ImportError:  # pragma: no cover - built without a C compiler
        return None
    module.init(UNCHANGED_TOAST, Insert, Update, Delete)
    row_change: Callable[[bytes, bool], PgOutputMessage | None] = module.row_change
    return row_change


def _cstring(data: bytes, pos: int) -> tuple[str, int]:
    """A NUL-terminated string at ``pos`` (bytes: a memoryview has no ``index``, pitfall 1.4.1)."""
    end = data.index(0, pos)
    return data[pos:end].decode("utf-8"), end + 1


def _expect_end(pos: int, size: int, what: str) -> None:
    if pos != size:
        raise DataError(f"{what} message has {size - pos} unexpected trailing bytes")


class PgOutputDecoder:
    """Decodes the pgoutput messages of one replication stream, in order.

    ``decode(payload)`` takes the XLogData payload (``bytes`` or a ``memoryview``) and returns a frozen
    message; malformed or truncated input raises :class:`DataError`. Values in the returned messages
    never refer to the input buffer.
    """

    __slots__ = ("_in_stream", "_row_change")

    def __init__(self) -> None:
        self._in_stream = False
        self._row_change = _load_row_change()

    @property
    def in_stream(self) -> bool:
        """True between Stream Start and Stream Stop."""
        return self._in_stream

    def decode(self, buf: memoryview | bytes) -> PgOutputMessage:
        # One copy of the payload: slicing and decoding bytes is faster than going through the
        # memoryview libpq hands out, and bytes can be searched for NUL terminators.
        data = buf if type(buf) is bytes else bytes(buf)
        row_change = self._row_change
        if row_change is not None:  # a well-formed row change in one C call (the per-event path)
            change = row_change(data, self._in_stream)
            if change is not None:
                return change
        try:
            return self._decode(data)
        except DataError:
            raise
        except (struct.error, IndexError) as e:
            raise DataError(f"truncated pgoutput message ({len(buf)} bytes, type {_kind_name(buf)})") from e
        except (ValueError, UnicodeDecodeError) as e:  # ValueError: no NUL terminator
            raise DataError(f"malformed pgoutput message (type {_kind_name(buf)}): {e}") from e

    def _decode(self, buf: bytes) -> PgOutputMessage:
        kind = buf[0]
        size = len(buf)
        # Data messages first: they are the hot path.
        if kind == 0x49:  # 'I'
            return self._insert(buf, size)
        if kind == 0x55:  # 'U'
            return self._update(buf, size)
        if kind == 0x44:  # 'D'
            return self._delete(buf, size)
        if kind == 0x42:  # 'B'
            _expect_end(1 + _BEGIN.size, size, "Begin")
            final_lsn, ts, xid = _BEGIN.unpack_from(buf, 1)
            return Begin(Lsn(final_lsn), ts, xid)
        if kind == 0x43:  # 'C'
            _expect_end(1 + _COMMIT.size, size, "Commit")
            flags, commit_lsn, end_lsn, ts = _COMMIT.unpack_from(buf, 1)
            return Commit(flags, Lsn(commit_lsn), Lsn(end_lsn), ts)
        if kind == 0x52:  # 'R'
            return self._relation(buf)
        if kind == 0x59:  # 'Y'
            return self._type(buf)
        if kind == 0x54:  # 'T'
            return self._truncate(buf, size)
        if kind == 0x4D:  # 'M'
            return self._message(buf)
        if kind == 0x4F:  # 'O'
            (lsn,) = _Q.unpack_from(buf, 1)
            name, pos = _cstring(buf, 9)
            _expect_end(pos, size, "Origin")
            return Origin(Lsn(lsn), name)
        if kind == 0x53:  # 'S'
            _expect_end(1 + _IB.size, size, "Stream Start")
            xid, first = _IB.unpack_from(buf, 1)
            self._in_stream = True
            return StreamStart(xid, first == 1)
        if kind == 0x45:  # 'E'
            _expect_end(1, size, "Stream Stop")
            self._in_stream = False
            return _STREAM_STOP
        if kind == 0x63:  # 'c'
            _expect_end(1 + _STREAM_COMMIT.size, size, "Stream Commit")
            xid, flags, commit_lsn, end_lsn, ts = _STREAM_COMMIT.unpack_from(buf, 1)
            return StreamCommit(xid, flags, Lsn(commit_lsn), Lsn(end_lsn), ts)
        if kind == 0x41:  # 'A'
            xid, subxid = _II.unpack_from(buf, 1)
            if size == 9:
                return StreamAbort(xid, subxid)
            _expect_end(9 + _QQ.size, size, "Stream Abort")
            abort_lsn, abort_ts = _QQ.unpack_from(buf, 9)
            return StreamAbort(xid, subxid, Lsn(abort_lsn), abort_ts)
        if kind in _TWO_PHASE:
            return _decode_two_phase(kind, buf)
        raise DataError(f"unknown pgoutput message type {_kind_name(buf)}")

    # -- data messages ----------------------------------------------------------------------------

    def _xid_and_oid(self, buf: bytes) -> tuple[int | None, int, int]:
        """The (xid inside a streamed transaction, relation/type oid, next position) every
        relation-scoped message starts with."""
        if self._in_stream:
            xid, oid = _II.unpack_from(buf, 1)
            return xid, oid, 9
        (oid,) = _I.unpack_from(buf, 1)
        return None, oid, 5

    def _insert(self, buf: bytes, size: int) -> Insert:
        xid, relid, pos = self._xid_and_oid(buf)
        if buf[pos] != _NEW:
            raise DataError(f"Insert: expected 'N' before the new tuple, got {buf[pos]:#04x}")
        new, pos = _tuple_data(buf, pos + 1, size)
        _expect_end(pos, size, "Insert")
        return Insert(xid, relid, new)

    def _update(self, buf: bytes, size: int) -> Update:
        xid, relid, pos = self._xid_and_oid(buf)
        key = old = None
        marker = buf[pos]
        if marker == _KEY:
            key, pos = _tuple_data(buf, pos + 1, size)
            marker = buf[pos]
        elif marker == _OLD:
            old, pos = _tuple_data(buf, pos + 1, size)
            marker = buf[pos]
        if marker != _NEW:
            raise DataError(f"Update: expected 'N' before the new tuple, got {marker:#04x}")
        new, pos = _tuple_data(buf, pos + 1, size)
        _expect_end(pos, size, "Update")
        return Update(xid, relid, key, old, new)

    def _delete(self, buf: bytes, size: int) -> Delete:
        xid, relid, pos = self._xid_and_oid(buf)
        marker = buf[pos]
        tup, end = _tuple_data(buf, pos + 1, size)
        _expect_end(end, size, "Delete")
        if marker == _KEY:
            return Delete(xid, relid, tup, None)
        if marker == _OLD:
            return Delete(xid, relid, None, tup)
        raise DataError(f"Delete: expected 'K' or 'O' before the old tuple, got {marker:#04x}")

    def _truncate(self, buf: bytes, size: int) -> Truncate:
        xid: int | None
        if self._in_stream:
            xid, nrels, options = _IIB.unpack_from(buf, 1)
            pos = 10
        else:
            xid = None
            nrels, options = _IB.unpack_from(buf, 1)
            pos = 6
        if size != pos + 4 * nrels:
            raise DataError(f"Truncate: {nrels} relations need {4 * nrels} bytes, got {size - pos}")
        relids = struct.unpack_from(f"!{nrels}I", buf, pos)
        return Truncate(xid, options, relids)

    # -- messages with NUL-terminated strings ------------------------------------------------------

    def _relation(self, data: bytes) -> Relation:
        xid, relid, pos = self._xid_and_oid(data)
        namespace, pos = _cstring(data, pos)
        name, pos = _cstring(data, pos)
        replident = chr(data[pos])
        (ncols,) = _H.unpack_from(data, pos + 1)
        pos += 3
        columns = []
        for _ in range(ncols):
            flags = data[pos]
            colname, pos = _cstring(data, pos + 1)
            type_oid, typmod = _COLUMN_TAIL.unpack_from(data, pos)
            pos += 8
            columns.append(Column(flags, colname, type_oid, typmod))
        _expect_end(pos, len(data), "Relation")
        return Relation(xid, relid, namespace, name, replident, tuple(columns))

    def _type(self, data: bytes) -> Type:
        xid, oid, pos = self._xid_and_oid(data)
        namespace, pos = _cstring(data, pos)
        name, pos = _cstring(data, pos)
        _expect_end(pos, len(data), "Type")
        return Type(xid, oid, namespace, name)

    def _message(self, data: bytes) -> LogicalMessage:
        xid: int | None
        if self._in_stream:
            (xid,) = _I.unpack_from(data, 1)
            pos = 5
        else:
            xid = None
            pos = 1
        flags, lsn = _BQ.unpack_from(data, pos)
        prefix, pos = _cstring(data, pos + 9)
        (length,) = _I.unpack_from(data, pos)
        pos += 4
        _expect_end(pos + length, len(data), "Message")
        return LogicalMessage(xid, bool(flags & 1), Lsn(lsn), prefix, data[pos : pos + length])


_TWO_PHASE: Final = frozenset({0x62, 0x50, 0x4B, 0x72, 0x70})  # b P K r p


def _decode_two_phase(kind: int, data: bytes) -> PgOutputMessage:
    if kind == 0x62:  # 'b'
        prepare_lsn, end_lsn, ts, xid = _BEGIN_PREPARE.unpack_from(data, 1)
        gid, pos = _cstring(data, 1 + _BEGIN_PREPARE.size)
        _expect_end(pos, len(data), "Begin Prepare")
        return BeginPrepare(Lsn(prepare_lsn), Lsn(end_lsn), ts, xid, gid)
    if kind == 0x72:  # 'r'
        flags, prep_end, rb_end, prep_ts, rb_ts, xid = _ROLLBACK_PREPARED.unpack_from(data, 1)
        gid, pos = _cstring(data, 1 + _ROLLBACK_PREPARED.size)
        _expect_end(pos, len(data), "Rollback Prepared")
        return RollbackPrepared(flags, Lsn(prep_end), Lsn(rb_end), prep_ts, rb_ts, xid, gid)
    flags, lsn, end_lsn, ts, xid = _PREPARE.unpack_from(data, 1)
    gid, pos = _cstring(data, 1 + _PREPARE.size)
    _expect_end(pos, len(data), "two-phase")
    if kind == 0x50:  # 'P'
        return Prepare(flags, Lsn(lsn), Lsn(end_lsn), ts, xid, gid)
    if kind == 0x4B:  # 'K'
        return CommitPrepared(flags, Lsn(lsn), Lsn(end_lsn), ts, xid, gid)
    return StreamPrepare(flags, Lsn(lsn), Lsn(end_lsn), ts, xid, gid)


def _kind_name(buf: memoryview | bytes) -> str:
    if not buf:
        return "<empty>"
    kind = buf[0]
    return repr(chr(kind)) if 0x20 <= kind < 0x7F else f"{kind:#04x}"
