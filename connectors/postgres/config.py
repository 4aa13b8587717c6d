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
"""

from __future__ import annotations

import dataclasses
import enum
import logging
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, ConfigValue, Importance, Password, Width
from connect_worker.api.errors import ConfigError
from connectors.relational.filters import JavaRegexError, java_regex, split_regex_list

__all__ = [
    "POSTGRES_CONFIG_DEF",
    "AutoCreateMode",
    "BinaryHandlingMode",
    "ColumnMaskRule",
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


# -- enumerations ------------------------------------------------------------------------------------------
class LogicalDecoder(enum.StrEnum):
    DECODERBUFS = "decoderbufs"
    PGOUTPUT = "pgoutput"


class SnapshotMode(enum.StrEnum):
    ALWAYS = "always"
    INITIAL = "initial"
    NO_DATA = "no_data"
    INITIAL_ONLY = "initial_only"
    WHEN_NEEDED = "when_needed"
    CONFIGURATION_BASED = "configuration_based"
    CUSTOM = "custom"


class AutoCreateMode(enum.StrEnum):
    DISABLED = "disabled"
    ALL_TABLES = "all_tables"
    FILTERED = "filtered"
    NO_TABLES = "no_tables"


class SecureConnectionMode(enum.StrEnum):
    DISABLE = "disable"
    ALLOW = "allow"
    PREFER = "prefer"
    REQUIRE = "require"
    VERIFY_CA = "verify-ca"
    VERIFY_FULL = "verify-full"


class SnapshotIsolationMode(enum.StrEnum):
    SERIALIZABLE = "serializable"
    REPEATABLE_READ = "repeatable_read"
    READ_COMMITTED = "read_committed"
    READ_UNCOMMITTED = "read_uncommitted"


class SnapshotLockingMode(enum.StrEnum):
    SHARED = "shared"
    NONE = "none"
    CUSTOM = "custom"


class SnapshotQueryMode(enum.StrEnum):
    SELECT_ALL = "select_all"
    CUSTOM = "custom"


class HStoreHandlingMode(enum.StrEnum):
    JSON = "json"
    MAP = "map"


class IntervalHandlingMode(enum.StrEnum):
    NUMERIC = "numeric"
    STRING = "string"


class SchemaRefreshMode(enum.StrEnum):
    COLUMNS_DIFF = "columns_diff"
    COLUMNS_DIFF_EXCLUDE_UNCHANGED_TOAST = "columns_diff_exclude_unchanged_toast"


class DecimalHandlingMode(enum.StrEnum):
    PRECISE = "precise"
    DOUBLE = "double"
    STRING = "string"


class TimePrecisionMode(enum.StrEnum):
    ADAPTIVE = "adaptive"
    ADAPTIVE_TIME_MICROSECONDS = "adaptive_time_microseconds"
    CONNECT = "connect"
    ISOSTRING = "isostring"
    MICROSECONDS = "microseconds"
    NANOSECONDS = "nanoseconds"


class BinaryHandlingMode(enum.StrEnum):
    BYTES = "bytes"
    BASE64 = "base64"
    BASE64_URL_SAFE = "base64-url-safe"
    HEX = "hex"


class NameAdjustmentMode(enum.StrEnum):
    NONE = "none"
    AVRO = "avro"
    AVRO_UNICODE = "avro_unicode"


class EventProcessingFailureHandlingMode(enum.StrEnum):
    FAIL = "fail"
    WARN = "warn"
    SKIP = "skip"
    IGNORE = "ignore"


class LsnFlushMode(enum.StrEnum):
    CONNECTOR = "connector"
    MANUAL = "manual"
    CONNECTOR_AND_DRIVER = "connector_and_driver"


class LsnFlushTimeoutAction(enum.StrEnum):
    FAIL = "fail"
    WARN = "warn"
    IGNORE = "ignore"


# The order Debezium 3.6.3 lists enum values in its "Value must be one of ..." messages (a Java HashSet's).
_ENUMS: Final[dict[str, tuple[str, ...]]] = {
    "plugin.name": ("decoderbufs", "pgoutput"),
    "publication.autocreate.mode": ("no_tables", "filtered", "disabled", "all_tables"),
    "database.sslmode": ("allow", "prefer", "disable", "verify-ca", "require", "verify-full"),
    "lsn.flush.timeout.action": ("fail", "warn", "ignore"),
    "lsn.flush.mode": ("connector_and_driver", "connector", "manual"),
    "event.processing.failure.handling.mode": ("warn", "fail", "ignore", "skip"),
    "incremental.snapshot.watermarking.strategy": ("insert_delete", "insert_insert"),
    "guardrail.collections.limit.action": ("warn", "fail"),
    "decimal.handling.mode": ("string", "double", "precise"),
    "time.precision.mode": (
        "adaptive",
        "adaptive_time_microseconds",
        "isostring",
        "microseconds",
        "nanoseconds",
        "connect",
    ),
    "snapshot.mode": ("always", "initial_only", "configuration_based", "when_needed", "initial", "custom", "no_data"),
    "snapshot.isolation.mode": ("read_uncommitted", "repeatable_read", "read_committed", "serializable"),
    "snapshot.query.mode": ("custom", "select_all"),
    "snapshot.locking.mode": ("shared", "custom", "none"),
    "hstore.handling.mode": ("json", "map"),
    "binary.handling.mode": ("bytes", "base64", "hex", "base64-url-safe"),
    "schema.name.adjustment.mode": ("none", "avro_unicode", "avro"),
    "interval.handling.mode": ("string", "numeric"),
    "schema.refresh.mode": ("columns_diff", "columns_diff_exclude_unchanged_toast"),
    "snapshot.tables.order.by.row.count": ("disabled", "ascending", "descending"),
    "field.name.adjustment.mode": ("none", "avro_unicode", "avro"),
    "event.converting.failure.handling.mode": ("warn", "fail", "skip"),
}

#: Deprecated snapshot.mode values accepted with a warning (Debezium 3.6.3 itself rejects them).
SNAPSHOT_MODE_ALIASES: Final[dict[str, str]] = {"never": "no_data", "exported": "initial"}

#: Properties of the 1.x documentation accepted as deprecated aliases (the new name wins when both are set).
DEPRECATED_ALIASES: Final[dict[str, str]] = {
    "database.server.name": "topic.prefix",
    "schema.whitelist": "schema.include.list",
    "schema.blacklist": "schema.exclude.list",
    "table.whitelist": "table.include.list",
    "table.blacklist": "table.exclude.list",
    "column.whitelist": "column.include.list",
    "column.blacklist": "column.exclude.list",
    "snapshot.custom.class": "snapshot.mode.custom.name",
    "toasted.value.placeholder": "unavailable.value.placeholder",
}

# -- Debezium's validation messages --------------------------------------------------------------------------
_REQUIRED = "A value is required"
_INT = "An integer is expected"
_LONG = "A long value is expected"
_BOOL = "Either 'true' or 'false' is expected"
_POS_INT = "A positive, non-zero integer value is expected"
_NON_NEG_INT = "An non-negative integer is expected"
_NON_NEG_LONG = "A non-negative long value is expected"
_POS_LONG = "A positive, non-zero long value is expected"

#: Range rules per key: (message, predicate on the parsed number).
_RANGES: Final[dict[str, tuple[str, Callable[[int], bool]]]] = {
    "status.update.interval.ms": (_POS_INT, lambda n: n > 0),
    "lsn.flush.timeout.ms": (_POS_INT, lambda n: n > 0),
    "xmin.fetch.interval.ms": (_NON_NEG_LONG, lambda n: n >= 0),
    "max.batch.size": (_POS_INT, lambda n: n > 0),
    "max.queue.size": (_POS_INT, lambda n: n > 0),
    "poll.interval.ms": (_POS_INT, lambda n: n > 0),
    "max.queue.size.in.bytes": (_NON_NEG_LONG, lambda n: n >= 0),
    "snapshot.delay.ms": (_NON_NEG_LONG, lambda n: n >= 0),
    "streaming.delay.ms": (_NON_NEG_LONG, lambda n: n >= 0),
    "snapshot.fetch.size": (_NON_NEG_INT, lambda n: n >= 0),
    "snapshot.max.threads": (_POS_INT, lambda n: n > 0),
    "snapshot.max.threads.multiplier": (_POS_INT, lambda n: n > 0),
    "retriable.restart.connector.wait.ms": (_POS_LONG, lambda n: n > 0),
    "query.fetch.size": (_NON_NEG_INT, lambda n: n >= 0),
    "incremental.snapshot.chunk.size": (_NON_NEG_INT, lambda n: n >= 0),
    "heartbeat.interval.ms": (_NON_NEG_INT, lambda n: n >= 0),
    "signal.poll.interval.ms": (_POS_INT, lambda n: n > 0),
    "topic.cache.size": (_POS_INT, lambda n: n > 0),
    "money.fraction.digits": (_NON_NEG_INT, lambda n: n >= 0),
}

_REQUIRED_KEYS: Final = ("topic.prefix", "database.hostname", "database.user", "database.dbname")

#: Comma-separated lists of anchored Java regular expressions.
_REGEX_LISTS: Final = frozenset(
    {
        "schema.include.list",
        "schema.exclude.list",
        "table.include.list",
        "table.exclude.list",
        "column.include.list",
        "column.exclude.list",
        "message.prefix.include.list",
        "message.prefix.exclude.list",
        "snapshot.include.collection.list",
        "column.propagate.source.type",
        "datatype.propagate.source.type",
    }
)

#: (include, exclude, the name Debezium's message quotes)
_EXCLUSIVE: Final = (
    ("schema.include.list", "schema.exclude.list", "schema.include.list"),
    ("table.include.list", "table.exclude.list", "table.include.list"),
    ("column.include.list", "column.exclude.list", "column.include.list"),
    ("message.prefix.include.list", "message.prefix.exclude.list", "logical_decoding_message.prefix.include.list"),
)

_SLOT_NAME = re.compile(r"[a-z0-9_]{1,63}")
_TOPIC_PREFIX = re.compile(r"[A-Za-z0-9._-]+")
_REPLICA_IDENTITY = re.compile(
    r"^\s*(?P<table>[^\s:]+):(?P<identity>DEFAULT|(?P<index>INDEX) (?P<index_name>.\w*)|FULL|NOTHING)\s*$",
    re.IGNORECASE,
)
_REPLICA_IDENTITY_JAVA = (
    r"(?i)^\s*(?<tablepredicate>[^\s:]+):(?<replicaidentity>DEFAULT|(INDEX) (?<indexname>.\w*)|FULL|NOTHING)\s*$"
)
_KEY_COLUMNS = re.compile(r"^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$")
_KEY_COLUMNS_JAVA = r"^\s*([^:]+):([^:,]+(,[^:,]+)*)\s*$"
_TRUNCATE_KEY = re.compile(r"column\.truncate\.to\.(?P<n>[^.]+)\.chars")
_MASK_KEY = re.compile(r"column\.mask\.with\.(?P<n>[^.]+)\.chars")
_HASH_KEY = re.compile(r"column\.mask\.hash\.(?P<v2>v2\.)?(?P<alg>[^.]+)\.with\.salt\.(?P<salt>.+)")
#: MessageDigest names every Java runtime provides (case-insensitive), which column.mask.hash may name.
_HASH_ALGORITHMS: Final = frozenset(
    "MD2 MD5 SHA SHA-1 SHA1 SHA-224 SHA-256 SHA-384 SHA-512 SHA-512/224 SHA-512/256 "
    "SHA3-224 SHA3-256 SHA3-384 SHA3-512".lower().split()
)
_SKIPPED_OPS: Final = frozenset({"c", "u", "d", "t", "none"})


# -- the keys ----------------------------------------------------------------------------------------------------
_S, _I, _L, _B, _LIST, _C, _P, _SH = (
    ConfigType.STRING,
    ConfigType.INT,
    ConfigType.LONG,
    ConfigType.BOOLEAN,
    ConfigType.LIST,
    ConfigType.CLASS,
    ConfigType.PASSWORD,
    ConfigType.SHORT,
)
_HI, _MED, _LO = Importance.HIGH, Importance.MEDIUM, Importance.LOW
_WN, _WS, _WM, _WL = Width.NONE, Width.SHORT, Width.MEDIUM, Width.LONG

# (name, type, default, importance, width, display name, documentation)
_KeyRow = tuple[str, ConfigType, Any, Importance, Width, str, str]

# fmt: off
_POSTGRES: Final[list[_KeyRow]] = [
    ("topic.prefix", _S, None, _HI, _WM, "Topic prefix",
     "Namespace of every topic and schema name the connector produces; letters, digits, '.', '_' and '-'. "
     "It identifies the logical server in offsets, so it must never change."),
    ("database.hostname", _S, None, _HI, _WM, "Hostname", "Host name or IP address of the PostgreSQL server."),
    ("database.port", _I, 5432, _HI, _WS, "Port", "TCP port of the PostgreSQL server."),
    ("database.user", _S, None, _HI, _WS, "User", "Role the connector logs in as; it needs LOGIN and REPLICATION."),
    ("database.password", _P, None, _HI, _WS, "Password", "Password of that role."),
    ("database.dbname", _S, None, _HI, _WM, "Database", "Database whose changes are captured."),
    ("database.query.timeout.ms", _I, 600000, _LO, _WN, "Query timeout",
     "Longest a query on the regular connection may run, in milliseconds; 0 means no limit."),
    ("plugin.name", _S, "decoderbufs", _MED, _WM, "Plugin",
     "Logical decoding output plug-in on the server: 'decoderbufs' (the default) or 'pgoutput' (built in)."),
    ("slot.name", _S, "debezium", _MED, _WM, "Slot",
     "Logical replication slot the connector streams from: lower-case letters, digits and '_', at most 63."),
    ("publication.name", _S, "dbz_publication", _MED, _WM, "Publication",
     "Publication pgoutput streams from."),
    ("publication.autocreate.mode", _S, "all_tables", _MED, _WM, "Publication Auto Create Mode",
     "pgoutput only. 'all_tables' creates the publication FOR ALL TABLES when missing; 'disabled' expects it "
     "to exist; 'filtered' creates or updates it FOR TABLE the captured tables; 'no_tables' creates it empty."),
    ("replica.identity.autoset.values", _S, None, _MED, _WL, "Replica Identity Auto Set Values",
     "Comma-separated '<table regex>:<identity>' entries (DEFAULT, FULL, NOTHING or INDEX <name>); at start the "
     "connector sets that REPLICA IDENTITY on each matching captured table, overriding the database."),
    ("slot.drop.on.stop", _B, False, _MED, _WN, "Drop slot on stop",
     "Drop the slot when the connector stops cleanly. For tests only: changes made while stopped are lost."),
    ("slot.failover", _B, False, _MED, _WN, "Create failover slot",
     "Create the slot as a failover slot (PostgreSQL 17+ primaries only; ignored elsewhere)."),
    ("slot.stream.params", _S, None, _LO, _WL,
     "Optional parameters to pass to the logical decoder when the stream is started.",
     "Extra options for the output plug-in, as ';'-separated key=value pairs."),
    ("database.initial.statements", _S, None, _LO, _WL, "Initial statements",
     "';'-separated SQL run on every regular (non-replication) connection when it opens; ';;' is a literal ';'. "
     "Meant for session settings."),
    ("database.sslmode", _S, "prefer", _MED, _WM, "SSL mode",
     "TLS use, with libpq's meaning: disable, allow, prefer (the default), require, verify-ca or verify-full."),
    ("database.sslcert", _S, None, _MED, _WL, "SSL Client Certificate", "File with the client's TLS certificate."),
    ("database.sslpassword", _P, None, _MED, _WM, "SSL Client Key Password",
     "Password protecting the key in database.sslkey."),
    ("database.sslrootcert", _S, None, _MED, _WL, "SSL Root Certificate",
     "File with the CA certificates the server's certificate is checked against."),
    ("database.sslkey", _S, None, _MED, _WL, "SSL Client Key", "File with the client's TLS private key."),
    ("slot.max.retries", _I, 6, _LO, _WN, "Retry count",
     "How many more times to try opening the replication slot when it is busy or unreachable."),
    ("slot.retry.delay.ms", _L, 10000, _LO, _WN, "Retry delay", "Pause between those attempts, in milliseconds."),
    ("database.sslfactory", _S, None, _MED, _WL, "SSL Root Certificate",
     "Java SSL socket factory class; accepted for compatibility and ignored (use database.sslmode)."),
    ("status.update.interval.ms", _I, 10000, _MED, _WS, "Status update interval (ms)",
     "How often the replication connection reports its position to the server, in milliseconds."),
    ("lsn.flush.timeout.ms", _L, 30000, _MED, _WS, "LSN flush timeout (ms)",
     "Longest wait for an acknowledged position to reach the server before lsn.flush.timeout.action applies."),
    ("lsn.flush.timeout.action", _S, "fail", _MED, _WM, "LSN flush timeout action",
     "What a flush timeout does: 'fail' the connector, 'warn' and go on, or 'ignore' it."),
    ("database.tcpKeepAlive", _B, True, _MED, _WS, "TCP keep-alive probe",
     "Send TCP keep-alive probes so idle connections are not dropped silently."),
    ("xmin.fetch.interval.ms", _L, 0, _MED, _WS, "Xmin fetch interval (ms)",
     "How often to read the slot's xmin into the offsets, in milliseconds; 0 turns xmin tracking off."),
    ("skipped.operations", _LIST, ("t",), _LO, _WS, "Skipped Operations",
     "Streaming operations not to emit: any of c (create), u (update), d (delete), t (truncate), or none."),
    ("lsn.flush.mode", _S, None, _LO, _WS, "LSN flush mode",
     "Who confirms positions to the slot: 'connector' (default), 'manual' (nobody; WAL is kept) or "
     "'connector_and_driver'. Replaces flush.lsn.source."),
    ("flush.lsn.source", _B, True, _LO, _WS,
     "Boolean to determine if Debezium should flush LSN in the source database",
     "Deprecated: false means lsn.flush.mode=manual."),
]

_CONNECTOR: Final[list[_KeyRow]] = [
    ("event.processing.failure.handling.mode", _S, "fail", _MED, _WS, "Event deserialization failure handling",
     "What a change event that cannot be processed does: 'fail' stops, 'warn' logs and skips, 'skip' skips."),
    ("max.batch.size", _I, 2048, _MED, _WS, "Change event batch size", "Most events handed over per poll."),
    ("max.queue.size", _I, 8192, _MED, _WS, "Change event buffer size",
     "Capacity of the queue between the database reader and Kafka; must exceed max.batch.size."),
    ("poll.interval.ms", _L, 500, _MED, _WS, "Poll interval (ms)", "How long a poll waits for events to arrive."),
    ("max.queue.size.in.bytes", _L, 0, _MED, _WL, "Change event buffer size in bytes",
     "Byte limit of the queue; 0 means only max.queue.size applies."),
    ("provide.transaction.metadata", _B, False, _LO, _WS,
     "Store transaction metadata information in a dedicated topic.",
     "Emit transaction BEGIN/END events and add transaction data to change events."),
    ("snapshot.delay.ms", _L, 0, _LO, _WM, "Snapshot Delay (milliseconds)", "Wait before a snapshot starts."),
    ("streaming.delay.ms", _L, 0, _LO, _WM, "Streaming Delay (milliseconds)", "Wait before streaming starts."),
    ("snapshot.include.collection.list", _LIST, None, _MED, _WL, "Snapshot mode include data collection",
     "Regexes of the captured tables to snapshot; all captured tables by default."),
    ("snapshot.fetch.size", _I, None, _MED, _WM, "Snapshot fetch size",
     "Rows fetched per round trip while snapshotting (10240 when unset)."),
    ("snapshot.max.threads", _I, 1, _MED, _WS, "Snapshot maximum threads", "Tables snapshotted in parallel."),
    ("snapshot.max.threads.multiplier", _I, 1, _MED, _WS, "Snapshot maximum thread multiplier",
     "Chunks per snapshot thread when large tables are split."),
    ("legacy.snapshot.max.threads", _B, False, _LO, _WS,
     "Enforces using a single thread per table regardless of table size",
     "Snapshot each table in one piece, however large."),
    ("internal.legacy.snapshot.max.threads", _B, False, _LO, _WS,
     "Enforces using a single thread per table regardless of table size", "Internal form of the previous key."),
    ("snapshot.mode.custom.name", _S, None, _MED, _WM, "Snapshot Mode Custom Name",
     "Name of the snapshotter used when snapshot.mode is 'custom'."),
    ("snapshot.mode.configuration.based.snapshot.data", _B, False, _MED, _WM,
     "Snapshot mode property based snapshot data", "configuration_based mode: snapshot table data."),
    ("snapshot.mode.configuration.based.snapshot.schema", _B, False, _MED, _WM,
     "Snapshot mode property based snapshot schema", "configuration_based mode: snapshot table schemas."),
    ("snapshot.mode.configuration.based.start.stream", _B, False, _MED, _WM,
     "Snapshot mode property based start stream", "configuration_based mode: stream changes afterwards."),
    ("snapshot.mode.configuration.based.snapshot.on.schema.error", _B, False, _MED, _WM,
     "Snapshot mode property based snapshot on schema error",
     "configuration_based mode: snapshot schemas again when the stored schema history is unusable."),
    ("snapshot.mode.configuration.based.snapshot.on.data.error", _B, False, _MED, _WM,
     "Snapshot mode property based snapshot on data error",
     "configuration_based mode: snapshot again when the stored position is no longer in the WAL."),
    ("retriable.restart.connector.wait.ms", _L, 10000, _LO, _WM, "Retriable restart wait (ms)",
     "Pause before the connector restarts after a retriable error."),
    ("query.fetch.size", _I, 0, _MED, _WM, "Query fetch size",
     "Rows fetched per round trip by ordinary queries; 0 lets the driver decide."),
    ("errors.max.retries", _I, -1, _LO, _WM, "The maximum number of retries",
     "Restarts allowed after retriable errors: -1 without limit, 0 none."),
    ("incremental.snapshot.watermarking.strategy", _S, "INSERT_INSERT", _LO, _WM,
     "Incremental snapshot watermarking strategy",
     "How incremental snapshot windows are marked in the signal table: insert_insert or insert_delete."),
    ("internal.log.position.check.enable", _B, True, _MED, _WM, "Enable/Disable log position check",
     "Check at start that the stored position is still available on the server."),
    ("internal.advanced.metrics.enable", _B, False, _MED, _WM, "Enable/Disable advance metrics",
     "Collect the extra per-operation metrics."),
    ("connection.validation.timeout.ms", _L, 60000, _LO, _WS, "Connection validation timeout (ms)",
     "How long /config/validate may spend testing the database connection."),
    ("executor.shutdown.timeout.ms", _L, 4000, _MED, _WM, "Executor shutdown timeout (ms)",
     "How long stopping waits for the connector's worker threads."),
    ("openlineage.integration.enabled", _B, False, _LO, _WS, "Enables OpenLineage integration",
     "Emit OpenLineage events (accepted, not implemented)."),
    ("openlineage.integration.config.file.path", _S, "./openlineage.yml", _LO, _WL,
     "Path to OpenLineage file configuration", "OpenLineage client configuration file."),
    ("openlineage.integration.job.namespace", _S, None, _LO, _WL, "Namespace used for Debezium job",
     "OpenLineage job namespace."),
    ("openlineage.integration.job.description", _S, "Debezium change data capture job", _LO, _WL,
     "Description used for Debezium job", "OpenLineage job description."),
    ("openlineage.integration.job.tags", _LIST, None, _LO, _WL, "Debezium job tags", "OpenLineage job tags."),
    ("openlineage.integration.job.owners", _LIST, None, _LO, _WL, "Debezium job owners", "OpenLineage job owners."),
    ("openlineage.integration.dataset.kafka.bootstrap.servers", _S, None, _LO, _WL,
     "Kafka bootstrap server used in Kafka Connect deployment", "Brokers named in OpenLineage output datasets."),
    ("extended.headers.enabled", _B, True, _LO, _WS, "Enable/Disable extended headers",
     "Add the context headers (connector, task, ...) to records."),
    ("guardrail.collections.max", _I, 0, _MED, _WS, "Maximum number of collections or tables",
     "Most tables the connector may capture; 0 means no limit."),
    ("guardrail.collections.limit.action", _S, "warn", _MED, _WS, "Guardrail collections limit action",
     "What exceeding guardrail.collections.max does: warn or fail."),
    ("custom.sanitize.pattern", _S,
     r".*secret$|.*password$|.*sasl\.jaas\.config$|.*basic\.auth\.user\.info|.*registry\.auth\.client-secret"
     r"|.*credentials\.json$|.*connectionstring$|.*connection\.string$",
     _LO, _WL, "Custom pattern for masking sensitive configuration",
     "Keys whose values are masked when the configuration is logged."),
    ("statistics.metrics.enabled", _B, True, _MED, _WS, "Enable collecting statistics metrics like latencies",
     "Collect latency statistics."),
    ("decimal.handling.mode", _S, "precise", _MED, _WS, "Decimal Handling",
     "NUMERIC/DECIMAL values as 'precise' (Connect Decimal), 'double' or 'string'."),
    ("time.precision.mode", _S, "adaptive", _MED, _WS, "Time Precision",
     "How temporal values are represented: adaptive, adaptive_time_microseconds, connect, isostring, "
     "microseconds or nanoseconds."),
    ("snapshot.lock.timeout.ms", _L, 10000, _MED, _WL, "Snapshot lock timeout (ms)",
     "Longest wait for table locks while snapshotting."),
    ("memory.management.schemas.class", _C, "io.debezium.relational.ConcurrentMapTableMappingStorage", _LO, _WL,
     "Schema storage class", "Where table schemas are kept (accepted, one built-in store)."),
    ("memory.management.tables.class", _C, "io.debezium.relational.ConcurrentMapTableMappingStorage", _LO, _WL,
     "Table storage class", "Where table definitions are kept (accepted, one built-in store)."),
    ("snapshot.mode", _S, "initial", _MED, _WS, "Snapshot mode",
     "When to snapshot: always, initial (when no offsets exist), initial_only, no_data, when_needed, "
     "configuration_based or custom."),
    ("snapshot.isolation.mode", _S, "serializable", _LO, _WS, "Snapshot isolation mode",
     "Transaction isolation of the snapshot: serializable, repeatable_read, read_committed or read_uncommitted."),
    ("snapshot.query.mode", _S, "select_all", _LO, _WS, "Snapshot query mode",
     "How snapshot queries are built: select_all or custom."),
    ("snapshot.query.mode.custom.name", _S, None, _MED, _WM, "Snapshot Query Mode Custom Name",
     "Name of the snapshot query builder when snapshot.query.mode is 'custom'."),
    ("snapshot.locking.mode.custom.name", _S, None, _MED, _WM, "Snapshot Locking Mode Custom Name",
     "Name of the lock strategy when snapshot.locking.mode is 'custom'."),
    ("snapshot.locking.mode", _S, "none", _LO, _WS, "Snapshot locking mode",
     "'shared' locks the captured tables while their schemas are read; 'none' takes no locks."),
    ("hstore.handling.mode", _S, "json", _LO, _WM, "HStore Handling", "HSTORE values as 'json' text or a 'map'."),
    ("binary.handling.mode", _S, "bytes", _LO, _WM, "Binary Handling",
     "Binary values as bytes, base64, base64-url-safe or hex text."),
    ("schema.name.adjustment.mode", _S, "none", _LO, _WM, "Schema Name Adjustment",
     "Rewrite schema names for Avro: none, avro or avro_unicode."),
    ("interval.handling.mode", _S, "numeric", _LO, _WM, "Interval Handling",
     "INTERVAL values as 'numeric' microseconds or an ISO 8601 'string'."),
    ("schema.refresh.mode", _S, "columns_diff", _MED, _WS, "Schema refresh mode",
     "When the in-memory table schema is refreshed: columns_diff or columns_diff_exclude_unchanged_toast."),
    ("incremental.snapshot.chunk.size", _I, 1024, _MED, _WM, "Incremental snapshot chunk size",
     "Rows per incremental snapshot chunk."),
    ("unavailable.value.placeholder", _S, "__debezium_unavailable_value", _MED, _WM, "Unavailable value placeholder",
     "Value standing in for unchanged TOAST data; a 'hex:' prefix gives raw bytes in hexadecimal."),
    ("message.prefix.include.list", _LIST, None, _MED, _WL, "Include Logical Decoding Message Prefixes",
     "Regexes of the logical decoding message prefixes to capture."),
    ("message.prefix.exclude.list", _LIST, None, _MED, _WL, "Exclude Logical Decoding Message Prefixes",
     "Regexes of the logical decoding message prefixes to drop."),
    ("publish.via.partition.root", _B, False, _MED, _WS, "Publish via partition root",
     "Create the publication with publish_via_partition_root, so partitions' changes carry the root table."),
]

_EVENTS: Final[list[_KeyRow]] = [
    ("converters", _S, None, _LO, _WM, "List of prefixes defining custom values converters.",
     "Names of custom value converters, each configured by '<name>.type' and '<name>.*' keys."),
    ("post.processors", _S, None, _LO, _WM, "List of change event post processors.",
     "Names of post processors applied to change events."),
    ("tombstones.on.delete", _B, True, _MED, _WS, "Change the behaviour of Debezium with regards to delete operations",
     "Follow every delete event with a tombstone (null value) so compaction can drop the key."),
    ("heartbeat.interval.ms", _I, 0, _MED, _WM, "Connector heartbeat interval (milli-seconds)",
     "How often to emit heartbeat records; 0 disables them."),
    ("heartbeat.topics.prefix", _S, "__debezium-heartbeat", _LO, _WM, "A prefix used for naming of heartbeat topics",
     "Prefix of the heartbeat topic name."),
    ("signal.data.collection", _LIST, None, _MED, _WM, "Signaling data collection",
     "The signal table, as <schema>.<table>."),
    ("signal.poll.interval.ms", _L, 5000, _MED, _WS, "Signal processor poll interval",
     "How often non-source signal channels are polled."),
    ("signal.enabled.channels", _LIST, ("source",), _MED, _WL, "Enabled channels names",
     "Signal channels to read: source, kafka, file, jmx or custom ones."),
    ("topic.naming.strategy", _C, "io.debezium.schema.SchemaTopicNamingStrategy", _MED, _WM,
     "Topic naming strategy class", "How topic names are made (the Java class name selects the built-in one)."),
    ("notification.enabled.channels", _LIST, None, _MED, _WL, "Enabled notification channels names",
     "Notification channels: sink, log, jmx or custom ones."),
    ("notification.sink.topic.name", _S, None, _HI, _WL, "Notification topic name",
     "Topic notifications go to; required when the 'sink' channel is enabled."),
    ("transaction.metadata.factory", _C, "io.debezium.pipeline.txmetadata.DefaultTransactionMetadataFactory", _LO,
     _WM, "Factory class to create transaction context & transaction struct maker classes",
     "How transaction metadata is built (the built-in one only)."),
    ("custom.metric.tags", _LIST, None, _LO, _WM, "Customize metric tags",
     "k1=v1,k2=v2 tags appended to metric names."),
    ("column.include.list", _LIST, None, _MED, _WL, "Include Columns",
     "Regexes of schema.table.column names to keep in change events."),
    ("column.exclude.list", _LIST, None, _MED, _WL, "Exclude Columns",
     "Regexes of schema.table.column names to leave out of change events."),
    ("table.include.list", _LIST, None, _HI, _WL, "Include Tables", "Regexes of schema.table names to capture."),
    ("table.exclude.list", _LIST, None, _MED, _WL, "Exclude Tables", "Regexes of schema.table names not to capture."),
    ("table.ignore.builtin", _B, True, _LO, _WS, "Ignore system databases", "Never capture system tables."),
    ("schema.include.list", _LIST, None, _HI, _WL, "Include Schemas", "Regexes of schema names to capture."),
    ("schema.exclude.list", _LIST, None, _MED, _WL, "Exclude Schemas", "Regexes of schema names not to capture."),
    ("message.key.columns", _S, None, _MED, _WL, "Columns PK mapping",
     "';'-separated '<table regex>:<column>,<column>' entries choosing record-key columns for tables."),
    ("snapshot.select.statement.overrides", _S, None, _MED, _WL,
     "List of tables where the default select statement used during snapshotting should be overridden.",
     "schema.table names whose snapshot query is given by 'snapshot.select.statement.overrides.<schema>.<table>'."),
    ("column.mask.hash.([^.]+).with.salt.(.+)", _S, None, _MED, _WL, "Mask Columns Using Hash and Salt",
     "column.mask.hash[.v2].<algorithm>.with.salt.<salt>=<column regexes>: replace values by a salted hash."),
    ("column.mask.with.(d+).chars", _S, None, _MED, _WN, "Mask Columns With n Asterisks",
     "column.mask.with.<n>.chars=<column regexes>: replace values by n asterisks."),
    ("column.truncate.to.(d+).chars", _I, None, _MED, _WN, "Truncate Columns To n Characters",
     "column.truncate.to.<n>.chars=<column regexes>: cut values to at most n characters."),
    ("include.schema.comments", _B, False, _MED, _WS, "Include Table and Column Comments",
     "Add table and column comments to the schemas."),
    ("column.propagate.source.type", _LIST, None, _MED, _WN, "Propagate Source Types by Columns",
     "Regexes of columns whose schemas carry the source type name, length and scale."),
    ("datatype.propagate.source.type", _LIST, None, _MED, _WN, "Propagate Source Types by Data Type",
     "Regexes of type names whose columns' schemas carry the source type name, length and scale."),
    ("internal.snapshot.scan.all.columns.force", _B, False, _LO, _WS,
     "Snapshot force scan all columns of all tables", "Read every column while snapshotting."),
    ("snapshot.tables.order.by.row.count", _S, "disabled", _MED, _WN, "Initial snapshot tables order by row count",
     "Snapshot tables in table order ('disabled'), or by row count ascending or descending."),
    ("heartbeat.action.query", _S, None, _LO, _WM, "An optional query to execute with every heartbeat",
     "SQL run on every heartbeat, e.g. an update of a heartbeat table, so the slot advances on idle databases."),
    ("include.unknown.datatypes", _B, False, _MED, _WS, "Include unknown datatypes",
     "Emit columns of unknown types as raw bytes instead of leaving them out."),
    ("sourceinfo.struct.maker", _C, "io.debezium.connector.postgresql.PostgresSourceInfoStructMaker", _LO, _WM,
     "Source info struct maker class", "How the 'source' block is built (the built-in one only)."),
]

#: Read by the connector but not part of Debezium's connector ConfigDef (strategy/channel keys and leftovers).
_EXTRA: Final[list[_KeyRow]] = [
    ("topic.delimiter", _S, ".", _LO, _WS, "Topic delimiter", "Separator between topic name parts."),
    ("topic.cache.size", _I, 10000, _LO, _WS, "Topic cache size", "Topic names cached."),
    ("topic.heartbeat.prefix", _S, "__debezium-heartbeat", _LO, _WM, "Heartbeat topic prefix",
     "Prefix of the heartbeat topic name (newer name of heartbeat.topics.prefix)."),
    ("topic.transaction", _S, "transaction", _LO, _WM, "Transaction topic name", "Suffix of the transaction topic."),
    ("field.name.adjustment.mode", _S, "none", _LO, _WM, "Field Name Adjustment",
     "Rewrite field names for Avro: none, avro or avro_unicode."),
    ("money.fraction.digits", _SH, 2, _LO, _WM, "Money fraction digits", "Scale of MONEY values in precise mode."),
    ("skip.messages.without.change", _B, False, _LO, _WS, "Skip messages without change",
     "Drop updates that change no included column (needs REPLICA IDENTITY FULL)."),
    ("incremental.snapshot.allow.schema.changes", _B, False, _LO, _WS, "Allow schema changes during incremental "
     "snapshot", "Detect schema changes while an incremental snapshot runs."),
    ("event.converting.failure.handling.mode", _S, "warn", _LO, _WS, "Event converting failure handling",
     "What a value that cannot be converted does: warn, fail or skip."),
    ("signal.kafka.topic", _S, None, _LO, _WM, "Signal topic", "Signal topic; '<topic.prefix>-signal' when unset."),
    ("signal.kafka.groupId", _S, "kafka-signal", _LO, _WM, "Signal consumer group", "Consumer group of signals."),
    ("signal.kafka.bootstrap.servers", _S, None, _LO, _WL, "Signal brokers",
     "Brokers of the signal topic; required when the 'kafka' signal channel is enabled."),
    ("signal.kafka.poll.timeout.ms", _L, 100, _LO, _WS, "Signal poll timeout", "Signal consumer poll timeout."),
    ("kafka.consumer.offset.commit.enabled", _B, False, _LO, _WS, "Commit signal offsets",
     "Commit the signal consumer's offsets."),
]
# fmt: on


#: Keys Debezium's ConfigDef declares as depending on another (shown in ConfigKeyInfo.dependents).
_DEPENDENTS: Final[dict[str, tuple[str, ...]]] = {"schema.include.list": ("table.include.list",)}


def _build_def() -> ConfigDef:
    cdef = ConfigDef()
    for group, rows in (("Postgres", _POSTGRES), ("Connector", _CONNECTOR), ("Events", _EVENTS)):
        order = 0
        for name, ctype, default, importance, width, display, doc in rows:
            # Debezium numbers the two legacy thread keys alike.
            order += 0 if name == "internal.legacy.snapshot.max.threads" else 1
            cdef.add(
                ConfigKey(
                    name,
                    ctype,
                    default,
                    validator=_validator_for(name),
                    importance=importance,
                    documentation=doc,
                    group=group,
                    order_in_group=order,
                    width=width,
                    display_name=display,
                    dependents=_DEPENDENTS.get(name, ()),
                )
            )
    for name, ctype, default, importance, width, display, doc in _EXTRA:
        cdef.add(
            ConfigKey(
                name,
                ctype,
                default,
                validator=_validator_for(name),
                importance=importance,
                documentation=doc,
                width=width,
                display_name=display,
                internal=True,
            )
        )
    return cdef


def _invalid(name: str, message: str) -> str:
    return f"The '{name}' value is invalid: {message}"


def _validator_for(name: str) -> Callable[[str, Any], None] | None:
    """A single-key validator for the generic ConfigDef.validate path (validate_props does more)."""
    if name not in _ENUMS and name not in _RANGES and name not in _REGEX_LISTS and name != "slot.name":
        return None

    def check(key: str, value: Any) -> None:
        problems = _check_value(key, value)
        if problems:
            raise ConfigError(_invalid(key, problems[0]), name=key)

    return check


# -- pure parsing helpers --------------------------------------------------------------------------------------
def compile_java_regex(pattern: str, flags: int = re.IGNORECASE) -> re.Pattern[str]:
    """Compile a Java regular expression (Debezium matches its lists case-insensitively)."""
    return java_regex(pattern, case_insensitive=bool(flags & re.IGNORECASE))


def split_list(value: str) -> list[str]:
    """Kafka's LIST splitting: commas, surrounding blanks trimmed, empty string = empty list."""
    return [] if value.strip() == "" else [p.strip() for p in value.split(",")]


