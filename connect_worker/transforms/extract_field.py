"""ExtractField: replace the key or value by one of its fields (…transforms.ExtractField$Key / $Value).

With `field.syntax.version=V2` the field may be a dotted path into nested structs or maps; a name that
contains dots is written in backticks (`a.b`), with \\` for a backtick inside it (KIP-821).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import Schema, Type
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import (
    KAFKA_TRANSFORMS,
    KAFKA_VERSION,
    Side,
    field_syntax_check,
    new_record,
    operating_schema,
    operating_value,
    require_map_or_null,
    require_struct_or_null,
)

_PURPOSE = "field extraction"

_CONFIG = ConfigDef(
    [
        ConfigKey(
            "field",
            ConfigType.STRING,
            importance=Importance.MEDIUM,
            documentation="Name of the field to extract (a dotted path with field.syntax.version=V2).",
        ),
        # Kafka's order: field, replace.null.with.default, field.syntax.version
        ConfigKey(
            "replace.null.with.default",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.MEDIUM,
            documentation="Return a null field that has a default value as that default.",
        ),
        ConfigKey(
            "field.syntax.version",
            ConfigType.STRING,
            "V1",
            validator=field_syntax_check,
            importance=Importance.HIGH,
            documentation="V1: field names are taken literally. V2: dots separate nested field names; "
            "backticks quote a name containing dots.",
        ),
    ]
)


def parse_field_path(path: str, version: str) -> tuple[str, ...]:
    """Split a V2 field path (KIP-821): dots separate names; `…` quotes a name, \\` is a backtick in it."""
    if version.upper() == "V1":
        return (path,)
    parts: list[str] = []
    i, n = 0, len(path)
    while i <= n:
        if i < n and path[i] == "`":
            j = i + 1
            buf: list[str] = []
            while j < n:
                if path[j] == "\\" and j + 1 < n and path[j + 1] == "`":
                    buf.append("`")
                    j += 2
                    continue
                if path[j] == "`" and (j + 1 == n or path[j + 1] == "."):
                    break
                buf.append(path[j])
                j += 1
            if j >= n:
                raise ConfigError(f"Incomplete backtick quoting in field path: {path}")
            parts.append("".join(buf))
            i = j + 2
        else:
            end = path.find(".", i)
            end = n if end < 0 else end
            parts.append(path[i:end])
            i = end + 1
    return tuple(parts)


def _schema_at(schema: Schema, path: tuple[str, ...]) -> Schema | None:
    current: Schema | None = schema
    for name in path:
        if current is None or current.type is not Type.STRUCT:
            return None
        f = current.field(name)
        current = f.schema if f is not None else None
    return current


def _value_at_struct(value: Struct, path: tuple[str, ...], replace_null: bool) -> Any:
    current: Any = value
    for name in path:
        if not isinstance(current, Struct):
            return None
        f = current.schema.field(name)
        if f is None:
            return None
        current = current.values[f.index]
        if current is None and replace_null and f.schema.has_default:
            current = f.schema.default
    return current


def _value_at_map(value: Mapping[str, Any], path: tuple[str, ...]) -> Any:
    current: Any = value
    for name in path:
        if not isinstance(current, Mapping):
            return None
        current = current.get(name)
    return current


class ExtractField(Transformation):
    """Replaces the key or value with the value of one of its fields (and its schema)."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._name: str = cfg["field"]
        self._path = parse_field_path(cfg["field"], cfg["field.syntax.version"])
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._schemas: dict[Schema, Schema] = {}

    def apply(self, record: SourceRecord) -> SourceRecord:
        schema = operating_schema(record, self.side)
        value = operating_value(record, self.side)
        if schema is None:
            as_map = require_map_or_null(value, _PURPOSE)
            return new_record(record, self.side, None, None if as_map is None else _value_at_map(as_map, self._path))
        struct = require_struct_or_null(value, _PURPOSE)
        field_schema = self._schemas.get(schema)
        if field_schema is None:
            field_schema = _schema_at(schema, self._path) if schema.type is Type.STRUCT else None
            if field_schema is None:
                raise DataError(f"Unknown field: {self._name}")
            if len(self._schemas) < 64:
                self._schemas[schema] = field_schema
        extracted = None if struct is None else _value_at_struct(struct, self._path, self._replace_null)
        return new_record(record, self.side, field_schema, extracted)


class ExtractFieldKey(ExtractField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "ExtractField$Key"
    side: ClassVar[Side] = Side.KEY


class ExtractFieldValue(ExtractField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "ExtractField$Value"
    side: ClassVar[Side] = Side.VALUE
