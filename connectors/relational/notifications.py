"""Notifications (Debezium 3.6's ``NotificationService``): what a snapshot tells the outside world.

Channels (``notification.enabled.channels``):

* ``log``: one INFO line per notification, ``[Notification Service]  {id='…', aggregateType='…', …}``;
* ``sink``: a record on ``notification.sink.topic.name``, key ``io.debezium.connector.common.NotificationKey``
  ``{id}``, value ``io.debezium.connector.common.Notification`` ``{id, type, aggregate_type, additional_data
  (map string→string), timestamp (epoch ms)}``, with the connector's partition and the current offset (an empty
  one when none is known yet), queued in order with the change events.

``additional_data`` is a ``java.util.HashMap`` in Debezium: its entries are kept in that map's order.
"""

from __future__ import annotations

import dataclasses
import logging
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from connect_worker.api import Schema, SourceRecord, Struct, Type
from connect_worker.api.javacompat import java_hashmap_order, java_hashset_order
from connectors.relational.queue import ChangeEventQueue

log = logging.getLogger(__name__)

KEY_SCHEMA: Final = Schema(
    Type.STRUCT, name="io.debezium.connector.common.NotificationKey", version=1, fields=(("id", Schema(Type.STRING)),)
)
VALUE_SCHEMA: Final = Schema(
    Type.STRUCT,
    name="io.debezium.connector.common.Notification",
    version=1,
    fields=(
        ("id", Schema(Type.STRING)),
        ("type", Schema(Type.STRING)),
        ("aggregate_type", Schema(Type.STRING)),
        (
            "additional_data",
            Schema(Type.MAP, optional=True, key_schema=Schema(Type.STRING), value_schema=Schema(Type.STRING)),
        ),
        ("timestamp", Schema(Type.INT64)),
    ),
)


@dataclasses.dataclass(frozen=True, slots=True)
class Notification:
    id: str
    aggregate_type: str
    type: str
    additional_data: Mapping[str, str]
    timestamp: int

    def __str__(self) -> str:
        data = "{" + ", ".join(f"{k}={v}" for k, v in self.additional_data.items()) + "}"
        return (
            f"{{id='{self.id}', aggregateType='{self.aggregate_type}', type='{self.type}', "
            f"additionalData={data}, timestamp={self.timestamp}}}"
        )


class NotificationService:
    def __init__(
        self,
        channels: tuple[str, ...],
        *,
        connector_name: str,
        queue: ChangeEventQueue,
        partition: Mapping[str, Any],
        topic: str | None,
    ) -> None:
        self._log = "log" in channels
        self._sink = "sink" in channels and topic is not None
        self._connector = connector_name
        self._queue = queue
        self._partition = dict(partition)
        self._topic = topic or ""

    @property
    def enabled(self) -> bool:
        return self._log or self._sink

    def build(
        self, aggregate_type: str, kind: str, data: Mapping[str, str], correlation_id: str | None = None
    ) -> Notification:
        """A notification of the connector (``connector_name`` added), with the requesting signal's id or a new
        one."""
        full = dict(data)
        full["connector_name"] = self._connector
        return Notification(
            id=correlation_id if correlation_id is not None else str(uuid.uuid4()),
            aggregate_type=aggregate_type,
            type=kind,
            additional_data=java_hashmap_order(full, copy_constructor=True),
            timestamp=time.time_ns() // 1_000_000,
        )

    async def notify(self, notification: Notification, offset: Callable[[], Mapping[str, Any] | None]) -> None:
        if self._log:
            log.info("[Notification Service]  %s", notification)
        if self._sink:
            current = offset()
            value = Struct.of(
                VALUE_SCHEMA,
                (
                    notification.id,
                    notification.type,
                    notification.aggregate_type,
                    dict(notification.additional_data),
                    notification.timestamp,
                ),
            )
            record = SourceRecord(
                self._partition,
                dict(current) if current else {},
                self._topic,
                None,
                KEY_SCHEMA,
                Struct.of(KEY_SCHEMA, (notification.id,)),
                VALUE_SCHEMA,
                value,
            )
            await self._queue.put(record)


class InitialSnapshotNotifier:
    """The ``Initial Snapshot`` notifications of Debezium's ``InitialSnapshotNotificationService``: STARTED,
    per table IN_PROGRESS (``data_collections``: the tables read, in a Java HashSet's order) and
    TABLE_SCAN_COMPLETED (``data_collections``: the captured tables with the signal table, in capture order;
    ``total_rows_scanned``; ``status`` SUCCEEDED), then COMPLETED or ABORTED; SKIPPED when no snapshot runs.
    Each notification has a new random id."""

    AGGREGATE: Final = "Initial Snapshot"

    def __init__(self, service: NotificationService, captured: Sequence[str], snapshotted: Sequence[str]) -> None:
        self._service = service
        self._captured = ",".join(captured)
        self._snapshotted = ",".join(java_hashset_order(snapshotted))

    async def _send(self, kind: str, data: Mapping[str, str], offset: Mapping[str, Any] | None) -> None:
        if self._service.enabled:
            await self._service.notify(self._service.build(self.AGGREGATE, kind, data), lambda: offset)

    async def started(self, offset: Mapping[str, Any] | None) -> None:
        await self._send("STARTED", {}, offset)

    async def table_started(self, table: str, offset: Mapping[str, Any] | None) -> None:
        await self._send(
            "IN_PROGRESS", {"current_collection_in_progress": table, "data_collections": self._snapshotted}, offset
        )

    async def table_done(self, table: str, rows: int, offset: Mapping[str, Any] | None) -> None:
        data = {
            "scanned_collection": table,
            "data_collections": self._captured,
            "total_rows_scanned": str(rows),
            "status": "SUCCEEDED",
        }
        await self._send("TABLE_SCAN_COMPLETED", data, offset)

    async def completed(self, offset: Mapping[str, Any] | None) -> None:
        await self._send("COMPLETED", {}, offset)

    async def aborted(self, offset: Mapping[str, Any] | None) -> None:
        await self._send("ABORTED", {}, offset)

    async def skipped(self, offset: Mapping[str, Any] | None) -> None:
        await self._send("SKIPPED", {}, offset)
