"""In-memory fakes of what the StandaloneHerder is built on (runtime/herder_ports.py): the config, status and
offset stores, the admin client, the log levels and the Worker. The herder under test is always the real one.

The fake Worker creates and starts the registry's connector classes as the real Worker does, and asks them for
their task configs; its tasks only tell the herder's listener what a WorkerSourceTask would (running or paused
at once on start, paused, resumed, failed, shut down), and tests drive them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from connect_worker.api import NotFoundError, SourceConnector, SourceTask
from connect_worker.api.record import SourceRecord
from connect_worker.runtime.herder import ConnectorTaskId, LoggerLevel, TargetState
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.source_task import TaskStatusListener
from connect_worker.runtime.standalone_herder import StandaloneHerder
from connect_worker.runtime.worker import ConnectorCallbacks, present
from connect_worker.runtime.worker_config import WorkerConfig
from connect_worker.storage import internal_json
from connect_worker.storage.configs import ConfigSnapshot
from connect_worker.storage.offsets import StoredOffset

WORKER_ID = "127.0.0.1:8083"
WORKER_PROPS = {"listeners": f"http://{WORKER_ID}"}


# -- stores ----------------------------------------------------------------------------------------------
class FakeConfigStore:
    """The config topic in memory: each write is a list of records in Connect's format, applied in order to the
    ConfigSnapshot the real store keeps, and kept in `records`."""

    def __init__(self) -> None:
        self.snapshot = ConfigSnapshot()
        self.records: list[tuple[str, Any]] = []

    def _write(self, *records: tuple[str, Any]) -> None:
        for key, value in records:
            self.records.append((key, value))
            self.snapshot.apply(key, value)

    async def put_connector_config(
        self, name: str, config: Mapping[str, str | None], target_state: TargetState | None = None
    ) -> None:
        if target_state is not None:
            self._write(_target_state_record(name, target_state))
        self._write((f"connector-{name}", {"properties": dict(config)}))

    async def put_task_configs(self, name: str, configs: Sequence[Mapping[str, str]]) -> None:
        tasks = [(f"task-{name}-{i}", {"properties": dict(c)}) for i, c in enumerate(configs)]
        self._write(*tasks, (f"commit-{name}", {"tasks": len(configs)}))

    async def put_target_state(self, name: str, state: TargetState) -> None:
        self._write(_target_state_record(name, state))

    async def remove_connector(self, name: str) -> None:
        self._write((f"connector-{name}", None), (f"target-state-{name}", None))


def _target_state_record(name: str, state: TargetState) -> tuple[str, dict[str, str]]:
    legacy = TargetState.PAUSED if state is TargetState.STOPPED else state  # what older workers read
    return f"target-state-{name}", {"state": legacy.value, "state.v2": state.value}


@dataclasses.dataclass(frozen=True)
class Status:
    state: str
    worker_id: str
    trace: str | None = None
    version: str | None = None


class FakeStatusStore:
    """The status topic in memory: the last status of each connector and task (a removed one is gone)."""

    def __init__(self) -> None:
        self.connectors: dict[str, Status] = {}
        self.tasks: dict[tuple[str, int], Status] = {}
        self.topics: dict[str, set[str]] = {}
        self.drained = False

    def put_connector(self, name: str, state: str, worker_id: str, *, trace: str | None, version: str | None) -> None:
        self.connectors[name] = Status(state, worker_id, trace, version)

    def put_task(
        self, name: str, task: int, state: str, worker_id: str, *, trace: str | None, version: str | None
    ) -> None:
        self.tasks[name, task] = Status(state, worker_id, trace, version)

    def remove_task(self, name: str, task: int, worker_id: str) -> None:
        self.tasks.pop((name, task), None)

    def remove_connector(self, name: str, worker_id: str) -> None:
        self.connectors.pop(name, None)

    def put_topic(self, connector: str, task: int, topic: str) -> None:
        self.topics.setdefault(connector, set()).add(topic)

    def reset_topics(self, connector: str) -> None:
        self.topics.pop(connector, None)

    async def drain(self) -> None:
        self.drained = True


class FakeOffsetStore:
    """The offsets topic in memory, by connector and partition key (a reset partition stays known, offset None)."""

    def __init__(self) -> None:
        self._data: dict[str, dict[bytes, StoredOffset]] = {}

    def connector_offsets(self, connector: str) -> list[StoredOffset]:
        return [s for s in self._data.get(connector, {}).values() if s.offset is not None]

    def known_partitions(self, connector: str) -> list[dict[str, Any]]:
        return [s.partition for s in self._data.get(connector, {}).values()]

    async def write(
        self, connector: str, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any] | None]]
    ) -> None:
        for partition, offset in offsets:
            key = internal_json.offset_key(connector, partition)
            stored = StoredOffset(dict(partition), None if offset is None else dict(offset))
            self._data.setdefault(connector, {})[key] = stored


class FakeAdmin:
    def __init__(self, cluster_id: str | None = "tansu_cluster") -> None:
        self._cluster_id = cluster_id

    async def cluster_id(self) -> str | None:
        return self._cluster_id


class FakeLoggers:
    """Log levels in memory, as Connect's Loggers answers for them, with a fixed clock; `calls` lists what was set."""

    def __init__(self, names: Sequence[str] = (), *, clock: Callable[[], int] = lambda: 1795303509461) -> None:
        self._levels = {name: LoggerLevel("INFO", None) for name in ("root", *names)}
        self._clock = clock
        self.calls: list[tuple[str, str]] = []

    def all(self) -> dict[str, LoggerLevel]:
        return dict(self._levels)

    def get(self, name: str) -> LoggerLevel:
        try:
            return self._levels[name]
        except KeyError:
            raise NotFoundError(f"Logger {name} not found.") from None

    def set(self, name: str, level: str) -> list[str]:
        """Sets the logger and its descendants (every logger for root); a new name creates a logger."""
        self.calls.append((name, level))
        targets = [n for n in self._levels if name == "root" or n == name or n.startswith(name + ".")]
        if name not in self._levels:
            targets.append(name)
        changed = sorted(n for n in targets if n not in self._levels or self._levels[n].level != level)
        for n in changed:
            self._levels[n] = LoggerLevel(level, self._clock())
        return changed


