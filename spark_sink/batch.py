"""The foreachBatch handler: decode → plan → check every table → apply table by table → dead letters → metrics.

Nothing is written before every table of the batch has been checked against its Delta table, so an incompatible
schema change fails the batch (fail-fast) or dead-letters that table's events (default) without half-applying it.
Each table's changes land in one MERGE (one Delta commit), plus one commit of its delete ledger when the batch
deletes or truncates. A batch replayed after a crash re-applies harmlessly: the position guard and the delete ledger
skip what was already applied, and the dead-letter append and the transaction state are idempotent per batch id.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from py4j.protocol import Py4JError
from pyspark.errors import PySparkException
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import types as T

from spark_sink.config import SinkConfig, join_path
from spark_sink.decoding.base import ChangeEvent, DecodeFailure, Decoder, RawRecord, Skipped, TxMarker
from spark_sink.delta import dead_letter, deletes, merge, multiset, published, scd2
from spark_sink.delta.tables import (
    META_FIELDS,
    SOFT_FIELDS,
    IncompatibleTableError,
    TableCheck,
    check_table,
    ensure_table,
    source_frame,
    ts_from_ms,
)
from spark_sink.errors import SPARK_ERRORS, SinkError
from spark_sink.metrics import BatchMetrics, TableMetrics
from spark_sink.planning import TablePlan, plan_batch
from spark_sink.table_admin import TableAdmin
from spark_sink.transactions import TransactionBuffer

log = logging.getLogger("spark_sink")
BATCH_END = "<batch end>"  # the `fault` hook's table name once everything of the batch is written


Reject = Callable[[TablePlan, str, str], int]  # (plan, stage, reason) → how many events went to the dead letter


@dataclass
class _Prepared:
    plan: TablePlan
    check: TableCheck
    soft: bool
    scd2: bool


def checkpoint_query_id(spark: SparkSession, checkpoint: str) -> str | None:
    """The id Spark keeps in `<checkpoint>/metadata` ({"id": …}), read through Spark (any file system)."""
    if not checkpoint:
        return None
    try:
        row = spark.read.json(join_path(checkpoint, "metadata")).select("id").first()
    except (PySparkException, Py4JError):
        return None
    return None if row is None or row["id"] is None else str(row["id"])


class BatchProcessor:
    def __init__(
        self,
        spark: SparkSession,
        config: SinkConfig,
        decoder: Decoder,
        *,
        clock: Callable[[], float] = time.time,
        fault: Callable[[int, str], None] | None = None,
    ) -> None:
        self.spark = spark
        self.config = config
        self.decoder = decoder
        self.clock = clock
        self.fault = fault  # test hook: called before each table is applied, and with BATCH_END at the end
        self.history: list[BatchMetrics] = []
        self.tx_buffer = TransactionBuffer(spark, config) if config.transaction_consistent else None
        self._writer_id: str | None = None
        self._cut: published.Cut | None = None  # the newest published cut (transaction-consistent mode)
        # catalog names, layouts, scheduled maintenance (spark_sink/table_admin.py), when the config asks for them
        self.admin = TableAdmin(spark, config) if config.manages_tables else None

    def _idempotence_id(self) -> str:
        """Who writes the dead letters, for Delta's idempotent writes (txnAppId + batch id): the streaming query's
        id from `<checkpoint>/metadata`, so a query restarted on a new checkpoint (batch ids from 0 again) is a new
        writer even under the same query name; the query name when there is no metadata (a direct call)."""
        if self._writer_id is None:
            self._writer_id = checkpoint_query_id(self.spark, self.config.checkpoint) or self.config.query_name
        return self._writer_id

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        rows = batch.select("topic", "partition", "offset", "key", "value", "timestamp").collect()
        records = [
            RawRecord(
                r["topic"],
                int(r["partition"]),
                int(r["offset"]),
                None if r["key"] is None else bytes(r["key"]),
                None if r["value"] is None else bytes(r["value"]),
                int(r["timestamp"].timestamp() * 1000) if r["timestamp"] is not None else None,
            )
            for r in rows
        ]
        self.process(records, batch_id)

    # -- the batch ------------------------------------------------------------------------------------------
    def process(self, records: Sequence[RawRecord], batch_id: int) -> BatchMetrics:
        started = self.clock()
        metrics = BatchMetrics(batch_id, records=len(records))
        letters: list[dead_letter.DeadLetter] = []
        events: list[ChangeEvent] = []
        markers: list[TxMarker] = []
        for raw in records:
            decoded = self.decoder.decode(raw)
            if isinstance(decoded, ChangeEvent):
                events.append(decoded)
            elif isinstance(decoded, TxMarker):
                markers.append(decoded)
                metrics.skipped += 1
            elif isinstance(decoded, Skipped):
                metrics.skipped += 1
            elif isinstance(decoded, DecodeFailure):
                self._fail_fast(f"cannot decode {raw.topic}[{raw.partition}]@{raw.offset}: {decoded.reason}")
                letters.append(dead_letter.DeadLetter(raw, self.config.table_name(raw.topic), "decode", decoded.reason))
        if self.tx_buffer is not None:
            events, metrics.held = self.tx_buffer.release(events, markers, self.decoder.decode)
        plan = plan_batch(events, self.config.table_name)
        for table, failed, reason in plan.failed:
            self._fail_fast(f"table {table}: {reason}")
            letters.extend(dead_letter.DeadLetter(e.raw, table, "plan", reason) for e in failed)
            metrics.tables.append(TableMetrics(table, events=len(failed), dead_letters=len(failed), error=reason))

        def reject(p: TablePlan, stage: str, reason: str) -> int:
            letters.extend(dead_letter.DeadLetter(ev.raw, p.table, stage, reason) for ev in p.events)
            return len(p.events)

        prepared = self._check_all(plan.tables, metrics, reject)
        for p in prepared:
            metrics.tables.append(self._apply(p, batch_id, letters))
        if letters:
            dead_letter.write(self.spark, self.config.dead_letter, self._idempotence_id(), batch_id, letters)
        metrics.dead_letters = len(letters)
        if self.tx_buffer is not None:  # only now: a batch killed before this point is replayed from the old state
            self._publish(batch_id, metrics, self.tx_buffer.released_through())
            self.tx_buffer.commit(batch_id)
        if self.fault is not None:
            self.fault(batch_id, BATCH_END)
        now_ms = int(self.clock() * 1000)
        stamps = [t for t in (p.max_source_ts_ms for p in plan.tables) if t is not None]
        metrics.lag_ms = now_ms - max(stamps) if stamps else None
        metrics.duration_ms = int((self.clock() - started) * 1000)
        return self._finished(metrics)

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
        paths = {t.table: self.config.table_path(t.table) for t in metrics.tables if t.error is None}
        written = {table: (p, published.table_version(self.spark, p)) for table, p in paths.items()}
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

    def _ledger(self, p: _Prepared) -> deletes.DeleteLedger:
        return deletes.DeleteLedger(
            self.spark, self.config.delete_ledger_path(p.plan.table), self._key_fields(p), self._expire_before_ms()
        )

    def _apply_failed(self, table: str, batch_id: int, error: Exception) -> str:
        """The reason a table's batch could not be applied (raised under fail_fast, else logged)."""
        reason = f"{type(error).__name__}: {str(error).splitlines()[0] if str(error) else ''}"
        self._fail_fast(f"table {table}: {reason}")
        log.error("table %s: applying batch %d failed, its events go to the dead letter: %s", table, batch_id, reason)
        return reason

    def _fail_fast(self, message: str) -> None:
        if self.config.fail_fast:
            raise SinkError(message)

    def _extra_fields(self, soft: bool, history: bool, keyless: bool = False) -> list[T.StructField]:
        if history:
            return list(META_FIELDS) + list(scd2.HISTORY_FIELDS)
        counted = [multiset.COUNT_FIELD] if keyless else []
        return list(META_FIELDS) + (list(SOFT_FIELDS) if soft else []) + counted

    def _check_all(self, plans: Iterable[TablePlan], metrics: BatchMetrics, reject: Reject) -> list[_Prepared]:
        """Each plan checked against its table; a failing table's events are rejected (dead-lettered) whole."""
        prepared = []
        for plan in plans:
            opts = self.config.options_for(plan.table)
            soft, history = opts.delete_mode == "soft", bool(opts.scd2)
            try:
                if history and plan.keyless:
                    raise IncompatibleTableError(
                        "scd2 history needs a primary key: the table has none (its changes have no record key)"
                    )
                extra = self._extra_fields(soft, history, plan.keyless)
                check = check_table(self.spark, self.config.table_path(plan.table), plan, extra)
                if self.admin is not None:
                    self.admin.prepare(plan.table, check, extra)
            except SPARK_ERRORS as e:
                reason = f"{type(e).__name__}: {e}"
                self._fail_fast(f"table {plan.table}: {reason}")
                log.error("table %s: its events go to the dead letter: %s", plan.table, reason)
                n = reject(plan, "schema", reason)
                metrics.tables.append(TableMetrics(plan.table, events=n, dead_letters=n, error=reason))
                continue
            prepared.append(_Prepared(plan, check, soft, history))
        return prepared

    @staticmethod
    def _key_fields(p: _Prepared) -> list[T.StructField]:
        """The key columns as the table stores them (schemaless columns are cast to the table's type)."""
        schema = p.check.data_schema
        return [T.StructField(k, p.check.casts.get(k, schema[k].dataType), True) for k in p.plan.key_columns]

    def _apply(self, p: _Prepared, batch_id: int, letters: list[dead_letter.DeadLetter]) -> TableMetrics:
        plan = p.plan
        tm = TableMetrics(plan.table, events=len(plan.events), changes=len(plan.changes))
        if plan.max_source_ts_ms is not None:
            tm.lag_ms = int(self.clock() * 1000) - plan.max_source_ts_ms
        try:
            if self.fault is not None:
                self.fault(batch_id, plan.table)
            extra = self._extra_fields(p.soft, p.scd2, plan.keyless)
            tm.added_columns = ensure_table(self.spark, p.check, extra)
            path = p.check.path
            if p.scd2:
                counts = scd2.apply(self.spark, path, plan, p.check)
            elif plan.keyless:
                counts = multiset.apply(
                    self.spark,
                    plan,
                    p.check,
                    soft=p.soft,
                    watermark_path=self.config.watermark_path(plan.table),
                    app_id=f"{self._idempotence_id()}-{plan.table}",
                    batch_id=batch_id,
                )
                tm.truncated = plan.truncate_at is not None
            else:
                ledger = self._ledger(p)
                if plan.truncate_at is not None:
                    truncate_event = max((e for e in plan.events if e.op == "t"), key=lambda e: e.position)
                    merge.truncate(self.spark, path, plan.truncate_at, merge.truncate_ts_sql(plan), p.soft)
                    ledger.record_truncate(plan.truncate_at, ts_from_ms(truncate_event.source_ts_ms))
                    tm.truncated = True
                counts = merge.MergeCounts()
                if plan.changes:
                    source = source_frame(self.spark, plan, p.check)
                    names = [f.name for f in p.check.data_schema.fields]
                    guarded = ledger.guard(source)
                    counts = merge.merge(self.spark, path, guarded, names, plan.key_columns, p.soft)
                    if not p.soft and any(e.op == "d" for e in plan.changes):
                        ledger.record_deletes(source)
            tm.inserted, tm.updated, tm.deleted = counts.inserted, counts.updated, counts.deleted
        except SPARK_ERRORS as e:
            reason = self._apply_failed(plan.table, batch_id, e)
            letters.extend(dead_letter.DeadLetter(ev.raw, plan.table, "apply", reason) for ev in plan.events)
            tm.error, tm.dead_letters = reason, len(plan.events)
        return tm
