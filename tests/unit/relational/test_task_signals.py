"""RelationalSourceTask.submit_signal: what a signal from the worker's REST endpoint meets in a task (Debezium's
JMX signal channel), and SourceTask's default for connectors without signals."""

from __future__ import annotations

import types
from collections.abc import Mapping
from typing import Any, cast

import pytest

from connect_worker.api import SourceRecord, SourceTask
from connect_worker.api.errors import ConflictError
from connect_worker.api.metrics import MetricsGroup
from connectors.relational.metrics import SnapshotMetrics
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.signaling import Signaling
from connectors.relational.signaling_config import SignalingConfig
from connectors.relational.signals import SignalRecord
from connectors.relational.task import RelationalSourceTask


def signaling(*channels: str) -> Signaling:
    return Signaling(
        SignalingConfig(channels=channels),
        connector_name="c",
        queue=ChangeEventQueue(max_size=20, max_batch=10, poll_interval_s=0.05),
        partition={"server": "c"},
        stored_offset=None,
        chunk_source=cast(Any, None),  # no signal table: no incremental snapshot
        metrics=SnapshotMetrics(MetricsGroup("test"), "postgres", "c"),
    )


def task_with(sources: object) -> RelationalSourceTask[Any]:
    task: RelationalSourceTask[Any] = RelationalSourceTask()
    task._sources = cast(Any, sources)
    return task


async def test_a_signal_reaches_the_open_in_process_channel() -> None:
    sig = signaling("source", "jmx")
    sig.open_channels()
    task = task_with(types.SimpleNamespace(signaling=sig))

    task.submit_signal("rest-1", "execute-snapshot", '{"data-collections":["s.t"]}')

    assert sig.in_process is not None
    assert await sig.in_process.read() == [SignalRecord("rest-1", "execute-snapshot", '{"data-collections":["s.t"]}')]


async def test_rest_is_an_alias_of_jmx() -> None:
    sig = signaling("rest")
    sig.open_channels()

    task_with(types.SimpleNamespace(signaling=sig)).submit_signal("a", "log", None)

    assert sig.in_process is not None
    assert await sig.in_process.read() == [SignalRecord("a", "log", None)]


def test_without_jmx_or_rest_in_the_channels_the_task_refuses() -> None:
    sig = signaling("source", "kafka")
    sig.open_channels()

    with pytest.raises(PermissionError, match=r"need 'jmx' \(or 'rest'\) in signal.enabled.channels"):
        task_with(types.SimpleNamespace(signaling=sig)).submit_signal("a", "log", None)


def test_before_streaming_opens_the_channel_it_is_a_conflict() -> None:
    with pytest.raises(ConflictError, match="not streaming yet"):
        task_with(types.SimpleNamespace(signaling=signaling("jmx"))).submit_signal("a", "log", None)


def test_before_the_task_started_it_is_a_conflict() -> None:
    with pytest.raises(ConflictError, match="still starting"):
        task_with(None).submit_signal("a", "log", None)


def test_sources_without_signaling_configured() -> None:
    with pytest.raises(PermissionError) as e:
        task_with(types.SimpleNamespace(signaling=None)).submit_signal("a", "log", None)

    assert str(e.value) == (
        "signals are not configured for this connector: set signal.enabled.channels to include 'jmx' (or 'rest')"
    )


def test_sources_that_have_no_signals_at_all() -> None:
    with pytest.raises(PermissionError, match=r"^signals are not supported by this connector$"):
        task_with(types.SimpleNamespace()).submit_signal("a", "log", None)


class _PlainTask(SourceTask):
    async def start(self, props: Mapping[str, str]) -> None:
        pass

    async def poll(self) -> list[SourceRecord] | None:
        return None

    async def stop(self) -> None:
        pass


def test_a_source_task_takes_no_signal_by_default() -> None:
    with pytest.raises(PermissionError, match=r"^signals are not supported by this connector$"):
        _PlainTask().submit_signal("a", "log", None)