@dataclasses.dataclass(frozen=True, slots=True)
class ReplicaIdentityRule:
    """One ``replica.identity.autoset.values`` entry: tables matching ``table_pattern`` get ``identity``."""

    table_pattern: str
    identity: str  # DEFAULT | FULL | NOTHING | INDEX
    index_name: str | None = None

    def matches(self, table: str) -> bool:
        return compile_java_regex(self.table_pattern).fullmatch(table) is not None

    @property
    def sql(self) -> str:
        """The words after ``REPLICA IDENTITY`` (the index name double-quoted)."""
        if self.identity == "INDEX" and self.index_name is not None:
            return 'USING INDEX "' + self.index_name.replace('"', '""') + '"'
        return self.identity


def parse_replica_identity_rules(text: str) -> tuple[tuple[ReplicaIdentityRule, ...], list[str]]:
    """The rules of a ``replica.identity.autoset.values`` value, and one message per malformed entry."""
    rules: list[ReplicaIdentityRule] = []
    problems: list[str] = []
    if text == "":
        return (), ["Must not be empty"]
    for entry in text.split(","):
        m = _REPLICA_IDENTITY.match(entry)
        if m is None:
            problems.append(f"{entry} has an invalid format (expecting '{_REPLICA_IDENTITY_JAVA}')")
            continue
        identity = "INDEX" if m.group("index") else m.group("identity").upper()
        rules.append(ReplicaIdentityRule(m.group("table"), identity, m.group("index_name")))
    return tuple(rules), problems


