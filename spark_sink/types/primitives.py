"""Connect base types and containers: ints, floats, boolean, string, bytes, array, map, struct (and therefore
every semantic type that is a plain string, bytes or struct: Json, Uuid, Enum, EnumSet, Xml, Ltree, Bits,
geometry Point/Geometry/Geography {wkb, srid} …). Pure."""

from __future__ import annotations

import base64
import binascii
import math
from typing import Any

from spark_sink.connect_schema import ConnectSchema
from spark_sink.types.model import (
    BINARY,
    BOOLEAN,
    BYTE,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    SHORT,
    STRING,
    ArrayT,
    MapT,
    StructT,
)
from spark_sink.types.registry import ConversionError, Rule, TypeMapping, TypeRegistry

_SPECIAL_FLOATS = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def to_int(value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        if isinstance(value, str | float) and not isinstance(value, bool):
            try:
                as_float = float(value)
            except ValueError:
                raise ConversionError(f"not an integer: {value!r}") from None
            if as_float.is_integer():
                return int(as_float)
        raise ConversionError(f"not an integer: {value!r}")
    return value


def to_float(value: Any) -> float:
    if isinstance(value, str) and value in _SPECIAL_FLOATS:
        return _SPECIAL_FLOATS[value]
    if isinstance(value, bool):
        raise ConversionError(f"not a number: {value!r}")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise ConversionError(f"not a number: {value!r}") from None


def to_bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise ConversionError(f"not a boolean: {value!r}")
    return value


def to_str(value: Any) -> str:
    if not isinstance(value, str):
        raise ConversionError(f"not a string: {value!r}")
    return value


def to_bytes(value: Any) -> bytes:
    if isinstance(value, bytes | bytearray):
        return bytes(value)
    if not isinstance(value, str):
        raise ConversionError(f"bytes must be base64 text: {value!r}")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise ConversionError(f"invalid base64: {value[:40]!r}") from None


def _int(schema: ConnectSchema, registry: TypeRegistry) -> TypeMapping:
    kind = {"int8": BYTE, "int16": SHORT, "int32": INT, "int64": LONG}[schema.type]
    return TypeMapping(kind, to_int)


def _array(schema: ConnectSchema, registry: TypeRegistry) -> TypeMapping:
    assert schema.items is not None
    element = registry.mapping_for(schema.items)
    convert = registry.converter_for(schema.items)

    def conv(value: Any) -> list[Any]:
        if not isinstance(value, list):
            raise ConversionError(f"not an array: {value!r}")
        return [convert(v) for v in value]

    return TypeMapping(ArrayT(element.sink_type), conv)


def _map(schema: ConnectSchema, registry: TypeRegistry) -> TypeMapping:
    assert schema.keys is not None and schema.values is not None
    key_t, value_t = registry.mapping_for(schema.keys), registry.mapping_for(schema.values)
    conv_k, conv_v = registry.converter_for(schema.keys), registry.converter_for(schema.values)

    def conv(value: Any) -> dict[Any, Any]:
        if isinstance(value, dict):  # string keys: a JSON object
            return {conv_k(k): conv_v(v) for k, v in value.items()}
        if isinstance(value, list):  # non-string keys: [[k, v], …]
            try:
                return {conv_k(k): conv_v(v) for k, v in value}
            except (TypeError, ValueError):
                raise ConversionError(f"map entries must be [key, value] pairs: {value!r}") from None
        raise ConversionError(f"not a map: {value!r}")

    return TypeMapping(MapT(key_t.sink_type, value_t.sink_type), conv)


def _struct(schema: ConnectSchema, registry: TypeRegistry) -> TypeMapping:
    names = schema.field_names
    types = tuple(registry.mapping_for(f.schema).sink_type for f in schema.fields)
    convs = tuple(registry.converter_for(f.schema) for f in schema.fields)

    def conv(value: Any) -> tuple[Any, ...]:
        if not isinstance(value, dict):
            raise ConversionError(f"not a struct: {value!r}")
        return tuple(c(value.get(n)) for n, c in zip(names, convs, strict=True))

    return TypeMapping(StructT(tuple(zip(names, types, strict=True))), conv)


BY_TYPE: dict[str, Rule] = {
    **dict.fromkeys(("int8", "int16", "int32", "int64"), _int),
    "float": lambda s, r: TypeMapping(FLOAT, to_float),
    "double": lambda s, r: TypeMapping(DOUBLE, to_float),
    "boolean": lambda s, r: TypeMapping(BOOLEAN, to_bool),
    "string": lambda s, r: TypeMapping(STRING, to_str),
    "bytes": lambda s, r: TypeMapping(BINARY, to_bytes),
    "array": _array,
    "map": _map,
    "struct": _struct,
}