# -- the Worker ------------------------------------------------------------------------------------------
class IdleTask(SourceTask):
    """A plugin's task class for connectors that stand in for real ones (the fake Worker never runs it)."""

    class_name: ClassVar[str] = ""

    async def start(self, props: Mapping[str, str]) -> None:
        pass

    async def poll(self) -> list[SourceRecord] | None:
        return None

    async def stop(self) -> None:
        pass


class FakeTask:
    """A task the fake Worker runs: it tells the listener what a WorkerSourceTask would."""

    def __init__(self, task_id: ConnectorTaskId, props: Mapping[str, str], listener: TaskStatusListener) -> None:
        self.id = task_id
        self.props = dict(props)
        self.listener = listener
        self.paused = False
        self.failed = False
        self.stopped = False
        self.signals: list[tuple[str, str, str | None]] = []  # what submit_signal was handed
        self.signal_error: BaseException | None = None  # raised by submit_signal instead

    def submit_signal(self, signal_id: str, kind: str, data: str | None) -> None:
        if self.signal_error is not None:
            raise self.signal_error
        self.signals.append((signal_id, kind, data))

    def start(self, *, paused: bool) -> None:
        self.paused = paused
        if paused:
            self.listener.on_paused(self.id)
        else:
            self.listener.on_running(self.id)

    def pause(self) -> None:
        if not self.paused and not self.failed:
            self.paused = True
            self.listener.on_paused(self.id)

    def resume(self) -> None:
        if self.paused and not self.failed:
            self.paused = False
            self.listener.on_running(self.id)

    def fail(self, trace: str) -> None:
        self.failed = True
        self.listener.on_failure(self.id, trace)

    def stop(self) -> None:
        self.stopped = True
        if not self.failed:
            self.listener.on_shutdown(self.id)


