"""CopyBoth framing: XLogData, primary keepalive, standby status update, PostgreSQL timestamps."""

from __future__ import annotations

import struct
from datetime import UTC, datetime

import pytest

from connect_worker.api.errors import DataError
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol.copy_both import (
    PG_EPOCH_OFFSET_US,
    PrimaryKeepalive,
    XLogData,
    decode_keepalive,
    decode_server_message,
    decode_xlog_data,
    encode_standby_status_update,
    pg_time_to_datetime,
    pg_time_to_unix_us,
    unix_us_to_pg_time,
)


def xlog(start: int, end: int, ts: int, payload: bytes) -> bytes:
    return b"w" + struct.pack("!QQq", start, end, ts) + payload


def test_xlog_data_from_bytes_and_memoryview() -> None:
    raw = xlog(0x15413B0, 0x1541540, 848623740579260, b"Bpayload")
    for buf in (raw, memoryview(raw)):  # get_copy_data() returns a memoryview (pitfall 1.4.1)
        msg = decode_server_message(buf)
        assert isinstance(msg, XLogData)
        assert msg.wal_start == Lsn.parse("0/15413B0")
        assert msg.wal_end == Lsn.parse("0/1541540")
        assert msg.send_time == 848623740579260
        assert bytes(msg.payload) == b"Bpayload"


def test_xlog_data_with_empty_payload_and_zero_start() -> None:
    msg = decode_xlog_data(xlog(0, 10, 0, b""))
    assert msg.wal_start == Lsn.ZERO and bytes(msg.payload) == b""


def test_keepalive() -> None:
    raw = b"k" + struct.pack("!QqB", 0x1576188, 12345, 1)
    msg = decode_server_message(memoryview(raw))
    assert msg == PrimaryKeepalive(Lsn.parse("0/1576188"), 12345, True)
    assert decode_keepalive(b"k" + struct.pack("!QqB", 1, 2, 0)).reply_requested is False


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"w",
        b"w" + b"\x00" * 23,  # header cut short
        b"k" + b"\x00" * 16,  # keepalive without its reply byte
        b"k" + b"\x00" * 18,  # keepalive too long
        b"x" + b"\x00" * 30,  # unknown type
    ],
)
def test_malformed_messages_raise_data_error(raw: bytes) -> None:
    with pytest.raises(DataError):
        decode_server_message(raw)


def test_standby_status_update_bytes() -> None:
    raw = encode_standby_status_update(
        Lsn.parse("0/1000"), Lsn.parse("0/2000"), Lsn.parse("16/B374D848"), 700_000_000_000_000
    )
    assert len(raw) == 34
    assert raw[0:1] == b"r"
    assert raw[1:9] == bytes.fromhex("0000000000001000")
    assert raw[9:17] == bytes.fromhex("0000000000002000")
    assert raw[17:25] == bytes.fromhex("00000016B374D848")
    assert struct.unpack("!q", raw[25:33]) == (700_000_000_000_000,)
    assert raw[33] == 0
    assert encode_standby_status_update(Lsn.ZERO, Lsn.ZERO, Lsn.ZERO, 0, reply_requested=True)[33] == 1


def test_timestamps_are_microseconds_since_2000() -> None:
    epoch_2000_us = int(datetime(2000, 1, 1, tzinfo=UTC).timestamp()) * 1_000_000
    assert epoch_2000_us == PG_EPOCH_OFFSET_US
    assert pg_time_to_datetime(0) == datetime(2000, 1, 1, tzinfo=UTC)
    assert pg_time_to_datetime(86_400_000_001) == datetime(2000, 1, 2, 0, 0, 0, 1, tzinfo=UTC)
    unix_us = 1_795_308_237_017_155
    assert pg_time_to_unix_us(unix_us_to_pg_time(unix_us)) == unix_us
    assert unix_us_to_pg_time(PG_EPOCH_OFFSET_US) == 0
    assert pg_time_to_datetime(-1) == datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)
