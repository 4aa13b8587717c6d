"""The worker's configuration: Kafka Connect's worker.properties keys, parsed once into a frozen object."""

from __future__ import annotations

import dataclasses
import socket
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from connect_worker.api import ConfigDef, ConfigError, ConfigType, Importance
from connect_worker.api.config import at_least, one_of
from connect_worker.runtime.config_providers import PROVIDERS_KEY, ConfigTransformer

JSON_CONVERTER = "org.apache.kafka.connect.json.JsonConverter"
# keys of distributed mode only: a standalone worker warns of them, as Connect's standalone worker warns of a key
# it does not know ("was supplied but isn't a known config")
DISTRIBUTED_ONLY = (
    "session.timeout.ms",
    "heartbeat.interval.ms",
    "rebalance.timeout.ms",
    "scheduled.rebalance.max.delay.ms",
    "connect.protocol",
    "inter.worker.key.generation.algorithm",
    "inter.worker.key.size",
    "inter.worker.key.ttl.ms",
    "inter.worker.signature.algorithm",
    "inter.worker.verification.algorithms",
)
HMAC_ALGORITHMS = ("HmacSHA256", "HmacSHA512", "HmacSHA384", "HmacSHA224", "HmacSHA1")
SIMPLE_HEADER_CONVERTER = "org.apache.kafka.connect.storage.SimpleHeaderConverter"

