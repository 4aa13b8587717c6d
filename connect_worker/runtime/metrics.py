"""The worker's metrics in the Prometheus text exposition format (version 0.0.4), written here, no dependency.

Names mirror Kafka Connect's MBeans the way the Prometheus JMX exporter writes them: MBean
`kafka.connect:type=source-task-metrics,connector=c,task=0`, attribute `source-record-poll-total` →
`kafka_connect_source_task_metrics_source_record_poll_total{connector="c",task="0"}`. Connector plugins add
their own groups through connect_worker.api.metrics (Debezium's `debezium.postgres:type=connector-metrics,
context=streaming,server=x` → `debezium_postgres_connector_metrics_<Attribute>{context=…,server=…}`).
Process metrics use the Prometheus client libraries' standard names (process_*, python_gc_*).
"""

from __future__ import annotations

import dataclasses
import gc
import math
import os
import platform
import resource
import time
from collections.abc import Callable, Iterable, Sequence
from typing import Final

from connect_worker.api.metrics import Metric, MetricKind, MetricsGroup, MetricsRegistry

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
SOURCE_TASK_METRICS: Final = "kafka_connect_source_task_metrics"
TASK_ERROR_METRICS: Final = "kafka_connect_task_error_metrics"
CONNECTOR_TASK_METRICS: Final = "kafka_connect_connector_task_metrics"


@dataclasses.dataclass(frozen=True, slots=True)
class Sample:
    name: str
    kind: MetricKind
    documentation: str
    labels: tuple[tuple[str, str], ...]
    value: float


Collector = Callable[[], Iterable[Sample]]


def sample(name: str, kind: MetricKind, doc: str, value: float, **labels: str) -> Sample:
    return Sample(name, kind, doc, tuple(labels.items()), float(value))


