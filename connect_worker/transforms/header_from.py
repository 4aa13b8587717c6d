"""HeaderFrom: copy or move fields into headers (…transforms.HeaderFrom$Key / $Value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, one_of
from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.record import Header, SourceRecord
from connect_worker.api.schema import Schema
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import (
    KAFKA_TRANSFORMS,
    KAFKA_VERSION,
    SchemaCache,
    Side,
    field_value,
    new_record,
    non_empty_list,
    operating_schema,
    operating_value,
    require_map,
    require_struct,
    struct_like,
)

_PURPOSE = "header from"

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "fields",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Fields whose values become headers, matched by position with 'headers'.",
        ),
        ConfigKey(
            "headers",
            ConfigType.LIST,
            validator=non_empty_list,
            importance=Importance.HIGH,
            documentation="Header names, one per entry of 'fields'.",
        ),
        ConfigKey(
            "operation",
            ConfigType.STRING,
            validator=one_of("move", "copy"),
            importance=Importance.HIGH,
            documentation="move: remove the fields from the data; copy: leave them.",
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


class HeaderFrom(Transformation):
    """Adds a header per listed field with that field's value (and schema); `move` drops the fields."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._fields: tuple[str, ...] = tuple(cfg["fields"])
        self._headers: tuple[str, ...] = tuple(cfg["headers"])
        if len(self._fields) != len(self._headers):
            raise ConfigError("'fields' config must have the same number of elements as 'headers' config.")
        self._move = cfg["operation"] == "move"
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._cache: SchemaCache[Schema, tuple[Schema, tuple[int, ...]]] = SchemaCache()

    def apply(self, record: SourceRecord) -> SourceRecord:
        value = operating_value(record, self.side)
        schema = operating_schema(record, self.side)
        if value is None:
            return record
        if schema is None:
            data = require_map(value, _PURPOSE)
            added = tuple(Header(h, None, data.get(f)) for f, h in zip(self._fields, self._headers, strict=True))
            updated: Any = value
            if self._move:
                updated = {k: v for k, v in data.items() if k not in self._fields}
            return new_record(record, self.side, None, updated).with_(headers=(*record.headers, *added))
        struct = require_struct(value, _PURPOSE)
        headers: list[Header] = []
        for f_name, h_name in zip(self._fields, self._headers, strict=True):
            f = struct.schema.field(f_name)
            if f is None:
                raise DataError(f"Field {f_name} not found in the schema {struct.schema!r}")
            headers.append(Header(h_name, f.schema, field_value(struct, f.index, self._replace_null)))
        out = record
        if self._move:
            new_schema, kept = self._cache.get(struct.schema, self._moved_schema)
            moved = Struct.of(new_schema, [field_value(struct, i, self._replace_null) for i in kept])
            out = new_record(record, self.side, new_schema, moved)
        return out.with_(headers=(*record.headers, *headers))

    def _moved_schema(self, schema: Schema) -> tuple[Schema, tuple[int, ...]]:
        kept = [f for f in schema.fields if f.name not in self._fields]
        return struct_like(schema, [(f.name, f.schema) for f in kept]), tuple(f.index for f in kept)


class HeaderFromKey(HeaderFrom):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "HeaderFrom$Key"
    side: ClassVar[Side] = Side.KEY


class HeaderFromValue(HeaderFrom):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "HeaderFrom$Value"
    side: ClassVar[Side] = Side.VALUE