@dataclasses.dataclass(frozen=True, slots=True)
class KeyColumnsRule:
    """One ``message.key.columns`` entry: tables matching ``table_pattern`` are keyed by ``columns``."""

    table_pattern: str
    columns: tuple[str, ...]


def _parse_key_columns(text: str) -> tuple[tuple[KeyColumnsRule, ...], list[str]]:
    rules: list[KeyColumnsRule] = []
    problems: list[str] = []
    for entry in text.split(";"):
        if entry.strip() == "":
            continue
        m = _KEY_COLUMNS.match(entry)
        if m is None:
            problems.append(f"{entry} has an invalid format (expecting '{_KEY_COLUMNS_JAVA}')")
            continue
        rules.append(KeyColumnsRule(m.group(1).strip(), tuple(c.strip() for c in m.group(2).split(","))))
    return tuple(rules), problems


@dataclasses.dataclass(frozen=True, slots=True)
class ColumnMaskRule:
    """A ``column.truncate.to.<n>.chars`` / ``column.mask.with.<n>.chars`` / ``column.mask.hash...`` key."""

    kind: str  # truncate | mask | hash | hash_v2
    columns: tuple[str, ...]
    length: int | None = None
    algorithm: str | None = None
    salt: str | None = None


def _parse_mask_key(key: str, value: str) -> tuple[ColumnMaskRule | None, list[str]]:
    """None (and no problem) when ``key`` is not a column mask/truncate key at all."""
    problems: list[str] = []
    columns = tuple(split_regex_list(value))
    if not columns:
        problems.append("A comma-separated list of valid regular expressions is expected")
    for rx in columns:
        try:
            compile_java_regex(rx)
        except (re.error, JavaRegexError) as e:
            problems.append(f"A comma-separated list of valid regular expressions is expected, but {e}")
    m = _TRUNCATE_KEY.fullmatch(key) or _MASK_KEY.fullmatch(key)
    if m is not None:
        n = m.group("n")
        kind = "truncate" if key.startswith("column.truncate.") else "mask"
        if not n.isdigit() or int(n) <= 0:
            return None, [f"{n} is not a positive number of characters in '{key}'", *problems]
        return ColumnMaskRule(kind, columns, length=int(n)), problems
    h = _HASH_KEY.fullmatch(key)
    if h is not None:
        if h.group("alg").lower() not in _HASH_ALGORITHMS:
            problems.insert(0, f"Unknown hash algorithm '{h.group('alg')}' in '{key}'")
        kind = "hash_v2" if h.group("v2") else "hash"
        return ColumnMaskRule(kind, columns, algorithm=h.group("alg"), salt=h.group("salt")), problems
    return None, [
        f"'{key}' is not a column masking key: expected column.truncate.to.<n>.chars, column.mask.with.<n>.chars "
        "or column.mask.hash[.v2].<algorithm>.with.salt.<salt>"
    ]


