"""Delta Lake as the sink's table format: tables are paths `<warehouse>/<table>` (SQL name delta.`<path>`), named in
a catalog only as a second way in (spark_sink/delta/catalog.py).

- Evolution: new columns and nested fields by a schema-merging empty append; type widenings by Delta's type widening
  feature (`delta.enableTypeWidening`, set on every table the job creates and on an older table at its first
  widening), in the commit that adds the batch's new columns. A table's first timestamp_ntz column also needs the
  timestampNtz table feature, which Delta enables by itself only when it creates a table.
- At most once per micro-batch: Delta's idempotent writes (`txnAppId`/`txnVersion`, spark_sink/delta/txn.py).
- Versions: Delta versions; maintenance: `OPTIMIZE`, `VACUUM … RETAIN`, their last runs read from the history.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from typing import Any

from delta.tables import DeltaTable
from py4j.protocol import Py4JError
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.config import TableLayout
from spark_sink.delta import txn
from spark_sink.delta.tables import DELTA_SOFT
from spark_sink.spark_types import from_spark
from spark_sink.table_format import DELTA, Maintenance, TableFormat, TableRef, q
from spark_sink.types import widening

log = logging.getLogger("spark_sink")

TYPE_WIDENING = "delta.enableTypeWidening"  # the table property of Delta's type widening feature
NTZ_FEATURE = "delta.feature.timestampNtz"  # timestamp_ntz columns need it; Delta sets it itself only on creation
HISTORY_OPERATION = {"OPTIMIZE": "OPTIMIZE", "VACUUM": "VACUUM END"}  # the operation names in DESCRIBE HISTORY


class DeltaFormat(TableFormat):
    name = DELTA
    soft_delete = DELTA_SOFT

    def ref(self, table: str) -> TableRef:
        path = self.config.table_path(table)
        return TableRef(table, f"delta.{q(path)}", path, DELTA)

    def exists(self, spark: SparkSession, ref: TableRef) -> bool:
        return bool(DeltaTable.isDeltaTable(spark, ref.location))

    def read(self, spark: SparkSession, ref: TableRef) -> DataFrame:
        return spark.read.format("delta").load(ref.location)

    def widening_problem(self, table_type: T.DataType, target: T.DataType) -> str | None:
        old, new = from_spark(table_type), from_spark(target)
        if old is not None and new is not None and widening.widens(old, new):
            return None
        return "not a type widening Delta applies"

    def evolution_settings(
        self, spark: SparkSession, ref: TableRef, widened: Sequence[T.StructField], ntz: Sequence[str]
    ) -> dict[tuple[str, str], str]:
        from spark_sink.delta.tables import IncompatibleTableError

        if not widened and not ntz:
            return {}
        detail = DeltaTable.forPath(spark, ref.location).detail().select("properties", "tableFeatures").first()
        props = dict(detail["properties"] or {}) if detail is not None else {}
        features = set(detail["tableFeatures"] or ()) if detail is not None else set()
        widening_on = props.get(TYPE_WIDENING)
        enable: dict[tuple[str, str], str] = {}
        if widened and widening_on is not None and widening_on.strip().lower() != "true":
            columns = ", ".join(f"{f.name!r}" for f in widened)
            raise IncompatibleTableError(
                f"table {ref.location} has type widening disabled ({TYPE_WIDENING} = {widening_on}): cannot widen "
                f"{columns}"
            )
        if widened and widening_on is None:  # created before the job enabled it, or not by the job
            enable[(TYPE_WIDENING, "true")] = "type widening enabled for its first widened column"
        if ntz and "timestampNtz" not in features:  # Delta adds this feature by itself only when creating a table
            enable[(NTZ_FEATURE, "supported")] = f"table feature timestampNtz enabled for {', '.join(ntz)}"
        return enable

    def creation_defaults(self) -> dict[str, str]:
        return {"delta.enableChangeDataFeed": "false", TYPE_WIDENING: "true"}

    def create(
        self,
        spark: SparkSession,
        ref: TableRef,
        schema: T.StructType,
        properties: Mapping[str, str],
        partition_columns: Sequence[str],
    ) -> None:
        from spark_sink.delta.tables import create_table

        create_table(spark, ref.location, schema, dict(properties), partition_columns)

    def evolve(
        self,
        spark: SparkSession,
        ref: TableRef,
        table_schema: T.StructType,
        new_columns: Sequence[T.StructField],
        widened: Sequence[T.StructField],
    ) -> None:
        empty = spark.createDataFrame([], T.StructType([*new_columns, *widened]))
        empty.write.format("delta").mode("append").option("mergeSchema", "true").save(ref.location)

    def layout(self, spark: SparkSession, ref: TableRef) -> TableLayout:
        row = DeltaTable.forPath(spark, ref.location).detail().select("properties", "partitionColumns").first()
        if row is None:
            return TableLayout()
        return TableLayout(dict(row["properties"] or {}), tuple(row["partitionColumns"] or ()))

    def version(self, spark: SparkSession, ref: TableRef) -> int:
        """The log's newest version (no Spark job); the history's on another Delta release's signature."""
        jvm: Any = spark._jvm
        try:
            delta_log = jvm.org.apache.spark.sql.delta.DeltaLog.forTable(spark._jsparkSession, ref.location)
            empty = jvm.scala.Option.empty()
            return int(delta_log.update(False, empty, empty).version())
        except Py4JError:
            newest = DeltaTable.forPath(spark, ref.location).history(1).select("version").collect()
            return int(newest[0]["version"])

    def once_per_batch(
        self, spark: SparkSession, ref: TableRef, app_id: str, batch_id: int
    ) -> AbstractContextManager[bool]:
        return _once(spark, app_id, batch_id)

    def maintenance(self, ref: TableRef, operation: str, now_ms: int) -> Maintenance:
        if operation == "OPTIMIZE":
            return Maintenance(f"OPTIMIZE {ref.sql}", f"OPTIMIZE {ref.location}")
        hours = f"{self.config.vacuum_retention_hours:g}"
        return Maintenance(f"VACUUM {ref.sql} RETAIN {hours} HOURS", f"VACUUM {ref.location} RETAIN {hours} HOURS")

    def last_maintenance(self, spark: SparkSession, ref: TableRef, operations: Sequence[str]) -> dict[str, int]:
        names = {HISTORY_OPERATION[o]: o for o in operations}
        rows = (
            DeltaTable.forPath(spark, ref.location)
            .history()
            .where(F.col("operation").isin(list(names)))
            .groupBy("operation")
            .agg(F.max(F.unix_millis("timestamp")).alias("at"))
            .collect()
        )
        return {names[r["operation"]]: int(r["at"]) for r in rows}


@contextmanager
def _once(spark: SparkSession, app_id: str, batch_id: int) -> Iterator[bool]:
    with txn.once_per_batch(spark, app_id, batch_id):  # Delta skips the commit itself when already done
        yield True
