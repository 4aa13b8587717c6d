"""Pure tests of the per-batch planning: last change per key by source position, TOAST carry-over, truncates,
schema union, SCD2 versions, the transaction-consistent release rule."""

from __future__ import annotations

from typing import Any

import pytest

from spark_sink.decoding.base import ChangeEvent, RawRecord, RowSchema, TxMarker
from spark_sink.planning import IncompatibleSchemaError, last_per_key, plan_batch, plan_table, scd2_histories
from spark_sink.position import SourcePosition
from spark_sink.transactions import release_complete
from spark_sink.types.model import INT, STRING

SCHEMA = RowSchema((("id", INT), ("v", STRING), ("big", STRING)))


def ev(
    op: str,
    key: int | None,
    lsn: int,
    v: str | None = None,
    *,
    offset: int = 0,
    partition: int = 0,
    seq: int = 0,
    big: str | None = "B",
    unavailable: frozenset[str] = frozenset(),
    topic: str = "p.s.t",
    tx: str | None = None,
    ts: int | None = None,
    schema: RowSchema = SCHEMA,
) -> ChangeEvent:
    row = None if key is None else {"id": key, "v": v, "big": None if "big" in unavailable else big}
    return ChangeEvent(
        raw=RawRecord(topic, partition, offset, None, None),
        op=op,
        key=None if key is None else {"id": key},
        row=row,
        schema=schema if key is not None else RowSchema(()),
        position=SourcePosition(0, lsn, seq),
        unavailable=unavailable,
        source_table="s.t",
        tx_id=tx,
        source_ts_ms=ts,
    )


def values(events: list[ChangeEvent]) -> list[tuple[Any, ...]]:
    return [(e.op, (e.row or {}).get("id"), (e.row or {}).get("v"), (e.row or {}).get("big")) for e in events]


def test_source_position_beats_kafka_offset() -> None:
    got = last_per_key([ev("u", 1, 500, "new", offset=1), ev("c", 1, 400, "old", offset=2)])
    assert values(got) == [("u", 1, "new", "B")]


def test_transaction_order_breaks_lsn_ties_then_offsets() -> None:
    got = last_per_key([ev("u", 1, 10, "second", seq=2, offset=1), ev("u", 1, 10, "first", seq=1, offset=2)])
    assert values(got) == [("u", 1, "second", "B")]
    dup = last_per_key([ev("u", 1, 10, "a", offset=1), ev("u", 1, 10, "b", offset=2)])
    assert values(dup) == [("u", 1, "b", "B")]


def test_toast_is_carried_from_earlier_events_of_the_key() -> None:
    got = last_per_key(
        [ev("c", 1, 1, "a", big="X"), ev("u", 1, 2, "b", big="Y"), ev("u", 1, 3, "c", unavailable=frozenset({"big"}))]
    )
    assert values(got) == [("u", 1, "c", "Y")]
    assert got[0].unavailable == frozenset() and got[0].carried == {"big": SourcePosition(0, 2, 0)}
    alone = last_per_key([ev("u", 1, 3, "c", unavailable=frozenset({"big"}))])
    assert alone[0].unavailable == {"big"}  # the MERGE keeps the table's value


def test_delete_keeps_last_values_and_resets_toast() -> None:
    got = last_per_key([ev("c", 1, 1, "a"), ev("d", 1, 2, None, big=None)])
    assert values(got) == [("d", 1, "a", "B")]
    after_delete = last_per_key(
        [ev("c", 1, 1, "a", big="X"), ev("d", 1, 2), ev("c", 1, 3, "z", unavailable=frozenset({"big"}))]
    )
    assert values(after_delete) == [("c", 1, "z", None)] and after_delete[0].unavailable == {"big"}


def test_truncate_drops_earlier_events() -> None:
    plan = plan_table("t", [ev("c", 1, 1, "a"), ev("t", None, 5), ev("c", 2, 7, "b"), ev("u", 1, 3, "x")])
    assert plan.truncate_at == SourcePosition(0, 5, 0)
    assert values(list(plan.changes)) == [("c", 2, "b", "B")]


