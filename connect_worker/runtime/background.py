"""Tasks started and not awaited (a record's commit hook, a reconfiguration a connector asks for): the event loop
holds only weak references to tasks, so such a task must be held until it ends, or a collection can destroy it
while it is pending ("Task was destroyed but it is pending!") and its work is silently lost. Failures are logged."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Coroutine
from typing import Any

log = logging.getLogger(__name__)


class BackgroundTasks:
    """Holds every task it started until it is done; `cancel_all` ends those still running."""

    def __init__(self, what: str) -> None:
        self._what = what
        self._tasks: set[asyncio.Task[Any]] = set()

    def start(self, coro: Coroutine[Any, Any, Any], *, name: str | None = None) -> asyncio.Task[Any]:
        task = asyncio.get_running_loop().create_task(coro, name=name)
        self._tasks.add(task)
        task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Task[Any]) -> None:
        self._tasks.discard(task)
        if not task.cancelled() and task.exception() is not None:
            log.warning("%s: %s failed: %s", self._what, task.get_name(), task.exception())

    def __len__(self) -> int:
        return len(self._tasks)

    async def cancel_all(self, *, grace_s: float = 0.0) -> None:
        """Wait up to `grace_s` for the running tasks to end, then cancel the rest and wait for them."""
        tasks = list(self._tasks)
        if tasks and grace_s > 0:
            await asyncio.wait(tasks, timeout=grace_s)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
