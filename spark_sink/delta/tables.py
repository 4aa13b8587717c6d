"""One target table's source DataFrame, schema check and evolution (Spark-facing)."""

from __future__ import annotations

import datetime as dt
import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from delta.tables import DeltaTable
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from spark_sink.delta.order import COLUMNS as POSITION_COLUMNS
from spark_sink.delta.order import EPOCH, POS, SEQ
from spark_sink.delta.order import STRUCT as POSITION
from spark_sink.planning import TablePlan
from spark_sink.position import SourcePosition
from spark_sink.spark_types import evolvable_struct, same_type, to_spark
from spark_sink.types import infer

log = logging.getLogger("spark_sink")

OP, SOURCE_TS = "_cdc_op", "_cdc_source_ts"
DELETED, DELETED_AT = "_deleted", "_deleted_at"
IS_DELETE, UNAVAILABLE, CARRIED = "__cdc_delete", "__cdc_unavailable", "__cdc_carried"
POSITION_FIELDS = [T.StructField(c, T.LongType(), True) for c in POSITION_COLUMNS]
META_FIELDS = [
    *POSITION_FIELDS,
    T.StructField(OP, T.StringType(), True),
    T.StructField(SOURCE_TS, T.TimestampType(), True),
]
SOFT_FIELDS = [T.StructField(DELETED, T.BooleanType(), True), T.StructField(DELETED_AT, T.TimestampType(), True)]
RESERVED = {EPOCH, POS, SEQ, OP, SOURCE_TS, DELETED, DELETED_AT, IS_DELETE, UNAVAILABLE, CARRIED}


def position_values(pos: SourcePosition) -> tuple[int, int, int]:
    """The position columns' values (POSITION_FIELDS order; also a POSITION struct)."""
    return (pos.epoch, pos.major, pos.seq)


class IncompatibleTableError(ValueError):
    """The incoming events cannot be written to the existing table without losing or misreading data."""


def q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def ts_from_ms(ms: int | None) -> dt.datetime | None:
    return None if ms is None else dt.datetime.fromtimestamp(ms / 1000, dt.UTC)


@dataclass
class TableCheck:
    """The result of comparing a plan with its table, before anything is written."""

    path: str
    exists: bool
    data_schema: T.StructType  # the batch's data columns (Spark types)
    new_columns: list[T.StructField] = field(default_factory=list)
    casts: dict[str, T.DataType] = field(default_factory=dict)  # schemaless columns cast to the table's type
    table_schema: T.StructType | None = None


def check_table(spark: SparkSession, path: str, plan: TablePlan, extra_fields: Sequence[T.StructField]) -> TableCheck:
    clash = RESERVED & set(plan.schema.names)
    if clash:
        raise IncompatibleTableError(f"source columns {sorted(clash)} collide with the sink's own columns")
    data_schema = T.StructType([T.StructField(n, to_spark(t), True) for n, t in plan.schema.columns])
    if not DeltaTable.isDeltaTable(spark, path):
        return TableCheck(path, False, data_schema)
    table_schema = DeltaTable.forPath(spark, path).toDF().schema
    have = {f.name: f.dataType for f in table_schema.fields}
    check = TableCheck(path, True, data_schema, table_schema=table_schema)
    missing_meta = [f.name for f in extra_fields if f.name not in have]
    if missing_meta:
        raise IncompatibleTableError(
            f"table {path} lacks the sink columns {missing_meta} (created with another delete mode or not by this job)"
        )
    sink_columns = RESERVED | {f.name for f in extra_fields}
    has_data = any(name not in sink_columns for name in have)  # a truncate-only first batch creates no data columns
    for key in plan.key_columns:
        if key not in have and has_data:
            raise IncompatibleTableError(f"key column {key!r} is not in table {path}: the source key changed")
    problems = []
    for f in data_schema.fields:
        existing = have.get(f.name)
        if existing is None:
            check.new_columns.append(f)
        elif same_type(existing, f.dataType):
            continue
        elif not plan.typed:
            check.casts[f.name] = existing
        elif evolvable_struct(existing, f.dataType):
            check.new_columns.append(f)  # mergeSchema adds the nested fields
        else:
            problems.append(
                f"{f.name}: table has {existing.simpleString()}, source now sends {f.dataType.simpleString()}"
            )
    if problems:
        raise IncompatibleTableError(f"incompatible type change for table {path}: " + "; ".join(problems))
    return check


