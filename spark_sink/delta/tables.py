"""One target table's source DataFrame, schema check and evolution (Spark-facing), for both table formats: what
differs (which widenings a table applies, how it evolves) is the TableFormat's (spark_sink/table_format.py). Below,
the rules for Delta; Iceberg's promotions are narrower (spark_sink/iceberg/format.py).

Schema evolution, checked for every table of a batch before anything is written (an incompatible table sends its
events to the dead letter, or stops the job with fail_fast):
- A new source column is added to the table (existing rows hold NULL there).
- A type widening (spark_sink/types/widening.py: byte → short → int → long, float → double, decimal(p,s) →
  decimal(p+k,s+j) with k ≥ j ≥ 0, date → timestamp_ntz, also inside arrays, maps and structs) widens the column
  with Delta's type widening feature (`delta.enableTypeWidening`: set on every table the job creates, and set on an
  older table at its first widening, which a log line says), in the commit that adds the batch's new columns. The
  data files are not rewritten. A table's first timestamp_ntz column also needs the timestampNtz table feature,
  which Delta enables by itself only when it creates a table: it is enabled the same way.
- Events of a narrower type than the table's (older events after a widening: a worker re-sending them, a lagging
  partition; or a source narrowing such as bigint → int) are written as the table's type: their values fit. The
  table never narrows.
- Any other type change (int → string, timestamp → timestamp_ntz, a decimal losing scale or integer digits …) is
  refused with the column, the table's type and the source's type in the reason. The column keeps its type: to
  follow such a change, rename or drop the column in the Delta table (needs `delta.columnMapping.mode = 'name'`) and
  replay the dead letters.
- A column the source dropped stays in the table, as Debezium's JDBC sink leaves it (it adds columns but never drops
  or retypes them): rows inserted later hold NULL there, updates keep the stored value (the MERGE sets only the
  columns the batch's events carry), SCD2 versions written later hold NULL. Dropping user data is the operator's
  call. Within one batch that also holds events from before the drop, the column is in the batch's schema, and an
  update after the drop counts it as unavailable (as an unchanged TOAST value): the table keeps its value there too.
  A column dropped and added back is the same column again: with the same or a wider type its values continue
  (rows the source did not change since keep their pre-drop value: Debezium sends no event for ADD COLUMN); with a
  type that does not widen it is refused like any other type change.
"""

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
from spark_sink.planning import TablePlan
from spark_sink.position import SourcePosition
from spark_sink.spark_types import evolvable_struct, from_spark, same_type, to_spark
from spark_sink.table_format import TableFormat, TableRef
from spark_sink.table_format import q as q  # re-exported: the sink's modules name columns with it
from spark_sink.table_format import sql_string as sql_string
from spark_sink.types import widening

log = logging.getLogger("spark_sink")

OP, SOURCE_TS = "_cdc_op", "_cdc_source_ts"


@dataclass(frozen=True)
class SoftDelete:
    """The columns that mark a soft-deleted row (delete_mode = "soft"). Delta tables use `_deleted`/`_deleted_at`;
    Iceberg reserves `_deleted` for a metadata column, so its tables use `_cdc_deleted`/`_cdc_deleted_at`."""

    deleted: str = "_deleted"
    deleted_at: str = "_deleted_at"

    def fields(self) -> list[T.StructField]:
        return [
            T.StructField(self.deleted, T.BooleanType(), True),
            T.StructField(self.deleted_at, T.TimestampType(), True),
        ]


DELTA_SOFT, ICEBERG_SOFT = SoftDelete(), SoftDelete("_cdc_deleted", "_cdc_deleted_at")
IS_DELETE, UNAVAILABLE, CARRIED = "__cdc_delete", "__cdc_unavailable", "__cdc_carried"
POSITION_FIELDS = [T.StructField(c, T.LongType(), True) for c in POSITION_COLUMNS]
META_FIELDS = [
    *POSITION_FIELDS,
    T.StructField(OP, T.StringType(), True),
    T.StructField(SOURCE_TS, T.TimestampType(), True),
]
SOFT_NAMES = {n for s in (DELTA_SOFT, ICEBERG_SOFT) for n in (s.deleted, s.deleted_at)}
RESERVED = {EPOCH, POS, SEQ, OP, SOURCE_TS, *SOFT_NAMES, IS_DELETE, UNAVAILABLE, CARRIED}


def position_values(pos: SourcePosition) -> tuple[int, int, int]:
    """The position columns' values (POSITION_FIELDS order; also a POSITION struct)."""
    return (pos.epoch, pos.major, pos.seq)


class IncompatibleTableError(ValueError):
    """The incoming events cannot be written to the existing table without losing or misreading data."""


NULL_TS = "CAST(NULL AS TIMESTAMP)"  # SQL: no timestamp


def ts_from_ms(ms: int | None) -> dt.datetime | None:
    return None if ms is None else dt.datetime.fromtimestamp(ms / 1000, dt.UTC)


def union_all(frames: Sequence[DataFrame]) -> DataFrame:
    """The rows of every frame (at least one), matched by column name."""
    union = frames[0]
    for frame in frames[1:]:
        union = union.unionByName(frame)
    return union


