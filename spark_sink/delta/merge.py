"""The guarded MERGE of one table's changes (SCD type 1: the table mirrors the source).

The guard compares the event's source position with the one stored in the row (`_cdc_epoch`, `_cdc_pos`,
`_cdc_seq`; the order of spark_sink/position.py, in SQL by spark_sink/delta/order.py): only a newer event changes a
row, so replays, duplicates after a worker restart and re-snapshots never move a row
backwards. Truncates delete (or soft-delete) the rows older than the truncate's position, so they are idempotent too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from delta.tables import DeltaTable
from pyspark.sql import DataFrame, SparkSession

from spark_sink.delta import order
from spark_sink.delta.tables import (
    CARRIED,
    DELETED,
    DELETED_AT,
    IS_DELETE,
    NULL_TS,
    OP,
    SOURCE_TS,
    UNAVAILABLE,
    position_values,
    q,
    sql_string,
)
from spark_sink.position import SourcePosition

GUARD = f"(t.{order.POS} IS NULL OR {order.newer(order.columns('s'), order.columns('t'))})"


@dataclass(frozen=True)
class MergeCounts:
    inserted: int = 0
    updated: int = 0
    deleted: int = 0


def keep_table_value(column: str) -> str:
    """The column's update expression: the table's value when the event carries the unchanged-TOAST placeholder,
    or when the value was carried from an earlier event of the batch that the table has already passed."""
    c, name = q(column), sql_string(column)
    carried = f"s.{CARRIED}[{name}]"
    newer = order.newer(order.fields(carried), order.columns("t"))
    stale = f"{carried} IS NOT NULL AND t.{order.POS} IS NOT NULL AND NOT {newer}"
    return f"CASE WHEN array_contains(s.{UNAVAILABLE}, {name}) OR ({stale}) THEN t.{c} ELSE s.{c} END"


def truncate(
    spark: SparkSession,
    path: str,
    pos: SourcePosition,
    ts_sql: str,
    soft: bool,
    also: Mapping[str, str] | None = None,
) -> None:
    """Delete (soft: mark deleted, setting `also` too) the rows older than `pos`."""
    table = DeltaTable.forPath(spark, path)
    if soft:
        marks: dict[str, Any] = {DELETED: "true", DELETED_AT: ts_sql, OP: "'t'", **(also or {})}
        marks |= dict(zip(order.COLUMNS, map(str, position_values(pos)), strict=True))
        table.update(
            condition=f"{order.row_older_than(pos)} AND NOT coalesce({DELETED}, false)",
            set=marks,
        )
    else:
        table.delete(order.row_older_than(pos))


def merge(
    spark: SparkSession, path: str, source: DataFrame, data_columns: list[str], key_columns: tuple[str, ...], soft: bool
) -> MergeCounts:
    on = " AND ".join(f"t.{q(k)} <=> s.{q(k)}" for k in key_columns)
    meta: dict[str, Any] = {c: f"s.{c}" for c in (*order.COLUMNS, OP, SOURCE_TS)}
    keep_toast: dict[str, Any] = {q(c): keep_table_value(c) for c in data_columns}
    insert: dict[str, Any] = {q(c): f"s.{q(c)}" for c in data_columns} | meta
    upsert, delete = f"NOT s.{IS_DELETE}", f"s.{IS_DELETE}"
    builder = DeltaTable.forPath(spark, path).alias("t").merge(source.alias("s"), on)
    if soft:
        alive: dict[str, Any] = {DELETED: "false", DELETED_AT: NULL_TS}
        gone: dict[str, Any] = {DELETED: "true", DELETED_AT: f"s.{SOURCE_TS}"}
        builder = (
            builder.whenMatchedUpdate(condition=f"{delete} AND {GUARD}", set=meta | gone)
            .whenMatchedUpdate(condition=f"{upsert} AND {GUARD}", set=keep_toast | meta | alive)
            .whenNotMatchedInsert(condition=upsert, values=insert | alive)
            .whenNotMatchedInsert(condition=delete, values=insert | gone)
        )
    else:
        builder = (
            builder.whenMatchedDelete(condition=f"{delete} AND {GUARD}")
            .whenMatchedUpdate(condition=f"{upsert} AND {GUARD}", set=keep_toast | meta)
            .whenNotMatchedInsert(condition=upsert, values=insert)
        )
    result = builder.execute()
    row = result.first() if result is not None else None
    if row is None:
        return MergeCounts()
    d = row.asDict()
    return MergeCounts(
        inserted=int(d.get("num_inserted_rows") or 0),
        updated=int(d.get("num_updated_rows") or 0),
        deleted=int(d.get("num_deleted_rows") or 0),
    )
