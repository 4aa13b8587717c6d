"""Reading JSON back into Connect data (JsonConverter.toConnectData / asConnectSchema / convertToConnect):
Jackson's tree model stood in for by Python's parser, Java's numeric narrowing and HashMap key order kept.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
import struct
from collections.abc import Callable
from decimal import Decimal
from typing import Any, Final

from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import java_hash, java_hashmap_order, to_float32
from connect_worker.api.schema import DATE_NAME, DECIMAL_NAME, NO_DEFAULT, TIME_NAME, TIMESTAMP_NAME, Schema, Type
from connect_worker.api.struct import Struct
from converters.json_text import EPOCH, EPOCH_DATE, MILLIS_PER_DAY, decimal_scale


class _Missing:
    """Jackson's MissingNode: what an empty input reads as."""


MISSING: Final = _Missing()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"Non-standard token '{name}'")


_DECODER: Final = json.JSONDecoder(parse_float=Decimal, parse_constant=_reject_constant)


def parse_json(data: bytes) -> Any:
    """Jackson's `readTree`: one JSON value (trailing content ignored), MISSING for empty input."""
    text = data.decode("utf-8")
    stripped = text.lstrip(" \t\r\n")
    if not stripped:
        return MISSING
    value, _ = _DECODER.raw_decode(stripped)
    return value


def node_type(node: Any) -> str:
    """Jackson's JsonNodeType name of a parsed node."""
    if node is None:
        return "NULL"
    if node is MISSING:
        return "MISSING"
    if isinstance(node, bool):
        return "BOOLEAN"
    if isinstance(node, (int, Decimal)):
        return "NUMBER"
    if isinstance(node, str):
        return "STRING"
    if isinstance(node, list):
        return "ARRAY"
    return "OBJECT"


def _wrap(n: int, bits: int) -> int:
    m = 1 << bits
    n &= m - 1
    return n - m if n >= m >> 1 else n


def _int_value(node: Any, bits: int) -> int:
    """Jackson's intValue()/longValue() then Java's narrowing cast: truncation and wrap, 0 for non-numbers."""
    if isinstance(node, bool) or not isinstance(node, (int, Decimal)):
        return 0
    return _wrap(int(node), bits)


def _double_value(node: Any) -> float:
    if isinstance(node, bool) or not isinstance(node, (int, Decimal)):
        return 0.0
    if isinstance(node, Decimal) and node.is_zero():
        return 0.0  # BigDecimal has no negative zero
    return float(node)


def _float_value(node: Any) -> float:
    if isinstance(node, bool) or not isinstance(node, (int, Decimal)):
        return 0.0
    if isinstance(node, Decimal) and node.is_zero():
        return 0.0
    return to_float32(node) if isinstance(node, Decimal) else to_float32(float(node))


def _binary_value(node: Any) -> bytes | None:
    if not isinstance(node, str):
        return None
    try:
        return base64.b64decode(node.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError, ValueError) as e:
        raise DataError("Invalid bytes field") from e


def _ms_date(ms: int) -> dt.datetime:
    return EPOCH + dt.timedelta(milliseconds=ms)


