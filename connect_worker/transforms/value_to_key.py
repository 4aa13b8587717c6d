"""ValueToKey: build the key from fields of the value (org.apache.kafka.connect.transforms.ValueToKey)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.errors import DataError
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import Schema, struct_schema
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import (
    KAFKA_TRANSFORMS,
    KAFKA_VERSION,
    SchemaCache,
    field_value,
    non_empty_list,
    require_map,
    require_struct,
)

_PURPOSE = "copying fields from value to key"

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "fields",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Value fields that make up the new key, in this order.",
        ),
        ConfigKey(
            "replace.null.with.default",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.MEDIUM,
            documentation="Copy a null field that has a default value as that default.",
        ),
    ]
)


class ValueToKey(Transformation):
    """Replaces the key with a Struct (or map) of the listed value fields."""

    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "ValueToKey"
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._fields: tuple[str, ...] = tuple(cfg["fields"])
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._cache: SchemaCache[Schema, tuple[Schema, tuple[int, ...]]] = SchemaCache()

    def apply(self, record: SourceRecord) -> SourceRecord:
        if record.value_schema is None:
            value = require_map(record.value, _PURPOSE)
            return record.with_(key_schema=None, key={f: value.get(f) for f in self._fields})
        struct = require_struct(record.value, _PURPOSE)
        key_schema, indexes = self._cache.get(struct.schema, self._key_schema)
        key = Struct.of(key_schema, [field_value(struct, i, self._replace_null) for i in indexes])
        return record.with_(key_schema=key_schema, key=key)

    def _key_schema(self, value_schema: Schema) -> tuple[Schema, tuple[int, ...]]:
        fields: list[tuple[str, Schema]] = []
        indexes: list[int] = []
        for name in self._fields:
            f = value_schema.field(name)
            if f is None:
                raise DataError(f"Field does not exist: {name}")
            fields.append((name, f.schema))
            indexes.append(f.index)
        return struct_schema(fields), tuple(indexes)