def _escape_label(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _number(v: float) -> str:
    if math.isnan(v):
        return "NaN"
    if math.isinf(v):
        return "+Inf" if v > 0 else "-Inf"
    if v == int(v) and abs(v) < 2**53:
        return str(int(v))
    return repr(v)


def render(samples: Iterable[Sample]) -> str:
    """Prometheus text: one HELP/TYPE block per metric name, its series below it, names sorted."""
    families: dict[str, list[Sample]] = {}
    for s in samples:
        families.setdefault(s.name, []).append(s)
    lines: list[str] = []
    for name in sorted(families):
        series = families[name]
        first = series[0]
        if first.documentation:
            lines.append(f"# HELP {name} {_escape_help(first.documentation)}")
        lines.append(f"# TYPE {name} {first.kind}")
        seen: set[tuple[tuple[str, str], ...]] = set()
        for s in series:
            if s.labels in seen:
                continue
            seen.add(s.labels)
            labels = ",".join(f'{k}="{_escape_label(v)}"' for k, v in s.labels)
            lines.append(f"{name}{{{labels}}} {_number(s.value)}" if labels else f"{name} {_number(s.value)}")
    return "\n".join(lines) + "\n"


def registry_samples(registry: MetricsRegistry) -> Iterable[Sample]:
    for m in registry.metrics():
        yield _from_metric(m)


def _from_metric(m: Metric) -> Sample:
    return Sample(m.name, m.kind, m.documentation, tuple(m.labels.items()), m.read())


# -- process metrics -----------------------------------------------------------------------------------------
_PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096
_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


def _boot_time() -> float | None:
    try:
        with open("/proc/stat", encoding="ascii") as f:
            for line in f:
                if line.startswith("btime "):
                    return float(line.split()[1])
    except OSError:
        return None
    return None


class ProcessCollector:
    """RSS, virtual memory, CPU seconds, open/max fds, start time, thread count, GC and Python version."""

    def __init__(self) -> None:
        self._start_time = self._read_start_time() or time.time()

    @staticmethod
    def _stat_fields() -> list[str] | None:
        try:
            with open("/proc/self/stat", encoding="ascii") as f:
                text = f.read()
        except OSError:
            return None
        return text[text.rindex(")") + 2 :].split()  # fields from "state" (field 3) on

    def _read_start_time(self) -> float | None:
        fields, boot = self._stat_fields(), _boot_time()
        if fields is None or boot is None:
            return None
        return boot + int(fields[19]) / _TICKS  # starttime is field 22

    def __call__(self) -> Iterable[Sample]:
        fields = self._stat_fields()
        if fields is not None:
            yield sample("process_virtual_memory_bytes", "gauge", "Virtual memory size in bytes.", int(fields[20]))
            yield sample(
                "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", int(fields[21]) * _PAGE
            )
            cpu = (int(fields[11]) + int(fields[12])) / _TICKS
            yield sample("process_num_threads", "gauge", "Number of OS threads.", int(fields[17]))
        else:
            usage = resource.getrusage(resource.RUSAGE_SELF)
            cpu = usage.ru_utime + usage.ru_stime
            yield sample(
                "process_resident_memory_bytes", "gauge", "Resident memory size in bytes.", usage.ru_maxrss * 1024
            )
        yield sample("process_cpu_seconds_total", "counter", "Total user and system CPU time in seconds.", cpu)
        yield sample(
            "process_start_time_seconds", "gauge", "Start time of the process since unix epoch.", self._start_time
        )
        try:
            fds = len(os.listdir("/proc/self/fd"))
        except OSError:
            fds = -1
        if fds >= 0:
            yield sample("process_open_fds", "gauge", "Number of open file descriptors.", fds)
        soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != resource.RLIM_INFINITY:
            yield sample("process_max_fds", "gauge", "Maximum number of open file descriptors.", soft)
        for generation, stats in enumerate(gc.get_stats()):
            g = str(generation)
            yield sample(
                "python_gc_collections_total",
                "counter",
                "Number of times this generation was collected.",
                stats.get("collections", 0),
                generation=g,
            )
            yield sample(
                "python_gc_objects_collected_total",
                "counter",
                "Objects collected during gc.",
                stats.get("collected", 0),
                generation=g,
            )
            yield sample(
                "python_gc_objects_uncollectable_total",
                "counter",
                "Uncollectable objects found during GC.",
                stats.get("uncollectable", 0),
                generation=g,
            )
        major, minor, patch = platform.python_version_tuple()
        yield sample(
            "python_info",
            "gauge",
            "Python platform information.",
            1,
            implementation=platform.python_implementation(),
            major=major,
            minor=minor,
            patchlevel=patch,
            version=platform.python_version(),
        )


class WorkerMetrics:
    """The process's metrics: the registry plugins and tasks write to, plus collectors read at scrape time."""

    def __init__(self, registry: MetricsRegistry | None = None, collectors: Sequence[Collector] = ()) -> None:
        self.registry = registry if registry is not None else MetricsRegistry()
        self.collectors: list[Collector] = list(collectors)

    def add_collector(self, collector: Collector) -> None:
        self.collectors.append(collector)

    def task_group(self, connector: str, task: int) -> MetricsGroup:
        return self.registry.group(SOURCE_TASK_METRICS, connector=connector, task=str(task))

    def samples(self) -> list[Sample]:
        out = list(registry_samples(self.registry))
        for c in self.collectors:
            try:
                out.extend(c())
            except Exception:  # noqa: BLE001 - one broken collector must not break the scrape
                continue
        return out

    def render(self) -> str:
        return render(self.samples())


class TaskMetrics:
    """What the source-task loop counts, as Connect's source-task-metrics, task-error-metrics and
    connector-task-metrics groups."""

    def __init__(self, group: MetricsGroup, *, active: Callable[[], int], written: Callable[[], int]) -> None:
        self.group = group
        g = group
        self.polled = g.counter("source_record_poll_total", "Records produced (returned by poll) by this task.")
        g.counter(
            "source_record_write_total",
            "Records output by the transformations and acknowledged by Kafka.",
            fn=written,  # counted by the delivery reports themselves (one attribute write per record)
        )
        self.batches = g.counter("poll_batch_total", "Non-empty batches returned by poll.")
        self.poll_time = g.counter("poll_batch_time_ms_total", "Milliseconds spent in poll for non-empty batches.")
        g.gauge(
            "source_record_active_count",
            "Records produced by the task but not yet completely written to Kafka.",
            fn=active,
        )
        errors = group.group(TASK_ERROR_METRICS)
        self.failed = errors.counter("total_record_failures_total", "Records that failed to transform or convert.")
        self.skipped = errors.counter(
            "total_records_skipped_total", "Records skipped because of errors (errors.tolerance=all)."
        )
        self.produce_failed = errors.counter("total_produce_failures_total", "Records Kafka did not accept.")
        task = group.group(CONNECTOR_TASK_METRICS)
        self.commits = task.counter("offset_commit_total", "Successful offset commits.")
        self.commit_failures = task.counter("offset_commit_failure_total", "Failed offset commits.")
        self.commit_time = task.counter("offset_commit_time_ms_total", "Milliseconds spent in successful commits.")
        self.commit_max = task.gauge("offset_commit_max_time_ms", "Longest offset commit, in milliseconds.")
        self.commit_last = task.gauge("offset_commit_last_time_ms", "Duration of the last offset commit, in ms.")

    def committed(self, elapsed_ms: float) -> None:
        self.commits.inc()
        self.commit_time.inc(elapsed_ms)
        self.commit_last.set(elapsed_ms)
        if elapsed_ms > self.commit_max.value:
            self.commit_max.set(elapsed_ms)

    def close(self) -> None:
        self.group.close()
