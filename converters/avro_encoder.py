"""The Avro binary encoding of Connect values, compiled once per schema (the hot path of AvroConverter).

A schema compiles to a plan: nested tuples `(kind, ...)` that say, for the Avro schema avro_schema.from_connect
made of it, how each value is written (zig-zag varints, IEEE little-endian floats, length-prefixed UTF-8 and
bytes, union branch indexes, array/map blocks). Connect's conversions ride in the plan as CALL nodes (Decimal →
BigInteger.toByteArray bytes, Date/Time/Timestamp → ints), defaults as DEFAULT nodes (Struct.get gives a field's
default for a null value, and AvroData writes what it gives).

`AvroEncoder.encode(value, header)` runs the plan in C (converters/_avrostruct.c) when it is built, else in
Python (`write`, the reference). When the C encoder meets a value the plan does not expect it refuses (TypeError)
and the Python encoder runs, which raises the DataError that names the field (or writes what it can).
"""

from __future__ import annotations

import importlib
import math
import struct
from collections.abc import Callable
from decimal import Decimal
from types import ModuleType
from typing import Any, Final

from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import java_hashmap_order
from connect_worker.api.schema import DATE_NAME, DECIMAL_NAME, NO_DEFAULT, TIME_NAME, TIMESTAMP_NAME, Schema, Type
from connect_worker.api.struct import Struct
from converters.avro_schema import (
    AVRO_TYPE_ENUM,
    FIXED_SIZE_PARAM,
    GENERALIZED_ENUM,
    AvroDataOptions,
    is_map_as_array,
)
from converters.json_text import date_days, decimal_scale, decimal_unscaled_bytes, time_millis, timestamp_millis

# node kinds (the same numbers in _avrostruct.c)
INT: Final = 0  # (INT,) int32 as a zig-zag varint
LONG: Final = 1  # (LONG,)
FLOAT: Final = 2  # (FLOAT,) 4 bytes
DOUBLE: Final = 3  # (DOUBLE,) 8 bytes
BOOL: Final = 4  # (BOOL,)
STRING: Final = 5  # (STRING,)
BYTES: Final = 6  # (BYTES,)
FIXED: Final = 7  # (FIXED, size)
STRUCT: Final = 8  # (STRUCT, schema, struct class, field nodes)
OPTIONAL: Final = 9  # (OPTIONAL, null branch index, node)
DEFAULT: Final = 10  # (DEFAULT, value written for None, node)
CALL: Final = 11  # (CALL, conversion, node)
ARRAY: Final = 12  # (ARRAY, item node)
MAP: Final = 13  # (MAP, value node): string keys
MAP_ARRAY: Final = 14  # (MAP_ARRAY, key node, value node): an array of key/value records
ENUM: Final = 15  # (ENUM, {symbol: index})

Node = tuple[Any, ...]


def _load_accel() -> ModuleType | None:
    try:
        return importlib.import_module("converters._avrostruct")
    except ImportError:  # pragma: no cover - an install without a C compiler
        return None


_accel: ModuleType | None = _load_accel()
ACCELERATED: Final = _accel is not None


def _decimal(scale: int) -> Callable[[Any], bytes]:
    def convert(v: Any) -> bytes:
        if not isinstance(v, Decimal):
            raise DataError(f"Invalid type for Decimal, expected BigDecimal but was {type(v).__name__}")
        return decimal_unscaled_bytes(v, scale)

    return convert


def fixed_decimal(scale: int, size: int) -> Callable[[Any], bytes]:
    """A Decimal in a fixed: sign-extended to the fixed size (AvroData.padToFixedSize)."""
    plain = _decimal(scale)

    def convert(v: Any) -> bytes:
        raw = plain(v)
        if len(raw) > size:
            raise DataError(f"Decimal {v} does not fit in a fixed of {size} bytes")
        pad = b"\xff" if raw and raw[0] & 0x80 else b"\x00"
        return pad * (size - len(raw)) + raw

    return convert


def hashmap_ordered(value: Any) -> Any:
    """A string-keyed map in the order AvroData writes it: it copies the map into a `java.util.HashMap`."""
    if isinstance(value, dict) and len(value) > 1 and all(isinstance(k, str) for k in value):
        return java_hashmap_order(value)
    return value


