"""What the job does to its tables beyond writing rows: catalog names (`database`), table properties and partition
columns (`table_properties`, `partition_columns`) and scheduled OPTIMIZE/VACUUM (`optimize_interval`,
`vacuum_interval`), around the batch processors of spark_sink/batch.py and spark_sink/stage/processor.py.

- Before a batch writes (the processors' table checks, extended here): a table to create gets its layout, a
  partition column that is not a column is refused, an existing table gets its differing properties (set in the
  commit before the batch's writes) and one warning for a differing partitioning, a catalog name taken by another
  table is refused. A refused table's events go to the dead letter (or stop a fail_fast job), as a schema error's do.
- After a batch (`AfterBatch`, the foreachBatch callable the job hands Spark): the tables it wrote are registered
  in the catalog and maintained on schedule. Neither fails the batch, whose data is committed: a failure is one
  error line (registration is tried again next batch).

Catalog and layout checks are remembered per job run, so a steady batch costs no catalog or DESCRIBE call.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from spark_sink.batch import SPARK_ERRORS, BatchProcessor, Reject, _Prepared
from spark_sink.config import SinkConfig
from spark_sink.decoding.base import Decoder
from spark_sink.delta import layout
from spark_sink.delta.catalog import CatalogNames
from spark_sink.delta.maintenance import Maintenance
from spark_sink.delta.tables import TableCheck
from spark_sink.metrics import BatchMetrics, TableMetrics
from spark_sink.planning import TablePlan
from spark_sink.stage.processor import DistributedBatchProcessor

log = logging.getLogger("spark_sink")


class TableAdmin:
    """The job run's memory of its tables' names and layouts, and their maintenance."""

    def __init__(self, spark: SparkSession, config: SinkConfig) -> None:
        self.config = config
        self.spark = spark
        self.catalog = CatalogNames(spark, config) if config.database else None
        self.maintenance = Maintenance(spark, config)
        self._laid_out: set[str] = set()  # existing tables found with the configured properties
        self._warned: set[str] = set()  # tables whose differing partitioning was reported

    def prepare(self, table: str, check: TableCheck, extra_fields: Sequence[T.StructField]) -> None:
        """Before the batch writes `table` (IncompatibleTableError, or a Spark error, refuses it)."""
        if self.catalog is not None:
            self.catalog.check(table, check.path)
        wanted = self.config.layout_for(table)
        if not check.exists:
            layout.for_creation(table, check, wanted, extra_fields)
            return
        if table in self._laid_out:
            return
        current = layout.detail(self.spark, check.path)
        warning = layout.partitioning_warning(table, wanted, current)
        if warning is not None and table not in self._warned:
            self._warned.add(table)
            log.warning(warning)
        if layout.align(check, wanted, current):
            self._laid_out.add(table)

    def after_batch(self, metrics: Iterable[BatchMetrics], now_ms: int) -> None:
        written = list(dict.fromkeys(t.table for m in metrics for t in m.tables if t.error is None))
        if self.catalog is not None:
            for table in written:
                try:
                    self.catalog.register(table, self.config.table_path(table))
                except SPARK_ERRORS as e:
                    text = str(e).strip()
                    reason = f"{type(e).__name__}: {text.splitlines()[0] if text else ''}"
                    log.error("table %s: not registered in the catalog (tried again next batch): %s", table, reason)
        self.maintenance.after_batch(written, now_ms)


class AdminBatchProcessor(BatchProcessor):
    """BatchProcessor whose table checks also apply the TableAdmin's (catalog names, layouts)."""

    def __init__(self, spark: SparkSession, config: SinkConfig, decoder: Decoder, admin: TableAdmin) -> None:
        super().__init__(spark, config, decoder)
        self.admin = admin

    def _check_all(self, plans: Iterable[TablePlan], metrics: BatchMetrics, reject: Reject) -> list[_Prepared]:
        kept = []
        for p in super()._check_all(plans, metrics, reject):
            table = p.plan.table
            try:
                self.admin.prepare(table, p.check, self._extra_fields(p.soft, p.scd2, p.plan.keyless))
            except SPARK_ERRORS as e:
                reason = f"{type(e).__name__}: {e}"
                self._fail_fast(f"table {table}: {reason}")
                log.error("table %s: its events go to the dead letter: %s", table, reason)
                n = reject(p.plan, "schema", reason)
                metrics.tables.append(TableMetrics(table, events=n, dead_letters=n, error=reason))
                continue
            kept.append(p)
        return kept


class AdminDistributedBatchProcessor(AdminBatchProcessor, DistributedBatchProcessor):
    """DistributedBatchProcessor with the TableAdmin's table checks."""


class AfterBatch:
    """The foreachBatch callable: the processor's batch, then registration and maintenance of the tables it wrote
    (at the processor's clock)."""

    def __init__(self, processor: AdminBatchProcessor) -> None:
        self.processor = processor

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        before = len(self.processor.history)
        self.processor(batch, batch_id)
        metrics = self.processor.history[before:]
        self.processor.admin.after_batch(metrics, int(self.processor.clock() * 1000))


def foreach_batch(processor: BatchProcessor) -> Any:
    """What the query calls per micro-batch: the processor, followed by AfterBatch when it administers tables."""
    return AfterBatch(processor) if isinstance(processor, AdminBatchProcessor) else processor
