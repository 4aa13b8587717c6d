"""The bounded queue between a connector's change-event producers (snapshot, streaming) and `poll()`.

max.queue.size records or max.queue.size.in.bytes bytes, whichever is hit first, block the producer:
this is the back-pressure path when Kafka is slow or down. `poll()` returns up to max.batch.size records,
waiting up to poll.interval.ms for the first one. A producer failure is handed to the next `poll()`.
Offering is synchronous while there is room, so the hot path pays no await per record.

Source transactions (`track_transactions`, for `transaction.boundary=connector`): the streaming source says where a
database transaction begins and ends (`begin_transaction`/`end_transaction`, in order with its records); `poll()`
then never ends a batch inside a transaction when it can end it before one, and `batch_ends_transaction` tells
whether the batch it returned ends at a point where no transaction is open (a transaction's end, or records that
belong to none: snapshot rows, heartbeats). A transaction larger than a batch spans several batches.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import dataclasses

from connect_worker.api import SourceRecord


@dataclasses.dataclass(slots=True)
class _Span:
    """A source transaction's records: queue positions [start, end), end None while it is open."""

    start: int
    end: int | None = None


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
        self._taken = 0  # records polled so far: with len(_items), the positions of transaction bounds
        self._track = False
        self._transactions: collections.deque[_Span] = collections.deque()  # not yet wholly polled
        self.batch_ends_transaction = True  # of the last batch poll() returned
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

    def track_transactions(self) -> None:
        self._track = True

    def _open(self) -> _Span | None:
        return self._transactions[-1] if self._transactions and self._transactions[-1].end is None else None

    def begin_transaction(self) -> None:
        """A source transaction starts with the next record offered. While one is still open (the capture restarted
        inside it and resumes it: the rest of it follows), that one goes on."""
        if self._track and self._open() is None:
            self._transactions.append(_Span(self._taken + len(self._items)))

    def end_transaction(self) -> None:
        """The open source transaction ended with the last record offered."""
        span = self._open() if self._track else None
        if span is not None:
            span.end = self._taken + len(self._items)
            if span.start == span.end:  # it offered nothing
                self._transactions.pop()

    def _cut(self, n: int) -> int:
        """How many of the `n` records poll() may take so that the batch does not end inside a transaction it
        could end before; sets batch_ends_transaction."""
        taken, end = self._taken, self._taken + n
        ends = True
        for span in self._transactions:
            if span.start >= end:
                break
            if span.end is None or span.end > end:  # `end` falls inside this transaction
                if span.start > taken:
                    n = span.start - taken  # end the batch before it begins
                else:
                    ends = False  # the batch lies within it: the transaction continues in the next batch
                break
        transactions = self._transactions
        while transactions and transactions[0].end is not None and transactions[0].end <= taken + n:
            transactions.popleft()
        self.batch_ends_transaction = ends
        return n

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
        if self._track:
            n = self._cut(n)
        self._taken += n
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
