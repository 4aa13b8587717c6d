"""Flatten: nested structs/maps to one level, names joined by a delimiter (…transforms.Flatten$Key / $Value)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.errors import DataError
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import Schema, Type
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import (
    KAFKA_TRANSFORMS,
    KAFKA_VERSION,
    SchemaCache,
    Side,
    copy_basics,
    new_record,
    operating_schema,
    operating_value,
    require_map,
    require_map_or_null,
    require_struct_or_null,
    struct_like,
    type_name,
)

_PURPOSE = "flattening"

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "delimiter",
            ConfigType.STRING,
            ".",
            importance=Importance.MEDIUM,
            documentation="Joins the names of a nested field and its parents into the flattened field name.",
        )
    ]
)

_LEAF_TYPES = (bool, int, float, str, bytes, bytearray, Decimal, list, tuple)


class Flatten(Transformation):
    """Flattens nested Structs (schema) or maps (schemaless) into one level of fields."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        self._delimiter: str = _CONFIG.parse(configs)["delimiter"]
        self._cache: SchemaCache[Schema, Schema] = SchemaCache()

    def _name(self, prefix: str, name: str) -> str:
        return name if not prefix else prefix + self._delimiter + name

    def apply(self, record: SourceRecord) -> SourceRecord:
        schema = operating_schema(record, self.side)
        value = operating_value(record, self.side)
        if schema is None:
            data = require_map_or_null(value, _PURPOSE)
            if data is None:
                return new_record(record, self.side, None, None)
            out: dict[str, Any] = {}
            self._flatten_map(data, "", out)
            return new_record(record, self.side, None, out)
        struct = require_struct_or_null(value, _PURPOSE)
        flat_schema = self._cache.get(schema, self._flat_schema)
        if struct is None:
            return new_record(record, self.side, flat_schema, None)
        values: list[Any] = []
        self._flatten_struct(struct, struct.schema, values)
        return new_record(record, self.side, flat_schema, Struct.of(flat_schema, values))

    # -- schemaless -------------------------------------------------------------------------------
    def _flatten_map(self, data: Mapping[str, Any], prefix: str, out: dict[str, Any]) -> None:
        for key, v in data.items():
            name = self._name(prefix, str(key))
            if v is None or isinstance(v, _LEAF_TYPES):
                out[name] = v
            elif isinstance(v, Mapping):
                self._flatten_map(require_map(v, _PURPOSE), name, out)
            else:
                raise DataError(
                    f"Flatten transformation does not support {type_name(v)} for record without schemas "
                    f"(for field {name})."
                )

    # -- with schema ------------------------------------------------------------------------------
    def _flat_schema(self, schema: Schema) -> Schema:
        if schema.type is not Type.STRUCT:
            raise DataError(f"Only Struct objects supported for [{_PURPOSE}], found: {schema.type.name}")
        fields: list[tuple[str, Schema]] = []
        self._collect_fields(schema, "", schema.optional, None, fields)
        return struct_like(schema, fields)

    def _collect_fields(
        self,
        schema: Schema,
        prefix: str,
        optional: bool,
        parent_default: Struct | None,
        out: list[tuple[str, Schema]],
    ) -> None:
        for f in schema.fields:
            name = self._name(prefix, f.name)
            field_optional = optional or f.schema.optional
            default: Any = f.schema.default if f.schema.has_default else None
            if default is None and parent_default is not None:
                default = parent_default.values[f.index]
            if f.schema.type is Type.STRUCT:
                self._collect_fields(f.schema, name, field_optional, default, out)
            else:
                if any(existing == name for existing, _ in out):
                    raise DataError(f"Cannot create field because of field name duplication {name}")
                out.append((name, copy_basics(f.schema, optional=field_optional, default=default)))

    def _flatten_struct(self, struct: Struct | None, schema: Schema, out: list[Any]) -> None:
        for f in schema.fields:
            v = None if struct is None else struct.values[f.index]
            if f.schema.type is Type.STRUCT:
                self._flatten_struct(v, f.schema, out)
            else:
                out.append(v)


class FlattenKey(Flatten):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "Flatten$Key"
    side: ClassVar[Side] = Side.KEY


class FlattenValue(Flatten):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "Flatten$Value"
    side: ClassVar[Side] = Side.VALUE
