"""/config/validate for the PostgreSQL connector: every defined key parsed and checked, then the cross-field
rules and the keys that are not defined one by one (column masks, snapshot query overrides, driver settings).
Collects every problem with Debezium's texts; never raises.
"""

from __future__ import annotations

import dataclasses
import logging
import re
from collections.abc import Mapping
from typing import Any, Final

from connect_worker.api.config import ConfigType, ConfigValue
from connectors.postgres.config.checks import REQUIRED_MESSAGE, check_value, invalid_message, parse_raw
from connectors.postgres.config.entries import (
    KeyColumnsRule,
    ReplicaIdentityRule,
    parse_key_columns,
    parse_replica_identity_rules,
)
from connectors.postgres.config.keys import POSTGRES_CONFIG_DEF
from connectors.postgres.config.modes import DEPRECATED_ALIASES, ENUM_VALUES, SNAPSHOT_MODE_ALIASES
from connectors.relational.column_mappers import parse_rule
from connectors.relational.signaling_config import NOTIFICATION_CHANNELS, SIGNAL_CHANNELS

log = logging.getLogger(__name__)

_P = ConfigType.PASSWORD

_REQUIRED_KEYS: Final = ("topic.prefix", "database.hostname", "database.user", "database.dbname")

#: (include, exclude, the name Debezium's message quotes)
_EXCLUSIVE: Final = (
    ("schema.include.list", "schema.exclude.list", "schema.include.list"),
    ("table.include.list", "table.exclude.list", "table.include.list"),
    ("column.include.list", "column.exclude.list", "column.include.list"),
    ("message.prefix.include.list", "message.prefix.exclude.list", "logical_decoding_message.prefix.include.list"),
)

_TOPIC_PREFIX = re.compile(r"[A-Za-z0-9._-]+")
_SKIPPED_OPS: Final = frozenset({"c", "u", "d", "t", "none"})


@dataclasses.dataclass
class Outcome:
    values: dict[str, ConfigValue]
    parsed: dict[str, Any]
    warnings: list[str]
    replica_rules: tuple[ReplicaIdentityRule, ...]
    key_columns: tuple[KeyColumnsRule, ...]
    select_overrides: dict[str, str]
    driver_properties: dict[str, str]
    supplied: set[str] = dataclasses.field(default_factory=set)

    def error(self, name: str, message: str) -> None:
        cv = self.values.get(name)
        if cv is None:
            cv = self.values[name] = ConfigValue(name, self.parsed.get(name))
        text = invalid_message(name, message)
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


def check_props(props: Mapping[str, Any]) -> Outcome:
    warnings: list[str] = []
    merged = _apply_aliases(props, warnings)
    out = Outcome({}, {}, warnings, (), (), {}, {})
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
        value, problems = parse_raw(key, raw)
        for p in problems:
            out.error(name, p)
        if problems:
            out.parsed[name] = cv.value = None
            continue
        out.parsed[name] = cv.value = value
        out.supplied.add(name)
        for p in check_value(name, value):
            out.error(name, p)
    _cross_field_rules(merged, out)
    return out


def _cross_field_rules(props: Mapping[str, Any], out: Outcome) -> None:
    p = out.parsed
    for name in _REQUIRED_KEYS:
        if p.get(name) in (None, ""):
            out.error(name, REQUIRED_MESSAGE)
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
        out.key_columns, problems = parse_key_columns(mkc)
        for problem in problems:
            out.error("message.key.columns", problem)
    _signal_rules(out)
    _dynamic_keys(props, out)
    if p.get("flush.lsn.source") is False and p.get("lsn.flush.mode") is None:
        out.warnings.append(
            "flush.lsn.source=false: positions are never confirmed to the slot and the server keeps all WAL"
        )


def _signal_rules(out: Outcome) -> None:
    p = out.parsed
    notification = [c.lower() for c in p.get("notification.enabled.channels") or ()]
    if "sink" in notification and not p.get("notification.sink.topic.name"):
        out.error(
            "notification.sink.topic.name",
            "Notification topic name must be provided when kafka notification channel is enabled",
        )
    signals = [c.lower() for c in p.get("signal.enabled.channels") or ()]
    unknown = [c for c in signals if c not in SIGNAL_CHANNELS]
    if unknown:
        out.error(
            "signal.enabled.channels",
            f"Unknown signal channel(s) {', '.join(unknown)}: this worker has source, kafka, file and jmx "
            "(the worker's POST /connectors/{name}/signals; 'rest' is the same); custom Java channels cannot load here",
        )
    bad_notifications = [c for c in notification if c not in NOTIFICATION_CHANNELS]
    if bad_notifications:
        out.error(
            "notification.enabled.channels",
            f"Unknown or unsupported notification channel(s) {', '.join(bad_notifications)}: this worker has sink "
            "and log (JMX notifications and custom Java channels have no equivalent here)",
        )

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


def _dynamic_keys(props: Mapping[str, Any], out: Outcome) -> None:
    """Keys that are not defined one by one: column masks, per-table snapshot queries, driver pass-through."""
    for key in sorted(props):
        raw = props[key]
        if key in POSTGRES_CONFIG_DEF or key in DEPRECATED_ALIASES:
            continue
        value = "" if raw is None else str(raw).strip()
        if key.startswith(("column.truncate.", "column.mask.")):
            for problem in parse_rule(key, value)[1]:
                out.error(key, problem)
        elif key.startswith("snapshot.select.statement.overrides."):
            out.select_overrides[key[len("snapshot.select.statement.overrides.") :]] = value
        elif key.startswith("database."):
            out.driver_properties[key[len("database.") :]] = value
        elif key == "kafka.consumer.offset.commit.enabled":
            out.error(
                key,
                "Not a Debezium 3.6 setting: the Kafka signal channel's consumer commits its offsets automatically; "
                "set signal.consumer.enable.auto.commit=false to change that",
            )


def validate_props(props: Mapping[str, Any]) -> dict[str, ConfigValue]:
    """Every key's value and errors (Debezium's texts), defined keys in definition order, then the rest."""
    outcome = check_props(props)
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
        cv.recommended_values = list(ENUM_VALUES.get(key.name, ()))
        if key.name == "schema.exclude.list":
            cv.visible = False
