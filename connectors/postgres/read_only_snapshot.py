"""Read-only incremental snapshots (``read.only=true``; Debezium's
``PostgresReadOnlyIncrementalSnapshotChangeEventSource``): no watermark rows are written, the windows are bounded by
transaction ids instead.

* Window open: the low watermark is ``pg_current_snapshot()`` taken before the chunk is read; window close: the high
  watermark, taken after it.
* Each change event (of a transaction ``tx``) first updates the window: it opens once ``tx >= low.xmin`` and closes
  once ``tx > max(high.xmax, low.xmax)``. An event that finds the window closed has the buffered rows emitted and the
  next chunk read; one that finds it open removes its key from the buffer.
* After a commit, and whenever the stream is idle, the chunks whose high watermark the last transaction already
  passes (``tx <= high.xmin``) are emitted and the next read, until the watermarks move; the commit of the high
  watermark's ``xmax`` closes the window at once.
* When a snapshot is resumed at start, a transaction id is taken first (``pg_current_xact_id()``, except on a
  standby) so the stream has a transaction past the watermarks.

Signals reach it on the ``kafka``, ``file`` or ``jmx`` channels (the database is not written). PostgreSQL 13 or later.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from connectors.relational.incremental_snapshot import IncrementalSnapshot

log = logging.getLogger(__name__)

CURRENT_SNAPSHOT = "SELECT pg_current_snapshot()::text"
FORCE_NEW_TRANSACTION = "SELECT (CASE pg_is_in_recovery() WHEN 't' THEN NULL::xid8 ELSE pg_current_xact_id() END)"


@dataclasses.dataclass(frozen=True, slots=True)
class PgSnapshot:
    """``pg_current_snapshot()``: the oldest transaction still running, the first not yet assigned, the running
    ones."""

    xmin: int
    xmax: int
    xip: tuple[int, ...] = ()

    @classmethod
    def parse(cls, text: str) -> PgSnapshot:
        xmin, xmax, xip = text.split(":")
        return cls(int(xmin), int(xmax), tuple(int(x) for x in xip.split(",") if x))


class ReadOnlyIncrementalSnapshot(IncrementalSnapshot):
    transaction_driven = True

    def __init__(
        self,
        *args: Any,
        current_snapshot: Callable[[], Awaitable[PgSnapshot]],
        force_new_transaction: Callable[[], Awaitable[None]],
        **kwargs: Any,
    ) -> None:
        super().__init__(*args, **kwargs)
        self._current_snapshot = current_snapshot
        self._force_new_transaction = force_new_transaction
        self.low: PgSnapshot | None = None
        self.high: PgSnapshot | None = None
        self._previous: tuple[PgSnapshot | None, PgSnapshot | None] = (None, None)

    async def start(self, *, resumed: bool = False) -> None:
        if self.context.running:
            await self._force_new_transaction()
        await super().start(resumed=resumed)

    async def _window_open(self, chunk_id: str) -> None:
        self.low = await self._current_snapshot()

    async def _window_close(self, chunk_id: str) -> None:
        self.high = await self._current_snapshot()

    def _close(self) -> None:
        self.context.window_open = False
        self._previous = (self.low, self.high)
        self.low = self.high = None
        self.dedup_table = None

    def _update_window_state(self, tx_id: int) -> None:
        low, high = self.low, self.high
        if not self.context.window_open and low is not None and tx_id >= low.xmin:
            self.context.window_open = True
        if self.context.window_open and high is not None and low is not None and tx_id > max(high.xmax, low.xmax):
            self._close()

    async def before_event(self, tx_id: int | None) -> None:
        if tx_id is None:
            return
        self._update_window_state(tx_id)
        if self.context.running and not self.context.window_open:
            await self._send_window()
            await self.read_chunk()
        self._update_dedup()

    async def after_commit(self, tx_id: int | None) -> None:
        await self._read_until_new_transaction_change(tx_id)

    async def idle(self, tx_id: int | None) -> None:
        await self._read_until_new_transaction_change(tx_id)

    async def _read_until_new_transaction_change(self, tx_id: int | None) -> None:
        if tx_id is None:
            return
        context = self.context
        high = self.high
        if context.running and high is not None and high.xmax == tx_id:
            self._close()
            await self._send_window()
            await self.read_chunk()
            self._update_dedup()
            return
        while context.running and self.high is not None and tx_id <= self.high.xmin:
            self._close()
            await self._send_window()
            await self.read_chunk()
            if self._previous != (self.low, self.high):
                break
        self._update_dedup()
