"""The bounded queue between a connector's change-event producers (snapshot, streaming) and `poll()`.

max.queue.size records or max.queue.size.in.bytes bytes, whichever is hit first, block the producer:
this is the back-pressure path when Kafka is slow or down. `poll()` returns up to max.batch.size records,
waiting up to poll.interval.ms for the first one. A producer failure is handed to the next `poll()`.
Offering is synchronous while there is room, so the hot path pays no await per record.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib

from connect_worker.api import SourceRecord


class ChangeEventQueue:
    def __init__(self, *, max_size: int, max_batch: int, poll_interval_s: float, max_bytes: int = 0) -> None:
        if max_size <= max_batch:
            raise ValueError("max.queue.size must be larger than max.batch.size")
        self._items: collections.deque[SourceRecord] = collections.deque()
        # the records' sizes, in the same order, only when max.queue.size.in.bytes bounds the queue
        self._sizes: collections.deque[int] | None = collections.deque() if max_bytes > 0 else None
        self._max_size = max_size
        self._max_batch = max_batch
        self._max_bytes = max_bytes
        self._poll_interval_s = poll_interval_s
        self._bytes = 0
        self._not_empty = asyncio.Event()
        self._not_full = asyncio.Event()
        self._not_full.set()
        self._failure: BaseException | None = None

    def __len__(self) -> int:
        return len(self._items)

    @property
    def remaining_capacity(self) -> int:
        return max(0, self._max_size - len(self._items))

    def _full(self) -> bool:
        return len(self._items) >= self._max_size or (0 < self._max_bytes <= self._bytes)

    def offer(self, record: SourceRecord, size: int = 0) -> bool:
        """Enqueue without waiting; False when the queue is full (then `await put()`)."""
        items = self._items
        sizes = self._sizes
        if len(items) >= self._max_size or (sizes is not None and self._max_bytes <= self._bytes):
            self._not_full.clear()
            return False
        if not items:
            self._not_empty.set()
        items.append(record)
        if sizes is not None:
            sizes.append(size)
            self._bytes += size
        return True

    async def put(self, record: SourceRecord, size: int = 0) -> None:
        while not self.offer(record, size):
            await self._not_full.wait()

    def fail(self, error: BaseException) -> None:
        """The producer died: the next poll() raises `error`."""
        self._failure = error
        self._not_empty.set()

    async def poll(self) -> list[SourceRecord]:
        items = self._items
        if not items and self._failure is None:
            self._not_empty.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._not_empty.wait(), self._poll_interval_s)
        if not items and self._failure is not None:
            failure, self._failure = self._failure, None
            raise failure
        n = min(len(items), self._max_batch)
        if n == len(items):
            batch = list(items)
            items.clear()
        else:
            popleft = items.popleft
            batch = [popleft() for _ in range(n)]
        sizes = self._sizes
        if sizes is not None:
            pop = sizes.popleft
            self._bytes -= sum([pop() for _ in range(n)])
        if n and not self._full():
            self._not_full.set()
        return batch
