"""SCD2 history rows built by Spark SQL on the executors from one table's parsed changes (spark_sink/stage/reduce.py),
in the shape spark_sink/delta/scd2.py MERGEs. The rules are those of spark_sink/planning.py `scd2_histories`:
- only changes newer than the newest stored version of their key (current or closed) count (the position guard);
- per key in source order, each insert/update/read adds a version valid from its source time until the next change
  of the key (a delete included), the last one current; a delete adds no version;
- an unchanged-TOAST column takes the value of the newest earlier change of the key in the batch since its last
  delete, or, before any, the value of the stored version;
- a key with a stored current version gets a `close` row ending it at its first change's source time."""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import Column, DataFrame, Window
from pyspark.sql import functions as F

from spark_sink.delta import order
from spark_sink.delta.scd2 import ACTION, IS_CURRENT, MK, VALID_FROM, VALID_TO
from spark_sink.delta.tables import OP, SOURCE_TS, UNAVAILABLE, q
from spark_sink.stage.reduce import DATA, OFFSET, PARTITION

STORED, DELETES_BEFORE, RANK, NEXT = "__scd_stored", "__scd_deletes_before", "__scd_rank", "__scd_next"


def staged_history(
    table: DataFrame,
    parsed: DataFrame,
    names: Sequence[str],
    keys: Sequence[str],
    toast: Sequence[str],
) -> DataFrame:
    """The `close` and `insert` rows for scd2.merge_staged; `table` is the history table as stored (read after any
    truncate was applied)."""
    meta = [*order.COLUMNS, OP, SOURCE_TS]
    flat = parsed.select(*[F.col(f"{DATA}.{q(n)}").alias(n) for n in names], *meta, UNAVAILABLE, PARTITION, OFFSET)
    batch_keys = flat.select(*[F.col(q(k)) for k in keys]).distinct()
    stored = (
        table.join(F.broadcast(batch_keys), list(keys))
        .groupBy(*[F.col(q(k)) for k in keys])
        .agg(
            F.max_by(
                F.struct(*[F.col(q(c)) for c in table.columns]), F.struct(*[F.col(c) for c in order.COLUMNS])
            ).alias(STORED)
        )
    )
    joined = flat.join(stored, list(keys), "left")
    s = F.col(STORED)
    stored_pos = (f"coalesce({STORED}.{order.EPOCH}, 0)", f"{STORED}.{order.POS}", f"coalesce({STORED}.{order.SEQ}, 0)")
    fresh = s.isNull() | s[order.POS].isNull() | F.expr(order.newer(order.columns(), stored_pos))
    events = joined.where(fresh)

    by_key = Window.partitionBy(*[F.col(q(k)) for k in keys]).orderBy(
        *[F.col(c) for c in order.COLUMNS], F.col(PARTITION), F.col(OFFSET)
    )
    is_delete = F.col(OP) == "d"
    events = events.select(
        "*",
        F.coalesce(
            F.sum(F.when(is_delete, 1).otherwise(0)).over(by_key.rowsBetween(Window.unboundedPreceding, -1)), F.lit(0)
        ).alias(DELETES_BEFORE),
        F.row_number().over(by_key).alias(RANK),
        F.lead(F.struct(F.col(SOURCE_TS).alias("ts"))).over(by_key).alias(NEXT),
    )
    since_delete = Window.partitionBy(*[F.col(q(k)) for k in keys], F.col(DELETES_BEFORE)).orderBy(
        *[F.col(c) for c in order.COLUMNS], F.col(PARTITION), F.col(OFFSET)
    )

    def filled(c: str) -> Column:
        if c not in toast or c in keys:
            return F.col(q(c))
        carries = ~is_delete & ~F.array_contains(F.col(UNAVAILABLE), c)
        earlier = F.last(F.when(carries, F.struct(F.col(q(c)).alias("v"))), ignorenulls=True).over(
            since_delete.rowsBetween(Window.unboundedPreceding, -1)
        )
        from_stored = F.when((F.col(DELETES_BEFORE) == 0) & s.isNotNull(), F.struct(s[c].alias("v")))
        fill = F.coalesce(earlier, from_stored)
        gap = F.array_contains(F.col(UNAVAILABLE), c) & fill.isNotNull()
        return F.when(gap, fill["v"]).otherwise(F.col(q(c)))

    versions = events.where(~is_delete).select(
        *[filled(n).alias(n) for n in names],
        *[F.col(c) for c in meta],
        F.col(SOURCE_TS).alias(VALID_FROM),
        F.col(NEXT)["ts"].alias(VALID_TO),
        F.col(NEXT).isNull().alias(IS_CURRENT),
        F.lit("insert").alias(ACTION),
        *[F.lit(None).cast(flat.schema[k].dataType).alias(MK + k) for k in keys],
    )
    closes = events.where((F.col(RANK) == 1) & s.isNotNull() & s[IS_CURRENT]).select(
        *[F.lit(None).cast(flat.schema[n].dataType).alias(n) for n in names],
        *[F.lit(None).cast(flat.schema[c].dataType).alias(c) for c in meta],
        F.lit(None).cast("timestamp").alias(VALID_FROM),
        F.col(SOURCE_TS).alias(VALID_TO),
        F.lit(False).alias(IS_CURRENT),
        F.lit("close").alias(ACTION),
        *[F.col(q(k)).alias(MK + k) for k in keys],
    )
    return versions.unionByName(closes)
