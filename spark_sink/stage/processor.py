"""The foreachBatch handler: decode on the executors → summarize → plan and check every table on the driver →
reduce and MERGE on the executors, up to `table_parallelism` tables at once (spark_sink/stage/side_by_side.py) →
dead letters → published cut → metrics.

The contract is spark_sink/batch.py's (whose shared steps it extends): nothing is written before every table of the
batch has been checked, a table that fails goes whole to the dead letter (or fails the batch under fail_fast),
replays re-apply harmlessly. The driver never sees a record, only aggregates (spark_sink/stage/summary.py), so the
job's throughput grows with its executors. Transaction-consistent mode holds and releases decoded rows
(spark_sink/stage/transactions.py); SCD2 history rows are built by spark_sink/stage/history.py.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

from pyspark import StorageLevel
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.util import inheritable_thread_target

from spark_sink.batch import BATCH_END, BatchSteps, _Prepared
from spark_sink.delta import dead_letter, deletes, merge, multiset, scd2, statement, watermark
from spark_sink.delta.tables import NULL_TS, IncompatibleTableError, ensure_table, ts_from_ms
from spark_sink.errors import SPARK_ERRORS, first_line
from spark_sink.metrics import BatchMetrics, TableMetrics
from spark_sink.planning import TablePlan
from spark_sink.stage import history, reduce, side_by_side
from spark_sink.stage.decode import EVENT, FAILURE, DecodeStage, spark_schema
from spark_sink.stage.summary import BatchSummary, TableSummary, summarize
from spark_sink.stage.transactions import HeldTransactions

log = logging.getLogger("spark_sink")


class BatchProcessor(BatchSteps):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.held = HeldTransactions(self.spark, self.config) if self.config.transaction_consistent else None

    def __call__(self, batch: DataFrame, batch_id: int) -> None:
        started = self.clock()
        raw = batch.select(
            "topic", "partition", "offset", "key", "value", F.unix_millis("timestamp").alias("timestamp_ms")
        )
        if self.held is not None:
            raw = self.held.with_held(raw)
        decoded = raw.mapInArrow(DecodeStage(self.config), spark_schema()).persist(StorageLevel.MEMORY_AND_DISK)
        try:
            held = 0
            applied = decoded
            if self.held is not None:
                applied, held = self.held.release(decoded)
            self.process_decoded(applied, batch_id, started, held)
        finally:
            decoded.unpersist()

    def process_decoded(self, decoded: DataFrame, batch_id: int, started: float, held: int = 0) -> BatchMetrics:
        summary = summarize(decoded)
        metrics = BatchMetrics(batch_id, records=summary.records, skipped=summary.skipped, held=held)
        letters: list[DataFrame] = []
        if summary.failures:
            self._fail_fast(f"cannot decode {summary.failures} records, the first: {summary.first_failure}")
            failures = decoded.where(F.col("kind") == FAILURE)
            letters.append(dead_letter.letters_of(failures, F.col("tbl"), "decode", F.col("reason")))

        by_table = {t.table: t for t in summary.tables}

        def events_of(table: str) -> DataFrame:
            return decoded.where((F.col("kind") == EVENT) & (F.col("tbl") == table))

        def reject(plan: TablePlan, stage: str, reason: str) -> int:
            letters.append(dead_letter.letters_of(events_of(plan.table), F.lit(plan.table), stage, F.lit(reason)))
            return by_table[plan.table].events

        for table, n, reason in summary.failed:
            self._fail_fast(f"table {table}: {reason}")
            letters.append(dead_letter.letters_of(events_of(table), F.lit(table), "plan", F.lit(reason)))
            metrics.tables.append(TableMetrics(table, events=n, dead_letters=n, error=reason))
        plans = [_plan(t) for t in summary.tables]
        ledger = _LedgerWrites()
        try:
            applied = side_by_side.run_all(
                self._check_all(plans, metrics, reject),
                lambda p: self._apply_table(p, by_table[p.plan.table], decoded, batch_id, reject, ledger),
                self.config.table_parallelism,
                alone=lambda p: p.plan.keyless,  # their MERGE's at-most-once rides on session settings
                carry=_carry(decoded.sparkSession),
            )
            metrics.tables.extend(applied)
            # after every table's MERGE, in one commit (a batch killed before it is replayed and appends it then)
            newest = {t.table: t.newest for t in summary.tables}
            self.ledger.append(ledger.items, f"{self._idempotence_id()}-ledger", batch_id, newest)
        finally:
            for frame in ledger.cached:
                frame.unpersist()
        if ledger.items and batch_id % deletes.COMPACT_EVERY == deletes.COMPACT_EVERY - 1:
            self._compact_ledger()
        if letters:
            dead_letter.write_frames(self.spark, self.config.dead_letter, self._idempotence_id(), batch_id, letters)
        metrics.dead_letters = summary.failures + sum(t.dead_letters for t in metrics.tables)
        if self.held is not None:  # only now: a batch killed before this point is replayed from the old state
            self._publish(batch_id, metrics, self.held.released_through())
            self.held.commit(batch_id)
        if self.fault is not None:
            self.fault(batch_id, BATCH_END)
        return self._finish(metrics, summary, started)

    def _finish(self, metrics: BatchMetrics, summary: BatchSummary, started: float) -> BatchMetrics:
        now_ms = int(self.clock() * 1000)
        stamps = [t.max_source_ts_ms for t in summary.tables if t.max_source_ts_ms is not None]
        metrics.lag_ms = now_ms - max(stamps) if stamps else None
        metrics.duration_ms = int((self.clock() - started) * 1000)
        return self._finished(metrics)

    def _compact_ledger(self) -> None:
        try:
            self.ledger.compact(self._expire_before_ms())
        except SPARK_ERRORS as e:  # nothing is lost: the items stay until the next compaction
            log.error("compacting the delete ledger %s failed (tried again later): %s", self.ledger.path, first_line(e))

    def _apply_table(
        self, p: _Prepared, summary: TableSummary, decoded: DataFrame, batch_id: int, reject: Any, ledger: _LedgerWrites
    ) -> TableMetrics:
        plan = p.plan
        tm = TableMetrics(plan.table, events=summary.events)
        if summary.max_source_ts_ms is not None:
            tm.lag_ms = int(self.clock() * 1000) - summary.max_source_ts_ms
        try:
            if self.fault is not None:
                self.fault(batch_id, plan.table)
            tm.added_columns = ensure_table(self.spark, self.format, p.check, p.extra)
            target = p.check.ref.sql
            names = [f.name for f in p.check.data_schema.fields]
            # SCD1 tables keep a dropped column's value (as across batches); SCD2 versions and keyless rows do not
            dropped = {} if p.scd2 or plan.keyless else reduce.missing_columns(names, summary.schema_columns)
            parsed = reduce.parsed_events(decoded, plan.table, p.check, summary.truncate_at, dropped)
            truncate_ts = NULL_TS
            if summary.truncate_ts_ms is not None:
                truncate_ts = f"timestamp_millis({summary.truncate_ts_ms})"
            if p.scd2:
                self.ledger.prepare(plan.table, self._key_fields(p))
                if summary.truncate_at is not None:
                    scd2.close_truncated(self.spark, target, summary.truncate_at, truncate_ts)
                    ledger.add(plan.table, self._truncate_item(plan.table, summary))
                # a replay of changes an earlier batch's truncate cut (no version holds their positions)
                parsed = self.ledger.after_truncate(plan.table, parsed, summary.oldest)
                stored = self.format.read(parsed.sparkSession, p.check.ref)  # joined with the batch: its session
                staged = history.staged_history(stored, parsed, names, plan.key_columns, summary.toast)
                counts = scd2.merge_staged(target, staged, names, plan.key_columns)
                tm.changes = summary.events
            elif plan.keyless:
                multiset.check_order(*summary.first_partition, summary.unknown_order)
                multiset.refuse_maps(p.check)
                if summary.refusal:
                    raise IncompatibleTableError(summary.refusal)
                path = self.config.watermark_path(plan.table)
                applied = watermark.read(self.spark, path)
                for at, ts in ((summary.truncate_at, truncate_ts), (summary.snapshot_at, NULL_TS)):
                    if at is not None and multiset.past(at, applied):  # a truncate or a new snapshot
                        multiset.remove_older(self.spark, target, at, ts, p.soft)
                app_id = f"{self._idempotence_id()}-{plan.table}"
                signed = reduce.signed_rows(parsed, names, applied)
                counts = multiset.merge_signed(self.format, p.check, signed, p.soft, app_id, batch_id)
                if summary.newest is not None and (applied is None or summary.newest > applied):
                    watermark.write(self.spark, path, summary.newest, f"{app_id}-watermark", batch_id)
            else:
                keys = self._key_fields(p)
                self.ledger.prepare(plan.table, keys)
                if summary.truncate_at is not None:
                    merge.truncate(self.spark, target, summary.truncate_at, truncate_ts, p.soft)
                    ledger.add(plan.table, self._truncate_item(plan.table, summary))
                counts = statement.MergeCounts()  # no change, no MERGE: zero is exact in every format
                tm.changes = summary.keys
                if summary.data_events:
                    toast = tuple(sorted({*summary.toast, *dropped}))
                    source = reduce.latest_per_key(parsed, names, plan.key_columns, toast)
                    source = ledger.cache(source.persist(StorageLevel.MEMORY_AND_DISK))  # until the ledger append
                    cutoff = self._expire_before_ms()
                    guarded = self.ledger.guard(plan.table, source, keys, cutoff, summary.oldest)
                    items = None  # the guarded changes' deletes and the keys they bring back, appended later
                    if p.soft is None and (summary.deletes or guarded.read):
                        items = self.ledger.items(plan.table, guarded, keys, cutoff)
                    counts = merge.merge(target, guarded.frame, names, plan.key_columns, p.soft, toast)
                    if items is not None:
                        ledger.add(plan.table, items)
            tm.truncated = summary.truncate_at is not None
            tm.inserted, tm.updated, tm.deleted = counts.inserted, counts.updated, counts.deleted
            tm.counted = counts.exact
        except SPARK_ERRORS as e:
            reason = self._apply_failed(plan.table, batch_id, e)
            tm.error, tm.dead_letters = reason, reject(plan, "apply", reason)
        return tm

    def _truncate_item(self, table: str, summary: TableSummary) -> DataFrame:
        assert summary.truncate_at is not None
        return self.ledger.truncate_item(table, summary.truncate_at, ts_from_ms(summary.truncate_ts_ms))


class _LedgerWrites:
    """What a batch's tables add to the delete ledger (appended in one commit once all are applied), and the
    reduced changes those items are read from (cached until then). Filled from the table threads."""

    def __init__(self) -> None:
        self.items: list[tuple[str, DataFrame]] = []
        self.cached: list[DataFrame] = []
        self._lock = threading.Lock()

    def add(self, table: str, items: DataFrame) -> None:
        with self._lock:
            self.items.append((table, items))

    def cache(self, frame: DataFrame) -> DataFrame:
        with self._lock:
            self.cached.append(frame)
        return frame


def _carry(session: SparkSession) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """What carries the batch's Spark local properties and session tags into the table threads, taken now (at the
    batch's start). Without pinned threads (PYSPARK_PIN_THREAD=false) PySpark has nothing to carry and hands its
    argument back: the work then runs as it is."""
    wrapper: Any = inheritable_thread_target(session)
    return (lambda work: work) if wrapper is session else wrapper


def _plan(t: TableSummary) -> TablePlan:
    """The planning facts of a summarized table, in the shape the table checks take (no events: they stay on the
    executors)."""
    return TablePlan(
        table=t.table,
        topics=t.topics,
        events=(),
        changes=(),
        truncate_at=t.truncate_at,
        schema=t.schema,
        key_columns=t.key_columns,
        typed=t.typed,
        keyless=t.keyless,
    )
