"""The Worker, as Kafka Connect has it: the connector instances and source tasks this process runs, and what
they are built from (plugins, config providers, converters, the transformation chain, producers with their
`producer.override.*`). The herder decides what runs (configs, target states, statuses, restarts); the Worker
runs it. A connector's config is resolved through the config providers once per start, and its tasks are
built from that resolution.
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import math
from collections.abc import Callable, Mapping
from typing import Any, Protocol

from connect_worker.api import (
    ConfigError,
    ConnectError,
    Converter,
    HeaderConverter,
    PluginType,
    SourceConnector,
    SourceTask,
)
from connect_worker.api.connector import OffsetStorageReader
from connect_worker.api.javacompat import CONNECT_JDK, java_hashmap_order
from connect_worker.kafka.admin import TopicAdmin
from connect_worker.kafka.producer import AsyncProducer
from connect_worker.runtime.config_providers import ConfigTransformer, reverse_transform
from connect_worker.runtime.exactly_once_task import (
    POLL,
    ExactlyOnceWorkerSourceTask,
    TransactionSettings,
    transactional_id,
    transactional_producer,
)
from connect_worker.runtime.herder import ConnectorTaskId
from connect_worker.runtime.logging_setup import log_context
from connect_worker.runtime.metrics import WorkerMetrics
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.source_task import TaskSettings, TaskStatusListener, Transform, WorkerSourceTask
from connect_worker.runtime.topic_creation import TopicCreator, parse_groups
from connect_worker.runtime.worker_config import WorkerConfig
from connect_worker.storage.connector_offsets import ConnectorOffsets
from connect_worker.storage.offsets import ConnectorOffsetReader, OffsetStore

log = logging.getLogger(__name__)

TransformFactory = Callable[[Mapping[str, str]], Transform]
ProducerFactory = Callable[[str, Mapping[str, str]], AsyncProducer]


def with_task_class(generated: Mapping[str, str], task_class: str) -> dict[str, str]:
    """A generated task config as Worker.connectorTaskConfigs builds it: copied into a `new HashMap<>(taskProps)`
    (so in that map's order), then `task.class` put."""
    copied = java_hashmap_order(generated, copy_constructor=True, jdk=CONNECT_JDK)
    return java_hashmap_order({**copied, "task.class": task_class}, capacity=math.ceil(len(copied) / 0.75))


def present(config: Mapping[str, str | None]) -> dict[str, str]:
    """A stored config as a connector sees it: a key whose value is null is unset."""
    return {k: v for k, v in config.items() if v is not None}


class ConnectorCallbacks(Protocol):
    """What a connector's context forwards to the herder (Connect's HerderConnectorContext)."""

    def request_task_reconfiguration(self) -> None: ...

    def raise_error(self, error: BaseException) -> None: ...


class _SourceConnectorContext:
    """The context a connector is initialized with: the herder's callbacks and a reader of the connector's own
    offsets (Connect's WorkerSourceConnectorContext)."""

    def __init__(self, callbacks: ConnectorCallbacks, reader: OffsetStorageReader) -> None:
        self._callbacks = callbacks
        self._reader = reader

    def request_task_reconfiguration(self) -> None:
        self._callbacks.request_task_reconfiguration()

    def raise_error(self, error: BaseException) -> None:
        self._callbacks.raise_error(error)

    @property
    def offset_storage_reader(self) -> OffsetStorageReader:
        return self._reader


@dataclasses.dataclass
class _Running:
    """A started connector: its instance, the config it was started with (resolved once), its tasks."""

    instance: SourceConnector | None  # None: the connector failed to (re)start while its tasks ran on
    stored: dict[str, str]  # as the config topic keeps it (placeholders unresolved)
    resolved: dict[str, str]
    tasks: dict[int, WorkerSourceTask] = dataclasses.field(default_factory=dict)
    offsets: ConnectorOffsets | None = None  # its offsets (its own offsets.storage.topic, or the worker's)


class Worker:
    def __init__(
        self,
        *,
        config: WorkerConfig,
        registry: PluginRegistry,
        admin: TopicAdmin,
        offsets: OffsetStore,
        producer_factory: ProducerFactory,
        transform_factory: TransformFactory,
        transformer: ConfigTransformer,
        metrics: WorkerMetrics | None = None,
    ) -> None:
        self._config = config
        self._registry = registry
        self._admin = admin
        self._offsets = offsets
        self._producer_factory = producer_factory
        self._transform_factory = transform_factory
        self._transformer = transformer
        self._metrics = metrics
        self._running: dict[str, _Running] = {}
        #: distributed mode: whether this worker's membership is confirmed (its tasks produce only while it is)
        self.produce_gate: Callable[[], bool] | None = None
        self._topic_stores: dict[str, OffsetStore] = {}  # connectors' own offsets topics, by name

    # -- config providers ----------------------------------------------------------------------------------
    def resolve(self, config: Mapping[str, str | None]) -> dict[str, str]:
        """`config` with its provider placeholders resolved (ConfigError naming any that cannot be); keys whose
        value is null are left out, as unset."""
        given = present(config)
        return self._transformer.resolve(given) if self._transformer else given

    def _stored_task_config(self, raw: Mapping[str, str], cfg: Mapping[str, str]) -> dict[str, str]:
        """A task config as the config topic keeps it: placeholders put back (reverseTransform, in its HashMap's
        order: what a standalone worker answers, measured on Connect 4.3.1's ConnectStandalone), and any other
        value that embeds a resolved secret written with its placeholder (resolved again at task start)."""
        (restored,) = reverse_transform(raw, [cfg])
        redact = self._transformer.redactor.redact
        return {k: v if raw.get(k) == v else redact(v) for k, v in restored.items()}

    # -- connectors ----------------------------------------------------------------------------------------
    def is_running(self, name: str) -> bool:
        running = self._running.get(name)
        return running is not None and running.instance is not None

    def connector_version(self, config: Mapping[str, str | None]) -> str | None:
        """The version of the connector plugin the config names (None when there is no such plugin)."""
        try:
            version: str = self._registry.connector_class(config.get("connector.class") or "")().version()
        except Exception:  # noqa: BLE001 - an unknown or broken plugin has no version to report
            return None
        return version

    async def start_connector(self, name: str, config: Mapping[str, str | None], callbacks: ConnectorCallbacks) -> str:
        """Create, initialize and start the connector (stopping a running instance of it first); its version.
        Raises what creating or starting it raised."""
        await self.stop_connector_instance(name)
        previous = self._running.pop(name, None)
        tasks = previous.tasks if previous is not None else {}
        try:
            instance: SourceConnector = self._registry.connector_class(config.get("connector.class") or "")()
            version = instance.version()
            resolved = self.resolve(config)
            offsets = await self.offsets_for(resolved)
            instance.initialize(_SourceConnectorContext(callbacks, ConnectorOffsetReader(offsets, name)))
            with log_context(name):
                await instance.start(resolved)
        except BaseException:
            if tasks:
                self._running[name] = _Running(None, present(config), {}, tasks)
            raise
        self._running[name] = _Running(instance, present(config), resolved, tasks, offsets)
        return version

    async def offsets_for(self, config: Mapping[str, str | None]) -> ConnectorOffsets:
        """A connector's offsets: its own `offsets.storage.topic` (created compacted when missing, read once per
        worker) before the worker's, or the worker's alone."""
        key = "offsets.storage.topic"
        topic = self.resolve({key: config.get(key)}).get(key, "").strip()  # its value may be a placeholder
        if not topic or topic == self._offsets.topic:
            return ConnectorOffsets(self._offsets)
        own = self._topic_stores.get(topic)
        if own is None:
            own = self._offsets.sibling(topic)
            await own.start()
            self._topic_stores[topic] = own
        return ConnectorOffsets(self._offsets, own)

    def task_configs(self, name: str) -> list[dict[str, str]]:
        """The task configs the running connector generates (with `task.class`), as the config topic keeps them;
        ConfigError when it generates more than `tasks.max` (unless `tasks.max.enforce=false`)."""
        running = self._running[name]
        assert running.instance is not None
        tasks_max = int(running.resolved.get("tasks.max", "1"))
        with log_context(name):
            configs = running.instance.task_configs(tasks_max)
        if len(configs) > tasks_max and running.resolved.get("tasks.max.enforce", "true").lower() != "false":
            raise ConfigError(
                f"The connector {name} has generated {len(configs)} tasks, which is greater than "
                f"{tasks_max}, the maximum number of tasks it is configured to create. "
            )
        task_class = running.instance.task_class_name()
        return [self._stored_task_config(running.stored, with_task_class(cfg, task_class)) for cfg in configs]

    async def stop_connector_instance(self, name: str) -> None:
        """Stop the connector instance, leaving its tasks running."""
        running = self._running.get(name)
        if running is None or running.instance is None:
            return
        try:
            with log_context(name):
                await running.instance.stop()
        except Exception as e:  # noqa: BLE001 - a connector that fails to stop is gone all the same
            log.warning("connector %s failed to stop cleanly: %s", name, self._transformer.redactor.redact(str(e)))
        running.instance = None
        if not running.tasks:
            del self._running[name]

    async def stop_connector(self, name: str) -> None:
        """Stop the connector's tasks, then the connector."""
        await self.stop_tasks(name)
        await self.stop_connector_instance(name)
        self._running.pop(name, None)

    async def alter_offsets(self, config: Mapping[str, str | None], offsets: Mapping[Any, Any]) -> bool:
        """SourceConnector.alterOffsets of a connector of this config (a new, unstarted instance)."""
        cls = self._registry.connector_class(config.get("connector.class") or "")
        return bool(await cls().alter_offsets(self.resolve(config), offsets))

    # -- tasks ---------------------------------------------------------------------------------------------
    def tasks(self, name: str) -> dict[int, WorkerSourceTask]:
        running = self._running.get(name)
        return running.tasks if running is not None else {}

    async def start_task(
        self,
        task_id: ConnectorTaskId,
        props: Mapping[str, str],
        listener: TaskStatusListener,
        *,
        paused: bool,
        connector_config: Mapping[str, str | None] | None = None,
    ) -> None:
        """Build the task with its converters, transformations and producer from the connector's resolved
        config, and start it. Raises what building it raised. `connector_config`: the connector's config, for a
        task whose connector runs on another worker (distributed mode)."""
        running = self._running.get(task_id.connector)
        if (running is None or running.instance is None) and connector_config is not None:
            resolved = self.resolve(connector_config)
            tasks = running.tasks if running is not None else {}
            running = _Running(None, present(connector_config), resolved, tasks, await self.offsets_for(resolved))
            self._running[task_id.connector] = running
        if running is None:
            raise ConnectError(f"Connector {task_id.connector} does not run in this worker")
        config = running.resolved
        task_class = (
            running.instance.task_class()
            if running.instance is not None
            else self._registry.connector_class(config.get("connector.class") or "")().task_class()
        )
        task: SourceTask = task_class()
        key_conv = self._converter(config, "key")
        value_conv = self._converter(config, "value")
        header_conv = self._converter(config, "header")
        assert isinstance(key_conv, Converter) and isinstance(value_conv, Converter)
        assert isinstance(header_conv, HeaderConverter)
        transform = self._transform_factory(config)
        groups = parse_groups(config) if self._config["topic.creation.enable"] else None
        overrides = {k[len("producer.override.") :]: v for k, v in config.items() if k.startswith("producer.override.")}
        exactly_once = str(self._config["exactly.once.source.support"]).lower() == "enabled"
        transaction_timeout_s = 0.0
        if exactly_once:
            transactional = transactional_id(self._config["group.id"], task_id.connector, task_id.task)
            overrides, transaction_timeout_s = transactional_producer(
                overrides, self._config.prefixed("producer."), transactional
            )
        producer = self._producer_factory(f"connector-producer-{task_id.connector}-{task_id.task}", overrides)
        producer.start()
        settings = TaskSettings(
            flush_interval_s=self._config["offset.flush.interval.ms"] / 1000,
            tolerate_errors=config.get("errors.tolerance", "none").lower() == "all",
            log_errors=config.get("errors.log.enable", "false").lower() == "true",
            log_error_messages=config.get("errors.log.include.messages", "false").lower() == "true",
            shutdown_timeout_s=self._config["task.shutdown.graceful.timeout.ms"] / 1000,
            retry_timeout_ms=int(config.get("errors.retry.timeout", 0)),
            retry_delay_max_ms=int(config.get("errors.retry.delay.max.ms", 60000)),
        )
        extra: dict[str, Any] = {}
        task_cls: type[WorkerSourceTask] = WorkerSourceTask
        if exactly_once:
            task_cls = ExactlyOnceWorkerSourceTask
            interval_ms = config.get("transaction.boundary.interval.ms") or self._config["offset.flush.interval.ms"]
            extra["transactions"] = TransactionSettings(
                boundary=config.get("transaction.boundary", POLL).lower(),
                interval_s=int(interval_ms) / 1000,
                timeout_s=transaction_timeout_s,
            )
        worker_task = task_cls(
            task_id,
            task,
            self.resolve(props),
            key_converter=key_conv,
            value_converter=value_conv,
            header_converter=header_conv,
            transform=transform,
            producer=producer,
            offset_store=running.offsets or ConnectorOffsets(self._offsets),
            listener=listener,
            topics=TopicCreator(self._admin, groups),
            settings=settings,
            metrics=self._metrics.task_group(task_id.connector, task_id.task) if self._metrics is not None else None,
            gate=self.produce_gate,
            **extra,
        )
        running.tasks[task_id.task] = worker_task
        worker_task.start(paused=paused)

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

    async def stop_task(self, task_id: ConnectorTaskId) -> None:
        task = self.tasks(task_id.connector).pop(task_id.task, None)
        if task is not None:
            await task.stop()
        running = self._running.get(task_id.connector)
        if running is not None and running.instance is None and not running.tasks:
            del self._running[task_id.connector]

    async def stop_tasks(self, name: str) -> None:
        tasks = self.tasks(name)
        stopping = list(tasks.values())
        tasks.clear()
        await asyncio.gather(*(t.stop() for t in stopping))

    def pause_tasks(self, name: str) -> None:
        for t in self.tasks(name).values():
            t.pause()

    def resume_tasks(self, name: str) -> None:
        for t in self.tasks(name).values():
            t.resume()

    def submit_signal(self, name: str, signal_id: str, kind: str, data: str | None) -> int:
        """Hand a signal to each of the connector's tasks that has not failed (SourceTask.submit_signal, our
        stand-in for Debezium's per-task JMX signal channel); how many took it. Raises what a task raised."""
        running = [t for t in self.tasks(name).values() if not t.failed]
        for t in running:
            with log_context(name, t.id.task):
                t.task.submit_signal(signal_id, kind, data)
        return len(running)


__all__ = ["ConnectorCallbacks", "ProducerFactory", "TransformFactory", "Worker", "present"]
