import asyncio

import pytest

from connect_worker.api import SourceRecord
from connectors.relational.queue import ChangeEventQueue


def rec(i: int) -> SourceRecord:
    return SourceRecord({"p": 1}, {"o": i}, "t", None, None, None, None, i)


async def test_batches_are_bounded_and_ordered() -> None:
    q = ChangeEventQueue(max_size=10, max_batch=3, poll_interval_s=0.05)
    for i in range(7):
        assert q.offer(rec(i))
    assert [r.value for r in await q.poll()] == [0, 1, 2]
    assert [r.value for r in await q.poll()] == [3, 4, 5]
    assert [r.value for r in await q.poll()] == [6]
    assert values(await q.poll()) == []  # waits poll.interval, then returns empty


async def test_full_queue_blocks_the_producer_until_polled() -> None:
    q = ChangeEventQueue(max_size=2, max_batch=1, poll_interval_s=0.05)
    assert q.offer(rec(0)) and q.offer(rec(1))
    assert not q.offer(rec(2))
    put = asyncio.ensure_future(q.put(rec(2)))
    await asyncio.sleep(0.02)
    assert not put.done()
    await q.poll()
    await asyncio.wait_for(put, 1)
    assert len(q) == 2


async def test_byte_limit() -> None:
    q = ChangeEventQueue(max_size=100, max_batch=10, poll_interval_s=0.05, max_bytes=100)
    assert q.offer(rec(0), 60) and q.offer(rec(1), 60)
    assert not q.offer(rec(2), 1)  # 120 bytes queued >= 100
    await q.poll()
    assert q.offer(rec(2), 1)


async def test_failure_surfaces_after_queued_records() -> None:
    q = ChangeEventQueue(max_size=10, max_batch=5, poll_interval_s=0.05)
    q.offer(rec(0))
    q.fail(RuntimeError("boom"))
    assert [r.value for r in await q.poll()] == [0]
    with pytest.raises(RuntimeError, match="boom"):
        await q.poll()


def test_queue_must_be_larger_than_batch() -> None:
    with pytest.raises(ValueError):
        ChangeEventQueue(max_size=2, max_batch=2, poll_interval_s=1)


def values(batch: list[SourceRecord]) -> list[object]:
    return [r.value for r in batch]


async def test_transaction_tracking_never_ends_a_batch_inside_a_transaction_it_can_end_before() -> None:
    q = ChangeEventQueue(max_size=100, max_batch=4, poll_interval_s=0.01)
    q.track_transactions()
    q.offer(rec(0))  # a record of no transaction (a heartbeat)
    q.begin_transaction()
    for i in (1, 2, 3):
        q.offer(rec(i))
    q.end_transaction()
    q.begin_transaction()
    for i in (4, 5, 6, 7, 8, 9):
        q.offer(rec(i))
    q.end_transaction()
    q.begin_transaction()
    q.end_transaction()  # a transaction that offered nothing
    q.begin_transaction()
    q.offer(rec(10))  # still open

    assert values(await q.poll()) == [0, 1, 2, 3] and q.batch_ends_transaction  # 4 fits: ends at the first one's end
    assert values(await q.poll()) == [4, 5, 6, 7] and not q.batch_ends_transaction  # a transaction longer than a batch
    assert values(await q.poll()) == [8, 9] and q.batch_ends_transaction  # its end, not into the open one
    assert values(await q.poll()) == [10] and not q.batch_ends_transaction  # inside the open transaction
    q.offer(rec(11))
    q.end_transaction()
    q.offer(rec(12))
    assert values(await q.poll()) == [11, 12] and q.batch_ends_transaction


async def test_without_tracking_batches_are_cut_by_size_only() -> None:
    q = ChangeEventQueue(max_size=100, max_batch=3, poll_interval_s=0.01)
    q.offer(rec(0))
    q.begin_transaction()
    for i in (1, 2, 3):
        q.offer(rec(i))
    assert values(await q.poll()) == [0, 1, 2] and q.batch_ends_transaction


async def test_a_transaction_resumed_after_a_capture_restart_goes_on() -> None:
    """The capture restarted inside a transaction and sends its rest after a new BEGIN: one transaction still."""
    q = ChangeEventQueue(max_size=100, max_batch=10, poll_interval_s=0.01)
    q.track_transactions()
    q.begin_transaction()
    q.offer(rec(0))
    q.offer(rec(1))
    assert values(await q.poll()) == [0, 1] and not q.batch_ends_transaction
    q.begin_transaction()  # the resumed stream's BEGIN of the same transaction
    q.offer(rec(2))
    q.end_transaction()
    q.begin_transaction()
    q.offer(rec(3))
    q.end_transaction()
    assert values(await q.poll()) == [2, 3] and q.batch_ends_transaction
    assert not q._transactions  # nothing left behind (an interval per transaction, dropped once polled)