@dataclass
class TableCheck:
    """The result of comparing a plan with its table, before anything is written."""

    ref: TableRef
    exists: bool
    data_schema: T.StructType  # the batch's data columns (Spark types)
    new_columns: list[T.StructField] = field(default_factory=list)
    # columns written as another type than the batch's: schemaless ones and narrower ones, as the table's type
    casts: dict[str, T.DataType] = field(default_factory=dict)
    table_schema: T.StructType | None = None
    widened: list[T.StructField] = field(default_factory=list)  # columns whose type the table widens to
    # table properties the evolution needs first (type widening, the timestampNtz feature) → why, for the log
    enable: dict[tuple[str, str], str] = field(default_factory=dict)
    # a table still to create: the configured table properties and partition columns (spark_sink/delta/layout.py)
    properties: dict[str, str] = field(default_factory=dict)
    partition_columns: list[str] = field(default_factory=list)

    @property
    def path(self) -> str:
        """How messages name the table: its folder, else its SQL name."""
        return self.ref.location or self.ref.sql


def check_table(
    spark: SparkSession, fmt: TableFormat, ref: TableRef, plan: TablePlan, extra_fields: Sequence[T.StructField]
) -> TableCheck:
    clash = RESERVED & set(plan.schema.names)
    if clash:
        raise IncompatibleTableError(f"source columns {sorted(clash)} collide with the sink's own columns")
    data_schema = T.StructType([T.StructField(n, to_spark(t), True) for n, t in plan.schema.columns])
    if not fmt.exists(spark, ref):
        return TableCheck(ref, False, data_schema)
    table_schema = fmt.schema(spark, ref)
    have = {f.name: f.dataType for f in table_schema.fields}
    check = TableCheck(ref, True, data_schema, table_schema=table_schema)
    missing_meta = [f.name for f in extra_fields if f.name not in have]
    if missing_meta:
        raise IncompatibleTableError(
            f"table {check.path} lacks the sink columns {missing_meta} (created with another delete mode or not by "
            "this job)"
        )
    sink_columns = RESERVED | {f.name for f in extra_fields}
    has_data = any(name not in sink_columns for name in have)  # a truncate-only first batch creates no data columns
    for key in plan.key_columns:
        if key not in have and has_data:
            raise IncompatibleTableError(f"key column {key!r} is not in table {check.path}: the source key changed")
    source_types = dict(plan.schema.columns)
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
            check.new_columns.append(f)  # the table adds the nested fields
        else:
            table_type = from_spark(existing)
            target = None if table_type is None else widening.common(table_type, source_types[f.name])
            why = None if target is None else fmt.widening_problem(existing, to_spark(target))
            if target is None or why is not None:
                problems.append(
                    f"column {f.name!r}: table has {existing.simpleString()}, source now sends "
                    f"{f.dataType.simpleString()}" + ("" if why is None else f" ({why})")
                )
                continue
            if not same_type(to_spark(target), existing):
                check.widened.append(T.StructField(f.name, to_spark(target), True))
            if target != source_types[f.name]:
                check.casts[f.name] = to_spark(target)
    if problems:
        raise IncompatibleTableError(
            f"incompatible type change for table {check.path}: "
            + "; ".join(problems)
            + f" (not a type widening {fmt.name.capitalize()} applies: the table keeps its type)"
        )
    ntz = [f.name for f in check.new_columns + check.widened if _has_ntz(f.dataType)]
    check.enable.update(fmt.evolution_settings(spark, ref, check.widened, ntz))
    return check


def _has_ntz(t: T.DataType) -> bool:
    if isinstance(t, T.TimestampNTZType):
        return True
    if isinstance(t, T.ArrayType):
        return _has_ntz(t.elementType)
    if isinstance(t, T.MapType):
        return _has_ntz(t.keyType) or _has_ntz(t.valueType)
    if isinstance(t, T.StructType):
        return any(_has_ntz(f.dataType) for f in t.fields)
    return False


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
    spark: SparkSession,
    path: str,
    schema: T.StructType,
    properties: dict[str, str] | None = None,
    partition_columns: Sequence[str] = (),
) -> None:
    """Create a Delta table at `path` (no-op if one exists), recovering from a creation killed before its commit
    (a committed table's log always holds its commits, so the clean-up never touches it)."""
    if clear_aborted_creation(spark, path):
        log.warning("table %s: removed the log of a creation killed before its first commit; creating it again", path)
    builder = DeltaTable.createIfNotExists(spark).location(path).addColumns(schema)
    for name, value in (properties or {}).items():
        builder = builder.property(name, value)
    if partition_columns:
        builder = builder.partitionedBy(*partition_columns)
    builder.execute()


def ensure_table(
    spark: SparkSession, fmt: TableFormat, check: TableCheck, extra_fields: Sequence[T.StructField]
) -> list[str]:
    """Create the table, or add the new source columns and widen the widened ones (schema evolution, after the
    table properties it needs are set). Returns the added column names."""
    if not check.exists:
        schema = T.StructType(list(check.data_schema.fields) + list(extra_fields))
        properties = {**fmt.creation_defaults(), **check.properties}
        fmt.create(spark, check.ref, schema, properties, check.partition_columns)
        check.exists = True
        return []
    if check.enable:
        fmt.set_properties(spark, check.ref, {name: value for name, value in check.enable})
        for (name, value), why in check.enable.items():
            log.info("table %s: %s (%s = %s)", check.path, why, name, value)
        check.enable = {}
    if check.new_columns or check.widened:
        fmt.evolve(spark, check.ref, check.table_schema or T.StructType([]), check.new_columns, check.widened)
    if check.widened:
        old = {f.name: f.dataType for f in check.table_schema or []}
        changes = ", ".join(
            f"{f.name} {old[f.name].simpleString()} → {f.dataType.simpleString()}" for f in check.widened
        )
        log.info("table %s: widened %s", check.path, changes)
    return [f.name for f in check.new_columns]
