"""The PostgreSQL connector's configuration: one ConfigDef, one frozen typed config, every problem at once.

``POSTGRES_CONFIG_DEF`` lists the keys of Debezium 3.6.3's ``PostgresConnector.config()`` in its order,
groups (``Postgres``, ``Connector``, ``Events``), types, defaults, importance and widths (checked against
the 3.6.3 jar), with documentation in our own words. A few keys the connector reads but Debezium's
ConfigDef does not list (the topic naming strategy's keys, ``money.fraction.digits``, the Kafka signal
channel, ...) follow them with ``internal=True`` and no group, so /config/validate can hide them.

:func:`validate_props` answers /config/validate: one :class:`ConfigValue` per key, with Debezium's error
texts (``The 'slot.name' value is invalid: ...``) plus the cross-field rules; it never raises.
:meth:`PostgresConnectorConfig.from_props` parses once into a frozen object and raises a ConfigError
naming every problem. Neither ever shows a password: ``Password`` values stay wrapped, and no message
quotes the value of a password key.

The libpq helpers (:func:`conninfo`, :func:`split_initial_statements`) build connection strings with
every value quoted per libpq's rules; a conninfo that holds a password must never be logged — use
:func:`describe_connection` for logs and :func:`redact` on any text that might echo the secret.

This module holds the typed config and re-exports the public names of the modules that do the work:
config_modes (the enumerations), config_keys (the ConfigDef), config_checks (one value at a time),
config_entries (rule lists inside values), config_validation (/config/validate) and libpq.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from typing import Any, Final

from connect_worker.api.config import Password
from connect_worker.api.errors import ConfigError
from connectors.postgres.config.entries import (
    KeyColumnsRule,
    ReplicaIdentityRule,
    parse_replica_identity_rules,
    split_initial_statements,
    split_list,
)
from connectors.postgres.config.keys import POSTGRES_CONFIG_DEF
from connectors.postgres.config.modes import (
    AutoCreateMode,
    BinaryHandlingMode,
    DecimalHandlingMode,
    EventProcessingFailureHandlingMode,
    HStoreHandlingMode,
    IntervalHandlingMode,
    LogicalDecoder,
    LsnFlushMode,
    LsnFlushTimeoutAction,
    NameAdjustmentMode,
    SchemaRefreshMode,
    SecureConnectionMode,
    SnapshotIsolationMode,
    SnapshotLockingMode,
    SnapshotMode,
    SnapshotQueryMode,
    TimePrecisionMode,
)
from connectors.postgres.config.validation import Outcome, check_props, validate_props
from connectors.postgres.libpq import conninfo, describe_connection, libpq_quote, redact
from connectors.relational.column_mappers import ColumnRule, parse_column_rules
from connectors.relational.filters import split_regex_list
from connectors.relational.signaling_config import SignalingConfig, signaling_config

__all__ = [
    "POSTGRES_CONFIG_DEF",
    "AutoCreateMode",
    "BinaryHandlingMode",
    "DecimalHandlingMode",
    "EventProcessingFailureHandlingMode",
    "HStoreHandlingMode",
    "IntervalHandlingMode",
    "KeyColumnsRule",
    "LogicalDecoder",
    "LsnFlushMode",
    "LsnFlushTimeoutAction",
    "NameAdjustmentMode",
    "PostgresConnectorConfig",
    "ReplicaIdentityRule",
    "SchemaRefreshMode",
    "SecureConnectionMode",
    "SnapshotIsolationMode",
    "SnapshotLockingMode",
    "SnapshotMode",
    "SnapshotQueryMode",
    "TimePrecisionMode",
    "conninfo",
    "describe_connection",
    "libpq_quote",
    "parse_replica_identity_rules",
    "redact",
    "split_initial_statements",
    "split_regex_list",
    "validate_props",
]

log = logging.getLogger(__name__)

#: What connector_and_driver sets heartbeat.interval.ms to when it is 0 (Debezium 3.6.3 does the same).
DRIVER_FLUSH_HEARTBEAT_MS: Final = 600_000


def _heartbeat_fallback(mode: LsnFlushMode, heartbeat_ms: int, transaction_metadata: bool) -> int:
    """lsn.flush.mode=connector_and_driver advances the slot through heartbeat offsets: without heartbeats (and
    without transaction metadata) it turns them on at a 10-minute interval, with a warning, as Debezium does."""
    if mode is not LsnFlushMode.CONNECTOR_AND_DRIVER or heartbeat_ms or transaction_metadata:
        return heartbeat_ms
    log.warning(
        "heartbeat.interval.ms was internally set to %d ms since lsn.flush.mode=connector_and_driver requires "
        "periodic opportunities to propagate LSNs to Kafka. If this behavior is not desired, explicitly set "
        "heartbeat.interval.ms to more than 0 or enable provide.transaction.metadata.",
        DRIVER_FLUSH_HEARTBEAT_MS,
    )
    return DRIVER_FLUSH_HEARTBEAT_MS


# -- the typed config -------------------------------------------------------------------------------------------------
@dataclasses.dataclass(frozen=True, slots=True)
class PostgresConnectorConfig:
    """The parsed configuration; build it with :meth:`from_props`. Passwords stay :class:`Password`."""

    topic_prefix: str
    hostname: str
    port: int
    user: str
    password: Password | None
    dbname: str
    query_timeout_ms: int
    plugin_name: LogicalDecoder
    slot_name: str
    publication_name: str
    publication_autocreate_mode: AutoCreateMode
    replica_identity_autoset_values: tuple[ReplicaIdentityRule, ...]
    slot_drop_on_stop: bool
    slot_failover: bool
    slot_stream_params: str | None
    initial_statements: tuple[str, ...]
    sslmode: SecureConnectionMode
    sslcert: str | None
    sslkey: str | None
    sslrootcert: str | None
    sslpassword: Password | None
    slot_max_retries: int
    slot_retry_delay_ms: int
    status_update_interval_ms: int
    tcp_keepalive: bool
    skipped_operations: frozenset[str]
    lsn_flush_mode: LsnFlushMode
    event_processing_failure_handling_mode: EventProcessingFailureHandlingMode
    max_batch_size: int
    max_queue_size: int
    max_queue_size_in_bytes: int
    poll_interval_ms: int
    provide_transaction_metadata: bool
    snapshot_delay_ms: int
    snapshot_include_collection_list: tuple[str, ...]
    snapshot_max_threads: int
    snapshot_max_threads_multiplier: int
    legacy_snapshot_max_threads: bool  # one piece per table (either legacy key)
    snapshot_mode: SnapshotMode
    snapshot_mode_custom_name: str | None
    snapshot_data: bool
    snapshot_schema: bool
    snapshot_start_stream: bool
    snapshot_on_schema_error: bool
    snapshot_on_data_error: bool
    snapshot_locking_mode: SnapshotLockingMode
    snapshot_locking_mode_custom_name: str | None
    snapshot_query_mode: SnapshotQueryMode
    snapshot_query_mode_custom_name: str | None
    snapshot_lock_timeout_ms: int
    snapshot_select_statement_overrides: Mapping[str, str]
    retriable_restart_wait_ms: int
    errors_max_retries: int
    log_position_check_enable: bool
    decimal_handling_mode: DecimalHandlingMode
    time_precision_mode: TimePrecisionMode
    hstore_handling_mode: HStoreHandlingMode
    binary_handling_mode: BinaryHandlingMode
    interval_handling_mode: IntervalHandlingMode
    schema_name_adjustment_mode: NameAdjustmentMode
    field_name_adjustment_mode: NameAdjustmentMode
    unavailable_value_placeholder: str
    money_fraction_digits: int
    message_prefix_include_list: tuple[str, ...]
    message_prefix_exclude_list: tuple[str, ...]
    publish_via_partition_root: bool
    tombstones_on_delete: bool
    heartbeat_interval_ms: int
    heartbeat_action_query: str | None
    topic_heartbeat_prefix: str
    topic_delimiter: str
    topic_transaction: str
    topic_cache_size: int
    schema_include_list: tuple[str, ...]
    schema_exclude_list: tuple[str, ...]
    table_include_list: tuple[str, ...]
    table_exclude_list: tuple[str, ...]
    column_include_list: tuple[str, ...]
    column_exclude_list: tuple[str, ...]
    table_ignore_builtin: bool
    message_key_columns: str | None
    #: column.truncate/mask/hash and *.propagate.source.type rules, in the order Debezium tries them
    column_rules: tuple[ColumnRule, ...]
    include_unknown_datatypes: bool
    skip_messages_without_change: bool
    converters: tuple[str, ...]
    #: signals, incremental snapshots, notifications
    signaling: SignalingConfig = dataclasses.field(default_factory=SignalingConfig)
    #: YugabyteDB's slot.lsn.type (SEQUENCE or HYBRID_TIME), used when the server is YugabyteDB.
    slot_lsn_type: str = "SEQUENCE"
    #: ``database.*`` keys nobody defines, prefix stripped, for the driver (see :func:`conninfo`).
    driver_properties: Mapping[str, str] = dataclasses.field(default_factory=dict, repr=False)
    #: Every defined key's parsed value by property name (passwords as Password).
    values: Mapping[str, Any] = dataclasses.field(default_factory=dict, repr=False)
    #: The defined keys the user set (after deprecated aliases), e.g. to tell a default from a choice.
    supplied_keys: frozenset[str] = frozenset()
    #: Deprecation notes produced while parsing.
    warnings: tuple[str, ...] = ()

    @classmethod
    def from_props(cls, props: Mapping[str, Any]) -> PostgresConnectorConfig:
        """Parse once; raise one ConfigError listing every problem (never a password value)."""
        outcome = check_props(props)
        errors = [e for cv in outcome.values.values() for e in cv.errors]
        if errors:
            first = next(cv.name for cv in outcome.values.values() if cv.errors)
            raise ConfigError("Invalid PostgreSQL connector configuration: " + "; ".join(errors), name=first)
        for warning in outcome.warnings:
            log.warning("%s", warning)
        return cls._build(outcome, props)

    @classmethod
    def _build(cls, o: Outcome, props: Mapping[str, Any]) -> PostgresConnectorConfig:
        p = o.parsed

        def s(name: str) -> str | None:
            v = p[name]
            return None if v is None else str(v)

        def t(name: str) -> tuple[str, ...]:
            return tuple(p[name] or ())

        def e(name: str) -> str:
            return str(p[name]).lower()

        skipped = frozenset(op.lower() for op in p["skipped.operations"] or ()) - {"none"}
        flush_mode = p["lsn.flush.mode"]
        if flush_mode is None:
            flush_mode = "connector" if p["flush.lsn.source"] else "manual"
        heartbeat_ms = _heartbeat_fallback(
            LsnFlushMode(str(flush_mode).lower()), p["heartbeat.interval.ms"], p["provide.transaction.metadata"]
        )
        heartbeat_prefix = p["topic.heartbeat.prefix"]
        if "topic.heartbeat.prefix" not in o.supplied:
            heartbeat_prefix = p["heartbeat.topics.prefix"]
        return cls(
            topic_prefix=p["topic.prefix"],
            hostname=p["database.hostname"],
            port=p["database.port"],
            user=p["database.user"],
            password=p["database.password"],
            dbname=p["database.dbname"],
            query_timeout_ms=p["database.query.timeout.ms"],
            plugin_name=LogicalDecoder(e("plugin.name")),
            slot_name=p["slot.name"],
            publication_name=p["publication.name"],
            publication_autocreate_mode=AutoCreateMode(e("publication.autocreate.mode")),
            replica_identity_autoset_values=o.replica_rules,
            slot_drop_on_stop=p["slot.drop.on.stop"],
            slot_failover=p["slot.failover"],
            slot_stream_params=s("slot.stream.params"),
            initial_statements=split_initial_statements(p["database.initial.statements"]),
            sslmode=SecureConnectionMode(e("database.sslmode")),
            sslcert=s("database.sslcert"),
            sslkey=s("database.sslkey"),
            sslrootcert=s("database.sslrootcert"),
            sslpassword=p["database.sslpassword"],
            slot_max_retries=p["slot.max.retries"],
            slot_retry_delay_ms=p["slot.retry.delay.ms"],
            status_update_interval_ms=p["status.update.interval.ms"],
            tcp_keepalive=p["database.tcpKeepAlive"],
            skipped_operations=skipped,
            lsn_flush_mode=LsnFlushMode(str(flush_mode).lower()),
            event_processing_failure_handling_mode=EventProcessingFailureHandlingMode(
                e("event.processing.failure.handling.mode")
            ),
            max_batch_size=p["max.batch.size"],
            max_queue_size=p["max.queue.size"],
            max_queue_size_in_bytes=p["max.queue.size.in.bytes"],
            poll_interval_ms=p["poll.interval.ms"],
            provide_transaction_metadata=p["provide.transaction.metadata"],
            snapshot_delay_ms=p["snapshot.delay.ms"],
            snapshot_include_collection_list=t("snapshot.include.collection.list"),
            snapshot_max_threads=p["snapshot.max.threads"],
            snapshot_max_threads_multiplier=p["snapshot.max.threads.multiplier"],
            legacy_snapshot_max_threads=bool(
                p["legacy.snapshot.max.threads"] or p["internal.legacy.snapshot.max.threads"]
            ),
            snapshot_mode=SnapshotMode(e("snapshot.mode")),
            snapshot_mode_custom_name=s("snapshot.mode.custom.name"),
            snapshot_data=p["snapshot.mode.configuration.based.snapshot.data"],
            snapshot_schema=p["snapshot.mode.configuration.based.snapshot.schema"],
            snapshot_start_stream=p["snapshot.mode.configuration.based.start.stream"],
            snapshot_on_schema_error=p["snapshot.mode.configuration.based.snapshot.on.schema.error"],
            snapshot_on_data_error=p["snapshot.mode.configuration.based.snapshot.on.data.error"],
            snapshot_locking_mode=SnapshotLockingMode(e("snapshot.locking.mode")),
            snapshot_locking_mode_custom_name=s("snapshot.locking.mode.custom.name"),
            snapshot_query_mode=SnapshotQueryMode(e("snapshot.query.mode")),
            snapshot_query_mode_custom_name=s("snapshot.query.mode.custom.name"),
            snapshot_lock_timeout_ms=p["snapshot.lock.timeout.ms"],
            snapshot_select_statement_overrides=dict(o.select_overrides),
            retriable_restart_wait_ms=p["retriable.restart.connector.wait.ms"],
            errors_max_retries=p["errors.max.retries"],
            log_position_check_enable=p["internal.log.position.check.enable"],
            decimal_handling_mode=DecimalHandlingMode(e("decimal.handling.mode")),
            time_precision_mode=TimePrecisionMode(e("time.precision.mode")),
            hstore_handling_mode=HStoreHandlingMode(e("hstore.handling.mode")),
            binary_handling_mode=BinaryHandlingMode(e("binary.handling.mode")),
            interval_handling_mode=IntervalHandlingMode(e("interval.handling.mode")),
            schema_name_adjustment_mode=NameAdjustmentMode(e("schema.name.adjustment.mode")),
            field_name_adjustment_mode=NameAdjustmentMode(e("field.name.adjustment.mode")),
            unavailable_value_placeholder=p["unavailable.value.placeholder"],
            money_fraction_digits=p["money.fraction.digits"],
            message_prefix_include_list=t("message.prefix.include.list"),
            message_prefix_exclude_list=t("message.prefix.exclude.list"),
            publish_via_partition_root=p["publish.via.partition.root"],
            tombstones_on_delete=p["tombstones.on.delete"],
            heartbeat_interval_ms=heartbeat_ms,
            heartbeat_action_query=s("heartbeat.action.query"),
            topic_heartbeat_prefix=heartbeat_prefix,
            topic_delimiter=p["topic.delimiter"],
            topic_transaction=p["topic.transaction"],
            topic_cache_size=p["topic.cache.size"],
            schema_include_list=t("schema.include.list"),
            schema_exclude_list=t("schema.exclude.list"),
            table_include_list=t("table.include.list"),
            table_exclude_list=t("table.exclude.list"),
            column_include_list=t("column.include.list"),
            column_exclude_list=t("column.exclude.list"),
            table_ignore_builtin=p["table.ignore.builtin"],
            message_key_columns=s("message.key.columns"),
            signaling=signaling_config(p, props, p["topic.prefix"]),
            column_rules=parse_column_rules(props)[0],  # problems: already errors above
            include_unknown_datatypes=p["include.unknown.datatypes"],
            skip_messages_without_change=p["skip.messages.without.change"],
            converters=tuple(split_list(p["converters"])) if p["converters"] else (),
            driver_properties=dict(o.driver_properties),
            values=dict(p),
            supplied_keys=frozenset(o.supplied),
            warnings=tuple(o.warnings),
        )

    @property
    def unavailable_value_placeholder_bytes(self) -> bytes:
        """The TOAST placeholder as bytes (a ``hex:`` prefix means hexadecimal)."""
        text = self.unavailable_value_placeholder
        if text.startswith("hex:"):
            return bytes.fromhex(text[4:])
        return text.encode("utf-8")

    @property
    def pgoutput(self) -> bool:
        """The plug-in speaks pgoutput's protocol and streams a publication (pgoutput, YugabyteDB's yboutput)."""
        return self.plugin_name is not LogicalDecoder.DECODERBUFS
