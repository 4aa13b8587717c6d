"""The Herder contract: what the REST layer may ask of the worker, and the answers' shapes.

The REST layer (rest/) talks to this interface only. Every method is async. Failures are raised as the
api.errors classes carrying the exact message Kafka Connect uses (e.g. NotFoundError("Connector x not
found")); the REST layer maps the class to the HTTP status and returns the message verbatim.
DTO field names and order follow Connect's JSON; `to_json()` gives the dict the REST layer serialises.
"""

from __future__ import annotations

import abc
import dataclasses
import enum
from collections.abc import Mapping
from typing import Any

from connect_worker.runtime.request_signature import RequestSignature
from connect_worker.storage.configs import TargetState as TargetState  # part of the Herder interface


class NotLeaderError(Exception):
    """A request only the cluster's leader (or the worker running a task) can answer, made to another worker
    (Connect's RequestTargetException): the REST layer forwards it to `forward_url`, or answers 409 when no
    worker to forward to is known (a rebalance is under way)."""

    def __init__(self, message: str, forward_url: str | None) -> None:
        super().__init__(message)
        self.forward_url = forward_url


class State(enum.Enum):
    UNASSIGNED = "UNASSIGNED"
    RUNNING = "RUNNING"
    PAUSED = "PAUSED"
    FAILED = "FAILED"
    RESTARTING = "RESTARTING"
    STOPPED = "STOPPED"


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectorTaskId:
    connector: str
    task: int

    def to_json(self) -> dict[str, Any]:
        return {"connector": self.connector, "task": self.task}

    def __str__(self) -> str:
        return f"{self.connector}-{self.task}"


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectorInfo:
    name: str
    config: Mapping[str, str | None]  # a key sent with JSON null keeps it, as in Connect
    tasks: tuple[ConnectorTaskId, ...]
    type: str  # "source" | "sink" | "unknown"

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "config": dict(self.config),
            "tasks": [t.to_json() for t in self.tasks],
            "type": self.type,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class AbstractState:
    state: State
    worker_id: str
    trace: str | None = None
    version: str | None = None

    def _json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state.value, "worker_id": self.worker_id}
        if self.version != "undefined":
            out["version"] = self.version
        if self.trace:
            out["trace"] = self.trace
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectorState(AbstractState):
    def to_json(self) -> dict[str, Any]:
        return self._json()


@dataclasses.dataclass(frozen=True, slots=True)
class TaskState(AbstractState):
    id: int = 0

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, **self._json()}


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectorStateInfo:
    name: str
    connector: ConnectorState
    tasks: tuple[TaskState, ...]
    type: str

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "connector": self.connector.to_json(),
            "tasks": [t.to_json() for t in sorted(self.tasks, key=lambda t: t.id)],
            "type": self.type,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class TaskInfo:
    id: ConnectorTaskId
    config: Mapping[str, str]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id.to_json(), "config": dict(self.config)}


@dataclasses.dataclass(frozen=True, slots=True)
class PluginDesc:
    class_name: str
    type: str  # PluginType value
    version: str

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"class": self.class_name, "type": self.type}
        if self.version != "undefined":
            out["version"] = self.version
        return out


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigKeyInfo:
    name: str
    type: str
    required: bool
    default_value: str | None
    importance: str
    documentation: str
    group: str | None
    order_in_group: int
    width: str
    display_name: str
    dependents: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "type": self.type,
            "required": self.required,
            "default_value": self.default_value,
            "importance": self.importance,
            "documentation": self.documentation,
            "group": self.group,
            "order_in_group": self.order_in_group,
            "width": self.width,
            "display_name": self.display_name,
            "dependents": list(self.dependents),
        }


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigValueInfo:
    name: str
    value: str | None
    recommended_values: tuple[str, ...]
    errors: tuple[str, ...]
    visible: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "value": self.value,
            "recommended_values": list(self.recommended_values),
            "errors": list(self.errors),
            "visible": self.visible,
        }


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigInfo:
    definition: ConfigKeyInfo | None
    value: ConfigValueInfo

    def to_json(self) -> dict[str, Any]:
        return {
            "definition": self.definition.to_json() if self.definition else None,
            "value": self.value.to_json(),
        }


@dataclasses.dataclass(frozen=True, slots=True)
class ConfigInfos:
    name: str
    error_count: int
    groups: tuple[str, ...]
    configs: tuple[ConfigInfo, ...]

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "error_count": self.error_count,
            "groups": list(self.groups),
            "configs": [c.to_json() for c in self.configs],
        }

    def error_messages(self) -> list[str]:
        return [e for c in self.configs for e in c.value.errors]


@dataclasses.dataclass(frozen=True, slots=True)
class ConnectorOffset:
    partition: Mapping[str, Any]
    offset: Mapping[str, Any] | None

    def to_json(self) -> dict[str, Any]:
        return {
            "partition": dict(self.partition),
            "offset": None if self.offset is None else dict(self.offset),
        }


