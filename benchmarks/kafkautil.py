"""Kafka side of the measurement: data topics with LogAppendTime, watermarks, and reading a phase's records back.

Records are read only after a phase has fully arrived (watermark polling while it runs), so the reader never
competes with the system under test for CPU during the measured window: every figure comes from the broker's
LogAppendTime stamps.
"""

from __future__ import annotations

import contextlib
import dataclasses
import time
import uuid
from collections.abc import Callable, Generator, Iterable
from typing import Any

import orjson
from confluent_kafka import TIMESTAMP_LOG_APPEND_TIME, Consumer, KafkaException, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def _admin(bootstrap: str) -> Any:
    return AdminClient({"bootstrap.servers": bootstrap})


def create_topics(bootstrap: str, topics: Iterable[str], *, timeout: float = 30.0) -> None:
    """Create single-partition data topics whose records carry the broker's append time."""
    admin = _admin(bootstrap)
    new = [
        NewTopic(t, num_partitions=1, replication_factor=1, config={"message.timestamp.type": "LogAppendTime"})
        for t in topics
    ]
    for topic, fut in admin.create_topics(new, operation_timeout=timeout).items():
        try:
            fut.result(timeout)
        except KafkaException as e:
            raise RuntimeError(f"could not create topic {topic}: {e}") from e
    deadline = time.monotonic() + timeout
    wanted = {n.topic for n in new}
    while not wanted <= set(admin.list_topics(timeout=10).topics):
        if time.monotonic() > deadline:
            raise TimeoutError(f"topics {sorted(wanted)} not visible after {timeout} s")
        time.sleep(0.1)


def delete_topics(bootstrap: str, topics: Iterable[str], *, timeout: float = 30.0) -> None:
    """Delete the given topics when they exist (best effort)."""
    names = list(topics)
    if not names:
        return
    admin = _admin(bootstrap)
    existing = set(admin.list_topics(timeout=10).topics)
    wanted = [t for t in names if t in existing]
    if not wanted:
        return
    for fut in admin.delete_topics(wanted, operation_timeout=timeout).values():
        with contextlib.suppress(Exception):
            fut.result(timeout)


class Watermarks:
    """Cheap end-offset polling of single-partition topics (one long-lived consumer, no group)."""

    def __init__(self, bootstrap: str) -> None:
        self._consumer = Consumer(
            {
                "bootstrap.servers": bootstrap,
                "group.id": "bench-watermarks-" + uuid.uuid4().hex[:8],
                "enable.auto.commit": False,
            }
        )

    def high(self, topic: str) -> int:
        _low, high = self._consumer.get_watermark_offsets(TopicPartition(topic, 0), timeout=10, cached=False)
        return int(high)

    def wait_for(self, topic: str, offset: int, *, timeout: float, poll_s: float = 0.05) -> float:
        """Wait until `topic` holds `offset` records; returns the wall time it was seen. TimeoutError otherwise."""
        deadline = time.monotonic() + timeout
        while True:
            high = self.high(topic)
            if high >= offset:
                return time.time()
            if time.monotonic() > deadline:
                raise TimeoutError(f"{topic}: {high} records after {timeout:.0f} s, expected {offset}")
            time.sleep(poll_s)

    def close(self) -> None:
        self._consumer.close()


@dataclasses.dataclass
class PhaseRecords:
    """What a phase wrote: per record the LogAppendTime (ms), key+value bytes and optionally source.ts_ms."""

    append_ms: list[int]
    sizes: list[int]
    source_ts_ms: list[int]

    @property
    def count(self) -> int:
        return len(self.append_ms)

    @property
    def bytes(self) -> int:
        return sum(self.sizes)

    @property
    def span_s(self) -> float:
        """First to last LogAppendTime, in seconds (at least 1 ms, the timestamps' resolution)."""
        if not self.append_ms:
            return 0.0
        return max(1, max(self.append_ms) - min(self.append_ms)) / 1000.0


#: reads `source.ts_ms` (the commit time) out of one record value
SourceTs = Callable[[bytes], int]


def json_datum(data: bytes) -> Any:
    """A JsonConverter key or value, without the schema envelope when it has one."""
    doc = orjson.loads(data)
    return doc["payload"] if isinstance(doc, dict) and "schema" in doc and "payload" in doc else doc


def read_edges(
    bootstrap: str, topic: str, start: int, end: int, *, sample: int = 2_000, timeout: float = 120.0
) -> PhaseRecords:
    """The first `sample` records of [start, end) and the last one: enough for the first→last LogAppendTime span
    and the average record size of big phases without reading gigabytes back. `sizes` holds the sample only."""
    if end - start <= sample + 1:
        return read_range(bootstrap, topic, start, end, timeout=timeout)
    head = read_range(bootstrap, topic, start, start + sample, timeout=timeout)
    tail = read_range(bootstrap, topic, end - 1, end, timeout=timeout)
    return PhaseRecords(head.append_ms + tail.append_ms, head.sizes, [])


def read_range(
    bootstrap: str, topic: str, start: int, end: int, *, source_ts: SourceTs | None = None, timeout: float = 120.0
) -> PhaseRecords:
    """`end - start` records of partition 0 of `topic` from `start` (_messages); checks that they carry
    LogAppendTime stamps. With `source_ts`, each value's source.ts_ms as well."""
    out = PhaseRecords([], [], [])
    with contextlib.closing(_messages(bootstrap, topic, start, end, timeout)) as messages:
        for msg in messages:
            key, value = msg.key(), msg.value()
            out.append_ms.append(msg.timestamp()[1])
            out.sizes.append((len(key) if key else 0) + (len(value) if value else 0))
            if source_ts is not None and value is not None:
                out.source_ts_ms.append(source_ts(value))
    return out


def read_records(
    bootstrap: str, topic: str, start: int, end: int, *, timeout: float = 120.0
) -> list[tuple[bytes | None, bytes | None]]:
    """(key, value) of the records [start, end) of partition 0 of `topic`."""
    with contextlib.closing(_messages(bootstrap, topic, start, end, timeout)) as messages:
        return [(msg.key(), msg.value()) for msg in messages]


def _messages(bootstrap: str, topic: str, start: int, end: int, timeout: float) -> Generator[Any, None, None]:
    """`end - start` messages of partition 0 of `topic` from offset `start` on, in order, each checked to carry a
    LogAppendTime stamp. Counted, not bounded by offset: in a topic written by transactions (exactly-once runs)
    commit markers take offsets too, and a read_committed consumer (librdkafka's default) never returns them or
    aborted records; in any other topic the two are the same."""
    if end <= start:
        return
    consumer = Consumer(
        {
            "bootstrap.servers": bootstrap,
            "group.id": "bench-reader-" + uuid.uuid4().hex[:8],
            "enable.auto.commit": False,
            "fetch.max.bytes": 64 * 1024 * 1024,
        }
    )
    deadline = time.monotonic() + timeout
    try:
        consumer.assign([TopicPartition(topic, 0, start)])
        next_offset, left = start, end - start
        while left > 0:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{topic}: read {end - start - left} of {end - start} records in {timeout} s")
            for msg in consumer.consume(num_messages=min(10_000, left), timeout=1.0):
                if msg.error():
                    continue
                offset = msg.offset()
                if offset is None or offset < next_offset or left <= 0:
                    continue
                next_offset, left = offset + 1, left - 1
                ts_type, _ts = msg.timestamp()
                if ts_type != TIMESTAMP_LOG_APPEND_TIME:
                    raise RuntimeError(f"{topic} records are not LogAppendTime-stamped (type {ts_type})")
                yield msg
    finally:
        consumer.close()
