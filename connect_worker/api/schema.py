"""Connect's data model: schemas, fields, structs and the logical types, as in org.apache.kafka.connect.data.

Schemas are immutable values. Equality is structural (as in Java), and each schema caches its hash so it can
key per-schema caches (encoders, Avro schemas) on the hot path.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final

from connect_worker.api.errors import DataError


class Type(enum.Enum):
    """Connect schema types; the value is the name JsonConverter writes in `"type"`."""

    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    FLOAT32 = "float"
    FLOAT64 = "double"
    BOOLEAN = "boolean"
    STRING = "string"
    BYTES = "bytes"
    ARRAY = "array"
    MAP = "map"
    STRUCT = "struct"

    @property
    def is_primitive(self) -> bool:
        return self not in (Type.ARRAY, Type.MAP, Type.STRUCT)


class _NoDefault:
    """Marker for "no default value" (distinct from a default of None)."""

    _instance: _NoDefault | None = None

    def __new__(cls) -> _NoDefault:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NO_DEFAULT"


NO_DEFAULT: Final = _NoDefault()


class Field:
    """A named field of a struct schema, with its position."""

    __slots__ = ("index", "name", "schema")

    def __init__(self, name: str, index: int, schema: Schema) -> None:
        self.name = name
        self.index = index
        self.schema = schema

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, Field)
            and self.name == other.name
            and self.index == other.index
            and self.schema == other.schema
        )

    def __hash__(self) -> int:
        return hash((self.name, self.index, self.schema))

    def __repr__(self) -> str:
        return f"Field({self.name!r}, {self.index}, {self.schema!r})"


class Schema:
    """An immutable Connect schema. Build with the module's factory functions or `SchemaBuilder`."""

    __slots__ = (
        "_field_map",
        "_hash",
        "default",
        "doc",
        "fields",
        "key_schema",
        "name",
        "optional",
        "parameters",
        "type",
        "value_schema",
        "version",
    )

    type: Type
    optional: bool
    default: Any
    name: str | None
    version: int | None
    doc: str | None
    parameters: Mapping[str, str] | None
    fields: tuple[Field, ...]
    key_schema: Schema | None
    value_schema: Schema | None
    _hash: int
    _field_map: dict[str, Field]

    def __init__(
        self,
        type: Type,
        *,
        optional: bool = False,
        default: Any = NO_DEFAULT,
        name: str | None = None,
        version: int | None = None,
        doc: str | None = None,
        parameters: Mapping[str, str] | None = None,
        fields: Sequence[tuple[str, Schema]] = (),
        key_schema: Schema | None = None,
        value_schema: Schema | None = None,
    ) -> None:
        if type is Type.STRUCT:
            seen: set[str] = set()
            for fname, _ in fields:
                if fname in seen:
                    raise DataError(f"Cannot create field because of field name duplication {fname}")
                seen.add(fname)
        elif fields:
            raise DataError(f"Cannot add fields to a schema of type {type.name}")
        if type is Type.ARRAY and value_schema is None:
            raise DataError("An array schema needs an element (value) schema")
        if type is Type.MAP and (key_schema is None or value_schema is None):
            raise DataError("A map schema needs key and value schemas")
        object.__setattr__(self, "type", type)
        object.__setattr__(self, "optional", optional)
        object.__setattr__(self, "default", default)
        object.__setattr__(self, "name", name)
        object.__setattr__(self, "version", version)
        object.__setattr__(self, "doc", doc)
        object.__setattr__(self, "parameters", dict(parameters) if parameters is not None else None)
        built = tuple(Field(n, i, s) for i, (n, s) in enumerate(fields))
        object.__setattr__(self, "fields", built)
        object.__setattr__(self, "_field_map", {f.name: f for f in built})
        object.__setattr__(self, "key_schema", key_schema)
        object.__setattr__(self, "value_schema", value_schema)
        object.__setattr__(
            self,
            "_hash",
            hash((type, optional, name, version, doc, built, key_schema, value_schema)),
        )

    def __setattr__(self, key: str, value: Any) -> None:
        raise AttributeError("Schema is immutable")

    # -- accessors ----------------------------------------------------------------------------
    @property
    def has_default(self) -> bool:
        return self.default is not NO_DEFAULT

    def field(self, name: str) -> Field | None:
        """The field called `name`, or None. Only struct schemas have fields."""
        if self.type is not Type.STRUCT:
            raise DataError("Cannot look up fields on non-struct type")
        return self._field_map.get(name)

    @property
    def element_schema(self) -> Schema:
        """The item schema of an array (Java's valueSchema())."""
        assert self.value_schema is not None
        return self.value_schema

    def with_(self, **changes: Any) -> Schema:
        """A copy with some attributes changed (fields given as (name, schema) pairs)."""
        current: dict[str, Any] = {
            "optional": self.optional,
            "default": self.default,
            "name": self.name,
            "version": self.version,
            "doc": self.doc,
            "parameters": self.parameters,
            "fields": [(f.name, f.schema) for f in self.fields],
            "key_schema": self.key_schema,
            "value_schema": self.value_schema,
        }
        current.update(changes)
        return Schema(self.type, **current)

    # -- equality ------------------------------------------------------------------------------
    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, Schema) or self._hash != other._hash:
            return False
        return (
            self.type is other.type
            and self.optional == other.optional
            and self.name == other.name
            and self.version == other.version
            and self.doc == other.doc
            and self.parameters == other.parameters
            and self.fields == other.fields
            and self.key_schema == other.key_schema
            and self.value_schema == other.value_schema
            and _same_default(self.default, other.default)
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        parts = [self.type.name]
        if self.name:
            parts.append(f"name={self.name!r}")
        if self.optional:
            parts.append("optional")
        if self.fields:
            parts.append("fields=[" + ", ".join(f.name for f in self.fields) + "]")
        return "Schema(" + ", ".join(parts) + ")"


def _same_default(a: Any, b: Any) -> bool:
    if a is NO_DEFAULT or b is NO_DEFAULT:
        return a is b
    return bool(a == b)


class SchemaBuilder:
    """Fluent builder mirroring Java's SchemaBuilder, for code that reads better that way."""

    def __init__(self, type: Type) -> None:
        self._type = type
        self._attrs: dict[str, Any] = {}
        self._fields: list[tuple[str, Schema]] = []

    @classmethod
    def struct(cls) -> SchemaBuilder:
        return cls(Type.STRUCT)

    @classmethod
    def array(cls, items: Schema) -> SchemaBuilder:
        b = cls(Type.ARRAY)
        b._attrs["value_schema"] = items
        return b

    @classmethod
    def map(cls, keys: Schema, values: Schema) -> SchemaBuilder:
        b = cls(Type.MAP)
        b._attrs["key_schema"] = keys
        b._attrs["value_schema"] = values
        return b

    def name(self, name: str) -> SchemaBuilder:
        self._attrs["name"] = name
        return self

    def version(self, version: int) -> SchemaBuilder:
        self._attrs["version"] = version
        return self

    def doc(self, doc: str) -> SchemaBuilder:
        self._attrs["doc"] = doc
        return self

    def optional(self) -> SchemaBuilder:
        self._attrs["optional"] = True
        return self

    def default(self, value: Any) -> SchemaBuilder:
        self._attrs["default"] = value
        return self

    def parameter(self, key: str, value: str) -> SchemaBuilder:
        params = dict(self._attrs.get("parameters") or {})
        params[key] = value
        self._attrs["parameters"] = params
        return self

    def field(self, name: str, schema: Schema) -> SchemaBuilder:
        self._fields.append((name, schema))
        return self

    def build(self) -> Schema:
        return Schema(self._type, fields=self._fields, **self._attrs)


def primitive(type: Type, *, optional: bool = False) -> Schema:
    return Schema(type, optional=optional)


INT8_SCHEMA: Final = Schema(Type.INT8)
INT16_SCHEMA: Final = Schema(Type.INT16)
INT32_SCHEMA: Final = Schema(Type.INT32)
INT64_SCHEMA: Final = Schema(Type.INT64)
FLOAT32_SCHEMA: Final = Schema(Type.FLOAT32)
FLOAT64_SCHEMA: Final = Schema(Type.FLOAT64)
BOOLEAN_SCHEMA: Final = Schema(Type.BOOLEAN)
STRING_SCHEMA: Final = Schema(Type.STRING)
BYTES_SCHEMA: Final = Schema(Type.BYTES)
OPTIONAL_INT8_SCHEMA: Final = Schema(Type.INT8, optional=True)
OPTIONAL_INT16_SCHEMA: Final = Schema(Type.INT16, optional=True)
OPTIONAL_INT32_SCHEMA: Final = Schema(Type.INT32, optional=True)
OPTIONAL_INT64_SCHEMA: Final = Schema(Type.INT64, optional=True)
OPTIONAL_FLOAT32_SCHEMA: Final = Schema(Type.FLOAT32, optional=True)
OPTIONAL_FLOAT64_SCHEMA: Final = Schema(Type.FLOAT64, optional=True)
OPTIONAL_BOOLEAN_SCHEMA: Final = Schema(Type.BOOLEAN, optional=True)
OPTIONAL_STRING_SCHEMA: Final = Schema(Type.STRING, optional=True)
OPTIONAL_BYTES_SCHEMA: Final = Schema(Type.BYTES, optional=True)


def struct_schema(
    fields: Iterable[tuple[str, Schema]],
    *,
    name: str | None = None,
    optional: bool = False,
    version: int | None = None,
    doc: str | None = None,
    parameters: Mapping[str, str] | None = None,
) -> Schema:
    return Schema(
        Type.STRUCT,
        fields=list(fields),
        name=name,
        optional=optional,
        version=version,
        doc=doc,
        parameters=parameters,
    )


# -- logical types (org.apache.kafka.connect.data.{Decimal,Date,Time,Timestamp}) ------------------
DECIMAL_NAME: Final = "org.apache.kafka.connect.data.Decimal"
DECIMAL_SCALE: Final = "scale"
DATE_NAME: Final = "org.apache.kafka.connect.data.Date"
TIME_NAME: Final = "org.apache.kafka.connect.data.Time"
TIMESTAMP_NAME: Final = "org.apache.kafka.connect.data.Timestamp"


def decimal_schema(scale: int, *, optional: bool = False, precision: int | None = None) -> Schema:
    params = {DECIMAL_SCALE: str(scale)}
    if precision is not None:
        params["connect.decimal.precision"] = str(precision)
    return Schema(Type.BYTES, name=DECIMAL_NAME, version=1, parameters=params, optional=optional)


def date_schema(*, optional: bool = False) -> Schema:
    return Schema(Type.INT32, name=DATE_NAME, version=1, optional=optional)


def time_schema(*, optional: bool = False) -> Schema:
    return Schema(Type.INT32, name=TIME_NAME, version=1, optional=optional)


def timestamp_schema(*, optional: bool = False) -> Schema:
    return Schema(Type.INT64, name=TIMESTAMP_NAME, version=1, optional=optional)
