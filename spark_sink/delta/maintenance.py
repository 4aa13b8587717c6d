"""Scheduled maintenance: after a micro-batch, each table the batch wrote whose last OPTIMIZE (resp. VACUUM) is older
than `optimize_interval` (resp. `vacuum_interval`) gets `OPTIMIZE` (resp. `VACUUM … RETAIN <vacuum_retention>`).

The last run is read from the table's own Delta history (operations `OPTIMIZE` and `VACUUM END`), once per table
and job run, so the schedule holds across restarts and `available-now` runs; after that the job remembers when it
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

from delta.tables import DeltaTable
from py4j.protocol import Py4JError
from pyspark.errors import PySparkException
from pyspark.sql import SparkSession
from pyspark.sql import functions as F

from spark_sink.config import DELTA_MIN_RETENTION_HOURS, SinkConfig
from spark_sink.delta.tables import q
from spark_sink.errors import first_line

log = logging.getLogger("spark_sink")

OPTIMIZE, VACUUM = "OPTIMIZE", "VACUUM"
HISTORY_OPERATION = {OPTIMIZE: "OPTIMIZE", VACUUM: "VACUUM END"}  # the operation names in DESCRIBE HISTORY
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
    def __init__(self, spark: SparkSession, config: SinkConfig) -> None:
        self.spark = spark
        self.config = config
        self.tasks = tasks(config)
        self._last: dict[tuple[str, str], int | None] = {}  # (table, operation) → last run (ms), this job run

    def after_batch(self, tables: Iterable[str], now_ms: int) -> None:
        for table in tables:
            path = self.config.table_path(table)
            for task in self.tasks:
                if (table, task.operation) not in self._last:
                    self._read_history(table, path)
                if not due(self._last[(table, task.operation)], task.interval_ms, now_ms):
                    continue
                self._last[(table, task.operation)] = now_ms  # a failure is tried again after the interval too
                self._run(table, path, task)

    def _read_history(self, table: str, path: str) -> None:
        names = {HISTORY_OPERATION[t.operation]: t.operation for t in self.tasks}
        last: dict[str, int | None] = dict.fromkeys(names.values())
        try:
            rows = (
                DeltaTable.forPath(self.spark, path)
                .history()
                .where(F.col("operation").isin(list(names)))
                .groupBy("operation")
                .agg(F.max(F.unix_millis("timestamp")).alias("at"))
                .collect()
            )
            for r in rows:
                last[names[r["operation"]]] = int(r["at"])
        except (PySparkException, Py4JError) as e:
            log.error("table %s: its history could not be read for maintenance: %s", table, first_line(e))
        for operation, at in last.items():
            self._last[(table, operation)] = at

    def _run(self, table: str, path: str, task: Task) -> None:
        target = f"delta.{q(path)}"
        if task.operation == OPTIMIZE:
            statement = f"OPTIMIZE {target}"
        else:
            statement = f"VACUUM {target} RETAIN {self.config.vacuum_retention_hours:g} HOURS"
        try:
            self.spark.sql(statement).collect()
        except (PySparkException, Py4JError) as e:
            hint = ""
            if task.operation == VACUUM and self.config.vacuum_retention_hours < DELTA_MIN_RETENTION_HOURS:
                hint = (
                    f" (a retention below the table's delta.deletedFileRetentionDuration, 7 days by default, needs "
                    f"{RETENTION_CHECK}=false)"
                )
            log.error("table %s: %s failed, the batch stands: %s%s", table, task.operation, first_line(e), hint)
            return
        log.info("table %s: %s done (every %s)", table, statement.replace(target, path), self._interval(task))

    def _interval(self, task: Task) -> str:
        return str(self.config.optimize_interval if task.operation == OPTIMIZE else self.config.vacuum_interval)