def split_initial_statements(text: str | None) -> tuple[str, ...]:
    """``database.initial.statements``: split on ``;``, where ``;;`` stands for a literal ``;``."""
    if not text:
        return ()
    statements: list[str] = []
    cur: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        if c == ";":
            if i + 1 < len(text) and text[i + 1] == ";":
                cur.append(";")
                i += 2
                continue
            statements.append("".join(cur).strip())
            cur = []
        else:
            cur.append(c)
        i += 1
    statements.append("".join(cur).strip())
    return tuple(s for s in statements if s)


# -- single-value checks ------------------------------------------------------------------------------------------
def _check_value(name: str, value: Any) -> list[str]:
    """Problems of one parsed, non-null value on its own (enum, range, regex, slot name)."""
    if value is None:
        return []
    problems: list[str] = []
    if name in _ENUMS:
        allowed = _ENUMS[name]
        if str(value).lower() not in allowed and not (
            name == "snapshot.mode" and str(value).lower() in SNAPSHOT_MODE_ALIASES
        ):
            problems.append("Value must be one of " + ", ".join(allowed))
    if name in _RANGES and isinstance(value, int) and not isinstance(value, bool):
        message, ok = _RANGES[name]
        if not ok(value):
            problems.append(message)
    if name in _REGEX_LISTS:
        items = value if isinstance(value, list | tuple) else split_regex_list(str(value))
        for rx in items:
            try:
                compile_java_regex(rx)
            except (re.error, JavaRegexError) as e:
                problems.append(f"A comma-separated list of valid regular expressions is expected, but {e}")
                break
    if name == "slot.name" and not _SLOT_NAME.fullmatch(str(value)):
        problems.append(
            "Valid replication slot name must contain only digits, lowercase characters and underscores "
            "with length <= 63"
        )
    return problems


