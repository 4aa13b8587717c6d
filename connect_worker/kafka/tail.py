"""Follow a topic as it grows (Connect's KafkaBasedLog after its first read): a thread consumes every partition from
given offsets and hands the records to a callback on the event loop, in order; `read_to_end()` waits until what
was in the topic when it was called has been handed over. Committed records only (read_committed)."""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, TopicPartition

from connect_worker.api import RetriableError
from connect_worker.kafka.reader import TopicRecord, record_of, watermarks

log = logging.getLogger(__name__)


class TopicTail:
    def __init__(
        self,
        config: Mapping[str, Any],
        topic: str,
        on_records: Callable[[Sequence[TopicRecord]], None],
        *,
        start: Mapping[int, int] | None = None,
    ) -> None:
        """`start`: the next offset to read per partition (the others from the beginning)."""
        self.topic = topic
        self._config = {
            **config,
            "group.id": f"connect-worker-tail-{uuid.uuid4()}",
            "enable.auto.commit": False,
            "enable.partition.eof": False,
            "isolation.level": "read_committed",
        }
        self._on_records = on_records
        self._start = dict(start or {})
        self._positions: dict[int, int] = dict(self._start)  # consumed up to here (next offset)
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._consumer: Consumer | None = None
        self._partitions: list[int] = []
        # end offsets are asked on a handle of their own: asked on the consuming one, they wait for its fetches
        self._probe: Consumer | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._progress = asyncio.Event()
        self._error: BaseException | None = None

    async def start(self) -> None:
        self._loop = asyncio.get_running_loop()
        self._consumer = await asyncio.to_thread(self._open)
        self._probe = await asyncio.to_thread(
            Consumer, {**self._config, "group.id": f"{self._config['group.id']}-ends"}
        )
        self._thread = threading.Thread(target=self._run, name=f"tail-{self.topic}", daemon=True)
        self._thread.start()

    def _open(self) -> Consumer:
        consumer = Consumer(self._config)
        meta = consumer.list_topics(self.topic, timeout=30).topics.get(self.topic)
        if meta is None or meta.error is not None:
            consumer.close()
            raise RetriableError(f"Topic {self.topic} not found")
        self._partitions = sorted(meta.partitions)
        consumer.assign([TopicPartition(self.topic, p, self._start.get(p, OFFSET_BEGINNING)) for p in self._partitions])
        return consumer

    def _run(self) -> None:
        consumer = self._consumer
        assert consumer is not None and self._loop is not None
        try:
            while not self._stop.is_set():
                batch = consumer.consume(num_messages=1000, timeout=0.2)
                records = []
                for m in batch:
                    if m.error() is not None:
                        log.warning("reading %s: %s", self.topic, m.error())
                        continue
                    records.append(record_of(m))
                positions = {
                    tp.partition: tp.offset for tp in consumer.position(consumer.assignment()) if tp.offset >= 0
                }
                self._loop.call_soon_threadsafe(self._deliver, records, positions)
        except BaseException as e:  # noqa: BLE001 - handed to whoever waits on the tail
            self._loop.call_soon_threadsafe(self._failed, e)
        finally:
            consumer.close()

    def _deliver(self, records: list[TopicRecord], positions: dict[int, int]) -> None:
        if records:
            try:
                self._on_records(records)
            except Exception:
                log.exception("handling records of %s failed", self.topic)
        for p, off in positions.items():
            self._positions[p] = max(off, self._positions.get(p, 0))
        self._progress.set()

    def _failed(self, e: BaseException) -> None:
        log.error("reading %s stopped: %s", self.topic, e)
        self._error = e
        self._progress.set()

    def _ends(self) -> dict[int, tuple[int, int]]:
        """Each partition's (low, high) watermarks; high is the last stable offset (read_committed)."""
        probe = self._probe
        assert probe is not None
        return {p: watermarks(probe, TopicPartition(self.topic, p), 30) for p in self._partitions}

    async def read_to_end(self, timeout: float = 30.0) -> None:
        """Return once every record in the topic now has been handed to the callback."""
        try:
            ends = await asyncio.to_thread(self._ends)
        except KafkaException as e:
            raise RetriableError(f"Could not read the end offsets of {self.topic}: {e}") from e
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        # a partition whose records are all gone (low == high) has nothing to hand over: no position to wait for
        while any(max(self._positions.get(p, 0), low) < high for p, (low, high) in ends.items()):
            if self._error is not None:
                raise RetriableError(f"Reading {self.topic} stopped: {self._error}")
            self._progress.clear()
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise RetriableError(f"Timed out reading topic {self.topic} to its end")
            try:
                await asyncio.wait_for(self._progress.wait(), remaining)
            except TimeoutError:
                continue

    async def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            await asyncio.to_thread(self._thread.join, 10)
        if self._probe is not None:
            await asyncio.to_thread(self._probe.close)
            self._probe = None


class TopicFollower:
    """Where a store's reading of its topic stands (the next offset of each partition it has applied), and the
    tail that keeps it reading once it is followed: the config, status and offsets stores share it."""

    def __init__(self, config: Mapping[str, Any], topic: str) -> None:
        self._config = dict(config)
        self.topic = topic
        self.next: dict[int, int] = {}
        self._tail: TopicTail | None = None

    @property
    def following(self) -> bool:
        return self._tail is not None

    def advance(self, records: Sequence[TopicRecord]) -> None:
        for r in records:
            self.next[r.partition] = max(self.next.get(r.partition, 0), r.offset + 1)

    async def follow(self, on_records: Callable[[Sequence[TopicRecord]], None]) -> None:
        """Hand `on_records` every record after those already applied, as the topic grows."""
        self._tail = TopicTail(self._config, self.topic, on_records, start=self.next)
        await self._tail.start()

    async def read_to_end(self) -> None:
        """When followed: wait until every record in the topic now has been handed over."""
        if self._tail is not None:
            await self._tail.read_to_end()

    async def stop(self) -> None:
        if self._tail is not None:
            await self._tail.stop()
