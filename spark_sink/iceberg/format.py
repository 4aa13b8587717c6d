"""Apache Iceberg as the sink's table format (`table_format = "iceberg"`): every table is
`<catalog>.<database>.<table>` in an Iceberg catalog.

- Catalog: `catalog` names it (default `iceberg`), `database` is the namespace (default `default`). When the Spark
  configuration does not define `spark.sql.catalog.<catalog>`, the job defines it as a Hadoop catalog on the
  warehouse folder (no metastore: tables at `<warehouse>/<database>/<table>`, cache off so every batch sees the
  newest snapshot); otherwise the configured catalog (Hive, REST, Glue …) is used as it is.
- Tables are created format-version 2 with merge-on-read deletes, updates and MERGEs (position-delete files instead of
  rewritten data files: the sink's many small MERGEs stay cheap); configured properties go over these defaults.
- Evolution by `ALTER TABLE`: new columns and new fields of structs are added, and the type promotions Iceberg
  allows are applied (int → bigint, float → double, decimal(p, s) → decimal(p', s) with p' > p, also inside structs,
  arrays and maps). Spark's byte and short columns are stored as int by Iceberg, so narrower integer events are
  written as int. Every other change, the decimal scale and date → timestamp_ntz included (Delta widens those), is
  refused like an incompatible type change: the table's events go to the dead letter, or stop a fail_fast job.
  (Schema evolution by a schema-merging write needs `write.spark.accept-any-schema`, with which Spark 4.1 cannot
  resolve a MERGE into the table: the sink does not set it.)
- At most once per micro-batch (keyless tables' counted MERGE): the commit carries the writer and batch id in its
  snapshot summary (`cdc.app-id`, `cdc.batch-id`, through `spark.sql.iceberg.snapshot-property.*`), and a batch
  whose id is already in the table's snapshots is not written again. Expiring snapshots forgets these ids: keep
  snapshots longer than a replay can reach back (the vacuum retention).
- Versions are snapshot ids (`VERSION AS OF`); a MERGE reports no row counts, so the metrics say so.
- Maintenance: `OPTIMIZE` is `rewrite_data_files`, `VACUUM` is `expire_snapshots` older than `vacuum_retention`;
  their last runs are table properties (`cdc.last-optimize-ms`, `cdc.last-vacuum-ms`), so schedules survive restarts.
"""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from pyspark.errors import AnalysisException
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from spark_sink.config import TableLayout, join_path
from spark_sink.delta.tables import ICEBERG_SOFT
from spark_sink.iceberg import evolution
from spark_sink.table_format import ICEBERG, Maintenance, TableFormat, TableRef, q, sql_string

DEFAULT_DATABASE = "default"
CATALOG_CLASS = "org.apache.iceberg.spark.SparkCatalog"
SNAPSHOT_PROPERTY = "spark.sql.iceberg.snapshot-property."
APP_ID, BATCH_ID = "cdc.app-id", "cdc.batch-id"
LAST_RUN = {"OPTIMIZE": "cdc.last-optimize-ms", "VACUUM": "cdc.last-vacuum-ms"}
DEFAULTS = {
    "format-version": "2",
    "write.delete.mode": "merge-on-read",
    "write.update.mode": "merge-on-read",
    "write.merge.mode": "merge-on-read",
}


