"""A topic read on from where the last look ended: for tests that wait until a growing topic holds enough.

read_to_end reads a topic from its start at every call; a wait that looks every 0.2 s at a topic growing to
hundreds of thousands of records then spends seconds per look and competes with the worker under test for the
machine's cores. A TopicTail keeps one consumer and reads on, with read_to_end's rules: committed records only
(read_committed), and each look ends at the partitions' end offsets as they are when it starts, so a writer that
keeps writing does not keep the look going."""

from __future__ import annotations

import asyncio
import time
import uuid
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaException, TopicPartition

from connect_worker.kafka.reader import TopicRecord


class TopicTail:
    def __init__(self, bootstrap: str, topic: str, timeout: float = 60.0) -> None:
        self.topic = topic
        self._timeout = timeout
        self._consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": f"topic-tail-{uuid.uuid4()}",
                "enable.auto.commit": False,
                "enable.partition.eof": False,
                "isolation.level": "read_committed",
            }
        )
        self._partitions: list[TopicPartition] = []
        #: every record read so far, in each partition's offset order
        self.records: list[TopicRecord] = []

    def read_on_blocking(self) -> list[TopicRecord]:
        """read_on for a test without an event loop."""
        if not self._partitions:
            meta = self._consumer.list_topics(self.topic, timeout=10).topics.get(self.topic)
            if meta is None or meta.error is not None or not meta.partitions:
                return self.records  # not created yet
            self._partitions = [TopicPartition(self.topic, p, OFFSET_BEGINNING) for p in sorted(meta.partitions)]
            self._consumer.assign(self._partitions)
        ends = {tp.partition: self._consumer.get_watermark_offsets(tp, timeout=10)[1] for tp in self._partitions}
        deadline = time.monotonic() + self._timeout
        # the position, not the last record: transaction markers and aborted records take offsets too
        while any(tp.offset < ends[tp.partition] for tp in self._consumer.position(self._partitions)):
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.topic} not read to its end offsets in {self._timeout} s")
            for m in self._consumer.consume(num_messages=10000, timeout=0.2):
                if m.error() is not None:
                    raise KafkaException(m.error())
                p, off = m.partition(), m.offset()
                assert p is not None and off is not None
                raw: list[tuple[str, Any]] = list(m.headers() or [])  # type: ignore[arg-type]
                headers = tuple((k, v if isinstance(v, bytes | None) else str(v).encode()) for k, v in raw)
                self.records.append(TopicRecord(p, off, m.key(), m.value(), headers))
        return self.records

    async def read_on(self) -> list[TopicRecord]:
        """Every record read so far, after reading on to the end offsets of now."""
        return await asyncio.to_thread(self.read_on_blocking)

    def close(self) -> None:
        self._consumer.close()
