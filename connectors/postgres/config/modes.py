"""The PostgreSQL connector's enumerated settings: one StrEnum per key with a fixed set of values, the values
/config/validate recommends (in Debezium's order), and the deprecated keys and values that stand for others.
"""

from __future__ import annotations

import enum
from typing import Final


class LogicalDecoder(enum.StrEnum):
    DECODERBUFS = "decoderbufs"
    PGOUTPUT = "pgoutput"
    YBOUTPUT = "yboutput"  # YugabyteDB's pgoutput (the YugabyteDB connector only; PostgreSQL's config rejects it)


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
ENUM_VALUES: Final[dict[str, tuple[str, ...]]] = {
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
