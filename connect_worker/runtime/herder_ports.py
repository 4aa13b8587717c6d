"""What the standalone herder is built on, as interfaces: the Worker that runs connectors and tasks, the stores its
configs, statuses and offsets live in (Connect's ConfigBackingStore, StatusBackingStore, OffsetBackingStore), the
admin client and the log levels. The real classes (runtime.worker.Worker, storage's ConfigStore, StatusStore and
OffsetStore, kafka.admin.TopicAdmin, runtime.loggers.LoggerAdmin) satisfy them as they are; herder tests pass
in-memory fakes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence, Set
from typing import Any, Protocol

from connect_worker.runtime.herder import ConnectorTaskId, LoggerLevel, TargetState
from connect_worker.runtime.source_task import TaskStatusListener
from connect_worker.runtime.worker import ConnectorCallbacks
from connect_worker.storage.configs import ConfigSnapshot
from connect_worker.storage.offsets import StoredOffset


class WorkerControl(Protocol):
    """The Worker as the herder drives it: connector instances and their tasks, started and stopped by name."""

    def is_running(self, name: str) -> bool:
        """Whether the connector's instance runs (its tasks may run on without it)."""

    def connector_version(self, config: Mapping[str, str | None]) -> str | None: ...

    async def start_connector(self, name: str, config: Mapping[str, str | None], callbacks: ConnectorCallbacks) -> str:
        """Start (or restart) the connector instance, leaving its tasks as they are; its version."""

    def task_configs(self, name: str) -> list[dict[str, str]]:
        """The task configs the running connector generates, as the config topic keeps them."""

    async def stop_connector(self, name: str) -> None:
        """Stop the connector's tasks, then the connector."""

    async def stop_connector_instance(self, name: str) -> None:
        """Stop the connector instance, leaving its tasks running."""

    def tasks(self, name: str) -> Mapping[int, object]:
        """The connector's tasks that run, by task number."""

    async def start_task(
        self,
        task_id: ConnectorTaskId,
        props: Mapping[str, str],
        listener: TaskStatusListener,
        *,
        paused: bool,
        connector_config: Mapping[str, str | None] | None = None,
    ) -> None:
        """`connector_config`: for a task whose connector instance runs on another worker (distributed)."""

    async def stop_task(self, task_id: ConnectorTaskId) -> None: ...

    async def stop_tasks(self, name: str) -> None: ...

    def pause_tasks(self, name: str) -> None: ...

    def resume_tasks(self, name: str) -> None: ...

    def submit_signal(self, name: str, signal_id: str, kind: str, data: str | None) -> int:
        """Hand a signal to the connector's tasks that run; how many took it (raises what a task raised)."""

    async def alter_offsets(self, config: Mapping[str, str | None], offsets: Mapping[Any, Any]) -> bool:
        """SourceConnector.alter_offsets of a new, unstarted connector of this config."""

    async def offsets_for(self, config: Mapping[str, str | None]) -> OffsetBackingStore:
        """The offsets of a connector of this config: its own offsets.storage.topic first, when it has one."""


class ConfigBackingStore(Protocol):
    """Connector configs, task configs and target states (the config topic)."""

    @property
    def snapshot(self) -> ConfigSnapshot: ...

    async def put_connector_config(
        self, name: str, config: Mapping[str, str | None], target_state: TargetState | None = None
    ) -> None: ...

    async def put_task_configs(self, name: str, configs: Sequence[Mapping[str, str]]) -> None: ...

    async def put_target_state(self, name: str, state: TargetState) -> None: ...

    async def remove_connector(self, name: str) -> None: ...


class StatusBackingStore(Protocol):
    """Connector, task and topic statuses (the status topic); writes are fire-and-forget."""

    @property
    def topics(self) -> Mapping[str, Set[str]]:
        """The active topics of each connector."""

    def put_connector(
        self, name: str, state: str, worker_id: str, *, trace: str | None, version: str | None
    ) -> None: ...

    def put_task(
        self, name: str, task: int, state: str, worker_id: str, *, trace: str | None, version: str | None
    ) -> None: ...

    def remove_task(self, name: str, task: int, worker_id: str) -> None: ...

    def remove_connector(self, name: str, worker_id: str) -> None: ...

    def put_topic(self, connector: str, task: int, topic: str) -> None: ...

    def reset_topics(self, connector: str) -> None: ...

    async def drain(self) -> None: ...


class OffsetBackingStore(Protocol):
    """Source offsets (the offsets topic), as the offsets requests of the REST API need them."""

    def connector_offsets(self, connector: str) -> list[StoredOffset]: ...

    def known_partitions(self, connector: str) -> list[dict[str, Any]]: ...

    async def write(
        self, connector: str, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> None: ...


class ClusterAdmin(Protocol):
    async def cluster_id(self) -> str | None: ...


class LoggerLevels(Protocol):
    """Log levels at run time (/admin/loggers)."""

    def all(self) -> dict[str, LoggerLevel]: ...

    def get(self, name: str) -> LoggerLevel: ...

    def set(self, name: str, level: str) -> list[str]: ...
