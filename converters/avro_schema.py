"""Connect schemas as Avro schemas, by the rules of Confluent's AvroData (io.confluent.connect.avro).

Connect → Avro (`from_connect`): a struct is a record named after the Connect schema (the last
dot splits namespace and name; unnamed structs are `io.confluent.connect.avro.ConnectDefault`, then
`ConnectDefault2`, ...); int8/int16 are `int` with `connect.type`; Decimal is `bytes` with the `decimal` logical
type (precision from `connect.decimal.precision`, else 64); Date/Time/Timestamp carry `date`/`time-millis`/
`timestamp-millis`; every other named schema keeps `connect.name`, `connect.version`, `connect.parameters`,
`connect.doc` and `connect.default` (unless `connect.meta.data=false`); an optional schema is the union
`["null", T]` (or `[T, "null"]` when it has a non-null default, so that the default matches the first branch);
maps with string keys are Avro maps, any other map an array of `MapEntry {key, value}` records; a named bytes
schema with `connect.fixed.size` is a `fixed`. A required Connect schema met again is the same Avro type
(AvroData's schemaMap: an equal unnamed struct keeps its ConnectDefault name); a named type is written in full
once, then by name (converters/avro_text.py); names Avro refuses are refused (DataError) unless scrubbed.

The result is plain JSON data in the key order Avro's Java `Schema.toString()` writes (type, name, namespace,
doc, fields, then the properties in the order AvroData adds them), so its text (avro_text.schema_text) is the text
a Java converter registers.

The inverse (Avro → Connect, for toConnectData) is converters/avro_schema_read.py.
"""

from __future__ import annotations

import math
import re
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import JavaFloat, to_float32
from connect_worker.api.schema import (
    DATE_NAME,
    DECIMAL_NAME,
    NO_DEFAULT,
    TIME_NAME,
    TIMESTAMP_NAME,
    Schema,
    Type,
)
from connect_worker.api.struct import Struct
from converters.avro_text import written
from converters.json_text import date_days, decimal_scale, decimal_unscaled_bytes, time_millis, timestamp_millis

NAMESPACE: Final = "io.confluent.connect.avro"
DEFAULT_SCHEMA_NAME: Final = "ConnectDefault"
DEFAULT_SCHEMA_FULL_NAME: Final = f"{NAMESPACE}.{DEFAULT_SCHEMA_NAME}"
MAP_ENTRY_TYPE_NAME: Final = "MapEntry"
CONNECT_NAME: Final = "connect.name"
CONNECT_DOC: Final = "connect.doc"
CONNECT_VERSION: Final = "connect.version"
CONNECT_DEFAULT: Final = "connect.default"
CONNECT_PARAMETERS: Final = "connect.parameters"
CONNECT_TYPE: Final = "connect.type"
CONNECT_INTERNAL_TYPE: Final = "connect.internal.type"
RECORD_DOC_PARAM: Final = f"{NAMESPACE}.record.doc"
FIELD_DOC_PREFIX: Final = f"{NAMESPACE}.field.doc."
FIELD_DEFAULT_FLAG: Final = f"{NAMESPACE}.field.default"
ENUM_DOC_PREFIX: Final = f"{NAMESPACE}.enum.doc."
ENUM_DEFAULT_PREFIX: Final = f"{NAMESPACE}.enum.default."
AVRO_TYPE_ENUM: Final = f"{NAMESPACE}.Enum"
AVRO_TYPE_UNION: Final = f"{NAMESPACE}.Union"
GENERALIZED_ENUM: Final = "org.apache.kafka.connect.data.Enum"
GENERALIZED_UNION: Final = "org.apache.kafka.connect.data.Union"
FIXED_SIZE_PARAM: Final = "connect.fixed.size"
DECIMAL_PRECISION_PARAM: Final = "connect.decimal.precision"
DECIMAL_PRECISION_DEFAULT: Final = 64

_LOGICAL_TYPES: Final = {TIME_NAME: "time-millis", TIMESTAMP_NAME: "timestamp-millis", DATE_NAME: "date"}
_PRIMITIVE: Final = {
    Type.INT8: "int",
    Type.INT16: "int",
    Type.INT32: "int",
    Type.INT64: "long",
    Type.FLOAT32: "float",
    Type.FLOAT64: "double",
    Type.BOOLEAN: "boolean",
    Type.STRING: "string",
    Type.BYTES: "bytes",
}
_NAME_PART: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")


