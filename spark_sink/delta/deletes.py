"""The delete ledger of one table: the source positions of what hard deletes and truncates removed, so a replayed
older insert or update cannot bring a removed row back.

The MERGE guard compares an event with the position stored in its row; a hard delete removes the row and the guard
with it. The ledger keeps it instead: one entry per deleted key (the key columns, typed as in the table, and the
delete's position columns), and one watermark row per table (`_cdc_truncate = true`, null keys) with the newest
truncate's position. `guard` drops from a batch's changes every insert/update that is not newer than its key's entry
and than the watermark; deletes always pass (the row guard handles them). Soft-delete tables keep their rows, so they
use only the watermark (a truncate removes rows the batch never wrote: an insert older than a truncate of the same
batch is dropped by the plan, and its replay would otherwise be inserted later).

Pruning, exact: a truncate drops every entry older than it (the watermark covers them); the ledger MERGE of a batch
with deletes also drops the entries of keys re-inserted by a newer change (the row's own guard covers them again:
every later replay is older than the row). Entries of keys that stay deleted stay, a few bytes each, until
`sink.delete_ledger_retention` (by the delete's source time) expires them in the next ledger write: a replay older
than the retention could then bring such a row back, so choose it longer than any replay (worker offsets lost,
topics re-read from the start).

Crash safety: the table's MERGE commits before the ledger's; a batch killed in between is replayed whole and records
the same positions again (both writes are idempotent). The ledger lives at `<warehouse>/_cdc_deletes/<table>`:
drop it together with its table.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from typing import Any

from delta.tables import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.delta import order
from spark_sink.delta.format import TYPE_WIDENING
from spark_sink.delta.tables import (
    IS_DELETE,
    SOURCE_TS,
    IncompatibleTableError,
    create_table,
    position_values,
    q,
)
from spark_sink.position import SourcePosition
from spark_sink.spark_types import same_type

TRUNCATE = "_cdc_truncate"
META = [
    *[T.StructField(c, T.LongType(), False) for c in order.COLUMNS],
    T.StructField(SOURCE_TS, T.TimestampType(), True),
    T.StructField(TRUNCATE, T.BooleanType(), False),
]
META_NAMES = frozenset(f.name for f in META)
ENTRY, MARK = "__ledger_entry", "__ledger_mark"


def newer(position: str) -> str:
    """SQL: the change's position is newer than the position struct column `position`."""
    return order.newer(order.columns(), order.fields(position))


S_NEWER = order.newer(order.columns("s"), order.columns("t"))  # MERGE: source newer than target


def _newest() -> Any:
    parts = zip(("epoch", "major", "seq"), order.COLUMNS, strict=True)
    return F.max(F.struct(*[F.col(column).alias(name) for name, column in parts]))


