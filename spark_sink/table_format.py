"""The table format of the tables users read (`table_format`: delta | iceberg), behind one seam.

The sink's writes are Spark SQL on a table's SQL name (`MERGE INTO`, `UPDATE`, `DELETE FROM`, reads by
`spark.table`), which both formats accept, so the MERGE rules (spark_sink/delta/merge.py, scd2.py, multiset.py) are
written once. What differs lives in a TableFormat: how a table is named and found, created, evolved (which type
widenings it applies), laid out, versioned (the published cut), maintained, and how a write is made at most once per
micro-batch. Implementations: spark_sink/delta/format.py and spark_sink/iceberg/format.py.

The sink's own bookkeeping tables (delete ledgers, keyless watermarks, the transaction state, dead letters, the
published-cut log) are Delta tables under the warehouse in both formats.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

if TYPE_CHECKING:
    from spark_sink.config import SinkConfig, TableLayout
    from spark_sink.delta.tables import SoftDelete

DELTA, ICEBERG = "delta", "iceberg"
FORMATS = (DELTA, ICEBERG)


@dataclass(frozen=True)
class TableRef:
    """One table the sink writes: its sink name, its SQL name, where it lives."""

    table: str  # the sink's name of the table (config.table_name)
    sql: str  # the SQL name statements use: delta.`<path>` or <catalog>.<database>.<table>
    location: str  # the table's folder (Delta: its path; Iceberg: the Hadoop catalog's folder of it)
    format: str


@dataclass(frozen=True)
class Maintenance:
    """One scheduled maintenance statement, and how the log line names it."""

    statement: str
    label: str  # for the log line


class TableFormat:
    """What a table format does for the sink (one instance per job run)."""

    name = ""
    soft_delete: SoftDelete  # the soft-delete marking columns of its tables

    def __init__(self, config: SinkConfig) -> None:
        self.config = config

    # -- naming ------------------------------------------------------------------------------------------------
    def prepare_session(self, spark: SparkSession) -> None:
        """Session settings the format needs before the stream starts (a catalog definition)."""

    def ref(self, table: str) -> TableRef:
        raise NotImplementedError

    # -- shape -------------------------------------------------------------------------------------------------
    def exists(self, spark: SparkSession, ref: TableRef) -> bool:
        raise NotImplementedError

    def read(self, spark: SparkSession, ref: TableRef) -> DataFrame:
        return spark.table(ref.sql)

    def schema(self, spark: SparkSession, ref: TableRef) -> T.StructType:
        return self.read(spark, ref).schema

    def widening_problem(self, table_type: T.DataType, target: T.DataType) -> str | None:
        """Why the table cannot widen a column from `table_type` to `target`, None when it can."""
        raise NotImplementedError

    def evolution_settings(
        self, spark: SparkSession, ref: TableRef, widened: Sequence[T.StructField], ntz: Sequence[str]
    ) -> dict[tuple[str, str], str]:
        """Table properties to set before widening `widened` or adding the timestamp_ntz columns `ntz` (name, value
        → why); IncompatibleTableError when the table forbids it."""
        return {}

    def create(
        self,
        spark: SparkSession,
        ref: TableRef,
        schema: T.StructType,
        properties: Mapping[str, str],
        partition_columns: Sequence[str],
    ) -> None:
        raise NotImplementedError

    def creation_defaults(self) -> dict[str, str]:
        """Table properties every table the sink creates gets (the configured ones over them)."""
        return {}

    def evolve(
        self,
        spark: SparkSession,
        ref: TableRef,
        table_schema: T.StructType,
        new_columns: Sequence[T.StructField],
        widened: Sequence[T.StructField],
    ) -> None:
        """Add `new_columns` (and the new fields of grown structs) and widen `widened`."""
        raise NotImplementedError

    def set_properties(self, spark: SparkSession, ref: TableRef, properties: Mapping[str, str]) -> None:
        if properties:
            settings = ", ".join(f"{sql_string(k)} = {sql_string(v)}" for k, v in properties.items())
            spark.sql(f"ALTER TABLE {ref.sql} SET TBLPROPERTIES ({settings})")

    def layout(self, spark: SparkSession, ref: TableRef) -> TableLayout:
        raise NotImplementedError

    # -- versions ----------------------------------------------------------------------------------------------
    def version(self, spark: SparkSession, ref: TableRef) -> int:
        """The table's newest committed version (Delta version, Iceberg snapshot id)."""
        raise NotImplementedError

    def once_per_batch(
        self, spark: SparkSession, ref: TableRef, app_id: str, batch_id: int
    ) -> AbstractContextManager[bool]:
        """A context whose writes to `ref` commit at most once per (`app_id`, `batch_id`); it yields False when
        that batch's write is already committed (then write nothing)."""
        raise NotImplementedError

    # -- maintenance -------------------------------------------------------------------------------------------
    def maintenance(self, ref: TableRef, operation: str, now_ms: int) -> Maintenance:
        raise NotImplementedError

    def last_maintenance(self, spark: SparkSession, ref: TableRef, operations: Sequence[str]) -> dict[str, int]:
        """When each of `operations` last ran on the table (ms), as its history says."""
        raise NotImplementedError

    def maintained(self, spark: SparkSession, ref: TableRef, operation: str, now_ms: int) -> None:
        """Record that `operation` ran (formats whose history does not show it)."""


def q(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def sql_string(value: str) -> str:
    """A Spark SQL string literal."""
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def read_version(spark: SparkSession, ref: TableRef, version: int) -> DataFrame:
    """The table as of `version` (TableFormat.version; Iceberg's -1, no snapshot yet, is the empty table)."""
    if ref.format == ICEBERG:
        if version < 0:
            return spark.table(ref.sql).limit(0)
        return spark.read.option("versionAsOf", int(version)).table(ref.sql)
    return spark.read.format("delta").option("versionAsOf", int(version)).load(ref.location)


def for_config(config: SinkConfig) -> TableFormat:
    if config.table_format == ICEBERG:
        from spark_sink.iceberg.format import IcebergFormat

        return IcebergFormat(config)
    from spark_sink.delta.format import DeltaFormat

    return DeltaFormat(config)
