"""An in-memory Herder: a test double of our own Herder interface, behaving like Connect's StandaloneHerder.

Configs are validated against each plugin's ConfigDef merged with the framework keys (name,
connector.class, tasks.max), with Connect's aggregated 400 text; target states drive the statuses; offsets
may only be altered or reset while STOPPED, with Connect's texts. Nothing here talks to Kafka.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Mapping
from typing import Any

from connect_worker.api import config as cfg
from connect_worker.api.config import ConfigKey
from connect_worker.api.errors import (
    AlreadyExistsError,
    BadRequestError,
    ConnectError,
    NotFoundError,
)
from connect_worker.runtime.herder import (
    ConfigInfo,
    ConfigInfos,
    ConfigKeyInfo,
    ConfigValueInfo,
    ConnectorInfo,
    ConnectorOffset,
    ConnectorState,
    ConnectorStateInfo,
    ConnectorTaskId,
    Herder,
    LoggerLevel,
    PluginDesc,
    ServerInfo,
    State,
    TargetState,
    TaskInfo,
    TaskState,
)
from tests.unit.rest.fake_plugins import FRAMEWORK, PLUGINS, FakePlugin

WORKER_ID = "127.0.0.1:8083"

STOPPED_FIRST = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the "
    "specified connector by issuing a 'PUT' request to the '/connectors/{name}/stop' endpoint"
)
ALTERED = "The offsets for this connector have been altered successfully"
RESET = "The offsets for this connector have been reset successfully"
FRAMEWORK_ALTERED = (
    "The Connect framework-managed offsets for this connector have been altered successfully. However, if "
    "this connector manages offsets externally, they will need to be manually altered in the system that the "
    "connector uses."
)
FRAMEWORK_RESET = (
    "The Connect framework-managed offsets for this connector have been reset successfully. However, if "
    "this connector manages offsets externally, they will need to be manually reset in the system that the "
    "connector uses."
)


def _java_map(config: Mapping[str, str]) -> str:
    return "{" + ", ".join(f"{k}={v}" for k, v in config.items()) + "}"


def _key_info(key: ConfigKey) -> ConfigKeyInfo:
    return ConfigKeyInfo(
        name=key.name,
        type=key.type.value,
        required=key.required,
        default_value=key.default_string,
        importance=key.importance.value,
        documentation=key.documentation,
        group=key.group,
        order_in_group=key.order_in_group,
        width=key.width.value,
        display_name=key.display_name or key.name,
        dependents=key.dependents,
    )


@dataclasses.dataclass
class _Connector:
    plugin: FakePlugin
    config: dict[str, str | None]
    target: TargetState
    state: State = State.UNASSIGNED
    tasks: list[State] = dataclasses.field(default_factory=list)
    trace: str | None = None
    offsets: dict[str, ConnectorOffset] = dataclasses.field(default_factory=dict)
    topics: list[str] = dataclasses.field(default_factory=list)


class MemoryHerder(Herder):
    def __init__(self, *, clock: Callable[[], int] = lambda: 1795303509461) -> None:
        self._connectors: dict[str, _Connector] = {}
        self._clock = clock
        self.health_answer: tuple[str, str] = (
            "healthy",
            "Worker has completed startup and is ready to handle requests.",
        )
        self._loggers: dict[str, LoggerLevel] = {
            "root": LoggerLevel("INFO", None),
            "org.apache.kafka.connect.runtime.rest": LoggerLevel("INFO", None),
            "org.apache.kafka.connect.runtime.rest.RestServer": LoggerLevel("INFO", None),
        }
        self.calls: list[tuple[str, Any]] = []

    # -- test helpers -------------------------------------------------------------------------------
    def fail_task(self, name: str, task: int, trace: str = "java.lang.RuntimeException: boom") -> None:
        self._connectors[name].tasks[task] = State.FAILED
        self._connectors[name].trace = trace

    def set_topics(self, name: str, topics: list[str]) -> None:
        self._connectors[name].topics = list(topics)

    def put_offset(self, name: str, partition: dict[str, Any], offset: dict[str, Any]) -> None:
        self._connectors[name].offsets[json.dumps(partition, sort_keys=True)] = ConnectorOffset(partition, offset)

    # -- worker -------------------------------------------------------------------------------------
    async def server_info(self) -> ServerInfo:
        return ServerInfo("4.3.0", "a9ce3221537b8653", "tansu_cluster")

    def health(self) -> tuple[str, str]:
        return self.health_answer

    @property
    def worker_id(self) -> str:
        return WORKER_ID

    # -- connectors ---------------------------------------------------------------------------------
    def _get(self, name: str, message: str) -> _Connector:
        try:
            return self._connectors[name]
        except KeyError:
            raise NotFoundError(message) from None

    def _info(self, name: str, c: _Connector) -> ConnectorInfo:
        tasks = tuple(ConnectorTaskId(name, i) for i in range(len(c.tasks)))
        return ConnectorInfo(name, dict(c.config), tasks, c.plugin.type)

    def _state_info(self, name: str, c: _Connector, *, restarting: set[int | None] | None = None) -> ConnectorStateInfo:
        restarting = restarting or set()
        conn_state = State.RESTARTING if None in restarting else c.state
        tasks = tuple(
            TaskState(
                State.RESTARTING if i in restarting else s,
                WORKER_ID,
                trace=c.trace if s is State.FAILED and i not in restarting else None,
                version=c.plugin.version,
                id=i,
            )
            for i, s in enumerate(c.tasks)
        )
        return ConnectorStateInfo(
            name, ConnectorState(conn_state, WORKER_ID, version=c.plugin.version), tasks, c.plugin.type
        )

    def _apply_target(self, c: _Connector, *, regenerate: bool) -> None:
        if c.target is TargetState.STOPPED:
            c.state, c.tasks = State.STOPPED, []
            return
        state = State.RUNNING if c.target is TargetState.STARTED else State.PAUSED
        if regenerate or not c.tasks:
            wanted = int(c.config.get("tasks.max") or "1")
            count = wanted if c.plugin.max_tasks is None else min(wanted, c.plugin.max_tasks)
            c.tasks = [state] * count
        else:
            c.tasks = [state] * len(c.tasks)
        c.state, c.trace = state, None

    def _plugin(self, config: Mapping[str, str]) -> FakePlugin:
        cls = config["connector.class"]
        for p in PLUGINS:
            if p.type in ("source", "sink") and p.answers_to(cls):
                return p
        available = ", ".join(
            f"PluginDesc{{name='{p.class_name}', version='{p.version}', type={p.type}}}"
            for p in PLUGINS
            if p.type in ("source", "sink")
        )
        raise BadRequestError(
            f"Failed to find any class that implements Connector and which name matches {cls}, "
            f"available connectors are: {available}"
        )

    def _validate(self, config: Mapping[str, str]) -> tuple[FakePlugin, list[str]]:
        if "connector.class" not in config:
            raise BadRequestError(f"Connector config {_java_map(config)} contains no connector type")
        plugin = self._plugin(config)
        values = FRAMEWORK.merge(plugin.config_def).validate(config)
        return plugin, [e for v in values.values() for e in v.errors]

    async def connectors(self) -> list[str]:
        return list(self._connectors)

    async def connector_info(self, name: str) -> ConnectorInfo:
        return self._info(name, self._get(name, f"Connector {name} not found"))

    async def connector_config(self, name: str) -> dict[str, str | None]:
        return dict(self._get(name, f"Connector {name} not found").config)

    async def connector_status(self, name: str) -> ConnectorStateInfo:
        return self._state_info(name, self._get(name, f"No status found for connector {name}"))

    async def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str | None],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> tuple[bool, ConnectorInfo]:
        self.calls.append(("put", (name, dict(config), allow_replace, initial_state)))
        plugin, errors = self._validate({k: v for k, v in config.items() if v is not None})
        if errors:
            raise BadRequestError(
                f"Connector configuration is invalid and contains the following {len(errors)} error(s):\n"
                + "\n".join(errors)
                + "\nYou can also find the above list of errors at the endpoint "
                "`/connector-plugins/{connectorType}/config/validate`"
            )
        existing = self._connectors.get(name)
        if existing is not None and not allow_replace:
            raise AlreadyExistsError(f"Connector {name} already exists")
        if existing is None:
            c = _Connector(plugin, dict(config), initial_state or TargetState.STARTED)
            self._connectors[name] = c
        else:
            c = existing
            c.plugin, c.config = plugin, dict(config)
        self._apply_target(c, regenerate=True)
        return existing is None, self._info(name, c)

    async def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        c = self._get(name, f"Connector {name} not found")
        merged = dict(c.config)
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)
            else:
                merged[key] = value
        _created, info = await self.put_connector_config(name, merged, allow_replace=True)
        return info

    async def delete_connector(self, name: str) -> None:
        self._get(name, f"Connector {name} not found")
        del self._connectors[name]

    async def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> ConnectorStateInfo | None:
        c = self._get(name, f"Unknown connector: {name}")
        if not include_tasks and not only_failed:
            self._apply_target(c, regenerate=False)
            return None
        selected: set[int | None] = set()
        if not only_failed or c.state is State.FAILED:
            selected.add(None)
        if include_tasks:
            selected.update(i for i, s in enumerate(c.tasks) if not only_failed or s is State.FAILED)
        plan = self._state_info(name, c, restarting=selected)
        if selected:
            self._apply_target(c, regenerate=False)
        return plan

    async def restart_task(self, name: str, task: int) -> None:
        c = self._get(name, f"Connector {name} not found")
        if not 0 <= task < len(c.tasks):
            raise NotFoundError(f"Task {name}-{task} not found")
        c.tasks[task] = State.RUNNING if c.target is TargetState.STARTED else State.PAUSED

    async def pause_connector(self, name: str) -> None:
        c = self._get(name, f"Unknown connector {name}")
        c.target = TargetState.PAUSED
        self._apply_target(c, regenerate=False)

    async def resume_connector(self, name: str) -> None:
        c = self._get(name, f"Unknown connector {name}")
        c.target = TargetState.STARTED
        self._apply_target(c, regenerate=False)

    async def stop_connector(self, name: str) -> None:
        c = self._get(name, f"Connector {name} not found")
        c.target = TargetState.STOPPED
        self._apply_target(c, regenerate=False)

    async def task_configs(self, name: str) -> list[TaskInfo]:
        c = self._get(name, f"Connector {name} not found")
        return [
            TaskInfo(
                ConnectorTaskId(name, i),
                {**{k: v for k, v in c.config.items() if v is not None}, "task.class": c.plugin.task_class},
            )
            for i in range(len(c.tasks))
        ]

    async def task_status(self, name: str, task: int) -> TaskState:
        c = self._connectors.get(name)
        if c is None or not 0 <= task < len(c.tasks):
            raise NotFoundError(f"No status found for task {name}-{task}")
        return self._state_info(name, c).tasks[task]

    async def connector_active_topics(self, name: str) -> list[str]:
        c = self._connectors.get(name)
        return [] if c is None else list(c.topics)

    async def reset_connector_active_topics(self, name: str) -> None:
        c = self._connectors.get(name)
        if c is not None:
            c.topics = []

    # -- offsets ------------------------------------------------------------------------------------
    def _stopped(self, name: str) -> _Connector:
        c = self._get(name, f"Connector {name} not found")
        if c.target is not TargetState.STOPPED or c.tasks:
            raise BadRequestError(STOPPED_FIRST.format(name=name))
        return c

    async def connector_offsets(self, name: str) -> list[ConnectorOffset]:
        return list(self._get(name, f"Connector {name} not found").offsets.values())

    async def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        c = self._stopped(name)
        self.calls.append(("alter_offsets", (name, offsets)))
        for o in offsets:
            key = json.dumps(dict(o.partition), sort_keys=True)
            if o.offset is None:
                c.offsets.pop(key, None)
            else:
                c.offsets[key] = o
        return ALTERED if c.plugin.alters_offsets else FRAMEWORK_ALTERED

    async def reset_connector_offsets(self, name: str) -> str:
        c = self._stopped(name)
        c.offsets.clear()
        return RESET if c.plugin.alters_offsets else FRAMEWORK_RESET

    # -- plugins ------------------------------------------------------------------------------------
    def plugins(self, *, connectors_only: bool) -> list[PluginDesc]:
        return [
            PluginDesc(p.class_name, p.type, p.version)
            for p in PLUGINS
            if not connectors_only or p.type in ("source", "sink")
        ]

    def plugin_config(self, plugin: str) -> list[ConfigKeyInfo]:
        for p in PLUGINS:
            if p.answers_to(plugin):
                keys = p.config_def.merge(FRAMEWORK) if p.type in ("source", "sink") else p.config_def
                return [_key_info(k) for k in keys.keys]
        raise NotFoundError(f"Unknown plugin {plugin}.")

    async def validate_connector_config(self, plugin: str | None, given: Mapping[str, str | None]) -> ConfigInfos:
        config = {k: v for k, v in given.items() if v is not None}
        if "connector.class" not in config:
            raise ConnectError(
                "org.apache.kafka.connect.runtime.rest.errors.BadRequestException: "
                f"Connector config {_java_map(config)} contains no connector type"
            )
        found = self._plugin(config)
        definition = FRAMEWORK.merge(found.config_def)
        values = definition.validate(config)
        infos = []
        for key in definition.keys:
            v = values[key.name]
            shown = None if v.value is None else cfg.to_config_string(key.type, v.value)
            infos.append(
                ConfigInfo(
                    _key_info(key),
                    ConfigValueInfo(key.name, shown, tuple(map(str, v.recommended_values)), tuple(v.errors), v.visible),
                )
            )
        return ConfigInfos(
            config["connector.class"],
            sum(len(i.value.errors) for i in infos),
            tuple(definition.groups()),
            tuple(infos),
        )

    # -- loggers ------------------------------------------------------------------------------------
    def loggers(self) -> dict[str, LoggerLevel]:
        return dict(self._loggers)

    def logger_level(self, name: str) -> LoggerLevel:
        try:
            return self._loggers[name]
        except KeyError:
            raise NotFoundError(f"Logger {name} not found.") from None

    def set_logger_level(self, name: str, level: str) -> list[str]:
        """Sets the logger and its descendants (every logger for root); a new name creates a logger."""
        self.calls.append(("set_logger_level", (name, level)))
        targets = [n for n in self._loggers if name == "root" or n == name or n.startswith(name + ".")]
        if name not in self._loggers:
            targets.append(name)
        changed = sorted(n for n in targets if n not in self._loggers or self._loggers[n].level != level)
        for n in changed:
            self._loggers[n] = LoggerLevel(level, self._clock())
        return changed