class _Compiler:
    def __init__(self, options: AvroDataOptions) -> None:
        self.options = options

    def field(self, schema: Schema) -> Node:
        """A struct field's (or array item's, map value's) node: its union and its default around it."""
        node = self.node(schema)
        if schema.optional:
            node = (OPTIONAL, _null_index(schema), node)
        if (
            schema.default is not NO_DEFAULT
            and schema.default is not None
            and not self.options.ignore_default_for_nullables
        ):
            node = (DEFAULT, schema.default, node)
        return node

    def node(self, schema: Schema) -> Node:
        t = schema.type
        name = schema.name
        params = schema.parameters or {}
        if t is Type.BYTES:
            if FIXED_SIZE_PARAM in params and name is not None:  # AvroData.isFixedSchema
                size = int(params[FIXED_SIZE_PARAM])
                if name == DECIMAL_NAME:
                    return (CALL, fixed_decimal(decimal_scale(schema), size), (FIXED, size))
                return (FIXED, size)
            if name == DECIMAL_NAME:
                return (CALL, _decimal(decimal_scale(schema)), (BYTES,))
            return (BYTES,)
        if name == DATE_NAME and t is Type.INT32:
            return (CALL, date_days, (INT,))
        if name == TIME_NAME and t is Type.INT32:
            return (CALL, time_millis, (INT,))
        if name == TIMESTAMP_NAME and t is Type.INT64:
            return (CALL, timestamp_millis, (LONG,))
        if t in (Type.INT8, Type.INT16, Type.INT32):
            return (INT,)
        if t is Type.INT64:
            return (LONG,)
        if t is Type.FLOAT32:
            return (FLOAT,)
        if t is Type.FLOAT64:
            return (DOUBLE,)
        if t is Type.BOOLEAN:
            return (BOOL,)
        if t is Type.STRING:
            if self.options.enhanced_schema_support or self.options.generalized_sum_type_support:
                key = next((k for k in (GENERALIZED_ENUM, AVRO_TYPE_ENUM) if k in params), None)
                if key is not None:
                    prefix = key + "."
                    symbols = [k[len(prefix) :] for k in params if k.startswith(prefix)]
                    return (ENUM, {s: i for i, s in enumerate(symbols)})
            return (STRING,)
        if t is Type.ARRAY:
            assert schema.value_schema is not None
            return (ARRAY, self.field(schema.value_schema))
        if t is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            if is_map_as_array(schema, self.options):
                return (MAP_ARRAY, self.field(schema.key_schema), self.field(schema.value_schema))
            return (CALL, hashmap_ordered, (MAP, self.field(schema.value_schema)))
        if t is Type.STRUCT:
            if name == "io.confluent.connect.avro.Union":
                raise DataError("Connect unions (io.confluent.connect.avro.Union structs) cannot be written as Avro")
            # the schema object itself: the C encoder takes a Struct of exactly this schema object (the common
            # case), the reference compares by equality as AvroData does
            return (STRUCT, schema, Struct, tuple(self.field(f.schema) for f in schema.fields))
        raise DataError(f"Unknown schema type: {t}")


def compile_plan(schema: Schema, options: AvroDataOptions) -> Node:
    """The plan of a top-level schema (its own union when optional: a top-level null is never encoded)."""
    node = _Compiler(options).node(schema)
    return (OPTIONAL, _null_index(schema), node) if schema.optional else node


def _null_index(schema: Schema) -> int:
    """Where null is in an optional schema's union: second when a non-null default must match the first branch
    (AvroData.maybeMakeOptional), first for structs (always ["null", record])."""
    if schema.type is Type.STRUCT:
        return 0
    return 1 if schema.default is not NO_DEFAULT and schema.default is not None else 0


# -- the Python encoder (the reference) ---------------------------------------------------------------------
_PACK_F: Final = struct.Struct("<f").pack
_PACK_D: Final = struct.Struct("<d").pack


