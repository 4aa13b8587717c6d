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
    Converter,
    HeaderConverter,
    NotFoundError,
    PluginType,
    SourceConnector,
    SourceTask,
)
from connect_worker.api.javacompat import java_hashmap_order
from connect_worker.kafka.admin import TopicAdmin
from connect_worker.kafka.producer import AsyncProducer
from connect_worker.runtime.background import BackgroundTasks
from connect_worker.runtime.config_providers import ConfigTransformer, has_placeholder, reverse_transform
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
from connect_worker.runtime.logging_setup import log_context
from connect_worker.runtime.metrics import Sample, WorkerMetrics, sample
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.source_task import TaskSettings, Transform, WorkerSourceTask
from connect_worker.runtime.topic_creation import TopicCreator, parse_groups
from connect_worker.runtime.validation import invalid_config_message, plugin_config_keys, validate_connector_config
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
    name: str
    config: dict[str, str | None]  # as stored: a key sent as JSON null keeps it (the connector never sees it)
    instance: SourceConnector | None = None
    state: State = State.UNASSIGNED
    trace: str | None = None
    version: str | None = None
    tasks: dict[int, WorkerSourceTask] = dataclasses.field(default_factory=dict)
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


def _present(config: Mapping[str, str | None]) -> dict[str, str]:
    return {k: v for k, v in config.items() if v is not None}


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
        producer_factory: Callable[[str, Mapping[str, str]], AsyncProducer],
        transform_factory: TransformFactory,
        loggers: LoggerAdmin,
        config_transformer: ConfigTransformer | None = None,
        metrics: WorkerMetrics | None = None,
    ) -> None:
        self._config = config
        self._registry = registry
        self._admin = admin
        self._offsets = offsets
        self._configs = configs
        self._statuses = statuses
        self._producer_factory = producer_factory
        self._transform_factory = transform_factory
        self._loggers = loggers
        #: work started for connectors and not awaited by a request (reconfigurations they ask for)
        self.background = BackgroundTasks("herder")
        # config providers: connectors and tasks get resolved values; configs stored and shown keep placeholders
        self._transformer = config_transformer if config_transformer is not None else config.config_transformer
        self._redact = self._transformer.redactor.redact
        self._metrics = metrics
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
            await asyncio.gather(*(self._stop_connector(c, final=True) for c in self._connectors.values()))
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

    def _resolve(self, config: Mapping[str, str | None]) -> dict[str, str]:
        """`config` with its provider placeholders resolved (ConfigError naming any that cannot be); keys whose
        value is null are left out, as unset."""
        present = _present(config)
        if not self._transformer:
            return present
        return self._transformer.resolve(present)

    def _stored_task_config(self, raw: Mapping[str, str], cfg: Mapping[str, str]) -> dict[str, str]:
        """A task config as the config topic keeps it: placeholders put back (reverseTransform), and any other
        value that embeds a resolved secret written with its placeholder (resolved again at task start)."""
        (restored,) = reverse_transform(raw, [cfg])
        return {k: v if raw.get(k) == v else self._redact(v) for k, v in restored.items()}

    # -- starting and stopping ---------------------------------------------------------------------------
    def _target(self, name: str) -> TargetState:
        return self._configs.snapshot.target_state(name)

    async def _start_connector(self, name: str) -> None:
        c = self._connectors[name]
        target = self._target(name)
        if target is TargetState.STOPPED:
            self._set_connector_state(c, State.STOPPED)
            return
        try:
            cls = self._registry.connector_class(c.config.get("connector.class") or "")
            instance: SourceConnector = cls()
            c.version = instance.version()
            instance.initialize(_ConnectorContext(self, name, ConnectorOffsetReader(self._offsets, name)))
            resolved = self._resolve(c.config)
            with log_context(name):
                await instance.start(resolved)
            c.instance = instance
        except Exception as e:  # noqa: BLE001 - reported as the connector's FAILED status
            log.error("connector %s failed to start: %s", name, self._redact(str(e)))
            self._set_connector_state(c, State.FAILED, self._trace(e))
            return
        self._set_connector_state(c, State.PAUSED if target is TargetState.PAUSED else State.RUNNING)
        await self._generate_and_start_tasks(c)

    async def _generate_and_start_tasks(self, c: _Connector) -> None:
        assert c.instance is not None
        try:
            resolved = self._resolve(c.config)
            tasks_max = int(resolved.get("tasks.max", "1"))
            with log_context(c.name):
                configs = c.instance.task_configs(tasks_max)
            if len(configs) > tasks_max and resolved.get("tasks.max.enforce", "true").lower() != "false":
                raise ConfigError(
                    f"The connector {c.name} has generated {len(configs)} tasks, which is greater than "
                    f"{tasks_max}, the maximum number of tasks it is configured to create. "
                )
            task_class = c.instance.task_class_name()
            full = [self._stored_task_config(_present(c.config), {**cfg, "task.class": task_class}) for cfg in configs]
            if self._configs.snapshot.tasks.get(c.name) != full:
                await self._configs.put_task_configs(c.name, full)
        except Exception as e:  # noqa: BLE001
            self._set_connector_state(c, State.FAILED, self._trace(e))
            return
        for i, props in enumerate(full):
            await self._start_task(c, i, props)

    def _converter(self, config: Mapping[str, str], side: str) -> Converter | HeaderConverter:
        kind = PluginType.HEADER_CONVERTER if side == "header" else PluginType.CONVERTER
        key = f"{side}.converter"
        if config.get(key):
            name, sub = config[key], {k[len(key) + 1 :]: v for k, v in config.items() if k.startswith(key + ".")}
        else:
            name, sub = self._config[key], self._config.prefixed(key + ".")
        conv: Converter | HeaderConverter = self._registry.resolve(kind, name)()
        settings: dict[str, Any] = {**sub, "converter.type": side}
        if side == "header":
            assert isinstance(conv, HeaderConverter)
            conv.configure(settings)
        else:
            assert isinstance(conv, Converter)
            conv.configure(settings, side == "key")
        return conv

    def _producer_config_name(self, task: ConnectorTaskId) -> str:
        return f"connector-producer-{task.connector}-{task.task}"

    async def _start_task(self, c: _Connector, index: int, props: Mapping[str, str]) -> None:
        task_id = ConnectorTaskId(c.name, index)
        try:
            assert c.instance is not None
            task: SourceTask = c.instance.task_class()()
            config = self._resolve(c.config)
            task_props = self._resolve(props)
            key_conv = self._converter(config, "key")
            value_conv = self._converter(config, "value")
            header_conv = self._converter(config, "header")
            assert isinstance(key_conv, Converter) and isinstance(value_conv, Converter)
            assert isinstance(header_conv, HeaderConverter)
            transform = self._transform_factory(config)
            groups = parse_groups(config) if self._config["topic.creation.enable"] else None
            overrides = {
                k[len("producer.override.") :]: v for k, v in config.items() if k.startswith("producer.override.")
            }
            producer = self._producer_factory(self._producer_config_name(task_id), overrides)
            producer.start()
            settings = TaskSettings(
                flush_interval_s=self._config["offset.flush.interval.ms"] / 1000,
                tolerate_errors=config.get("errors.tolerance", "none").lower() == "all",
                log_errors=config.get("errors.log.enable", "false").lower() == "true",
                log_error_messages=config.get("errors.log.include.messages", "false").lower() == "true",
                shutdown_timeout_s=self._config["task.shutdown.graceful.timeout.ms"] / 1000,
            )
            worker_task = WorkerSourceTask(
                task_id,
                task,
                task_props,
                key_converter=key_conv,
                value_converter=value_conv,
                header_converter=header_conv,
                transform=transform,
                producer=producer,
                offset_store=self._offsets,
                listener=self,
                topics=TopicCreator(self._admin, groups),
                settings=settings,
                metrics=self._metrics.task_group(c.name, index) if self._metrics is not None else None,
            )
        except Exception as e:  # noqa: BLE001
            log.error("task %s could not be created: %s", task_id, self._redact(str(e)))
            c.task_states[index] = (State.FAILED, self._trace(e))
            self._set_task_state(task_id, State.FAILED, self._trace(e))
            return
        c.tasks[index] = worker_task
        c.task_states[index] = (State.UNASSIGNED, None)
        worker_task.start(paused=self._target(c.name) is TargetState.PAUSED)

    async def _stop_tasks(self, c: _Connector) -> None:
        tasks = list(c.tasks.items())
        c.tasks.clear()

        await asyncio.gather(*(t.stop() for _, t in tasks))

    async def _stop_connector(self, c: _Connector, *, final: bool = False) -> None:
        await self._stop_tasks(c)
        if c.instance is not None:
            try:
                with log_context(c.name):
                    await c.instance.stop()
            except Exception as e:  # noqa: BLE001
                log.warning("connector %s failed to stop cleanly: %s", c.name, self._redact(str(e)))
            c.instance = None

    async def reconfigure_tasks(self, name: str) -> None:
        async with self._lock:
            c = self._connectors.get(name)
            if c is None or c.instance is None:
                return
            await self._stop_tasks(c)
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
        config = _present(given)  # a null value counts as unset
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
        if c.instance is not None:
            await c.instance.stop()
            c.instance = None
        try:
            cls = self._registry.connector_class(c.config.get("connector.class") or "")
            instance: SourceConnector = cls()
            instance.initialize(_ConnectorContext(self, c.name, ConnectorOffsetReader(self._offsets, c.name)))
            resolved = self._resolve(c.config)
            with log_context(c.name):
                await instance.start(resolved)
            c.instance = instance
            target = self._target(c.name)
            self._set_connector_state(c, State.PAUSED if target is TargetState.PAUSED else State.RUNNING)
        except Exception as e:  # noqa: BLE001
            self._set_connector_state(c, State.FAILED, self._trace(e))

    async def _restart_task(self, c: _Connector, index: int) -> None:
        old = c.tasks.pop(index, None)
        if old is not None:
            await old.stop()
        props = self._configs.snapshot.tasks.get(c.name, [])
        if index < len(props) and c.instance is not None:
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
            for t in c.tasks.values():
                t.pause()

    async def resume_connector(self, name: str) -> None:
        async with self._lock:
            c = self._get(name, f"Unknown connector {name}")
            was = self._target(name)
            await self._configs.put_target_state(name, TargetState.STARTED)
            if was is TargetState.STOPPED or c.instance is None:
                c.task_states.clear()
                await self._start_connector(name)
                return
            if c.state is State.PAUSED:
                self._set_connector_state(c, State.RUNNING)
            for t in c.tasks.values():
                t.resume()

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
        if self._target(c.name) is not TargetState.STOPPED or c.tasks:
            raise BadRequestError(
                "Connectors must be in the STOPPED state before their offsets can be modified. This can be done "
                f"for the specified connector by issuing a 'PUT' request to the '/connectors/{c.name}/stop' endpoint"
            )

    async def _alter(self, c: _Connector, offsets: list[ConnectorOffset], *, reset: bool) -> str:
        for o in offsets:
            validate_offset_map("Partition", o.partition)
            validate_offset_map("Offset", o.offset)
        cls = self._registry.connector_class(c.config.get("connector.class") or "")
        try:
            handled = await cls().alter_offsets(
                self._resolve(c.config), {_freeze(o.partition): o.offset for o in offsets}
            )
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
