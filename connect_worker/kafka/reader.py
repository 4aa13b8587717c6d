"""Read a whole topic up to its end offsets at the time of the call (Connect's "read to end"), committed records
only (read_committed, as Connect reads its internal topics with exactly-once source support)."""

from __future__ import annotations

import asyncio
import dataclasses
import time
import uuid
from collections.abc import Mapping
from typing import Any

from confluent_kafka import OFFSET_BEGINNING, Consumer, KafkaError, KafkaException, Message, TopicPartition

from connect_worker.api import RetriableError

_SETTLING = {
    KafkaError.NOT_LEADER_FOR_PARTITION,
    KafkaError.LEADER_NOT_AVAILABLE,
    KafkaError.UNKNOWN_TOPIC_OR_PART,
    KafkaError._UNKNOWN_PARTITION,
}


@dataclasses.dataclass(frozen=True, slots=True)
class TopicRecord:
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    headers: tuple[tuple[str, bytes | None], ...] = ()


def record_of(m: Message) -> TopicRecord:
    """A consumed message as a TopicRecord, its header values as bytes (or None)."""
    p, off = m.partition(), m.offset()
    assert p is not None and off is not None
    raw_headers: list[tuple[str, Any]] = list(m.headers() or [])  # type: ignore[arg-type]
    headers = tuple((k, v if isinstance(v, bytes | None) else str(v).encode()) for k, v in raw_headers)
    return TopicRecord(p, off, m.key(), m.value(), headers)


def watermarks(consumer: Consumer, tp: TopicPartition, timeout: float) -> tuple[int, int]:
    """The partition's low/high offsets, retrying while leadership settles (a topic just created). For a
    read_committed consumer (the reader's and the tail's) "high" is the last stable offset: an open transaction (a
    producer killed in the middle of one) ends the read where it begins instead of holding it until the
    transaction is aborted."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            low, high = consumer.get_watermark_offsets(tp, timeout=timeout)
            return int(low), int(high)
        except KafkaException as e:
            err = e.args[0]
            settling = err.retriable() or err.code() in _SETTLING
            if not settling or time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def _read_to_end(config: Mapping[str, Any], topic: str, timeout: float) -> list[TopicRecord]:
    consumer = Consumer(
        {
            **config,
            "group.id": f"connect-worker-reader-{uuid.uuid4()}",
            "enable.auto.commit": False,
            "enable.partition.eof": False,
            "isolation.level": "read_committed",
        }
    )
    try:
        md = consumer.list_topics(topic, timeout=timeout)
        meta = md.topics.get(topic)
        if meta is None or meta.error is not None:
            return []
        remaining: dict[int, int] = {}
        assignment: list[TopicPartition] = []
        for p in meta.partitions:
            low, high = watermarks(consumer, TopicPartition(topic, p), timeout)
            if high > low:
                remaining[p] = high
                assignment.append(TopicPartition(topic, p, OFFSET_BEGINNING))
        if not assignment:
            return []
        ends = dict(remaining)
        consumer.assign(assignment)
        out: list[TopicRecord] = []
        deadline = time.monotonic() + timeout
        while remaining:
            batch = consumer.consume(num_messages=10000, timeout=0.2)
            if batch:
                deadline = time.monotonic() + timeout
            for m in batch:
                if m.error() is not None:
                    raise KafkaException(m.error())
                record = record_of(m)
                if record.offset >= ends[record.partition]:  # written after the call: a fetch may return more,
                    continue  # and may end mid-transaction
                out.append(record)
            # the position, not the last record: transaction markers and aborted records take offsets too and
            # are never returned, and the consumer's position moves past them
            for tp in consumer.position([TopicPartition(topic, p) for p in remaining]):
                if tp.offset >= remaining[tp.partition]:
                    del remaining[tp.partition]
            if remaining and not batch and time.monotonic() > deadline:
                raise RetriableError(f"Timed out reading topic {topic} to its end")
        return out
    finally:
        consumer.close()


async def read_to_end(config: Mapping[str, Any], topic: str, timeout: float = 30.0) -> list[TopicRecord]:
    """Every record of `topic` up to its current end, in partition order (per-partition offset order)."""
    return await asyncio.to_thread(_read_to_end, config, topic, timeout)
