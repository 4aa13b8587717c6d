"""decoderbufs decoder: RowMessage frames encoded by hand (protobuf wire format) and captured from PG 15."""

from __future__ import annotations

import struct

import pytest

from connect_worker.api.errors import DataError
from connectors.postgres.protocol.decoderbufs import (
    Datum,
    Op,
    Point,
    RowChange,
    TxBegin,
    TxCommit,
    TypeInfo,
    decode_row_message,
)
from connectors.postgres.protocol.toast import UNCHANGED_TOAST

# -- a minimal protobuf writer: tag = field << 3 | wire type ---------------------------------------------


def varint(v: int) -> bytes:
    if v < 0:
        v += 1 << 64
    out = bytearray()
    while True:
        b = v & 0x7F
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def f_varint(field: int, v: int) -> bytes:
    return varint(field << 3 | 0) + varint(v)


def f_bytes(field: int, v: bytes) -> bytes:
    return varint(field << 3 | 2) + varint(len(v)) + v


def f_str(field: int, v: str) -> bytes:
    return f_bytes(field, v.encode())


def f_double(field: int, v: float) -> bytes:
    return varint(field << 3 | 1) + struct.pack("<d", v)


def f_float(field: int, v: float) -> bytes:
    return varint(field << 3 | 5) + struct.pack("<f", v)


def datum(name: str, oid: int, value: bytes = b"") -> bytes:
    return f_bytes(5, f_str(1, name) + f_varint(2, oid) + value)


def old_datum(name: str, oid: int, value: bytes = b"") -> bytes:
    return f_bytes(6, f_str(1, name) + f_varint(2, oid) + value)


def typeinfo(modifier: str, optional: bool) -> bytes:
    return f_bytes(7, f_str(1, modifier) + f_varint(2, int(optional)))


XID = 752
COMMIT_TIME = 1_795_308_237_017_155
HEAD = f_varint(1, XID) + f_varint(2, COMMIT_TIME)


def test_begin_and_commit_captured_from_postgres() -> None:
    assert decode_row_message(bytes.fromhex("08f00510c3a0ebadac9a98032003")) == TxBegin(XID, COMMIT_TIME)
    assert decode_row_message(memoryview(bytes.fromhex("08f00510c3a0ebadac9a98032004"))) == TxCommit(XID, COMMIT_TIME)


def test_insert_with_every_datum_kind() -> None:
    raw = (
        HEAD
        + f_str(3, "public.t")
        + f_varint(4, 0)
        + datum("i4", 23, f_varint(3, 1))
        + datum("neg", 23, f_varint(3, -5))
        + datum("i8", 20, f_varint(4, 1 << 40))
        + datum("f4", 700, f_float(5, 1.5))
        + datum("f8", 701, f_double(6, 2.5))
        + datum("b", 16, f_varint(7, 1))
        + datum("s", 25, f_str(8, "héllo"))
        + datum("by", 17, f_bytes(9, b"\x01\x02"))
        + datum("p", 600, f_bytes(10, f_double(1, 1.0) + f_double(2, 2.0)))
        + datum("nul", 25)
        + typeinfo("integer", False)
        + typeinfo("text", True)
    )
    msg = decode_row_message(raw)
    assert isinstance(msg, RowChange)
    assert msg.op is Op.INSERT and msg.xid == XID and msg.commit_time == COMMIT_TIME and msg.table == "public.t"
    assert msg.new_tuple == (
        Datum("i4", 23, 1),
        Datum("neg", 23, -5),
        Datum("i8", 20, 1 << 40),
        Datum("f4", 700, 1.5),
        Datum("f8", 701, 2.5),
        Datum("b", 16, True),
        Datum("s", 25, "héllo"),
        Datum("by", 17, b"\x01\x02"),
        Datum("p", 600, Point(1.0, 2.0)),
        Datum("nul", 25, None),
    )
    assert msg.old_tuple == ()
    assert msg.new_typeinfo == (TypeInfo("integer", False), TypeInfo("text", True))


def test_update_with_unchanged_toast_and_old_tuple() -> None:
    raw = (
        HEAD
        + f_str(3, "public.t")
        + f_varint(4, 1)
        + datum("id", 23, f_varint(3, 1))
        + datum("big", 25, f_varint(11, 1))
        + old_datum("id", 23, f_varint(3, 1))
    )
    msg = decode_row_message(raw)
    assert isinstance(msg, RowChange) and msg.op is Op.UPDATE
    assert msg.new_tuple[1].value is UNCHANGED_TOAST
    assert msg.old_tuple == (Datum("id", 23, 1),)


def test_delete() -> None:
    raw = HEAD + f_str(3, '"S"."T"') + f_varint(4, 2) + old_datum("id", 23, f_varint(3, 7)) + old_datum("t", 25)
    msg = decode_row_message(raw)
    assert isinstance(msg, RowChange)
    assert msg.op is Op.DELETE and msg.table == '"S"."T"'
    assert msg.old_tuple == (Datum("id", 23, 7), Datum("t", 25, None))
    assert msg.new_tuple == ()


@pytest.mark.parametrize(
    "raw",
    [
        HEAD + f_str(3, "public.t"),  # no op
        HEAD + f_varint(4, -1),  # UNKNOWN
        b"\x08",  # truncated varint field
        b"\x08\xff",  # varint without its end
        f_bytes(5, b"\x0a\x10abc"),  # nested length runs past the end
        b"\x0f\x00",  # wire type 7 does not exist
        HEAD + f_varint(4, 0) + typeinfo("integer", False)[:-2],  # truncated nested message
    ],
)
def test_malformed_frames_raise_data_error(raw: bytes) -> None:
    with pytest.raises(DataError):
        decode_row_message(raw)
