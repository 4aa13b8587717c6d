"""The signal channels other than the signal table (Debezium 3.6's ``KafkaSignalChannel``, ``FileSignalChannel``
and, in place of its JMX channel, the worker's REST endpoint). Each ``read()`` returns what arrived since the last
call; signals.py processes them.

* ``kafka``: partition 0 of ``signal.kafka.topic`` (it must have one partition), assigned (no group
  rebalancing) with group ``signal.kafka.groupId``; ``signal.consumer.*`` is passed to the consumer. As in
  Debezium the consumer starts at the group's committed offset (``earliest`` without one) and commits
  automatically. A record counts only if its key is the connector's ``topic.prefix``; its value is
  ``{"id": …, "type": …, "data": {…}}``.
* ``file``: every line of ``signal.file`` is a signal ``{"id", "type", "data"}``; the file is emptied after it
  is read.
* ``jmx`` / ``rest``: ``POST /connectors/{name}/signals`` on the worker (our extension), same JSON.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
import uuid
from collections.abc import Mapping
from typing import Any, Protocol

from connectors.relational.signaling_config import SignalingConfig
from connectors.relational.signals import SignalRecord

log = logging.getLogger(__name__)


class SignalChannel(Protocol):
    name: str

    async def read(self) -> list[SignalRecord]: ...

    async def close(self) -> None: ...


def signal_from_json(text: str | bytes, *, channel: str, extra: Mapping[str, Any] | None = None) -> SignalRecord | None:
    """``{"id", "type", "data"}`` (``data`` any JSON, kept as its JSON text), None (logged) when malformed."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        log.warning("Skipped %s signal due to a parse error: %s", channel, e)
        return None
    if not isinstance(doc, dict):
        log.warning("Skipped %s signal: not a JSON object: %s", channel, text)
        return None
    data = doc.get("data")
    data_text = None if data is None else data if isinstance(data, str) else json.dumps(data, separators=(",", ":"))
    signal_id = doc.get("id")
    kind = doc.get("type")
    return SignalRecord(
        None if signal_id is None else str(signal_id),
        None if kind is None else str(kind),
        data_text,
        dict(extra or {}),
    )


class KafkaSignalChannel:
    name = "kafka"

    def __init__(self, settings: SignalingConfig, connector_name: str) -> None:
        from confluent_kafka import Consumer, TopicPartition  # only when the channel is enabled

        self._connector = connector_name
        self._topic = settings.kafka_topic
        self._timeout_s = settings.kafka_poll_timeout_ms / 1000
        config: dict[str, Any] = {
            "bootstrap.servers": settings.kafka_bootstrap_servers,
            "client.id": str(uuid.uuid4()),
            "group.id": settings.kafka_group_id,
            "fetch.min.bytes": 1,
            "session.timeout.ms": 10000,
            "enable.auto.commit": True,
            "auto.offset.reset": "earliest",
        }
        config.update(dict(settings.kafka_consumer))
        self._consumer = Consumer(config)
        log.info("Subscribing to signals topic '%s'", self._topic)
        self._consumer.assign([TopicPartition(self._topic, 0)])

    async def read(self) -> list[SignalRecord]:
        messages = await asyncio.to_thread(self._consumer.consume, 500, self._timeout_s)
        out: list[SignalRecord] = []
        for m in messages:
            if m.error() is not None:
                log.warning("signal topic '%s': %s", self._topic, m.error())
                continue
            key = m.key()
            key_text = key.decode("utf-8", "replace") if isinstance(key, bytes) else key
            if key_text != self._connector:
                log.info("Signal key '%s' doesn't match the connector's name '%s'", key_text, self._connector)
                continue
            value = m.value()
            if not value:
                continue
            signal = signal_from_json(value, channel=self.name, extra={"channelOffset": m.offset()})
            if signal is not None:
                out.append(signal)
        return out

    async def close(self) -> None:
        consumer = self._consumer

        def close() -> None:
            try:
                consumer.commit(asynchronous=False)
            except Exception as e:  # noqa: BLE001 - nothing consumed since the last commit
                log.debug("signal consumer commit on close: %s", e)
            consumer.close()

        await asyncio.to_thread(close)


class FileSignalChannel:
    name = "file"

    def __init__(self, settings: SignalingConfig) -> None:
        self._path = settings.file
        log.info("File signal channel is active, reading signals from '%s'", os.path.abspath(self._path))

    async def read(self) -> list[SignalRecord]:
        return await asyncio.to_thread(self._read)

    def _read(self) -> list[SignalRecord]:
        if not os.path.isfile(self._path):
            return []
        with open(self._path, "r+", encoding="utf-8") as f:
            lines = f.read().splitlines()
            if lines:
                f.seek(0)
                f.truncate()
        out: list[SignalRecord] = []
        for line in lines:
            if not line.strip():
                continue
            signal = signal_from_json(line, channel=self.name)
            if signal is not None:
                log.info("Processing signal: %s, %s, %s", signal.id, signal.type, signal.data)
                out.append(signal)
        return out

    async def close(self) -> None:
        return None


class InProcessSignalChannel:
    """Signals handed over by the worker (its REST endpoint), read at the next poll."""

    name = "jmx"

    def __init__(self, wake: asyncio.Event) -> None:
        self._pending: list[SignalRecord] = []
        self._wake = wake

    def submit(self, signal: SignalRecord) -> None:
        self._pending.append(signal)
        self._wake.set()

    async def read(self) -> list[SignalRecord]:
        out, self._pending = self._pending, []
        return out

    async def close(self) -> None:
        self._pending.clear()
