"""The shared coordinator: snapshot then stream, retriable restarts from the last queued position, one
retry-reset rule (Debezium's resetErrorHandlerRetriesIfNeeded), other failures handed to poll()."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from connect_worker.api import ConnectError, RetriableError, Schema, SourceRecord, Type
from connectors.relational.coordinator import ChangeEventSourceCoordinator
from connectors.relational.queue import ChangeEventQueue

ENVELOPE = Schema(Type.STRUCT, name="p.public.t.Envelope")
HEARTBEAT = Schema(Type.STRUCT, name="io.debezium.connector.common.Heartbeat")


def _record(schema: Schema) -> SourceRecord:
    return SourceRecord({"server": "p"}, {"pos": 1}, "t", 0, None, None, schema, None)


class FakeSources:
    """Scripted sources: each stream attempt runs the next step (an exception to raise, or None: return)."""

    def __init__(self, *, stored: int | None, snapshot: bool, streams: bool = True, steps: list[Any]) -> None:
        self.stored = stored
        self.wants_snapshot = snapshot
        self.stream_follows = streams
        self.steps = steps
        self.calls: list[tuple[Any, ...]] = []
        self.resume: int | None = None
        self.snapshot_failures: list[BaseException] = []

    async def checked_position(self) -> int | None:
        self.calls.append(("checked",))
        return self.stored

    def snapshot_needed(self, position: int | None) -> bool:
        return self.wants_snapshot

    def streams(self) -> bool:
        return self.stream_follows

    async def open(self, position: int | None, *, snapshot: bool) -> None:
        self.calls.append(("open", position, snapshot))

    async def snapshot(self) -> int:
        self.calls.append(("snapshot",))
        if self.snapshot_failures:
            raise self.snapshot_failures.pop(0)
        self.resume = 100
        return 100

    async def stream(self, position: int | None, *, resumed: bool) -> None:
        self.calls.append(("stream", position, resumed))
        step = self.steps.pop(0)
        if isinstance(step, int):  # progress: the stream handed this position to the queue, then failed
            self.resume = step
            raise RetriableError(f"lost at {step}")
        if step is not None:
            raise step

    def resume_position(self) -> int | None:
        return self.resume

    async def release(self) -> None:
        self.calls.append(("release",))


def _coordinator(
    sources: FakeSources, max_retries: int = -1
) -> tuple[ChangeEventSourceCoordinator[int], ChangeEventQueue]:
    queue = ChangeEventQueue(max_size=10, max_batch=5, poll_interval_s=0.01)
    return ChangeEventSourceCoordinator(sources, queue, max_retries=max_retries, retry_wait_ms=0, name="t"), queue


async def test_snapshot_then_stream_and_a_retry_resumes_streaming_not_the_snapshot() -> None:
    sources = FakeSources(stored=None, snapshot=True, steps=[RetriableError("x"), None])
    coordinator, _ = _coordinator(sources)
    await coordinator.run()
    assert sources.calls == [
        ("checked",),
        ("open", None, True),
        ("snapshot",),
        ("stream", 100, False),
        ("release",),
        ("open", 100, False),
        ("stream", 100, True),
    ]


async def test_a_failed_snapshot_is_run_again() -> None:
    sources = FakeSources(stored=None, snapshot=True, steps=[None])
    sources.snapshot_failures = [RetriableError("snapshot connection lost")]
    coordinator, _ = _coordinator(sources)
    await coordinator.run()
    assert [c[0] for c in sources.calls] == ["checked", "open", "snapshot", "release", "open", "snapshot", "stream"]


async def test_snapshot_only_does_not_stream() -> None:
    sources = FakeSources(stored=None, snapshot=True, streams=False, steps=[])
    coordinator, _ = _coordinator(sources)
    await coordinator.run()
    assert [c[0] for c in sources.calls] == ["checked", "open", "snapshot"]


async def test_retries_resume_from_the_last_queued_position() -> None:
    sources = FakeSources(stored=7, snapshot=False, steps=[8, 9, None])
    coordinator, _ = _coordinator(sources)
    await coordinator.run()
    assert [c for c in sources.calls if c[0] == "stream"] == [
        ("stream", 7, False),
        ("stream", 8, True),
        ("stream", 9, True),
    ]


async def test_too_many_retries_fail_the_task_through_poll() -> None:
    sources = FakeSources(stored=1, snapshot=False, steps=[RetriableError("a"), RetriableError("b"), None])
    coordinator, queue = _coordinator(sources, max_retries=1)
    await coordinator.run()
    with pytest.raises(RetriableError, match="b"):
        await queue.poll()
    assert coordinator.retries == 2


async def test_change_events_delivered_after_a_failure_start_a_new_series() -> None:
    sources = FakeSources(stored=1, snapshot=False, steps=[RetriableError("a"), RetriableError("b"), None])
    coordinator, queue = _coordinator(sources, max_retries=1)
    seen: list[int] = []

    async def release() -> None:  # the worker polls while the coordinator waits to restart
        if not seen:
            coordinator.delivered([_record(HEARTBEAT)])  # a heartbeat is not a change event
            seen.append(coordinator.retries)
            coordinator.delivered([_record(HEARTBEAT), _record(ENVELOPE)])
            seen.append(coordinator.retries)

    sources.release = release  # type: ignore[method-assign]
    await coordinator.run()
    assert seen == [1, 0]
    assert len(queue) == 0 and [c[0] for c in sources.calls].count("stream") == 3


async def test_a_non_retriable_error_fails_at_once() -> None:
    sources = FakeSources(stored=None, snapshot=False, steps=[ConnectError("fatal")])
    coordinator, queue = _coordinator(sources, max_retries=5)
    await coordinator.run()
    with pytest.raises(ConnectError, match="fatal"):
        await queue.poll()
    assert "release" not in [c[0] for c in sources.calls]


async def test_an_error_while_a_stopping_capture_unwinds_is_not_a_failure() -> None:
    """stop() cancels the capture; a clean-up that then fails (psycopg: "another command is already in progress")
    must not be reported as the capture failing."""
    started = asyncio.Event()

    class Unwinding(FakeSources):
        async def snapshot(self) -> int:
            started.set()
            try:
                await asyncio.sleep(3600)
            finally:
                raise ConnectError("sending query failed: another command is already in progress")

    sources = Unwinding(stored=None, snapshot=True, steps=[])
    coordinator, queue = _coordinator(sources)
    runner = asyncio.ensure_future(coordinator.run())
    await started.wait()
    runner.cancel()
    with pytest.raises(asyncio.CancelledError):
        await runner
    assert queue._failure is None  # nothing for poll() to raise
