"""The compiled JSON encoders of Connect schemas (the hot path of JsonConverter.fromConnectData), one codec per
converter instance with bounded per-schema caches.

A struct encoder is the C StructEncoder (converters/_jsonstruct.c) when it is built, else generated Python
source that concatenates precomputed field prefixes and inlines primitive fields; either way a record costs
one call per nested struct, not a schema walk. The schema's JSON and the envelope prefix are serialised
once per schema. When a fast encoder meets a value it does not expect, the checking (interpreting) encoder
re-runs to raise Kafka's error message.
"""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Mapping
from decimal import Decimal
from types import ModuleType
from typing import Any, Final

from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import NEEDS_ESCAPE, jackson_quote, java_bigdecimal_to_string
from connect_worker.api.schema import DATE_NAME, DECIMAL_NAME, NO_DEFAULT, TIME_NAME, TIMESTAMP_NAME, Schema, Type
from connect_worker.api.struct import Struct
from converters.json_text import (
    BOOL_TEXT,
    NULL_REQUIRED,
    Encoder,
    b64_text,
    bool_text,
    date_days,
    decimal_scale,
    decimal_unscaled_bytes,
    double_text,
    float_text,
    infer_type,
    int_repr,
    int_text,
    map_key_text,
    quote_str,
    time_millis,
    timestamp_millis,
)


def _load_accel() -> ModuleType | None:
    """The struct encoder in C, built from converters/_jsonstruct.c by `pip install`; None where no C compiler
    built it (then the generated Python encoders, the reference, do the work)."""
    try:
        return importlib.import_module("converters._jsonstruct")
    except ImportError:  # pragma: no cover
        return None


_accel: ModuleType | None = _load_accel()
STRUCT_ENCODER: Final = _accel.StructEncoder if _accel is not None else None


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
            raise DataError(NULL_REQUIRED)
        if schema is not None and schema.name is not None:
            logical = self._logical(schema)
            if logical is not None:
                return logical(value)
        t = schema.type if schema is not None else infer_type(value)
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
                return int_repr(value)
            if t is Type.FLOAT32:
                return float_text(value)
            if t is Type.FLOAT64:
                return double_text(value)
            if t is Type.BOOLEAN:
                if not isinstance(value, bool):
                    raise TypeError
                return BOOL_TEXT[value]
            if t is Type.STRING:
                if not isinstance(value, str):
                    raise TypeError
                return jackson_quote(value)
            if t is Type.BYTES:
                if not isinstance(value, (bytes, bytearray, memoryview)):
                    raise DataError(f"Invalid type for bytes type: {type(value)}")
                return b64_text(value)
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
                            jackson_quote(map_key_text(self.encode_checked(ks, k), k))
                            + ":"
                            + self.encode_checked(vs, v)
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
                return b64_text(decimal_unscaled_bytes(v, decimal_scale(schema)))

            return enc_decimal
        if name == DATE_NAME:
            return lambda v: str(date_days(v))
        if name == TIME_NAME:
            return lambda v: str(time_millis(v))
        if name == TIMESTAMP_NAME:
            return lambda v: str(timestamp_millis(v))
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
                raise DataError(NULL_REQUIRED)
            return inner(v)

        return required

    def _compile_non_null(self, schema: Schema) -> Encoder:
        if schema.name is not None:
            logical = self._logical(schema)
            if logical is not None:
                return logical
        t = schema.type
        if t in (Type.INT8, Type.INT16, Type.INT32, Type.INT64):
            return int_text
        if t is Type.FLOAT64:
            return double_text
        if t is Type.FLOAT32:
            return float_text
        if t is Type.BOOLEAN:
            return bool_text
        if t is Type.STRING:
            return quote_str
        if t is Type.BYTES:
            return b64_text
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
                    return "{" + ",".join([quote_str(k) + ":" + venc(x) for k, x in v.items()]) + "}"

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
                        kind, arg = accel.DECIMAL, (arg, decimal_scale(fs), Decimal)
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
            "int_repr": int_repr,
            "int_text": int_text,
            "bool_text": bool_text,
            "quote_str": quote_str,
            "needs_escape": NEEDS_ESCAPE.search,
            "double_text": double_text,
            "b64_text": b64_text,
            "BOOL_TEXT": BOOL_TEXT,
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
_INLINE_INT: Final = "(int_repr({x}) if {x}.__class__ is int else int_text({x}))"
_INLINE: Final = {
    **dict.fromkeys((Type.INT8, Type.INT16, Type.INT32, Type.INT64), _INLINE_INT),
    # a string with nothing to escape is quoted as is (one C-level search); the others take Jackson's rules
    Type.STRING: "('\"' + {x} + '\"' if needs_escape({x}) is None else quote_str({x}))",
    Type.FLOAT64: "double_text({x})",
    Type.BOOLEAN: "(BOOL_TEXT[{x}] if {x}.__class__ is bool else bool_text({x}))",
    Type.BYTES: "b64_text({x})",
}