def _parse_raw(key: ConfigKey, raw: Any) -> tuple[Any, list[str]]:
    """(typed value, type problems) of one supplied value, with Debezium's texts."""
    t = key.type
    if t is ConfigType.PASSWORD:
        if isinstance(raw, Password):
            return raw, []
        return Password(str(raw)), []
    text = raw.strip() if isinstance(raw, str) else raw
    if t in (ConfigType.INT, ConfigType.SHORT, ConfigType.LONG):
        bits = 63 if t is ConfigType.LONG else 31
        message = _LONG if t is ConfigType.LONG else _INT
        try:
            if isinstance(text, bool):
                raise ValueError
            n = int(text)
        except (TypeError, ValueError):
            extra = [_RANGES[key.name][0]] if key.name in _RANGES and _RANGES[key.name][0] != message else []
            return None, [message, *extra]
        if not -(2**bits) <= n < 2**bits:
            return None, [message]
        return n, []
    if t is ConfigType.BOOLEAN:
        if isinstance(text, bool):
            return text, []
        if isinstance(text, str) and text.lower() in ("true", "false"):
            return text.lower() == "true", []
        return None, [_BOOL]
    if t is ConfigType.LIST:
        if isinstance(text, list | tuple):
            return tuple(str(x).strip() for x in text), []
        s = str(text)
        return tuple(split_regex_list(s) if key.name in _REGEX_LISTS else split_list(s)), []
    return str(text), []


