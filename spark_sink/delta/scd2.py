"""SCD type 2: a history table per source table. Each change adds a version (`valid_from` = source commit time);
the key's previous version is closed (`valid_to`, `is_current=false`); a delete closes the current version; a
truncate closes every current version older than it. Idempotent: only events newer than the latest version stored
for their key are applied (the same position guard as the SCD1 MERGE)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from spark_sink.delta import order, statement
from spark_sink.delta.statement import MergeCounts
from spark_sink.delta.tables import OP, SOURCE_TS, q
from spark_sink.position import SourcePosition

VALID_FROM, VALID_TO, IS_CURRENT = "valid_from", "valid_to", "is_current"
HISTORY_FIELDS = [
    T.StructField(VALID_FROM, T.TimestampType(), True),
    T.StructField(VALID_TO, T.TimestampType(), True),
    T.StructField(IS_CURRENT, T.BooleanType(), True),
]
ACTION, MK = "__scd_action", "__scd_key_"


def close_truncated(spark: SparkSession, target: str, truncate_at: SourcePosition, ts_sql: str) -> None:
    """A truncate closes every current version older than it."""
    spark.sql(
        f"UPDATE {target} SET {VALID_TO} = {ts_sql}, {IS_CURRENT} = false "
        f"WHERE {IS_CURRENT} AND {order.row_older_than(truncate_at)}"
    )


def merge_staged(target: str, staged: DataFrame, names: Sequence[str], keys: Sequence[str]) -> MergeCounts:
    """One MERGE: `close` rows end their key's current version, `insert` rows add versions."""
    on = " AND ".join(f"t.{q(k)} = s.{q(MK + k)}" for k in keys) + f" AND t.{IS_CURRENT}"
    insert: dict[str, Any] = {q(c): f"s.{q(c)}" for c in names} | {
        c: f"s.{c}" for c in (*order.COLUMNS, OP, SOURCE_TS, VALID_FROM, VALID_TO, IS_CURRENT)
    }
    clauses = [
        statement.update(f"s.{ACTION} = 'close'", {VALID_TO: f"s.{VALID_TO}", IS_CURRENT: "false"}),
        statement.insert(f"s.{ACTION} = 'insert'", insert),
    ]
    return statement.merge(target, staged, on, clauses)  # no delete clause: deleted stays 0
