"""Scheduled maintenance: after a micro-batch, each table the batch wrote whose last OPTIMIZE (resp. VACUUM) is older
than `optimize_interval` (resp. `vacuum_interval`) gets `OPTIMIZE` (resp. `VACUUM … RETAIN <vacuum_retention>`);
Iceberg tables get `rewrite_data_files` (resp. `expire_snapshots` older than the retention), their last runs kept
as table properties (spark_sink/iceberg/format.py). The statements are the TableFormat's.

For Delta, the last run is read from the table's own Delta history (operations `OPTIMIZE` and `VACUUM END`), once per
table and job run, so the schedule holds across restarts and `available-now` runs; after that the job remembers when it
ran them. An OPTIMIZE that finds nothing to compact commits nothing, so the history does not show it: a restarted
job runs it again at its first batch (again a no-op). A failure is one error line and is tried again after the
interval: the batch's data is already committed, so maintenance never fails a batch.

Delta refuses a VACUUM retention below the table's `delta.deletedFileRetentionDuration` (7 days by default) unless
`spark.databricks.delta.retentionDurationCheck.enabled=false`; the error line says so.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

from py4j.protocol import Py4JError
from pyspark.errors import PySparkException
from pyspark.sql import SparkSession

from spark_sink.config import DELTA_MIN_RETENTION_HOURS, SinkConfig
from spark_sink.errors import first_line
from spark_sink.table_format import DELTA, TableFormat, TableRef

log = logging.getLogger("spark_sink")

OPTIMIZE, VACUUM = "OPTIMIZE", "VACUUM"
RETENTION_CHECK = "spark.databricks.delta.retentionDurationCheck.enabled"


@dataclass(frozen=True)
class Task:
    operation: str  # OPTIMIZE | VACUUM
    interval_ms: int


def tasks(config: SinkConfig) -> list[Task]:
    out = []
    if config.optimize_interval_ms is not None:
        out.append(Task(OPTIMIZE, config.optimize_interval_ms))
    if config.vacuum_interval_ms is not None:
        out.append(Task(VACUUM, config.vacuum_interval_ms))
    return out


def due(last_ms: int | None, interval_ms: int, now_ms: int) -> bool:
    """Never run, or last run at least an interval ago."""
    return last_ms is None or now_ms - last_ms >= interval_ms


class Maintenance:
    def __init__(self, spark: SparkSession, config: SinkConfig, fmt: TableFormat) -> None:
        self.spark = spark
        self.config = config
        self.format = fmt
        self.tasks = tasks(config)
        self._last: dict[tuple[str, str], int | None] = {}  # (table, operation) → last run (ms), this job run

    def after_batch(self, tables: Iterable[str], now_ms: int) -> None:
        for table in tables:
            ref = self.format.ref(table)
            for task in self.tasks:
                if (table, task.operation) not in self._last:
                    self._read_history(ref)
                if not due(self._last[(table, task.operation)], task.interval_ms, now_ms):
                    continue
                self._last[(table, task.operation)] = now_ms  # a failure is tried again after the interval too
                self._run(ref, task, now_ms)

    def _read_history(self, ref: TableRef) -> None:
        operations = [t.operation for t in self.tasks]
        last: dict[str, int] = {}
        try:
            last = self.format.last_maintenance(self.spark, ref, operations)
        except (PySparkException, Py4JError) as e:
            log.error("table %s: its history could not be read for maintenance: %s", ref.table, first_line(e))
        for operation in operations:
            self._last[(ref.table, operation)] = last.get(operation)

    def _run(self, ref: TableRef, task: Task, now_ms: int) -> None:
        work = self.format.maintenance(ref, task.operation, now_ms)
        try:
            self.spark.sql(work.statement).collect()
            self.format.maintained(self.spark, ref, task.operation, now_ms)
        except (PySparkException, Py4JError) as e:
            hint = ""
            if (
                task.operation == VACUUM
                and self.format.name == DELTA
                and self.config.vacuum_retention_hours < DELTA_MIN_RETENTION_HOURS
            ):
                hint = (
                    f" (a retention below the table's delta.deletedFileRetentionDuration, 7 days by default, needs "
                    f"{RETENTION_CHECK}=false)"
                )
            log.error("table %s: %s failed, the batch stands: %s%s", ref.table, task.operation, first_line(e), hint)
            return
        log.info("table %s: %s done (every %s)", ref.table, work.label, self._interval(task))

    def _interval(self, task: Task) -> str:
        return str(self.config.optimize_interval if task.operation == OPTIMIZE else self.config.vacuum_interval)
