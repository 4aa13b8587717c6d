"""Checks of one PostgreSQL connector value on its own, with Debezium's texts: parsing a supplied value to its
key's type, then the key's enum, range, regular-expression and slot-name rules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any, Final

from connect_worker.api.config import ConfigKey, ConfigType, Password
from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex import JavaRegexError, java_regex
from connectors.postgres.config.entries import split_list
from connectors.postgres.config.modes import ENUM_VALUES, SNAPSHOT_MODE_ALIASES
from connectors.relational.filters import split_regex_list

REQUIRED_MESSAGE = "A value is required"
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

#: Comma-separated lists of anchored Java regular expressions.
REGEX_LISTS: Final = frozenset(
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

_SLOT_NAME = re.compile(r"[a-z0-9_]{1,63}")


def invalid_message(name: str, message: str) -> str:
    return f"The '{name}' value is invalid: {message}"


def validator_for(name: str) -> Callable[[str, Any], None] | None:
    """A single-key validator for the generic ConfigDef.validate path (validate_props does more)."""
    if name not in ENUM_VALUES and name not in _RANGES and name not in REGEX_LISTS and name != "slot.name":
        return None

    def check(key: str, value: Any) -> None:
        problems = check_value(key, value)
        if problems:
            raise ConfigError(invalid_message(key, problems[0]), name=key)

    return check


def check_value(name: str, value: Any) -> list[str]:
    """Problems of one parsed, non-null value on its own (enum, range, regex, slot name)."""
    if value is None:
        return []
    problems: list[str] = []
    if name in ENUM_VALUES:
        allowed = ENUM_VALUES[name]
        if str(value).lower() not in allowed and not (
            name == "snapshot.mode" and str(value).lower() in SNAPSHOT_MODE_ALIASES
        ):
            problems.append("Value must be one of " + ", ".join(allowed))
    if name in _RANGES and isinstance(value, int) and not isinstance(value, bool):
        message, ok = _RANGES[name]
        if not ok(value):
            problems.append(message)
    if name in REGEX_LISTS:
        items = value if isinstance(value, list | tuple) else split_regex_list(str(value))
        for rx in items:
            try:
                java_regex(rx, case_insensitive=True)  # Debezium matches its lists case-insensitively
            except (re.error, JavaRegexError) as e:
                problems.append(f"A comma-separated list of valid regular expressions is expected, but {e}")
                break
    if name == "slot.name" and not _SLOT_NAME.fullmatch(str(value)):
        problems.append(
            "Valid replication slot name must contain only digits, lowercase characters and underscores "
            "with length <= 63"
        )
    return problems


def parse_raw(key: ConfigKey, raw: Any) -> tuple[Any, list[str]]:
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
        return tuple(split_regex_list(s) if key.name in REGEX_LISTS else split_list(s)), []
    return str(text), []
