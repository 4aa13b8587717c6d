"""The composition root: builds the worker's parts from its configuration, runs them, stops them cleanly.

`connect-worker worker.properties [connector.properties|connector.json …]`, like connect-standalone, but
offsets, connector configs and statuses live in Kafka topics, so a restarted worker resumes every connector.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import gc
import json
import logging
import signal
import ssl
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from starlette.middleware import Middleware

from connect_worker.api import ConfigError, ConnectError
from connect_worker.api.config import invalid
from connect_worker.kafka.admin import TopicAdmin
from connect_worker.kafka.group_client import GroupClient
from connect_worker.kafka.producer import SOURCE_PRODUCER_DEFAULTS, AsyncProducer, librdkafka_config
from connect_worker.runtime.connect_protocol import COMPATIBLE, SESSIONED
from connect_worker.runtime.distributed_herder import DistributedHerder
from connect_worker.runtime.herder import TargetState
from connect_worker.runtime.loggers import LoggerAdmin
from connect_worker.runtime.logging_setup import install_redaction
from connect_worker.runtime.metrics import ProcessCollector, WorkerMetrics
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.properties import load_properties
from connect_worker.runtime.request_signature import digest_available
from connect_worker.runtime.standalone_herder import StandaloneHerder
from connect_worker.runtime.transformation_chain import TransformationChain
from connect_worker.runtime.worker import Worker as RuntimeWorker
from connect_worker.runtime.worker_config import DISTRIBUTED_ONLY, HMAC_ALGORITHMS, WorkerConfig
from connect_worker.runtime.worker_group import RebalanceListener, WorkerGroupMember
from connect_worker.storage.configs import ConfigStore
from connect_worker.storage.offsets import OffsetStore
from connect_worker.storage.status import StatusStore
from rest.security import BasicAuthMiddleware, BasicAuthSettings, basic_auth_settings, server_ssl_context
from rest.server import ListenerSpec, RestServer

log = logging.getLogger("connect_worker")

INTERNAL_PRODUCER = {
    "acks": "all",
    "enable.idempotence": True,
    "partitioner": "murmur2_random",
    "linger.ms": 0,
    # the worker creates its internal topics (compacted); a deleted one must not come back uncompacted by a write
    "allow.auto.create.topics": False,
}


def load_connector_file(path: str) -> tuple[str, dict[str, str], TargetState | None]:
    """A connector config from a .properties file or a JSON file ({"name","config"} or a flat map)."""
    if path.endswith(".json"):
        with open(path, encoding="utf-8") as f:
            data = json.load(f)
        if not isinstance(data, dict):
            raise ConfigError(f"{path}: expected a JSON object")
        state = data.get("initial_state")
        config = data.get("config", data) if "config" in data else data
        name = data.get("name") or config.get("name")
        initial = TargetState("STARTED" if str(state).upper() == "RUNNING" else str(state).upper()) if state else None
    else:
        config = load_properties(path)
        name, initial = config.get("name"), None
    if not name:
        raise ConfigError(f"{path}: the connector config has no name")
    return str(name), {str(k): str(v) for k, v in config.items() if k != "initial_state"}, initial


@dataclasses.dataclass(frozen=True, slots=True)
class _RestSecurity:
    auth: BasicAuthSettings | None
    tls: ssl.SSLContext | None
    admin_tls: ssl.SSLContext | None

    @classmethod
    def from_config(cls, config: WorkerConfig) -> _RestSecurity:
        def https(listeners: Sequence[Any] | None) -> bool:
            return any(x.scheme == "https" for x in listeners or ())

        return cls(
            auth=basic_auth_settings(config.raw),
            tls=server_ssl_context(config.raw, "listeners.https.") if https(config.listeners) else None,
            admin_tls=(
                server_ssl_context(config.raw, "admin.listeners.https.") if https(config.admin_listeners) else None
            ),
        )


def _kafka_base(config: WorkerConfig) -> dict[str, Any]:
    return {"bootstrap.servers": config.bootstrap_servers}


def _load_plugins() -> PluginRegistry:
    """The plug-ins and the REST application's modules: most of the start-up's imports, run in a thread while
    the worker talks to Kafka (its waits release the GIL)."""
    import rest.app  # noqa: F401 - FastAPI, imported here rather than on the critical path

    return PluginRegistry.from_entry_points()


class WorkerProcess:
    """One worker process: stores, herder and REST server, wired and run together.

    Without a `registry`, the plug-ins are loaded by :meth:`start` while the internal topics are read, and the
    herder and REST server exist from then on."""

    herder: StandaloneHerder
    rest: RestServer

    def __init__(
        self, config: WorkerConfig, registry: PluginRegistry | None = None, *, distributed: bool = False
    ) -> None:
        self.config = config
        self.distributed = distributed
        if distributed:
            _check_distributed(config)
        else:
            _warn_distributed_only(config)
        # key material and credentials first: a bad file stops the worker before any client is created
        self._security = _RestSecurity.from_config(config)
        base = _kafka_base(config)
        # admin.* are admin-client settings, except Connect's admin.listeners (and admin.listeners.https.*)
        admin_client = {k: v for k, v in config.prefixed("admin.").items() if k.split(".")[0] != "listeners"}
        self.admin = TopicAdmin({**base, **librdkafka_config(admin_client)})
        self.internal_producer = AsyncProducer({**base, **INTERNAL_PRODUCER})
        consumer = {**base, **librdkafka_config(config.prefixed("consumer."))}

        def rf(key: str) -> int:
            return int(config[key])

        self.offsets = OffsetStore(
            topic=config["offset.storage.topic"],
            producer=self.internal_producer,
            admin=self.admin,
            consumer_config=consumer,
            partitions=config["offset.storage.partitions"],
            replication_factor=rf("offset.storage.replication.factor"),
        )
        self.configs = ConfigStore(
            topic=config["config.storage.topic"],
            producer=self.internal_producer,
            admin=self.admin,
            consumer_config=consumer,
            replication_factor=rf("config.storage.replication.factor"),
        )
        self.statuses = StatusStore(
            topic=config["status.storage.topic"],
            producer=self.internal_producer,
            admin=self.admin,
            consumer_config=consumer,
            partitions=config["status.storage.partitions"],
            replication_factor=rf("status.storage.replication.factor"),
        )
        self.metrics = WorkerMetrics()
        self.metrics.add_collector(ProcessCollector())
        self._uninstall_redaction: Callable[[], None] | None = None
        self._assembled = False
        if registry is not None:
            self._assemble(registry)

    def _assemble(self, registry: PluginRegistry) -> None:
        """The herder and the REST server, which need the plug-ins."""
        config = self.config
        base = _kafka_base(config)
        producer_overrides = librdkafka_config(config.prefixed("producer."))

        def producer_factory(client_id: str, connector_overrides: Mapping[str, str]) -> AsyncProducer:
            # worker producer.* settings, then the connector's producer.override.* (policy All, as Connect's default)
            return AsyncProducer(
                {
                    **base,
                    **SOURCE_PRODUCER_DEFAULTS,
                    "client.id": client_id,
                    **producer_overrides,
                    **librdkafka_config(connector_overrides),
                }
            )

        def transform_factory(connector_config: Mapping[str, str]) -> Any:
            return TransformationChain.from_config(connector_config, registry.transform_resolver).apply

        worker = RuntimeWorker(
            config=config,
            registry=registry,
            admin=self.admin,
            offsets=self.offsets,
            producer_factory=producer_factory,
            transform_factory=transform_factory,
            transformer=config.config_transformer,
            metrics=self.metrics,
        )
        parts: dict[str, Any] = {
            "config": config,
            "registry": registry,
            "admin": self.admin,
            "configs": self.configs,
            "statuses": self.statuses,
            "worker": worker,
            "loggers": LoggerAdmin(),
            "config_transformer": config.config_transformer,
        }
        if self.distributed:
            herder = DistributedHerder(member_factory=self._group_member, offsets=self.offsets, **parts)
            worker.produce_gate = herder.member.may_produce
            self.herder = herder
        else:
            self.herder = StandaloneHerder(**parts)
        self.metrics.add_collector(self.herder.metric_samples)
        self.rest = self._rest_server(config)
        self._assembled = True

    def _group_member(self, listener: RebalanceListener) -> WorkerGroupMember:
        config = self.config
        client = GroupClient(config.bootstrap_servers, client_id=f"connect-{config.worker_id}")
        return WorkerGroupMember(
            client,
            listener,
            group_id=config["group.id"],
            url=config.advertised_listener.url + "/",  # as Connect advertises it (RestServer.advertisedUrl)
            session_timeout_ms=config["session.timeout.ms"],
            heartbeat_interval_ms=config["heartbeat.interval.ms"],
            rebalance_timeout_ms=config["rebalance.timeout.ms"],
            max_delay_ms=config["scheduled.rebalance.max.delay.ms"],
            protocols=(SESSIONED, COMPATIBLE) if config["connect.protocol"] == SESSIONED else (COMPATIBLE,),
        )

    def _rest_server(self, config: WorkerConfig) -> RestServer:
        """REST listeners (and `admin.listeners`), with TLS for https ones and basic auth when configured."""
        from rest.app import create_admin_app, create_app

        security = self._security
        middleware = [Middleware(BasicAuthMiddleware, settings=security.auth)] if security.auth is not None else []
        separate_admin = config.admin_listeners is not None
        app = create_app(
            self.herder,
            topic_tracking=config["topic.tracking.enable"],
            topic_tracking_reset=config["topic.tracking.allow.reset"],
            middleware=middleware,
            admin=not separate_admin,
            metrics=self.metrics.render,
        )
        specs = [ListenerSpec(x.url, app, security.tls if x.scheme == "https" else None) for x in config.listeners]
        if config.admin_listeners:
            admin_app = create_admin_app(self.herder, middleware=middleware)
            specs += [
                ListenerSpec(x.url, admin_app, security.admin_tls if x.scheme == "https" else None)
                for x in config.admin_listeners
            ]
        return RestServer(app, specs)

    async def start(self) -> None:
        # log records pass through the secret redactor of the config providers from here on
        self._uninstall_redaction = install_redaction(self.config.config_transformer.redactor)
        loading = None if self._assembled else asyncio.get_running_loop().run_in_executor(None, _load_plugins)
        try:
            try:
                await self.admin.cluster_id()
            except ConnectError as e:
                raise ConnectError(f"Cannot reach Kafka at {self.config.bootstrap_servers}: {e}") from e
            self.internal_producer.start()
            # the three internal topics are independent: read them to their ends at the same time
            await asyncio.gather(self.offsets.start(), self.configs.start(), self.statuses.start())
            if loading is not None:
                self._assemble(await loading)
            await self.rest.start()
            await self.herder.start()
        except BaseException:
            if loading is not None and not loading.done():
                with contextlib.suppress(BaseException):
                    await loading
            self._uninstall_redaction()
            self._uninstall_redaction = None
            raise

    async def stop(self) -> None:
        log.info("worker stopping")
        if self._assembled:
            await self.herder.stop()
            await self.rest.stop()
        await self.internal_producer.close(timeout=10)
        log.info("worker stopped")
        if self._uninstall_redaction is not None:
            self._uninstall_redaction()
            self._uninstall_redaction = None


HMACS = ", ".join(HMAC_ALGORITHMS)


def _warn_distributed_only(config: WorkerConfig) -> list[str]:
    """The distributed-mode keys a standalone worker was given: each named in a warning (and returned)."""
    keys = sorted(set(DISTRIBUTED_ONLY) & set(config.raw))
    for key in keys:
        log.warning("%s is a distributed-mode setting: ignored by this standalone worker", key)
    return keys


def _check_distributed(config: WorkerConfig) -> None:
    """Distributed-only settings checked at start (as Connect's DistributedConfig does); what distributed mode
    cannot do yet is refused, not ignored."""
    security = str(config.raw.get("security.protocol", "PLAINTEXT")).upper()
    if security != "PLAINTEXT":
        raise ConfigError(
            f"security.protocol={security}: distributed mode joins its group over PLAINTEXT only for now",
            name="security.protocol",
        )
    verification = config["inter.worker.verification.algorithms"]
    key = "inter.worker.verification.algorithms"
    if not verification:
        raise invalid(key, verification, "At least one signature verification algorithm must be provided")
    for algorithm in verification:
        if not digest_available(algorithm):
            raise invalid(key, algorithm, f"the algorithm is not supported; the supported algorithms are: {HMACS}")
    signature = config["inter.worker.signature.algorithm"]
    if signature not in verification:
        raise invalid(
            "inter.worker.signature.algorithm", signature, f"Signature algorithm must be present in {key} list"
        )
    size = config["inter.worker.key.size"]
    if size is not None and (size <= 0 or size % 8):
        raise invalid("inter.worker.key.size", size, "a key size must be a positive number of whole bytes (bits)")


def tune_gc() -> None:
    """Keep the cyclic garbage collector off the per-event path of a started worker process.

    Everything built while starting (plug-in modules, FastAPI, the ConfigDefs) lives as long as the process:
    `gc.freeze()` moves it out of the collector's sight, so the collections that the per-event allocations
    trigger no longer walk it. Change events are short-lived and acyclic; a larger first generation lets
    fewer collections find them already freed by reference counting. Measured on the streaming benchmark:
    about 15 % less CPU per event (`make bench`). Only for the worker's own process (`run`): an embedding
    process (tests) keeps its collector as it is.
    """
    gc.collect()
    gc.freeze()
    gc.set_threshold(10_000, 20, 50)


async def run(
    worker_properties: Mapping[str, str],
    connector_files: Sequence[str],
    *,
    config: WorkerConfig | None = None,
    distributed: bool = False,
) -> int:
    config = config if config is not None else WorkerConfig.from_properties(worker_properties)
    if distributed and connector_files:
        raise ConfigError("A distributed worker takes no connector files: create connectors through its REST API")
    connectors = [load_connector_file(p) for p in connector_files]
    worker = WorkerProcess(config, distributed=distributed)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    await worker.start()
    try:
        for name, cfg, initial in connectors:
            await worker.herder.put_connector_config(name, cfg, allow_replace=True, initial_state=initial)
            log.info("connector %s submitted from the command line", name)
        log.info("worker ready; REST API on %s", ", ".join(x.url for x in config.listeners))
        tune_gc()
        await stop.wait()
    finally:
        await worker.stop()
    return 0
