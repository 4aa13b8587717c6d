"""The standalone herder: runs every connector and task in this process, with configs, target states,
statuses and offsets kept in Kafka topics so a restarted worker resumes everything as it was."""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import traceback
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from connect_worker import __version__
from connect_worker.api import (
    AlreadyExistsError,
    BadRequestError,
    ConfigError,
    ConnectError,
    NotFoundError,
    PluginType,
)
from connect_worker.api.javacompat import java_hashmap_order
from connect_worker.kafka.admin import TopicAdmin
from connect_worker.runtime.background import BackgroundTasks
from connect_worker.runtime.config_providers import ConfigTransformer, has_placeholder
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
from connect_worker.runtime.loggers import LoggerAdmin
from connect_worker.runtime.metrics import Sample, sample
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.source_task import Transform
from connect_worker.runtime.validation import invalid_config_message, plugin_config_keys, validate_connector_config
from connect_worker.runtime.worker import Worker, present
from connect_worker.runtime.worker_config import WorkerConfig
from connect_worker.storage.configs import ConfigStore
from connect_worker.storage.offsets import ConnectorOffsetReader, OffsetStore, validate_offset_map
from connect_worker.storage.status import StatusStore

log = logging.getLogger(__name__)

CONNECT_VERSION = "4.3.1"  # the Kafka Connect REST API version this worker answers as
COMMIT_ID = hashlib.sha1(f"connect-worker-{__version__}".encode()).hexdigest()[:16]

TransformFactory = Callable[[Mapping[str, str]], Transform]


@dataclasses.dataclass
class _Connector:
    """The herder's view of a connector: its stored config and statuses (the Worker runs its instance and tasks)."""

    name: str
    config: dict[str, str | None]  # as stored: a key sent as JSON null keeps it (the connector never sees it)
    state: State = State.UNASSIGNED
    trace: str | None = None
    version: str | None = None
    task_states: dict[int, tuple[State, str | None]] = dataclasses.field(default_factory=dict)


class _ConnectorContext:
    def __init__(self, herder: StandaloneHerder, name: str, reader: ConnectorOffsetReader) -> None:
        self._herder = herder
        self._name = name
        self._reader = reader

    def request_task_reconfiguration(self) -> None:
        self._herder.background.start(self._herder.reconfigure_tasks(self._name), name=f"reconfigure {self._name}")

    def raise_error(self, error: BaseException) -> None:
        self._herder.connector_failed(self._name, error)

    @property
    def offset_storage_reader(self) -> ConnectorOffsetReader:
        return self._reader


def _trace(e: BaseException) -> str:
    return "".join(traceback.format_exception(e))


def _masked(
    infos: ConfigInfos, raw: Mapping[str, str], errors: Mapping[str, list[str]], redact: Callable[[str], str]
) -> ConfigInfos:
    """Validation results as the user may see them: values with placeholders shown as given (never resolved),
    every message passed through the redactor, and the placeholders that could not be resolved as errors."""
    pending = {k: list(v) for k, v in errors.items()}
    configs: list[ConfigInfo] = []
    for info in infos.configs:
        v = info.value
        value = v.value
        raw_value = raw.get(v.name)
        if value is not None and value != "[hidden]" and isinstance(raw_value, str) and has_placeholder(raw_value):
            value = raw_value
        errs = tuple(redact(e) for e in v.errors) + tuple(pending.pop(v.name, ()))
        configs.append(ConfigInfo(info.definition, dataclasses.replace(v, value=value, errors=errs)))
    extra = [
        ConfigInfo(None, ConfigValueInfo(name, raw.get(name), (), tuple(errs), True)) for name, errs in pending.items()
    ]
    all_configs = tuple(extra + configs)
    # Connect's count (a converter key's errors count once) plus one per unresolved placeholder
    added = sum(len(errs) for errs in errors.values())
    return dataclasses.replace(infos, configs=all_configs, error_count=infos.error_count + added)