@dataclass(frozen=True)
class AvroDataOptions:
    """AvroDataConfig's switches (the converter's `connect.meta.data`, `enhanced.avro.schema.support`, ...)."""

    connect_meta_data: bool = True
    enhanced_schema_support: bool = False
    scrub_invalid_names: bool = False
    allow_optional_map_keys: bool = False
    flatten_singleton_unions: bool = True
    discard_type_doc_default: bool = False
    generalized_sum_type_support: bool = False
    ignore_default_for_nullables: bool = False


def scrub_name(name: str) -> str:
    """AvroData.doScrubName: URL-encode, then every character outside [A-Za-z0-9_] becomes `_`; a leading digit
    gets an `x` in front."""
    if not name:
        return name
    if _NAME_PART.match(name):
        return name
    encoded = urllib.parse.quote_plus(name, safe="*-._")  # java.net.URLEncoder's safe set
    if encoded[:1].isdigit():
        encoded = "x" + encoded
    return "".join(c if (c.isascii() and (c.isalnum() or c == "_")) else "_" for c in encoded)


def split_name(full_name: str, scrub: bool) -> tuple[str | None, str]:
    dot = full_name.rfind(".")
    if dot < 0:
        return None, scrub_name(full_name) if scrub else full_name
    space, name = full_name[:dot], full_name[dot + 1 :]
    if scrub:
        space = ".".join(scrub_name(p) for p in space.split("."))
        name = scrub_name(name)
    return space, name


def full_name(space: str | None, name: str) -> str:
    return f"{space}.{name}" if space else name


def is_map_as_array(schema: Schema, options: AvroDataOptions) -> bool:
    """Whether a Connect map is an Avro array of MapEntry records (keys not plain strings)."""
    key = schema.key_schema
    assert key is not None
    return not (key.type is Type.STRING and (not key.optional or options.allow_optional_map_keys))


