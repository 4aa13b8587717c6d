"""Topic names and schema-name adjustment (Debezium's SchemaTopicNamingStrategy and SchemaNameAdjuster).

Topics (`topic.prefix` P, `topic.delimiter` D, default `.`):

* data changes: `P D schema D table` - blank parts are dropped, then every UTF-16 unit outside `[A-Za-z0-9._-]`
  becomes `_` (a non-BMP character therefore becomes `__`), the name is cut to 249 units, and `.`/`..` become
  `_`/`__`. Names are cached per table id (`topic.cache.size`, default 10000).
* transaction metadata: `P D <topic.transaction>` (default `transaction`); heartbeats:
  `<topic.heartbeat.prefix> D P` (default `__debezium-heartbeat`); schema changes: `P`. These are not sanitised.
* PostgreSQL logical decoding messages: `P + ".message"` (a literal dot, whatever the delimiter).

Schema names (`schema.name.adjustment.mode`) and field names (`field.name.adjustment.mode`): `none` (default),
`avro`, `avro_unicode`. Rules, per UTF-16 unit as Debezium's `SchemaNameAdjuster.validFullname`:

* avro, schema names: first char `[A-Za-z_]`, then `[A-Za-z0-9_.]`; an invalid char becomes `_`; an invalid
  first char that is a digit is kept after the `_` (`1abc` -> `_1abc`).
* avro, field names: the same without `.` (`a.b` -> `a_b`).
* avro_unicode: an invalid char becomes `_u` + its hex code (`Integer.toHexString`, padded to 4 digits only when
  it has 1-2 digits: `$` -> `_u0024`, U+0100 -> `_u100`); `_` itself is invalid (it is the escape), digits are
  invalid first chars and are not kept (`1a` -> `_u0031a`); schema names may contain `.`, field names may not.

An adjuster remembers what it replaced: two different invalid names that adjust to the same name raise a
`ConnectError`, as Debezium's stateful adjusters do (the conflict would merge two schemas or fields).
"""

from __future__ import annotations

import threading
import unicodedata
from collections.abc import Mapping
from typing import Final

from connect_worker.api.errors import ConfigError, ConnectError
from connectors.relational.filters import is_blank
from connectors.relational.table import TableId

__all__ = [
    "DEFAULT_HEARTBEAT_PREFIX",
    "DEFAULT_TRANSACTION_TOPIC",
    "MAX_TOPIC_NAME_LENGTH",
    "SchemaNameAdjuster",
    "TopicNamingStrategy",
    "field_name_adjuster",
    "is_valid_topic_name",
    "sanitize_topic_name",
    "schema_name_adjuster",
]

TOPIC_PREFIX: Final = "topic.prefix"
TOPIC_DELIMITER: Final = "topic.delimiter"
TOPIC_CACHE_SIZE: Final = "topic.cache.size"
TOPIC_HEARTBEAT_PREFIX: Final = "topic.heartbeat.prefix"
TOPIC_TRANSACTION: Final = "topic.transaction"
SCHEMA_NAME_ADJUSTMENT_MODE: Final = "schema.name.adjustment.mode"
FIELD_NAME_ADJUSTMENT_MODE: Final = "field.name.adjustment.mode"

DEFAULT_HEARTBEAT_PREFIX: Final = "__debezium-heartbeat"
DEFAULT_TRANSACTION_TOPIC: Final = "transaction"
DEFAULT_CACHE_SIZE: Final = 10_000
MAX_TOPIC_NAME_LENGTH: Final = 249
MESSAGE_TOPIC_SUFFIX: Final = ".message"
ADJUSTMENT_MODES: Final = ("none", "avro", "avro_unicode")

_TOPIC_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._-")


# -- topics ----------------------------------------------------------------------------------------------
def is_valid_topic_name(name: str) -> bool:
    """Kafka's legal topic characters `[A-Za-z0-9._-]`, 1..249 chars, not `.`/`..`."""
    return 0 < len(name) <= MAX_TOPIC_NAME_LENGTH and name not in (".", "..") and all(c in _TOPIC_CHARS for c in name)


def sanitize_topic_name(name: str) -> str:
    """Debezium's `AbstractTopicNamingStrategy.sanitizedTopicName`."""
    if all(c in _TOPIC_CHARS for c in name):
        out = name
    else:
        out = "".join(c if c in _TOPIC_CHARS else ("__" if ord(c) > 0xFFFF else "_") for c in name)
    if len(out) > MAX_TOPIC_NAME_LENGTH:  # `out` is ASCII here when it was changed; else length counts units
        out = out[:MAX_TOPIC_NAME_LENGTH]
    elif out == ".":
        out = "_"
    elif out == "..":
        out = "__"
    return out