WORKER_CONFIG_DEF = (
    ConfigDef()
    .define(
        "bootstrap.servers",
        ConfigType.LIST,
        "localhost:9092",
        importance=Importance.HIGH,
        documentation="Kafka brokers to connect to (host:port list).",
    )
    .define(
        "group.id",
        ConfigType.STRING,
        "connect-cluster",
        importance=Importance.HIGH,
        documentation="Names this worker's cluster; prefixes transactional ids.",
    )
    .define(
        "key.converter",
        ConfigType.CLASS,
        JSON_CONVERTER,
        importance=Importance.HIGH,
        documentation="Converter for record keys, unless a connector overrides it.",
    )
    .define(
        "value.converter",
        ConfigType.CLASS,
        JSON_CONVERTER,
        importance=Importance.HIGH,
        documentation="Converter for record values, unless a connector overrides it.",
    )
    .define(
        "header.converter",
        ConfigType.CLASS,
        SIMPLE_HEADER_CONVERTER,
        importance=Importance.LOW,
        documentation="Converter for record headers.",
    )
    .define(
        "offset.storage.topic",
        ConfigType.STRING,
        "connect-offsets",
        importance=Importance.HIGH,
        documentation="Compacted topic holding source offsets.",
    )
    .define(
        "offset.storage.partitions",
        ConfigType.INT,
        25,
        validator=at_least(1),
        documentation="Partitions of the offsets topic when it is created.",
    )
    .define(
        "offset.storage.replication.factor",
        ConfigType.SHORT,
        3,
        documentation="Replication factor of the offsets topic when created; -1 = broker default.",
    )
    .define(
        "config.storage.topic",
        ConfigType.STRING,
        "connect-configs",
        importance=Importance.HIGH,
        documentation="Compacted single-partition topic holding connector configs and target states.",
    )
    .define(
        "config.storage.replication.factor",
        ConfigType.SHORT,
        3,
        documentation="Replication factor of the config topic when created; -1 = broker default.",
    )
    .define(
        "status.storage.topic",
        ConfigType.STRING,
        "connect-status",
        importance=Importance.HIGH,
        documentation="Compacted topic holding connector and task statuses.",
    )
    .define(
        "status.storage.partitions",
        ConfigType.INT,
        5,
        validator=at_least(1),
        documentation="Partitions of the status topic when it is created.",
    )
    .define(
        "status.storage.replication.factor",
        ConfigType.SHORT,
        3,
        documentation="Replication factor of the status topic when created; -1 = broker default.",
    )
    .define(
        "offset.flush.interval.ms",
        ConfigType.LONG,
        60000,
        validator=at_least(0),
        documentation="How often committable offsets are written to the offsets topic.",
    )
    .define(
        "offset.flush.timeout.ms",
        ConfigType.LONG,
        5000,
        validator=at_least(0),
        documentation="How long an offsets flush may wait for outstanding records.",
    )
    .define(
        "task.shutdown.graceful.timeout.ms",
        ConfigType.LONG,
        5000,
        validator=at_least(0),
        documentation="How long a task may take to stop before it is abandoned.",
    )
    .define(
        "listeners",
        ConfigType.LIST,
        "http://127.0.0.1:8083",  # Connect binds all interfaces by default; this worker binds loopback
        importance=Importance.LOW,
        documentation="REST listeners, e.g. http://127.0.0.1:8083 (default: loopback only).",
    )
    .define(
        "rest.advertised.host.name",
        ConfigType.STRING,
        None,
        documentation="Host name in worker ids and Location headers (default: the listener's).",
    )
    .define("rest.advertised.port", ConfigType.INT, None, documentation="Port advertised to clients.")
    .define(
        "rest.advertised.listener",
        ConfigType.STRING,
        None,
        documentation="Which listener protocol (http/https) to advertise.",
    )
    .define(
        "topic.creation.enable",
        ConfigType.BOOLEAN,
        True,
        documentation="Let source connectors create their topics (topic.creation.* settings, KIP-158).",
    )
    .define(
        "plugin.path",
        ConfigType.LIST,
        "",
        documentation="Accepted for compatibility; plugins are found by Python entry points.",
    )
    .define("plugin.discovery", ConfigType.STRING, "hybrid_warn", documentation="Accepted for compatibility.")
    .define("client.id", ConfigType.STRING, "", documentation="Prefix for Kafka client ids.")
    .define(
        "exactly.once.source.support",
        ConfigType.STRING,
        "disabled",
        validator=one_of("disabled", "preparing", "enabled", case_sensitive=False),
        documentation="Exactly-once delivery for source connectors (KIP-618).",
    )
    .define("topic.tracking.enable", ConfigType.BOOLEAN, True, documentation="Track the topics each connector uses.")
    .define("topic.tracking.allow.reset", ConfigType.BOOLEAN, True, documentation="Allow resetting tracked topics.")
    .define(
        "admin.listeners",
        ConfigType.LIST,
        None,
        importance=Importance.LOW,
        documentation="Listeners serving /admin (loggers) instead of the REST listeners; empty disables /admin. "
        "TLS settings of https admin listeners use the prefix admin.listeners.https.",
    )
    .define(
        "rest.extension.classes",
        ConfigType.LIST,
        "",
        importance=Importance.LOW,
        documentation="REST extensions: org.apache.kafka.connect.rest.basic.auth.extension."
        "BasicAuthSecurityRestExtension turns on HTTP basic authentication.",
    )
    .define(
        "rest.basic.auth.credentials.file",
        ConfigType.STRING,
        None,
        importance=Importance.MEDIUM,
        documentation="Properties file of user=password lines (Connect's PropertyFileLoginModule file); "
        "setting it turns on HTTP basic authentication of the REST API (GET /health stays open).",
    )
    .define(
        "rest.basic.auth.realm",
        ConfigType.STRING,
        "connect",
        importance=Importance.LOW,
        documentation="Realm named in the WWW-Authenticate header of 401 answers.",
    )
    .define(
        PROVIDERS_KEY,
        ConfigType.LIST,
        "",
        importance=Importance.LOW,
        documentation="Names of config providers resolving ${name:path:key} placeholders in worker and connector "
        "configs; each needs config.providers.<name>.class (and optional config.providers.<name>.param.*).",
    )
    # distributed mode (`--distributed`): the group's timings, as Connect's DistributedConfig names them
    .define(
        "session.timeout.ms",
        ConfigType.INT,
        10000,
        validator=at_least(1),
        documentation="Distributed: a worker that sends no heartbeat for this long leaves the group; its work "
        "moves to the others.",
    )
    .define(
        "heartbeat.interval.ms",
        ConfigType.INT,
        3000,
        validator=at_least(1),
        documentation="Distributed: how often a worker heartbeats to the group coordinator.",
    )
    .define(
        "rebalance.timeout.ms",
        ConfigType.INT,
        60000,
        validator=at_least(1),
        documentation="Distributed: how long members have to join a rebalance.",
    )
    .define(
        "scheduled.rebalance.max.delay.ms",
        ConfigType.INT,
        300000,
        validator=at_least(0),
        documentation="Distributed: how long the work of a departed worker waits for it to come back before it is "
        "given to the others.",
    )
    .define(
        "connect.protocol",
        ConfigType.STRING,
        "sessioned",
        validator=one_of("sessioned", "compatible"),
        documentation="Distributed: the group protocol. 'sessioned' (KIP-507: inter-worker requests signed with a "
        "session key the leader keeps in the config topic) or 'compatible' (incremental cooperative, KIP-415, "
        "unsigned); a group runs the newest every member offers. 'eager' is not supported.",
    )
    .define(
        "inter.worker.key.generation.algorithm",
        ConfigType.STRING,
        "HmacSHA256",
        validator=one_of(*HMAC_ALGORITHMS),
        documentation="Distributed, sessioned: the algorithm of the session keys the leader makes.",
    )
    .define(
        "inter.worker.key.size",
        ConfigType.INT,
        None,
        documentation="Distributed, sessioned: session key size in bits (default: the algorithm's own).",
    )
    .define(
        "inter.worker.key.ttl.ms",
        ConfigType.INT,
        3600000,
        validator=at_least(0),
        documentation="Distributed, sessioned: how long a session key is used before the leader makes a new one.",
    )
    .define(
        "inter.worker.signature.algorithm",
        ConfigType.STRING,
        "HmacSHA256",
        validator=one_of(*HMAC_ALGORITHMS),
        documentation="Distributed, sessioned: the MAC this worker signs its inter-worker requests with.",
    )
    .define(
        "inter.worker.verification.algorithms",
        ConfigType.LIST,
        "HmacSHA256",
        documentation="Distributed, sessioned: the MACs this worker accepts on inter-worker requests.",
    )
    .define(
        "connector.client.config.override.policy",
        ConfigType.STRING,
        "All",
        documentation="Which producer.override.* / admin.override.* keys connectors may set.",
    )
)