class _FromConnect:
    """One Connect → Avro conversion (AvroData.fromConnectSchema): the Avro form of each required Connect schema met
    so far (AvroData's schemaMap: an equal schema met again is the same Avro type) and the default-name counter.

    Named types come out as full definitions carrying their own "namespace" (None for none); `avro_text.written`
    then writes each once and by name after, as Java's Schema.toString does."""

    def __init__(self, options: AvroDataOptions) -> None:
        self.options = options
        self.done: dict[Schema, Any] = {}
        self.record_names: dict[Schema, str] = {}  # required struct schema -> its record's full name
        self.name_index = 0

    def name_or_default(self, name: str | None) -> tuple[str | None, str]:
        if name is not None:
            space, short = split_name(name, self.options.scrub_invalid_names)
            return space, valid_name(short)
        self.name_index += 1
        return NAMESPACE, DEFAULT_SCHEMA_NAME + (str(self.name_index) if self.name_index > 1 else "")

    # -- the schema -------------------------------------------------------------------------------------
    def convert(self, schema: Schema, ignore_optional: bool = False) -> Any:
        if not schema.optional:
            done = self.done.get(schema)
            if done is not None:
                return done
        base = self.base(schema)
        if isinstance(base, list):  # a union carries no properties
            result = base
        elif not ignore_optional and schema.optional:
            result = [base, "null"] if _non_null_default(schema) else ["null", base]
        else:
            result = base
        if not schema.optional:
            self.done[schema] = result
        return result

    def base(self, schema: Schema) -> Any:
        t = schema.type
        opts = self.options
        if t is Type.STRUCT:
            if schema.optional:
                return ["null", self.convert(_required(schema))]
            return self.record(schema)
        props: dict[str, Any] = {}
        if (
            t is Type.STRING
            and schema.parameters
            and (opts.enhanced_schema_support or opts.generalized_sum_type_support)
        ):
            enum = self.enum(schema)
            if enum is not None:
                return enum
        params = schema.parameters or {}
        if t is Type.ARRAY:
            assert schema.value_schema is not None
            node: dict[str, Any] = {"type": "array", "items": self.convert(schema.value_schema)}
        elif t is Type.MAP:
            node = self.map(schema)
        elif t is Type.BYTES and schema.name is not None and FIXED_SIZE_PARAM in params:
            space, name = self.name_or_default(schema.name)
            node = {"type": "fixed", "name": name, "namespace": space, "size": int(params[FIXED_SIZE_PARAM])}
        else:
            node = {"type": _PRIMITIVE[t]}
        if t is Type.BYTES and schema.name == DECIMAL_NAME:
            props["scale"] = int(params.get("scale", "0"))
            props["precision"] = int(params.get(DECIMAL_PRECISION_PARAM, DECIMAL_PRECISION_DEFAULT))
        return self.finish(schema, node, props)

    def finish(self, schema: Schema, node: dict[str, Any], props: dict[str, Any]) -> Any:
        """AvroData's properties on a non-union schema, in its order; a bare type name when there are none."""
        name = schema.name
        if self.options.connect_meta_data:
            if schema.doc is not None:
                props[CONNECT_DOC] = schema.doc
            if schema.version is not None:
                props[CONNECT_VERSION] = schema.version
            if schema.parameters:
                params = self.parameters(schema.parameters)
                if params:
                    props[CONNECT_PARAMETERS] = params
            if _non_null_default(schema) and (
                self.options.discard_type_doc_default or FIELD_DEFAULT_FLAG not in (schema.parameters or {})
            ):
                props[CONNECT_DEFAULT] = self.default_json(schema, schema.default)
            if name is not None:
                props[CONNECT_NAME] = name
            if schema.type is Type.INT8:
                props[CONNECT_TYPE] = "int8"
            elif schema.type is Type.INT16:
                props[CONNECT_TYPE] = "int16"
        if name == DECIMAL_NAME:
            # the decimal logical type (or, when scale/precision break Avro's rules, the legacy property: the
            # same text either way)
            if node["type"] == "fixed" and 0 <= props["scale"] <= props["precision"]:
                _check_fixed_precision(node["size"], props["precision"])
            props.setdefault("logicalType", "decimal")
        elif name in _LOGICAL_TYPES:
            props.setdefault("logicalType", _LOGICAL_TYPES[name])
        for key, value in (schema.parameters or {}).items():
            if key.startswith("avro"):
                props.setdefault(key, value)
        if not props and len(node) == 1 and node["type"] in _PRIMITIVE.values():
            return node["type"]
        node.update(props)
        return node

    def parameters(self, params: Mapping[str, str]) -> dict[str, str]:
        keep_flag = self.options.discard_type_doc_default
        return {k: v for k, v in params.items() if keep_flag or k != FIELD_DEFAULT_FLAG}

    def record(self, schema: Schema) -> Any:
        space, name = self.name_or_default(schema.name)
        self.record_names.setdefault(schema, full_name(space, name))
        node: dict[str, Any] = {"type": "record", "name": name, "namespace": space}
        params = schema.parameters or {}
        doc = params.get("connect.record.doc" if self.options.discard_type_doc_default else RECORD_DOC_PARAM)
        if doc is not None:
            node["doc"] = doc
        node["fields"] = [self.field(schema, f.name, f.schema) for f in schema.fields]
        return self.finish(schema, node, {})

    def field(self, parent: Schema, name: str, schema: Schema) -> dict[str, Any]:
        opts = self.options
        field_name = valid_name(scrub_name(name) if opts.scrub_invalid_names else name)
        out: dict[str, Any] = {"name": field_name, "type": None}
        try:
            out["type"] = self.convert(schema)
        except DataError as e:
            raise DataError(f"Field {name!r}: {e}") from e
        doc = schema.doc if opts.discard_type_doc_default else (parent.parameters or {}).get(FIELD_DOC_PREFIX + name)
        if doc is not None:
            out["doc"] = doc
        if _non_null_default(schema):
            # Avro's Field holds the default as Java objects: a float32 comes back as the double it widens to
            out["default"] = _widened(self.default_json(schema, schema.default))
        elif schema.optional:
            out["default"] = None
        return out

    def map(self, schema: Schema) -> dict[str, Any]:
        assert schema.key_schema is not None and schema.value_schema is not None
        if not is_map_as_array(schema, self.options):
            return {"type": "map", "values": self.convert(schema.value_schema)}
        space: str | None
        if schema.name is None:
            space, name, internal = NAMESPACE, MAP_ENTRY_TYPE_NAME, False
        else:
            space, name = self.name_or_default(schema.name)
            internal = True
        entry: dict[str, Any] = {"type": "record", "name": name, "namespace": space}
        entry["fields"] = [
            self.field(schema, "key", schema.key_schema),
            self.field(schema, "value", schema.value_schema),
        ]
        if internal:
            entry[CONNECT_INTERNAL_TYPE] = MAP_ENTRY_TYPE_NAME
        return {"type": "array", "items": entry}

    def enum(self, schema: Schema) -> Any:
        params = schema.parameters or {}
        key = GENERALIZED_ENUM if self.options.generalized_sum_type_support else AVRO_TYPE_ENUM
        if key not in params and not (GENERALIZED_ENUM in params or AVRO_TYPE_ENUM in params):
            return None
        key = key if key in params else (GENERALIZED_ENUM if GENERALIZED_ENUM in params else AVRO_TYPE_ENUM)
        prefix = key + "."
        symbols = [valid_name(k[len(prefix) :]) for k in params if k.startswith(prefix)]
        _, short = self.name_or_default(schema.name)
        space, name = split_name(params[key], False)
        node: dict[str, Any] = {"type": "enum", "name": valid_name(name), "namespace": space}
        doc = (
            params.get("connect.enum.doc")
            if self.options.discard_type_doc_default
            else params.get(ENUM_DOC_PREFIX + short)
        )
        if doc is not None:
            node["doc"] = doc
        node["symbols"] = symbols
        default = None if self.options.discard_type_doc_default else params.get(ENUM_DEFAULT_PREFIX + short)
        if default is not None:
            node["default"] = default
        return self.finish(schema, node, {})

    # -- default values as JSON (AvroData.defaultValueFromConnect) ------------------------------------------
    def default_json(self, schema: Schema, value: Any) -> Any:
        if value is None:
            return None
        name = schema.name
        t = schema.type
        if name == DECIMAL_NAME:
            value = decimal_unscaled_bytes(value, decimal_scale(schema))
        elif name == DATE_NAME:
            value = date_days(value)
        elif name == TIME_NAME:
            value = time_millis(value)
        elif name == TIMESTAMP_NAME:
            value = timestamp_millis(value)
        if t is Type.BYTES:
            return bytes(value).decode("latin-1")
        if t is Type.FLOAT32:
            return JavaFloat(value)
        if t is Type.ARRAY:
            assert schema.value_schema is not None
            return [self.default_json(schema.value_schema, v) for v in value]
        if t is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            if not is_map_as_array(schema, self.options):
                return {k: self.default_json(schema.value_schema, v) for k, v in value.items()}
            return [
                [self.default_json(schema.key_schema, k), self.default_json(schema.value_schema, v)]
                for k, v in value.items()
            ]
        if t is Type.STRUCT:
            struct: Struct = value
            out: dict[str, Any] = {}
            for f, v in zip(schema.fields, struct.values, strict=True):
                fname = scrub_name(f.name) if self.options.scrub_invalid_names else f.name
                out[fname] = self.default_json(f.schema, v)
            return out
        return value


