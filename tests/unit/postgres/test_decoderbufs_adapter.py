"""The decoderbufs adapter: typed datums → PostgreSQL text, RowMessages → pgoutput messages (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from connectors.postgres.decoderbufs_adapter import (
    DecoderbufsAdapter,
    float4_text,
    float8_text,
    parse_qualified_name,
    text_value,
    unquote_identifier,
)
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol import decoderbufs as dbufs
from connectors.postgres.protocol import pgoutput as pg
from connectors.postgres.protocol.copy_both import PG_EPOCH_OFFSET_US
from connectors.postgres.protocol.toast import UNCHANGED_TOAST
from connectors.relational.table import TableId

# (type OID, datum as decoderbufs 2.1.2 sends it, what PostgreSQL 15 prints) — captured from the real server
CASES = [
    (21, -32768, "-32768"),
    (20, -9223372036854775808, "-9223372036854775808"),
    (26, 4294967295, "4294967295"),
    (700, 1.100000023841858, "1.1"),
    (700, 3.4028234663852886e38, "3.4028235e+38"),
    (700, 1.0000000116860974e-07, "1e-07"),
    (700, 100000.0, "100000"),
    (700, 1000000.0, "1e+06"),
    (700, 16777216.0, "1.6777216e+07"),
    (700, -2747983872.0, "-2.7479839e+09"),  # on a rounding boundary: PostgreSQL prints one digit more
    (700, float("nan"), "NaN"),
    (700, -0.0, "-0"),
    (701, 0.1, "0.1"),
    (701, 1e15, "1e+15"),
    (701, 1e14, "100000000000000"),
    (701, 1e-05, "1e-05"),
    (701, 0.0001, "0.0001"),
    (701, 3.092535278770144e18, "3.0925352787701443e+18"),
    (701, float("-inf"), "-Infinity"),
    (790, -123456, "-$1,234.56"),
    (790, 1, "$0.01"),
    (16, True, "t"),
    (16, False, "f"),
    (1114, 1709210096789000, "2024-02-29 12:34:56.789"),
    (1114, -62135596799877000, "0001-01-01 00:00:00.123"),
    (1114, -210863520000000000, "4713-01-01 00:00:00 BC"),
    (1114, -9222426057709551617, "294276-12-31 23:59:59.999999"),  # the epoch shift wrapped around 2^63
    (1114, 9223372036854775807, "infinity"),
    (1184, -9223372036854775808, "-infinity"),
    (1184, 1717183923000004, "2024-05-31 19:32:03.000004+00"),
    (1184, -2208988800000000, "1900-01-01 00:00:00+00"),
    (1082, 19782, "2024-02-29"),
    (1082, -719528, "0001-01-01 BC"),
    (1082, 2145042905, "5874897-12-31"),
    (1082, -2147472692, "infinity"),
    (1082, -2147472691, "-infinity"),
    (1083, 86399999999, "23:59:59.999999"),
    (1083, 86400000000, "24:00:00"),
    (1083, 0, "00:00:00"),
    (1266, 102600500000.0, "04:30:00.5+00"),  # 23:30:00.5-05 as UTC: the offset is not sent
    (1266, -50400000000.0, "10:00:00+00"),  # 00:00:00+14
    (17, b"\x00\xff\x10", "\\x00ff10"),
    (869, b"192.168.0.1/24", "192.168.0.1/24"),
    (1007, b"{1,NULL,3}", "{1,NULL,3}"),
    (1700, "-12.30", "-12.30"),
    (1042, "ab ", "ab "),
    (1186, "1 year 2 mons 3 days 04:05:06.789", "1 year 2 mons 3 days 04:05:06.789"),
    (600, dbufs.Point(1.5, -2.25), "(1.5,-2.25)"),
    (600, dbufs.Point(0.0, 1e20), "(0,1e+20)"),
]


@pytest.mark.parametrize(("oid", "datum", "text"), CASES)
def test_text_value(oid: int, datum: Any, text: str) -> None:
    assert text_value(dbufs.Datum("c", oid, datum)) == text


def test_null_and_unchanged_toast() -> None:
    assert text_value(dbufs.Datum("c", 25, None)) is None
    assert text_value(dbufs.Datum("c", 25, UNCHANGED_TOAST)) is UNCHANGED_TOAST


def test_float_texts_read_back() -> None:
    for v in (1.1, 2.5e-310, 123.456, 1.7976931348623157e308):
        assert float(float8_text(v)) == v
    assert float4_text(1e-45) == "1e-45"


def test_names() -> None:
    assert unquote_identifier('"Id"') == "Id"
    assert unquote_identifier('"a ""b"""') == 'a "b"'
    assert unquote_identifier("plain") == "plain"
    assert parse_qualified_name("public.t") == TableId("public", "t")
    assert parse_qualified_name('dbx."Odd ""T"') == TableId("dbx", 'Odd "T')
    assert parse_qualified_name('"a.b"."c.d"') == TableId("a.b", "c.d")


# -- messages -------------------------------------------------------------------------------------------------

T = "s.t"


def _d(name: str, value: Any, oid: int = 23) -> dbufs.Datum:
    return dbufs.Datum(name, oid, value)


