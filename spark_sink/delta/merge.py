"""The guarded MERGE of one table's changes (SCD type 1: the table mirrors the source).

The guard compares the event's source position with the one stored in the row (`_cdc_lsn`, `_cdc_seq`): only a
strictly newer event changes a row, so replays, duplicates after a worker restart and re-snapshots never move a row
backwards. Truncates delete (or soft-delete) the rows older than the truncate's position, so they are idempotent too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from delta.tables import DeltaTable
from pyspark.sql import DataFrame, SparkSession

from spark_sink.delta.tables import (
    CARRIED,
    DELETED,
    DELETED_AT,
    IS_DELETE,
    LSN,
    OP,
    SEQ,
    SOURCE_TS,
    UNAVAILABLE,
    q,
)
from spark_sink.position import SourcePosition

GUARD = f"(t.{LSN} IS NULL OR s.{LSN} > t.{LSN} OR (s.{LSN} = t.{LSN} AND s.{SEQ} > t.{SEQ}))"


@dataclass(frozen=True)
class MergeCounts:
    inserted: int = 0
    updated: int = 0
    deleted: int = 0


def sql_str(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def keep_table_value(column: str) -> str:
    """The column's update expression: the table's value when the event carries the unchanged-TOAST placeholder,
    or when the value was carried from an earlier event of the batch that the table has already passed."""
    c, name = q(column), sql_str(column)
    carried = f"s.{CARRIED}[{name}]"
    stale = (
        f"{carried} IS NOT NULL AND t.{LSN} IS NOT NULL AND NOT ({carried}.lsn > t.{LSN} "
        f"OR ({carried}.lsn = t.{LSN} AND {carried}.seq > t.{SEQ}))"
    )
    return f"CASE WHEN array_contains(s.{UNAVAILABLE}, {name}) OR ({stale}) THEN t.{c} ELSE s.{c} END"


def older_than(pos: SourcePosition) -> str:
    return f"({LSN} IS NULL OR {LSN} < {pos.lsn} OR ({LSN} = {pos.lsn} AND {SEQ} < {pos.seq}))"


def truncate(spark: SparkSession, path: str, pos: SourcePosition, ts_sql: str, soft: bool) -> None:
    table = DeltaTable.forPath(spark, path)
    if soft:
        table.update(
            condition=f"{older_than(pos)} AND NOT coalesce({DELETED}, false)",
            set={
                DELETED: "true",
                DELETED_AT: ts_sql,
                OP: "'t'",
                LSN: str(pos.lsn),
                SEQ: str(pos.seq),
            },
        )
    else:
        table.delete(older_than(pos))


def merge(
    spark: SparkSession, path: str, source: DataFrame, data_columns: list[str], key_columns: tuple[str, ...], soft: bool
) -> MergeCounts:
    on = " AND ".join(f"t.{q(k)} <=> s.{q(k)}" for k in key_columns)
    meta: dict[str, Any] = {LSN: f"s.{LSN}", SEQ: f"s.{SEQ}", OP: f"s.{OP}", SOURCE_TS: f"s.{SOURCE_TS}"}
    keep_toast: dict[str, Any] = {q(c): keep_table_value(c) for c in data_columns}
    insert: dict[str, Any] = {q(c): f"s.{q(c)}" for c in data_columns} | meta
    upsert, delete = f"NOT s.{IS_DELETE}", f"s.{IS_DELETE}"
    builder = DeltaTable.forPath(spark, path).alias("t").merge(source.alias("s"), on)
    if soft:
        alive: dict[str, Any] = {DELETED: "false", DELETED_AT: "CAST(NULL AS TIMESTAMP)"}
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