def _varint(n: int, out: bytearray) -> None:
    z = (n << 1) ^ (n >> 63)
    while z > 0x7F:
        out.append((z & 0x7F) | 0x80)
        z >>= 7
    out.append(z)


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def write(node: Node, value: Any, out: bytearray, where: str = "") -> None:
    """Append the encoding of `value` by `node`; DataError naming the field path for what cannot be written."""
    kind = node[0]
    if kind == DEFAULT:
        write(node[2], node[1] if value is None else value, out, where)
        return
    if kind == OPTIONAL:
        if value is None:
            _varint(node[1], out)
        else:
            _varint(1 - node[1], out)
            write(node[2], value, out, where)
        return
    if value is None:
        raise DataError(f"Found null value for non-optional schema{_at(where)}")
    if kind in (INT, LONG):
        if not _is_int(value):
            raise DataError(
                f"Invalid type for {'INT32' if kind == INT else 'INT64'}: {type(value).__name__}{_at(where)}"
            )
        bits = 32 if kind == INT else 64
        if not -(2 ** (bits - 1)) <= value < 2 ** (bits - 1):
            raise DataError(f"Value {value} out of range for a {bits}-bit integer{_at(where)}")
        _varint(value, out)
    elif kind in (FLOAT, DOUBLE):
        if not isinstance(value, float):
            raise DataError(
                f"Invalid type for {'FLOAT32' if kind == FLOAT else 'FLOAT64'}: {type(value).__name__}{_at(where)}"
            )
        if kind == FLOAT:
            try:
                out += _PACK_F(value)
            except OverflowError:  # beyond float32: Java's (float) cast gives an infinity
                out += _PACK_F(math.copysign(math.inf, value))
        else:
            out += _PACK_D(value)
    elif kind == BOOL:
        if not isinstance(value, bool):
            raise DataError(f"Invalid type for BOOLEAN: {type(value).__name__}{_at(where)}")
        out.append(1 if value else 0)
    elif kind == STRING:
        if not isinstance(value, str):
            raise DataError(f"Invalid type for STRING: {type(value).__name__}{_at(where)}")
        data = value.encode("utf-8", "surrogatepass")
        _varint(len(data), out)
        out += data
    elif kind == BYTES:
        if not isinstance(value, (bytes, bytearray, memoryview)):
            raise DataError(f"Invalid type for BYTES: {type(value).__name__}{_at(where)}")
        data = bytes(value)
        _varint(len(data), out)
        out += data
    elif kind == FIXED:
        if not isinstance(value, (bytes, bytearray, memoryview)) or len(value) != node[1]:
            raise DataError(f"Invalid value for a fixed of {node[1]} bytes{_at(where)}")
        out += bytes(value)
    elif kind == ENUM:
        index = node[1].get(value) if isinstance(value, str) else None
        if index is None:
            raise DataError(f"{value!r} is not a symbol of the enum{_at(where)}")
        _varint(index, out)
    elif kind == CALL:
        try:
            converted = node[1](value)
        except DataError as e:
            raise DataError(f"{e}{_at(where)}") from None
        write(node[2], converted, out, where)
    elif kind == STRUCT:
        schema, _, fields = node[1], node[2], node[3]
        if not isinstance(value, Struct):
            raise DataError(f"Invalid type for STRUCT: {type(value).__name__}{_at(where)}")
        if value.schema is not schema and value.schema != schema:
            raise DataError(f"Mismatching struct schema{_at(where)}")
        for f, fnode, v in zip(schema.fields, fields, value.values, strict=True):
            write(fnode, v, out, f"{where}.{f.name}" if where else f.name)
    elif kind == ARRAY:
        if not isinstance(value, (list, tuple)):
            raise DataError(f"Invalid type for ARRAY: {type(value).__name__}{_at(where)}")
        if value:
            _varint(len(value), out)
            for i, x in enumerate(value):
                write(node[1], x, out, f"{where}[{i}]")
        out.append(0)
    elif kind in (MAP, MAP_ARRAY):
        if not isinstance(value, dict):
            raise DataError(f"Invalid type for MAP: {type(value).__name__}{_at(where)}")
        if value:
            _varint(len(value), out)
            for k, x in value.items():
                if kind == MAP:
                    if not isinstance(k, str):
                        raise DataError(f"Invalid map key {k!r}{_at(where)}")
                    write((STRING,), k, out, where)
                    write(node[1], x, out, f"{where}[{k}]")
                else:
                    write(node[1], k, out, f"{where}.key")
                    write(node[2], x, out, f"{where}[{k!r}]")
        out.append(0)
    else:  # pragma: no cover - a plan this module did not make
        raise DataError(f"unknown plan node {kind}")


def _at(where: str) -> str:
    return f" (field {where})" if where else ""


class AvroEncoder:
    """One compiled plan: `encode(value, header)` gives header + the Avro binary of value."""

    __slots__ = ("_c", "plan")

    def __init__(self, plan: Node) -> None:
        self.plan = plan
        self._c = _accel.encode if _accel is not None else None

    def encode(self, value: Any, header: bytes) -> bytes:
        c = self._c
        if c is not None:
            try:
                result: bytes = c(self.plan, value, header)
                return result
            except (TypeError, DataError):
                pass  # a value the C encoder refuses: the reference encoder writes it or names the field
        out = bytearray(header)
        write(self.plan, value, out)
        return bytes(out)

    def encode_python(self, value: Any, header: bytes = b"") -> bytes:
        out = bytearray(header)
        write(self.plan, value, out)
        return bytes(out)
