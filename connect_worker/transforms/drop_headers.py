"""DropHeaders: remove headers by name (org.apache.kafka.connect.transforms.DropHeaders)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.record import SourceRecord
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import KAFKA_TRANSFORMS, KAFKA_VERSION, non_empty_list

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "headers",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Names of the headers to remove (every header with one of these names goes).",
        ),
    ]
)


class DropHeaders(Transformation):
    """Removes every header whose key is listed."""

    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "DropHeaders"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._names = frozenset(_CONFIG.parse(configs)["headers"])

    def apply(self, record: SourceRecord) -> SourceRecord:
        if not record.headers:
            return record
        kept = tuple(h for h in record.headers if h.key not in self._names)
        if len(kept) == len(record.headers):
            return record
        return record.with_(headers=kept)