class StandaloneHerder(Herder):
    def __init__(
        self,
        *,
        config: WorkerConfig,
        registry: PluginRegistry,
        admin: TopicAdmin,
        offsets: OffsetStore,
        configs: ConfigStore,
        statuses: StatusStore,
        worker: Worker,
        loggers: LoggerAdmin,
        config_transformer: ConfigTransformer | None = None,
    ) -> None:
        self._config = config
        self._registry = registry
        self._admin = admin
        self._offsets = offsets
        self._configs = configs
        self._statuses = statuses
        self._worker = worker
        self._loggers = loggers
        #: work started for connectors and not awaited by a request (reconfigurations they ask for)
        self.background = BackgroundTasks("herder")
        # config providers: connectors and tasks get resolved values; configs stored and shown keep placeholders
        self._transformer = config_transformer if config_transformer is not None else config.config_transformer
        self._redact = self._transformer.redactor.redact
        self._connectors: dict[str, _Connector] = {}
        self._lock = asyncio.Lock()
        self._started = False
        self._cluster_id: str | None = None

    # -- lifecycle --------------------------------------------------------------------------------------
    async def start(self) -> None:
        self._cluster_id = await self._admin.cluster_id()
        snapshot = self._configs.snapshot
        async with self._lock:
            for name, cfg in snapshot.connectors.items():
                self._connectors[name] = _Connector(name, dict(cfg))
                await self._start_connector(name)
        self._started = True
        log.info("worker started with %d connectors", len(self._connectors))

    async def stop(self) -> None:
        await self.background.cancel_all()
        async with self._lock:
            await asyncio.gather(*(self._stop_connector(c) for c in self._connectors.values()))
        await self._statuses.drain()

    @property
    def worker_id(self) -> str:
        return self._config.worker_id

    async def server_info(self) -> ServerInfo:
        return ServerInfo(CONNECT_VERSION, COMMIT_ID, self._cluster_id)

    def health(self) -> tuple[str, str]:
        if not self._started:
            return "starting", "Worker is still starting up."
        return "healthy", "Worker has completed startup and is ready to handle requests."

    # -- status bookkeeping (also the task listener) ---------------------------------------------------
    def _set_connector_state(self, c: _Connector, state: State, trace: str | None = None) -> None:
        c.state, c.trace = state, trace
        self._statuses.put_connector(c.name, state.value, self.worker_id, trace=trace, version=c.version)
        log.info("connector %s is %s", c.name, state.value)

    def _set_task_state(self, task: ConnectorTaskId, state: State, trace: str | None = None) -> None:
        c = self._connectors.get(task.connector)
        if c is None:
            return
        c.task_states[task.task] = (state, trace)
        self._statuses.put_task(task.connector, task.task, state.value, self.worker_id, trace=trace, version=c.version)
        log.info("task %s is %s", task, state.value)

    def on_running(self, task: ConnectorTaskId) -> None:
        self._set_task_state(task, State.RUNNING)

    def on_paused(self, task: ConnectorTaskId) -> None:
        self._set_task_state(task, State.PAUSED)

    def on_failure(self, task: ConnectorTaskId, trace: str) -> None:
        self._set_task_state(task, State.FAILED, self._redact(trace))

    def on_shutdown(self, task: ConnectorTaskId) -> None:
        c = self._connectors.get(task.connector)
        if c is not None and c.task_states.get(task.task, (None,))[0] not in (State.FAILED,):
            c.task_states[task.task] = (State.UNASSIGNED, None)

    def on_topic(self, task: ConnectorTaskId, topic: str) -> None:
        self._statuses.put_topic(task.connector, task.task, topic)

    def connector_failed(self, name: str, error: BaseException) -> None:
        c = self._connectors.get(name)
        if c is not None:
            self._set_connector_state(c, State.FAILED, self._trace(error))

    # -- config providers ---------------------------------------------------------------------------------------
    def _trace(self, e: BaseException) -> str:
        return self._redact(_trace(e))

    # -- starting and stopping ---------------------------------------------------------------------------
    def _target(self, name: str) -> TargetState:
        return self._configs.snapshot.target_state(name)

    def _context(self, name: str) -> _ConnectorContext:
        return _ConnectorContext(self, name, ConnectorOffsetReader(self._offsets, name))

    async def _start_connector(self, name: str) -> None:
        c = self._connectors[name]
        target = self._target(name)
        if target is TargetState.STOPPED:
            self._set_connector_state(c, State.STOPPED)
            return
        if not await self._start_instance(c):
            return
        await self._generate_and_start_tasks(c)

    async def _start_instance(self, c: _Connector) -> bool:
        """Start the connector instance (its tasks, if any, stay as they are); False when it failed."""
        try:
            c.version = await self._worker.start_connector(c.name, c.config, self._context(c.name))
        except Exception as e:  # noqa: BLE001 - reported as the connector's FAILED status
            c.version = self._worker.connector_version(c.config) or c.version
            log.error("connector %s failed to start: %s", c.name, self._redact(str(e)))
            self._set_connector_state(c, State.FAILED, self._trace(e))
            return False
        self._set_connector_state(c, State.PAUSED if self._target(c.name) is TargetState.PAUSED else State.RUNNING)
        return True

    async def _generate_and_start_tasks(self, c: _Connector) -> None:
        try:
            full = self._worker.task_configs(c.name)
            if self._configs.snapshot.tasks.get(c.name) != full:
                await self._configs.put_task_configs(c.name, full)
        except Exception as e:  # noqa: BLE001
            self._set_connector_state(c, State.FAILED, self._trace(e))
            return
        for i, props in enumerate(full):
            await self._start_task(c, i, props)

    async def _start_task(self, c: _Connector, index: int, props: Mapping[str, str]) -> None:
        task_id = ConnectorTaskId(c.name, index)
        c.task_states[index] = (State.UNASSIGNED, None)
        try:
            await self._worker.start_task(task_id, props, self, paused=self._target(c.name) is TargetState.PAUSED)
        except Exception as e:  # noqa: BLE001
            log.error("task %s could not be created: %s", task_id, self._redact(str(e)))
            self._set_task_state(task_id, State.FAILED, self._trace(e))

    async def _stop_connector(self, c: _Connector) -> None:
        await self._worker.stop_connector(c.name)

    async def reconfigure_tasks(self, name: str) -> None:
        async with self._lock:
            c = self._connectors.get(name)
            if c is None or not self._worker.is_running(name):
                return
            await self._worker.stop_tasks(name)
            c.task_states.clear()
            await self._generate_and_start_tasks(c)

    # -- lookups -------------------------------------------------------------------------------------
    def _get(self, name: str, message: str | None = None) -> _Connector:
        c = self._connectors.get(name)
        if c is None:
            raise NotFoundError(message or f"Connector {name} not found")
        return c

    def _task_ids(self, c: _Connector) -> tuple[ConnectorTaskId, ...]:
        if self._target(c.name) is TargetState.STOPPED:
            return ()
        return tuple(ConnectorTaskId(c.name, i) for i in range(len(self._configs.snapshot.tasks.get(c.name, []))))

    def _type(self, c: _Connector) -> str:
        cls = self._registry.find(PluginType.SOURCE, c.config.get("connector.class") or "")
        return "source" if cls is not None else "unknown"

    # -- connectors --------------------------------------------------------------------------------------
    async def connectors(self) -> list[str]:
        return sorted(self._connectors)

    async def connector_info(self, name: str) -> ConnectorInfo:
        c = self._get(name)
        return ConnectorInfo(name, dict(c.config), self._task_ids(c), self._type(c))

    async def connector_config(self, name: str) -> dict[str, str | None]:
        return dict(self._get(name).config)

    async def connector_status(self, name: str) -> ConnectorStateInfo:
        c = self._get(name, f"No status found for connector {name}")
        tasks = tuple(
            TaskState(state=s, worker_id=self.worker_id, trace=t, version=c.version, id=i)
            for i, (s, t) in sorted(c.task_states.items())
            if self._target(name) is not TargetState.STOPPED
        )
        return ConnectorStateInfo(
            name, ConnectorState(c.state, self.worker_id, c.trace, c.version), tasks, self._type(c)
        )

    async def validate_connector_config(self, plugin: str | None, given: Mapping[str, str | None]) -> ConfigInfos:
        config = present(given)  # a null value counts as unset
        class_value = config.get("connector.class")
        if not class_value:
            shown = "{" + ", ".join(f"{k}={v}" for k, v in config.items()) + "}"
            message = f"Connector config {shown} contains no connector type"
            if plugin is not None:  # Connect answers the validate endpoint with a 500 naming the exception
                raise ConnectError(f"org.apache.kafka.connect.runtime.rest.errors.BadRequestException: {message}")
            raise BadRequestError(message)
        try:
            cls = self._registry.connector_class(class_value)
        except ConfigError as e:
            raise BadRequestError(str(e)) from e
        # the REST layer checks that the path's {plugin} matches connector.class
        if not self._transformer:
            return await validate_connector_config(
                self._registry, cls, config, class_value=class_value, **self._worker_view()
            )
        # Connect validates the resolved config; what is answered shows the placeholders, never a secret
        result = self._transformer.transform(config)
        infos = await validate_connector_config(
            self._registry, cls, result.data, class_value=class_value, **self._worker_view()
        )
        return _masked(infos, config, result.errors, self._redact)

    def _worker_view(self) -> dict[str, Any]:
        """What validation needs of the worker: its converters (the defaults shown for the connector's converter
        keys) and whether exactly-once source support is on."""
        config = self._config
        return {
            "worker_converters": {k: str(config[k]) for k in ("key.converter", "value.converter", "header.converter")},
            "exactly_once_source": str(config["exactly.once.source.support"]).lower() == "enabled",
        }

    async def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str | None],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> tuple[bool, ConnectorInfo]:
        async with self._lock:
            exists = name in self._connectors
            if exists and not allow_replace:
                raise AlreadyExistsError(f"Connector {name} already exists")
            cfg = dict(config)
            if "name" not in cfg:
                cfg["name"] = name
            infos = await self.validate_connector_config(None, cfg)
            if infos.error_count:
                raise BadRequestError(invalid_config_message(infos))
            if exists:
                c = self._connectors[name]
                await self._stop_connector(c)
                c.config = cfg
                c.task_states.clear()
                await self._configs.put_connector_config(name, cfg)
            else:
                c = self._connectors[name] = _Connector(name, cfg)
                await self._configs.put_connector_config(name, cfg, initial_state)
            await self._start_connector(name)
            return not exists, ConnectorInfo(name, dict(c.config), self._task_ids(c), self._type(c))

    async def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        current = dict(self._get(name).config)
        for k, v in patch.items():
            if v is None:
                current.pop(k, None)
            else:
                current[k] = v
        _, info = await self.put_connector_config(name, current, allow_replace=True)
        return info

    async def delete_connector(self, name: str) -> None:
        async with self._lock:
            c = self._get(name)
            await self._stop_connector(c)
            await self._configs.remove_connector(name)
            del self._connectors[name]
            for i in c.task_states:
                self._statuses.remove_task(name, i, self.worker_id)
            self._statuses.remove_connector(name, self.worker_id)
            log.info("connector %s deleted", name)

    async def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> ConnectorStateInfo | None:
        async with self._lock:
            c = self._connectors.get(name)
            if c is None:
                raise NotFoundError(f"Unknown connector: {name}")
            legacy = not include_tasks and not only_failed
            restart_conn = not only_failed or c.state is State.FAILED
            restart_tasks = [
                i
                for i, (s, _) in sorted(c.task_states.items())
                if include_tasks and (not only_failed or s is State.FAILED)
            ]
            plan = None
            if not legacy:
                current = await self.connector_status(name)
                plan = ConnectorStateInfo(
                    name,
                    dataclasses.replace(current.connector, state=State.RESTARTING)
                    if restart_conn
                    else current.connector,
                    tuple(
                        dataclasses.replace(t, state=State.RESTARTING) if t.id in restart_tasks else t
                        for t in current.tasks
                    ),
                    current.type,
                )
            if restart_conn and (legacy or restart_tasks == sorted(c.task_states)):
                await self._stop_connector(c)
                c.task_states.clear()
                c.trace = None
                await self._start_connector(name)
            else:
                if restart_conn:
                    await self._restart_connector_instance(c)
                for i in restart_tasks:
                    await self._restart_task(c, i)
            return plan

    async def _restart_connector_instance(self, c: _Connector) -> None:
        await self._start_instance(c)

    async def _restart_task(self, c: _Connector, index: int) -> None:
        await self._worker.stop_task(ConnectorTaskId(c.name, index))
        props = self._configs.snapshot.tasks.get(c.name, [])
        if index < len(props) and self._worker.is_running(c.name):
            await self._start_task(c, index, props[index])

    async def restart_task(self, name: str, task: int) -> None:
        async with self._lock:
            c = self._connectors.get(name)
            if c is None or task not in c.task_states:
                raise NotFoundError(f"Task {name}-{task} not found")
            await self._restart_task(c, task)

    async def pause_connector(self, name: str) -> None:
        async with self._lock:
            c = self._get(name, f"Unknown connector {name}")
            if self._target(name) is TargetState.STOPPED:
                await self._configs.put_target_state(name, TargetState.PAUSED)
                return
            await self._configs.put_target_state(name, TargetState.PAUSED)
            if c.state is State.RUNNING:
                self._set_connector_state(c, State.PAUSED)
            self._worker.pause_tasks(name)

    async def resume_connector(self, name: str) -> None:
        async with self._lock:
            c = self._get(name, f"Unknown connector {name}")
            was = self._target(name)
            await self._configs.put_target_state(name, TargetState.STARTED)
            if was is TargetState.STOPPED or not self._worker.is_running(name):
                c.task_states.clear()
                await self._start_connector(name)
                return
            if c.state is State.PAUSED:
                self._set_connector_state(c, State.RUNNING)
            self._worker.resume_tasks(name)

    async def stop_connector(self, name: str) -> None:
        async with self._lock:
            c = self._get(name, f"Unknown connector {name}")
            await self._stop_connector(c)
            await self._configs.put_task_configs(name, [])
            await self._configs.put_target_state(name, TargetState.STOPPED)
            for i in list(c.task_states):
                self._statuses.remove_task(name, i, self.worker_id)
            c.task_states.clear()
            self._set_connector_state(c, State.STOPPED)

    async def task_configs(self, name: str) -> list[TaskInfo]:
        c = self._get(name)
        if self._target(name) is TargetState.STOPPED:
            return []
        return [
            TaskInfo(ConnectorTaskId(name, i), dict(cfg))
            for i, cfg in enumerate(self._configs.snapshot.tasks.get(c.name, []))
        ]

    async def task_status(self, name: str, task: int) -> TaskState:
        c = self._connectors.get(name)
        if c is None or task not in c.task_states:
            raise NotFoundError(f"No status found for task {name}-{task}")
        state, trace = c.task_states[task]
        return TaskState(state=state, worker_id=self.worker_id, trace=trace, version=c.version, id=task)

    async def connector_active_topics(self, name: str) -> list[str]:
        self._get(name)
        # Connect answers from a java.util.HashSet: list the topics in its iteration order
        return list(java_hashmap_order(dict.fromkeys(sorted(self._statuses.topics.get(name, set())))))

    async def reset_connector_active_topics(self, name: str) -> None:
        self._get(name)
        self._statuses.reset_topics(name)

    # -- offsets -------------------------------------------------------------------------------------
    async def connector_offsets(self, name: str) -> list[ConnectorOffset]:
        self._get(name)
        return [ConnectorOffset(s.partition, s.offset) for s in self._offsets.connector_offsets(name)]

    def _require_stopped(self, c: _Connector) -> None:
        if self._target(c.name) is not TargetState.STOPPED or self._worker.tasks(c.name):
            raise BadRequestError(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done "
                f"for the specified connector by issuing a 'PUT' request to the '/connectors/{c.name}/stop' endpoint"
            )

    async def _alter(self, c: _Connector, offsets: list[ConnectorOffset], *, reset: bool) -> str:
        for o in offsets:
            validate_offset_map("Partition", o.partition)
            validate_offset_map("Offset", o.offset)
        try:
            handled = await self._worker.alter_offsets(c.config, {_freeze(o.partition): o.offset for o in offsets})
        except ConnectError as e:
            raise type(e)(self._redact(str(e))) from None
        await self._offsets.write(c.name, [(o.partition, o.offset) for o in offsets])
        verb = "reset" if reset else "altered"
        if handled:
            return f"The offsets for this connector have been {verb} successfully"
        return (
            f"The Connect framework-managed offsets for this connector have been {verb} successfully. However, if "
            f"this connector manages offsets externally, they will need to be manually {verb} in the system that "
            "the connector uses."
        )

    async def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        async with self._lock:
            c = self._get(name)
            self._require_stopped(c)
            if not offsets:
                raise BadRequestError("Partitions / offsets need to be provided for an alter offsets request")
            return await self._alter(c, offsets, reset=False)

    async def reset_connector_offsets(self, name: str) -> str:
        async with self._lock:
            c = self._get(name)
            self._require_stopped(c)
            partitions = [ConnectorOffset(p, None) for p in self._offsets.known_partitions(name)]
            return await self._alter(c, partitions, reset=True)

    # -- plugins -------------------------------------------------------------------------------------
    def plugins(self, *, connectors_only: bool) -> list[PluginDesc]:
        return [
            PluginDesc(full, kind.value, getattr(cls, "plugin_version", "undefined"))
            for kind, full, cls in self._registry.listing(connectors_only=connectors_only)
        ]

    def plugin_config(self, plugin: str) -> list[ConfigKeyInfo]:
        kind, cls = self._registry.any_plugin(plugin)
        return plugin_config_keys(kind, cls)

    # -- loggers -------------------------------------------------------------------------------------
    def loggers(self) -> dict[str, LoggerLevel]:
        return self._loggers.all()

    def logger_level(self, name: str) -> LoggerLevel:
        return self._loggers.get(name)

    def set_logger_level(self, name: str, level: str) -> list[str]:
        return self._loggers.set(name, level)

    # -- metrics ---------------------------------------------------------------------------------------
    def metric_samples(self) -> Iterable[Sample]:
        """Worker-level metrics (Connect's connect-worker-metrics and connector status), read at scrape time."""
        doc_state = "1 for the current state of the connector (label state)."
        tasks = 0
        for name, c in sorted(self._connectors.items()):
            yield sample("kafka_connect_connector_status", "gauge", doc_state, 1, connector=name, state=c.state.value)
            for i, (state, _trace_text) in sorted(c.task_states.items()):
                tasks += 1
                yield sample(
                    "kafka_connect_connector_task_status",
                    "gauge",
                    "1 for the current state of the task (label state).",
                    1,
                    connector=name,
                    task=str(i),
                    state=state.value,
                )
        yield sample(
            "kafka_connect_connect_worker_metrics_connector_count",
            "gauge",
            "The number of connectors run in this worker.",
            len(self._connectors),
        )
        yield sample(
            "kafka_connect_connect_worker_metrics_task_count",
            "gauge",
            "The number of tasks run in this worker.",
            tasks,
        )


def _freeze(partition: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
    return tuple(partition.items())
