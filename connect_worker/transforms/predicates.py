"""The built-in predicates (org.apache.kafka.connect.transforms.predicates.*)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, non_empty_string
from connect_worker.api.java_regex import java_regex, regex_validator
from connect_worker.api.record import SourceRecord
from connect_worker.api.transform import Predicate
from connect_worker.transforms._util import KAFKA_PREDICATES, KAFKA_VERSION


def _pattern_check(name: str, value: Any) -> None:
    non_empty_string(name, value)
    regex_validator(name, value)


_TOPIC_CONFIG = ConfigDef(
    [
        ConfigKey(
            "pattern",
            ConfigType.STRING,
            validator=_pattern_check,
            importance=Importance.MEDIUM,
            documentation="Java regular expression the whole topic name must match.",
        )
    ]
)

_HEADER_CONFIG = ConfigDef(
    [
        ConfigKey(
            "name",
            ConfigType.STRING,
            validator=non_empty_string,
            importance=Importance.MEDIUM,
            documentation="The header name whose presence is tested.",
        )
    ]
)

_EMPTY = ConfigDef()


class TopicNameMatches(Predicate):
    """True for records whose topic name fully matches `pattern`."""

    class_name: ClassVar[str] = KAFKA_PREDICATES + "TopicNameMatches"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _TOPIC_CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._pattern = java_regex(_TOPIC_CONFIG.parse(configs)["pattern"])
        self._seen: dict[str, bool] = {}

    def test(self, record: SourceRecord) -> bool:
        topic = record.topic
        if topic is None:
            return False
        hit = self._seen.get(topic)
        if hit is None:
            hit = self._pattern.fullmatch(topic) is not None
            if len(self._seen) < 1024:
                self._seen[topic] = hit
        return hit


class HasHeaderKey(Predicate):
    """True for records with at least one header called `name`."""

    class_name: ClassVar[str] = KAFKA_PREDICATES + "HasHeaderKey"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _HEADER_CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._name: str = _HEADER_CONFIG.parse(configs)["name"]

    def test(self, record: SourceRecord) -> bool:
        name = self._name
        return any(h.key == name for h in record.headers)


class RecordIsTombstone(Predicate):
    """True for tombstones: records whose value is null."""

    class_name: ClassVar[str] = KAFKA_PREDICATES + "RecordIsTombstone"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _EMPTY

    def configure(self, configs: Mapping[str, Any]) -> None:
        _EMPTY.parse(configs)

    def test(self, record: SourceRecord) -> bool:
        return record.value is None
