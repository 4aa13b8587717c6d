"""What every micro-batch shares (the handler itself is spark_sink/stage/processor.py): the table checks, the delete
ledger and dead-letter identity, fail-fast, the published cut, table administration and metrics.

Nothing is written before every table of the batch has been checked against its table (Delta or Iceberg), so an
incompatible schema change fails the batch (fail-fast) or dead-letters that table's events (default) without
half-applying it. Each table's changes land in one MERGE (one commit); the delete ledger of all the batch's tables
takes one more commit (spark_sink/delta/deletes.py). A batch replayed after a crash re-applies harmlessly: the
position guard and the delete ledger skip what was already applied, and the ledger and dead-letter appends and the
transaction state are idempotent per batch id.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from py4j.protocol import Py4JError
from pyspark.errors import PySparkException
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from spark_sink import table_format
from spark_sink.config import SinkConfig, join_path
from spark_sink.delta import deletes, multiset, published, scd2
from spark_sink.delta.tables import (
    META_FIELDS,
    IncompatibleTableError,
    SoftDelete,
    TableCheck,
    check_table,
)
from spark_sink.errors import SPARK_ERRORS, SinkError, first_line
from spark_sink.metrics import BatchMetrics, TableMetrics
from spark_sink.planning import TablePlan
from spark_sink.table_admin import TableAdmin

log = logging.getLogger("spark_sink")
BATCH_END = "<batch end>"  # the `fault` hook's table name once everything of the batch is written


Reject = Callable[[TablePlan, str, str], int]  # (plan, stage, reason) → how many events went to the dead letter


@dataclass
class _Prepared:
    plan: TablePlan
    check: TableCheck
    soft: SoftDelete | None  # delete_mode = "soft": the table's marking columns
    scd2: bool
    extra: list[T.StructField]  # the table's columns beyond the data (_extra_fields)


def checkpoint_query_id(spark: SparkSession, checkpoint: str) -> str | None:
    """The id Spark keeps in `<checkpoint>/metadata` ({"id": …}), read through Spark (any file system)."""
    if not checkpoint:
        return None
    try:
        row = spark.read.json(join_path(checkpoint, "metadata")).select("id").first()
    except (PySparkException, Py4JError):
        return None
    return None if row is None or row["id"] is None else str(row["id"])


class BatchSteps:
    def __init__(
        self,
        spark: SparkSession,
        config: SinkConfig,
        *,
        clock: Callable[[], float] = time.time,
        fault: Callable[[int, str], None] | None = None,
    ) -> None:
        self.spark = spark
        self.config = config
        self.clock = clock
        self.fault = fault  # test hook: called before each table is applied, and with BATCH_END at the end
        self.history: list[BatchMetrics] = []
        self._writer_id: str | None = None
        self._cut: published.Cut | None = None  # the newest published cut (transaction-consistent mode)
        self.format = table_format.for_config(config)  # Delta or Iceberg tables (spark_sink/table_format.py)
        self.format.prepare_session(spark)
        self.ledger = deletes.DeleteLedger(
            spark,
            config.delete_ledger_path,
            config.legacy_delete_ledger_path,
            read_table=lambda table: self.format.read(spark, self.format.ref(table)),
        )
        # catalog names, layouts, scheduled maintenance (spark_sink/table_admin.py), when the config asks for them
        self.admin = TableAdmin(spark, config, self.format) if config.manages_tables else None

    def _idempotence_id(self) -> str:
        """Who writes the dead letters, for Delta's idempotent writes (txnAppId + batch id): the streaming query's
        id from `<checkpoint>/metadata`, so a query restarted on a new checkpoint (batch ids from 0 again) is a new
        writer even under the same query name; the query name when there is no metadata (a direct call)."""
        if self._writer_id is None:
            self._writer_id = checkpoint_query_id(self.spark, self.config.checkpoint) or self.config.query_name
        return self._writer_id

    def _finished(self, metrics: BatchMetrics) -> BatchMetrics:
        """Log the batch, then register and maintain the tables it wrote (never failing it: its data is committed)."""
        for t in metrics.tables:
            log.info(t.line(metrics.batch_id))
        log.info(metrics.line())
        self.history.append(metrics)
        if self.admin is not None:
            self.admin.after_batch([metrics], int(self.clock() * 1000))
        return metrics

    def _publish(self, batch_id: int, metrics: BatchMetrics, through: int | None) -> None:
        """Publish the cut after this batch: the versions of the tables it wrote, the others' carried over
        (spark_sink/delta/published.py). Before the transaction state: a batch killed in between is replayed, and
        its second publication is skipped by Delta."""
        path = published.log_path(self.config.warehouse, self.config.query_name)
        if self._cut is None:
            self._cut = published.latest(self.spark, path) or published.Cut(-1)
        refs = [self.format.ref(t.table) for t in metrics.tables if t.error is None]
        written = {ref.table: (ref, self.format.version(self.spark, ref)) for ref in refs}
        if not written and through == self._cut.released_through:
            return  # nothing new to publish
        cut = self._cut.advanced(batch_id, written, through)
        now = dt.datetime.fromtimestamp(self.clock(), dt.UTC).replace(tzinfo=None)
        published.publish(self.spark, path, f"{self._idempotence_id()}-published", cut, now)
        self._cut = cut
        metrics.published_tables = len(cut.tables)

    def _expire_before_ms(self) -> int | None:
        """Delete-ledger entries of deletes older than this (source time) are forgotten (`delete_ledger_retention`)."""
        retention = self.config.delete_ledger_retention_ms
        return None if retention is None else int(self.clock() * 1000) - retention

    def _apply_failed(self, table: str, batch_id: int, error: Exception) -> str:
        """The reason a table's batch could not be applied (raised under fail_fast, else logged)."""
        reason = first_line(error)
        self._fail_fast(f"table {table}: {reason}")
        log.error("table %s: applying batch %d failed, its events go to the dead letter: %s", table, batch_id, reason)
        return reason

    def _fail_fast(self, message: str) -> None:
        if self.config.fail_fast:
            raise SinkError(message)

    def _extra_fields(self, soft: SoftDelete | None, history: bool, keyless: bool = False) -> list[T.StructField]:
        if history:
            return list(META_FIELDS) + list(scd2.HISTORY_FIELDS)
        counted = [multiset.COUNT_FIELD] if keyless else []
        return list(META_FIELDS) + (soft.fields() if soft is not None else []) + counted

    def _check_all(self, plans: Iterable[TablePlan], metrics: BatchMetrics, reject: Reject) -> list[_Prepared]:
        """Each plan checked against its table; a failing table's events are rejected (dead-lettered) whole."""
        prepared = []
        for plan in plans:
            opts = self.config.options_for(plan.table)
            soft = self.format.soft_delete if opts.delete_mode == "soft" else None
            history = bool(opts.scd2)
            try:
                if history and plan.keyless:
                    raise IncompatibleTableError(
                        "scd2 history needs a primary key: the table has none (its changes have no record key)"
                    )
                extra = self._extra_fields(soft, history, plan.keyless)
                check = check_table(self.spark, self.format, self.format.ref(plan.table), plan, extra)
                if self.admin is not None:
                    self.admin.prepare(plan.table, check, extra)
            except SPARK_ERRORS as e:
                reason = f"{type(e).__name__}: {e}"
                self._fail_fast(f"table {plan.table}: {reason}")
                log.error("table %s: its events go to the dead letter: %s", plan.table, reason)
                n = reject(plan, "schema", reason)
                metrics.tables.append(TableMetrics(plan.table, events=n, dead_letters=n, error=reason))
                continue
            prepared.append(_Prepared(plan, check, soft, history, extra))
        return prepared

    @staticmethod
    def _key_fields(p: _Prepared) -> list[T.StructField]:
        """The key columns as the table stores them (schemaless columns are cast to the table's type)."""
        schema = p.check.data_schema
        return [T.StructField(k, p.check.casts.get(k, schema[k].dataType), True) for k in p.plan.key_columns]
