"""InsertHeader: add a header with a literal value (org.apache.kafka.connect.transforms.InsertHeader)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.record import Header, SourceRecord
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import KAFKA_TRANSFORMS, KAFKA_VERSION, non_null_string
from connect_worker.transforms._values import parse_string

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "header",
            ConfigType.STRING,
            validator=non_null_string,
            importance=Importance.HIGH,
            documentation="Name of the header to add.",
        ),
        ConfigKey(
            "value.literal",
            ConfigType.STRING,
            validator=non_null_string,
            importance=Importance.HIGH,
            documentation="The header's value, written as a literal; its type is inferred the way Connect's "
            "Values.parseString does (booleans, numbers, otherwise a string).",
        ),
    ]
)


class InsertHeader(Transformation):
    """Appends one header with a fixed value to every record."""

    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "InsertHeader"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        parsed = parse_string(cfg["value.literal"])
        self._header = Header(cfg["header"], parsed.schema, parsed.value)

    def apply(self, record: SourceRecord) -> SourceRecord:
        return record.with_(headers=(*record.headers, self._header))
