"""SetSchemaMetadata: set the schema name and/or version (…transforms.SetSchemaMetadata$Key / $Value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.errors import ConfigError
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import Schema
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
    require_schema,
)

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "schema.name",
            ConfigType.STRING,
            None,
            importance=Importance.HIGH,
            documentation="Name to give the schema (unchanged when not set).",
        ),
        ConfigKey(
            "schema.version",
            ConfigType.INT,
            None,
            importance=Importance.HIGH,
            documentation="Version to give the schema (unchanged when not set).",
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


class SetSchemaMetadata(Transformation):
    """Overrides the name and/or version of the key or value schema (the data is re-attached to it)."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._name: str | None = cfg["schema.name"]
        self._version: int | None = cfg["schema.version"]
        if self._name is None and self._version is None:
            raise ConfigError("Neither schema name nor version configured")
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._cache: SchemaCache[Schema, Schema] = SchemaCache()

    def _updated(self, schema: Schema) -> Schema:
        changes: dict[str, Any] = {}
        if self._name is not None:
            changes["name"] = self._name
        if self._version is not None:
            changes["version"] = self._version
        return schema.with_(**changes)

    def apply(self, record: SourceRecord) -> SourceRecord:
        schema = require_schema(operating_schema(record, self.side), "updating schema metadata")
        updated = self._cache.get(schema, self._updated)
        value = operating_value(record, self.side)
        if isinstance(value, Struct):
            values = list(value.values)
            if self._replace_null:
                for f in value.schema.fields:
                    if values[f.index] is None and f.schema.has_default:
                        values[f.index] = f.schema.default
            value = Struct.of(updated, values)
        return new_record(record, self.side, updated, value)


class SetSchemaMetadataKey(SetSchemaMetadata):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "SetSchemaMetadata$Key"
    side: ClassVar[Side] = Side.KEY


class SetSchemaMetadataValue(SetSchemaMetadata):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "SetSchemaMetadata$Value"
    side: ClassVar[Side] = Side.VALUE
