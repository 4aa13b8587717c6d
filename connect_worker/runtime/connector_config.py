"""The framework keys every source connector config has (Connect's ConnectorConfig/SourceConnectorConfig).

Groups and order follow Connect's, because /config/validate and /connector-plugins/{p}/config show them.
"""

from __future__ import annotations

import re
from typing import Any, Final

from connect_worker.api import NO_DEFAULT, ConfigDef, ConfigType, Importance, Width
from connect_worker.api.config import ConfigKey, at_least, non_empty_string, one_of

COMMON: Final = "Common"
TRANSFORMS: Final = "Transforms"
PREDICATES: Final = "Predicates"
ERROR_HANDLING: Final = "Error Handling"
TOPIC_CREATION: Final = "Topic Creation"
EXACTLY_ONCE: Final = "Exactly Once Support"
OFFSETS_TOPIC: Final = "offsets.topic"
SOURCE_GROUPS: Final = (COMMON, TRANSFORMS, PREDICATES, ERROR_HANDLING, TOPIC_CREATION, EXACTLY_ONCE, OFFSETS_TOPIC)


def _key(
    name: str, type: ConfigType, default: object, group: str, order: int, display: str, doc: str, **kw: Any
) -> ConfigKey:
    return ConfigKey(
        name, type, default, group=group, order_in_group=order, display_name=display, documentation=doc, **kw
    )


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
            validator=non_empty_string,
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
            "tasks.max",
            ConfigType.INT,
            1,
            COMMON,
            3,
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
            4,
            "Enforce tasks max",
            "Fail a connector that generates more task configs than tasks.max.",
            importance=Importance.LOW,
            width=Width.SHORT,
        ),
        _key(
            "key.converter",
            ConfigType.CLASS,
            None,
            COMMON,
            5,
            "Key converter class",
            "Converter class for record keys; overrides the worker's.",
            importance=Importance.LOW,
            width=Width.SHORT,
        ),
        _key(
            "value.converter",
            ConfigType.CLASS,
            None,
            COMMON,
            6,
            "Value converter class",
            "Converter class for record values; overrides the worker's.",
            importance=Importance.LOW,
            width=Width.SHORT,
        ),
        _key(
            "header.converter",
            ConfigType.CLASS,
            None,
            COMMON,
            7,
            "Header converter class",
            "Converter class for record headers; overrides the worker's.",
            importance=Importance.LOW,
            width=Width.SHORT,
        ),
        _key(
            "config.action.reload",
            ConfigType.STRING,
            "restart",
            COMMON,
            8,
            "Reload Action",
            "What to do when an externalised config value changes: restart or none.",
            validator=one_of("none", "restart", case_sensitive=False),
            importance=Importance.LOW,
            width=Width.MEDIUM,
        ),
        _key(
            "transforms",
            ConfigType.LIST,
            "",
            TRANSFORMS,
            1,
            "Transforms",
            "Aliases of the transformations to apply to records, in order.",
            importance=Importance.LOW,
            width=Width.LONG,
        ),
        _key(
            "predicates",
            ConfigType.LIST,
            "",
            PREDICATES,
            1,
            "Predicates",
            "Aliases of the predicates transformations can use.",
            importance=Importance.LOW,
            width=Width.LONG,
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
            validator=one_of("none", "all", case_sensitive=False),
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
            "",
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
            1,
            "Exactly once support",
            "requested or required.",
            validator=one_of("requested", "required", case_sensitive=False),
            importance=Importance.MEDIUM,
            width=Width.SHORT,
        ),
        _key(
            "transaction.boundary",
            ConfigType.STRING,
            "poll",
            EXACTLY_ONCE,
            2,
            "Transaction Boundary",
            "poll, interval or connector.",
            validator=one_of("poll", "interval", "connector", case_sensitive=False),
            importance=Importance.MEDIUM,
            width=Width.SHORT,
        ),
        _key(
            "transaction.boundary.interval.ms",
            ConfigType.LONG,
            None,
            EXACTLY_ONCE,
            3,
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
            importance=Importance.LOW,
            width=Width.LONG,
        ),
    ]
)

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
