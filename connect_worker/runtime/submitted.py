"""Which source offsets are safe to commit: only those whose record and every earlier record of the same
source partition were acknowledged by Kafka (Connect's SubmittedRecords)."""

from __future__ import annotations

import collections
from collections.abc import Mapping
from typing import Any


class Submitted:
    """One record in flight. `ack()` marks it delivered (or dropped by a transform)."""

    __slots__ = ("acked", "offset", "partition")

    def __init__(self, partition: Mapping[str, Any] | None, offset: Mapping[str, Any] | None) -> None:
        self.partition = partition
        self.offset = offset
        self.acked = False

    def ack(self) -> None:
        self.acked = True


def _partition_key(partition: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(partition.items())


class SubmittedRecords:
    def __init__(self) -> None:
        self._queues: dict[tuple[tuple[str, Any], ...], collections.deque[Submitted]] = {}
        self._pending = 0

    def submit(self, partition: Mapping[str, Any] | None, offset: Mapping[str, Any] | None) -> Submitted:
        entry = Submitted(partition, offset)
        if partition is None or offset is None:
            entry.acked = True  # nothing to commit for records without a source position
            return entry
        key = _partition_key(partition)
        q = self._queues.get(key)
        if q is None:
            q = self._queues[key] = collections.deque()
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
        return out

    @property
    def pending(self) -> int:
        """Records submitted but not yet committed (acknowledged or not)."""
        return self._pending
