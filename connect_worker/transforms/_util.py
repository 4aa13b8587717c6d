"""Helpers shared by the built-in transforms (Kafka's transforms.util: Requirements, SchemaUtil, caches).

Everything here is pure: records in, new records out. Derived schemas are cached per input schema in a
small LRU (`SchemaCache`), as Kafka does, because transforms run per record on the hot path.
"""

from __future__ import annotations

import datetime as dt
import enum
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
from decimal import Decimal
from typing import Any, Generic, TypeVar

from connect_worker.api.config import invalid
from connect_worker.api.errors import DataError
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import Schema, Type
from connect_worker.api.struct import Struct

KAFKA_VERSION = "4.3.1"
DEBEZIUM_VERSION = "3.6.3.Final"
KAFKA_TRANSFORMS = "org.apache.kafka.connect.transforms."
KAFKA_PREDICATES = "org.apache.kafka.connect.transforms.predicates."

EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
EPOCH_DATE = dt.date(1970, 1, 1)
MILLIS_PER_DAY = 86_400_000


class Side(enum.Enum):
    """Which half of a record a `$Key` / `$Value` transform works on."""

    KEY = "Key"
    VALUE = "Value"


def operating_schema(record: SourceRecord, side: Side) -> Schema | None:
    return record.key_schema if side is Side.KEY else record.value_schema


def operating_value(record: SourceRecord, side: Side) -> Any:
    return record.key if side is Side.KEY else record.value


def new_record(record: SourceRecord, side: Side, schema: Schema | None, value: Any) -> SourceRecord:
    if side is Side.KEY:
        return record.with_(key_schema=schema, key=value)
    return record.with_(value_schema=schema, value=value)


# -- requirements (org.apache.kafka.connect.transforms.util.Requirements) -----------------------------
def type_name(value: Any) -> str:
    """The name Kafka's error messages would show for a value's class (null for None)."""
    if value is None:
        return "null"
    return type(value).__name__


def require_map(value: Any, purpose: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise DataError(f"Only Map objects supported in absence of schema for [{purpose}], found: {type_name(value)}")
    return value


def require_map_or_null(value: Any, purpose: str) -> Mapping[str, Any] | None:
    return None if value is None else require_map(value, purpose)


def require_struct(value: Any, purpose: str) -> Struct:
    if not isinstance(value, Struct):
        raise DataError(f"Only Struct objects supported for [{purpose}], found: {type_name(value)}")
    return value


def require_struct_or_null(value: Any, purpose: str) -> Struct | None:
    return None if value is None else require_struct(value, purpose)


def require_schema(schema: Schema | None, purpose: str) -> Schema:
    if schema is None:
        raise DataError(f"Schema required for [{purpose}]")
    return schema


# -- schemas (org.apache.kafka.connect.transforms.util.SchemaUtil) --------------------------------------
def struct_like(source: Schema, fields: list[tuple[str, Schema]], *, optional: bool = False) -> Schema:
    """A struct schema with `source`'s name, version, doc and parameters (not its optionality or default:
    Kafka's SchemaUtil.copySchemaBasics copies neither) and the given fields."""
    return Schema(
        Type.STRUCT,
        name=source.name,
        version=source.version,
        doc=source.doc,
        parameters=source.parameters,
        fields=fields,
        optional=optional,
    )


def copy_basics(source: Schema, *, optional: bool = False, default: Any = None) -> Schema:
    """Kafka's copySchemaBasics(schema): same type, name, version, doc, parameters, element schemas;
    optional and default only when asked."""
    attrs: dict[str, Any] = {
        "name": source.name,
        "version": source.version,
        "doc": source.doc,
        "parameters": source.parameters,
        "optional": optional,
        "key_schema": source.key_schema,
        "value_schema": source.value_schema,
        "fields": [(f.name, f.schema) for f in source.fields],
    }
    if default is not None:
        attrs["default"] = default
    return Schema(source.type, **attrs)


def field_value(struct: Struct, index: int, replace_null_with_default: bool) -> Any:
    """A struct's value at `index`; a null becomes the field's default when asked (Java's Struct.get)."""
    v = struct.values[index]
    if v is None and replace_null_with_default:
        fs = struct.schema.fields[index].schema
        if fs.has_default:
            return fs.default
    return v


K = TypeVar("K", bound=Hashable)
V = TypeVar("V")


class SchemaCache(Generic[K, V]):
    """A small least-recently-used cache (Kafka's SynchronizedCache(LRUCache(16)))."""

    __slots__ = ("_data", "_size")

    def __init__(self, size: int = 16) -> None:
        self._data: OrderedDict[K, V] = OrderedDict()
        self._size = max(1, size)

    def get(self, key: K, compute: Callable[[K], V]) -> V:
        data = self._data
        try:
            value = data[key]
        except KeyError:
            value = compute(key)
            data[key] = value
            if len(data) > self._size:
                data.popitem(last=False)
            return value
        data.move_to_end(key)
        return value

    def __len__(self) -> int:
        return len(self._data)


# -- logical-type values --------------------------------------------------------------------------------
def to_epoch_millis(value: dt.datetime) -> int:
    """Epoch milliseconds of a datetime (a naive one is taken as UTC)."""
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    delta = value - EPOCH
    return (delta.days * 86_400 + delta.seconds) * 1000 + delta.microseconds // 1000


def from_epoch_millis(millis: int) -> dt.datetime:
    return EPOCH + dt.timedelta(milliseconds=millis)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float | Decimal) and not isinstance(value, bool)


# -- config validators ------------------------------------------------------------------------------
def non_empty_list(name: str, value: Any) -> None:
    """Kafka's NonEmptyListValidator."""
    if not value:
        raise invalid(name, value if value is not None else "", "Empty list")


def non_null_string(name: str, value: Any) -> None:
    if value is None:
        raise invalid(name, value, "entry must be non null")


def field_syntax_check(name: str, value: Any) -> None:
    if value is not None and str(value).upper() not in ("V1", "V2"):
        raise invalid(name, value, "String must be one of (case insensitive): V1, V2")
