"""JsonConverter: byte-identical to org.apache.kafka.connect.json.JsonConverter (Kafka 4.3, Jackson 2.21).

This module holds the plugin (its ConfigDef, the envelope, the Converter and HeaderConverter calls). The work
is done by three modules: converters.json_encoder compiles one encoder per Schema (the hot path),
converters.json_reader reads JSON back into Connect data, and converters.json_text writes single values.

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

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Final, cast

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, Width, at_least, one_of
from connect_worker.api.converter import Converter, HeaderConverter
from connect_worker.api.errors import DataError
from connect_worker.api.record import Header, SchemaAndValue
from connect_worker.api.schema import Schema
from converters import KAFKA_VERSION
from converters.converter_config import CONVERTER_TYPE, CONVERTER_TYPE_KEY
from converters.json_encoder import STRUCT_ENCODER, JsonCodec
from converters.json_reader import JsonReader, parse_json

if TYPE_CHECKING:
    from converters._jsonstruct import StructEncoder

SCHEMAS_ENABLE: Final = "schemas.enable"
SCHEMAS_CACHE_SIZE: Final = "schemas.cache.size"
SCHEMA_CONTENT: Final = "schema.content"
DECIMAL_FORMAT: Final = "decimal.format"
REPLACE_NULL_WITH_DEFAULT: Final = "replace.null.with.default"

ENVELOPE_ERROR: Final = (
    'JsonConverter with schemas.enable requires "schema" and "payload" fields and may not contain additional '
    "fields. If you are trying to deserialize plain JSON data, set schemas.enable=false in your converter "
    "configuration."
)
_READ_FAILED: Final = "Converting byte[] to Kafka Connect data failed due to serialization error: "

CONFIG_DEF: Final = ConfigDef(
    [
        CONVERTER_TYPE_KEY,
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
        # the last struct schema written with the C encoder, its encoder and envelope prefix: a connector task
        # sends one table's records in a row, so most records skip the encoder lookup (and its schema hash)
        self._hot: tuple[Schema, Any, bytes | None] | None = None

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
        self._hot = None
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
        hot = self._hot
        if hot is not None and hot[0] is schema:
            try:
                return hot[1](value, hot[2])  # type: ignore[no-any-return]
            except (TypeError, KeyError, AttributeError, ValueError):
                return self._checked(schema, self._codec.encode_checked(schema, value))
        if schema is None and value is None:
            return None
        codec = self._codec
        if schema is None:
            payload = codec.encode_checked(None, value)
        else:
            enc = codec.encoder(schema)
            try:
                if enc.__class__ is STRUCT_ENCODER:  # C: the bytes written once, in the envelope when enabled
                    c_enc = cast("StructEncoder", enc)
                    prefix = codec.envelope_prefix_utf8(schema) if self.schemas_enabled else None
                    self._hot = (schema, c_enc.utf8, prefix)
                    return c_enc.utf8(value, prefix)
                payload = enc(value)
            except DataError:
                raise
            except (TypeError, KeyError, AttributeError, ValueError):
                payload = codec.encode_checked(schema, value)  # raises Kafka's error, or succeeds leniently
        return self._checked(schema, payload)

    def _checked(self, schema: Schema | None, payload: str) -> bytes:
        """A payload's bytes, in the envelope when schemas are enabled."""
        if self.schemas_enabled:
            return (self._codec.envelope_prefix(schema) + payload + "}").encode("utf-8")
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
