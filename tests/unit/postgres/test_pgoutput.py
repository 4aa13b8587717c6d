"""pgoutput decoder: every message of protocols 1-4, built byte by byte from the documented formats."""

from __future__ import annotations

import struct
from typing import Any

import pytest

from connect_worker.api.errors import DataError
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol.pgoutput import (
    Begin,
    BeginPrepare,
    Column,
    Commit,
    CommitPrepared,
    Delete,
    Insert,
    LogicalMessage,
    Origin,
    PgOutputDecoder,
    Prepare,
    Relation,
    RollbackPrepared,
    StreamAbort,
    StreamCommit,
    StreamPrepare,
    StreamStart,
    StreamStop,
    Truncate,
    Type,
    Update,
)
from connectors.postgres.protocol.toast import UNCHANGED_TOAST, UnchangedToast

# -- byte builders (Int8/16/32/64 big-endian, String = NUL-terminated) ----------------------------------


def i8(v: int) -> bytes:
    return struct.pack("!B", v)


def i16(v: int) -> bytes:
    return struct.pack("!h", v)


def i32(v: int) -> bytes:
    return struct.pack("!I", v)


def i64(v: int) -> bytes:
    return struct.pack("!q", v) if v < 0 else struct.pack("!Q", v)


def cstr(s: str) -> bytes:
    return s.encode() + b"\x00"


def tuple_data(*values: Any) -> bytes:
    out = i16(len(values))
    for v in values:
        if v is None:
            out += b"n"
        elif v is UNCHANGED_TOAST:
            out += b"u"
        elif isinstance(v, bytes):
            out += b"b" + i32(len(v)) + v
        else:
            raw = v.encode()
            out += b"t" + i32(len(raw)) + raw
    return out


LSN1 = 0x16_B374D848
LSN2 = 0x16_B374D900
TS = 848_623_740_579_260


def decode(raw: bytes, decoder: PgOutputDecoder | None = None) -> Any:
    d = decoder or PgOutputDecoder()
    first = d.decode(raw)
    assert PgOutputDecoder().decode(memoryview(raw)) == first or d.in_stream  # memoryview input works too
    return first


def streaming_decoder(xid: int = 741) -> PgOutputDecoder:
    d = PgOutputDecoder()
    assert d.decode(b"S" + i32(xid) + i8(1)) == StreamStart(xid, True)
    assert d.in_stream
    return d


# -- transaction framing ---------------------------------------------------------------------------------


def test_begin() -> None:
    msg = decode(b"B" + i64(LSN1) + i64(TS) + i32(736))
    assert msg == Begin(Lsn(LSN1), TS, 736)


def test_commit() -> None:
    msg = decode(b"C" + i8(0) + i64(LSN1) + i64(LSN2) + i64(TS))
    assert msg == Commit(0, Lsn(LSN1), Lsn(LSN2), TS)


def test_origin() -> None:
    assert decode(b"O" + i64(LSN1) + cstr("node_a")) == Origin(Lsn(LSN1), "node_a")


# -- schema messages -------------------------------------------------------------------------------------


def relation_bytes(xid: int | None = None) -> bytes:
    return (
        b"R"
        + (i32(xid) if xid is not None else b"")
        + i32(16388)
        + cstr("public")
        + cstr("t")
        + b"f"
        + i16(3)
        + i8(1)
        + cstr("id")
        + i32(23)
        + struct.pack("!i", -1)
        + i8(0)
        + cstr("name")
        + i32(1043)
        + struct.pack("!i", 259)
        + i8(0)
        + cstr("payload")
        + i32(3802)
        + struct.pack("!i", -1)
    )


def test_relation() -> None:
    msg = decode(relation_bytes())
    assert msg == Relation(
        None,
        16388,
        "public",
        "t",
        "f",
        (Column(1, "id", 23, -1), Column(0, "name", 1043, 259), Column(0, "payload", 3802, -1)),
    )
    assert [c.is_key for c in msg.columns] == [True, False, False]


def test_relation_in_pg_catalog_has_empty_namespace_and_unicode_names() -> None:
    raw = b"R" + i32(1) + cstr("") + cstr("tâble") + b"d" + i16(1) + i8(1) + cstr("ïd") + i32(23) + i32(0)
    msg = decode(raw)
    assert msg.namespace == "" and msg.name == "tâble" and msg.columns[0].name == "ïd"


def test_type() -> None:
    assert decode(b"Y" + i32(16400) + cstr("public") + cstr("mood")) == Type(None, 16400, "public", "mood")


# -- data messages ---------------------------------------------------------------------------------------


def test_insert_with_every_tuple_kind() -> None:
    raw = b"I" + i32(16388) + b"N" + tuple_data("1", None, UNCHANGED_TOAST, b"\x00\x01", "", "héllo")
    msg = decode(raw)
    assert msg == Insert(None, 16388, ("1", None, UNCHANGED_TOAST, b"\x00\x01", "", "héllo"))
    assert msg.new[2] is UNCHANGED_TOAST
    assert msg.new[2] is not None
    assert isinstance(msg.new[2], UnchangedToast)


