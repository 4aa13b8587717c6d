"""The Kafka Connect schema model, parsed from JsonConverter's schema JSON (kafka-connect.md §3.2). Pure."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from spark_sink.frozen import cached_hash

PRIMITIVES = frozenset({"int8", "int16", "int32", "int64", "float", "double", "boolean", "string", "bytes"})
CONTAINERS = frozenset({"array", "map", "struct"})


class SchemaError(ValueError):
    """A schema JSON that is not a valid Kafka Connect schema."""


@dataclass(frozen=True)
class ConnectField:
    name: str
    schema: ConnectSchema


@dataclass(frozen=True)
class ConnectSchema:
    type: str
    optional: bool = True
    name: str | None = None
    version: int | None = None
    params: tuple[tuple[str, str], ...] = ()  # a tuple keeps the schema hashable (it keys converter caches)
    fields: tuple[ConnectField, ...] = ()
    items: ConnectSchema | None = None
    keys: ConnectSchema | None = None
    values: ConnectSchema | None = None

    __hash__ = cached_hash  # (it keys the converter caches: looked up per record)

    @property
    def parameters(self) -> dict[str, str]:
        return dict(self.params)

    def field(self, name: str) -> ConnectSchema | None:
        for f in self.fields:
            if f.name == name:
                return f.schema
        return None

    @property
    def field_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.fields)


def parse_schema(obj: Any) -> ConnectSchema:
    """JsonConverter schema JSON (already parsed) → ConnectSchema; raises SchemaError with the offending path."""
    return _parse(obj, "$")


def _parse(obj: Any, path: str) -> ConnectSchema:
    if not isinstance(obj, Mapping):
        raise SchemaError(f"{path}: a schema must be a JSON object, got {type(obj).__name__}")
    kind = obj.get("type")
    if kind not in PRIMITIVES and kind not in CONTAINERS:
        raise SchemaError(f"{path}: unknown schema type {kind!r}")
    params = obj.get("parameters") or {}
    if not isinstance(params, Mapping):
        raise SchemaError(f"{path}: parameters must be an object")
    version = obj.get("version")
    common: dict[str, Any] = {
        "type": kind,
        "optional": bool(obj.get("optional", True)),
        "name": obj.get("name"),
        "version": int(version) if isinstance(version, int) else None,
        "params": tuple((str(k), str(v)) for k, v in params.items()),
    }
    if kind == "struct":
        raw_fields = obj.get("fields")
        if not isinstance(raw_fields, list):
            raise SchemaError(f"{path}: a struct schema needs a 'fields' list")
        fields = []
        for i, f in enumerate(raw_fields):
            if not isinstance(f, Mapping) or not isinstance(f.get("field"), str):
                raise SchemaError(f"{path}.fields[{i}]: a struct field needs a 'field' name")
            fields.append(ConnectField(f["field"], _parse(f, f"{path}.{f['field']}")))
        return ConnectSchema(**common, fields=tuple(fields))
    if kind == "array":
        return ConnectSchema(**common, items=_parse(obj.get("items"), f"{path}[]"))
    if kind == "map":
        return ConnectSchema(
            **common, keys=_parse(obj.get("keys"), f"{path}.keys"), values=_parse(obj.get("values"), f"{path}.values")
        )
    return ConnectSchema(**common)