class IcebergFormat(TableFormat):
    name = ICEBERG
    soft_delete = ICEBERG_SOFT  # Iceberg reserves `_deleted` (a metadata column)

    def __init__(self, config: Any) -> None:
        super().__init__(config)
        self.catalog = config.catalog_name
        self.database = config.database or DEFAULT_DATABASE
        self._own_catalog = False
        self._namespace_ready = False
        self._namespace_lock = threading.Lock()  # tables of a batch are created side by side

    # -- naming ------------------------------------------------------------------------------------------------
    def prepare_session(self, spark: SparkSession) -> None:
        """Define the Hadoop catalog on the warehouse unless the configuration defines the catalog."""
        key = f"spark.sql.catalog.{self.catalog}"
        if spark.conf.get(key, None) is None:
            spark.conf.set(key, CATALOG_CLASS)
            spark.conf.set(f"{key}.type", "hadoop")
            spark.conf.set(f"{key}.warehouse", self.config.warehouse)
            spark.conf.set(f"{key}.cache-enabled", "false")
        self._own_catalog = spark.conf.get(f"{key}.type", None) == "hadoop" and spark.conf.get(
            f"{key}.warehouse", None
        ) == str(self.config.warehouse)

    def ref(self, table: str) -> TableRef:
        location = join_path(self.config.warehouse, self.database, table) if self._own_catalog else ""
        return TableRef(table, ".".join(q(p) for p in (self.catalog, self.database, table)), location, ICEBERG)

    def _in_catalog(self, ref: TableRef) -> str:
        """The table's name inside its catalog, as procedures take it."""
        return sql_string(f"{q(self.database)}.{q(ref.table)}")

    def _table(self, spark: SparkSession, ref: TableRef) -> Any:
        jvm: Any = spark._jvm
        return jvm.org.apache.iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, ref.sql)

    # -- shape -------------------------------------------------------------------------------------------------
    def exists(self, spark: SparkSession, ref: TableRef) -> bool:
        return bool(spark.catalog.tableExists(ref.sql))

    def widening_problem(self, table_type: T.DataType, target: T.DataType) -> str | None:
        return evolution.promotion_problem(table_type, target)

    def creation_defaults(self) -> dict[str, str]:
        return dict(DEFAULTS)

    def create(
        self,
        spark: SparkSession,
        ref: TableRef,
        schema: T.StructType,
        properties: Mapping[str, str],
        partition_columns: Sequence[str],
    ) -> None:
        with self._namespace_lock:
            if not self._namespace_ready:
                spark.sql(f"CREATE NAMESPACE IF NOT EXISTS {q(self.catalog)}.{q(self.database)}")
                self._namespace_ready = True
        columns = ", ".join(f"{q(f.name)} {evolution.ddl(spark, f.dataType)}" for f in schema.fields)
        statement = f"CREATE TABLE IF NOT EXISTS {ref.sql} ({columns}) USING iceberg"
        if partition_columns:
            statement += f" PARTITIONED BY ({', '.join(q(c) for c in partition_columns)})"
        if properties:
            settings = ", ".join(f"{sql_string(k)} = {sql_string(v)}" for k, v in properties.items())
            statement += f" TBLPROPERTIES ({settings})"
        spark.sql(statement)

    def evolve(
        self,
        spark: SparkSession,
        ref: TableRef,
        table_schema: T.StructType,
        new_columns: Sequence[T.StructField],
        widened: Sequence[T.StructField],
    ) -> None:
        for statement in evolution.statements(spark, ref.sql, table_schema, [*new_columns, *widened]):
            spark.sql(statement)

    def layout(self, spark: SparkSession, ref: TableRef) -> TableLayout:
        table = self._table(spark, ref)
        properties = {str(k): str(v) for k, v in dict(table.properties()).items()}
        # a reserved property: kept in the table metadata, not among its properties
        properties["format-version"] = str(table.operations().current().formatVersion())
        schema = table.schema()
        columns = [
            str(schema.findColumnName(f.sourceId()))
            for f in table.spec().fields()
            if str(f.transform().toString()) == "identity"
        ]
        return TableLayout(properties, tuple(columns))

    # -- versions ----------------------------------------------------------------------------------------------
    def version(self, spark: SparkSession, ref: TableRef) -> int:
        """The current snapshot id; -1 for a table without a snapshot yet."""
        snapshot = self._table(spark, ref).currentSnapshot()
        return -1 if snapshot is None else int(snapshot.snapshotId())

    def once_per_batch(
        self, spark: SparkSession, ref: TableRef, app_id: str, batch_id: int
    ) -> AbstractContextManager[bool]:
        return self._once(spark, ref, app_id, batch_id)

    @contextmanager
    def _once(self, spark: SparkSession, ref: TableRef, app_id: str, batch_id: int) -> Iterator[bool]:
        if self.committed_batch(spark, ref, app_id) >= batch_id:
            yield False
            return
        spark.conf.set(SNAPSHOT_PROPERTY + APP_ID, app_id)
        spark.conf.set(SNAPSHOT_PROPERTY + BATCH_ID, str(batch_id))
        try:
            yield True
        finally:
            spark.conf.unset(SNAPSHOT_PROPERTY + APP_ID)
            spark.conf.unset(SNAPSHOT_PROPERTY + BATCH_ID)

    def committed_batch(self, spark: SparkSession, ref: TableRef, app_id: str) -> int:
        """The newest batch id `app_id` committed to the table (-1: none among its snapshots)."""
        try:
            row = spark.sql(
                f"SELECT max(CAST(summary[{sql_string(BATCH_ID)}] AS BIGINT)) AS b FROM {ref.sql}.snapshots "
                f"WHERE summary[{sql_string(APP_ID)}] = {sql_string(app_id)}"
            ).first()
        except AnalysisException:
            return -1
        return -1 if row is None or row["b"] is None else int(row["b"])

    # -- maintenance -------------------------------------------------------------------------------------------
    def maintenance(self, ref: TableRef, operation: str, now_ms: int) -> Maintenance:
        procedure = f"{q(self.catalog)}.system"
        if operation == "OPTIMIZE":
            return Maintenance(f"CALL {procedure}.rewrite_data_files(table => {self._in_catalog(ref)})", "OPTIMIZE")
        hours = self.config.vacuum_retention_hours
        cutoff = dt.datetime.fromtimestamp(now_ms / 1000, dt.UTC) - dt.timedelta(hours=hours)
        stamp = cutoff.strftime("%Y-%m-%d %H:%M:%S.%f")
        statement = (
            f"CALL {procedure}.expire_snapshots(table => {self._in_catalog(ref)}, "
            f"older_than => TIMESTAMP_LTZ {sql_string(stamp + '+00:00')}, retain_last => 1)"
        )
        return Maintenance(statement, f"expire_snapshots older than {hours:g} hours")

    def last_maintenance(self, spark: SparkSession, ref: TableRef, operations: Sequence[str]) -> dict[str, int]:
        properties = dict(self._table(spark, ref).properties())
        out = {}
        for operation in operations:
            at = properties.get(LAST_RUN[operation])
            if at is not None:
                out[operation] = int(at)
        return out

    def maintained(self, spark: SparkSession, ref: TableRef, operation: str, now_ms: int) -> None:
        self.set_properties(spark, ref, {LAST_RUN[operation]: str(now_ms)})