# -- validation ------------------------------------------------------------------------------------------------------
@dataclasses.dataclass
class _Outcome:
    values: dict[str, ConfigValue]
    parsed: dict[str, Any]
    warnings: list[str]
    masks: tuple[ColumnMaskRule, ...]
    replica_rules: tuple[ReplicaIdentityRule, ...]
    key_columns: tuple[KeyColumnsRule, ...]
    select_overrides: dict[str, str]
    driver_properties: dict[str, str]
    supplied: set[str] = dataclasses.field(default_factory=set)

    def error(self, name: str, message: str) -> None:
        cv = self.values.get(name)
        if cv is None:
            cv = self.values[name] = ConfigValue(name, self.parsed.get(name))
        text = _invalid(name, message)
        if text not in cv.errors:
            cv.errors.append(text)


def _apply_aliases(props: Mapping[str, Any], warnings: list[str]) -> dict[str, Any]:
    merged = dict(props)
    for old, new in DEPRECATED_ALIASES.items():
        if old not in props:
            continue
        if new in props:
            warnings.append(f"Property '{old}' is deprecated and ignored because '{new}' is set")
        else:
            warnings.append(f"Property '{old}' is deprecated; use '{new}' instead")
            merged[new] = props[old]
    if "sanitize.field.names" in props:
        warnings.append(
            "Property 'sanitize.field.names' is deprecated; use 'field.name.adjustment.mode' and "
            "'schema.name.adjustment.mode' instead"
        )
        if str(props["sanitize.field.names"]).strip().lower() == "true":
            merged.setdefault("field.name.adjustment.mode", "avro")
            merged.setdefault("schema.name.adjustment.mode", "avro")
    return merged


def _validate(props: Mapping[str, Any]) -> _Outcome:
    warnings: list[str] = []
    merged = _apply_aliases(props, warnings)
    out = _Outcome({}, {}, warnings, (), (), (), {}, {})
    # 1. every defined key: type, then single-value rules
    for key in POSTGRES_CONFIG_DEF.keys:
        name = key.name
        cv = out.values[name] = ConfigValue(name)
        raw = merged.get(name)
        supplied = raw is not None and not (isinstance(raw, str) and raw.strip() == "" and key.type is not _P)
        if not supplied:
            value = key.default
            if name == "replica.identity.autoset.values" and raw is not None:
                value = ""  # an empty value is an error of its own
            out.parsed[name] = cv.value = value
            continue
        value, problems = _parse_raw(key, raw)
        for p in problems:
            out.error(name, p)
        if problems:
            out.parsed[name] = cv.value = None
            continue
        out.parsed[name] = cv.value = value
        out.supplied.add(name)
        for p in _check_value(name, value):
            out.error(name, p)
    _cross_field_rules(merged, out)
    return out