def _non_null_default(schema: Schema) -> bool:
    return schema.default is not NO_DEFAULT and schema.default is not None


def _required(schema: Schema) -> Schema:
    return schema.with_(optional=False)


def _widened(value: Any) -> Any:
    """A default's JSON with each float32 as the double it widens to."""
    if isinstance(value, JavaFloat):
        return to_float32(value)
    if isinstance(value, list):
        return [_widened(v) for v in value]
    if isinstance(value, dict):
        return {k: _widened(v) for k, v in value.items()}
    return value


def _check_fixed_precision(size: int, precision: int) -> None:
    """Avro's LogicalTypes.decimal on a fixed: the precision must fit its bytes."""
    max_precision = math.floor(math.log10(2) * (8 * size - 1))
    if precision > max_precision:
        raise DataError(f"fixed({size}) cannot store {precision} digits (max {max_precision})")


def valid_name(name: str) -> str:
    """The name, if Avro takes it (Schema.validateName: a letter or `_`, then letters, digits or `_`, as Java's
    Character.isLetter/isDigit say for each UTF-16 unit); else the DataError Avro's SchemaParseException says."""
    if _NAME_PART.match(name) or not name:
        return name
    if not _java_letter(name[0]) and name[0] != "_":
        raise DataError(f"Illegal initial character: {name}")
    for c in name[1:]:
        if not (_java_letter(c) or c == "_" or (c.isdecimal() and c <= "\uffff")):
            raise DataError(f"Illegal character in: {name}")
    return name


def _java_letter(c: str) -> bool:
    return c.isalpha() and c <= "\uffff"


def record_names(schema: Schema, options: AvroDataOptions) -> dict[Schema, str]:
    """The Avro full name from_connect gives each struct in `schema` (keyed by the struct's required form)."""
    conversion = _FromConnect(options)
    conversion.convert(schema)
    return conversion.record_names


def from_connect(schema: Schema, options: AvroDataOptions) -> Any:
    """The Avro schema (JSON data) AvroData.fromConnectSchema makes of a Connect schema, as its Schema.toString
    writes it (named types defined once, then referred to by name)."""
    return written(_FromConnect(options).convert(schema))
