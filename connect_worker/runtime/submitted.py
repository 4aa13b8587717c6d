"""Which source offsets are safe to commit: only those whose record and every earlier record of the same
source partition were acknowledged by Kafka (Connect's SubmittedRecords)."""

from __future__ import annotations

import collections
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from confluent_kafka import KafkaError, Message

    from connect_worker.api import SourceRecord


class DeliveryListener(Protocol):
    """Told what became of the records submitted through a SubmittedRecords."""

    acknowledged: int  # records acknowledged by Kafka so far (counted here, read as a metric)
    with_metadata: bool  # whether `delivered` wants every acknowledged record with its metadata

    def delivered(self, entry: Submitted, msg: Message) -> None: ...

    def delivery_failed(self, entry: Submitted, err: KafkaError, msg: Message) -> None: ...


class Submitted:
    """One record in flight. It is its own delivery callback (librdkafka calls it once with the outcome), so
    no closure is made per record; `ack()` marks it delivered (or dropped by a transform).

    It holds the record only for a listener that wants it back (`with_metadata`): a record is otherwise freed
    as soon as it is handed to librdkafka, and the cyclic collector never walks the records in flight (up to
    librdkafka's queue, 100,000 by default), which made its older-generation passes cost milliseconds."""

    __slots__ = ("_listener", "acked", "offset", "partition", "record")

    def __init__(
        self,
        partition: Mapping[str, Any] | None,
        offset: Mapping[str, Any] | None,
        record: SourceRecord | None = None,
        listener: DeliveryListener | None = None,
    ) -> None:
        self.partition = partition
        self.offset = offset
        self.record = record
        self._listener = listener
        self.acked = False

    def ack(self) -> None:
        self.acked = True

    def __call__(self, err: KafkaError | None, msg: Message) -> None:
        listener = self._listener
        if listener is None:
            if err is None:
                self.acked = True
            return
        if err is not None:
            listener.delivery_failed(self, err, msg)
            return
        self.acked = True
        listener.acknowledged += 1
        if listener.with_metadata:
            listener.delivered(self, msg)


class SubmittedRecords:
    def __init__(self, listener: DeliveryListener | None = None) -> None:
        self._queues: dict[tuple[tuple[str, Any], ...], collections.deque[Submitted]] = {}
        self._pending = 0
        self._listener = listener
        # a connector usually hands the same partition object to every record: its key is made once
        self._last: tuple[Mapping[str, Any] | None, collections.deque[Submitted] | None] = (None, None)

    def submit(
        self, partition: Mapping[str, Any] | None, offset: Mapping[str, Any] | None, record: SourceRecord | None = None
    ) -> Submitted:
        listener = self._listener
        keep = record if listener is not None and listener.with_metadata else None
        entry = Submitted(partition, offset, keep, listener)
        if partition is None or offset is None:
            entry.acked = True  # nothing to commit for records without a source position
            return entry
        last_partition, q = self._last
        if partition is not last_partition or q is None:
            key = tuple(partition.items())
            q = self._queues.get(key)
            if q is None:
                q = self._queues[key] = collections.deque()
            self._last = (partition, q)
        q.append(entry)
        self._pending += 1
        return entry

    def committable(self) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
        """Remove the acknowledged heads of every partition's queue; the newest offset per partition."""
        out: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []
        for key in list(self._queues):
            q = self._queues[key]
            last: Submitted | None = None
            while q and q[0].acked:
                last = q.popleft()
                self._pending -= 1
            if last is not None:
                assert last.partition is not None and last.offset is not None
                out.append((last.partition, last.offset))
            if not q:
                del self._queues[key]
                if self._last[1] is q:
                    self._last = (None, None)
        return out

    def newest(self) -> list[tuple[Mapping[str, Any], Mapping[str, Any]]]:
        """The newest submitted offset per partition, acknowledged or not (what a Kafka transaction holding every
        submitted record makes committable once it commits); nothing is removed."""
        out: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []
        for q in self._queues.values():
            last = q[-1]
            assert last.partition is not None and last.offset is not None
            out.append((last.partition, last.offset))
        return out

    @property
    def pending(self) -> int:
        """Records submitted but not yet committed (acknowledged or not)."""
        return self._pending
