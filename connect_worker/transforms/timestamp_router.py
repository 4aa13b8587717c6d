"""TimestampRouter: topic name from the topic and the record timestamp (…transforms.TimestampRouter)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.errors import DataError
from connect_worker.api.record import SourceRecord
from connect_worker.api.transform import Transformation
from connect_worker.transforms._dateformat import SimpleDateFormat
from connect_worker.transforms._util import KAFKA_TRANSFORMS, KAFKA_VERSION, from_epoch_millis

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "topic.format",
            ConfigType.STRING,
            "${topic}-${timestamp}",
            importance=Importance.HIGH,
            documentation="Template of the new topic name: ${topic} is the original topic, "
            "${timestamp} the formatted record timestamp.",
        ),
        ConfigKey(
            "timestamp.format",
            ConfigType.STRING,
            "yyyyMMdd",
            importance=Importance.HIGH,
            documentation="java.text.SimpleDateFormat pattern for ${timestamp}, evaluated in UTC.",
        ),
    ]
)


class TimestampRouter(Transformation):
    """Routes each record to a topic built from its topic and timestamp (e.g. daily topics)."""

    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "TimestampRouter"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._topic_format: str = cfg["topic.format"]
        self._format = SimpleDateFormat(cfg["timestamp.format"])

    def apply(self, record: SourceRecord) -> SourceRecord:
        if record.timestamp is None:
            raise DataError(f"Timestamp missing on record: {record}")
        stamp = self._format.format(from_epoch_millis(record.timestamp))
        topic = self._topic_format.replace("${topic}", record.topic).replace("${timestamp}", stamp)
        return record.with_(topic=topic)
