"""ChangeEventSourceCoordinator: the life of one capture, shared by every connector (Debezium's coordinator).

A connector supplies its :class:`ChangeEventSources` (what its database does); the coordinator decides the order
and what a failure means:

    stored position ─ checks ─► snapshot needed? ─► snapshot source ─► streaming source (until stopped)
                                   ▲                                        │
                                   └──── RetriableError: release, wait, ◄───┘
                                         resume from the last position handed to the queue

* The stored position is read and checked once per start. Each attempt then opens what it needs
  (:meth:`ChangeEventSources.open`), runs the snapshot when one is needed and streams.
* A :class:`RetriableError` restarts the attempt after ``retriable.restart.connector.wait.ms`` from the last
  position the sources handed to the queue (:meth:`ChangeEventSources.resume_position`): nothing is lost or
  repeated by it. Once a snapshot completed, a retry streams from its position instead of snapshotting again.
* ``errors.max.retries`` bounds the restarts of one series (-1: unbounded). As in Debezium's
  ``BaseSourceTask.resetErrorHandlerRetriesIfNeeded``, a poll that hands change events (an envelope value) to
  the worker after a failure starts a new series: :meth:`delivered`.
* Any other error fails the task: it is handed to the queue, whose next poll raises it.

Signals and incremental snapshots will enter between the snapshot and the streaming source, where Debezium's
coordinator runs its signal processor.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Generic, Protocol, TypeVar

from connect_worker.api import RetriableError, SourceRecord
from connectors.relational.queue import ChangeEventQueue

log = logging.getLogger(__name__)

P = TypeVar("P")


class ChangeEventSources(Protocol[P]):
    """What one connector's database does for the coordinator. ``P`` is its position type (None: no position)."""

    async def checked_position(self) -> P | None:
        """The stored position after the connector's start-up checks (once per start)."""
        ...

    def snapshot_needed(self, position: P | None) -> bool: ...

    def streams(self) -> bool:
        """Whether streaming follows the snapshot (false: snapshot only)."""
        ...

    async def open(self, position: P | None, *, snapshot: bool) -> None:
        """Per attempt: connections, catalog, replication slot - whatever the snapshot and the stream need."""
        ...

    async def snapshot(self) -> P:
        """Run the snapshot; the position streaming starts from."""
        ...

    async def stream(self, position: P | None, *, resumed: bool) -> None:
        """Stream from ``position`` until stopped (``resumed``: this attempt follows a failure)."""
        ...

    def resume_position(self) -> P | None:
        """The position of the last change handed to the queue (a retry resumes there), None before any."""
        ...

    async def release(self) -> None:
        """Close what :meth:`open` opened (after a failure; it may be dead already)."""
        ...


class ChangeEventSourceCoordinator(Generic[P]):
    def __init__(
        self,
        sources: ChangeEventSources[P],
        queue: ChangeEventQueue,
        *,
        max_retries: int,
        retry_wait_ms: int,
        name: str,
    ) -> None:
        self._sources = sources
        self._queue = queue
        self._max_retries = max_retries
        self._retry_wait_s = retry_wait_ms / 1000
        self._name = name
        self.retries = 0  # restarts in the current series

    def delivered(self, records: Sequence[SourceRecord]) -> None:
        """The worker polled ``records``: change events after a failure reset the retry count."""
        if self.retries and any(_is_change_event(r) for r in records):
            self.retries = 0

    async def run(self) -> None:
        """The capture, until stopped (cancelled) or failed (the failure goes to the queue)."""
        sources = self._sources
        try:
            position = await sources.checked_position()
            snapshot = sources.snapshot_needed(position)
            resumed = False
            while True:
                try:
                    await sources.open(position, snapshot=snapshot)
                    if snapshot:
                        position = await sources.snapshot()
                        snapshot = False  # a retry from here on streams from the snapshot's position
                    if not sources.streams():
                        log.info("%s: snapshot only, not streaming", self._name)
                        return
                    await sources.stream(position, resumed=resumed)
                    return
                except RetriableError as e:
                    self.retries += 1
                    if 0 <= self._max_retries < self.retries:
                        raise
                    log.warning(
                        "%s: retriable error (%s); restarting in %d ms (attempt %d)",
                        self._name,
                        e,
                        round(self._retry_wait_s * 1000),
                        self.retries,
                    )
                    await sources.release()
                    await asyncio.sleep(self._retry_wait_s)
                    position = sources.resume_position() or position
                    resumed = True
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # handed to poll(), which fails the task (unless the capture is stopping)
            task = asyncio.current_task()
            if task is not None and task.cancelling():
                # stopping: an error from a clean-up cut short by the cancellation (a query still running on the
                # connection) is not a failure of the capture
                log.debug("%s: capture stopped; an error while it unwound: %s", self._name, e)
                raise asyncio.CancelledError from e
            log.error("%s: capture failed: %s", self._name, e)
            self._queue.fail(e)


def _is_change_event(record: SourceRecord) -> bool:
    """Debezium's ``Envelope.isEnvelopeSchema``: the value schema's name ends with ``.Envelope``."""
    schema = record.value_schema
    name = schema.name if schema is not None else None
    return name is not None and name.endswith(".Envelope")
