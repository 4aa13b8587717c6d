"""The guarded MERGE of one table's changes (SCD type 1: the table mirrors the source), in Spark SQL on the table's
SQL name, so one rule serves Delta and Iceberg tables.

The guard compares the event's source position with the one stored in the row (`_cdc_epoch`, `_cdc_pos`,
`_cdc_seq`; the order of spark_sink/position.py, in SQL by spark_sink/delta/order.py): only a newer event changes a
row, so replays, duplicates after a worker restart and re-snapshots never move a row
backwards. Truncates delete (or soft-delete) the rows older than the truncate's position, so they are idempotent too.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from pyspark.sql import DataFrame, SparkSession

from spark_sink.delta import order, statement
from spark_sink.delta.statement import MergeCounts
from spark_sink.delta.tables import (
    CARRIED,
    IS_DELETE,
    NULL_TS,
    OP,
    SOURCE_TS,
    UNAVAILABLE,
    SoftDelete,
    position_values,
    q,
    sql_string,
)
from spark_sink.position import SourcePosition

GUARD = f"(t.{order.POS} IS NULL OR {order.newer(order.columns('s'), order.columns('t'))})"


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
    target: str,
    pos: SourcePosition,
    ts_sql: str,
    soft: SoftDelete | None,
    also: Mapping[str, str] | None = None,
) -> None:
    """Delete (soft: mark deleted, setting `also` too) the rows of the table `target` (SQL name) older than `pos`."""
    if soft is not None:
        marks: dict[str, Any] = {soft.deleted: "true", soft.deleted_at: ts_sql, OP: "'t'", **(also or {})}
        marks |= dict(zip(order.COLUMNS, map(str, position_values(pos)), strict=True))
        settings = ", ".join(f"{c} = {e}" for c, e in marks.items())
        spark.sql(
            f"UPDATE {target} SET {settings} WHERE {order.row_older_than(pos)} AND NOT coalesce({soft.deleted}, false)"
        )
    else:
        spark.sql(f"DELETE FROM {target} WHERE {order.row_older_than(pos)}")


def merge(
    target: str,
    source: DataFrame,
    data_columns: list[str],
    key_columns: tuple[str, ...],
    soft: SoftDelete | None,
    unavailable: Collection[str],
) -> MergeCounts:
    """`unavailable`: the columns some change of the batch leaves unavailable (the unchanged-TOAST placeholder, a
    column missing from its row schema; spark_sink/stage/reduce.py fills and carries only those): an update keeps
    the table's value of those columns where the change lacks it; every other column is the change's value (the
    per-column check is only built where it can apply: a smaller plan, about 5 % of a batch's time on the bench)."""
    on = " AND ".join(f"t.{q(k)} <=> s.{q(k)}" for k in key_columns)
    meta: dict[str, Any] = {c: f"s.{c}" for c in (*order.COLUMNS, OP, SOURCE_TS)}
    keep = set(unavailable)
    keep_toast: dict[str, Any] = {q(c): keep_table_value(c) if c in keep else f"s.{q(c)}" for c in data_columns}
    insert: dict[str, Any] = {q(c): f"s.{q(c)}" for c in data_columns} | meta
    upsert, delete = f"NOT s.{IS_DELETE}", f"s.{IS_DELETE}"
    if soft is not None:
        alive: dict[str, Any] = {soft.deleted: "false", soft.deleted_at: NULL_TS}
        gone: dict[str, Any] = {soft.deleted: "true", soft.deleted_at: f"s.{SOURCE_TS}"}
        clauses = [
            statement.update(f"{delete} AND {GUARD}", meta | gone),
            statement.update(f"{upsert} AND {GUARD}", keep_toast | meta | alive),
            statement.insert(upsert, insert | alive),
            statement.insert(delete, insert | gone),
        ]
    else:
        clauses = [
            statement.delete(f"{delete} AND {GUARD}"),
            statement.update(f"{upsert} AND {GUARD}", keep_toast | meta),
            statement.insert(upsert, insert),
        ]
    return statement.merge(target, source, on, clauses)