class DeleteLedger:
    def __init__(
        self,
        spark: SparkSession,
        path: str,
        key_fields: Sequence[T.StructField],
        expire_before_ms: int | None = None,
    ) -> None:
        self.spark = spark
        self.expire_before_ms = expire_before_ms  # entries of deletes older than this (source time) are dropped
        self.path = path
        self.key_fields = [T.StructField(f.name, f.dataType, True) for f in key_fields]
        self.keys = [f.name for f in key_fields]

    # -- shape ------------------------------------------------------------------------------------------------
    def exists(self) -> bool:
        return bool(DeltaTable.isDeltaTable(self.spark, self.path))

    def _stored_keys(self) -> list[str]:
        schema = DeltaTable.forPath(self.spark, self.path).toDF().schema
        return [f.name for f in schema.fields if f.name not in META_NAMES]

    def _check_keys(self, stored: list[str]) -> None:
        if stored and self.keys and stored != self.keys:
            raise IncompatibleTableError(
                f"the delete ledger {self.path} is keyed by {stored} but the events by {self.keys}: the source key "
                "changed; check the table and drop the ledger to continue"
            )

    def ensure(self) -> None:
        """Create the ledger, or add the key columns to one created by a truncate-only batch."""
        if not self.exists():
            create_table(self.spark, self.path, T.StructType(self.key_fields + META), {TYPE_WIDENING: "true"})
            return
        stored = self._stored_keys()
        self._check_keys(stored)
        if not stored and self.keys:
            empty = self.spark.createDataFrame([], T.StructType(self.key_fields))
            empty.write.format("delta").mode("append").option("mergeSchema", "true").save(self.path)
        self._widen_keys()

    def _widen_keys(self) -> None:
        """Key columns the table widened (int → bigint …) are widened here too, before the table's MERGE: a key
        beyond the old type's range must fit when its delete is recorded."""
        have = {f.name: f.dataType for f in DeltaTable.forPath(self.spark, self.path).toDF().schema.fields}
        wider = [f for f in self.key_fields if f.name in have and not same_type(have[f.name], f.dataType)]
        if not wider:
            return
        table = f"delta.{q(self.path)}"
        self.spark.sql(f"ALTER TABLE {table} SET TBLPROPERTIES ('{TYPE_WIDENING}' = 'true')")
        for f in wider:
            self.spark.sql(f"ALTER TABLE {table} ALTER COLUMN {q(f.name)} TYPE {f.dataType.simpleString()}")

    # -- reading ----------------------------------------------------------------------------------------------
    def guard(self, changes: DataFrame) -> DataFrame:
        """`changes` without the inserts/updates that a recorded delete or truncate has superseded."""
        if not self.exists():
            return changes
        stored = self._stored_keys()
        self._check_keys(stored)
        self._widen_keys()
        ledger = self.spark.read.format("delta").load(self.path)
        mark = ledger.where(F.col(TRUNCATE)).agg(_newest().alias(MARK))
        guarded = changes.crossJoin(mark)
        keep = f"({MARK} IS NULL OR {newer(MARK)})"
        if stored and self.keys:
            entries = (
                ledger.where(~F.col(TRUNCATE)).groupBy(*[F.col(q(k)) for k in self.keys]).agg(_newest().alias(ENTRY))
            )
            guarded = guarded.join(entries, on=self.keys, how="left")
            keep += f" AND ({ENTRY} IS NULL OR {newer(ENTRY)})"
        return guarded.where(f"{IS_DELETE} OR ({keep})").drop(MARK, ENTRY)

    # -- writing ----------------------------------------------------------------------------------------------
    def record_truncate(self, position: SourcePosition, ts: dt.datetime | None) -> None:
        """Raise the watermark to `position` and drop the entries it covers (one commit)."""
        self.ensure()
        schema = T.StructType(META)
        mark = self.spark.createDataFrame([(*position_values(position), ts, True)], schema)
        meta: dict[str, Any] = {c: f"s.{c}" for c in (*order.COLUMNS, SOURCE_TS)}
        (
            DeltaTable.forPath(self.spark, self.path)
            .alias("t")
            .merge(mark.alias("s"), f"t.{TRUNCATE}")
            .whenMatchedUpdate(condition=S_NEWER, set=meta)
            .whenNotMatchedInsert(values=meta | {TRUNCATE: "true"})
            .whenNotMatchedBySourceDelete(condition=f"NOT t.{TRUNCATE} AND {order.row_older_than(position, 't')}")
            .execute()
        )

    def record_deletes(self, changes: DataFrame) -> None:
        """Record the deletes among `changes` (one per key, unguarded) and drop the entries of keys that a newer
        insert/update brought back (one commit)."""
        self.ensure()
        source = changes.select(*[F.col(q(k)) for k in self.keys], *order.COLUMNS, SOURCE_TS, IS_DELETE)
        on = " AND ".join(f"t.{q(k)} = s.{q(k)}" for k in self.keys) + f" AND NOT t.{TRUNCATE}"
        position: dict[str, Any] = {c: f"s.{c}" for c in (*order.COLUMNS, SOURCE_TS)}
        values: dict[str, Any] = {q(k): f"s.{q(k)}" for k in self.keys} | position | {TRUNCATE: "false"}
        fresh = "true"
        cutoff = None if self.expire_before_ms is None else f"timestamp_millis({self.expire_before_ms})"
        if cutoff:  # an entry already past the retention is not written; older ones go in this commit
            fresh = f"(s.{SOURCE_TS} IS NULL OR s.{SOURCE_TS} >= {cutoff})"
        builder = (
            DeltaTable.forPath(self.spark, self.path)
            .alias("t")
            .merge(source.alias("s"), on)
            .whenMatchedDelete(condition=f"NOT s.{IS_DELETE} AND {S_NEWER}")
            .whenMatchedUpdate(
                condition=f"s.{IS_DELETE} AND {S_NEWER}",
                set=position,
            )
            .whenNotMatchedInsert(condition=f"s.{IS_DELETE} AND {fresh}", values=values)
        )
        if cutoff:
            builder = builder.whenNotMatchedBySourceDelete(condition=f"NOT t.{TRUNCATE} AND t.{SOURCE_TS} < {cutoff}")
        builder.execute()
