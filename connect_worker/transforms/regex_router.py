"""RegexRouter: rename the topic with a Java regex and replacement (org.apache.kafka.connect.transforms.RegexRouter)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.java_regex import Replacement, java_regex, regex_validator
from connect_worker.api.record import SourceRecord
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import KAFKA_TRANSFORMS, KAFKA_VERSION, SchemaCache

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "regex",
            ConfigType.STRING,
            validator=regex_validator,
            importance=Importance.HIGH,
            documentation="Java regular expression the whole topic name must match for the record to be renamed.",
        ),
        ConfigKey(
            "replacement",
            ConfigType.STRING,
            importance=Importance.HIGH,
            documentation="The new topic name; $1, ${name} refer to groups captured by the regex.",
        ),
    ]
)


class RegexRouter(Transformation):
    """Routes a record to a topic named by a regex replacement when the topic fully matches the regex."""

    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "RegexRouter"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._regex = java_regex(cfg["regex"])
        self._replacement = Replacement(self._regex, cfg["replacement"])
        self._topics: SchemaCache[str, str | None] = SchemaCache(64)

    def _route(self, topic: str) -> str | None:
        if self._regex.fullmatch(topic) is None:
            return None
        return self._replacement.replace_first(self._regex, topic)

    def apply(self, record: SourceRecord) -> SourceRecord:
        new_topic = self._topics.get(record.topic, self._route)
        if new_topic is None or new_topic == record.topic:
            return record
        return record.with_(topic=new_topic)
