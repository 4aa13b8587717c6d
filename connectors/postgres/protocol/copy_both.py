"""The CopyBoth framing of the streaming replication protocol (pure: bytes in, values out).

Server → client CopyData payloads start with a type byte:

* ``'w'`` XLogData: ``Int64 wal_start, Int64 wal_end, Int64 send_time`` then the plug-in's bytes.
* ``'k'`` primary keepalive: ``Int64 wal_end, Int64 send_time, Byte1 reply_requested``.

Client → server: ``'r'`` standby status update: ``Int64 written, Int64 flushed, Int64 applied,
Int64 client_time, Byte1 reply_requested``.

All integers are big-endian; times are microseconds since 2000-01-01 00:00:00 UTC (PostgreSQL's epoch).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Final

from connect_worker.api.errors import DataError
from connectors.postgres.lsn import Lsn

__all__ = [
    "KEEPALIVE",
    "PG_EPOCH",
    "PG_EPOCH_OFFSET_US",
    "STANDBY_STATUS_UPDATE",
    "XLOG_DATA",
    "XLOG_DATA_HEADER",
    "XLOG_DATA_PAYLOAD_OFFSET",
    "PrimaryKeepalive",
    "XLogData",
    "decode_keepalive",
    "decode_server_message",
    "decode_xlog_data",
    "encode_standby_status_update",
    "pg_time_to_datetime",
    "pg_time_to_unix_us",
    "unix_us_to_pg_time",
]

XLOG_DATA: Final = 0x77  # 'w'
KEEPALIVE: Final = 0x6B  # 'k'
STANDBY_STATUS_UPDATE: Final = 0x72  # 'r'

#: The ``'w'`` header after the type byte: wal_start, wal_end, send_time. Payload starts at offset 25.
XLOG_DATA_HEADER: Final = struct.Struct("!QQq")
XLOG_DATA_PAYLOAD_OFFSET: Final = 1 + XLOG_DATA_HEADER.size
_KEEPALIVE: Final = struct.Struct("!QqB")
_KEEPALIVE_SIZE: Final = 1 + _KEEPALIVE.size
_STATUS: Final = struct.Struct("!cQQQqB")

PG_EPOCH: Final = datetime(2000, 1, 1, tzinfo=UTC)
#: Microseconds between 1970-01-01 and 2000-01-01.
PG_EPOCH_OFFSET_US: Final = 946_684_800_000_000


@dataclass(frozen=True, slots=True)
class XLogData:
    """A chunk of decoded WAL: ``payload`` is one message of the output plug-in."""

    wal_start: Lsn
    wal_end: Lsn
    send_time: int
    payload: memoryview | bytes


@dataclass(frozen=True, slots=True)
class PrimaryKeepalive:
    """The server's heartbeat; ``reply_requested`` asks for a standby status update right away."""

    wal_end: Lsn
    send_time: int
    reply_requested: bool


def decode_xlog_data(buf: memoryview | bytes) -> XLogData:
    """Decode a ``'w'`` message (type byte included); the payload is a zero-copy slice of ``buf``."""
    if len(buf) < XLOG_DATA_PAYLOAD_OFFSET or buf[0] != XLOG_DATA:
        raise DataError(f"not an XLogData message ({len(buf)} bytes)")
    start, end, ts = XLOG_DATA_HEADER.unpack_from(buf, 1)
    return XLogData(Lsn(start), Lsn(end), ts, buf[XLOG_DATA_PAYLOAD_OFFSET:])


def decode_keepalive(buf: memoryview | bytes) -> PrimaryKeepalive:
    """Decode a ``'k'`` message (type byte included)."""
    if len(buf) != _KEEPALIVE_SIZE or buf[0] != KEEPALIVE:
        raise DataError(f"not a primary keepalive message ({len(buf)} bytes)")
    end, ts, reply = _KEEPALIVE.unpack_from(buf, 1)
    return PrimaryKeepalive(Lsn(end), ts, reply != 0)


def decode_server_message(buf: memoryview | bytes) -> XLogData | PrimaryKeepalive:
    """Decode any server → client CopyData message of the replication protocol."""
    if not buf:
        raise DataError("empty CopyData message")
    kind = buf[0]
    if kind == XLOG_DATA:
        return decode_xlog_data(buf)
    if kind == KEEPALIVE:
        return decode_keepalive(buf)
    raise DataError(f"unknown replication message type {kind:#04x}")


def encode_standby_status_update(
    written: Lsn, flushed: Lsn, applied: Lsn, client_time: int, *, reply_requested: bool = False
) -> bytes:
    """The ``'r'`` message; ``client_time`` is µs since 2000-01-01 (see :func:`unix_us_to_pg_time`)."""
    return _STATUS.pack(b"r", written.value, flushed.value, applied.value, client_time, 1 if reply_requested else 0)


def unix_us_to_pg_time(unix_us: int) -> int:
    """Microseconds since 1970-01-01 → microseconds since 2000-01-01."""
    return unix_us - PG_EPOCH_OFFSET_US


def pg_time_to_unix_us(pg_us: int) -> int:
    """Microseconds since 2000-01-01 → microseconds since 1970-01-01 (Debezium's ``ts_usec``)."""
    return pg_us + PG_EPOCH_OFFSET_US


def pg_time_to_datetime(pg_us: int) -> datetime:
    """Microseconds since 2000-01-01 → an aware UTC datetime."""
    return PG_EPOCH + timedelta(microseconds=pg_us)
