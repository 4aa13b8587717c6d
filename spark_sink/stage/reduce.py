"""One table's changes of a micro-batch, reduced by Spark SQL on the executors: the decoded rows (spark_sink/stage/
decode.py) of the table, after its truncate, parsed back into the table's typed columns (`from_json`), then
- keyed tables: the newest change per key by source position (Kafka coordinates break ties: one key lives in one
  partition), with each unchanged-TOAST column filled from the newest earlier change of the key that carried it
  (and that change's position kept in `__cdc_carried`, for the MERGE's staleness check); a delete keeps the newest
  earlier values of its key (its `before` image is only the key under REPLICA IDENTITY DEFAULT);
- tables without a primary key: every change as whole-row removals and additions (spark_sink/delta/multiset.py).
The results have the columns the Delta layer MERGEs (spark_sink/delta/merge.py, multiset.py).
"""

from __future__ import annotations

from collections.abc import Sequence

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.delta import order
from spark_sink.delta.tables import CARRIED, IS_DELETE, OP, SOURCE_TS, UNAVAILABLE, TableCheck, q
from spark_sink.position import SourcePosition
from spark_sink.stage.decode import EVENT
from spark_sink.stage.rowjson import FROM_JSON_OPTIONS

PARTITION, OFFSET, DATA, BEFORE = "__cdc_partition", "__cdc_offset", "__cdc_data", "__cdc_before"
LATEST, PREVIOUS, FILL = "__cdc_latest", "__cdc_previous", "__cdc_fill_"


def parse_type(t: T.DataType) -> T.DataType:
    """The type `from_json` reads a column as: maps keyed by anything but strings are read with string keys (JSON
    object keys are strings) and cast afterwards."""
    if isinstance(t, T.MapType):
        return T.MapType(T.StringType(), parse_type(t.valueType), True)
    if isinstance(t, T.ArrayType):
        return T.ArrayType(parse_type(t.elementType), True)
    if isinstance(t, T.StructType):
        return T.StructType([T.StructField(f.name, parse_type(f.dataType), True) for f in t.fields])
    return t


def missing_columns(
    names: Sequence[str], schema_columns: Sequence[tuple[str, Sequence[str]]]
) -> dict[str, tuple[str, ...]]:
    """Per column of `names`, the row schemas (ids) of the batch that lack it (a column the source dropped or added
    within the batch); columns every schema has are left out."""
    out = {c: tuple(sid for sid, have in schema_columns if c not in have) for c in names}
    return {c: ids for c, ids in out.items() if ids}


def parsed_events(
    decoded: DataFrame,
    table: str,
    check: TableCheck,
    truncate_at: SourcePosition | None,
    missing: dict[str, tuple[str, ...]] | None = None,
) -> DataFrame:
    """The table's data changes after its truncate: data columns (as the table types them; schemaless columns
    cast to the table's type), the whole old row of keyless updates in BEFORE, and the change metadata. `missing`
    (missing_columns): an update whose row schema lacks a column counts that column as unavailable, as an unchanged
    TOAST value (the MERGE keeps the table's value, or the batch's earlier one): the same as a batch of such updates
    alone, which sets only the columns it carries."""
    data_type = T.StructType([T.StructField(f.name, parse_type(f.dataType), True) for f in check.data_schema.fields])
    events = decoded.where((F.col("kind") == EVENT) & (F.col("tbl") == table) & (F.col("op") != "t"))
    if truncate_at is not None:
        events = events.where(order.strictly_after(truncate_at, ("epoch", "pos", "seq")))
    frame = events.select(
        F.from_json("row", data_type, FROM_JSON_OPTIONS).alias(DATA),
        F.from_json("before", data_type, FROM_JSON_OPTIONS).alias(BEFORE),
        *[F.col(src).alias(dst) for src, dst in zip(("epoch", "pos", "seq"), order.COLUMNS, strict=True)],
        F.col("op").alias(OP),
        F.timestamp_millis(F.col("source_ts")).alias(SOURCE_TS),
        _unavailable(missing or {}).alias(UNAVAILABLE),
        F.col("partition").alias(PARTITION),
        F.col("offset").alias(OFFSET),
    )
    for f in check.data_schema.fields:
        target = check.casts.get(f.name, f.dataType)
        for image in (DATA, BEFORE):
            if parse_type(f.dataType) != target:
                frame = frame.withColumn(image, frame[image].withField(f.name, frame[image][f.name].cast(target)))
    return frame


def _unavailable(missing: dict[str, tuple[str, ...]]) -> Column:
    known = F.coalesce(F.col("unavailable"), F.array().cast("array<string>"))
    if not missing:
        return known
    update = F.col("op") == "u"
    lacking = [F.when(update & F.col("schema_id").isin(*ids), F.lit(c)) for c, ids in sorted(missing.items())]
    return F.array_union(known, F.array_compact(F.array(*lacking)))


