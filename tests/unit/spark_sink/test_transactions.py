"""Pure tests of the transaction-consistent release rule and of the job's subscription in that mode."""

from __future__ import annotations

from spark_sink.config import SinkConfig, join_path
from spark_sink.decoding.base import ChangeEvent, RawRecord, RowSchema, TxMarker
from spark_sink.job import subscribed_pattern
from spark_sink.position import SourcePosition
from spark_sink.transactions import release_complete
from spark_sink.types.model import INT

SCHEMA = RowSchema((("id", INT),))


def ev(key: int, lsn: int, tx: str | None, *, offset: int, table: str = "s.a", op: str = "c") -> ChangeEvent:
    return ChangeEvent(
        raw=RawRecord(f"p.{table}", 0, offset, None, None),
        op=op,
        key={"id": key},
        row={"id": key},
        schema=SCHEMA,
        position=SourcePosition(0, lsn, 0),
        source_table=table,
        tx_id=tx,
    )


def end(tx: str, commit_lsn: int, counts: dict[str, int], offset: int) -> TxMarker:
    raw = RawRecord("p.transaction", 0, offset, None, None)
    return TxMarker(raw, "END", tx, sum(counts.values()), counts, commit_lsn)


def everything(collection: str) -> bool:
    return True


def keys(events: list[ChangeEvent]) -> list[int]:
    return sorted(int((e.key or {})["id"]) for e in events)


def test_a_duplicate_event_does_not_complete_a_transaction() -> None:
    events = [ev(1, 10, "7", offset=0, table="s.b"), ev(1, 10, "7", offset=1, table="s.b"), ev(2, 11, "7", offset=2)]
    result = release_complete(events, [end("7", 20, {"s.a": 1, "s.b": 2}, 0)], everything)
    assert result.released == [] and len(result.held_events) == 3 and result.released_through is None
    done = release_complete([*events, ev(3, 12, "7", offset=3, table="s.b")], result.held_markers, everything)
    assert keys(done.released) == [1, 1, 2, 3] and done.released_through == 20


def test_events_outside_transactions_and_snapshot_reads_are_released_at_once() -> None:
    result = release_complete([ev(1, 5, None, offset=0), ev(2, 6, "9", offset=1, op="r")], [], everything)
    assert keys(result.released) == [1, 2] and result.held_events == []


def test_a_resent_transaction_is_released_and_never_blocks() -> None:
    # tx 7 (commit 20) was released in an earlier batch; a restarted worker sends its tail and END again
    resent = [ev(2, 11, "7", offset=5)]
    later = [ev(4, 30, "8", offset=6)]
    markers = [end("7", 20, {"s.a": 2}, 3), end("8", 40, {"s.a": 1}, 4)]
    result = release_complete(resent + later, markers, everything, released_through=20)
    assert keys(result.released) == [2, 4] and result.held_markers == [] and result.released_through == 40
    # without the watermark the incomplete copy of tx 7 would hold tx 8 back for ever
    stuck = release_complete(resent + later, markers, everything)
    assert stuck.released == [] and [m.tx_id for m in stuck.held_markers] == ["7", "8"]


def test_two_ends_of_one_held_transaction_count_once() -> None:
    events = [ev(1, 10, "7", offset=0)]
    markers = [end("7", 20, {"s.a": 1}, 0), end("7", 20, {"s.a": 1}, 9)]
    result = release_complete(events, markers, everything)
    assert keys(result.released) == [1] and result.held_markers == []


def test_the_pattern_subscription_includes_the_transaction_topic() -> None:
    base = SinkConfig(topic_pattern=r"db1\.public\..*", transaction_topic="db1.transaction")
    assert subscribed_pattern(base) == r"db1\.public\..*"  # mode off: unchanged
    on = SinkConfig(topic_pattern=r"db1\.public\..*", transaction_topic="db1.transaction", transaction_consistent=True)
    assert subscribed_pattern(on) == r"(?:db1\.public\..*)|db1\.transaction"
    covered = SinkConfig(topic_pattern=r"db1\..*", transaction_topic="db1.transaction", transaction_consistent=True)
    assert subscribed_pattern(covered) == r"db1\..*"


def test_paths_keep_uris_intact() -> None:
    assert join_path("s3a://bucket/wh/", "_cdc_deletes", "t") == "s3a://bucket/wh/_cdc_deletes/t"
    assert SinkConfig(warehouse="/tmp/wh").delete_ledger_path == "/tmp/wh/_cdc_ledger"
    assert SinkConfig(warehouse="/tmp/wh").legacy_delete_ledger_path("orders") == "/tmp/wh/_cdc_deletes/orders"