def _cross_field_rules(props: Mapping[str, Any], out: _Outcome) -> None:
    p = out.parsed
    for name in _REQUIRED_KEYS:
        if p.get(name) in (None, ""):
            out.error(name, _REQUIRED)
    prefix = p.get("topic.prefix")
    if prefix is not None and not _TOPIC_PREFIX.fullmatch(prefix):
        out.error(
            "topic.prefix",
            f"{prefix} has invalid format (only the underscore, hyphen, dot and alphanumeric characters are allowed)",
        )
    for include, exclude, quoted in _EXCLUSIVE:
        if p.get(include) and p.get(exclude):
            out.error(exclude, f'"{quoted}" is already specified')
    port = p.get("database.port")
    if isinstance(port, int) and not 0 < port < 65536:
        out.error("database.port", "A port number between 1 and 65535 is expected")
    batch, queue = p.get("max.batch.size"), p.get("max.queue.size")
    if isinstance(batch, int) and isinstance(queue, int) and queue <= batch:
        out.error("max.queue.size", "Must be larger than the maximum batch size")
    # snapshot.mode and its deprecated values
    mode = p.get("snapshot.mode")
    if isinstance(mode, str) and mode.lower() in SNAPSHOT_MODE_ALIASES:
        target = SNAPSHOT_MODE_ALIASES[mode.lower()]
        out.warnings.append(f"snapshot.mode '{mode}' is deprecated; using '{target}' instead")
        p["snapshot.mode"] = target
    for mode_key, custom_key in (
        ("snapshot.mode", "snapshot.mode.custom.name"),
        ("snapshot.locking.mode", "snapshot.locking.mode.custom.name"),
        ("snapshot.query.mode", "snapshot.query.mode.custom.name"),
    ):
        if str(p.get(mode_key) or "").lower() == "custom" and not p.get(custom_key):
            out.error(custom_key, f"{custom_key} cannot be empty when {mode_key} 'custom' is defined")
    ops = p.get("skipped.operations")
    if ops is not None and any(op.lower() not in _SKIPPED_OPS for op in ops):
        out.error("skipped.operations", "Invalid operation")
    ria = p.get("replica.identity.autoset.values")
    if ria is not None:
        out.replica_rules, problems = parse_replica_identity_rules(ria)
        for problem in problems:
            out.error("replica.identity.autoset.values", problem)
    mkc = p.get("message.key.columns")
    if mkc is not None:
        out.key_columns, problems = _parse_key_columns(mkc)
        for problem in problems:
            out.error("message.key.columns", problem)
    _signal_rules(out)
    _dynamic_keys(props, out)
    if p.get("flush.lsn.source") is False and p.get("lsn.flush.mode") is None:
        out.warnings.append(
            "flush.lsn.source=false: positions are never confirmed to the slot and the server keeps all WAL"
        )


def _signal_rules(out: _Outcome) -> None:
    p = out.parsed
    notification = [c.lower() for c in p.get("notification.enabled.channels") or ()]
    if "sink" in notification and not p.get("notification.sink.topic.name"):
        out.error(
            "notification.sink.topic.name",
            "Notification topic name must be provided when kafka notification channel is enabled",
        )
    signals = [c.lower() for c in p.get("signal.enabled.channels") or ()]
    if "kafka" in signals and not p.get("signal.kafka.bootstrap.servers"):
        out.error(
            "signal.kafka.bootstrap.servers",
            "The Kafka bootstrap servers must be provided when the kafka signal channel is enabled",
        )
    collection = p.get("signal.data.collection")
    if collection:
        for item in collection:
            parts = [s for s in re.split(r"\.(?=(?:[^\"]*\"[^\"]*\")*[^\"]*$)", item) if s]
            if len(parts) != 2:
                out.error("signal.data.collection", f"{item} must be a table name of the form <schema>.<table>")


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


def _dynamic_keys(props: Mapping[str, Any], out: _Outcome) -> None:
    """Keys that are not defined one by one: column masks, per-table snapshot queries, driver pass-through."""
    masks: list[ColumnMaskRule] = []
    for key in sorted(props):
        raw = props[key]
        if key in POSTGRES_CONFIG_DEF or key in DEPRECATED_ALIASES:
            continue
        value = "" if raw is None else str(raw).strip()
        if key.startswith(("column.truncate.", "column.mask.")):
            rule, problems = _parse_mask_key(key, value)
            for problem in problems:
                out.error(key, problem)
            if rule is not None and not problems:
                masks.append(rule)
        elif key.startswith("snapshot.select.statement.overrides."):
            out.select_overrides[key[len("snapshot.select.statement.overrides.") :]] = value
        elif key.startswith("database."):
            out.driver_properties[key[len("database.") :]] = value
    out.masks = tuple(masks)


def validate_props(props: Mapping[str, Any]) -> dict[str, ConfigValue]:
    """Every key's value and errors (Debezium's texts), defined keys in definition order, then the rest."""
    outcome = _validate(props)
    for warning in outcome.warnings:
        log.warning("%s", warning)
    _shape_as_debezium(outcome.values)
    return outcome.values


