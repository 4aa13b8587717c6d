"""Published cuts: the table versions a reader may combine (transaction-consistent mode).

Neither Delta nor Iceberg (with a Hadoop catalog) has a commit spanning several tables: a micro-batch updates its
tables one commit after another, and a job killed between two of them leaves one table with a transaction's changes
and another without (the replayed batch completes it). A reader who reads each table's newest version can therefore
see half a source transaction. The job publishes, at the end of every micro-batch, after all its tables are written,
the version of every table it has written so far: a *cut*. In transaction-consistent mode each cut holds whole source
transactions, a prefix of the source's commit order (spark_sink/transactions.py), so a reader who reads the tables at
the versions of one cut (`VERSION AS OF`, or `read_cut`) never sees half a transaction.

The cuts are rows of a Delta table at `<warehouse>/_cdc_published/<query name>` (batch_id, table, path, version,
released_through, format, name; versions are Delta versions or Iceberg snapshot ids), appended once per batch id
(Delta `txnAppId`/`txnVersion`): a batch replayed after a crash does not publish twice, and a batch killed before its
append publishes nothing, so no cut ever names a version written by an attempt that did not finish. A cut carries the
versions of tables the batch did not write over from the previous cut."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pyspark.errors import AnalysisException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.config import join_path
from spark_sink.table_format import DELTA, TableRef, q, read_version

SCHEMA = T.StructType(
    [
        T.StructField("batch_id", T.LongType(), False),
        T.StructField("published_at", T.TimestampType(), False),
        T.StructField("table", T.StringType(), False),
        T.StructField("path", T.StringType(), False),
        T.StructField("version", T.LongType(), False),
        T.StructField("released_through", T.LongType(), True),
        T.StructField("format", T.StringType(), True),  # delta | iceberg (absent in logs of older jobs: delta)
        T.StructField("name", T.StringType(), True),  # the table's SQL name
    ]
)


DIR = "_cdc_published"


def log_path(warehouse: str, query_name: str) -> str:
    return join_path(warehouse, DIR, query_name)


@dataclass(frozen=True)
class Cut:
    batch_id: int
    tables: Mapping[str, tuple[TableRef, int]] = field(default_factory=dict)  # table → (table, version)
    released_through: int | None = None  # commit LSN of the newest source transaction the cut holds

    def advanced(self, batch_id: int, written: Mapping[str, tuple[TableRef, int]], released_through: int | None) -> Cut:
        return Cut(batch_id, {**self.tables, **written}, released_through)


def _log(spark: SparkSession, log_path: str) -> DataFrame | None:
    """The cut log, None before the first cut. Not `DeltaTable.isDeltaTable`: it answers from a cached log that
    a reader polling for the first cut would never see change."""
    try:
        return spark.read.format("delta").load(log_path)
    except AnalysisException as e:
        if e.getCondition() in ("DELTA_MISSING_DELTA_TABLE", "PATH_NOT_FOUND", "DELTA_TABLE_NOT_FOUND"):
            return None
        raise


def cuts(spark: SparkSession, log_path: str) -> list[Cut]:
    """Every published cut, oldest first."""
    log = _log(spark, log_path)
    if log is None:
        return []
    by_batch: dict[int, dict[str, tuple[TableRef, int]]] = {}
    through: dict[int, int | None] = {}
    for r in log.collect():
        by_batch.setdefault(r["batch_id"], {})[r["table"]] = (_ref(r), r["version"])
        through[r["batch_id"]] = r["released_through"]
    return [Cut(b, by_batch[b], through[b]) for b in sorted(by_batch)]


def latest(spark: SparkSession, log_path: str) -> Cut | None:
    """The newest published cut (None: nothing published yet)."""
    log = _log(spark, log_path)
    if log is None:
        return None
    newest = log.agg(F.max("batch_id").alias("b")).collect()[0]["b"]
    if newest is None:
        return None
    rows = log.where(F.col("batch_id") == newest).collect()
    return Cut(int(newest), {r["table"]: (_ref(r), r["version"]) for r in rows}, rows[0]["released_through"])


def _ref(row: Any) -> TableRef:
    d = row.asDict()
    fmt = d.get("format") or DELTA
    return TableRef(d["table"], d.get("name") or f"delta.{q(d['path'])}", d["path"], fmt)


def read_cut(spark: SparkSession, cut: Cut) -> dict[str, DataFrame]:
    """The tables of a cut, each at its published version."""
    return {table: read_version(spark, ref, version) for table, (ref, version) in cut.tables.items()}


def publish(spark: SparkSession, log_path: str, app_id: str, cut: Cut, now: dt.datetime) -> None:
    """Append the cut (all its tables), at most once per (`app_id`, batch id)."""
    rows = [
        (cut.batch_id, now, table, ref.location, version, cut.released_through, ref.format, ref.sql)
        for table, (ref, version) in sorted(cut.tables.items())
    ]
    (
        spark.createDataFrame(rows, SCHEMA)
        .write.format("delta")
        .mode("append")
        .option("mergeSchema", "true")  # a log of an older job has no format/name columns yet
        .option("txnAppId", app_id)
        .option("txnVersion", cut.batch_id)
        .save(log_path)
    )
