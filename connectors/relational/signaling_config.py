"""Signals, incremental snapshots and notifications: their settings, parsed once (Debezium 3.6.3's
``CommonConnectorConfig`` signal/notification keys, ``KafkaSignalChannel`` and ``FileSignalChannel`` keys).

Defaults are the 3.6.3 code's, where they differ from its documentation: the Kafka channel's consumer commits its
offsets automatically (``enable.auto.commit`` true, override with ``signal.consumer.enable.auto.commit``) and polls
with a zero timeout; the file channel reads ``file-signals.txt`` when ``signal.file`` is unset.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from connectors.relational.table import TableId


class WatermarkingStrategy(enum.Enum):
    INSERT_INSERT = "insert_insert"
    INSERT_DELETE = "insert_delete"


SIGNAL_CHANNELS = frozenset({"source", "kafka", "file", "jmx", "rest"})
NOTIFICATION_CHANNELS = frozenset({"sink", "log"})
_CONSUMER_PREFIX = "signal.consumer."


@dataclasses.dataclass(frozen=True, slots=True)
class SignalingConfig:
    #: signal.data.collection: the signal tables (the source channel's; watermarks are written to the first)
    data_collections: tuple[TableId, ...] = ()
    #: signal.enabled.channels, lower case
    channels: tuple[str, ...] = ("source",)
    poll_interval_ms: int = 5000
    kafka_topic: str = ""
    kafka_group_id: str = "kafka-signal"
    kafka_bootstrap_servers: str | None = None
    kafka_poll_timeout_ms: int = 0
    #: signal.consumer.* with the prefix removed
    kafka_consumer: tuple[tuple[str, str], ...] = ()
    file: str = "file-signals.txt"
    #: notification.enabled.channels, lower case
    notification_channels: tuple[str, ...] = ()
    notification_topic: str | None = None
    chunk_size: int = 1024
    watermarking: WatermarkingStrategy = WatermarkingStrategy.INSERT_INSERT
    allow_schema_changes: bool = False
    #: read.only (PostgreSQL): incremental snapshots watermarked by transaction ids, nothing written
    read_only: bool = False

    @property
    def signal_table(self) -> TableId | None:
        return self.data_collections[0] if self.data_collections else None

    def is_signal_table(self, table_id: TableId) -> bool:
        return table_id in self.data_collections


def signaling_config(parsed: Mapping[str, Any], props: Mapping[str, Any], topic_prefix: str) -> SignalingConfig:
    """From a connector's parsed values (every key with its default) and its raw properties (for the
    ``signal.consumer.*`` pass-through). The caller has validated the values already."""

    def texts(key: str) -> tuple[str, ...]:
        value = parsed.get(key)
        if value is None:
            return ()
        items = value.split(",") if isinstance(value, str) else value
        return tuple(str(v).strip() for v in items if str(v).strip())

    consumer = tuple(
        (key[len(_CONSUMER_PREFIX) :], str(value))
        for key, value in sorted(props.items())
        if key.startswith(_CONSUMER_PREFIX) and value is not None
    )
    return SignalingConfig(
        data_collections=tuple(TableId.parse(t) for t in texts("signal.data.collection")),
        channels=tuple(c.lower() for c in texts("signal.enabled.channels")),
        poll_interval_ms=_int(parsed, "signal.poll.interval.ms", 5000),
        kafka_topic=str(parsed.get("signal.kafka.topic") or f"{topic_prefix}-signal"),
        kafka_group_id=str(parsed.get("signal.kafka.groupId") or "kafka-signal"),
        kafka_bootstrap_servers=parsed.get("signal.kafka.bootstrap.servers"),
        kafka_poll_timeout_ms=_int(parsed, "signal.kafka.poll.timeout.ms", 0),
        kafka_consumer=consumer,
        file=str(parsed.get("signal.file") or "file-signals.txt"),
        notification_channels=tuple(c.lower() for c in texts("notification.enabled.channels")),
        notification_topic=parsed.get("notification.sink.topic.name"),
        chunk_size=_int(parsed, "incremental.snapshot.chunk.size", 1024),
        watermarking=WatermarkingStrategy(
            str(parsed.get("incremental.snapshot.watermarking.strategy") or "insert_insert").lower()
        ),
        allow_schema_changes=bool(parsed.get("incremental.snapshot.allow.schema.changes")),
        read_only=bool(parsed.get("read.only")),
    )


def _int(parsed: Mapping[str, Any], key: str, default: int) -> int:
    value = parsed.get(key)
    return default if value is None else int(value)
