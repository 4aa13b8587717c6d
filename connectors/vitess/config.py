"""The Vitess connector's configuration (spec vitess.md §5): one ConfigDef, one frozen typed config, every
problem at once.

What this first version runs: one task streaming one keyspace (all shards, or the ``vitess.shard`` list)
from VTGate's VStream, with VStream Copy as the initial snapshot. Settings of features not built yet are
refused with that reason rather than ignored: several tasks (``vitess.offset.storage.per.task``), the
ordered transaction metadata factory, signals and incremental snapshots. The legacy VTCtld keys
(``vitess.vtctld.*``) are accepted and unused, as Debezium 2.x does.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any, Final

from connect_worker.api import ConfigDef, ConfigKey, ConfigType, ConfigValue, Importance
from connect_worker.api.config import Password, at_least, between, one_of
from connect_worker.api.errors import ConfigError
from connectors.relational.column_mappers import ColumnRule
from connectors.relational.column_mappers import column_rules as checked_column_rules
from connectors.relational.filters import regex_list_setting
from connectors.relational.signaling_config import SignalingConfig

log = logging.getLogger(__name__)

DEFAULT_PORT: Final = 15991
TABLET_TYPES: Final = ("MASTER", "PRIMARY", "REPLICA", "RDONLY")
DEFAULT_TX_FACTORY: Final = "io.debezium.pipeline.txmetadata.DefaultTransactionMetadataFactory"
ORDERED_TX_FACTORY: Final = "io.debezium.connector.vitess.pipeline.txmetadata.VitessOrderedTransactionMetadataFactory"
TABLE_TOPIC_STRATEGY: Final = "io.debezium.connector.vitess.TableTopicNamingStrategy"
SCHEMA_TOPIC_STRATEGY: Final = "io.debezium.schema.SchemaTopicNamingStrategy"

_S, _I, _L, _B, _P = ConfigType.STRING, ConfigType.INT, ConfigType.LONG, ConfigType.BOOLEAN, ConfigType.PASSWORD
_HI, _MED, _LO = Importance.HIGH, Importance.MEDIUM, Importance.LOW

# (name, type, default, importance, validator, documentation)
_KEYS: Final[list[tuple[str, ConfigType, Any, Importance, Any, str]]] = [
    ("topic.prefix", _S, None, _HI, None,
     "Namespace of every topic and schema name; letters, digits, '.', '_' and '-'. It must never change."),
    ("database.hostname", _S, None, _HI, None, "Host of VTGate's gRPC server."),
    ("database.port", _I, DEFAULT_PORT, _HI, between(1, 65535), "VTGate's gRPC port."),
    ("database.user", _S, None, _HI, None, "VTGate user (static authentication), sent as gRPC metadata."),
    ("database.password", _P, None, _HI, None, "Password of that user."),
    ("vitess.database.user", _S, None, _LO, None, "Older name of database.user."),
    ("vitess.database.password", _P, None, _LO, None, "Older name of database.password."),
    ("vitess.keyspace", _S, None, _HI, None, "The keyspace to stream."),
    ("vitess.shard", _S, None, _MED, None, "Shards to stream, comma-separated; unset streams all shards."),
    ("vitess.gtid", _S, None, _LO, None,
     "Start position with vitess.shard and snapshot.mode=never: 'current', a VGTID JSON array, or the GTID "
     "of the one listed shard."),
    ("vitess.vgtid", _S, None, _LO, None, "Start VGTID (JSON array, or 'current'); wins over vitess.gtid."),
    ("vitess.stop_on_reshard", _B, False, _MED, None, "Let VTGate end the stream at a reshard."),
    ("vitess.tablet.type", _S, "MASTER", _MED, one_of(*TABLET_TYPES, case_sensitive=False),
     "Tablet type whose binlogs VTGate streams: MASTER (or PRIMARY), REPLICA or RDONLY."),
    ("vitess.grpc.headers", _S, None, _LO, None, "Extra gRPC metadata, 'key:value,key:value'."),
    ("vitess.grpc.max_inbound_message_size", _I, 4194304, _LO, at_least(1), "Largest gRPC message accepted."),
    ("vitess.keepalive.interval.ms", _L, 9223372036854775807, _LO, at_least(1),
     "gRPC keep-alive ping interval; the default disables pings."),
    ("vitess.offset.storage.per.task", _B, False, _LO, None, "Offsets per task (several tasks): not supported yet."),
    ("vitess.offset.storage.task.key.gen", _I, -1, _LO, None, "Per-task offsets generation (not supported yet)."),
    ("vitess.prev.num.tasks", _I, -1, _LO, None, "Per-task offsets: previous task count (not supported yet)."),
    ("vitess.vtctld.host", _S, None, _LO, None, "Legacy VTCtld host: accepted and unused."),
    ("vitess.vtctld.port", _I, 15999, _LO, None, "Legacy VTCtld port: accepted and unused."),
    ("vitess.vtctld.user", _S, None, _LO, None, "Legacy VTCtld user: accepted and unused."),
    ("vitess.vtctld.password", _P, None, _LO, None, "Legacy VTCtld password: accepted and unused."),
    ("snapshot.mode", _S, "initial", _MED, one_of("initial", "never", case_sensitive=False),
     "'initial' copies the tables with VStream Copy when no offset is stored; 'never' starts at the current "
     "position."),
    ("time.precision.mode", _S, "adaptive_time_microseconds", _MED, None,
     "'adaptive_time_microseconds' or 'connect'."),
    ("bigint.unsigned.handling.mode", _S, "string", _MED, one_of("string", "long", "precise", case_sensitive=False),
     "BIGINT UNSIGNED as a string, a long (may overflow) or a Decimal."),
    ("binary.handling.mode", _S, "bytes", _LO, one_of("bytes", "base64", "base64-url-safe", "hex",
                                                      case_sensitive=False),
     "Binary values as bytes, base64, URL-safe base64 or hex."),
    ("include.unknown.datatypes", _B, False, _LO, None, "Emit columns of unsupported types as bytes."),
    ("tombstones.on.delete", _B, True, _MED, None, "Follow each delete with a tombstone."),
    ("skipped.operations", _S, "t", _LO, None, "Operations not emitted: c, u, d, t, or none."),
    ("event.processing.failure.handling.mode", _S, "fail", _LO,
     one_of("fail", "warn", "skip", "ignore", case_sensitive=False),
     "A row that cannot be converted: fail, warn or skip."),
    ("max.batch.size", _I, 2048, _LO, at_least(1), "Records per batch handed to the worker."),
    ("max.queue.size", _I, 20240, _LO, at_least(1), "Capacity of the record queue; larger than max.batch.size."),
    ("max.queue.size.in.bytes", _L, 0, _LO, at_least(0), "Byte bound of the queue (0: none)."),
    ("poll.interval.ms", _L, 500, _LO, at_least(1), "Longest wait for records per poll."),
    ("provide.transaction.metadata", _B, False, _LO, None, "Emit BEGIN/END records and transaction blocks."),
    ("transaction.metadata.factory", _S, DEFAULT_TX_FACTORY, _LO, None,
     "Transaction metadata: the default factory (the ordered one is not supported yet)."),
    ("heartbeat.interval.ms", _I, 0, _LO, at_least(0), "Heartbeat interval; also VTGate's (in seconds)."),
    ("topic.heartbeat.prefix", _S, "__debezium-heartbeat", _LO, None, "Prefix of the heartbeat topic."),
    ("topic.transaction", _S, "transaction", _LO, None, "Suffix of the transaction topic."),
    ("topic.delimiter", _S, ".", _LO, None, "Delimiter of topic names."),
    ("topic.cache.size", _I, 10000, _LO, at_least(1), "Topic names kept in memory."),
    ("topic.naming.strategy", _S, SCHEMA_TOPIC_STRATEGY, _LO, None,
     "io.debezium.schema.SchemaTopicNamingStrategy (<prefix>.<keyspace>.<table>) or "
     "io.debezium.connector.vitess.TableTopicNamingStrategy (<prefix>.<table>)."),
    ("table.include.list", _S, None, _MED, None, "Regexes of '<keyspace>.<table>' to capture."),
    ("table.exclude.list", _S, None, _MED, None, "Regexes of '<keyspace>.<table>' not to capture."),
    ("column.include.list", _S, None, _LO, None, "Regexes of '<keyspace>.<table>.<column>' to include."),
    ("column.exclude.list", _S, None, _LO, None, "Regexes of '<keyspace>.<table>.<column>' to leave out."),
    ("message.key.columns", _S, None, _LO, None, "'<table regex>:<col>,<col>;...' custom message keys."),
    ("schema.name.adjustment.mode", _S, "none", _LO, None, "none, avro or avro_unicode."),
    ("field.name.adjustment.mode", _S, "none", _LO, None, "none, avro or avro_unicode."),
    ("errors.max.retries", _I, -1, _LO, None, "Restarts after retriable errors: -1 unlimited, 0 none."),
    ("retriable.restart.connector.wait.ms", _L, 10000, _LO, at_least(0), "Wait before such a restart."),
]  # fmt: skip


def _build() -> ConfigDef:
    cdef = ConfigDef()
    for order, (name, ctype, default, importance, validator, doc) in enumerate(_KEYS, start=1):
        cdef.add(
            ConfigKey(
                name,
                ctype,
                default,
                validator=validator,
                importance=importance,
                documentation=doc,
                group="Vitess",
                order_in_group=order,
                display_name=name,
            )
        )
    return cdef


VITESS_CONFIG_DEF: Final[ConfigDef] = _build()
_REQUIRED: Final = ("topic.prefix", "database.hostname", "vitess.keyspace")
_REFUSED_PREFIXES: Final = ("signal.", "incremental.snapshot.", "notification.")


@dataclasses.dataclass(frozen=True, slots=True)
class VitessConnectorConfig:
    """The parsed configuration; build it with :meth:`from_props`."""

    topic_prefix: str
    hostname: str
    port: int
    user: str | None
    password: Password | None
    keyspace: str
    shards: tuple[str, ...]  # empty: every shard of the keyspace
    start_vgtid: str | None  # vitess.vgtid / vitess.gtid, as given
    stop_on_reshard: bool
    tablet_type: str  # MASTER | REPLICA | RDONLY (PRIMARY is MASTER)
    grpc_headers: tuple[tuple[str, str], ...]
    max_inbound_message_size: int
    keepalive_interval_ms: int
    snapshot_initial: bool
    time_precision_mode: str
    bigint_unsigned_handling_mode: str
    binary_handling_mode: str
    include_unknown_datatypes: bool
    tombstones_on_delete: bool
    skipped_operations: frozenset[str]
    failure_handling_mode: str
    max_batch_size: int
    max_queue_size: int
    max_queue_size_in_bytes: int
    poll_interval_ms: int
    provide_transaction_metadata: bool
    heartbeat_interval_ms: int
    table_topic_naming: bool
    errors_max_retries: int
    retriable_restart_wait_ms: int
    table_include_list: tuple[str, ...]
    table_exclude_list: tuple[str, ...]
    column_include_list: tuple[str, ...]
    column_exclude_list: tuple[str, ...]
    message_key_columns: str | None
    #: column.truncate/mask/hash and *.propagate.source.type rules, in the order Debezium tries them
    column_rules: tuple[ColumnRule, ...]
    topic_delimiter: str
    topic_transaction: str
    topic_heartbeat_prefix: str
    topic_cache_size: int
    schema_name_adjustment_mode: str
    field_name_adjustment_mode: str
    #: keys the Vitess connector does not define: Debezium's defaults (keyspaces are not filtered by schema lists)
    schema_include_list: tuple[str, ...] = ()
    schema_exclude_list: tuple[str, ...] = ()
    table_ignore_builtin: bool = True
    #: signals and incremental snapshots are refused for Vitess (see _REFUSED_PREFIXES): none configured
    signaling: SignalingConfig = dataclasses.field(default_factory=SignalingConfig)

    @classmethod
    def from_props(cls, props: Mapping[str, Any]) -> VitessConnectorConfig:
        results = validate_props(props)
        problems = [e for cv in results.values() for e in cv.errors]
        if problems:
            first = next(cv.name for cv in results.values() if cv.errors)
            raise ConfigError("Invalid Vitess connector configuration: " + "; ".join(problems), name=first)
        p = {name: cv.value for name, cv in results.items()}
        user = p["database.user"] or p["vitess.database.user"]
        password = p["database.password"] or p["vitess.database.password"]
        if p["vitess.vtctld.host"]:
            log.info("vitess.vtctld.* is not used: the start position comes from VTGate ('current' or a copy)")
        skipped = frozenset(s.strip().lower() for s in str(p["skipped.operations"]).split(",") if s.strip())
        tablet = str(p["vitess.tablet.type"]).upper()
        return cls(
            topic_prefix=p["topic.prefix"],
            hostname=p["database.hostname"],
            port=p["database.port"],
            user=user,
            password=password,
            keyspace=p["vitess.keyspace"],
            shards=tuple(s.strip() for s in (p["vitess.shard"] or "").split(",") if s.strip()),
            start_vgtid=p["vitess.vgtid"] or p["vitess.gtid"],
            stop_on_reshard=p["vitess.stop_on_reshard"],
            tablet_type="MASTER" if tablet == "PRIMARY" else tablet,
            grpc_headers=parse_grpc_headers(p["vitess.grpc.headers"]),
            max_inbound_message_size=p["vitess.grpc.max_inbound_message_size"],
            keepalive_interval_ms=p["vitess.keepalive.interval.ms"],
            snapshot_initial=str(p["snapshot.mode"]).lower() == "initial",
            time_precision_mode=str(p["time.precision.mode"]).lower(),
            bigint_unsigned_handling_mode=str(p["bigint.unsigned.handling.mode"]).lower(),
            binary_handling_mode=str(p["binary.handling.mode"]).lower(),
            include_unknown_datatypes=p["include.unknown.datatypes"],
            tombstones_on_delete=p["tombstones.on.delete"],
            skipped_operations=skipped - {"none"},
            failure_handling_mode=str(p["event.processing.failure.handling.mode"]).lower(),
            max_batch_size=p["max.batch.size"],
            max_queue_size=p["max.queue.size"],
            max_queue_size_in_bytes=p["max.queue.size.in.bytes"],
            poll_interval_ms=p["poll.interval.ms"],
            provide_transaction_metadata=p["provide.transaction.metadata"],
            heartbeat_interval_ms=p["heartbeat.interval.ms"],
            table_topic_naming=p["topic.naming.strategy"] == TABLE_TOPIC_STRATEGY,
            errors_max_retries=p["errors.max.retries"],
            retriable_restart_wait_ms=p["retriable.restart.connector.wait.ms"],
            table_include_list=regex_list_setting(p, "table.include.list"),
            table_exclude_list=regex_list_setting(p, "table.exclude.list"),
            column_include_list=regex_list_setting(p, "column.include.list"),
            column_exclude_list=regex_list_setting(p, "column.exclude.list"),
            message_key_columns=p["message.key.columns"],
            column_rules=checked_column_rules(props),
            topic_delimiter=p["topic.delimiter"],
            topic_transaction=p["topic.transaction"],
            topic_heartbeat_prefix=p["topic.heartbeat.prefix"],
            topic_cache_size=p["topic.cache.size"],
            schema_name_adjustment_mode=p["schema.name.adjustment.mode"],
            field_name_adjustment_mode=p["field.name.adjustment.mode"],
        )


def parse_grpc_headers(text: str | None) -> tuple[tuple[str, str], ...]:
    """``k1:v1,k2:v2`` as gRPC metadata (keys lower-cased, as gRPC requires); malformed entries are skipped
    with a warning, as Debezium does."""
    out: list[tuple[str, str]] = []
    for entry in (text or "").split(","):
        if not entry.strip():
            continue
        key, sep, value = entry.partition(":")
        if not sep or not key.strip():
            log.warning("vitess.grpc.headers: ignoring the malformed entry '%s' (expected key:value)", entry)
            continue
        out.append((key.strip().lower(), value.strip()))
    return tuple(out)


def validate_props(props: Mapping[str, Any]) -> dict[str, ConfigValue]:
    """/config/validate: every key's value and every problem, the cross-field rules included."""
    results = VITESS_CONFIG_DEF.validate(props)

    def error(name: str, message: str) -> None:
        results.setdefault(name, ConfigValue(name, props.get(name))).errors.append(message)

    def value(name: str) -> Any:
        cv = results.get(name)
        return None if cv is None else cv.value

    for name in _REQUIRED:
        if value(name) in (None, "") and not results[name].errors:
            error(name, "A value is required")
    precision = str(value("time.precision.mode") or "").lower()
    if precision == "adaptive":
        error("time.precision.mode", "The 'adaptive' time.precision.mode is no longer supported")
    elif precision not in ("", "adaptive_time_microseconds", "connect"):
        error("time.precision.mode", "Value must be one of adaptive_time_microseconds, connect")
    for include, exclude in (
        ("table.include.list", "table.exclude.list"),
        ("column.include.list", "column.exclude.list"),
    ):
        if value(include) and value(exclude):
            error(exclude, f'"{include}" is already specified')
    batch, queue = value("max.batch.size"), value("max.queue.size")
    if isinstance(batch, int) and isinstance(queue, int) and queue <= batch:
        error("max.queue.size", "Must be larger than the maximum batch size")
    if value("vitess.offset.storage.per.task"):
        error("vitess.offset.storage.per.task", "Offsets per task (several tasks) are not supported by this worker yet")
    tasks = props.get("tasks.max")
    if tasks is not None and str(tasks).strip() not in ("", "1"):
        error("tasks.max", "The Vitess connector runs one task here (offsets per task are not supported yet)")
    if value("transaction.metadata.factory") not in (None, DEFAULT_TX_FACTORY):
        error(
            "transaction.metadata.factory",
            f"Only {DEFAULT_TX_FACTORY} is supported by this worker (the ordered factory is not built yet)",
        )
    if value("topic.naming.strategy") not in (SCHEMA_TOPIC_STRATEGY, TABLE_TOPIC_STRATEGY):
        error("topic.naming.strategy", f"Value must be {SCHEMA_TOPIC_STRATEGY} or {TABLE_TOPIC_STRATEGY}")
    start = value("vitess.vgtid") or value("vitess.gtid")
    if start and not value("vitess.shard"):
        error("vitess.gtid" if value("vitess.gtid") else "vitess.vgtid", "A start position needs vitess.shard")
    for key in props:
        if key.startswith(_REFUSED_PREFIXES):
            error(
                key,
                "Notifications are not built for Vitess here (Debezium's Vitess connector can only send an "
                "'Initial Snapshot' SKIPPED one: its snapshot is VStream Copy inside streaming)"
                if key.startswith("notification.")
                else "Signals and incremental snapshots do not exist for Vitess: Debezium's Vitess connector runs no "
                "signal processor and no incremental snapshot source (its initial snapshot is VStream Copy)",
            )
    return results
