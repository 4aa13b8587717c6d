"""The metrics API plugins use, and the Prometheus text the worker renders from it."""

from __future__ import annotations

import math

from connect_worker.api.metrics import MetricsGroup, MetricsRegistry, metric_name, task_metrics
from connect_worker.runtime.metrics import ProcessCollector, TaskMetrics, WorkerMetrics, render, sample


def test_groups_name_and_tag_metrics_like_the_jmx_exporter() -> None:
    registry = MetricsRegistry()
    task = registry.group("kafka_connect_source_task_metrics", connector="pg", task="0")
    task.counter("source-record-poll-total", "Records polled.").inc(3)
    streaming = task.group("debezium.postgres:connector-metrics", context="streaming", server="db1")
    streaming.gauge("Connected", "Connected to the database.").set(True)
    streaming.gauge("QueueRemainingCapacity", "Free queue capacity.", fn=lambda: 7)
    streaming.gauge("RowsScanned", "Rows per table.", labels={"table": 'public."a\\b"'}).set(5)
    text = render(WorkerMetrics(registry).samples())
    assert "# TYPE kafka_connect_source_task_metrics_source_record_poll_total counter" in text
    assert 'kafka_connect_source_task_metrics_source_record_poll_total{connector="pg",task="0"} 3\n' in text
    assert (
        'debezium_postgres:connector_metrics_Connected{connector="pg",task="0",context="streaming",server="db1"} 1'
        in text
    )
    assert 'QueueRemainingCapacity{connector="pg",task="0",context="streaming",server="db1"} 7' in text
    assert 'table="public.\\"a\\\\b\\""} 5' in text
    task.close()  # closing the task's group removes its sub-groups too
    assert list(registry.metrics()) == []


def test_broken_metric_functions_read_nan_and_numbers_are_prometheus_numbers() -> None:
    g = MetricsGroup("x")

    def boom() -> float:
        raise RuntimeError("no")

    assert math.isnan(g.gauge("bad", fn=boom).read())
    text = render(
        [
            sample("a", "gauge", "", 1.5),
            sample("b", "gauge", "", math.nan),
            sample("c", "gauge", "", 2.0, x="y"),
            sample("c", "gauge", "", 3.0, x="z"),
        ]
    )
    assert text == ('# TYPE a gauge\na 1.5\n# TYPE b gauge\nb NaN\n# TYPE c gauge\nc{x="y"} 2\nc{x="z"} 3\n')
    assert metric_name("a-b.c", "1x") == "a_b_c_1x"


def test_task_metrics_from_a_context_without_metrics_is_a_private_group() -> None:
    class Bare:
        pass

    group = task_metrics(Bare())
    group.counter("x").inc()  # works, nobody reads it
    registry = MetricsRegistry()
    own = registry.group("g")

    class WithMetrics:
        metrics = own

    assert task_metrics(WithMetrics()) is own


def test_task_metrics_commit_bookkeeping() -> None:
    registry = MetricsRegistry()
    group = registry.group("kafka_connect_source_task_metrics", connector="c", task="0")
    m = TaskMetrics(group, active=lambda: 2, written=lambda: 7)
    m.committed(5)
    m.committed(3)
    text = render(WorkerMetrics(registry).samples())
    assert 'kafka_connect_source_task_metrics_source_record_write_total{connector="c",task="0"} 7' in text
    assert "# TYPE kafka_connect_source_task_metrics_source_record_write_total counter" in text
    assert 'kafka_connect_connector_task_metrics_offset_commit_total{connector="c",task="0"} 2' in text
    assert 'kafka_connect_connector_task_metrics_offset_commit_max_time_ms{connector="c",task="0"} 5' in text
    assert 'kafka_connect_source_task_metrics_source_record_active_count{connector="c",task="0"} 2' in text


def test_process_metrics() -> None:
    names = {s.name: s for s in ProcessCollector()()}
    assert names["process_resident_memory_bytes"].value > 1_000_000
    assert names["process_cpu_seconds_total"].value > 0
    assert names["process_open_fds"].value >= 3
    assert names["process_start_time_seconds"].value > 1_600_000_000
    assert "python_gc_collections_total" in names and "python_info" in names


def test_debezium_snapshot_and_streaming_metrics() -> None:
    from connectors.relational.metrics import SnapshotMetrics, StreamingMetrics

    registry = MetricsRegistry()
    task = registry.group("kafka_connect_source_task_metrics", connector="pg", task="0")
    snap = SnapshotMetrics(task, "postgres", "db1", queue_capacity=8192, queue_remaining=lambda: 8000)
    stream = StreamingMetrics(task, "postgres", "db1")
    snap.started(["public.a", "public.b"])
    snap.event()
    snap.rows_scanned("public.a", 10)
    snap.table_done("public.a", 12)
    snap.completed()
    stream.connected(True)
    stream.event("c")
    stream.event("u")
    stream.filtered()
    stream.committed_transaction()
    text = render(WorkerMetrics(registry).samples())
    snap_tags = 'connector="pg",task="0",context="snapshot",server="db1"'
    stream_tags = 'connector="pg",task="0",context="streaming",server="db1"'
    m = "debezium_postgres_connector_metrics_"
    for line in [
        f"{m}SnapshotCompleted{{{snap_tags}}} 1",
        f"{m}SnapshotRunning{{{snap_tags}}} 0",
        f"{m}RemainingTableCount{{{snap_tags}}} 1",
        f"{m}TotalTableCount{{{snap_tags}}} 2",
        f'{m}RowsScanned{{{snap_tags},table="public.a"}} 12',
        f"{m}QueueRemainingCapacity{{{snap_tags}}} 8000",
        f"{m}QueueTotalCapacity{{{snap_tags}}} 8192",
        f"{m}TotalNumberOfEventsSeen{{{stream_tags}}} 2",
        f"{m}TotalNumberOfCreateEventsSeen{{{stream_tags}}} 1",
        f"{m}NumberOfEventsFiltered{{{stream_tags}}} 1",
        f"{m}Connected{{{stream_tags}}} 1",
        f"{m}NumberOfCommittedTransactions{{{stream_tags}}} 1",
        f"{m}MilliSecondsBehindSource{{{stream_tags}}} -1",
    ]:
        assert line in text, line
    since = [x for x in text.splitlines() if x.startswith(f"{m}MilliSecondsSinceLastEvent{{{stream_tags}")]
    assert since and 0 <= float(since[0].rsplit(" ", 1)[1]) < 60_000