def clear_aborted_creation(spark: SparkSession, path: str) -> bool:
    """Remove the `_delta_log` of a creation that was killed before its first commit; True if one was removed.

    Delta makes the log directory (with an empty `_staged_commits/` in Delta 4) before it writes version 0. A job
    killed in between leaves a log without any commit or checkpoint, which `isDeltaTable` calls no table and
    `createIfNotExists` refuses forever (DELTA_TABLE_NOT_FOUND). Nothing was ever committed there, so nothing is
    lost by removing it. Only a log whose files, at any depth, are all hidden temporary files
    (`.<version>.json.<uuid>.tmp`) counts as aborted: empty directories do not count, and any other file (a
    commit, checkpoint, checksum, `_last_checkpoint`, a commit under `_commits/` or `_staged_commits/`) leaves
    the log untouched."""
    context: Any = spark.sparkContext  # the Hadoop FileSystem of the path, through py4j: local, HDFS or object store
    log = context._jvm.org.apache.hadoop.fs.Path(path.rstrip("/") + "/_delta_log")
    fs = log.getFileSystem(context._jsc.hadoopConfiguration())
    if not fs.exists(log):
        return False
    files = fs.listFiles(log, True)  # every file below the log, directories left out
    while files.hasNext():
        if not files.next().getPath().getName().startswith("."):
            return False
    return bool(fs.delete(log, True))


def create_table(
    spark: SparkSession, path: str, schema: T.StructType, properties: dict[str, str] | None = None
) -> None:
    """Create a Delta table at `path` (no-op if one exists), recovering from a creation killed before its commit
    (a committed table's log always holds its commits, so the clean-up never touches it)."""
    if clear_aborted_creation(spark, path):
        log.warning("table %s: removed the log of a creation killed before its first commit; creating it again", path)
    builder = DeltaTable.createIfNotExists(spark).location(path).addColumns(schema)
    for name, value in (properties or {}).items():
        builder = builder.property(name, value)
    builder.execute()


def ensure_table(spark: SparkSession, check: TableCheck, extra_fields: Sequence[T.StructField]) -> list[str]:
    """Create the table or add the new source columns (schema evolution). Returns the added column names."""
    if not check.exists:
        schema = T.StructType(list(check.data_schema.fields) + list(extra_fields))
        create_table(spark, check.path, schema, {"delta.enableChangeDataFeed": "false"})
        check.exists = True
        return []
    if check.new_columns:
        empty = spark.createDataFrame([], T.StructType(check.new_columns))
        empty.write.format("delta").mode("append").option("mergeSchema", "true").save(check.path)
        return [f.name for f in check.new_columns]
    return []


def source_frame(
    spark: SparkSession, plan: TablePlan, check: TableCheck, events: Sequence[Any] | None = None
) -> DataFrame:
    """The batch's changes for one table as a DataFrame: data columns, position, op, delete flag, and the list of
    columns whose value is the unchanged-TOAST placeholder."""
    names = [f.name for f in check.data_schema.fields]
    types = {n: t for n, t in plan.schema.columns}
    schema = T.StructType(
        list(check.data_schema.fields)
        + META_FIELDS
        + [
            T.StructField(IS_DELETE, T.BooleanType(), False),
            T.StructField(UNAVAILABLE, T.ArrayType(T.StringType()), True),
            T.StructField(CARRIED, T.MapType(T.StringType(), POSITION), True),
        ]
    )
    rows = []
    for e in plan.changes if events is None else events:
        row = e.row or {}
        if e.typed:
            values = [row.get(n) for n in names]
        else:
            values = [infer.coerce(row.get(n), types[n]) for n in names]
        rows.append(
            (
                *values,
                *position_values(e.position),
                e.op,
                ts_from_ms(e.source_ts_ms),
                e.op == "d",
                sorted(e.unavailable),
                {c: position_values(p) for c, p in e.carried.items()},
            )
        )
    frame = spark.createDataFrame(rows, schema)
    for name, target in check.casts.items():
        frame = frame.withColumn(name, frame[name].cast(target))
    return frame
