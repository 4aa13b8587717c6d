"""Connector configs, task configs and target states in the config topic, in Connect's distributed format.

Records (key -> schemaless JSON value):
  connector-<name>     {"properties":{…}}                 null = deleted
  task-<name>-<n>      {"properties":{…}}                 applied by the next commit record
  commit-<name>        {"tasks":N}                        N task configs are now current
  target-state-<name>  {"state":"PAUSED","state.v2":"STOPPED"}   missing = STARTED
The topic has exactly one partition, so records are totally ordered; at start it is read to its end.
"""

from __future__ import annotations

import asyncio
import dataclasses
import enum
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connect_worker.api import ConfigError
from connect_worker.kafka.admin import TopicAdmin
from connect_worker.kafka.producer import AsyncProducer
from connect_worker.kafka.reader import TopicRecord, read_to_end
from connect_worker.kafka.tail import TopicFollower
from connect_worker.storage import internal_json
from connect_worker.storage.offsets import ensure_compacted_topic

log = logging.getLogger(__name__)


class TargetState(enum.Enum):
    """What the user asked for; stored in the config topic (`initial_state` RUNNING = STARTED)."""

    STARTED = "STARTED"
    PAUSED = "PAUSED"
    STOPPED = "STOPPED"


@dataclasses.dataclass
class ConfigSnapshot:
    """What the config topic says, after applying every record in order."""

    connectors: dict[str, dict[str, str | None]] = dataclasses.field(default_factory=dict)
    tasks: dict[str, list[dict[str, str]]] = dataclasses.field(default_factory=dict)
    target_states: dict[str, TargetState] = dataclasses.field(default_factory=dict)
    session_key: Any = None  # the `session-key` record's value (distributed, sessioned protocol)
    #: the connector config in force when the connector's task configs were last committed (Connect's
    #: appliedConnectorConfig): tasks restart with a changed connector config even if they generate the same
    applied: dict[str, dict[str, str | None]] = dataclasses.field(default_factory=dict)
    _pending_tasks: dict[str, dict[int, dict[str, str]]] = dataclasses.field(default_factory=dict)

    def target_state(self, name: str) -> TargetState:
        return self.target_states.get(name, TargetState.STARTED)

    def task_configs_changed(self, name: str, configs: Sequence[Mapping[str, str]]) -> bool:
        """Connect's rule (AbstractHerder.taskConfigsChanged) for writing a connector's newly generated task
        configs: their number or one of them differs from the stored ones, or the connector's config changed since
        those were committed."""
        if [dict(c) for c in configs] != self.tasks.get(name, []):
            return True
        return self.applied.get(name) != self.connectors.get(name)

    def apply(self, key: str, value: Any) -> None:
        if key.startswith("connector-"):
            name = key[len("connector-") :]
            if value is None:
                self.connectors.pop(name, None)
                self.tasks.pop(name, None)
                self.applied.pop(name, None)
                self._pending_tasks.pop(name, None)
            else:
                self.connectors[name] = _properties(value)
        elif key.startswith("task-"):
            name, _, num = key[len("task-") :].rpartition("-")
            if name and num.isdigit() and value is not None:
                self._pending_tasks.setdefault(name, {})[int(num)] = _task_properties(value)
        elif key.startswith("commit-"):
            name = key[len("commit-") :]
            count = int(value.get("tasks", 0)) if isinstance(value, dict) else 0
            pending = self._pending_tasks.pop(name, {})
            if all(i in pending for i in range(count)):
                self.tasks[name] = [pending[i] for i in range(count)]
                if name in self.connectors:
                    self.applied[name] = dict(self.connectors[name])
            else:
                log.warning("config topic: commit of %d tasks for %s without all task configs; ignored", count, name)
        elif key.startswith("target-state-"):
            name = key[len("target-state-") :]
            if value is None:
                self.target_states.pop(name, None)
            else:
                raw = value.get("state.v2") or value.get("state") or "STARTED"
                try:
                    self.target_states[name] = TargetState(raw)
                except ValueError:
                    log.warning("config topic: unknown target state %r for %s; ignored", raw, name)
        elif key == "session-key":
            self.session_key = value
        # restart requests, fencing and logger records: the distributed herder reacts to them as they are read


def _properties(value: Any) -> dict[str, str | None]:
    """A record's `properties`; a null value stays null (Connect keeps a key sent as JSON null)."""
    props = value.get("properties") if isinstance(value, dict) else None
    if not isinstance(props, dict):
        return {}
    return {str(k): (None if v is None else str(v)) for k, v in props.items()}


def _task_properties(value: Any) -> dict[str, str]:
    return {k: "" if v is None else v for k, v in _properties(value).items()}


