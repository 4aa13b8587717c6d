"""Metrics a plugin can keep without knowing how the worker exposes them (Connect's PluginMetrics, KIP-877).

A task gets its group from its context and adds the metrics it keeps::

    from connect_worker.api.metrics import task_metrics

    metrics = task_metrics(self.context)          # tagged connector=<name>, task=<id>
    streaming = metrics.group("debezium_postgres_connector_metrics", context="streaming", server=prefix)
    seen = streaming.counter("TotalNumberOfEventsSeen", "Events seen since start or reset.")
    streaming.gauge("QueueRemainingCapacity", "Free queue capacity.", fn=lambda: queue.remaining_capacity)
    seen.inc()

Each group has a name (the metric-name prefix, an MBean's domain and type) and tags (the MBean's key
properties); a metric's exposed name is `<group name>_<metric name>` with the group's tags as labels. Updating
a metric is a plain attribute write, cheap enough for the per-event path. A context that offers no metrics
(an older runtime, a unit test) gives a group that nobody reads. This module imports nothing else of the
project; the runtime renders what the registry holds (Prometheus text at GET /metrics).
"""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Final, Literal

MetricKind = Literal["counter", "gauge"]
_NAME_BAD: Final = re.compile(r"[^a-zA-Z0-9_:]")


def metric_name(*parts: str) -> str:
    """Parts joined by `_`, every character Prometheus does not allow replaced by `_` (`-` and `.` too)."""
    name = _NAME_BAD.sub("_", "_".join(p for p in parts if p))
    return "_" + name if name[:1].isdigit() else name


class Metric:
    """One time series: a name, its labels and a value (a number, or a function read when scraped)."""

    __slots__ = ("_fn", "documentation", "kind", "labels", "name", "value")

    def __init__(
        self,
        name: str,
        kind: MetricKind,
        documentation: str,
        labels: Mapping[str, str],
        fn: Callable[[], float | int | bool | None] | None = None,
    ) -> None:
        self.name = name
        self.kind: MetricKind = kind
        self.documentation = documentation
        self.labels = dict(labels)
        self.value: float = 0.0
        self._fn = fn

    def read(self) -> float:
        if self._fn is None:
            return self.value
        try:
            v = self._fn()
        except Exception:  # noqa: BLE001 - a broken metric function reads as NaN, never breaks a scrape
            return math.nan
        return math.nan if v is None else float(v)


class Counter(Metric):
    """A value that only goes up (reset when the task restarts)."""

    __slots__ = ()

    def inc(self, amount: float = 1) -> None:
        self.value += amount


class Gauge(Metric):
    """A value that goes up and down, or is read from a function when scraped."""

    __slots__ = ()

    def set(self, value: float | bool) -> None:
        self.value = float(value)

    def inc(self, amount: float = 1) -> None:
        self.value += amount

    def dec(self, amount: float = 1) -> None:
        self.value -= amount


class MetricsRegistry:
    """Every group of the process, for the runtime to read. Plugins never need it."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._groups: dict[int, MetricsGroup] = {}

    def _add(self, group: MetricsGroup) -> None:
        with self._lock:
            self._groups[id(group)] = group

    def _remove(self, group: MetricsGroup) -> None:
        with self._lock:
            self._groups.pop(id(group), None)

    def group(self, name: str, **tags: str) -> MetricsGroup:
        return MetricsGroup(name, tags, self)

    def metrics(self) -> Iterator[Metric]:
        with self._lock:
            groups = list(self._groups.values())
        for g in groups:
            yield from g.metrics()


class MetricsGroup:
    """Metrics that share a name prefix and tags. Closing the group removes them (and its sub-groups)."""

    def __init__(self, name: str, tags: Mapping[str, str] | None = None, registry: MetricsRegistry | None = None):
        self.name = metric_name(name)
        self.tags = {metric_name(k): str(v) for k, v in (tags or {}).items()}
        self._registry = registry
        self._metrics: dict[tuple[str, tuple[tuple[str, str], ...]], Metric] = {}
        self._children: list[MetricsGroup] = []
        self._closed = False
        if registry is not None:
            registry._add(self)

    def group(self, name: str, **tags: str) -> MetricsGroup:
        """A group named `name` with these tags added to this group's (closed with this one)."""
        child = MetricsGroup(name, {**self.tags, **tags}, self._registry)
        self._children.append(child)
        return child

    def _metric(
        self,
        cls: type[Metric],
        kind: MetricKind,
        name: str,
        documentation: str,
        labels: Mapping[str, str] | None,
        fn: Callable[[], float | int | bool | None] | None,
    ) -> Metric:
        full = metric_name(self.name, name)
        all_labels = {**self.tags, **{metric_name(k): str(v) for k, v in (labels or {}).items()}}
        key = (full, tuple(sorted(all_labels.items())))
        existing = self._metrics.get(key)
        if existing is not None:
            return existing
        m = cls(full, kind, documentation, all_labels, fn)
        self._metrics[key] = m
        return m

    def counter(
        self,
        name: str,
        documentation: str = "",
        *,
        labels: Mapping[str, str] | None = None,
        fn: Callable[[], float | int | None] | None = None,
    ) -> Counter:
        """A counter; with `fn`, its value is read from that function when scraped (a count kept elsewhere)."""
        m = self._metric(Counter, "counter", name, documentation, labels, fn)
        assert isinstance(m, Counter)
        return m

    def gauge(
        self,
        name: str,
        documentation: str = "",
        *,
        labels: Mapping[str, str] | None = None,
        fn: Callable[[], float | int | bool | None] | None = None,
    ) -> Gauge:
        m = self._metric(Gauge, "gauge", name, documentation, labels, fn)
        assert isinstance(m, Gauge)
        return m

    def discard(self, metric: Metric) -> None:
        """Stop exposing this series (a label whose value changed)."""
        self._metrics.pop((metric.name, tuple(sorted(metric.labels.items()))), None)

    def metrics(self) -> list[Metric]:
        return list(self._metrics.values())

    def close(self) -> None:
        for child in self._children:
            child.close()
        self._children.clear()
        if self._registry is not None:
            self._registry._remove(self)
        self._closed = True


def task_metrics(context: object) -> MetricsGroup:
    """The metrics group the runtime gives this task (or connector) through its context; a group nobody reads
    when the context has none."""
    group = getattr(context, "metrics", None)
    return group if isinstance(group, MetricsGroup) else MetricsGroup("unregistered")


__all__ = ["Counter", "Gauge", "Metric", "MetricsGroup", "MetricsRegistry", "metric_name", "task_metrics"]