@dataclasses.dataclass(frozen=True, slots=True)
class Listener:
    scheme: str
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def parse_listener(text: str) -> Listener:
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or parts.port is None:
        raise ConfigError(
            f"Invalid listener {text!r}: expected http://host:port or https://host:port", name="listeners"
        )
    return Listener(parts.scheme, parts.hostname or "", parts.port)


@dataclasses.dataclass(frozen=True, slots=True)
class WorkerConfig:
    """Typed worker settings, plus the raw map (converters and clients read prefixed sub-keys from it)."""

    raw: Mapping[str, str]
    values: Mapping[str, Any]
    listeners: tuple[Listener, ...]
    admin_listeners: tuple[Listener, ...] | None = None  # None: /admin on the REST listeners; (): disabled
    config_transformer: ConfigTransformer = dataclasses.field(default_factory=lambda: ConfigTransformer({}))

    @classmethod
    def from_properties(cls, props: Mapping[str, str], *, environ: Mapping[str, str] | None = None) -> WorkerConfig:
        """Parses and checks the settings. Placeholders of the worker's own config providers are resolved in
        every value but the `config.providers.*` keys themselves (as Kafka's AbstractConfig does)."""
        transformer = ConfigTransformer.from_worker_properties(props, environ=environ)
        if transformer:
            own = {k: v for k, v in props.items() if not k.startswith(PROVIDERS_KEY)}
            props = {**props, **transformer.resolve(own)}
        try:
            values = WORKER_CONFIG_DEF.parse(props)
        except ConfigError as e:  # a value from a provider must not show in the message
            raise ConfigError(transformer.redactor.redact(str(e)), name=e.name) from None
        for key in WORKER_CONFIG_DEF.keys:  # LIST defaults are written as text: split them as given values are
            if key.type is ConfigType.LIST and isinstance(values[key.name], str):
                values[key.name] = [x.strip() for x in values[key.name].split(",") if x.strip()]
        listeners = tuple(parse_listener(x) for x in values["listeners"] if x.strip())
        if not listeners:
            raise ConfigError("At least one listener is required in listeners", name="listeners")
        admin = values["admin.listeners"]
        admin_listeners = None if admin is None else tuple(parse_listener(x) for x in admin if x.strip())
        return cls(
            raw=dict(props),
            values=values,
            listeners=listeners,
            admin_listeners=admin_listeners,
            config_transformer=transformer,
        )

    def __getitem__(self, key: str) -> Any:
        return self.values[key]

    @property
    def bootstrap_servers(self) -> str:
        return ",".join(self.values["bootstrap.servers"])

    def prefixed(self, prefix: str) -> dict[str, str]:
        """Sub-keys under `prefix` with the prefix removed (producer., admin., key.converter., …)."""
        n = len(prefix)
        return {k[n:]: v for k, v in self.raw.items() if k.startswith(prefix)}

    @property
    def advertised_listener(self) -> Listener:
        wanted = self.values["rest.advertised.listener"]
        chosen = next((x for x in self.listeners if wanted and x.scheme == wanted), self.listeners[0])
        host = self.values["rest.advertised.host.name"] or chosen.host or socket.gethostname()
        port = self.values["rest.advertised.port"] or chosen.port
        return Listener(chosen.scheme, host, port)

    @property
    def worker_id(self) -> str:
        """`host:port` of the advertised REST URL, as Connect's status records carry it."""
        adv = self.advertised_listener
        return f"{adv.host}:{adv.port}"