def _shape_as_debezium(values: Mapping[str, ConfigValue]) -> None:
    """What Debezium 3.6.3's validate() answers for its own keys (captured in tests/differential/golden): no
    value, the enum keys' values as recommendations (in its order), and schema.exclude.list invisible (its
    field has an invisible recommender)."""
    for key in POSTGRES_CONFIG_DEF.keys:
        cv = values.get(key.name)
        if cv is None:
            continue
        cv.value = None
        cv.recommended_values = list(_ENUMS.get(key.name, ()))
        if key.name == "schema.exclude.list":
            cv.visible = False


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
    lsn_flush_timeout_ms: int
    lsn_flush_timeout_action: LsnFlushTimeoutAction
    tcp_keepalive: bool
    xmin_fetch_interval_ms: int
    skipped_operations: frozenset[str]
    lsn_flush_mode: LsnFlushMode
    event_processing_failure_handling_mode: EventProcessingFailureHandlingMode
    max_batch_size: int
    max_queue_size: int
    max_queue_size_in_bytes: int
    poll_interval_ms: int
    provide_transaction_metadata: bool
    snapshot_delay_ms: int
    streaming_delay_ms: int
    snapshot_include_collection_list: tuple[str, ...]
    snapshot_fetch_size: int
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
    snapshot_isolation_mode: SnapshotIsolationMode
    snapshot_locking_mode: SnapshotLockingMode
    snapshot_locking_mode_custom_name: str | None
    snapshot_query_mode: SnapshotQueryMode
    snapshot_query_mode_custom_name: str | None
    snapshot_lock_timeout_ms: int
    snapshot_select_statement_overrides: Mapping[str, str]
    snapshot_tables_order_by_row_count: str
    retriable_restart_connector_wait_ms: int
    errors_max_retries: int
    query_fetch_size: int
    incremental_snapshot_chunk_size: int
    incremental_snapshot_watermarking_strategy: str
    log_position_check_enable: bool
    decimal_handling_mode: DecimalHandlingMode
    time_precision_mode: TimePrecisionMode
    hstore_handling_mode: HStoreHandlingMode
    binary_handling_mode: BinaryHandlingMode
    interval_handling_mode: IntervalHandlingMode
    schema_refresh_mode: SchemaRefreshMode
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
    topic_naming_strategy: str
    signal_data_collection: str | None
    signal_enabled_channels: tuple[str, ...]
    signal_poll_interval_ms: int
    notification_enabled_channels: tuple[str, ...]
    notification_sink_topic_name: str | None
    schema_include_list: tuple[str, ...]
    schema_exclude_list: tuple[str, ...]
    table_include_list: tuple[str, ...]
    table_exclude_list: tuple[str, ...]
    column_include_list: tuple[str, ...]
    column_exclude_list: tuple[str, ...]
    table_ignore_builtin: bool
    message_key_columns: tuple[KeyColumnsRule, ...]
    column_masks: tuple[ColumnMaskRule, ...]
    column_propagate_source_type: tuple[str, ...]
    datatype_propagate_source_type: tuple[str, ...]
    include_schema_comments: bool
    include_unknown_datatypes: bool
    skip_messages_without_change: bool
    converters: tuple[str, ...]
    custom_metric_tags: tuple[str, ...]
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
        outcome = _validate(props)
        errors = [e for cv in outcome.values.values() for e in cv.errors]
        if errors:
            first = next(cv.name for cv in outcome.values.values() if cv.errors)
            raise ConfigError("Invalid PostgreSQL connector configuration: " + "; ".join(errors), name=first)
        for warning in outcome.warnings:
            log.warning("%s", warning)
        return cls._build(outcome)

    @classmethod
    def _build(cls, o: _Outcome) -> PostgresConnectorConfig:
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
        signal = p["signal.data.collection"]
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
            lsn_flush_timeout_ms=p["lsn.flush.timeout.ms"],
            lsn_flush_timeout_action=LsnFlushTimeoutAction(e("lsn.flush.timeout.action")),
            tcp_keepalive=p["database.tcpKeepAlive"],
            xmin_fetch_interval_ms=p["xmin.fetch.interval.ms"],
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
            streaming_delay_ms=p["streaming.delay.ms"],
            snapshot_include_collection_list=t("snapshot.include.collection.list"),
            snapshot_fetch_size=10240 if p["snapshot.fetch.size"] is None else p["snapshot.fetch.size"],
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
            snapshot_isolation_mode=SnapshotIsolationMode(e("snapshot.isolation.mode")),
            snapshot_locking_mode=SnapshotLockingMode(e("snapshot.locking.mode")),
            snapshot_locking_mode_custom_name=s("snapshot.locking.mode.custom.name"),
            snapshot_query_mode=SnapshotQueryMode(e("snapshot.query.mode")),
            snapshot_query_mode_custom_name=s("snapshot.query.mode.custom.name"),
            snapshot_lock_timeout_ms=p["snapshot.lock.timeout.ms"],
            snapshot_select_statement_overrides=dict(o.select_overrides),
            snapshot_tables_order_by_row_count=e("snapshot.tables.order.by.row.count"),
            retriable_restart_connector_wait_ms=p["retriable.restart.connector.wait.ms"],
            errors_max_retries=p["errors.max.retries"],
            query_fetch_size=p["query.fetch.size"],
            incremental_snapshot_chunk_size=p["incremental.snapshot.chunk.size"],
            incremental_snapshot_watermarking_strategy=e("incremental.snapshot.watermarking.strategy"),
            log_position_check_enable=p["internal.log.position.check.enable"],
            decimal_handling_mode=DecimalHandlingMode(e("decimal.handling.mode")),
            time_precision_mode=TimePrecisionMode(e("time.precision.mode")),
            hstore_handling_mode=HStoreHandlingMode(e("hstore.handling.mode")),
            binary_handling_mode=BinaryHandlingMode(e("binary.handling.mode")),
            interval_handling_mode=IntervalHandlingMode(e("interval.handling.mode")),
            schema_refresh_mode=SchemaRefreshMode(e("schema.refresh.mode")),
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
            topic_naming_strategy=p["topic.naming.strategy"],
            signal_data_collection=",".join(signal) if signal else None,
            signal_enabled_channels=t("signal.enabled.channels"),
            signal_poll_interval_ms=p["signal.poll.interval.ms"],
            notification_enabled_channels=t("notification.enabled.channels"),
            notification_sink_topic_name=s("notification.sink.topic.name"),
            schema_include_list=t("schema.include.list"),
            schema_exclude_list=t("schema.exclude.list"),
            table_include_list=t("table.include.list"),
            table_exclude_list=t("table.exclude.list"),
            column_include_list=t("column.include.list"),
            column_exclude_list=t("column.exclude.list"),
            table_ignore_builtin=p["table.ignore.builtin"],
            message_key_columns=o.key_columns,
            column_masks=o.masks,
            column_propagate_source_type=t("column.propagate.source.type"),
            datatype_propagate_source_type=t("datatype.propagate.source.type"),
            include_schema_comments=p["include.schema.comments"],
            include_unknown_datatypes=p["include.unknown.datatypes"],
            skip_messages_without_change=p["skip.messages.without.change"],
            converters=tuple(split_list(p["converters"])) if p["converters"] else (),
            custom_metric_tags=t("custom.metric.tags"),
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
        return self.plugin_name is LogicalDecoder.PGOUTPUT


POSTGRES_CONFIG_DEF: Final[ConfigDef] = _build_def()


# -- libpq connection strings -----------------------------------------------------------------------------------------
def libpq_quote(value: str) -> str:
    """``value`` as a single-quoted libpq conninfo value (``\\`` and ``'`` escaped with a backslash)."""
    if "\x00" in value:
        raise ConfigError("connection parameters must not contain NUL characters")
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


#: libpq connection keywords a ``database.<keyword>`` pass-through key may set.
_LIBPQ_KEYWORDS: Final = frozenset(
    {
        "connect_timeout",
        "application_name",
        "fallback_application_name",
        "keepalives_idle",
        "keepalives_interval",
        "keepalives_count",
        "tcp_user_timeout",
        "options",
        "target_session_attrs",
        "sslcompression",
        "sslcrl",
        "sslcrldir",
        "sslsni",
        "ssl_min_protocol_version",
        "ssl_max_protocol_version",
        "requirepeer",
        "gssencmode",
        "krbsrvname",
        "channel_binding",
        "hostaddr",
        "passfile",
        "client_encoding",
        "load_balance_hosts",
    }
)
#: pgJDBC property names with a libpq equivalent.
_JDBC_TO_LIBPQ: Final = {
    "ApplicationName": "application_name",
    "connectTimeout": "connect_timeout",
    "loginTimeout": "connect_timeout",
    "sslcrl": "sslcrl",
}


def conninfo(
    config: PostgresConnectorConfig,
    *,
    application_name: str | None = None,
    replication: bool = False,
    include_password: bool = True,
) -> str:
    """The libpq conninfo of ``config``; every value quoted. It holds the password: never log it.

    ``database.query.timeout.ms`` becomes the session's ``statement_timeout`` on regular connections only
    (a replication session keeps the server's). ``database.initial.statements`` are not part of it: run
    :attr:`PostgresConnectorConfig.initial_statements` on each regular connection after it opens.
    """
    params: list[tuple[str, str]] = [
        ("host", config.hostname),
        ("port", str(config.port)),
        ("dbname", config.dbname),
        ("user", config.user),
    ]
    if include_password and config.password is not None:
        params.append(("password", config.password.value))
    params.append(("sslmode", config.sslmode.value))
    for keyword, value in (
        ("sslcert", config.sslcert),
        ("sslkey", config.sslkey),
        ("sslrootcert", config.sslrootcert),
    ):
        if value:
            params.append((keyword, value))
    if include_password and config.sslpassword is not None:
        params.append(("sslpassword", config.sslpassword.value))
    params.append(("keepalives", "1" if config.tcp_keepalive else "0"))
    extra: dict[str, str] = {}
    for key, value in config.driver_properties.items():
        keyword = _JDBC_TO_LIBPQ.get(key, key)
        if keyword in _LIBPQ_KEYWORDS:
            extra[keyword] = value
        else:
            log.debug("ignoring driver property database.%s: libpq has no such parameter", key)
    if application_name is not None:
        extra["application_name"] = application_name
    if not replication and config.query_timeout_ms > 0:
        timeout = f"-c statement_timeout={config.query_timeout_ms}"
        extra["options"] = f"{extra['options']} {timeout}" if "options" in extra else timeout
    params.extend(extra.items())
    return " ".join(f"{k}={libpq_quote(v)}" for k, v in params)


def describe_connection(config: PostgresConnectorConfig) -> str:
    """``user@host:port/dbname`` for logs and messages (no secret)."""
    return f"{config.user}@{config.hostname}:{config.port}/{config.dbname}"


def redact(text: str, secrets: Iterable[Password | None]) -> str:
    """``text`` with every occurrence of the secrets' values replaced by ``[hidden]``."""
    for secret in secrets:
        if secret is not None and secret.value:
            text = text.replace(secret.value, Password.HIDDEN)
    return text
