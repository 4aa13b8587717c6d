"""Heartbeats (Debezium's ``Heartbeat``): every ``heartbeat.interval.ms`` a record on the heartbeat topic that
carries the current offset, so the offset moves (and the database is told a position) while captured tables
are quiet. Key ``{serverName}``; value ``{ts_ms}`` unless the connector has its own (Vitess adds the VGTID).

As in Debezium's ``HeartbeatImpl`` the first heartbeat is due one interval after the stream starts. A streaming
source calls :meth:`Heartbeat.maybe_emit` where a heartbeat may go (between transactions) with its offset.
``action`` (PostgreSQL's ``heartbeat.action.query``) runs after each heartbeat record is queued.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from connect_worker.api import Schema, SourceRecord
from connectors.relational import metadata_schemas as md
from connectors.relational.queue import ChangeEventQueue

#: (offset, epoch ms) -> the heartbeat's value schema and value.
HeartbeatValue = Callable[[Mapping[str, Any], int], tuple[Schema, Any]]


def _ts_ms_value(offset: Mapping[str, Any], now_ms: int) -> tuple[Schema, Any]:
    return md.HEARTBEAT_VALUE_SCHEMA, md.heartbeat_value(now_ms)


class Heartbeat:
    def __init__(
        self,
        *,
        queue: ChangeEventQueue,
        partition: Mapping[str, Any],
        topic: str,
        server_name: str,
        interval_ms: int,
        value: HeartbeatValue = _ts_ms_value,
        action: Callable[[], Awaitable[None]] | None = None,
    ) -> None:
        self._queue = queue
        self._partition = partition
        self._topic = topic
        self._key = md.heartbeat_key(server_name)
        self._interval_s = interval_ms / 1000
        self._value = value
        self._action = action
        self._last = time.monotonic()

    @property
    def enabled(self) -> bool:
        return self._interval_s > 0

    @property
    def interval_s(self) -> float:
        return self._interval_s

    def restart(self) -> None:
        """The stream (re)started: the next heartbeat is due one interval from now."""
        self._last = time.monotonic()

    async def maybe_emit(self, offset: Mapping[str, Any]) -> None:
        """Queue a heartbeat carrying ``offset`` when one is due."""
        if self._interval_s <= 0:
            return
        now = time.monotonic()
        if now - self._last < self._interval_s:
            return
        self._last = now
        await self.emit(offset)

    async def emit(self, offset: Mapping[str, Any]) -> None:
        schema, value = self._value(offset, time.time_ns() // 1_000_000)
        record = SourceRecord(
            self._partition, dict(offset), self._topic, 0, md.HEARTBEAT_KEY_SCHEMA, self._key, schema, value
        )
        await self._queue.put(record)
        if self._action is not None:
            await self._action()