def test_unchanged_toast_marker_is_a_singleton() -> None:
    import copy
    import pickle

    assert UnchangedToast() is UNCHANGED_TOAST
    assert copy.deepcopy(UNCHANGED_TOAST) is UNCHANGED_TOAST
    assert pickle.loads(pickle.dumps(UNCHANGED_TOAST)) is UNCHANGED_TOAST
    assert repr(UNCHANGED_TOAST) == "UNCHANGED_TOAST"


def test_insert_with_zero_columns() -> None:
    assert decode(b"I" + i32(5) + b"N" + i16(0)) == Insert(None, 5, ())


def test_update_without_old_tuple() -> None:
    msg = decode(b"U" + i32(16388) + b"N" + tuple_data("1", "b", UNCHANGED_TOAST))
    assert msg == Update(None, 16388, None, None, ("1", "b", UNCHANGED_TOAST))


def test_update_with_key_tuple() -> None:
    raw = b"U" + i32(16388) + b"K" + tuple_data("1", None, None) + b"N" + tuple_data("2", "b", "c")
    assert decode(raw) == Update(None, 16388, ("1", None, None), None, ("2", "b", "c"))


def test_update_with_old_tuple() -> None:
    raw = b"U" + i32(16388) + b"O" + tuple_data("1", "a", "x") + b"N" + tuple_data("1", "b", "x")
    assert decode(raw) == Update(None, 16388, None, ("1", "a", "x"), ("1", "b", "x"))


def test_delete_with_key_and_with_old() -> None:
    assert decode(b"D" + i32(9) + b"K" + tuple_data("2", None)) == Delete(None, 9, ("2", None), None)
    assert decode(b"D" + i32(9) + b"O" + tuple_data("2", "x")) == Delete(None, 9, None, ("2", "x"))


def test_truncate() -> None:
    msg = decode(b"T" + i32(2) + i8(3) + i32(16396) + i32(16400))
    assert msg == Truncate(None, 3, (16396, 16400))
    assert msg.cascade and msg.restart_identity
    plain = decode(b"T" + i32(1) + i8(0) + i32(1))
    assert not plain.cascade and not plain.restart_identity


def test_messages_transactional_and_not() -> None:
    raw = b"M" + i8(1) + i64(LSN1) + cstr("myprefix") + i32(10) + b"tx-message"
    assert decode(raw) == LogicalMessage(None, True, Lsn(LSN1), "myprefix", b"tx-message")
    raw = b"M" + i8(0) + i64(LSN1) + cstr("nontx") + i32(0)
    assert decode(raw) == LogicalMessage(None, False, Lsn(LSN1), "nontx", b"")


# -- protocol 2: streamed transactions -------------------------------------------------------------------


def test_stream_block_data_messages_carry_the_xid() -> None:
    d = streaming_decoder(741)
    relation = d.decode(relation_bytes(741))
    assert isinstance(relation, Relation) and relation.xid == 741
    assert d.decode(b"Y" + i32(741) + i32(16400) + cstr("public") + cstr("mood")) == Type(741, 16400, "public", "mood")
    assert d.decode(b"I" + i32(741) + i32(16388) + b"N" + tuple_data("1")) == Insert(741, 16388, ("1",))
    raw = b"U" + i32(741) + i32(16388) + b"O" + tuple_data("1") + b"N" + tuple_data("2")
    assert d.decode(raw) == Update(741, 16388, None, ("1",), ("2",))
    assert d.decode(b"D" + i32(741) + i32(16388) + b"K" + tuple_data("2")) == Delete(741, 16388, ("2",), None)
    assert d.decode(b"T" + i32(741) + i32(1) + i8(0) + i32(16388)) == Truncate(741, 0, (16388,))
    raw = b"M" + i32(741) + i8(1) + i64(LSN1) + cstr("p") + i32(1) + b"x"
    assert d.decode(raw) == LogicalMessage(741, True, Lsn(LSN1), "p", b"x")
    assert d.decode(b"E") == StreamStop()
    assert not d.in_stream
    # after Stream Stop the xid is gone again
    assert d.decode(b"I" + i32(16388) + b"N" + tuple_data("3")) == Insert(None, 16388, ("3",))
    assert d.decode(b"S" + i32(741) + i8(0)) == StreamStart(741, False)


def test_stream_commit() -> None:
    raw = b"c" + i32(741) + i8(0) + i64(LSN1) + i64(LSN2) + i64(TS)
    assert decode(raw) == StreamCommit(741, 0, Lsn(LSN1), Lsn(LSN2), TS)


def test_stream_abort_protocol_2_and_4() -> None:
    assert decode(b"A" + i32(741) + i32(742)) == StreamAbort(741, 742)
    raw = b"A" + i32(741) + i32(741) + i64(LSN1) + i64(TS)
    assert decode(raw) == StreamAbort(741, 741, Lsn(LSN1), TS)


# -- protocol 3: two-phase commit ------------------------------------------------------------------------


