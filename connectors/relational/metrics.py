"""Debezium's connector metrics (snapshot and streaming MBeans) on top of connect_worker.api.metrics.

Debezium registers `debezium.<plugin>:type=connector-metrics,context=snapshot|streaming,server=<topic.prefix>`;
here they become the groups `debezium_<plugin>_connector_metrics` tagged `context` and `server` (plus the
task's `connector` and `task`), with Debezium's attribute names. A task makes them once and reports events::

    from connectors.relational.metrics import SnapshotMetrics, StreamingMetrics
    from connect_worker.api.metrics import task_metrics

    group = task_metrics(self.context)
    snap = SnapshotMetrics(group, "postgres", server, queue_capacity=q.capacity, queue_remaining=q.remaining)
    stream = StreamingMetrics(group, "postgres", server, queue_capacity=..., queue_remaining=...)
    snap.started(["public.a", "public.b"]); snap.rows_scanned("public.a", 10_000); snap.table_done("public.a")
    snap.completed()
    stream.connected(True); stream.event("c", source_ts_ms=...); stream.filtered(); stream.committed_transaction()

Only plain attribute writes happen per event; time is read when a scrape reads the gauges.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, ClassVar

from connect_worker.api.metrics import MetricsGroup

_OPS = {"c": "Create", "r": "Create", "u": "Update", "d": "Delete"}


class _CommonMetrics:
    #: Debezium's MBean context (snapshot, streaming)
    context: ClassVar[str]

    def __init__(
        self,
        task_group: MetricsGroup,
        plugin: str,
        server: str,
        *,
        queue_capacity: int | None = None,
        queue_remaining: Callable[[], int] | None = None,
    ) -> None:
        self.group = task_group.group(f"debezium_{plugin}_connector_metrics", context=self.context, server=server)
        g = self.group
        self._last_event: float | None = None
        self.seen = g.counter("TotalNumberOfEventsSeen", "Events seen since the connector started or was reset.")
        self.filtered_events = g.counter("NumberOfEventsFiltered", "Events dropped by include/exclude filters.")
        g.gauge(
            "MilliSecondsSinceLastEvent",
            "Milliseconds since the last event was read and processed (-1: none yet).",
            fn=self._since_last,
        )
        if queue_capacity is not None:
            g.gauge("QueueTotalCapacity", "Capacity of the queue between the reader and poll().").set(queue_capacity)
        if queue_remaining is not None:
            g.gauge("QueueRemainingCapacity", "Free capacity of that queue.", fn=queue_remaining)

    def _since_last(self) -> float:
        return -1 if self._last_event is None else (time.monotonic() - self._last_event) * 1000

    def _event(self) -> None:
        self.seen.inc()
        self._last_event = time.monotonic()

    def filtered(self, count: int = 1) -> None:
        self.filtered_events.inc(count)

    def close(self) -> None:
        self.group.close()


class SnapshotMetrics(_CommonMetrics):
    """context=snapshot: running/completed/aborted, table counts, rows scanned per table, duration."""

    context = "snapshot"

    def __init__(self, task_group: MetricsGroup, plugin: str, server: str, **queue: Any) -> None:
        super().__init__(task_group, plugin, server, **queue)
        g = self.group
        self.running = g.gauge("SnapshotRunning", "1 while the snapshot runs.")
        self.completed_flag = g.gauge("SnapshotCompleted", "1 once the snapshot completed.")
        self.aborted = g.gauge("SnapshotAborted", "1 if the snapshot was aborted.")
        self.total_tables = g.gauge("TotalTableCount", "Tables in the snapshot.")
        self.remaining_tables = g.gauge("RemainingTableCount", "Tables not yet copied.")
        self._started: float | None = None
        self._ended: float | None = None
        g.gauge("SnapshotDurationInSeconds", "Seconds the snapshot took (so far).", fn=self._duration)
        self.paused_flag = g.gauge("SnapshotPaused", "1 while an incremental snapshot is paused.")
        self._paused_since: float | None = None
        self._paused_total = 0.0
        g.gauge(
            "SnapshotPausedDurationInSeconds", "Seconds incremental snapshots were paused.", fn=self._paused_seconds
        )
        self._chunk_info: dict[str, Any] = {}

    def _duration(self) -> float:
        if self._started is None:
            return 0
        return (self._ended if self._ended is not None else time.monotonic()) - self._started

    def started(self, tables: Iterable[str]) -> None:
        n = len(list(tables))
        self._started, self._ended = time.monotonic(), None
        self.running.set(True)
        self.completed_flag.set(False)
        self.aborted.set(False)
        self.total_tables.set(n)
        self.remaining_tables.set(n)

    def rows_scanned(self, table: str, rows: int) -> None:
        """Rows copied so far from `table` (Debezium updates it every 10,000 rows and at the table's end)."""
        self.group.gauge("RowsScanned", "Rows scanned per table.", labels={"table": table}).set(rows)

    def event(self) -> None:
        self._event()

    def table_done(self, table: str, rows: int | None = None) -> None:
        if rows is not None:
            self.rows_scanned(table, rows)
        self.remaining_tables.dec()

    def _paused_seconds(self) -> float:
        running = time.monotonic() - self._paused_since if self._paused_since is not None else 0.0
        return self._paused_total + running

    def paused(self, value: bool) -> None:
        """An incremental snapshot was paused or resumed."""
        self.paused_flag.set(value)
        now = time.monotonic()
        if value and self._paused_since is None:
            self._paused_since = now
        elif not value and self._paused_since is not None:
            self._paused_total += now - self._paused_since
            self._paused_since = None

    def chunk(self, chunk_id: str | None, first: str | None, last: str | None, table_to: str | None) -> None:
        """The incremental snapshot's current chunk (Debezium's ChunkId, ChunkFrom, ChunkTo and, from a table's
        first chunk, TableFrom and TableTo): text attributes, exposed as a series labelled with the value."""
        values: dict[str, str | None] = {"ChunkId": chunk_id, "ChunkFrom": first, "ChunkTo": last}
        if table_to is not None or chunk_id is None:
            values["TableFrom"] = first
            values["TableTo"] = table_to
        for name, value in values.items():
            old = self._chunk_info.pop(name, None)
            if old is not None:
                self.group.discard(old)
            if value is not None:
                gauge = self.group.gauge(name, f"Incremental snapshot: {name} (as the label).", labels={"value": value})
                gauge.set(1)
                self._chunk_info[name] = gauge

    def completed(self) -> None:
        self._ended = time.monotonic()
        self.running.set(False)
        self.completed_flag.set(True)

    def aborted_now(self) -> None:
        self._ended = time.monotonic()
        self.running.set(False)
        self.aborted.set(True)


class StreamingMetrics(_CommonMetrics):
    """context=streaming: connection state, lag behind the source, transactions, events by operation."""

    context = "streaming"

    def __init__(self, task_group: MetricsGroup, plugin: str, server: str, **queue: Any) -> None:
        super().__init__(task_group, plugin, server, **queue)
        g = self.group
        self.connected_flag = g.gauge("Connected", "1 while connected to the database's replication stream.")
        self.behind = g.gauge(
            "MilliSecondsBehindSource", "Last event's source timestamp vs. processing time (-1: none yet)."
        )
        self.behind.set(-1)
        self.transactions = g.counter("NumberOfCommittedTransactions", "Committed transactions processed.")
        self._by_op = {
            word: g.counter(f"TotalNumberOf{word}EventsSeen", f"{word} events seen.")
            for word in ("Create", "Update", "Delete")
        }

    def connected(self, value: bool) -> None:
        self.connected_flag.set(value)

    def event(self, op: str | None = None, source_ts_ms: int | None = None) -> None:
        """One change event read; `op` is the envelope's c/u/d, `source_ts_ms` the source's commit time."""
        self._event()
        counter = self._by_op.get(_OPS.get(op or "", ""))
        if counter is not None:
            counter.inc()
        if source_ts_ms is not None:
            self.behind.set(max(0.0, time.time() * 1000 - source_ts_ms))

    def events(self, op: str, count: int, source_ts_ms: int | None = None) -> None:
        """`count` change events of one operation at once (a connector reporting per batch)."""
        if count <= 0:
            return
        self.seen.inc(count)
        self._last_event = time.monotonic()
        counter = self._by_op.get(_OPS.get(op, ""))
        if counter is not None:
            counter.inc(count)
        if source_ts_ms is not None:
            self.behind.set(max(0.0, time.time() * 1000 - source_ts_ms))

    def committed_transaction(self, count: int = 1) -> None:
        self.transactions.inc(count)


__all__ = ["SnapshotMetrics", "StreamingMetrics"]
