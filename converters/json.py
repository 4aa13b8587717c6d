"""JsonConverter: byte-identical to org.apache.kafka.connect.json.JsonConverter (Kafka 4.3, Jackson 2.21).

Writing (the hot path) compiles one encoder per Schema, cached by schema (schemas are hashable and cache
their hash): a struct encoder is generated Python source that concatenates precomputed field prefixes and
inlines primitive fields, so a record costs one function call per nested struct, not a schema walk. The
schema's JSON (and the envelope prefix) is serialised once per schema as well. When the fast encoder meets
a value it does not expect, the checking (interpreting) encoder re-runs to raise Kafka's error message.

Numbers, strings and bytes are written as Jackson writes them (see connect_worker.api.javacompat): doubles in
`Double.toString` form, floats in `Float.toString` form, strings with Jackson's escapes (non-BMP characters
as escaped surrogate pairs), bytes as padded standard base64. orjson is not used for output: it differs from
Jackson for floats (`1e10` vs `1.0E10`) and non-BMP characters (raw vs escaped).

Python values for Connect types: INT8..INT64 int; FLOAT32/FLOAT64 float; BOOLEAN bool; STRING str;
BYTES bytes/bytearray/memoryview; ARRAY list/tuple; MAP dict; STRUCT Struct; Decimal decimal.Decimal;
Date datetime.date; Time datetime.time; Timestamp datetime.datetime (naive = UTC). Reading returns
datetime.date / datetime.time / UTC-aware datetime.datetime for the last three.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import datetime as dt
import decimal
import importlib
import json
import struct
from collections.abc import Callable, Mapping
from decimal import Decimal
from types import ModuleType
from typing import TYPE_CHECKING, Any, Final, cast

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, Width, at_least, one_of
from connect_worker.api.converter import Converter, HeaderConverter
from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import (
    NEEDS_ESCAPE,
    jackson_quote,
    java_bigdecimal_to_string,
    java_double_to_string,
    java_float_to_string,
    java_hash,
    java_hashmap_order,
    to_float32,
)
from connect_worker.api.record import Header, SchemaAndValue
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
from converters import KAFKA_VERSION

if TYPE_CHECKING:
    from converters._jsonstruct import StructEncoder


def _load_accel() -> ModuleType | None:
    """The struct encoder in C, built from converters/_jsonstruct.c by `pip install`; None where no C compiler
    built it (then the generated Python encoders, the reference, do the work)."""
    try:
        return importlib.import_module("converters._jsonstruct")
    except ImportError:  # pragma: no cover
        return None


_accel: ModuleType | None = _load_accel()
_STRUCT_ENCODER: Final = _accel.StructEncoder if _accel is not None else None

SCHEMAS_ENABLE: Final = "schemas.enable"
SCHEMAS_CACHE_SIZE: Final = "schemas.cache.size"
SCHEMA_CONTENT: Final = "schema.content"
DECIMAL_FORMAT: Final = "decimal.format"
REPLACE_NULL_WITH_DEFAULT: Final = "replace.null.with.default"
CONVERTER_TYPE: Final = "converter.type"

ENVELOPE_ERROR: Final = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional '
    "fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter "
    "configuration."
)
_NULL_REQUIRED: Final = "Conversion error: null value for field that is required and has no default value"
_READ_FAILED: Final = "Converting byte[] to Kafka Connect data failed due to serialization error: "

MILLIS_PER_DAY: Final = 86_400_000
_EPOCH: Final = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
_EPOCH_DATE: Final = dt.date(1970, 1, 1)

CONFIG_DEF: Final = ConfigDef(
    [
        ConfigKey(
            CONVERTER_TYPE,
            ConfigType.STRING,
            validator=one_of("key", "value", "header"),
            importance=Importance.LOW,
            documentation="How this converter will be used.",
        ),
        ConfigKey(
            SCHEMAS_ENABLE,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.HIGH,
            documentation="Include schemas within each of the serialized values and keys.",
            group="Schemas",
            order_in_group=0,
            width=Width.MEDIUM,
            display_name="Enable Schemas",
        ),
        ConfigKey(
            SCHEMAS_CACHE_SIZE,
            ConfigType.INT,
            1000,
            validator=at_least(0),
            importance=Importance.HIGH,
            documentation="The maximum number of schemas that can be cached in this converter instance.",
            group="Schemas",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Schema Cache Size",
        ),
        ConfigKey(
            SCHEMA_CONTENT,
            ConfigType.STRING,
            None,
            importance=Importance.HIGH,
            documentation=(
                "When set, this is used as the schema for all messages, and the schemas within each of the "
                "message will be ignored.Otherwise, the schema will be included in the content of each "
                "message. This configuration applies only 'schemas.enable' is true, and it exclusively affects "
                "the sink connector."
            ),
            group="Schemas",
            order_in_group=2,
            width=Width.MEDIUM,
            display_name="Schema Content",
        ),
        ConfigKey(
            DECIMAL_FORMAT,
            ConfigType.STRING,
            "BASE64",
            validator=one_of("BASE64", "NUMERIC", case_sensitive=False),
            importance=Importance.LOW,
            documentation=(
                "Controls which format this converter will serialize decimals in. This value is case "
                "insensitive and can be either 'BASE64' (default) or 'NUMERIC'"
            ),
            group="Serialization",
            order_in_group=0,
            width=Width.MEDIUM,
            display_name="Decimal Format",
        ),
        ConfigKey(
            REPLACE_NULL_WITH_DEFAULT,
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation=(
                "Whether to replace fields that have a default value and that are null to the default value. "
                "When set to true, the default value is used, otherwise null is used."
            ),
            group="Serialization",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Replace null with default",
        ),
    ]
)

Encoder = Callable[[Any], str]


def _b64(v: Any) -> str:
    return '"' + base64.b64encode(v).decode("ascii") + '"'


_NON_NUMERIC: Final = {"NaN": '"NaN"', "Infinity": '"Infinity"', "-Infinity": '"-Infinity"'}


def _dbl(v: Any) -> str:
    """A double as Jackson writes it: Double.toString, with NaN and the infinities quoted."""
    if v.__class__ is float:
        if v - v == 0.0:  # finite
            return java_double_to_string(v)
    elif isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(type(v))
    s = java_double_to_string(float(v))
    return _NON_NUMERIC.get(s, s)


def _flt(v: Any) -> str:
    if isinstance(v, bool) or not isinstance(v, (float, int)):
        raise TypeError(type(v))
    s = java_float_to_string(float(v))
    return _NON_NUMERIC.get(s, s)


_BOOL: Final = {True: "true", False: "false"}
_int_repr: Final = int.__repr__  # takes a bool too: callers check the class first


def _int_text(v: Any) -> str:
    """An INT8..INT64 value's text; a bool or a non-int raises TypeError (the checking encoder explains)."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise TypeError(type(v))
    return _int_repr(v)