def test_two_phase_messages() -> None:
    raw = b"b" + i64(LSN1) + i64(LSN2) + i64(TS) + i32(5) + cstr("gid1")
    assert decode(raw) == BeginPrepare(Lsn(LSN1), Lsn(LSN2), TS, 5, "gid1")
    tail = i8(0) + i64(LSN1) + i64(LSN2) + i64(TS) + i32(5) + cstr("gid1")
    assert decode(b"P" + tail) == Prepare(0, Lsn(LSN1), Lsn(LSN2), TS, 5, "gid1")
    assert decode(b"K" + tail) == CommitPrepared(0, Lsn(LSN1), Lsn(LSN2), TS, 5, "gid1")
    assert decode(b"p" + tail) == StreamPrepare(0, Lsn(LSN1), Lsn(LSN2), TS, 5, "gid1")
    raw = b"r" + i8(0) + i64(LSN1) + i64(LSN2) + i64(TS) + i64(TS + 1) + i32(5) + cstr("gid1")
    assert decode(raw) == RollbackPrepared(0, Lsn(LSN1), Lsn(LSN2), TS, TS + 1, 5, "gid1")


# -- malformed and truncated input -----------------------------------------------------------------------

GOOD = [
    b"B" + i64(LSN1) + i64(TS) + i32(736),
    b"C" + i8(0) + i64(LSN1) + i64(LSN2) + i64(TS),
    b"O" + i64(LSN1) + cstr("node_a"),
    relation_bytes(),
    b"Y" + i32(16400) + cstr("public") + cstr("mood"),
    b"I" + i32(16388) + b"N" + tuple_data("1", None, UNCHANGED_TOAST, b"\x00"),
    b"U" + i32(16388) + b"K" + tuple_data("1") + b"N" + tuple_data("2", "x"),
    b"U" + i32(16388) + b"O" + tuple_data("1") + b"N" + tuple_data("2", "x"),
    b"D" + i32(9) + b"O" + tuple_data("2", "x"),
    b"T" + i32(2) + i8(0) + i32(1) + i32(2),
    b"M" + i8(1) + i64(LSN1) + cstr("p") + i32(3) + b"abc",
    b"S" + i32(7) + i8(1),
    b"c" + i32(741) + i8(0) + i64(LSN1) + i64(LSN2) + i64(TS),
    b"A" + i32(741) + i32(742),
    b"b" + i64(LSN1) + i64(LSN2) + i64(TS) + i32(5) + cstr("g"),
    b"r" + i8(0) + i64(LSN1) + i64(LSN2) + i64(TS) + i64(TS) + i32(5) + cstr("g"),
]


@pytest.mark.parametrize("raw", GOOD, ids=lambda r: chr(r[0]))
def test_every_truncation_raises_data_error(raw: bytes) -> None:
    PgOutputDecoder().decode(raw)  # the whole message is fine
    for cut in range(len(raw)):
        with pytest.raises(DataError):
            PgOutputDecoder().decode(raw[:cut])


@pytest.mark.parametrize("raw", [r for r in GOOD if r[0] != ord("A")], ids=lambda r: chr(r[0]))
def test_trailing_bytes_raise_data_error(raw: bytes) -> None:
    with pytest.raises(DataError):
        PgOutputDecoder().decode(raw + b"\x00")


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"Z",  # unknown message type
        b"\xff\x00",
        b"I" + i32(1) + b"X" + tuple_data("1"),  # 'N' expected
        b"I" + i32(1) + b"N" + i16(1) + b"q" + i32(1) + b"x",  # unknown tuple kind
        b"I" + i32(1) + b"N" + i16(-1),  # negative column count
        b"I" + i32(1) + b"N" + i16(1) + b"t" + i32(100) + b"short",  # length past the end
        b"I" + i32(1) + b"N" + i16(1) + b"b" + i32(100) + b"short",
        b"I" + i32(1) + b"N" + i16(1) + b"t" + i32(2) + b"\xc3\x28",  # invalid UTF-8
        b"U" + i32(1) + b"K" + tuple_data("1") + b"K" + tuple_data("2"),
        b"D" + i32(1) + b"N" + tuple_data("1"),  # 'K' or 'O' expected
        b"T" + i32(3) + i8(0) + i32(1),  # fewer relids than announced
        b"R" + i32(1) + b"public",  # no NUL terminator
        b"E" + b"x",
        b"A" + i32(1) + i32(2) + i64(3),  # protocol-4 abort cut short
    ],
)
def test_malformed_messages_raise_data_error(raw: bytes) -> None:
    with pytest.raises(DataError):
        PgOutputDecoder().decode(raw)


def test_decoded_values_do_not_refer_to_the_input_buffer() -> None:
    buf = bytearray(b"I" + i32(1) + b"N" + tuple_data("abc", b"xyz"))
    msg = PgOutputDecoder().decode(memoryview(buf))
    buf[:] = b"\x00" * len(buf)
    assert isinstance(msg, Insert) and msg.new == ("abc", b"xyz")
