"""SCD type 2: a history table per source table. Each change adds a version (`valid_from` = source commit time);
the key's previous version is closed (`valid_to`, `is_current=false`); a delete closes the current version; a
truncate closes every current version older than it. Idempotent: only events newer than the latest version stored
for their key are applied (the same position guard as the SCD1 MERGE)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from delta.tables import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.decoding.base import ChangeEvent
from spark_sink.delta import order
from spark_sink.delta.merge import MergeCounts
from spark_sink.delta.tables import META_FIELDS, OP, SOURCE_TS, TableCheck, position_values, q, ts_from_ms
from spark_sink.planning import TablePlan, key_tuple, scd2_histories
from spark_sink.position import SourcePosition
from spark_sink.types import infer

VALID_FROM, VALID_TO, IS_CURRENT = "valid_from", "valid_to", "is_current"
HISTORY_FIELDS = [
    T.StructField(VALID_FROM, T.TimestampType(), True),
    T.StructField(VALID_TO, T.TimestampType(), True),
    T.StructField(IS_CURRENT, T.BooleanType(), True),
]
ACTION, MK = "__scd_action", "__scd_key_"


def _latest(spark: SparkSession, path: str, plan: TablePlan, check: TableCheck) -> dict[Any, Any]:
    """The newest stored version per key of the batch (current or closed): key tuple → Row."""
    if not plan.key_columns:
        return {}
    keys = sorted({key_tuple(e) for e in plan.events if e.key is not None}, key=repr)
    if not keys:
        return {}
    key_schema = T.StructType([f for f in check.data_schema.fields if f.name in plan.key_columns])
    key_schema = T.StructType([key_schema[k] for k in plan.key_columns])
    key_df = spark.createDataFrame([tuple(v for _, v in k) for k in keys], key_schema)
    table = DeltaTable.forPath(spark, path).toDF()
    cols = [c for c in table.columns]
    latest = (
        table.join(F.broadcast(key_df), list(plan.key_columns))
        .groupBy(*plan.key_columns)
        .agg(F.max_by(F.struct(*[F.col(q(c)) for c in cols]), F.struct(*order.COLUMNS)).alias("v"))
        .collect()
    )
    return {tuple((k, r["v"][k]) for k in plan.key_columns): r["v"] for r in latest}


def close_truncated(spark: SparkSession, path: str, truncate_at: SourcePosition, ts_sql: str) -> None:
    """A truncate closes every current version older than it."""
    DeltaTable.forPath(spark, path).update(
        condition=f"{IS_CURRENT} AND {order.row_older_than(truncate_at)}",
        set={VALID_TO: ts_sql, IS_CURRENT: "false"},
    )


def apply(spark: SparkSession, path: str, plan: TablePlan, check: TableCheck) -> MergeCounts:
    if plan.truncate_at is not None:
        t_event = max((e for e in plan.events if e.op == "t"), key=lambda e: e.position)
        ts = "CAST(NULL AS TIMESTAMP)" if t_event.source_ts_ms is None else f"timestamp_millis({t_event.source_ts_ms})"
        close_truncated(spark, path, plan.truncate_at, ts)
    latest = _latest(spark, path, plan, check)

    def newer(e: ChangeEvent) -> bool:
        row = latest.get(key_tuple(e))
        if row is None or row[order.POS] is None:
            return True
        stored = SourcePosition(int(row[order.EPOCH] or 0), int(row[order.POS]), int(row[order.SEQ] or 0))
        return e.position.newer_than(stored)

    histories = scd2_histories(plan, newer)
    names = [f.name for f in check.data_schema.fields]
    types = dict(plan.schema.columns)
    rows: list[tuple[Any, ...]] = []
    closes = 0
    for h in histories:
        current = latest.get(h.key)
        if current is not None and current[IS_CURRENT]:
            closes += 1
            keyvals = [dict(h.key)[k] for k in plan.key_columns]
            rows.append(
                (
                    *[None] * len(names),
                    *[None] * len(order.COLUMNS),
                    None,
                    None,
                    None,
                    ts_from_ms(h.first.source_ts_ms),
                    False,
                    "close",
                    *keyvals,
                )
            )
        for i, v in enumerate(h.versions):
            e = v.event
            row = dict(e.row or {})
            if i == 0 and e.unavailable and current is not None:  # TOAST: the stored version has the value
                for c in e.unavailable:
                    row[c] = current.asDict().get(c)
            values = [row.get(n) if e.typed else infer.coerce(row.get(n), types[n]) for n in names]
            rows.append(
                (
                    *values,
                    *position_values(e.position),
                    e.op,
                    ts_from_ms(e.source_ts_ms),
                    ts_from_ms(v.valid_from_ms),
                    ts_from_ms(v.valid_to_ms),
                    v.is_current,
                    "insert",
                    *[None] * len(plan.key_columns),
                )
            )
    if not rows:
        return MergeCounts()
    schema = staged_schema(check, plan.key_columns)
    staged = spark.createDataFrame(rows, schema)
    for name, target in check.casts.items():
        staged = staged.withColumn(name, staged[name].cast(target))
    return merge_staged(spark, path, staged, names, plan.key_columns)


def staged_schema(check: TableCheck, keys: Sequence[str]) -> T.StructType:
    """The rows `merge_staged` takes: data columns, change metadata, history columns, the action (`close` or
    `insert`) and, for `close` rows, the key whose current version to close."""
    key_fields = [T.StructField(MK + k, check.data_schema[k].dataType, True) for k in keys]
    return T.StructType(
        list(check.data_schema.fields)
        + META_FIELDS
        + HISTORY_FIELDS
        + [T.StructField(ACTION, T.StringType(), False)]
        + key_fields
    )


def merge_staged(
    spark: SparkSession, path: str, staged: DataFrame, names: Sequence[str], keys: Sequence[str]
) -> MergeCounts:
    """One MERGE: `close` rows end their key's current version, `insert` rows add versions."""
    table = DeltaTable.forPath(spark, path)
    on = " AND ".join(f"t.{q(k)} = s.{q(MK + k)}" for k in keys) + f" AND t.{IS_CURRENT}"
    insert: dict[str, Any] = {q(c): f"s.{q(c)}" for c in names} | {
        c: f"s.{c}" for c in (*order.COLUMNS, OP, SOURCE_TS, VALID_FROM, VALID_TO, IS_CURRENT)
    }
    result = (
        table.alias("t")
        .merge(staged.alias("s"), on)
        .whenMatchedUpdate(condition=f"s.{ACTION} = 'close'", set={VALID_TO: f"s.{VALID_TO}", IS_CURRENT: "false"})
        .whenNotMatchedInsert(condition=f"s.{ACTION} = 'insert'", values=insert)
        .execute()
    )
    first = result.first() if result is not None else None
    d = first.asDict() if first is not None else {}
    return MergeCounts(inserted=int(d.get("num_inserted_rows") or 0), updated=int(d.get("num_updated_rows") or 0))