def test_schema_union_and_type_change() -> None:
    wider = RowSchema((*SCHEMA.columns, ("extra", STRING)))
    plan = plan_table("t", [ev("c", 1, 1, "a"), ev("c", 2, 2, "b", schema=wider)])
    assert plan.schema.names == ("id", "v", "big", "extra")
    changed = RowSchema((("id", INT), ("v", INT)))
    with pytest.raises(IncompatibleSchemaError, match="changes type"):
        plan_table("t", [ev("c", 1, 1, "a"), ev("c", 2, 2, "b", schema=changed)])
    batch = plan_batch([ev("c", 1, 1, "a"), ev("c", 2, 2, "b", schema=changed)], lambda topic: "t")
    assert batch.tables == () and batch.failed[0][0] == "t"


def test_scd2_versions() -> None:
    plan = plan_table(
        "t", [ev("c", 1, 1, "a", ts=10), ev("u", 1, 2, "b", ts=20), ev("d", 1, 3, ts=30), ev("c", 2, 4, "z", ts=40)]
    )
    histories = {dict(h.key)["id"]: h for h in scd2_histories(plan)}
    one = [(v.event.row["v"], v.valid_from_ms, v.valid_to_ms, v.is_current) for v in histories[1].versions]  # type: ignore[index]
    assert one == [("a", 10, 20, False), ("b", 20, 30, False)]
    assert [v.is_current for v in histories[2].versions] == [True]
    guarded = scd2_histories(plan, after=lambda e: e.position > SourcePosition(0, 2, 0))
    assert [h.first.op for h in guarded] == ["d", "c"]


def marker(tx: str, counts: dict[str, int], offset: int) -> TxMarker:
    return TxMarker(RawRecord("p.transaction", 0, offset, None, None), "END", tx, sum(counts.values()), counts)


def test_transactions_are_released_whole_and_in_order() -> None:
    events = [
        ev("c", 1, 1, "a", tx="7"),
        ev("c", 2, 2, "b", tx="8"),
        ev("c", 3, 3, "c", tx="8", offset=1),
        ev("r", 4, 0, "snap"),
    ]
    # tx 7 expects 2 events of s.t but only one arrived: it blocks tx 8 (complete) behind it
    result = release_complete(events, [marker("7", {"s.t": 2}, 0), marker("8", {"s.t": 2}, 1)], lambda c: True)
    assert [e.key for e in result.released] == [{"id": 4}]
    assert len(result.held_events) == 3 and [m.tx_id for m in result.held_markers] == ["7", "8"]
    # the other table of tx 7 is not subscribed: its count does not matter
    ok = release_complete(events, [marker("7", {"s.t": 1, "s.other": 5}, 0)], lambda c: c == "s.t")
    assert sorted(e.key["id"] for e in ok.released) == [1, 4]  # type: ignore[index]
    assert len(ok.held_events) == 2  # tx 8 has no END yet


def test_keyless_changes_that_cannot_be_applied_exactly() -> None:
    from spark_sink.delta.multiset import INCREMENTAL_SNAPSHOT, NO_TRANSACTION_METADATA, refusal

    assert refusal("r", None, "true") is None and refusal("r", None, "last") is None  # snapshot rows: no tx block
    assert refusal("r", None, "incremental") == INCREMENTAL_SNAPSHOT
    assert refusal("c", "771", "false") is None and refusal("d", "771", None) is None
    assert (
        refusal("c", None, "false") == NO_TRANSACTION_METADATA and refusal("u", None, None) == NO_TRANSACTION_METADATA
    )
    assert refusal("t", None, None) is None


def test_keyless_tables_with_maps_anywhere_are_refused() -> None:
    from pyspark.sql import types as T

    from spark_sink.delta.multiset import refuse_maps
    from spark_sink.delta.tables import IncompatibleTableError, TableCheck
    from spark_sink.table_format import TableRef

    nested = T.ArrayType(T.StructType([T.StructField("m", T.MapType(T.StringType(), T.LongType()))]))
    fields = [T.StructField("a", T.LongType()), T.StructField("attrs", nested)]
    with pytest.raises(IncompatibleTableError, match=r"columns \['attrs'\] are maps, which Spark cannot compare"):
        refuse_maps(TableCheck(TableRef("t", "delta.`/t`", "/t", "delta"), False, T.StructType(fields)))
    ref = TableRef("t", "delta.`/t`", "/t", "delta")
    refuse_maps(TableCheck(ref, False, T.StructType(fields[:1])))  # comparable columns only: accepted