class FakeWorker:
    """The Worker interface (runtime/herder_ports.WorkerControl) over the registry's connector classes and FakeTasks.

    `start_errors` (connector name → exception) and `task_errors` (task id → exception) are raised by the next start
    of that connector or task; `task_config_override` (connector name → configs) is what that connector generates
    instead of its own, as a connector whose source changed would."""

    def __init__(self, registry: PluginRegistry) -> None:
        self._registry = registry
        self.connectors: dict[str, SourceConnector] = {}  # the instances that run
        self.configs: dict[str, dict[str, str]] = {}  # what they were started with
        self.callbacks: dict[str, ConnectorCallbacks] = {}  # what each connector's context forwards to the herder
        self.running_tasks: dict[str, dict[int, FakeTask]] = {}
        self.start_errors: dict[str, BaseException] = {}
        self.task_errors: dict[ConnectorTaskId, BaseException] = {}
        self.task_config_override: dict[str, list[dict[str, str]]] = {}
        self.connector_starts: list[str] = []
        self.altered: list[tuple[dict[str, str], dict[Any, Any]]] = []
        self.offsets: Any = None  # the rig's offsets store: every connector's, whatever its offsets.storage.topic

    async def offsets_for(self, config: Mapping[str, str | None]) -> Any:
        return self.offsets

    # -- connectors --------------------------------------------------------------------------------------
    def is_running(self, name: str) -> bool:
        return name in self.connectors

    def connector_version(self, config: Mapping[str, str | None]) -> str | None:
        try:
            version: str = self._registry.connector_class(config.get("connector.class") or "")().version()
        except Exception:  # noqa: BLE001
            return None
        return version

    async def start_connector(self, name: str, config: Mapping[str, str | None], callbacks: ConnectorCallbacks) -> str:
        await self._stop_instance(name)
        self.connector_starts.append(name)
        self.callbacks[name] = callbacks
        if name in self.start_errors:
            raise self.start_errors.pop(name)
        instance: SourceConnector = self._registry.connector_class(config.get("connector.class") or "")()
        await instance.start(present(config))
        self.connectors[name], self.configs[name] = instance, present(config)
        return instance.version()

    def task_configs(self, name: str) -> list[dict[str, str]]:
        instance = self.connectors[name]
        configs = self.task_config_override.get(name)
        if configs is None:
            configs = instance.task_configs(int(self.configs[name].get("tasks.max", "1")))
        return [{**c, "task.class": instance.task_class_name()} for c in configs]

    async def _stop_instance(self, name: str) -> None:
        instance = self.connectors.pop(name, None)
        if instance is not None:
            await instance.stop()

    async def stop_connector(self, name: str) -> None:
        await self.stop_tasks(name)
        await self._stop_instance(name)

    async def stop_connector_instance(self, name: str) -> None:
        await self._stop_instance(name)

    async def alter_offsets(self, config: Mapping[str, str | None], offsets: Mapping[Any, Any]) -> bool:
        self.altered.append((present(config), dict(offsets)))
        cls = self._registry.connector_class(config.get("connector.class") or "")
        return bool(await cls().alter_offsets(present(config), offsets))

    # -- tasks -------------------------------------------------------------------------------------------
    def tasks(self, name: str) -> dict[int, FakeTask]:
        return self.running_tasks.get(name, {})

    async def start_task(
        self,
        task_id: ConnectorTaskId,
        props: Mapping[str, str],
        listener: TaskStatusListener,
        *,
        paused: bool,
        connector_config: Mapping[str, str | None] | None = None,
    ) -> None:
        if task_id in self.task_errors:
            raise self.task_errors.pop(task_id)
        task = FakeTask(task_id, props, listener)
        self.running_tasks.setdefault(task_id.connector, {})[task_id.task] = task
        task.start(paused=paused)

    async def stop_task(self, task_id: ConnectorTaskId) -> None:
        task = self.tasks(task_id.connector).pop(task_id.task, None)
        if task is not None:
            task.stop()

    async def stop_tasks(self, name: str) -> None:
        for task in self.running_tasks.pop(name, {}).values():
            task.stop()

    def pause_tasks(self, name: str) -> None:
        for task in self.tasks(name).values():
            task.pause()

    def resume_tasks(self, name: str) -> None:
        for task in self.tasks(name).values():
            task.resume()

    def submit_signal(self, name: str, signal_id: str, kind: str, data: str | None) -> int:
        running = [t for t in self.tasks(name).values() if not t.failed]
        for task in running:
            task.submit_signal(signal_id, kind, data)
        return len(running)

    # -- what tests make happen --------------------------------------------------------------------------
    def fail_task(self, task_id: ConnectorTaskId, trace: str) -> None:
        self.tasks(task_id.connector)[task_id.task].fail(trace)

    def report_topic(self, task_id: ConnectorTaskId, topic: str) -> None:
        """The task produced to `topic` (what a WorkerSourceTask reports once per topic)."""
        self.tasks(task_id.connector)[task_id.task].listener.on_topic(task_id, topic)


# -- a herder built on them ------------------------------------------------------------------------------
@dataclasses.dataclass
class HerderRig:
    """The real StandaloneHerder and the fakes it is built on."""

    herder: StandaloneHerder
    worker: FakeWorker
    configs: FakeConfigStore
    statuses: FakeStatusStore
    offsets: FakeOffsetStore
    loggers: FakeLoggers


def herder_rig(
    registry: PluginRegistry,
    *,
    worker_props: Mapping[str, str] = WORKER_PROPS,
    herder_class: type[StandaloneHerder] = StandaloneHerder,
    configs: FakeConfigStore | None = None,
    offsets: FakeOffsetStore | None = None,
    loggers: FakeLoggers | None = None,
) -> HerderRig:
    """A herder (not started) on fresh fakes; pass `configs`/`offsets` of an earlier rig to restart on its state."""
    worker, statuses = FakeWorker(registry), FakeStatusStore()
    configs = configs if configs is not None else FakeConfigStore()
    offsets = offsets if offsets is not None else FakeOffsetStore()
    worker.offsets = offsets
    loggers = loggers if loggers is not None else FakeLoggers()
    herder = herder_class(
        config=WorkerConfig.from_properties(worker_props),
        registry=registry,
        admin=FakeAdmin(),
        configs=configs,
        statuses=statuses,
        worker=worker,
        loggers=loggers,
    )
    return HerderRig(herder, worker, configs, statuses, offsets, loggers)