@dataclasses.dataclass(frozen=True, slots=True)
class ServerInfo:
    version: str
    commit: str
    kafka_cluster_id: str | None

    def to_json(self) -> dict[str, Any]:
        return {"version": self.version, "commit": self.commit, "kafka_cluster_id": self.kafka_cluster_id}


@dataclasses.dataclass(frozen=True, slots=True)
class LoggerLevel:
    level: str
    last_modified: int | None

    def to_json(self) -> dict[str, Any]:
        return {"level": self.level, "last_modified": self.last_modified}


class Herder(abc.ABC):
    """The worker's control plane as the REST API sees it. All names are connector names."""

    # -- worker ---------------------------------------------------------------------------------------
    @abc.abstractmethod
    async def server_info(self) -> ServerInfo: ...

    @abc.abstractmethod
    def health(self) -> tuple[str, str]:
        """(status, message): ("healthy", …) / ("starting", …) / ("unhealthy", …)."""

    @property
    @abc.abstractmethod
    def worker_id(self) -> str: ...

    # -- connectors -----------------------------------------------------------------------------------
    @abc.abstractmethod
    async def connectors(self) -> list[str]: ...

    @abc.abstractmethod
    async def connector_info(self, name: str) -> ConnectorInfo: ...

    @abc.abstractmethod
    async def connector_config(self, name: str) -> dict[str, str | None]: ...

    @abc.abstractmethod
    async def connector_status(self, name: str) -> ConnectorStateInfo: ...

    @abc.abstractmethod
    async def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str | None],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> tuple[bool, ConnectorInfo]:
        """Create (True, info) or replace (False, info) after validating the config.
        allow_replace=False raises AlreadyExistsError("Connector x already exists") if it exists."""

    @abc.abstractmethod
    async def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo: ...

    @abc.abstractmethod
    async def delete_connector(self, name: str) -> None: ...

    @abc.abstractmethod
    async def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> ConnectorStateInfo | None:
        """None for the legacy form (both flags false); the restart plan otherwise."""

    @abc.abstractmethod
    async def restart_task(self, name: str, task: int) -> None: ...

    @abc.abstractmethod
    async def pause_connector(self, name: str) -> None: ...

    @abc.abstractmethod
    async def resume_connector(self, name: str) -> None: ...

    @abc.abstractmethod
    async def stop_connector(self, name: str) -> None: ...

    @abc.abstractmethod
    async def task_configs(self, name: str) -> list[TaskInfo]: ...

    async def put_task_configs(
        self, name: str, configs: list[dict[str, str]], signature: RequestSignature | None = None
    ) -> None:
        """The internal `POST /connectors/{c}/tasks`: a worker running the connector hands its task configs to the
        leader, which writes them (distributed mode only)."""
        raise NotImplementedError(
            "Kafka Connect in standalone mode does not support externally setting task configurations."
        )

    @abc.abstractmethod
    async def task_status(self, name: str, task: int) -> TaskState: ...

    @abc.abstractmethod
    async def connector_active_topics(self, name: str) -> list[str]: ...

    @abc.abstractmethod
    async def reset_connector_active_topics(self, name: str) -> None: ...

    # -- signals (our extension: Debezium's JMX signal channel over REST) ------------------------------------
    @abc.abstractmethod
    async def submit_signal(self, name: str, signal_id: str, kind: str, data: str | None) -> None:
        """Hand the signal to every task of the connector that runs in this worker. NotFoundError when there is no
        such connector, ConflictError when none of its tasks runs here, BadRequestError (the task's message) when
        its tasks do not take signals over REST."""

    # -- offsets (KIP-875) --------------------------------------------------------------------------
    @abc.abstractmethod
    async def connector_offsets(self, name: str) -> list[ConnectorOffset]: ...

    @abc.abstractmethod
    async def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        """Returns the REST message."""

    @abc.abstractmethod
    async def reset_connector_offsets(self, name: str) -> str:
        """Returns the REST message."""

    # -- plugins --------------------------------------------------------------------------------------
    @abc.abstractmethod
    def plugins(self, *, connectors_only: bool) -> list[PluginDesc]: ...

    @abc.abstractmethod
    def plugin_config(self, plugin: str) -> list[ConfigKeyInfo]: ...

    @abc.abstractmethod
    async def validate_connector_config(self, plugin: str | None, config: Mapping[str, str | None]) -> ConfigInfos:
        """plugin is the path's {plugin} (None from POST/PUT, which validate the config's own class)."""

    # -- loggers --------------------------------------------------------------------------------------
    @abc.abstractmethod
    def loggers(self) -> dict[str, LoggerLevel]: ...

    @abc.abstractmethod
    def logger_level(self, name: str) -> LoggerLevel: ...

    @abc.abstractmethod
    def set_logger_level(self, name: str, level: str) -> list[str]:
        """Sets `name` and its descendants; returns the names whose level changed."""
