"""The framework keys every source connector config has (Connect's ConnectorConfig/SourceConnectorConfig).

Groups, order, widths, display names and validators follow Connect 4.3's, because /config/validate and
/connector-plugins/{p}/config show them. Also here: the keys Connect adds per transform/predicate alias
(`transforms.<a>.type`, `transforms.<a>.plugin.version`, the plugin's own keys embedded under the alias) and
the order in which it embeds them (ConfigDef.embed over ConfigDef.sortedConfigs).
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from connect_worker.api import NO_DEFAULT, ConfigDef, ConfigType, Importance, Width
from connect_worker.api.config import ConfigKey, Recommender, Validator, at_least, invalid, one_of
from connect_worker.api.errors import ConfigError

COMMON: Final = "Common"
TRANSFORMS: Final = "Transforms"
PREDICATES: Final = "Predicates"
ERROR_HANDLING: Final = "Error Handling"
TOPIC_CREATION: Final = "Topic Creation"
EXACTLY_ONCE: Final = "Exactly Once Support"
OFFSETS_TOPIC: Final = "offsets.topic"
SOURCE_GROUPS: Final = (COMMON, TRANSFORMS, PREDICATES, ERROR_HANDLING, TOPIC_CREATION, EXACTLY_ONCE, OFFSETS_TOPIC)
# The groups of ConnectorConfig alone (what Connect validates when the connector's version cannot be loaded).
BASE_GROUPS: Final = (COMMON, TRANSFORMS, PREDICATES, ERROR_HANDLING)

CONNECTOR_VERSION: Final = "connector.plugin.version"
CONVERTER_SIDES: Final = ("key", "value", "header")


def converter_key(side: str) -> str:
    return f"{side}.converter"


def converter_version_key(side: str) -> str:
    return f"{side}.converter.plugin.version"


def _key(
    name: str, type: ConfigType, default: object, group: str, order: int, display: str, doc: str, **kw: Any
) -> ConfigKey:
    return ConfigKey(
        name, type, default, group=group, order_in_group=order, display_name=display, documentation=doc, **kw
    )


def java_list(values: Iterable[Any]) -> str:
    """A Java List's toString(), as Connect's messages quote list values."""
    return "[" + ", ".join(str(v) for v in values) + "]"


def _connector_name(name: str, value: Any) -> None:
    """Connect's NonEmptyStringWithoutControlChars: not empty, no ISO control character (U+0000-U+001F,
    U+007F-U+009F), those found listed by code. A missing name is reported once, as missing (the validator lets
    null through, as Connect's does)."""
    if value is None:
        return
    if value == "":
        raise invalid(name, value, "String may not be empty")
    controls = [str(ord(c)) for c in value if ord(c) <= 0x1F or 0x7F <= ord(c) <= 0x9F]
    if controls:
        raise invalid(
            name,
            value,
            f"String may not contain control sequences but had the following ASCII chars: {', '.join(controls)}",
        )


def _unique_aliases(name: str, value: Any) -> None:
    aliases = list(value or ())
    if len(set(aliases)) != len(aliases):
        raise ConfigError(f"Invalid value {java_list(aliases)} for configuration {name}: Duplicate alias provided.")


def _non_empty_when_set(name: str, value: Any) -> None:
    if value is not None and value == "":
        raise invalid(name, value, "String must be non-empty")


def _converter_keys(side: str, order: int) -> list[ConfigKey]:
    word = side.capitalize()
    return [
        _key(
            converter_key(side),
            ConfigType.CLASS,
            None,
            COMMON,
            order,
            f"{word} converter class",
            f"Converter class for record {side}s; overrides the worker's.",
            importance=Importance.LOW,
            width=Width.SHORT,
        ),
        _key(
            converter_version_key(side),
            ConfigType.STRING,
            None,
            COMMON,
            order + 1,
            f"{word} converter version",
            f"Version of the {side} converter plugin; the installed one when unset.",
            importance=Importance.LOW,
            width=Width.SHORT,
        ),
    ]


SOURCE_CONNECTOR_CONFIG_DEF: Final = ConfigDef(
    [
        _key(
            "name",
            ConfigType.STRING,
            NO_DEFAULT,
            COMMON,
            1,
            "Connector name",
            "Globally unique name to use for this connector.",
            validator=_connector_name,
            importance=Importance.HIGH,
            width=Width.MEDIUM,
        ),
        _key(
            "connector.class",
            ConfigType.STRING,
            NO_DEFAULT,
            COMMON,
            2,
            "Connector class",
            "Name or alias of the class for this connector.",
            importance=Importance.HIGH,
            width=Width.LONG,
        ),
        _key(
            CONNECTOR_VERSION,
            ConfigType.STRING,
            None,
            COMMON,
            3,
            "Connector version",
            "Version (or Maven version range) of the connector plugin to run; the installed one when unset.",
            importance=Importance.MEDIUM,
            width=Width.MEDIUM,
        ),
        _key(
            "tasks.max",
            ConfigType.INT,
            1,
            COMMON,
            4,
            "Tasks max",
            "Maximum number of tasks to use for this connector.",
            validator=at_least(1),
            importance=Importance.HIGH,
            width=Width.SHORT,
        ),
        _key(
            "tasks.max.enforce",
            ConfigType.BOOLEAN,
            True,
            COMMON,
            5,
            "Enforce tasks max",
            "Fail a connector that generates more task configs than tasks.max.",
            importance=Importance.LOW,
            width=Width.SHORT,
        ),
        *_converter_keys("key", 6),
        *_converter_keys("value", 8),
        *_converter_keys("header", 10),
        _key(
            "transforms",
            ConfigType.LIST,
            (),
            TRANSFORMS,
            12,
            "Transforms",
            "Aliases of the transformations to apply to records, in order.",
            validator=_unique_aliases,
            importance=Importance.LOW,
            width=Width.LONG,
        ),
        _key(
            "predicates",
            ConfigType.LIST,
            (),
            PREDICATES,
            13,
            "Predicates",
            "Aliases of the predicates transformations can use.",
            validator=_unique_aliases,
            importance=Importance.LOW,
            width=Width.LONG,
        ),
        _key(
            "config.action.reload",
            ConfigType.STRING,
            "restart",
            COMMON,
            14,
            "Reload Action",
            "What to do when an externalised config value changes: restart or none.",
            validator=one_of("none", "restart"),
            importance=Importance.LOW,
            width=Width.MEDIUM,
        ),
        _key(
            "errors.retry.timeout",
            ConfigType.LONG,
            0,
            ERROR_HANDLING,
            1,
            "Retry Timeout for Errors",
            "Total time in ms a failed operation is retried; 0 no retries, -1 forever.",
            importance=Importance.MEDIUM,
            width=Width.MEDIUM,
        ),
        _key(
            "errors.retry.delay.max.ms",
            ConfigType.LONG,
            60000,
            ERROR_HANDLING,
            2,
            "Maximum Delay Between Retries for Errors",
            "Longest pause between retries of a failed operation.",
            importance=Importance.MEDIUM,
            width=Width.MEDIUM,
        ),
        _key(
            "errors.tolerance",
            ConfigType.STRING,
            "none",
            ERROR_HANDLING,
            3,
            "Error Tolerance",
            "none: a conversion or transform error fails the task; all: the record is skipped.",
            validator=one_of("none", "all"),
            importance=Importance.MEDIUM,
            width=Width.SHORT,
        ),
        _key(
            "errors.log.enable",
            ConfigType.BOOLEAN,
            False,
            ERROR_HANDLING,
            4,
            "Log Errors",
            "Log each tolerated error.",
            importance=Importance.MEDIUM,
            width=Width.SHORT,
        ),
        _key(
            "errors.log.include.messages",
            ConfigType.BOOLEAN,
            False,
            ERROR_HANDLING,
            5,
            "Log Error Details",
            "Include the record's topic, partition, offset and timestamp in the logged error.",
            importance=Importance.MEDIUM,
            width=Width.SHORT,
        ),
        _key(
            "topic.creation.groups",
            ConfigType.LIST,
            (),
            TOPIC_CREATION,
            1,
            "Topic Creation Groups",
            "Extra groups of topic-creation settings, matched in order before 'default'.",
            importance=Importance.LOW,
            width=Width.LONG,
        ),
        _key(
            "exactly.once.support",
            ConfigType.STRING,
            "requested",
            EXACTLY_ONCE,
            2,
            "Exactly once support",
            "requested or required.",
            validator=one_of("REQUIRED", "REQUESTED", case_sensitive=False),
            importance=Importance.MEDIUM,
            width=Width.SHORT,
        ),
        _key(
            "transaction.boundary",
            ConfigType.STRING,
            "poll",
            EXACTLY_ONCE,
            3,
            "Transaction Boundary",
            "poll, interval or connector.",
            validator=one_of("INTERVAL", "POLL", "CONNECTOR", case_sensitive=False),
            importance=Importance.MEDIUM,
            width=Width.SHORT,
        ),
        _key(
            "transaction.boundary.interval.ms",
            ConfigType.LONG,
            None,
            EXACTLY_ONCE,
            4,
            "Transaction boundary interval",
            "Transaction length with transaction.boundary=interval.",
            importance=Importance.LOW,
            width=Width.SHORT,
        ),
        _key(
            "offsets.storage.topic",
            ConfigType.STRING,
            None,
            OFFSETS_TOPIC,
            1,
            "Offsets topic",
            "A separate offsets topic for this connector (KIP-618).",
            validator=_non_empty_when_set,
            importance=Importance.LOW,
            width=Width.LONG,
        ),
    ]
)


# -- per-alias keys of transforms and predicates (Connect's ConnectorConfig.EnrichablePlugin) ------------------
_KIND_WORD: Final = {TRANSFORMS.lower(): "Transformation", PREDICATES.lower(): "Predicate"}


def alias_group(kind: str, alias: str) -> str:
    """`Transforms: <alias>` / `Predicates: <alias>` for kind `transforms` / `predicates`."""
    return f"{kind.capitalize()}: {alias}"


def alias_type_key(kind: str, alias: str) -> ConfigKey:
    word = _KIND_WORD[kind]
    return ConfigKey(
        f"{kind}.{alias}.type",
        ConfigType.CLASS,
        importance=Importance.HIGH,
        documentation=f"Class of the '{alias}' {word.lower()}.",
        group=alias_group(kind, alias),
        order_in_group=0,
        width=Width.LONG,
        display_name=f"{word} type for {alias}",
    )


def alias_version_key(kind: str, alias: str, default: str | None) -> ConfigKey:
    word = _KIND_WORD[kind]
    return ConfigKey(
        f"{kind}.{alias}.plugin.version",
        ConfigType.STRING,
        default,
        importance=Importance.HIGH,
        documentation=f"Version (or Maven version range) of the '{alias}' {word.lower()} plugin.",
        group=alias_group(kind, alias),
        order_in_group=1,
        width=Width.LONG,
        display_name=f"{word} version for {alias}",
    )


# What every transformation gets besides its own keys (Connect defines them without group, order or width).
TRANSFORM_COMMON_KEYS: Final = (
    ConfigKey(
        "predicate",
        ConfigType.STRING,
        None,
        importance=Importance.MEDIUM,
        documentation="Alias of the predicate deciding whether this transformation applies.",
        display_name="predicate",
    ),
    ConfigKey(
        "negate",
        ConfigType.BOOLEAN,
        False,
        importance=Importance.MEDIUM,
        documentation="Apply the transformation when the predicate does not match instead of when it does.",
        display_name="negate",
    ),
)

_IMPORTANCE_RANK: Final = {Importance.HIGH: 0, Importance.MEDIUM: 1, Importance.LOW: 2}


def sorted_configs(keys: Sequence[ConfigKey]) -> list[ConfigKey]:
    """ConfigDef.sortedConfigs: ungrouped keys first, then by group (in first-seen order), order in group,
    keys without a default first, importance (HIGH first) and name."""
    group_rank: dict[str, int] = {}
    for k in keys:
        if k.group is not None:
            group_rank.setdefault(k.group, len(group_rank))

    def rank(k: ConfigKey) -> tuple[int, int, int, int, str]:
        group = -1 if k.group is None else group_rank[k.group]
        return group, k.order_in_group, 0 if k.required else 1, _IMPORTANCE_RANK[k.importance], k.name

    return sorted(keys, key=rank)


def _short_named(validator: Validator, short: str) -> Validator:
    # an embedded key's validator reports the plugin's own (unprefixed) name, as Connect's does
    @functools.wraps(validator)
    def check(_name: str, value: Any) -> None:
        validator(short, value)

    return check


def _embedded_recommender(recommender: Recommender, prefix: str, short: str) -> Recommender:
    def recommend(_name: str, parsed: Mapping[str, Any]) -> list[Any]:
        return recommender(short, {k[len(prefix) :]: v for k, v in parsed.items() if k.startswith(prefix)})

    return recommend


def embed(prefix: str, group: str, start: int, keys: Sequence[ConfigKey]) -> list[ConfigKey]:
    """ConfigDef.embed: the plugin's keys under `prefix`, in sorted_configs order, numbered from `start` in
    `group` (a key's own group becomes `<group>: <own group>`)."""
    out: list[ConfigKey] = []
    for order, k in enumerate(sorted_configs(keys), start=start):
        out.append(
            dataclasses.replace(
                k,
                name=prefix + k.name,
                group=group if k.group is None else f"{group}: {k.group}",
                order_in_group=order,
                display_name=k.display_name or k.name,
                dependents=tuple(prefix + d for d in k.dependents),
                validator=None if k.validator is None else _short_named(k.validator, k.name),
                recommender=None if k.recommender is None else _embedded_recommender(k.recommender, prefix, k.name),
            )
        )
    return out


TOPIC_CREATION_GROUP_RE: Final = re.compile(r"^topic\.creation\.([^.]+)\.(.+)$")


def is_framework_key(name: str) -> bool:
    return name in SOURCE_CONNECTOR_CONFIG_DEF or name.startswith(
        (
            "transforms.",
            "predicates.",
            "key.converter.",
            "value.converter.",
            "header.converter.",
            "topic.creation.",
            "producer.override.",
            "admin.override.",
            "consumer.override.",
        )
    )
