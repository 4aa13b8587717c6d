"""The distributed herder (Connect's DistributedHerder): one worker of a cluster whose members share the config,
offsets and status topics and meet in Kafka's group coordinator (runtime/worker_group.py).

What each worker does:
  - follows the config topic (every worker writes it through the leader) and the status topic (every worker's
    statuses), and answers REST reads from them;
  - runs the connectors and tasks the leader assigned it, and reacts to config records for them: a changed
    connector config restarts the connector, new task configs restart its tasks, target states pause, resume and
    stop them, restart requests restart them;
  - sends writes (create, reconfigure, pause/resume/stop, delete, restart, offsets) to the leader (NotLeaderError:
    the REST layer forwards), which writes the config topic; a worker running a connector hands the task configs it
    generates to the leader (`POST /connectors/{c}/tasks`).
Only the leader writes the config topic, so its records stay in one order.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar
from urllib.parse import quote

from connect_worker.api import AlreadyExistsError, BadRequestError, ConnectError, NotFoundError
from connect_worker.api.errors import ForbiddenError, UnavailableError
from connect_worker.api.javacompat import java_added_order, java_hashmap_order
from connect_worker.runtime.assignor import Configured, configured_from
from connect_worker.runtime.connect_protocol import Assignment
from connect_worker.runtime.connector_status import ConnectorRecord
from connect_worker.runtime.herder import (
    ConnectorInfo,
    ConnectorOffset,
    ConnectorState,
    ConnectorStateInfo,
    ConnectorTaskId,
    NotLeaderError,
    State,
    TargetState,
    TaskState,
)
from connect_worker.runtime.inter_worker import http_request
from connect_worker.runtime.offsets_request import not_stopped_error
from connect_worker.runtime.request_signature import (
    DEFAULT_KEY_BYTES,
    RequestSignature,
    SessionKey,
    new_key,
    signature_headers,
)
from connect_worker.runtime.restart_plan import RestartRequest, restart_plan
from connect_worker.runtime.standalone_herder import StandaloneHerder
from connect_worker.runtime.validation import invalid_config_message
from connect_worker.runtime.worker_group import RebalanceListener, WorkerGroupMember
from connect_worker.storage.configs import ConfigStore
from connect_worker.storage.offsets import OffsetStore
from connect_worker.storage.status import StatusStore

log = logging.getLogger(__name__)
V = TypeVar("V", str, str | None)


class DistributedHerder(StandaloneHerder, RebalanceListener):
    def __init__(
        self,
        *,
        member_factory: Callable[[RebalanceListener], WorkerGroupMember],
        configs: ConfigStore,
        statuses: StatusStore,
        offsets: OffsetStore,
        **kwargs: Any,
    ) -> None:
        super().__init__(configs=configs, statuses=statuses, **kwargs)
        self._store = configs  # followed, with what the standalone herder does not use (offset, session key, …)
        self._status_store = statuses  # followed: every worker's statuses
        self.member = member_factory(self)
        self._offsets = offsets  # followed: tasks start from the last commit, wherever it was made
        self._member_task: asyncio.Task[None] | None = None
        self._key_task: asyncio.Task[None] | None = None
        self._assigned_connectors: set[str] = set()
        # the tasks running here: the task config and the connector config each was built from
        self._assigned_tasks: dict[ConnectorTaskId, tuple[dict[str, str], dict[str, str | None]]] = {}
        self._known: set[str] = set()  # connectors the config topic names (to tell an addition from a change)
        self.task_starts: dict[ConnectorTaskId, int] = {}  # how many times each task was started here
        self._halting = False  # stopping: nothing more is started
        self._publishing: dict[str, asyncio.Task[None]] = {}  # per connector: its task configs on the way
        self._write_lock = asyncio.Lock()  # the leader's connector creation: check and write as one
        self.failure: BaseException | None = None

    # -- lifecycle --------------------------------------------------------------------------------------
    async def start(self) -> None:
        self._cluster_id = await self._admin.cluster_id()
        self._known = set(self._store.snapshot.connectors)
        await self._store.follow(self._config_changed)
        await self._status_store.follow()
        await self._offsets.follow()
        loop = asyncio.get_running_loop()
        self._member_task = loop.create_task(self._membership(), name="group-membership")
        self._key_task = loop.create_task(self._session_keys(), name="session-keys")

    async def _membership(self) -> None:
        try:
            await self.member.run()
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # noqa: BLE001 - kept for health and the log
            self.failure = e
            log.error("this worker left its cluster: %s; stopping its work", e)
            await self.member.stop_work()  # not a member any more: others will run it

    def health(self) -> tuple[str, str]:
        if self.failure is not None:
            return "unhealthy", f"Worker is not a member of its cluster: {self.failure}"
        return super().health()

    async def stop(self) -> None:
        """Stop the work while still a member (heartbeats go on meanwhile), then leave the group: the others
        take the work over at once, and never while it still runs here."""
        self._halting = True
        await self.background.cancel_all()
        async with self._lock:
            await asyncio.gather(*(self._worker.stop_connector(name) for name in list(self._connectors)))
        for task in (self._member_task, self._key_task):
            if task is not None:
                task.cancel()
                await asyncio.gather(task, return_exceptions=True)
        await self.member.stop()
        await self._store.stop()
        await self._status_store.stop()
        await self._offsets.stop()
        await self._statuses.drain()

    # -- the membership's view ----------------------------------------------------------------------------
    def config_offset(self) -> int:
        return self._store.offset

    async def fresh_config(self) -> tuple[int, Configured]:
        await self._store.read_to_end()
        snap = self._store.snapshot
        return self._store.offset, configured_from(snap.connectors, {c: len(t) for c, t in snap.tasks.items()})

    async def on_revoked(self, connectors: Sequence[str], tasks: Sequence[ConnectorTaskId]) -> None:
        async with self._lock:
            await asyncio.gather(*(self._stop_task(t) for t in tasks))
            for name in connectors:
                self._assigned_connectors.discard(name)
                await self._worker.stop_connector_instance(name)
                if name not in self._store.snapshot.connectors:  # deleted: its statuses and active topics go
                    self._statuses.remove_connector(name, self.worker_id)
                    self._statuses.reset_topics(name)
            self._forget_idle()

    async def _stop_task(self, task: ConnectorTaskId) -> None:
        self._assigned_tasks.pop(task, None)
        await self._worker.stop_task(task)
        c = self._connectors.get(task.connector)
        if c is not None:
            c.task_states.pop(task.task, None)
        if task.connector not in self._store.snapshot.connectors:
            self._statuses.remove_task(task.connector, task.task, self.worker_id)

    def _forget_idle(self) -> None:
        """Drop the records of connectors nothing of which runs here any more."""
        busy = self._assigned_connectors | {t.connector for t in self._assigned_tasks}
        for name in [n for n in self._connectors if n not in busy]:
            del self._connectors[name]

    def on_assigned(self, assignment: Assignment, generation: int) -> None:
        self._status_store.generation = generation
        self.background.start(self._reconcile(assignment), name=f"assignment {generation}")

    async def _reconcile(self, assignment: Assignment) -> None:
        """Start what the assignment gives this worker and does not run here yet."""
        async with self._lock:
            if self._halting or assignment is not self.member.assignment:
                return  # stopping, or a newer assignment came meanwhile (it is reconciled by its own call)
            missing = [t for t in assignment.tasks if t not in self._assigned_tasks]
            if any(t.task >= len(self._store.snapshot.tasks.get(t.connector, [])) for t in missing):
                with contextlib.suppress(ConnectError):  # those still without a config are logged below
                    await self._store.read_to_end()
            snap = self._store.snapshot
            for name in assignment.connectors:
                if name not in self._assigned_connectors and name in snap.connectors:
                    self._assigned_connectors.add(name)
                    self._record(name)
                    await self._start_connector(name)
            for t in missing:
                await self._start_assigned_task(t)
            self._started = True
            if self.member.is_leader:
                self._drop_removed_task_statuses()

    def _drop_removed_task_statuses(self) -> None:
        """The leader's clean-up after a rebalance (Connect's updateDeletedTaskStatus): the statuses of tasks the
        config topic no longer holds (a stopped connector's, those a reconfiguration dropped) are removed, so
        they are no longer found."""
        configured = self._store.snapshot.tasks
        for name, task in list(self._status_store.task_states):
            if task >= len(configured.get(name, [])):
                self._statuses.remove_task(name, task, self.worker_id)

    async def _start_configured_tasks(self, c: ConnectorRecord) -> None:
        """Tasks start where the assignment puts them, not with their connector."""

    def _record(self, name: str) -> ConnectorRecord:
        """The local record of a connector something of which runs here, its config as the topic has it now."""
        cfg = dict(self._store.snapshot.connectors.get(name, {}))
        c = self._connectors.get(name)
        if c is None:
            c = self._connectors[name] = ConnectorRecord(name, cfg)
        else:
            c.config = cfg
        return c

    async def _start_assigned_task(self, t: ConnectorTaskId) -> None:
        props_list = self._store.snapshot.tasks.get(t.connector, [])
        if t.task >= len(props_list):
            log.warning("task %s assigned, but the config topic has no config for it; not started", t)
            return
        props = props_list[t.task]
        try:
            await self._offsets.read_to_end()  # the task starts from what its last owner committed, wherever it ran
        except ConnectError as e:  # started all the same: from an older commit at worst (duplicates, no loss)
            log.warning("task %s starts without the offsets topic read to its end: %s", t, e)
        c = self._record(t.connector)
        self._assigned_tasks[t] = (props, dict(c.config))
        self.task_starts[t] = self.task_starts.get(t, 0) + 1
        c.task_states[t.task] = (State.UNASSIGNED, None)
        try:
            await self._worker.start_task(
                t, props, self, paused=self._target(t.connector) is TargetState.PAUSED, connector_config=c.config
            )
        except Exception as e:  # noqa: BLE001
            log.error("task %s could not be created: %s", t, self._redact(str(e)))
            self._set_task_state(t, State.FAILED, self._trace(e))

    # -- the connector's tasks: generated where the connector runs, written by the leader -----------------
    async def _generate_and_start_tasks(self, c: ConnectorRecord) -> None:
        self._publish(c.name)

    async def reconfigure_tasks(self, name: str) -> None:
        if self._worker.is_running(name):
            self._publish(name)

    def _publish(self, name: str) -> None:
        """Hand the connector's task configs to the leader when Connect's rule says they changed (their number or
        content, or the connector's config since they were committed: the tasks restart with it): one hand-over
        per connector at a time, the newest replacing one still retrying (so an older set never lands after a
        newer one)."""
        previous = self._publishing.pop(name, None)
        if previous is not None:
            previous.cancel()
        task = asyncio.get_running_loop().create_task(self._publish_task_configs(name), name=f"task configs {name}")
        self._publishing[name] = task

        def done(t: asyncio.Task[None]) -> None:
            if self._publishing.get(name) is t:
                del self._publishing[name]
            if not t.cancelled() and t.exception() is not None:
                log.error("task configs of %s: %s", name, t.exception())

        task.add_done_callback(done)

    async def _publish_task_configs(self, name: str) -> None:
        """Generate the task configs and have the leader write them, until it is done (retrying without end, as
        Connect does, with the configs generated again each time), or the connector no longer runs here (a
        paused or stopped connector does not run)."""
        delay = 0.25
        attempt = 0
        while True:
            c = self._connectors.get(name)
            if (
                self._halting
                or c is None
                or name not in self._assigned_connectors
                or not self._worker.is_running(name)
                or self._target(name) is TargetState.STOPPED
            ):
                return
            try:
                configs = self._worker.task_configs(name)
            except Exception as e:  # noqa: BLE001 - the connector's own failure
                self._set_connector_state(c, State.FAILED, self._trace(e))
                return
            if not self._store.snapshot.task_configs_changed(name, configs):
                return
            attempt += 1
            try:
                if self.member.is_leader:
                    if name in self._store.snapshot.connectors:
                        await self._store.put_task_configs(name, configs)
                    return
                leader = self.member.leader_url
                if leader is not None:
                    body = json.dumps(configs).encode()
                    url = f"{leader.rstrip('/')}/connectors/{quote(name, safe='')}/tasks"
                    headers = {"Content-Type": "application/json", **self._signed(body)}
                    status, answer, _ = await asyncio.to_thread(http_request, url, "POST", headers, body, 30.0)
                    if status < 300:
                        return
                    raise ConnectError(f"the leader answered {status}: {answer[:300].decode(errors='replace')}")
            except (OSError, ConnectError) as e:
                log.warning("task configs of %s not handed to the leader (attempt %d): %s", name, attempt, e)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 30.0)

    # -- signed inter-worker requests (the sessioned protocol) ----------------------------------------------
    def _session_key(self) -> SessionKey | None:
        return SessionKey.from_json(self._store.snapshot.session_key)

    def _signed(self, body: bytes) -> dict[str, str]:
        """The signature headers of an internal request, when the group runs the sessioned protocol."""
        if not self.member.sessioned:
            return {}
        key = self._session_key()
        if key is None:
            raise UnavailableError("no session key read from the config topic yet to sign an internal request with")
        return signature_headers(key, self._config["inter.worker.signature.algorithm"], body)

    def _verify(self, signature: RequestSignature | None) -> None:
        """Connect's checks of an internal request's signature, with its answers (400, 503, 403)."""
        if not self.member.sessioned:
            return
        if signature is None:
            raise BadRequestError("Internal request missing required signature")
        allowed = self._config["inter.worker.verification.algorithms"]
        if signature.algorithm not in allowed:
            raise BadRequestError(
                f"This worker does not support the '{signature.algorithm}' key signing algorithm used by other "
                f"workers. This worker is currently configured to use: [{', '.join(allowed)}]. Check that all "
                "workers' configuration files permit the same set of signature algorithms, and correct any "
                "misconfigured worker and restart it."
            )
        key = self._session_key()
        if key is None:
            raise UnavailableError(
                "This worker is still starting up and has not been able to read a session key from the config topic yet"
            )
        if not signature.valid(key):
            raise ForbiddenError("Internal request contained invalid signature.")

    async def _session_keys(self) -> None:
        """The leader of a sessioned group keeps a session key in the config topic, renewed every
        `inter.worker.key.ttl.ms` (and at once when the configured algorithm or size changes)."""
        while True:
            await asyncio.sleep(1.0)
            if not (self.member.sessioned and self.member.is_leader):
                continue
            config = self._config
            algorithm, size = config["inter.worker.key.generation.algorithm"], config["inter.worker.key.size"]
            ttl = config["inter.worker.key.ttl.ms"]
            now = int(time.time() * 1000)
            key = self._session_key()
            due = (
                key is None
                or (ttl > 0 and now > key.created_ms + ttl)
                or key.algorithm != algorithm
                or len(key.key) != (DEFAULT_KEY_BYTES[algorithm] if size is None else size // 8)
            )
            if not due:
                continue
            try:
                await self._store.put_session_key(new_key(algorithm, size, now).to_json())
                log.info("new session key written to the config topic (%s)", algorithm)
            except ConnectError as e:
                log.warning("could not write a new session key: %s", e)

    async def put_task_configs(
        self, name: str, configs: list[dict[str, str]], signature: RequestSignature | None = None
    ) -> None:
        self._verify(signature)  # on whichever worker receives it, as Connect does
        await self._as_leader()
        if name not in self._store.snapshot.connectors:
            raise NotFoundError(f"Connector {name} not found")
        await self._store.put_task_configs(name, configs)

    # -- config records (every worker reads them all) -------------------------------------------------------
    def _config_changed(self, key: str, value: Any) -> None:
        if key.startswith("connector-"):
            name = key[len("connector-") :]
            if value is None or name not in self._known:
                (self._known.discard if value is None else self._known.add)(name)
                self.member.request_rejoin()  # a connector added or removed: the leader assigns again
            elif name in self._assigned_connectors:
                self.background.start(self._restart_connector_instance(name), name=f"reconfigure {name}")
        elif key.startswith("commit-"):
            name = key[len("commit-") :]
            self.member.request_rejoin()  # the number of tasks may have changed
            self.background.start(self._task_configs_changed(name), name=f"task configs {name}")
        elif key.startswith("target-state-"):
            name = key[len("target-state-") :]
            self.background.start(self._target_state_changed(name), name=f"target state {name}")
        elif key.startswith("restart-connector-") and isinstance(value, dict):
            name = key[len("restart-connector-") :]
            request = RestartRequest(bool(value.get("include-tasks")), bool(value.get("only-failed")))
            self.background.start(self._restart_here(name, request), name=f"restart {name}")

    async def _restart_connector_instance(self, name: str) -> None:
        async with self._lock:
            if name in self._assigned_connectors:
                self._record(name)
                await self._start_connector(name)  # (tasks restart with the new config: _publish's rule)
                log.info("connector %s restarted with its new config", name)

    async def _task_configs_changed(self, name: str) -> None:
        """Tasks running here whose config, or whose connector's config, changed start again with the new one."""
        async with self._lock:
            configs = self._store.snapshot.tasks.get(name, [])
            connector_config = self._store.snapshot.connectors.get(name)
            for t, built_from in list(self._assigned_tasks.items()):
                if t.connector != name or t.task >= len(configs):
                    continue
                if built_from != (configs[t.task], connector_config):
                    await self._stop_task(t)
                    await self._start_assigned_task(t)

    async def _target_state_changed(self, name: str) -> None:
        async with self._lock:
            target = self._target(name)
            c = self._connectors.get(name)
            if c is None:
                return
            if name in self._assigned_connectors:
                if target is TargetState.STARTED:
                    if not self._worker.is_running(name):
                        await self._start_connector(name)
                elif target is TargetState.STOPPED or c.state in (State.RUNNING, State.STOPPED):
                    # stopped, paused: Connect runs a connector only while STARTED (a FAILED one stays FAILED
                    # when paused)
                    await self._instance_to_target(c)
            if target is TargetState.PAUSED:
                self._worker.pause_tasks(name)
            elif target is TargetState.STARTED:
                self._worker.resume_tasks(name)

    async def _restart_here(self, name: str, request: RestartRequest) -> None:
        async with self._lock:
            c = self._connectors.get(name)
            if c is None:
                return
            if name in self._assigned_connectors and request.restarts_connector(c.state):
                c.trace = None
                await self._start_connector(name)
            for t in [t for t in self._assigned_tasks if t.connector == name]:
                state = c.task_states.get(t.task, (State.UNASSIGNED, None))[0]
                if request.restarts_task(state):
                    await self._stop_task(t)
                    await self._start_assigned_task(t)

    # -- reads, from the topics ---------------------------------------------------------------------------
    async def connector_offsets(self, name: str) -> list[ConnectorOffset]:
        await self._offsets.read_to_end()
        return await super().connector_offsets(name)

    def _get(self, name: str, message: str | None = None) -> ConnectorRecord:
        cfg = self._store.snapshot.connectors.get(name)
        if cfg is None:
            raise NotFoundError(message or f"Connector {name} not found")
        return ConnectorRecord(name, self._as_read(cfg))

    @staticmethod
    def _as_read(config: Mapping[str, V]) -> dict[str, V]:
        """A config as read back from the config topic: Connect's JsonConverter puts it into a java.util.HashMap
        (so a distributed worker answers it in that map's order, measured in test_rest_lifecycle)."""
        return java_hashmap_order(config)

    async def connectors(self) -> list[str]:
        return java_added_order(self._store.snapshot.connectors)

    async def connector_status(self, name: str) -> ConnectorStateInfo:
        c = self._get(name, f"No status found for connector {name}")
        states = self._status_store.connector_states
        raw = states.get(name)
        if raw is None:
            raise NotFoundError(f"No status found for connector {name}")
        connector = ConnectorState(State(raw["state"]), raw.get("worker_id", ""), raw.get("trace"), raw.get("version"))
        tasks: list[TaskState] = []
        if self._target(name) is not TargetState.STOPPED:
            for i in range(len(self._store.snapshot.tasks.get(name, []))):
                try:
                    tasks.append(await self.task_status(name, i))
                except NotFoundError:
                    continue
        return ConnectorStateInfo(name, connector, tuple(tasks), self._type(c))

    async def task_status(self, name: str, task: int) -> TaskState:
        raw = self._status_store.task_states.get((name, task))
        # A task the config topic no longer holds (a stopped connector's) has no status, as the leader's clean-up
        # after the rebalance will have it (_drop_removed_task_statuses); not found until then either.
        if raw is None or task >= len(self._store.snapshot.tasks.get(name, [])):
            raise NotFoundError(f"No status found for task {name}-{task}")
        return TaskState(State(raw["state"]), raw.get("worker_id", ""), raw.get("trace"), raw.get("version"), id=task)

    # -- writes: the leader's ------------------------------------------------------------------------------
    async def _settled(self, timeout: float = 60.0) -> None:
        """Wait for a rebalance under way to end before deciding who answers a write (Connect's herder queues
        requests during a rebalance); after `timeout` the request gets the 409 of a cluster without a leader."""
        await self.member.wait_stable(timeout)

    async def _as_leader(self) -> None:
        """A write only the leader carries out: once no rebalance is under way, here or forwarded there."""
        await self._settled()
        self._require_leader()

    def _require_leader(self) -> None:
        if not self.member.is_leader:
            raise NotLeaderError("Cannot complete request because worker is not leader", self.member.leader_url)

    async def put_connector_config(
        self,
        name: str,
        config: Mapping[str, str | None],
        *,
        allow_replace: bool,
        initial_state: TargetState | None = None,
    ) -> tuple[bool, ConnectorInfo]:
        await self._as_leader()
        async with self._write_lock:  # a second create of the same name waits, then finds it exists
            exists = name in self._store.snapshot.connectors
            if exists and not allow_replace:
                raise AlreadyExistsError(f"Connector {name} already exists")
            cfg = dict(config)
            cfg.setdefault("name", name)
            infos = await self.validate_connector_config(None, cfg)
            if infos.error_count:
                raise BadRequestError(invalid_config_message(infos))
            await self._as_leader()  # validation may take long: still the leader (after a rebalance begun since)?
            info = self._info(ConnectorRecord(name, cfg))  # its tasks as configured before (a new one has none)
            await self._store.put_connector_config(name, cfg, None if exists else initial_state)
            return not exists, info

    async def delete_connector(self, name: str) -> None:
        await self._as_leader()
        self._get(name)
        await self._store.remove_connector(name)
        self._statuses.reset_topics(name)  # as the revocation that follows does (KIP-558), without waiting for it
        log.info("connector %s deleted", name)

    # pause and resume are written by the worker asked, as Connect's AbstractHerder does (no leader needed)
    async def pause_connector(self, name: str) -> None:
        await self._store.read_to_end()
        self._get(name, f"Unknown connector {name}")
        await self._store.put_target_state(name, TargetState.PAUSED)

    async def resume_connector(self, name: str) -> None:
        self._get(name, f"Unknown connector {name}")
        await self._store.put_target_state(name, TargetState.STARTED)

    async def stop_connector(self, name: str) -> None:
        await self._as_leader()
        self._get(name, f"Unknown connector {name}")
        await self._store.put_task_configs(name, [])
        await self._store.put_target_state(name, TargetState.STOPPED)

    async def restart_connector(
        self, name: str, *, include_tasks: bool, only_failed: bool
    ) -> ConnectorStateInfo | None:
        await self._as_leader()
        if name not in self._store.snapshot.connectors:
            raise NotFoundError(f"Unknown connector: {name}")
        request = RestartRequest(include_tasks, only_failed)
        plan = None
        if not request.legacy:
            status = await self.connector_status(name)
            restart_tasks = [t.id for t in status.tasks if request.restarts_task(t.state)]
            plan = restart_plan(
                status, connector=request.restarts_connector(status.connector.state), tasks=restart_tasks
            )
        await self._store.put_restart_request(name, include_tasks=include_tasks, only_failed=only_failed)
        return plan

    async def restart_task(self, name: str, task: int) -> None:
        await self._settled()
        t = ConnectorTaskId(name, task)
        assignment = self.member.assignment
        if name not in self._store.snapshot.connectors:
            raise NotFoundError(f"Unknown connector: {name}")
        if task >= len(self._store.snapshot.tasks.get(name, [])):
            raise NotFoundError(f"Unknown task: {t}")
        if assignment is None or t not in assignment.tasks:  # (not what runs now: a restart may be under way)
            owner = self._status_store.task_states.get((name, task), {}).get("worker_id")
            scheme = self._config.advertised_listener.scheme
            raise NotLeaderError(f"Task {t} is not assigned to this worker", f"{scheme}://{owner}" if owner else None)
        async with self._lock:
            if t not in self._assigned_tasks:  # revoked while this request waited
                raise NotLeaderError(f"Task {t} is not assigned to this worker", None)
            await self._stop_task(t)
            await self._start_assigned_task(t)

    async def alter_connector_offsets(self, name: str, offsets: list[ConnectorOffset]) -> str:
        await self._settled()
        return await super().alter_connector_offsets(name, offsets)

    async def reset_connector_offsets(self, name: str) -> str:
        await self._settled()
        return await super().reset_connector_offsets(name)

    def _stopped(self, name: str) -> ConnectorRecord:
        """Offsets may change only for a connector STOPPED with no task configs (so no task runs anywhere)."""
        self._require_leader()
        c = self._get(name)
        if self._target(name) is not TargetState.STOPPED or self._store.snapshot.tasks.get(name):
            raise not_stopped_error(name)
        return c
