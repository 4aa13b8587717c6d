"""HoistField: wrap the key or value in a single-field struct or map (…transforms.HoistField$Key / $Value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import Schema, struct_schema
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import (
    KAFKA_TRANSFORMS,
    KAFKA_VERSION,
    SchemaCache,
    Side,
    new_record,
    operating_schema,
    operating_value,
)

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "field",
            ConfigType.STRING,
            importance=Importance.MEDIUM,
            documentation="Name of the single field of the wrapping struct (or map key).",
        )
    ]
)


class HoistField(Transformation):
    """Wraps the data in a Struct with one field (schema) or a one-entry map (schemaless)."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._field: str = _CONFIG.parse(configs)["field"]
        self._cache: SchemaCache[Schema, Schema] = SchemaCache()

    def apply(self, record: SourceRecord) -> SourceRecord:
        schema = operating_schema(record, self.side)
        value = operating_value(record, self.side)
        if schema is None:
            return new_record(record, self.side, None, {self._field: value})
        wrapped = self._cache.get(schema, lambda s: struct_schema([(self._field, s)]))
        return new_record(record, self.side, wrapped, Struct.of(wrapped, (value,)))


class HoistFieldKey(HoistField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "HoistField$Key"
    side: ClassVar[Side] = Side.KEY


class HoistFieldValue(HoistField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "HoistField$Value"
    side: ClassVar[Side] = Side.VALUE
