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
    assert await q.poll() == []  # waits poll.interval, then returns empty


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