class ConfigStore:
    def __init__(
        self,
        *,
        topic: str,
        producer: AsyncProducer,
        admin: TopicAdmin,
        consumer_config: Mapping[str, Any],
        replication_factor: int = -1,
    ) -> None:
        self.topic = topic
        self._producer = producer
        self._admin = admin
        self._consumer_config = dict(consumer_config)
        self._rf = replication_factor
        self.snapshot = ConfigSnapshot()
        self._follower = TopicFollower(consumer_config, topic)
        self._on_change: Callable[[str, Any], None] | None = None

    async def start(self) -> ConfigSnapshot:
        await ensure_compacted_topic(
            self._admin, self.topic, partitions=1, replication_factor=self._rf, purpose="config.storage.topic"
        )
        count = None
        for _ in range(50):  # a topic just created may not be in the metadata yet
            count = await self._admin.partition_count(self.topic)
            if count is not None:
                break
            await asyncio.sleep(0.1)
        if count != 1:
            raise ConfigError(
                f"Topic '{self.topic}' supplied via the 'config.storage.topic' property is required to have a "
                f"single partition in order to guarantee consistency of connector configurations, but found "
                f"{count} partitions.",
                name="config.storage.topic",
            )
        self._read(await read_to_end(self._consumer_config, self.topic))
        log.info("read config topic %s: %d connectors", self.topic, len(self.snapshot.connectors))
        return self.snapshot

    @property
    def offset(self) -> int:
        """The next offset of the topic to read: how far the snapshot goes (Connect's config offset)."""
        return self._follower.next.get(0, 0)

    def _read(self, records: Sequence[TopicRecord]) -> None:
        self._follower.advance(records)
        for r in records:
            if r.key is None:
                continue
            try:
                value = None if r.value is None else internal_json.loads(r.value)
            except ValueError:
                log.warning("config topic: unparsable value for %r; ignored", r.key)
                continue
            key = r.key.decode("utf-8", "replace")
            self.snapshot.apply(key, value)
            if self._on_change is not None:
                self._on_change(key, value)

    async def follow(self, on_change: Callable[[str, Any], None]) -> None:
        """Keep reading the topic after start(): each record is applied, then `on_change(key, value)` is called
        (distributed mode, where other workers write the topic too)."""
        self._on_change = on_change
        await self._follower.follow(self._read)

    async def read_to_end(self) -> None:
        """Wait until every record in the topic now has been applied (when followed)."""
        await self._follower.read_to_end()

    async def stop(self) -> None:
        await self._follower.stop()

    async def put_session_key(self, value: Mapping[str, Any]) -> None:
        await self._write([("session-key", dict(value))])

    async def put_restart_request(self, name: str, *, include_tasks: bool, only_failed: bool) -> None:
        await self._write([(f"restart-connector-{name}", {"include-tasks": include_tasks, "only-failed": only_failed})])

    async def _write(self, records: Sequence[tuple[str, Any]]) -> None:
        futures: list[asyncio.Future[None]] = []
        for key, value in records:
            payload = None if value is None else internal_json.dumps(value)
            futures.append(
                await self._producer.send(self.topic, key.encode(), payload, partition=0, what="config write")
            )
        self._producer.poll()
        await asyncio.gather(*futures)
        for key, value in records:
            self.snapshot.apply(key, value)

    async def put_connector_config(
        self, name: str, config: Mapping[str, str | None], target_state: TargetState | None = None
    ) -> None:
        records: list[tuple[str, Any]] = []
        if target_state is not None:
            records.append((f"target-state-{name}", _target_state_value(target_state)))
        records.append((f"connector-{name}", {"properties": dict(config)}))
        await self._write(records)

    async def put_task_configs(self, name: str, configs: Sequence[Mapping[str, str]]) -> None:
        records: list[tuple[str, Any]] = [(f"task-{name}-{i}", {"properties": dict(c)}) for i, c in enumerate(configs)]
        records.append((f"commit-{name}", {"tasks": len(configs)}))
        await self._write(records)

    async def put_target_state(self, name: str, state: TargetState) -> None:
        await self._write([(f"target-state-{name}", _target_state_value(state))])

    async def remove_connector(self, name: str) -> None:
        await self._write([(f"connector-{name}", None), (f"target-state-{name}", None)])


def _target_state_value(state: TargetState) -> dict[str, str]:
    # Older workers only know STARTED/PAUSED in "state"; STOPPED is written there as PAUSED.
    legacy = TargetState.PAUSED if state is TargetState.STOPPED else state
    return {"state": legacy.value, "state.v2": state.value}