class TopicNamingStrategy:
    """Topic names of one connector (io.debezium.schema.SchemaTopicNamingStrategy)."""

    def __init__(
        self,
        prefix: str,
        *,
        delimiter: str = ".",
        transaction: str = DEFAULT_TRANSACTION_TOPIC,
        heartbeat_prefix: str = DEFAULT_HEARTBEAT_PREFIX,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> None:
        self.prefix = prefix
        self.delimiter = delimiter
        self.transaction = transaction
        self.heartbeat_prefix = heartbeat_prefix
        self.cache_size = max(cache_size, 1)
        self._topics: dict[TableId, str] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_config(cls, props: Mapping[str, str]) -> TopicNamingStrategy:
        raw_size = props.get(TOPIC_CACHE_SIZE, str(DEFAULT_CACHE_SIZE))
        try:
            cache_size = int(raw_size.strip())
        except ValueError:
            raise ConfigError(
                f"Invalid value {raw_size} for configuration {TOPIC_CACHE_SIZE}", name=TOPIC_CACHE_SIZE
            ) from None
        return cls.checked(
            props.get(TOPIC_PREFIX) or "",
            delimiter=props.get(TOPIC_DELIMITER, "."),
            transaction=props.get(TOPIC_TRANSACTION, DEFAULT_TRANSACTION_TOPIC),
            heartbeat_prefix=props.get(TOPIC_HEARTBEAT_PREFIX, DEFAULT_HEARTBEAT_PREFIX),
            cache_size=cache_size,
        )

    @classmethod
    def checked(
        cls,
        prefix: str,
        *,
        delimiter: str,
        transaction: str,
        heartbeat_prefix: str,
        cache_size: int = DEFAULT_CACHE_SIZE,
    ) -> TopicNamingStrategy:
        """The strategy of a typed config's values, each checked to hold only topic-name characters."""
        if is_blank(prefix):
            raise ConfigError(f'The "{TOPIC_PREFIX}" value is invalid: A value is required', name=TOPIC_PREFIX)
        named = ((TOPIC_PREFIX, prefix), (TOPIC_DELIMITER, delimiter), (TOPIC_HEARTBEAT_PREFIX, heartbeat_prefix))
        for key, value in (*named, (TOPIC_TRANSACTION, transaction)):
            if not all(c in _TOPIC_CHARS for c in value):
                raise ConfigError(
                    f'The "{key}" value "{value}" is invalid: must contain only alphanumeric characters, '
                    "'-', '.' and '_'",
                    name=key,
                )
        return cls(
            prefix,
            delimiter=delimiter,
            transaction=transaction,
            heartbeat_prefix=heartbeat_prefix,
            cache_size=cache_size,
        )

    def data_change_topic(self, table_id: TableId) -> str:
        topic = self._topics.get(table_id)
        if topic is not None:
            return topic
        parts = [p for p in (self.prefix, table_id.schema, table_id.table) if not is_blank(p)]
        topic = sanitize_topic_name(self.delimiter.join(parts))
        with self._lock:
            if len(self._topics) >= self.cache_size:
                self._topics.pop(next(iter(self._topics)))
            self._topics[table_id] = topic
        return topic

    __call__ = data_change_topic

    def transaction_topic(self) -> str:
        return self.delimiter.join((self.prefix, self.transaction))

    def heartbeat_topic(self) -> str:
        return self.delimiter.join((self.heartbeat_prefix, self.prefix))

    def schema_change_topic(self) -> str:
        return self.prefix

    def message_topic(self) -> str:
        """Topic of PostgreSQL logical decoding messages (`LogicalDecodingMessageMonitor`)."""
        return self.prefix + MESSAGE_TOPIC_SUFFIX


# -- schema / field name adjustment ------------------------------------------------------------------------
def _ascii_letter(u: int) -> bool:
    return 0x41 <= u <= 0x5A or 0x61 <= u <= 0x7A


def _ascii_digit(u: int) -> bool:
    return 0x30 <= u <= 0x39


def _java_is_digit(u: int) -> bool:
    """`Character.isDigit(char)` (general category Nd) for one UTF-16 unit."""
    if u < 0x80:
        return _ascii_digit(u)
    if 0xD800 <= u <= 0xDFFF:
        return False
    return unicodedata.category(chr(u)) == "Nd"


class SchemaNameAdjuster:
    """Adjusts schema or field names to a mode's rules. `adjust(name)` is cheap for names already valid."""

    def __init__(self, mode: str = "none", *, field_names: bool = False, fail_on_conflict: bool = True) -> None:
        mode = mode.strip().lower()
        if mode not in ADJUSTMENT_MODES:
            raise ConfigError(f"Unknown adjustment mode {mode!r}; expected one of {', '.join(ADJUSTMENT_MODES)}")
        self.mode = mode
        self.field_names = field_names
        self.fail_on_conflict = fail_on_conflict
        self._unicode = mode == "avro_unicode"
        self._cache: dict[str, str] = {}
        self._original_by_replacement: dict[str, str] = {}
        self._lock = threading.Lock()

    def _valid_first(self, u: int) -> bool:
        return _ascii_letter(u) or (u == 0x5F and not self._unicode)

    def _valid_other(self, u: int) -> bool:
        if self._valid_first(u) or _ascii_digit(u):
            return True
        return u == 0x2E and not self.field_names

    def _replace(self, u: int) -> str:
        if not self._unicode:
            return "_"
        digits = format(u, "x")
        return "_u" + ("00" + digits if len(digits) <= 2 else digits)

    def adjust(self, name: str) -> str:
        if self.mode == "none" or not name:
            return name
        hit = self._cache.get(name)
        if hit is not None:
            return hit
        result = self._adjust(name)
        with self._lock:
            if len(self._cache) < 100_000:
                self._cache[name] = result  # like Debezium, a conflict is reported once per original name
            if result != name:
                seen = self._original_by_replacement.setdefault(result, name)
                if seen != name and self.fail_on_conflict:
                    raise ConnectError(
                        f"The Kafka Connect schema name '{name}' is not a valid Avro schema name and its replacement "
                        f"'{result}' conflicts with another different schema '{seen}'"
                    )
        return result

    __call__ = adjust

    def _adjust(self, name: str) -> str:
        if name.isascii():
            units = [ord(c) for c in name]
        else:
            raw = name.encode("utf-16-be", "surrogatepass")
            units = [(raw[i] << 8) | raw[i + 1] for i in range(0, len(raw), 2)]
        out: list[str] = []
        first = units[0]
        if self._valid_first(first):
            out.append(chr(first))
        else:
            out.append(self._replace(first))
            if not self._unicode and _java_is_digit(first):
                out.append(chr(first))
        for u in units[1:]:
            out.append(chr(u) if self._valid_other(u) else self._replace(u))
        return "".join(out)


def schema_name_adjuster(mode: str = "none") -> SchemaNameAdjuster:
    """The adjuster `schema.name.adjustment.mode` selects."""
    return SchemaNameAdjuster(mode)


def field_name_adjuster(mode: str = "none") -> SchemaNameAdjuster:
    """The adjuster `field.name.adjustment.mode` selects."""
    return SchemaNameAdjuster(mode, field_names=True)


def adjusters_from_config(props: Mapping[str, str]) -> tuple[SchemaNameAdjuster, SchemaNameAdjuster]:
    """(schema-name adjuster, field-name adjuster) from `schema.name.adjustment.mode` / `field.name.adjustment.mode`."""
    return adjusters(props.get(SCHEMA_NAME_ADJUSTMENT_MODE, "none"), props.get(FIELD_NAME_ADJUSTMENT_MODE, "none"))


def adjusters(schema_mode: str, field_mode: str) -> tuple[SchemaNameAdjuster, SchemaNameAdjuster]:
    """(schema-name adjuster, field-name adjuster) of a typed config's two adjustment modes."""
    out = []
    for key, field_names, value in (
        (SCHEMA_NAME_ADJUSTMENT_MODE, False, schema_mode),
        (FIELD_NAME_ADJUSTMENT_MODE, True, field_mode),
    ):
        if value.strip().lower() not in ADJUSTMENT_MODES:
            raise ConfigError(
                f'The "{key}" value "{value}" is invalid: must be one of {", ".join(ADJUSTMENT_MODES)}', name=key
            )
        out.append(SchemaNameAdjuster(value, field_names=field_names))
    return out[0], out[1]