def _row(op: dbufs.Op, new: tuple[dbufs.Datum, ...] = (), old: tuple[dbufs.Datum, ...] = (), table: str = T) -> Any:
    return dbufs.RowChange(op, 9, 1_000_000 + PG_EPOCH_OFFSET_US, table, new, old, ())


def _adapter(identity: tuple[str, ...] | None = ("id",), captured: bool = True) -> DecoderbufsAdapter:
    return DecoderbufsAdapter(captured=lambda _t: captured, identity_columns=lambda _t: identity)


def _frames(*msgs: Any) -> list[tuple[Lsn, Any]]:
    return [(Lsn(100 + i), m) for i, m in enumerate(msgs)]


def test_a_transaction_becomes_begin_relation_change_commit() -> None:
    begin = dbufs.TxBegin(9, 1_000_000 + PG_EPOCH_OFFSET_US)
    commit = dbufs.TxCommit(9, 1_000_000 + PG_EPOCH_OFFSET_US)
    ins = _row(dbufs.Op.INSERT, (_d("id", 1), _d('"Name"', "x", 25)))
    out = _adapter().adapt(_frames(begin, ins, ins, commit))
    assert [type(m).__name__ for _, m in out] == ["Begin", "Relation", "Insert", "Insert", "Commit"]
    (b_lsn, b), (r_lsn, rel), (_, i1), _, (c_lsn, c) = out
    assert b == pg.Begin(Lsn(0), 1_000_000, 9)
    assert (b_lsn, r_lsn) == (Lsn(100), Lsn(101))  # the BEGIN at its own LSN (Debezium's txId:lsn takes it)
    assert rel.namespace == "s" and rel.name == "t"
    assert [(col.name, col.type_oid, col.is_key) for col in rel.columns] == [("id", 23, True), ("Name", 25, False)]
    assert i1 == pg.Insert(None, rel.relation_id, ("1", "x"))
    assert c == pg.Commit(0, Lsn(103), Lsn(103), 1_000_000) and c_lsn == Lsn(103)


def test_a_transaction_without_a_captured_change_keeps_its_begin_and_commit() -> None:
    """pgoutput sends nothing for it; decoderbufs sends BEGIN/COMMIT, and Debezium's decoderbufs path emits its
    transaction metadata (event_count 0) and takes the COMMIT as its commit position: both are handed on."""
    adapter = _adapter(captured=False)
    begin = dbufs.TxBegin(9, 0)
    at = 2_000_000 + PG_EPOCH_OFFSET_US
    out = adapter.adapt(_frames(begin, _row(dbufs.Op.INSERT, (_d("id", 1),)), dbufs.TxCommit(9, at)))
    assert out == [
        (Lsn(100), pg.Begin(Lsn(0), -PG_EPOCH_OFFSET_US, 9)),
        (Lsn(102), pg.Commit(0, Lsn(102), Lsn(102), 2_000_000)),
    ]
    assert adapter.dropped == 1


def test_a_relation_again_when_the_columns_change_with_the_same_id() -> None:
    adapter = _adapter()
    out = adapter.adapt(
        _frames(
            dbufs.TxBegin(9, 0),
            _row(dbufs.Op.INSERT, (_d("id", 1),)),
            _row(dbufs.Op.INSERT, (_d("id", 2), _d("v", 3))),
            _row(dbufs.Op.INSERT, (_d("id", 2), _d("v", 3))),
            _row(dbufs.Op.INSERT, (_d("id", 1),), table="s.u"),
        )
    )
    relations = [m for _, m in out if isinstance(m, pg.Relation)]
    assert [len(r.columns) for r in relations] == [1, 2, 1]
    assert relations[0].relation_id == relations[1].relation_id != relations[2].relation_id


def test_old_tuples_key_or_whole_row() -> None:
    adapter = _adapter()
    new = (_d("id", 2), _d("v", 5))
    key_only = (_d("id", 1), _d("v", None))
    whole = (_d("id", 1), _d("v", 4))
    out = [m for _, m in adapter.adapt(_frames(dbufs.TxBegin(9, 0), _row(dbufs.Op.UPDATE, new, key_only)))]
    assert out[-1] == pg.Update(None, 1, ("1", None), None, ("2", "5"))
    out = [m for _, m in adapter.adapt(_frames(_row(dbufs.Op.UPDATE, new, whole), _row(dbufs.Op.DELETE, (), whole)))]
    assert out == [pg.Update(None, 1, None, ("1", "4"), ("2", "5")), pg.Delete(None, 1, None, ("1", "4"))]
    out = [m for _, m in adapter.adapt(_frames(_row(dbufs.Op.DELETE, (), key_only)))]
    assert out == [pg.Delete(None, 1, ("1", None), None)]
    # REPLICA IDENTITY FULL (no identity columns): always the whole row
    full = _adapter(identity=None)
    out = [m for _, m in full.adapt(_frames(dbufs.TxBegin(9, 0), _row(dbufs.Op.DELETE, (), key_only)))]
    assert out[-1] == pg.Delete(None, 1, None, ("1", None))


def test_changes_without_any_tuple_are_dropped() -> None:
    # a table without a replica identity: decoderbufs sends UPDATE/DELETE with neither tuple
    adapter = _adapter(identity=())
    out = adapter.adapt(_frames(_row(dbufs.Op.UPDATE), _row(dbufs.Op.DELETE)))
    assert out == [] and adapter.dropped == 2
