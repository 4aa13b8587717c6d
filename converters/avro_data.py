"""Connect values as Avro data and back (AvroData.fromConnectData / toConnectData), compiled once per schema.

`datum_writer(schema, options)` returns a function from a Connect value to the datum fastavro writes with the
schema `avro_schema.from_connect` made: structs become dicts keyed by (scrubbed) field name, a struct in a union
is tagged with its record name (fastavro's tuple notation, so no branch is guessed by validating the record),
Decimal becomes its unscaled two's-complement bytes (BigInteger.toByteArray: fastavro's own decimal writer pads
differently), Date/Time/Timestamp their int forms, maps with non-string keys arrays of key/value records.
A struct whose fields need no conversion costs one `dict(zip(...))`.

`value_reader(schema)` does the reverse on what fastavro reads with logical types left raw.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from decimal import Decimal
from typing import Any

from connect_worker.api.errors import DataError
from connect_worker.api.schema import DATE_NAME, DECIMAL_NAME, NO_DEFAULT, TIME_NAME, TIMESTAMP_NAME, Schema, Type
from connect_worker.api.struct import Struct
from converters.avro_encoder import fixed_decimal, hashmap_ordered
from converters.avro_schema import (
    AVRO_TYPE_ENUM,
    AVRO_TYPE_UNION,
    FIXED_SIZE_PARAM,
    GENERALIZED_ENUM,
    AvroDataOptions,
    is_map_as_array,
    record_names,
    scrub_name,
)
from converters.json_text import (
    EPOCH,
    EPOCH_DATE,
    MILLIS_PER_DAY,
    date_days,
    decimal_scale,
    decimal_unscaled_bytes,
    time_millis,
    timestamp_millis,
)

Convert = Callable[[Any], Any]


def _identity(v: Any) -> Any:
    return v


def _bytes(v: Any) -> Any:
    if isinstance(v, (bytearray, memoryview)):
        return bytes(v)
    if not isinstance(v, bytes):
        raise DataError(f"Invalid type for BYTES: {type(v).__name__}")
    return v


def _checked(kind: str, test: Callable[[Any], bool]) -> Convert:
    def check(v: Any) -> Any:
        if not test(v):
            raise DataError(f"Invalid type for {kind}: {type(v).__name__}")
        return v

    return check


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


_PRIMITIVE_CHECKS: dict[Type, Convert] = {
    Type.INT8: _checked("INT8", _is_int),
    Type.INT16: _checked("INT16", _is_int),
    Type.INT32: _checked("INT32", _is_int),
    Type.INT64: _checked("INT64", _is_int),
    Type.FLOAT32: _checked("FLOAT32", lambda v: isinstance(v, float)),
    Type.FLOAT64: _checked("FLOAT64", lambda v: isinstance(v, float)),
    Type.BOOLEAN: _checked("BOOLEAN", lambda v: isinstance(v, bool)),
    Type.STRING: _checked("STRING", lambda v: isinstance(v, str)),
}


class _Writers:
    """Compiles the conversion of one top-level schema; `names` are the Avro full names from_connect gave its
    structs (keyed by their required form), the names a struct in a union is tagged with."""

    def __init__(self, options: AvroDataOptions, names: dict[Schema, str]) -> None:
        self.options = options
        self.names = names

    def compile(self, schema: Schema, in_union: bool) -> Convert:
        t = schema.type
        name = schema.name
        if name == DECIMAL_NAME:
            scale = decimal_scale(schema)
            params = schema.parameters or {}
            if FIXED_SIZE_PARAM in params:
                return fixed_decimal(scale, int(params[FIXED_SIZE_PARAM]))

            def dec(v: Any) -> Any:
                if not isinstance(v, Decimal):
                    raise DataError(f"Invalid type for Decimal, expected BigDecimal but was {type(v).__name__}")
                return decimal_unscaled_bytes(v, scale)

            return dec
        if name == DATE_NAME:
            return date_days
        if name == TIME_NAME:
            return time_millis
        if name == TIMESTAMP_NAME:
            return timestamp_millis
        if t is Type.STRUCT:
            return self.struct(schema, in_union or schema.optional)
        if t is Type.ARRAY:
            assert schema.value_schema is not None
            elem = self.compile(schema.value_schema, schema.value_schema.optional)
            if elem is _identity:
                return list
            return lambda v: [None if x is None else elem(x) for x in v]
        if t is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            as_array = is_map_as_array(schema, self.options)
            key = self.compile(schema.key_schema, schema.key_schema.optional)
            val = self.compile(schema.value_schema, schema.value_schema.optional)
            if as_array:
                return lambda v: [
                    {"key": None if k is None else key(k), "value": None if x is None else val(x)} for k, x in v.items()
                ]
            return lambda v: {k: None if x is None else val(x) for k, x in hashmap_ordered(v).items()}
        if t is Type.BYTES:
            return _bytes
        return _PRIMITIVE_CHECKS.get(t, _identity)

    def struct(self, schema: Schema, tagged: bool) -> Convert:
        full = self.names[schema.with_(optional=False) if schema.optional else schema]
        scrub = self.options.scrub_invalid_names
        names = tuple(scrub_name(f.name) if scrub else f.name for f in schema.fields)
        # (index, name, conversion or None, optional, value standing for null): Struct.get gives a field's default
        # for a null value (unless ignore.default.for.nullables), and AvroData writes what Struct.get gives
        special: list[tuple[int, str, Convert | None, bool, Any]] = []
        use_defaults = not self.options.ignore_default_for_nullables
        for i, f in enumerate(schema.fields):
            conv: Convert | None = self.compile(f.schema, f.schema.optional)
            if conv is _identity or conv in _PRIMITIVE_CHECKS.values():
                conv = None
            default = f.schema.default if use_defaults and f.schema.default is not NO_DEFAULT else None
            if conv is not None or default is not None:
                special.append((i, names[i], conv, f.schema.optional, default))
        expected = schema

        def build(v: Any) -> Any:
            if v.__class__ is not Struct or (v.schema is not expected and v.schema != expected):
                if not isinstance(v, Struct):
                    raise DataError(f"Invalid type for STRUCT: {type(v).__name__}")
                raise DataError("Mismatching struct schema")
            values = v.values
            d = dict(zip(names, values, strict=True))
            for i, n, conv, optional, default in special:
                x = values[i]
                if x is None:
                    x = default
                    if x is None:
                        if not optional:
                            raise DataError(f"Found null value for non-optional schema (field {n})")
                        continue
                if conv is None:
                    d[n] = x
                    continue
                try:
                    d[n] = conv(x)
                except DataError as e:
                    raise DataError(f"Field {n!r}: {e}") from None
            return d

        if tagged:
            return lambda v: (full, build(v))
        return build


def datum_writer(schema: Schema, options: AvroDataOptions) -> Convert:
    """Connect value → the datum fastavro writes (None stays None)."""
    if schema.type is Type.STRUCT and schema.name == AVRO_TYPE_UNION:
        raise DataError("Connect unions (io.confluent.connect.avro.Union structs) are not supported for writing")
    return _Writers(options, record_names(schema, options)).compile(schema, schema.optional)


# -- Avro datum (logical types raw) -> Connect value --------------------------------------------------------
# A Date/Timestamp beyond Python's years 1-9999 (PostgreSQL's infinity as Debezium maps it) stays the int
# Connect stores: the form the connectors themselves hand over for such values.
def _date(v: int) -> dt.date | int:
    try:
        return EPOCH_DATE + dt.timedelta(days=v)
    except OverflowError:
        return v


def _time(v: int) -> dt.time | int:
    if not 0 <= v < MILLIS_PER_DAY:
        return v  # 24:00:00 (PostgreSQL's end of day) has no time-of-day form
    return (dt.datetime.min + dt.timedelta(milliseconds=v)).time()


def _timestamp(v: int) -> dt.datetime | int:
    try:
        return EPOCH + dt.timedelta(milliseconds=v)
    except OverflowError:
        return v


def _decimal(scale: int) -> Convert:
    def read(raw: bytes) -> Decimal:
        unscaled = int.from_bytes(raw, "big", signed=True)
        sign = 0 if unscaled >= 0 else 1
        return Decimal((sign, tuple(map(int, str(abs(unscaled)))), -scale))

    return read


def value_reader(schema: Schema) -> Convert:
    """What fastavro read (logical types raw) → the Connect value of `schema`."""
    params = schema.parameters or {}
    if any(k in params for k in (AVRO_TYPE_ENUM, GENERALIZED_ENUM, FIXED_SIZE_PARAM)):
        # an Avro enum or fixed: read from a union with its name, (name, value)
        read = _value_reader(schema)
        return lambda v: read(v[1] if v.__class__ is tuple else v)
    return _value_reader(schema)


def _value_reader(schema: Schema) -> Convert:
    t = schema.type
    name = schema.name
    if name == DECIMAL_NAME:
        return _decimal(decimal_scale(schema))
    if name == DATE_NAME:
        return _date
    if name == TIME_NAME:
        return _time
    if name == TIMESTAMP_NAME:
        return _timestamp
    if t is Type.STRUCT:
        fields = [(f.name, value_reader(f.schema)) for f in schema.fields]
        if name == AVRO_TYPE_UNION:
            return lambda v: _union_struct(schema, fields, v)

        def struct(v: Any) -> Struct:
            if isinstance(v, tuple):  # a record read from a union with its name
                v = v[1]
            return Struct.of(schema, [None if (x := v.get(n)) is None else r(x) for n, r in fields])

        return struct
    if t is Type.ARRAY:
        assert schema.value_schema is not None
        elem = value_reader(schema.value_schema)
        return lambda v: [None if x is None else elem(x) for x in v]
    if t is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        key = value_reader(schema.key_schema)
        val = value_reader(schema.value_schema)

        def read_map(v: Any) -> dict[Any, Any]:
            if isinstance(v, list):
                return {
                    (None if e["key"] is None else key(e["key"])): (None if e["value"] is None else val(e["value"]))
                    for e in v
                }
            return {k: None if x is None else val(x) for k, x in v.items()}

        return read_map
    if t in (Type.FLOAT32, Type.FLOAT64):
        return float
    return _identity


def _union_struct(schema: Schema, fields: list[tuple[str, Convert]], v: Any) -> Struct:
    """A general Avro union read as Connect's union struct: the member's field set, the others null."""
    branch = v[0] if isinstance(v, tuple) else None
    value = v[1] if isinstance(v, tuple) else v
    out: list[Any] = []
    for f, (fname, read) in zip(schema.fields, fields, strict=True):
        if value is not None and (_is_branch(branch, fname) if branch is not None else _matches(f.schema, value)):
            out.append(read(value))
            value = None
        else:
            out.append(None)
    return Struct.of(schema, out)


def _is_branch(branch: str, field_name: str) -> bool:
    """Whether the named union member fastavro read (full name) is the union struct's field: named by its full name
    (enhanced.avro.schema.support) or by its short name."""
    return branch == field_name or ("." not in field_name and branch.rpartition(".")[2] == field_name)


def _matches(schema: Schema, value: Any) -> bool:
    t = schema.type
    if t is Type.BOOLEAN:
        return isinstance(value, bool)
    if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
        return _is_int(value)
    if t in (Type.FLOAT32, Type.FLOAT64):
        return isinstance(value, float)
    if t is Type.STRING:
        return isinstance(value, str)
    if t is Type.BYTES:
        return isinstance(value, bytes)
    if t is Type.ARRAY:
        return isinstance(value, list)
    return isinstance(value, dict)


def connect_value_from_json(schema: Schema, value: Any) -> Any:
    """A default value written as JSON in an Avro schema, as the Connect value of `schema`."""
    if value is None:
        return None
    t = schema.type
    if t is Type.BYTES:
        raw = value.encode("latin-1") if isinstance(value, str) else bytes(value)
        if schema.name == DECIMAL_NAME:
            return _decimal(decimal_scale(schema))(raw)
        return raw
    if t is Type.STRUCT:
        if not isinstance(value, dict):
            raise DataError("Invalid default for a struct")
        return Struct.of(schema, [connect_value_from_json(f.schema, value.get(f.name)) for f in schema.fields])
    if t is Type.ARRAY:
        assert schema.value_schema is not None
        return [connect_value_from_json(schema.value_schema, x) for x in value]
    if t is Type.MAP:
        assert schema.key_schema is not None and schema.value_schema is not None
        if isinstance(value, list):
            return {
                connect_value_from_json(schema.key_schema, k): connect_value_from_json(schema.value_schema, x)
                for k, x in value
            }
        return {k: connect_value_from_json(schema.value_schema, x) for k, x in value.items()}
    reader = value_reader(schema)
    return reader(value)
