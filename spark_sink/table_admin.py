"""What the job does to its tables beyond writing rows: catalog names (`database`), table properties and partition
columns (`table_properties`, `partition_columns`) and scheduled OPTIMIZE/VACUUM (`optimize_interval`,
`vacuum_interval`), called by the batch handler's shared steps (spark_sink/batch.py) when the job's configuration
asks for any of them.

- Before a batch writes (`prepare`, part of the handler's table checks): a table to create gets its layout, a
  partition column that is not a column is refused, an existing table gets its differing properties (set in the
  commit before the batch's writes) and one warning for a differing partitioning, a catalog name taken by another
  table is refused. A refused table's events go to the dead letter (or stop a fail_fast job), as a schema error's do.
- After a batch (`after_batch`): the tables it wrote are registered
  in the catalog and maintained on schedule. Neither fails the batch, whose data is committed: a failure is one
  error line (registration is tried again next batch).

Catalog and layout checks are remembered per job run, so a steady batch costs no catalog or DESCRIBE call.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence

from pyspark.sql import SparkSession
from pyspark.sql import types as T

from spark_sink.config import SinkConfig
from spark_sink.delta import layout
from spark_sink.delta.catalog import CatalogNames
from spark_sink.delta.maintenance import Maintenance
from spark_sink.delta.tables import TableCheck
from spark_sink.errors import SPARK_ERRORS, first_line
from spark_sink.metrics import BatchMetrics
from spark_sink.table_format import DELTA, TableFormat

log = logging.getLogger("spark_sink")


class TableAdmin:
    """The job run's memory of its tables' names and layouts, and their maintenance."""

    def __init__(self, spark: SparkSession, config: SinkConfig, fmt: TableFormat) -> None:
        self.config = config
        self.spark = spark
        self.format = fmt
        # Delta paths get a catalog name as a second way in; Iceberg tables are catalog tables already
        self.catalog = CatalogNames(spark, config) if config.database and fmt.name == DELTA else None
        self.maintenance = Maintenance(spark, config, fmt)
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
        current = self.format.layout(self.spark, check.ref)
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
                    reason = first_line(e)
                    log.error("table %s: not registered in the catalog (tried again next batch): %s", table, reason)
        self.maintenance.after_batch(written, now_ms)
