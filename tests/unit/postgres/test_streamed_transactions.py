"""StreamedTransactions: streamed blocks reassembled into whole transactions in commit order (pure)."""

from __future__ import annotations

from typing import Any

from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol import pgoutput as pg
from connectors.postgres.streamed_transactions import StreamedTransactions


def ins(xid: int | None, n: int) -> pg.Insert:
    return pg.Insert(xid, 16384, (str(n),))


def flat(out: Any) -> list[tuple[int, Any]]:
    return [(int(lsn), m) for chunk in out for lsn, m in chunk]


def test_interleaved_streamed_transaction_comes_out_whole_at_its_commit_with_aborted_subxact_dropped() -> None:
    rel = pg.Relation(7, 16384, "public", "t", "d", ())
    s = StreamedTransactions(chunk_size=2)  # spills to disk every two messages
    first = flat(
        s.feed(
            [
                (Lsn(100), pg.StreamStart(7, True)),
                (Lsn(101), rel),
                (Lsn(101), ins(7, 1)),
                (Lsn(102), ins(8, 2)),  # subtransaction 8
                (Lsn(103), ins(7, 3)),
                (Lsn(0), pg.StreamStop()),
                # another transaction commits while 7 is open: it passes through at once
                (Lsn(200), pg.Begin(Lsn(210), 5, 9)),
                (Lsn(201), ins(None, 4)),
                (Lsn(211), pg.Commit(0, Lsn(210), Lsn(211), 5)),
                (Lsn(104), pg.StreamStart(7, False)),
                (Lsn(104), ins(8, 5)),
                (Lsn(105), ins(7, 6)),
                (Lsn(0), pg.StreamStop()),
            ]
        )
    )
    assert [n for n, _ in first] == [200, 201, 211] and s.open_transactions == 1
    second = flat(s.feed([(Lsn(300), pg.StreamAbort(7, 8)), (Lsn(301), pg.StreamCommit(7, 0, Lsn(300), Lsn(301), 6))]))
    assert second == [
        (100, pg.Begin(Lsn(300), 6, 7)),
        (101, rel),
        (101, ins(7, 1)),
        (103, ins(7, 3)),
        (105, ins(7, 6)),
        (301, pg.Commit(0, Lsn(300), Lsn(301), 6)),
    ]
    assert s.open_transactions == 0 and s.spilled_transactions == 1


def test_aborted_streamed_transaction_emits_nothing_and_close_forgets_open_ones() -> None:
    s = StreamedTransactions(chunk_size=1)
    out = flat(
        s.feed(
            [
                (Lsn(10), pg.StreamStart(3, True)),
                (Lsn(11), ins(3, 1)),
                (Lsn(0), pg.StreamStop()),
                (Lsn(12), pg.StreamAbort(3, 3)),
                (Lsn(20), pg.StreamStart(4, True)),
                (Lsn(21), ins(4, 2)),
                (Lsn(0), pg.StreamStop()),
            ]
        )
    )
    assert out == [] and s.open_transactions == 1
    s.close()
    assert s.open_transactions == 0