def _order() -> Column:
    return F.struct(*[F.col(c) for c in order.COLUMNS], F.col(PARTITION), F.col(OFFSET))


def latest_per_key(parsed: DataFrame, names: Sequence[str], keys: Sequence[str], toast: Sequence[str]) -> DataFrame:
    """The newest change per key, TOAST filled (see the module docstring); `toast` names the columns that carry
    the unchanged-TOAST placeholder somewhere in the batch (usually none)."""
    meta = [*order.COLUMNS, OP, SOURCE_TS, UNAVAILABLE]
    flat = parsed.select(*[F.col(f"{DATA}.{q(n)}").alias(n) for n in names], *meta, PARTITION, OFFSET)
    state = F.struct(*[F.col(q(n)) for n in names], *[F.col(c) for c in meta])
    not_delete = F.col(OP) != "d"
    fills = [c for c in toast if c not in keys]
    aggregates = [
        F.max_by(state, _order()).alias(LATEST),
        F.max_by(state, F.when(not_delete, _order())).alias(PREVIOUS),
    ]
    for i, c in enumerate(fills):
        carries = not_delete & ~F.array_contains(F.col(UNAVAILABLE), c)
        value = F.struct(F.col(q(c)).alias("v"), order.struct_of().alias("p"))
        aggregates.append(F.max_by(value, F.when(carries, _order())).alias(f"{FILL}{i}"))
    grouped = flat.groupBy(*[F.col(q(k)) for k in keys]).agg(*aggregates)

    latest, previous = F.col(LATEST), F.col(PREVIOUS)
    is_delete = latest[OP] == "d"
    filled = {c: F.col(f"{FILL}{i}") for i, c in enumerate(fills)}

    def value_of(image: Column, c: str) -> Column:
        if c not in filled:
            return image[c]
        gap = F.array_contains(image[UNAVAILABLE], c) & filled[c]["p"].isNotNull()
        return F.when(gap, filled[c]["v"]).otherwise(image[c])

    def still_unavailable(image: Column) -> Column:
        gone = F.array(*[F.when(filled[c]["p"].isNotNull(), F.lit(c)) for c in fills]) if fills else None
        if gone is None:
            return F.coalesce(image[UNAVAILABLE], F.array().cast("array<string>"))
        return F.coalesce(F.array_except(image[UNAVAILABLE], gone), F.array().cast("array<string>"))

    columns = []
    for n in names:
        if n in keys:
            columns.append(F.col(q(n)).alias(n))
        else:
            columns.append(F.when(is_delete, value_of(previous, n)).otherwise(value_of(latest, n)).alias(n))
    position_type = T.StructType([T.StructField(f.name, f.dataType, True) for f in order.STRUCT.fields])
    carried_type = T.MapType(T.StringType(), position_type, True)
    if fills:
        pairs = [x for c in fills for x in (F.lit(c), filled[c]["p"])]
        carried = F.map_filter(
            F.create_map(*pairs), lambda k, v: v.isNotNull() & F.array_contains(latest[UNAVAILABLE], k)
        )
        carried = F.when(is_delete, F.create_map().cast(carried_type)).otherwise(carried.cast(carried_type))
    else:
        carried = F.create_map().cast(carried_type)
    return grouped.select(
        *columns,
        *[latest[c].alias(c) for c in (*order.COLUMNS, OP, SOURCE_TS)],
        is_delete.alias(IS_DELETE),
        F.when(is_delete, still_unavailable(previous)).otherwise(still_unavailable(latest)).alias(UNAVAILABLE),
        carried.alias(CARRIED),
    )


def signed_rows(parsed: DataFrame, names: Sequence[str], after: SourcePosition | None) -> DataFrame:
    """Keyless tables: each change past `after` (the table's watermark; snapshot rows also at it) as whole-row
    removals (IS_DELETE) and additions; an update is its old row removed and its new row added, at its own
    position."""
    if after is not None:
        parsed = parsed.where(order.strictly_after(after) | ((F.col(OP) == "r") & order.at(after)))
    meta = [F.col(c) for c in (*order.COLUMNS, OP, SOURCE_TS)]

    def image(source: str, removal: bool) -> DataFrame:
        return parsed.select(
            *[F.col(f"{source}.{q(n)}").alias(n) for n in names], *meta, F.lit(removal).alias(IS_DELETE)
        )

    additions = image(DATA, False).where(F.col(OP) != "d")
    deleted = image(DATA, True).where(F.col(OP) == "d")
    replaced = image(BEFORE, True).where(F.col(OP) == "u")
    return additions.unionByName(deleted).unionByName(replaced)