def _bool_text(v: Any) -> str:
    """A BOOLEAN value's text; anything but a bool (1, 0 included) raises TypeError."""
    if v.__class__ is not bool:
        raise TypeError(type(v))
    return _BOOL[v]


_EXACT: Final = decimal.Context(prec=decimal.MAX_PREC)  # scaleb without rounding, whatever the digits


def decimal_unscaled_bytes(value: Decimal, scale: int) -> bytes:
    """`Decimal.fromLogical`: the unscaled value as big-endian two's complement (BigInteger.toByteArray)."""
    try:
        # fast path: the value scaled by 10^scale prints as a plain integer exactly when its exponent is -scale
        text = str(value.scaleb(scale, _EXACT))
    except decimal.DecimalException:
        text = ""
    if text.isdigit() or (text[:1] == "-" and text[1:].isdigit()):
        n = int(text)
        return n.to_bytes((n + (n < 0)).bit_length() // 8 + 1, "big", signed=True)
    exponent = value.as_tuple().exponent
    if not isinstance(exponent, int):
        raise DataError(f"Invalid type for Decimal: {value} has no BigDecimal form")
    if exponent != -scale:
        raise DataError(
            "Decimal value has mismatching scale for given Decimal schema. "
            f"Schema has scale {scale}, value has scale {-exponent}."
        )
    n = int(value.scaleb(scale, _EXACT))  # the value has exactly `scale` fraction digits: an integer
    return n.to_bytes((n + (n < 0)).bit_length() // 8 + 1, "big", signed=True)


def _decimal_scale(schema: Schema) -> int:
    params = schema.parameters or {}
    raw = params.get("scale")
    if raw is None:
        raise DataError("Invalid Decimal schema: scale parameter not found.")
    return int(raw)


def _millis(value: Any) -> int:
    if isinstance(value, dt.datetime):
        if value.tzinfo is None:
            value = value.replace(tzinfo=dt.UTC)
        d: dt.timedelta = value - _EPOCH
        return d.days * MILLIS_PER_DAY + d.seconds * 1000 + d.microseconds // 1000
    if isinstance(value, dt.date):
        return (value - _EPOCH_DATE).days * MILLIS_PER_DAY
    if isinstance(value, dt.time):
        return ((value.hour * 60 + value.minute) * 60 + value.second) * 1000 + value.microsecond // 1000
    raise TypeError(type(value))


def _date_days(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value  # lenient: already the int32 representation
    if not isinstance(value, (dt.date, dt.datetime)):
        raise DataError(f"Invalid type for Date, expected Date but was {type(value)}")
    ms = _millis(value)
    if ms % MILLIS_PER_DAY != 0:
        raise DataError("Kafka Connect Date type should not have any time fields set to non-zero values.")
    return ms // MILLIS_PER_DAY


def _time_millis(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, (dt.time, dt.datetime)):
        raise DataError(f"Invalid type for Time, expected Date but was {type(value)}")
    ms = _millis(value)
    if ms < 0 or ms > MILLIS_PER_DAY:
        raise DataError("Kafka Connect Time type should not have any date fields set to non-zero values.")
    return ms


def _timestamp_millis(value: Any) -> int:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if not isinstance(value, (dt.datetime, dt.date)):
        raise DataError(f"Invalid type for Timestamp, expected Date but was {type(value)}")
    return _millis(value)


class JsonCodec:
    """The configured encoding rules with their per-schema caches (one per converter instance)."""

    def __init__(self, *, numeric_decimals: bool, replace_null_with_default: bool, cache_size: int) -> None:
        self.numeric_decimals = numeric_decimals
        self.replace_null = replace_null_with_default
        self.cache_size = max(cache_size, 1)
        self._encoders: dict[Schema, Encoder] = {}
        self._structs: dict[Schema, Encoder] = {}  # struct encoders without null handling (nested fields)
        self._schema_json: dict[Schema, str] = {}
        self._prefixes: dict[Schema, str] = {}
        self._prefixes_utf8: dict[Schema, bytes] = {}
        self._accel = _accel  # None: the generated Python struct encoders (the reference)

    # -- caches ------------------------------------------------------------------------------------
    def _remember(self, cache: dict[Schema, Any], schema: Schema, value: Any) -> None:
        if len(cache) >= self.cache_size:
            del cache[next(iter(cache))]
        cache[schema] = value

    def encoder(self, schema: Schema) -> Encoder:
        """The compiled value encoder of a schema (null handling included)."""
        enc = self._encoders.get(schema)
        if enc is None:
            enc = self._compile(schema)
            self._remember(self._encoders, schema, enc)
        return enc

    def envelope_prefix(self, schema: Schema | None) -> str:
        """`{"schema":<schema json>,"payload":` for this schema."""
        if schema is None:
            return '{"schema":null,"payload":'
        p = self._prefixes.get(schema)
        if p is None:
            p = '{"schema":' + self.schema_json(schema) + ',"payload":'
            self._remember(self._prefixes, schema, p)
        return p

    def envelope_prefix_utf8(self, schema: Schema) -> bytes:
        """`envelope_prefix` as UTF-8 bytes (what the C struct encoder writes before the payload)."""
        p = self._prefixes_utf8.get(schema)
        if p is None:
            p = self.envelope_prefix(schema).encode("utf-8")
            self._remember(self._prefixes_utf8, schema, p)
        return p

    # -- schema JSON (JsonConverter.asJsonSchema) ---------------------------------------------------
    def schema_json(self, schema: Schema) -> str:
        s = self._schema_json.get(schema)
        if s is None:
            s = self._build_schema_json(schema)
            self._remember(self._schema_json, schema, s)
        return s

    def _build_schema_json(self, schema: Schema) -> str:
        parts = ['{"type":"' + schema.type.value + '"']
        t = schema.type
        if t is Type.ARRAY:
            parts.append(',"items":' + self.schema_json(schema.element_schema))
        elif t is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            parts.append(',"keys":' + self.schema_json(schema.key_schema))
            parts.append(',"values":' + self.schema_json(schema.value_schema))
        elif t is Type.STRUCT:
            fields = []
            for f in schema.fields:
                fj = self.schema_json(f.schema)
                fields.append(fj[:-1] + ',"field":' + jackson_quote(f.name) + "}")
            parts.append(',"fields":[' + ",".join(fields) + "]")
        parts.append(',"optional":' + ("true" if schema.optional else "false"))
        if schema.name is not None:
            parts.append(',"name":' + jackson_quote(schema.name))
        if schema.version is not None:
            parts.append(',"version":' + str(schema.version))
        if schema.doc is not None:
            parts.append(',"doc":' + jackson_quote(schema.doc))
        if schema.parameters is not None:
            params = ",".join(jackson_quote(k) + ":" + jackson_quote(v) for k, v in schema.parameters.items())
            parts.append(',"parameters":{' + params + "}")
        if schema.default is not NO_DEFAULT and schema.default is not None:
            parts.append(',"default":' + self.encode_checked(schema, schema.default))
        return "".join(parts) + "}"

    # -- the checking encoder (JsonConverter.convertToJson, with Kafka's error texts) ---------------
    def encode_checked(self, schema: Schema | None, value: Any) -> str:
        if value is None:
            if schema is None:
                return "null"
            if schema.default is not NO_DEFAULT and schema.default is not None and self.replace_null:
                return self.encode_checked(schema, schema.default)
            if schema.optional:
                return "null"
            raise DataError(_NULL_REQUIRED)
        if schema is not None and schema.name is not None:
            logical = self._logical(schema)
            if logical is not None:
                return logical(value)
        t = schema.type if schema is not None else _infer_type(value)
        if t is Type.STRUCT:
            if not isinstance(value, Struct) or schema is None or value.schema != schema:
                if isinstance(value, Struct) or schema is None:
                    raise DataError("Mismatching schema.")
                raise DataError(f"Invalid type for STRUCT: {type(value)}")
            return (
                "{"
                + ",".join(
                    jackson_quote(f.name) + ":" + self.encode_checked(f.schema, v)
                    for f, v in zip(schema.fields, value.values, strict=True)
                )
                + "}"
            )
        try:
            if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
                if isinstance(value, bool) or not isinstance(value, int):
                    raise TypeError
                return _int_repr(value)
            if t is Type.FLOAT32:
                return _flt(value)
            if t is Type.FLOAT64:
                return _dbl(value)
            if t is Type.BOOLEAN:
                if not isinstance(value, bool):
                    raise TypeError
                return _BOOL[value]
            if t is Type.STRING:
                if not isinstance(value, str):
                    raise TypeError
                return jackson_quote(value)
            if t is Type.BYTES:
                if not isinstance(value, (bytes, bytearray, memoryview)):
                    raise DataError(f"Invalid type for bytes type: {type(value)}")
                return _b64(value)
            if t is Type.ARRAY:
                if not isinstance(value, (list, tuple)):
                    raise TypeError
                items = schema.element_schema if schema is not None else None
                return "[" + ",".join(self.encode_checked(items, v) for v in value) + "]"
            if t is Type.MAP:
                if not isinstance(value, Mapping):
                    raise TypeError
                ks = schema.key_schema if schema is not None else None
                vs = schema.value_schema if schema is not None else None
                if schema is None:
                    object_mode = all(isinstance(k, str) for k in value)
                else:
                    assert ks is not None
                    object_mode = ks.type is Type.STRING
                if object_mode:
                    return (
                        "{"
                        + ",".join(
                            jackson_quote(_as_text(self.encode_checked(ks, k), k)) + ":" + self.encode_checked(vs, v)
                            for k, v in value.items()
                        )
                        + "}"
                    )
                return (
                    "["
                    + ",".join(
                        "[" + self.encode_checked(ks, k) + "," + self.encode_checked(vs, v) + "]"
                        for k, v in value.items()
                    )
                    + "]"
                )
        except (TypeError, KeyError, AttributeError):
            type_name = t.name if schema is not None else "unknown schema"
            raise DataError(f"Invalid type for {type_name}: {type(value)}") from None
        raise DataError(f"Couldn't convert {value!r} to JSON.")  # pragma: no cover

    def _logical(self, schema: Schema) -> Encoder | None:
        name = schema.name
        if name == DECIMAL_NAME:
            numeric = self.numeric_decimals

            def enc_decimal(v: Any) -> str:
                if not isinstance(v, Decimal):
                    raise DataError(f"Invalid type for Decimal, expected BigDecimal but was {type(v)}")
                if numeric:
                    try:
                        return java_bigdecimal_to_string(v)
                    except ValueError as e:
                        raise DataError(str(e)) from None
                return _b64(decimal_unscaled_bytes(v, _decimal_scale(schema)))

            return enc_decimal
        if name == DATE_NAME:
            return lambda v: str(_date_days(v))
        if name == TIME_NAME:
            return lambda v: str(_time_millis(v))
        if name == TIMESTAMP_NAME:
            return lambda v: str(_timestamp_millis(v))
        return None

    # -- the compiled encoders (the hot path) ------------------------------------------------------
    def _null_text(self, schema: Schema) -> str | None:
        """What a null writes: the default's encoding (replace.null.with.default), "null" when optional, or
        None: a required value without a default, which has no encoding (Kafka's error)."""
        if schema.default is not NO_DEFAULT and schema.default is not None and self.replace_null:
            return self.encode_checked(schema, schema.default)
        return "null" if schema.optional else None

    def _compile(self, schema: Schema) -> Encoder:
        null = self._null_text(schema)
        if schema.type is Type.STRUCT and self._accel is not None:
            # the C encoder answers a null itself; a required struct's null raises TypeError (then Kafka's error),
            # as the cached nested-field encoder of the schema does
            return self._struct_encoder(schema) if null is None else self._c_struct(schema, self._accel, null)
        inner = self._compile_non_null(schema)
        if null is not None:
            return lambda v: null if v is None else inner(v)

        def required(v: Any) -> str:
            if v is None:
                raise DataError(_NULL_REQUIRED)
            return inner(v)

        return required

    def _compile_non_null(self, schema: Schema) -> Encoder:
        if schema.name is not None:
            logical = self._logical(schema)
            if logical is not None:
                return logical
        t = schema.type
        if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
            return _int_text
        if t is Type.FLOAT64:
            return _dbl
        if t is Type.FLOAT32:
            return _flt
        if t is Type.BOOLEAN:
            return _bool_text
        if t is Type.STRING:
            return _quote_str
        if t is Type.BYTES:
            return _b64
        if t is Type.ARRAY:
            item = self.encoder(schema.element_schema)

            def enc_array(v: Any) -> str:
                if v.__class__ is not list and not isinstance(v, (list, tuple)):
                    raise TypeError(type(v))
                return "[" + ",".join(map(item, v)) + "]"

            return enc_array
        if t is Type.MAP:
            assert schema.key_schema is not None and schema.value_schema is not None
            kenc = self.encoder(schema.key_schema)
            venc = self.encoder(schema.value_schema)
            if schema.key_schema.type is Type.STRING and schema.key_schema.name is None:
                key_optional = schema.key_schema.optional

                def enc_obj(v: Any) -> str:
                    if key_optional and None in v:
                        raise TypeError("null map key")  # rare: the checking encoder handles it
                    return "{" + ",".join([_quote_str(k) + ":" + venc(x) for k, x in v.items()]) + "}"

                return enc_obj
            if schema.key_schema.type is Type.STRING:
                return lambda v: self.encode_checked(schema, v)

            def enc_pairs(v: Any) -> str:
                return "[" + ",".join(["[" + kenc(k) + "," + venc(x) + "]" for k, x in v.items()]) + "]"

            return enc_pairs
        if t is Type.STRUCT:
            return self._struct_encoder(schema)
        raise DataError(f"Unknown schema type: {t}")  # pragma: no cover

    def _struct_encoder(self, schema: Schema) -> Encoder:
        """A struct schema's encoder: the C StructEncoder when it is built, else generated Python."""
        enc = self._structs.get(schema)
        if enc is None:
            enc = self._compile_struct(schema) if self._accel is None else self._c_struct(schema, self._accel)
            self._remember(self._structs, schema, enc)
        return enc

    def _c_struct(self, schema: Schema, accel: ModuleType, self_null: str | None = None) -> Encoder:
        """The plan of converters/_jsonstruct.c: per field its prefix, how it is written, what a null writes;
        `self_null` is what the encoder answers for a null struct (None: it raises TypeError)."""
        plan: list[tuple[str, int, Any, str | None]] = []
        for f in schema.fields:
            fs = f.schema
            prefix = ("{" if f.index == 0 else ",") + jackson_quote(f.name) + ":"
            arg: Any = self._logical(fs) if fs.name is not None else None
            if arg is not None:
                kind = accel.CALL
                if fs.name == DECIMAL_NAME and not self.numeric_decimals:
                    # base64 of the unscaled value in C for plain values, else the Python encoder; without a
                    # scale parameter the Python encoder stays and raises Kafka's error per value
                    with contextlib.suppress(DataError):
                        kind, arg = accel.DECIMAL, (arg, _decimal_scale(fs), Decimal)
            elif fs.type in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
                kind = accel.INT
            elif fs.type is Type.STRING:
                kind = accel.STR
            elif fs.type is Type.BOOLEAN:
                kind = accel.BOOL
            elif fs.type is Type.STRUCT:
                kind, arg = accel.STRUCT, self._struct_encoder(fs)
            else:
                kind, arg = accel.CALL, self._compile_non_null(fs)
            plan.append((prefix, kind, arg, self._null_text(fs)))  # None: TypeError, then Kafka's message
        enc: Encoder = accel.StructEncoder(schema, Struct, tuple(plan), self_null)
        return enc

    def _compile_struct(self, schema: Schema) -> Encoder:
        """Generate `def enc(s): v = s.values; return '{"a":' + ... + '}'` for this struct schema."""
        ns: dict[str, Any] = {
            "SCHEMA": schema,
            "Struct": Struct,
            "DataError": DataError,
            "_int_repr": _int_repr,
            "_int_text": _int_text,
            "_bool_text": _bool_text,
            "_q": _quote_str,
            "_ns": NEEDS_ESCAPE.search,
            "_dbl": _dbl,
            "_b64": _b64,
            "_BOOL": _BOOL,
            "_NULL_REQUIRED": _NULL_REQUIRED,
        }
        memo = _memoized(schema)
        lines = [
            "def enc(s):",
            "    if s.__class__ is not Struct or (s.schema is not SCHEMA and s.schema != SCHEMA):",
            "        raise TypeError('struct')",
            "    v = s.values",
        ]
        if memo and schema.fields:
            lines.insert(1, "    global " + ", ".join(f"m{f.index}" for f in schema.fields))
        pieces: list[str] = []
        for f in schema.fields:
            i = f.index
            fs = f.schema
            prefix = ("{" if i == 0 else ",") + jackson_quote(f.name) + ":"
            pieces.append(repr(prefix))
            inline = None if fs.name is not None else _INLINE.get(fs.type)
            if inline is None:
                ns[f"e{i}"] = self.encoder(fs)
                expr = f"e{i}(x{i})"
            else:
                expr = inline.format(x=f"x{i}")
                if fs.default is not NO_DEFAULT and fs.default is not None and self.replace_null:
                    ns[f"d{i}"] = self.encode_checked(fs, fs.default)
                    expr = f"(d{i} if x{i} is None else {expr})"
                elif fs.optional:
                    expr = f"('null' if x{i} is None else {expr})"
                # a required field's None raises TypeError: the checking encoder then gives Kafka's message
            lines.append(f"    x{i} = v[{i}]")
            if memo:
                # the last value's encoding, kept while the same object comes again (one global store:
                # a reader on another thread sees the old pair or the new one, never half of each)
                ns[f"m{i}"] = (_UNSET, "")
                lines.append(f"    if x{i} is not m{i}[0]:")
                lines.append(f"        m{i} = (x{i}, {expr})")
                pieces.append(f"m{i}[1]")
            else:
                pieces.append(expr)
        if not schema.fields:
            pieces = ["'{'"]
        pieces.append("'}'")
        lines.append('    return "".join((' + ", ".join(pieces) + "))")
        exec(compile("\n".join(lines), f"<json encoder {schema.name or 'struct'}>", "exec"), ns)
        fn: Encoder = ns["enc"]
        return fn


_UNSET: Final = object()


def _memoized(schema: Schema) -> bool:
    """Whether a struct's encoder remembers each field's last encoding by the value's identity.

    Debezium's source blocks (`io.debezium.connector.<db>.Source`) repeat the same objects event after
    event (version, connector and server names, database, schema and table, the transaction's id and commit
    time): keeping their encodings saves most of the block's cost (the block is about a third of a row
    event's JSON). Row structs are not memoized: their values change with every event.
    """
    return schema.name is not None and schema.name.startswith("io.debezium.") and schema.name.endswith(".Source")


# a plain int is written at once; anything else (a bool: Kafka refuses it) goes through the checks
_INLINE_INT: Final = "(_int_repr({x}) if {x}.__class__ is int else _int_text({x}))"
_INLINE: Final = {
    **dict.fromkeys((Type.INT8, Type.INT16, Type.INT32, Type.INT64), _INLINE_INT),
    # a string with nothing to escape is quoted as is (one C-level search); the others take Jackson's rules
    Type.STRING: "('\"' + {x} + '\"' if _ns({x}) is None else _q({x}))",
    Type.FLOAT64: "_dbl({x})",
    Type.BOOLEAN: "(_BOOL[{x}] if {x}.__class__ is bool else _bool_text({x}))",
    Type.BYTES: "_b64({x})",
}


_QUOTED: dict[str, str] = {}  # short strings recur per event (source block, enum values, names)


def _quote_str(v: Any) -> str:
    if v.__class__ is str:
        q = _QUOTED.get(v)
        if q is not None:
            return q
    elif not isinstance(v, str):
        raise TypeError(type(v))
    q = jackson_quote(v)
    if len(v) <= 64:
        if len(_QUOTED) >= 8192:
            _QUOTED.clear()
        _QUOTED[v] = q
    return q


def _as_text(encoded: str, key: Any) -> str:
    """Jackson's `asText()` of an encoded map key (string keys are the common case)."""
    if isinstance(key, str):
        return key
    if encoded.startswith('"'):
        loaded: str = json.loads(encoded)
        return loaded
    return encoded


def _infer_type(value: Any) -> Type:
    """ConnectSchema.schemaType of the Java class a schemaless Python value stands for."""
    if isinstance(value, bool):
        return Type.BOOLEAN
    if isinstance(value, int):
        return Type.INT64
    if isinstance(value, float):
        return Type.FLOAT64
    if isinstance(value, str):
        return Type.STRING
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Type.BYTES
    if isinstance(value, (list, tuple)):
        return Type.ARRAY
    if isinstance(value, Mapping):
        return Type.MAP
    if isinstance(value, Struct):
        return Type.STRUCT
    raise DataError(f"Java class {type(value)} does not have corresponding schema type.")


# -- reading (JsonConverter.toConnectData / asConnectSchema / convertToConnect) ------------------------
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
    return _EPOCH + dt.timedelta(milliseconds=ms)


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
                    scale = _decimal_scale(schema)
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
            return _EPOCH_DATE + dt.timedelta(days=node)
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


class JsonConverter(Converter, HeaderConverter):
    """org.apache.kafka.connect.json.JsonConverter: keys, values and headers as JSON, with schemas or not."""

    class_name = "org.apache.kafka.connect.json.JsonConverter"
    aliases = ("JsonConverter",)
    plugin_version = KAFKA_VERSION

    def __init__(self) -> None:
        self.schemas_enabled = True
        self._codec = JsonCodec(numeric_decimals=False, replace_null_with_default=True, cache_size=1000)
        self._reader = JsonReader(replace_null_with_default=True, cache_size=1000)
        self._fixed_schema: Schema | None = None

    @classmethod
    def config_def(cls) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        conf = dict(configs)
        if is_key is not None:
            conf[CONVERTER_TYPE] = "key" if is_key else "value"
        conf.setdefault(CONVERTER_TYPE, "header")
        parsed = CONFIG_DEF.parse(conf)
        self.schemas_enabled = bool(parsed[SCHEMAS_ENABLE])
        cache_size = int(parsed[SCHEMAS_CACHE_SIZE])
        replace_null = bool(parsed[REPLACE_NULL_WITH_DEFAULT])
        self._codec = JsonCodec(
            numeric_decimals=str(parsed[DECIMAL_FORMAT]).upper() == "NUMERIC",
            replace_null_with_default=replace_null,
            cache_size=cache_size,
        )
        self._reader = JsonReader(replace_null_with_default=replace_null, cache_size=cache_size)
        content = parsed[SCHEMA_CONTENT]
        self._fixed_schema = None
        if content:
            try:
                self._fixed_schema = self._reader.as_connect_schema(parse_json(str(content).encode("utf-8")))
            except (ValueError, UnicodeDecodeError) as e:
                raise DataError("Failed to parse schema in converter config due to serialization error: ") from e

    # -- Converter ---------------------------------------------------------------------------------
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: tuple[Header, ...] = ()
    ) -> bytes | None:
        if schema is None and value is None:
            return None
        codec = self._codec
        if schema is None:
            payload = codec.encode_checked(None, value)
        else:
            enc = codec.encoder(schema)
            try:
                if enc.__class__ is _STRUCT_ENCODER:  # C: the bytes written once, in the envelope when enabled
                    c_enc = cast("StructEncoder", enc)
                    return c_enc.utf8(value, codec.envelope_prefix_utf8(schema) if self.schemas_enabled else None)
                payload = enc(value)
            except DataError:
                raise
            except (TypeError, KeyError, AttributeError, ValueError):
                payload = codec.encode_checked(schema, value)  # raises Kafka's error, or succeeds leniently
        if self.schemas_enabled:
            return (codec.envelope_prefix(schema) + payload + "}").encode("utf-8")
        return payload.encode("utf-8")

    def to_connect_data(self, topic: str, data: bytes | None) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(None, None)
        try:
            node = parse_json(data)
        except (ValueError, UnicodeDecodeError) as e:
            raise DataError(_READ_FAILED) from e
        reader = self._reader
        if self.schemas_enabled:
            if self._fixed_schema is not None:
                return SchemaAndValue(self._fixed_schema, reader.to_connect(self._fixed_schema, node))
            if not (isinstance(node, dict) and len(node) == 2 and "schema" in node and "payload" in node):
                raise DataError(ENVELOPE_ERROR)
            schema = reader.as_connect_schema(node["schema"])
            return SchemaAndValue(schema, reader.to_connect(schema, node["payload"]))
        return SchemaAndValue(None, reader.to_connect(None, node))

    # -- HeaderConverter ---------------------------------------------------------------------------
    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)

    # -- helpers for callers that need the schema JSON itself (e.g. REST, tests) --------------------
    def as_json_schema(self, schema: Schema) -> str:
        """`JsonConverter.asJsonSchema(schema)` serialised."""
        return self._codec.schema_json(schema)