class JsonReader:
    """Turns parsed JSON back into Connect schemas and values, with a bounded schema cache."""

    def __init__(self, *, replace_null_with_default: bool, cache_size: int) -> None:
        self.replace_null = replace_null_with_default
        self.cache_size = max(cache_size, 1)
        self._schemas: dict[str, Schema] = {}

    def as_connect_schema(self, node: Any) -> Schema | None:
        if node is None:
            return None
        key = json.dumps(node, separators=(",", ":"), default=str)
        cached = self._schemas.get(key)
        if cached is None:
            cached = self._build_schema(node)
            if len(self._schemas) >= self.cache_size:
                del self._schemas[next(iter(self._schemas))]
            self._schemas[key] = cached
        return cached

    def _build_schema(self, node: Any) -> Schema:
        get = node.get if isinstance(node, dict) else (lambda _k: None)
        type_node = get("type")
        if not isinstance(type_node, str):
            raise DataError("Schema must contain 'type' field")
        try:
            t = Type(type_node)
        except ValueError:
            raise DataError(f"Unknown schema type: {type_node}") from None
        attrs: dict[str, Any] = {}
        fields: list[tuple[str, Schema]] = []
        if t is Type.ARRAY:
            items = get("items")
            if items is None:
                raise DataError("Array schema did not specify the element type")
            attrs["value_schema"] = self._required_schema(items)
        elif t is Type.MAP:
            keys = get("keys")
            if keys is MISSING or "keys" not in node:
                raise DataError("Map schema did not specify the key type")
            values = get("values")
            if "values" not in node:
                raise DataError("Map schema did not specify the value type")
            attrs["key_schema"] = self._required_schema(keys)
            attrs["value_schema"] = self._required_schema(values)
        elif t is Type.STRUCT:
            fnodes = get("fields")
            if not isinstance(fnodes, list):
                raise DataError('Struct schema\'s "fields" argument is not an array.')
            for fnode in fnodes:
                fname = fnode.get("field") if isinstance(fnode, dict) else None
                if not isinstance(fname, str):
                    raise DataError("Struct schema's field name not specified properly")
                fields.append((fname, self._required_schema(fnode)))
        attrs["optional"] = get("optional") is True
        name = get("name")
        if isinstance(name, str):
            attrs["name"] = name
        version = get("version")
        if isinstance(version, int) and not isinstance(version, bool):
            attrs["version"] = _wrap(version, 32)
        doc = get("doc")
        if isinstance(doc, str):
            attrs["doc"] = doc
        params = get("parameters")
        if isinstance(params, dict):
            if not all(isinstance(v, str) for v in params.values()):
                raise DataError("Schema parameters must have string values.")
            attrs["parameters"] = params
        schema = Schema(t, fields=fields, **attrs)
        if isinstance(node, dict) and "default" in node:
            default = self.to_connect(schema, node["default"])
            schema = schema.with_(default=default)
        return schema

    def _required_schema(self, node: Any) -> Schema:
        s = self.as_connect_schema(node)
        if s is None:
            raise DataError("Schema must contain 'type' field")
        return s

    def to_connect(self, schema: Schema | None, node: Any) -> Any:
        """JsonConverter.convertToConnect."""
        if schema is not None:
            if node is None or node is MISSING:
                if schema.default is not NO_DEFAULT and schema.default is not None and self.replace_null:
                    return schema.default
                if schema.optional:
                    return None
                raise DataError(f"Invalid null value for required {schema.type.name} field")
            t = schema.type
            if schema.name is not None:
                name = schema.name
                if name in (DECIMAL_NAME, DATE_NAME, TIME_NAME, TIMESTAMP_NAME):
                    return self._logical_to_connect(schema, node)
        else:
            if node is None or node is MISSING:
                return None
            if isinstance(node, bool):
                t = Type.BOOLEAN
            elif isinstance(node, int):
                t = Type.INT64
            elif isinstance(node, Decimal):
                t = Type.FLOAT64
            elif isinstance(node, list):
                t = Type.ARRAY
            elif isinstance(node, dict):
                t = Type.MAP
            else:
                t = Type.STRING
        if t is Type.BOOLEAN:
            return node is True
        if t is Type.INT8:
            return _int_value(node, 8)
        if t is Type.INT16:
            return _int_value(node, 16)
        if t is Type.INT32:
            return _int_value(node, 32)
        if t is Type.INT64:
            return _int_value(node, 64)
        if t is Type.FLOAT32:
            return _float_value(node)
        if t is Type.FLOAT64:
            return _double_value(node)
        if t is Type.BYTES:
            return _binary_value(node)
        if t is Type.STRING:
            return node if isinstance(node, str) else None
        if t is Type.ARRAY:
            items = schema.element_schema if schema is not None else None
            elems = node if isinstance(node, list) else list(node.values()) if isinstance(node, dict) else []
            return [self.to_connect(items, e) for e in elems]
        if t is Type.MAP:
            return self._map_to_connect(schema, node)
        assert schema is not None
        if not isinstance(node, dict):
            raise DataError(f"Structs should be encoded as JSON objects, but found {node_type(node)}")
        values = []
        for f in schema.fields:
            v = self.to_connect(f.schema, node.get(f.name))
            if v is None and not f.schema.optional:
                raise DataError(
                    f'Invalid value: null used for required field: "{f.name}", schema type: {f.schema.type.name}'
                )
            values.append(v)
        return Struct.of(schema, values)

    def _map_to_connect(self, schema: Schema | None, node: Any) -> dict[Any, Any]:
        ks = schema.key_schema if schema is not None else None
        vs = schema.value_schema if schema is not None else None
        if schema is None or (ks is not None and ks.type is Type.STRING):
            if not isinstance(node, dict):
                raise DataError(
                    f"Maps with string fields should be encoded as JSON objects, but found {node_type(node)}"
                )
            result = {k: self.to_connect(vs, v) for k, v in node.items()}
            return java_hashmap_order(result)
        if not isinstance(node, list):
            raise DataError(
                f"Maps with non-string fields should be encoded as JSON array of tuples, but found {node_type(node)}"
            )
        out: dict[Any, Any] = {}
        for entry in node:
            if not isinstance(entry, list):
                raise DataError(f"Found invalid map entry instead of array tuple: {node_type(entry)}")
            if len(entry) != 2:
                raise DataError(f"Found invalid map entry, expected length 2 but found :{len(entry)}")
            out[_hashable(self.to_connect(ks, entry[0]))] = self.to_connect(vs, entry[1])
        hash_fn = _KEY_HASHES.get(ks.type) if ks is not None and ks.name is None else None
        if hash_fn is None or None in out:
            return out  # keys whose Java hashCode is not modelled keep the order they were read in
        return java_hashmap_order(out, hash_fn=hash_fn)

    def _logical_to_connect(self, schema: Schema, node: Any) -> Any:
        name = schema.name
        if name == DECIMAL_NAME:
            if isinstance(node, (int, Decimal)) and not isinstance(node, bool):
                return Decimal(node) if isinstance(node, int) else node
            if isinstance(node, str):
                try:
                    raw = base64.b64decode(node.encode("ascii"), validate=True)
                    scale = decimal_scale(schema)
                    if not raw:
                        raise ValueError("Zero length BigInteger")
                    unscaled = int.from_bytes(raw, "big", signed=True)
                    return Decimal((0 if unscaled >= 0 else 1, tuple(map(int, str(abs(unscaled)))), -scale))
                except Exception as e:
                    raise DataError("Invalid bytes for Decimal field") from e
            raise DataError(
                "Invalid type for Decimal, underlying representation should be numeric or bytes but was "
                + node_type(node)
            )
        is_int = isinstance(node, int) and not isinstance(node, bool)
        if name == TIMESTAMP_NAME:
            if not is_int:
                raise DataError(
                    "Invalid type for Timestamp, underlying representation should be integral but was "
                    + node_type(node)
                )
            return _ms_date(_wrap(node, 64))
        if not is_int or not -(2**31) <= node < 2**31:
            kind = "Date" if name == DATE_NAME else "Time"
            raise DataError(
                f"Invalid type for {kind}, underlying representation should be integer but was {node_type(node)}"
            )
        if name == DATE_NAME:
            return EPOCH_DATE + dt.timedelta(days=node)
        if node < 0 or node > MILLIS_PER_DAY:
            raise DataError("Time values must use number of milliseconds greater than 0 and less than 86400000")
        return (dt.datetime.min + dt.timedelta(milliseconds=node)).time()


def _int_hash(v: int) -> int:
    return v  # Byte, Short and Integer hash to their value


def _float_hash(v: float) -> int:
    return int(struct.unpack(">i", struct.pack(">f", v))[0]) if v == v else 0x7FC00000


# The Java hashCode of map keys by key schema type: JsonConverter reads maps into a HashMap.
_KEY_HASHES: Final[dict[Type, Callable[[Any], int]]] = {
    Type.INT8: _int_hash,
    Type.INT16: _int_hash,
    Type.INT32: _int_hash,
    Type.INT64: java_hash,
    Type.BOOLEAN: java_hash,
    Type.FLOAT32: _float_hash,
    Type.FLOAT64: java_hash,
}


def _hashable(v: Any) -> Any:
    if isinstance(v, list):
        return tuple(_hashable(x) for x in v)
    if isinstance(v, dict):
        return tuple((k, _hashable(x)) for k, x in v.items())
    return v
