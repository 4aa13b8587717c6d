"""The standalone herder: runs every connector and task in this process, with configs, target states,
statuses and offsets kept in Kafka topics so a restarted worker resumes everything as it was. It is the
control-plane state machine; the Worker runs what it decides (the interfaces it uses: herder_ports.py)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from typing import TypeVar

from connect_worker.api import AlreadyExistsError, BadRequestError, ConflictError, NotFoundError, PluginType
from connect_worker.api.javacompat import java_added_order, java_hash, java_hashmap_order
from connect_worker.runtime.abstract_herder import AbstractHerder
from connect_worker.runtime.background import BackgroundTasks
from connect_worker.runtime.config_providers import ConfigTransformer
from connect_worker.runtime.connector_status import ConnectorRecord, status_samples
from connect_worker.runtime.herder import (
    ConnectorInfo,
    ConnectorOffset,
    ConnectorStateInfo,
    ConnectorTaskId,
    State,
    TargetState,
    TaskInfo,
    TaskState,
)
from connect_worker.runtime.herder_ports import (
    ClusterAdmin,
    ConfigBackingStore,
    LoggerLevels,
    OffsetBackingStore,
    StatusBackingStore,
    WorkerControl,
)
from connect_worker.runtime.metrics import Sample
from connect_worker.runtime.offsets_request import alter_offsets, not_stopped_error
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.restart_plan import RestartRequest, restart_plan
from connect_worker.runtime.validation import invalid_config_message
from connect_worker.runtime.worker_config import WorkerConfig

log = logging.getLogger(__name__)
V = TypeVar("V", str, str | None)


class _ConnectorCallbacks:
    """What a connector asks of the herder through its context (Connect's HerderConnectorContext)."""

    def __init__(self, herder: StandaloneHerder, name: str) -> None:
        self._herder = herder
        self._name = name

    def request_task_reconfiguration(self) -> None:
        self._herder.background.start(self._herder.reconfigure_tasks(self._name), name=f"reconfigure {self._name}")

    def raise_error(self, error: BaseException) -> None:
        self._herder.connector_failed(self._name, error)


class StandaloneHerder(AbstractHerder):
    def __init__(
        self,
        *,
        config: WorkerConfig,
        registry: PluginRegistry,
        admin: ClusterAdmin,
        configs: ConfigBackingStore,
        statuses: StatusBackingStore,
        worker: WorkerControl,
        loggers: LoggerLevels,
        config_transformer: ConfigTransformer | None = None,
    ) -> None:
        super().__init__(
            config=config, registry=registry, admin=admin, loggers=loggers, config_transformer=config_transformer
        )
        self._configs = configs
        self._statuses = statuses
        self._worker = worker
        #: work started for connectors and not awaited by a request (reconfigurations they ask for)
        self.background = BackgroundTasks("herder")
        self._connectors: dict[str, ConnectorRecord] = {}
        self._lock = asyncio.Lock()

    # -- lifecycle --------------------------------------------------------------------------------------
    async def start(self) -> None:
        self._cluster_id = await self._admin.cluster_id()
        snapshot = self._configs.snapshot
        async with self._lock:
            for name, cfg in snapshot.connectors.items():
                self._connectors[name] = ConnectorRecord(name, dict(cfg))
                await self._start_connector(name)
        self._started = True
        log.info("worker started with %d connectors", len(self._connectors))

    async def stop(self) -> None:
        await self.background.cancel_all()
        async with self._lock:
            await asyncio.gather(*(self._worker.stop_connector(name) for name in self._connectors))
        await self._statuses.drain()

    # -- status bookkeeping (also the task listener) ---------------------------------------------------
    def _set_connector_state(self, c: ConnectorRecord, state: State, trace: str | None = None) -> None:
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

    # -- starting and stopping ---------------------------------------------------------------------------
    def _target(self, name: str) -> TargetState:
        return self._configs.snapshot.target_state(name)

    async def _start_connector(self, name: str) -> None:
        c = self._connectors[name]
        target = self._target(name)
        if target is not TargetState.STARTED:
            # Connect creates a STOPPED or PAUSED connector without starting it, so it generates no task configs
            # (a connector created PAUSED has no tasks until resumed); tasks configured before start paused.
            await self._instance_to_target(c)
            if target is TargetState.PAUSED:
                await self._start_configured_tasks(c)
            return
        if not await self._instance_to_target(c):
            return
        await self._generate_and_start_tasks(c)

    async def _start_configured_tasks(self, c: ConnectorRecord) -> None:
        """Start the tasks the config topic holds configs for (of a connector not started itself)."""
        for i, props in enumerate(self._configs.snapshot.tasks.get(c.name, [])):
            await self._start_task(c, i, props)

    async def _instance_to_target(self, c: ConnectorRecord) -> bool:
        """Bring the connector instance to its target state, its tasks (if any) left as they are: started when
        STARTED (True; False when it failed), else stopped if running, as Connect's WorkerConnector runs a
        connector only while STARTED (a pause stops it, a restart while paused does not start it)."""
        target = self._target(c.name)
        if target is not TargetState.STARTED:
            await self._worker.stop_connector_instance(c.name)
            c.version = self._worker.connector_version(c.config) or c.version
            self._set_connector_state(c, State.STOPPED if target is TargetState.STOPPED else State.PAUSED)
            return False
        try:
            c.version = await self._worker.start_connector(c.name, c.config, _ConnectorCallbacks(self, c.name))
        except Exception as e:  # noqa: BLE001 - reported as the connector's FAILED status
            c.version = self._worker.connector_version(c.config) or c.version
            log.error("connector %s failed to start: %s", c.name, self._redact(str(e)))
            self._set_connector_state(c, State.FAILED, self._trace(e))
            return False
        self._set_connector_state(c, State.RUNNING)
        return True

    async def _restart_instance(self, c: ConnectorRecord) -> None:
        """Connect's startConnector with updateConnectorTasks as its callback: the instance to its target state,
        then the tasks started again only if their configs changed (_update_tasks skips a connector not running)."""
        await self._instance_to_target(c)
        await self._update_tasks(c)

    def _generated_task_configs(self, c: ConnectorRecord) -> list[dict[str, str]] | None:
        """The task configs the running connector generates now; None when that failed (the connector FAILED)."""
        try:
            return self._worker.task_configs(c.name)
        except Exception as e:  # noqa: BLE001 - the connector's own failure
            self._set_connector_state(c, State.FAILED, self._trace(e))
            return None

    async def _generate_and_start_tasks(self, c: ConnectorRecord) -> None:
        full = self._generated_task_configs(c)
        if full is None:
            return
        try:
            if self._configs.snapshot.task_configs_changed(c.name, full):
                await self._configs.put_task_configs(c.name, full)
        except Exception as e:  # noqa: BLE001
            self._set_connector_state(c, State.FAILED, self._trace(e))
            return
        for i, props in enumerate(full):
            await self._start_task(c, i, props)

    async def _start_task(self, c: ConnectorRecord, index: int, props: Mapping[str, str]) -> None:
        task_id = ConnectorTaskId(c.name, index)
        c.task_states[index] = (State.UNASSIGNED, None)
        try:
            await self._worker.start_task(
                task_id, props, self, paused=self._target(c.name) is TargetState.PAUSED, connector_config=c.config
            )
        except Exception as e:  # noqa: BLE001
            log.error("task %s could not be created: %s", task_id, self._redact(str(e)))
            self._set_task_state(task_id, State.FAILED, self._trace(e))

    async def reconfigure_tasks(self, name: str) -> None:
        """Connect's requestTaskReconfiguration: the tasks start again only if their configs changed."""
        async with self._lock:
            c = self._connectors.get(name)
            if c is not None:
                await self._update_tasks(c)

    # -- lookups -------------------------------------------------------------------------------------
    def _get(self, name: str, message: str | None = None) -> ConnectorRecord:
        c = self._connectors.get(name)
        if c is None:
            raise NotFoundError(message or f"Connector {name} not found")
        return c

    def _info(self, c: ConnectorRecord) -> ConnectorInfo:
        stopped = self._target(c.name) is TargetState.STOPPED
        tasks = () if stopped else range(len(self._configs.snapshot.tasks.get(c.name, [])))
        return ConnectorInfo(c.name, dict(c.config), tuple(ConnectorTaskId(c.name, i) for i in tasks), self._type(c))

    def _type(self, c: ConnectorRecord) -> str:
        cls = self._registry.find(PluginType.SOURCE, c.config.get("connector.class") or "")
        return "source" if cls is not None else "unknown"

    # -- connectors --------------------------------------------------------------------------------------
    async def connectors(self) -> list[str]:
        return java_added_order(self._connectors)  # Connect lists its config map's keys

    async def connector_info(self, name: str) -> ConnectorInfo:
        return self._info(self._get(name))

    async def connector_config(self, name: str) -> dict[str, str | None]:
        return dict(self._get(name).config)

    async def connector_status(self, name: str) -> ConnectorStateInfo:
        c = self._get(name, f"No status found for connector {name}")
        return c.state_info(self.worker_id, self._type(c), stopped=self._target(name) is TargetState.STOPPED)

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
                # Connect stops only the connector; its tasks run on unless the configs it generates now differ
                c = self._connectors[name]
                await self._worker.stop_connector_instance(c.name)
                c.config = cfg
                await self._configs.put_connector_config(name, cfg)
                await self._restart_instance(c)
            else:
                c = self._connectors[name] = ConnectorRecord(name, cfg)
                await self._configs.put_connector_config(name, cfg, initial_state)
                await self._start_connector(name)
            return not exists, self._info(c)

    async def patch_connector_config(self, name: str, patch: Mapping[str, str | None]) -> ConnectorInfo:
        merged = {**self._get(name).config, **patch}
        current = {k: v for k, v in merged.items() if k not in patch or patch[k] is not None}  # null: removed
        current = java_hashmap_order(current)  # Connect patches a copy in a java.util.HashMap, and keeps that
        _, info = await self.put_connector_config(name, current, allow_replace=True)
        return info

    async def delete_connector(self, name: str) -> None:
        async with self._lock:
            c = self._get(name)
            await self._remove_tasks(c)
            await self._worker.stop_connector(c.name)
            await self._configs.remove_connector(name)
            del self._connectors[name]
            self._statuses.remove_connector(name, self.worker_id)
            self._statuses.reset_topics(name)  # Connect forgets a deleted connector's active topics (KIP-558)
            log.info("connector %s deleted", name)

    async def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> ConnectorStateInfo | None:
        async with self._lock:
            c = self._connectors.get(name)
            if c is None:
                raise NotFoundError(f"Unknown connector: {name}")
            request = RestartRequest(include_tasks, only_failed)
            restart_conn = request.restarts_connector(c.state)
            restart_tasks = [i for i, (s, _) in sorted(c.task_states.items()) if request.restarts_task(s)]
            plan = None
            if not request.legacy:
                plan = restart_plan(await self.connector_status(name), connector=restart_conn, tasks=restart_tasks)
            if request.legacy:  # Connect's restartConnector: the connector only, then its tasks if changed
                await self._restart_instance(c)
                return plan
            # Connect's restartConnectorAndTasks: what the plan names is stopped, then started again, the tasks
            # from their stored configs (a full restart generates none, and a connector that fails to start
            # again leaves its tasks started all the same)
            if restart_conn:
                await self._worker.stop_connector_instance(c.name)
            for i in restart_tasks:
                await self._worker.stop_task(ConnectorTaskId(c.name, i))
            if restart_conn:
                await self._instance_to_target(c)
            for i in restart_tasks:
                await self._start_stored_task(c, i)
            return plan

    async def _restart_task(self, c: ConnectorRecord, index: int) -> None:
        await self._worker.stop_task(ConnectorTaskId(c.name, index))
        await self._start_stored_task(c, index)

    async def _start_stored_task(self, c: ConnectorRecord, index: int) -> None:
        props = self._configs.snapshot.tasks.get(c.name, [])
        if index < len(props) and self._target(c.name) is not TargetState.STOPPED:
            await self._start_task(c, index, props[index])

    async def restart_task(self, name: str, task: int) -> None:
        async with self._lock:
            c = self._get(name)  # Connect's standalone herder: "Connector X not found", then "Task X-n not found"
            if task not in c.task_states:
                raise NotFoundError(f"Task {name}-{task} not found")
            await self._restart_task(c, task)

    async def pause_connector(self, name: str) -> None:
        async with self._lock:
            c = self._get(name, f"Unknown connector {name}")
            if self._target(name) is TargetState.STOPPED:  # (it has no tasks: Connect's stop dropped their configs)
                await self._configs.put_target_state(name, TargetState.PAUSED)
                self._set_connector_state(c, State.PAUSED)
                return
            await self._configs.put_target_state(name, TargetState.PAUSED)
            if c.state is State.RUNNING:
                await self._instance_to_target(c)  # stops it
            self._worker.pause_tasks(name)

    async def resume_connector(self, name: str) -> None:
        async with self._lock:
            c = self._get(name, f"Unknown connector {name}")
            was = self._target(name)
            await self._configs.put_target_state(name, TargetState.STARTED)
            if was is TargetState.STOPPED or c.state is State.FAILED:
                await self._worker.stop_tasks(name)
                c.task_states.clear()
                await self._start_connector(name)
                return
            if not self._worker.is_running(name) and not await self._instance_to_target(c):
                return
            self._worker.resume_tasks(name)
            await self._update_tasks(c)

    async def _update_tasks(self, c: ConnectorRecord) -> None:
        """Connect's updateConnectorTasks (after a resume, a config update, a restart or a reconfiguration
        request): skipped unless the connector runs STARTED; the tasks go on as they are unless the configs the
        connector generates now changed, or its config changed since they were generated (a config changed
        while paused: the paused connector generated none); then they are written and the tasks start again."""
        if not self._worker.is_running(c.name) or self._target(c.name) is not TargetState.STARTED:
            return
        full = self._generated_task_configs(c)
        if full is None or not self._configs.snapshot.task_configs_changed(c.name, full):
            return
        await self._remove_tasks(c)
        await self._configs.put_task_configs(c.name, full)
        for i, props in enumerate(full):
            await self._start_task(c, i, props)

    async def _remove_tasks(self, c: ConnectorRecord) -> None:
        """Connect's removeConnectorTasks: the tasks stop and their statuses go (UNASSIGNED, then a tombstone)."""
        await self._worker.stop_tasks(c.name)
        for i in sorted(c.task_states):
            self._statuses.remove_task(c.name, i, self.worker_id)
        c.task_states.clear()

    async def stop_connector(self, name: str) -> None:
        async with self._lock:
            c = self._get(name, f"Unknown connector {name}")
            await self._remove_tasks(c)
            await self._worker.stop_connector(c.name)
            await self._configs.put_task_configs(name, [])
            await self._configs.put_target_state(name, TargetState.STOPPED)
            self._set_connector_state(c, State.STOPPED)

    async def task_configs(self, name: str) -> list[TaskInfo]:
        c = self._get(name)
        if self._target(name) is TargetState.STOPPED:
            return []
        return [
            TaskInfo(ConnectorTaskId(name, i), self._as_read(cfg))
            for i, cfg in enumerate(self._configs.snapshot.tasks.get(c.name, []))
        ]

    @staticmethod
    def _as_read(config: Mapping[str, V]) -> dict[str, V]:
        """A config as this herder answers it once stored: in the order it was given (Connect's standalone
        herder keeps the request's map)."""
        return dict(config)

    async def task_status(self, name: str, task: int) -> TaskState:
        c = self._connectors.get(name)
        if c is None or task not in c.task_states:
            raise NotFoundError(f"No status found for task {name}-{task}")
        return c.task_state(task, self.worker_id)

    async def connector_active_topics(self, name: str) -> list[str]:
        # Connect answers from the status store alone (a connector it does not know has no topics: 200, not 404),
        # collected into a java.util.HashSet
        return java_added_order(self._statuses.topics.get(name, set()))

    async def reset_connector_active_topics(self, name: str) -> None:
        self._statuses.reset_topics(name)  # as Connect, for a connector it does not know too (202)

    # -- signals -------------------------------------------------------------------------------------
    async def submit_signal(self, name: str, signal_id: str, kind: str, data: str | None) -> None:
        self._get(name)
        try:
            taken = self._worker.submit_signal(name, signal_id, kind, data)
        except PermissionError as e:
            raise BadRequestError(str(e)) from None
        if not taken:
            raise ConflictError(f"Connector {name} has no running task in this worker")
        log.info("signal %s (%s) handed to %d task(s) of connector %s", signal_id, kind, taken, name)

    # -- offsets -------------------------------------------------------------------------------------
    async def connector_offsets(self, name: str) -> list[ConnectorOffset]:
        c = self._get(name)
        stored = (await self._connector_offsets(c)).connector_offsets(name)
        # Connect collects them in a `new HashMap<>(partitions.size())` keyed by partition: listed in its order
        order = java_hashmap_order(
            dict.fromkeys(range(len(stored))), hash_fn=lambda i: java_hash(stored[i].partition), capacity=len(stored)
        )
        return [ConnectorOffset(stored[i].partition, stored[i].offset) for i in order]

    async def _connector_offsets(self, c: ConnectorRecord) -> OffsetBackingStore:
        """The connector's offsets: its own offsets.storage.topic first, when it has one."""
        return await self._worker.offsets_for(c.config)

    def _stopped(self, name: str) -> ConnectorRecord:
        """The connector, when its offsets may be changed: it is STOPPED and none of its tasks runs."""
        c = self._get(name)
        if self._target(name) is not TargetState.STOPPED or self._worker.tasks(name):
            raise not_stopped_error(name)
        return c

    async def _alter(self, c: ConnectorRecord, offsets: list[ConnectorOffset], *, reset: bool) -> str:
        store = await self._connector_offsets(c)
        return await alter_offsets(self._worker, store, c.name, c.config, offsets, reset=reset, redact=self._redact)

    async def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        async with self._lock:
            c = self._stopped(name)
            if not offsets:
                raise BadRequestError("Partitions / offsets need to be provided for an alter offsets request")
            return await self._alter(c, offsets, reset=False)

    async def reset_connector_offsets(self, name: str) -> str:
        async with self._lock:
            c = self._stopped(name)
            known = (await self._connector_offsets(c)).known_partitions(name)
            partitions = [ConnectorOffset(p, None) for p in known]
            return await self._alter(c, partitions, reset=True)

    # -- metrics ---------------------------------------------------------------------------------------
    def metric_samples(self) -> Iterable[Sample]:
        """Worker-level metrics (Connect's connect-worker-metrics and connector status), read at scrape time."""
        return status_samples(self._connectors)
