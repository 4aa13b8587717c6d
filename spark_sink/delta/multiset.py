"""Tables without a primary key (Debezium sends such changes with a null record key): the whole row is the identity.

PostgreSQL can only update or delete rows of such a table under REPLICA IDENTITY FULL, so every update and delete
carries the whole old row: an insert adds one to the count of its row content, a delete takes one away, an update
does both (old content -1, new content +1). The table keeps one row per distinct content with `_cdc_count`, the
number of identical source rows (a source table may hold duplicates), and drops it (hard delete) or marks it
`_deleted` (soft) when the count reaches zero. Replays cannot be caught per row (a deleted row takes its position
with it), so the table's applied-through watermark (spark_sink/delta/watermark.py) filters them: a change is applied
only when its position is past the watermark, which needs every change to have a position of its own, in source
order: one Kafka partition, and transaction metadata (PostgreSQL gives the rows of one multi-row insert one LSN;
`transaction.total_order` tells them apart). Snapshot rows share the snapshot's position: they are applied when at
or past the watermark, and a snapshot newer than the watermark (a first one, or one taken again after a worker
crash cut the previous short) first removes every row older than it, so the table becomes the snapshot instead of
counting rows twice. Incremental snapshots (rows read again while streaming goes on) cannot be counted exactly and
are refused. The MERGE runs at most once per micro-batch (TableFormat.once_per_batch), so a batch replayed after a
crash between the MERGE and the watermark write does not count twice.
"""

from __future__ import annotations

from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.delta import merge, order, statement
from spark_sink.delta.statement import MergeCounts
from spark_sink.delta.tables import (
    IS_DELETE,
    NULL_TS,
    OP,
    SOURCE_TS,
    IncompatibleTableError,
    SoftDelete,
    TableCheck,
    q,
)
from spark_sink.position import SourcePosition
from spark_sink.table_format import TableFormat

COUNT = "_cdc_count"
COUNT_FIELD = T.StructField(COUNT, T.LongType(), True)
DELTA, LATEST = "__cdc_delta", "__cdc_latest"


NO_TRANSACTION_METADATA = (
    "a table without a primary key needs transaction metadata (provide.transaction.metadata=true): its changes "
    "must each have a position of their own (the rows of a multi-row insert share one LSN)"
)
INCREMENTAL_SNAPSHOT = (
    "an incremental snapshot of a table without a primary key cannot be applied exactly: rows read again while "
    "streaming goes on would be counted twice (use a blocking or initial snapshot)"
)


def refusal(op: str, tx_id: str | None, snapshot: str | None) -> str | None:
    """Why a keyless change cannot be applied exactly, or None."""
    if op == "r":
        return INCREMENTAL_SNAPSHOT if snapshot == "incremental" else None
    return NO_TRANSACTION_METADATA if tx_id is None and op != "t" else None


def check_order(topic: str, partition: int, unknown_order: bool) -> None:
    """IncompatibleTableError when a keyless table's changes cannot be trusted to arrive in source order."""
    if partition != 0:
        raise IncompatibleTableError(
            f"changes of a table without a primary key come from partition {partition} of {topic}: their source "
            "order is only kept in a single-partition topic (whole rows are their identity, so replays are "
            "recognized by order alone)"
        )
    if unknown_order:
        raise IncompatibleTableError(
            "a table without a primary key needs the order of changes inside a transaction: enable "
            "provide.transaction.metadata on the connector (its events share one position per transaction)"
        )


def past(at: SourcePosition, applied: SourcePosition | None) -> bool:
    """A truncate's or a snapshot's position past the watermark: rows older than it go (the table is to become the
    snapshot); at or below it, already done before."""
    return applied is None or at > applied


def remove_older(spark: SparkSession, target: str, at: SourcePosition, ts_sql: str, soft: SoftDelete | None) -> None:
    """Remove the rows older than `at`, a truncate's or a new snapshot's position (soft: mark them deleted, counted
    zero)."""
    merge.truncate(spark, target, at, ts_sql, soft, also={COUNT: "0"})


def refuse_maps(check: TableCheck) -> None:
    """Whole-row matching needs comparable columns: a map anywhere in the row is refused."""
    maps = [f.name for f in check.data_schema.fields if _has_map(f.dataType)]
    if maps:
        raise IncompatibleTableError(
            f"columns {maps} are maps, which Spark cannot compare: a table without a primary key is matched on "
            "whole rows"
        )


def _has_map(t: T.DataType) -> bool:
    if isinstance(t, T.MapType):
        return True
    if isinstance(t, T.ArrayType):
        return _has_map(t.elementType)
    if isinstance(t, T.StructType):
        return any(_has_map(f.dataType) for f in t.fields)
    return False


def merge_signed(
    fmt: TableFormat, check: TableCheck, frame: DataFrame, soft: SoftDelete | None, app_id: str, batch_id: int
) -> MergeCounts:
    """MERGE whole-row removals (IS_DELETE) and additions, netted per row content, into the counted table, at most
    once per micro-batch (a batch already committed there writes nothing)."""
    names = [f.name for f in check.data_schema.fields]
    meta = [*order.COLUMNS, OP, SOURCE_TS]
    newest_first = F.struct(*[F.col(c) for c in order.COLUMNS], (~F.col(IS_DELETE)).alias("addition"))
    source = (
        frame.withColumn(DELTA, F.when(F.col(IS_DELETE), F.lit(-1)).otherwise(F.lit(1)).cast("long"))
        .groupBy(*[F.col(q(n)) for n in names])
        .agg(F.sum(DELTA).alias(DELTA), F.max_by(F.struct(*[F.col(c) for c in meta]), newest_first).alias(LATEST))
        .select(*[F.col(q(n)) for n in names], DELTA, *[F.col(f"{LATEST}.{c}").alias(c) for c in meta])
        .where(f"{DELTA} <> 0")
    )
    on = " AND ".join(f"t.{q(n)} <=> s.{q(n)}" for n in names)
    stamp: dict[str, Any] = {c: f"s.{c}" for c in meta}
    total = f"coalesce(t.{COUNT}, 0) + s.{DELTA}"
    insert: dict[str, Any] = {q(n): f"s.{q(n)}" for n in names} | stamp | {COUNT: f"s.{DELTA}"}
    if soft is not None:
        alive: dict[str, Any] = {soft.deleted: "false", soft.deleted_at: NULL_TS}
        gone: dict[str, Any] = {COUNT: "0", soft.deleted: "true", soft.deleted_at: f"s.{SOURCE_TS}"}
        clauses = [
            statement.update(f"{total} <= 0", stamp | gone),
            statement.update(None, stamp | alive | {COUNT: total}),
            statement.insert(f"s.{DELTA} > 0", insert | alive),
        ]
    else:
        clauses = [
            statement.delete(f"{total} <= 0"),
            statement.update(None, stamp | {COUNT: total}),
            statement.insert(f"s.{DELTA} > 0", insert),
        ]
    with fmt.once_per_batch(source.sparkSession, check.ref, f"{app_id}-rows", batch_id) as first:
        if not first:
            return MergeCounts()
        return statement.merge(check.ref.sql, source, on, clauses)
