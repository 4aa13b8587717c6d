"""Connector, task and topic statuses in the status topic, in Connect's format.

  status-connector-<name>   {"state":"RUNNING","trace":null,"worker_id":"h:p","generation":0,"version":"…"}
  status-task-<name>-<n>    same fields
  status-topic-<topic>:connector-<name>   {"topic":{"name":…,"connector":…,"task":0,"discoverTimestamp":ms}}
A removed status is written as UNASSIGNED, then tombstoned. Writes are fire-and-forget with a logged
failure, as Connect's status store does (statuses are advisory; the worker's memory is authoritative).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

from connect_worker.kafka.admin import TopicAdmin
from connect_worker.kafka.producer import AsyncProducer
from connect_worker.kafka.reader import TopicRecord, read_to_end
from connect_worker.kafka.tail import TopicFollower
from connect_worker.storage import internal_json
from connect_worker.storage.offsets import ensure_compacted_topic

log = logging.getLogger(__name__)


class StatusStore:
    def __init__(
        self,
        *,
        topic: str,
        producer: AsyncProducer,
        admin: TopicAdmin,
        consumer_config: Mapping[str, Any],
        partitions: int = 5,
        replication_factor: int = -1,
    ) -> None:
        self.topic = topic
        self._producer = producer
        self._admin = admin
        self._consumer_config = dict(consumer_config)
        self._partitions = partitions
        self._rf = replication_factor
        # topic statuses: connector -> topic names (for GET /connectors/{c}/topics)
        self.topics: dict[str, set[str]] = {}
        self._pending: set[asyncio.Future[None]] = set()
        # every worker's connector and task statuses as the topic has them (read in distributed mode)
        self.connector_states: dict[str, dict[str, Any]] = {}
        self.task_states: dict[tuple[str, int], dict[str, Any]] = {}
        self.generation = 0  # the group generation this worker's statuses are written in (distributed mode)
        self._follower = TopicFollower(consumer_config, topic)

    async def start(self) -> None:
        await ensure_compacted_topic(
            self._admin,
            self.topic,
            partitions=self._partitions,
            replication_factor=self._rf,
            purpose="status.storage.topic",
        )
        self._read(await read_to_end(self._consumer_config, self.topic))

    def _read(self, records: Sequence[TopicRecord]) -> None:
        self._follower.advance(records)
        for r in records:
            if r.key is None:
                continue
            key = r.key.decode("utf-8", "replace")
            if key.startswith("status-topic-"):
                topic, _, conn = key[len("status-topic-") :].rpartition(":connector-")
                if r.value is None:
                    self.topics.get(conn, set()).discard(topic)
                else:
                    self.topics.setdefault(conn, set()).add(topic)
            elif key.startswith("status-connector-"):
                self._keep(self.connector_states, key[len("status-connector-") :], r.value)
            elif key.startswith("status-task-"):
                name, _, num = key[len("status-task-") :].rpartition("-")
                if name and num.isdigit():
                    self._keep(self.task_states, (name, int(num)), r.value)

    @staticmethod
    def _keep(states: dict[Any, dict[str, Any]], key: Any, raw: bytes | None) -> None:
        if raw is None:
            states.pop(key, None)
            return
        try:
            value = internal_json.loads(raw)
        except ValueError:
            log.warning("status topic: unparsable status for %r; ignored", key)
            return
        if isinstance(value, dict):
            states[key] = value

    async def follow(self) -> None:
        """Keep reading the topic after start() (distributed mode: every worker's statuses)."""
        await self._follower.follow(self._read)

    async def stop(self) -> None:
        await self._follower.stop()

    def _send(self, key: str, value: Any) -> None:
        payload = None if value is None else internal_json.dumps(value)
        task = asyncio.get_running_loop().create_task(self._send_async(key, payload))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    async def _send_async(self, key: str, payload: bytes | None) -> None:
        try:
            fut = await self._producer.send(self.topic, key.encode(), payload, what="status write")
            await fut
        except Exception as e:  # noqa: BLE001 - statuses are advisory; log and go on
            log.warning("could not write status %s: %s", key, e)

    def _value(self, state: str, trace: str | None, worker_id: str, version: str | None) -> dict[str, Any]:
        return {
            "state": state,
            "trace": trace,
            "worker_id": worker_id,
            "generation": self.generation,
            "version": version,
        }

    def _unsafe(self, current: dict[str, Any] | None, value: dict[str, Any]) -> bool:
        """Connect's safe write (putSafe, for FAILED and UNASSIGNED): never over a status another worker wrote in a
        newer generation (this worker may be a zombie reporting on work that has moved on)."""
        if value["state"] not in ("FAILED", "UNASSIGNED") or current is None:
            return False
        return bool(
            current.get("worker_id") != value["worker_id"] and current.get("generation", 0) > value["generation"]
        )

    def put_connector(self, name: str, state: str, worker_id: str, *, trace: str | None, version: str | None) -> None:
        value = self._value(state, trace, worker_id, version)
        if self._unsafe(self.connector_states.get(name), value):
            return
        self._send(f"status-connector-{name}", value)

    def put_task(
        self, name: str, task: int, state: str, worker_id: str, *, trace: str | None, version: str | None
    ) -> None:
        value = self._value(state, trace, worker_id, version)
        if self._unsafe(self.task_states.get((name, task)), value):
            return
        self._send(f"status-task-{name}-{task}", value)

    def remove_task(self, name: str, task: int, worker_id: str) -> None:
        key = f"status-task-{name}-{task}"
        self._send(key, self._value("UNASSIGNED", None, worker_id, None))
        self._send(key, None)

    def remove_connector(self, name: str, worker_id: str) -> None:
        key = f"status-connector-{name}"
        self._send(key, self._value("UNASSIGNED", None, worker_id, None))
        self._send(key, None)

    def put_topic(self, connector: str, task: int, topic: str) -> None:
        known = self.topics.setdefault(connector, set())
        if topic in known:
            return
        known.add(topic)
        value = {
            "topic": {
                "name": topic,
                "connector": connector,
                "task": task,
                "discoverTimestamp": int(time.time() * 1000),
            }
        }
        self._send(f"status-topic-{topic}:connector-{connector}", value)

    def reset_topics(self, connector: str) -> None:
        for topic in sorted(self.topics.pop(connector, set())):
            self._send(f"status-topic-{topic}:connector-{connector}", None)

    async def drain(self) -> None:
        """Wait for the status writes under way (at shutdown)."""
        if self._pending:
            await asyncio.gather(*list(self._pending), return_exceptions=True)
