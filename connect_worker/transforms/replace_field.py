"""ReplaceField: drop, keep and rename fields (…transforms.ReplaceField$Key / $Value)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, invalid
from connect_worker.api.record import SourceRecord
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
    operating_schema,
    operating_value,
    require_map,
    require_struct,
    struct_like,
)

_PURPOSE = "field replacement"


def _renames_check(name: str, value: Any) -> None:
    for mapping in value or ():
        parts = mapping.split(":")
        if len(parts) != 2:
            raise invalid(name, value, f"Invalid rename mapping: {mapping}")


_CONFIG = ConfigDef(
    [
        ConfigKey(
            "exclude",
            ConfigType.LIST,
            [],
            importance=Importance.MEDIUM,
            documentation="Fields to drop. Takes precedence over include.",
        ),
        ConfigKey(
            "include",
            ConfigType.LIST,
            [],
            importance=Importance.MEDIUM,
            documentation="Fields to keep; when set, every other field is dropped.",
        ),
        ConfigKey(
            "renames",
            ConfigType.LIST,
            [],
            validator=_renames_check,
            importance=Importance.MEDIUM,
            documentation="Renames as a list of old:new pairs, e.g. foo:bar,abc:xyz.",
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


class ReplaceField(Transformation):
    """Filters and renames the fields of a Struct or map."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._exclude = frozenset(cfg["exclude"])
        self._include = frozenset(cfg["include"])
        self._renames: dict[str, str] = dict(m.split(":") for m in cfg["renames"])
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._cache: SchemaCache[Schema, tuple[Schema, tuple[int, ...]]] = SchemaCache()

    def _keep(self, name: str) -> bool:
        return name not in self._exclude and (not self._include or name in self._include)

    def apply(self, record: SourceRecord) -> SourceRecord:
        value = operating_value(record, self.side)
        if value is None:
            return record
        schema = operating_schema(record, self.side)
        if schema is None:
            updated = {self._renames.get(k, k): v for k, v in require_map(value, _PURPOSE).items() if self._keep(k)}
            return new_record(record, self.side, None, updated)
        struct = require_struct(value, _PURPOSE)
        new_schema, indexes = self._cache.get(struct.schema, self._updated_schema)
        values = [field_value(struct, i, self._replace_null) for i in indexes]
        return new_record(record, self.side, new_schema, Struct.of(new_schema, values))

    def _updated_schema(self, schema: Schema) -> tuple[Schema, tuple[int, ...]]:
        kept = [f for f in schema.fields if self._keep(f.name)]
        fields = [(self._renames.get(f.name, f.name), f.schema) for f in kept]
        return struct_like(schema, fields), tuple(f.index for f in kept)


class ReplaceFieldKey(ReplaceField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "ReplaceField$Key"
    side: ClassVar[Side] = Side.KEY


class ReplaceFieldValue(ReplaceField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "ReplaceField$Value"
    side: ClassVar[Side] = Side.VALUE
