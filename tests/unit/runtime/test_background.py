"""BackgroundTasks holds the tasks it starts: none is destroyed while pending, failures are logged."""

from __future__ import annotations

import asyncio
import gc
import logging
import warnings
import weakref

import pytest

from connect_worker.runtime.background import BackgroundTasks


async def test_a_task_awaiting_what_nobody_else_holds_is_not_collected() -> None:
    """The case that makes asyncio log "Task was destroyed but it is pending!": a task whose only references
    are a cycle through the future it awaits. A bare create_task loses it to the collector; BackgroundTasks
    keeps it until it ends."""

    async def orphan() -> None:
        await asyncio.get_running_loop().create_future()  # no one else ever holds this future

    bare = weakref.ref(asyncio.get_running_loop().create_task(orphan()))
    tasks = BackgroundTasks("test")
    held = weakref.ref(tasks.start(orphan()))
    await asyncio.sleep(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        gc.collect()
    assert bare() is None  # what would happen without the registry
    task = held()
    assert task is not None and not task.done() and len(tasks) == 1
    await tasks.cancel_all()
    assert task.cancelled() and len(tasks) == 0


async def test_failures_are_logged_and_cancel_all_waits_then_cancels(caplog: pytest.LogCaptureFixture) -> None:
    tasks = BackgroundTasks("test")

    async def boom() -> None:
        raise RuntimeError("boom")

    async def forever() -> None:
        await asyncio.Event().wait()

    with caplog.at_level(logging.WARNING):
        tasks.start(boom(), name="boom")
        await asyncio.sleep(0.01)
    assert "boom failed: boom" in caplog.text
    pending = tasks.start(forever())
    await tasks.cancel_all(grace_s=0.05)
    assert pending.cancelled() and len(tasks) == 0
