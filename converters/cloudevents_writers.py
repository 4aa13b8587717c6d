"""How a CloudEvent becomes bytes and back: one writer per (serializer.type, data.serializer.type), as Debezium 3.6's
CloudEventsConverter has them.

* json/json (JsonEventWriter): the envelope by a JsonConverter with the `json.*` keys and `schemas.enable=false`;
  `data` by a second JsonConverter with the `json.*` keys as given. With `json.schemas.enable` (true by default)
  `data` is `{"schema":...,"payload":...}`, spliced in where the envelope wrote an empty struct.
* json/avro (JsonAvroEventWriter): `data` written by the Avro converter under the record's topic, then the JSON
  envelope with `data` as bytes (base64) and `dataschema` `<registry url>/schemas/ids/<id of the data's schema>`.
* avro/avro (AvroEventWriter): `data` written by the Avro converter under `<topic>-data`, then the whole envelope
  (a struct named `<name>.<db>.CloudEvents.Envelope`, or schema.cloudevents.name, adjusted by
  schema.name.adjustment.mode) with `data` as bytes, by the same converter under the topic.

The Avro converter is the one Debezium instantiates from the `avro.*` keys (prefix removed):
`apicurio.registry.url` selects io.apicurio.registry.utils.converter.AvroConverter, else `schema.registry.url`
io.confluent.connect.avro.AvroConverter; it is configured as a value converter whichever side the CloudEvents
converter serves. A registry call it needs (a cache miss) raises PendingIO, which goes up untouched: the caller runs
it and converts the record again, and nothing is kept from the attempt but the registry's answer.

Reading back is Debezium's too. json/avro reads the envelope and gives `data` as null: Debezium hands the Avro
converter the bytes of a binary JSON node, and a parsed base64 string is a text node, so it reads null. avro/avro
reads the envelope, then `data` under `<topic>-data`, and returns a struct schema with the envelope's fields, name,
version, doc and parameters whose `data` field has the data's schema.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any, Final, NamedTuple, Protocol

from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.record import SchemaAndValue
from connect_worker.api.schema import BYTES_SCHEMA, NO_DEFAULT, Schema, Type
from connect_worker.api.struct import Struct
from converters.avro import AvroConverter
from converters.avro_apicurio import ApicurioAvroConverter
from converters.cloudevents_config import AVRO_PREFIX, CloudEventsSettings
from converters.cloudevents_java import java_text
from converters.cloudevents_maker import CLOUDEVENTS_SCHEMA_SUFFIX, DATASCHEMA_INDEX, EMPTY_SCHEMA, EMPTY_STRUCT
from converters.converter_config import CONVERTER_TYPE
from converters.json import CONFIG_DEF as JSON_CONFIG_DEF
from converters.json import REPLACE_NULL_WITH_DEFAULT, SCHEMAS_CACHE_SIZE, JsonConverter
from converters.json_reader import MISSING, JsonReader, parse_json

APICURIO_URL: Final = "apicurio.registry.url"
CONFLUENT_URL: Final = "schema.registry.url"
NEED_REGISTRY_URLS: Final = "Need URL(s) for schema registry instances for CloudEvents when using Apache Avro"
DATA_SUBJECT_SUFFIX: Final = "-data"  # Avro/Avro: the data's topic (so its subject), apart from the envelope's
SCHEMA_URL_PATH: Final = "/schemas/ids/"
NOT_A_CLOUD_EVENT: Final = "A deserialized record's value is not a CloudEvent: value="
_REQUIRED_ATTRIBUTES: Final = frozenset(("id", "source", "specversion", "type"))


class CloudEvent(NamedTuple):
    """One event to write: the envelope's schema, its attribute values (all its fields but `data`, in field order;
    a `dataschema` value is a placeholder the writer fills in), and the data with its schema."""

    envelope: Schema
    attributes: list[Any]
    data_schema: Schema
    data: Struct


@dataclasses.dataclass(frozen=True, slots=True)
class EnvelopeShape:
    """What a writer needs of the envelope the converter builds."""

    #: the schema of the envelope's `data` field when the data is written apart from it (an empty struct the JSON
    #: writer splices its data into, or Avro bytes); None: the data's own schema, the data inside the envelope
    data_field: Schema | None
    #: the data is made before the attributes, as Debezium orders it (so its problems are the ones reported first)
    data_first: bool
    #: a `dataschema` attribute after `datacontenttype`: the registry URL of the data's schema
    dataschema: bool = False
    #: the envelope schema has Debezium's name (`<name>.<db>.CloudEvents.Envelope`, adjusted): an Avro envelope's
    named: bool = False


class EventWriter(Protocol):
    """Writes a CloudEvent the converter made (a PendingIO from a registry goes up untouched), and reads one back."""

    @property
    def shape(self) -> EnvelopeShape: ...

    def write(self, topic: str, event: CloudEvent) -> bytes: ...

    def read(self, topic: str, data: bytes | None) -> SchemaAndValue: ...


# -- JSON envelopes -------------------------------------------------------------------------------------------------
def _envelope_converter(settings: CloudEventsSettings, is_key: bool) -> JsonConverter:
    converter = JsonConverter()
    converter.configure({**settings.json, "schemas.enable": "false"}, is_key)
    return converter


def _read_json_envelope(converter: JsonConverter, topic: str, data: bytes | None) -> dict[str, Any]:
    """The envelope as a schemaless map, after Debezium's check that it has `id`, `source`, `specversion` and
    `type`; Debezium dereferences its `data` node, so an event without one fails."""
    event = converter.to_connect_data(topic, data).value
    if not (isinstance(event, dict) and len(event) >= 4 and event.keys() >= _REQUIRED_ATTRIBUTES):
        raise DataError(NOT_A_CLOUD_EVENT + java_text(event))
    if "data" not in event:
        raise DataError("The CloudEvent has no data attribute")
    return event


class JsonEventWriter:
    """JSON envelope, JSON data (Debezium's JSON-JSON mode)."""

    def __init__(self, settings: CloudEventsSettings, is_key: bool) -> None:
        self._envelope = _envelope_converter(settings, is_key)
        self._data = JsonConverter()
        self._data.configure(settings.json, True)
        apart = self._data.schemas_enabled
        self.shape = EnvelopeShape(EMPTY_SCHEMA, data_first=False) if apart else EnvelopeShape(None, data_first=True)
        # Debezium reads `data` back with the envelope converter's settings (the json.* keys)
        json = JSON_CONFIG_DEF.parse({**settings.json, CONVERTER_TYPE: "value"})
        self._reader = JsonReader(
            replace_null_with_default=bool(json[REPLACE_NULL_WITH_DEFAULT]), cache_size=int(json[SCHEMAS_CACHE_SIZE])
        )

    def write(self, topic: str, event: CloudEvent) -> bytes:
        envelope, attributes = event.envelope, event.attributes
        if self.shape.data_field is not None:
            data = self._data.from_connect_data(topic, event.data_schema, event.data)
            head = self._envelope.from_connect_data(topic, envelope, Struct.of(envelope, (*attributes, EMPTY_STRUCT)))
            assert head is not None and data is not None and head.endswith(b"{}}")
            return head[:-3] + data + b"}"  # `"data":{}}` becomes `"data":<schema and payload>}`
        out = self._envelope.from_connect_data(topic, envelope, Struct.of(envelope, (*attributes, event.data)))
        assert out is not None
        return out

    def read(self, topic: str, data: bytes | None) -> SchemaAndValue:
        event = _read_json_envelope(self._envelope, topic, data)
        assert data is not None
        node = parse_json(data)["data"]
        reader = self._reader
        if self.shape.data_field is None:
            schema, payload = None, node
        elif isinstance(node, dict) and "schema" in node:
            schema, payload = reader.as_connect_schema(node["schema"]), node.get("payload", MISSING)
        else:
            raise DataError('The data attribute has no "schema" (json.schemas.enable is true)')
        try:
            event["data"] = reader.to_connect(schema, payload)
        except DataError as e:  # Debezium calls JsonConverter.convertToConnect reflectively and wraps its error
            raise DataError(f"org.apache.kafka.connect.errors.DataException: {e}") from e
        return SchemaAndValue(None, event)


# -- Avro -------------------------------------------------------------------------------------------------------------
def _java_split(text: str) -> list[str]:
    """Java's `text.split(",")`: trailing empty parts dropped, a text without a comma is one part."""
    if "," not in text:
        return [text]
    parts = text.split(",")
    while parts and parts[-1] == "":
        parts.pop()
    return parts


def _java_string(value: Any) -> str:
    """A config value as Debezium's Configuration.from makes it a string (a list joined by commas)."""
    if isinstance(value, (list, tuple)):
        return ",".join(java_text(v) for v in value)
    return java_text(value)


def registry_converter(avro: Mapping[str, Any]) -> tuple[AvroConverter, str]:
    """The Avro converter Debezium instantiates for the `avro.*` keys (without their prefix), configured as a value
    converter, and the base of the `dataschema` attribute (its registry URLs, joined by commas)."""
    config = {k: _java_string(v) for k, v in avro.items()}
    converter: AvroConverter
    if APICURIO_URL in config:
        urls, converter = _java_split(config[APICURIO_URL]), ApicurioAvroConverter()
    elif CONFLUENT_URL in config:
        urls, converter = _java_split(config[CONFLUENT_URL]), AvroConverter()
    else:
        urls = []
    if not urls:
        raise ConfigError(NEED_REGISTRY_URLS, name=AVRO_PREFIX + CONFLUENT_URL)
    converter.configure(config, False)
    return converter, ",".join(urls)


def _with_data(event: CloudEvent, data: bytes | None, uri_base: str) -> Struct:
    """The envelope's struct: the attributes with `dataschema` the id in the data's Confluent framing (bytes 1-4,
    read as a Java int), and `data` the data's Avro bytes."""
    assert data is not None and len(data) >= 5
    values = [*event.attributes, data]
    values[DATASCHEMA_INDEX] = uri_base + SCHEMA_URL_PATH + str(int.from_bytes(data[1:5], "big", signed=True))
    return Struct.of(event.envelope, values)


_AVRO_DATA: Final = EnvelopeShape(BYTES_SCHEMA, data_first=True, dataschema=True)


class JsonAvroEventWriter:
    """JSON envelope, Avro data (serializer.type=json, data.serializer.type=avro)."""

    shape = _AVRO_DATA

    def __init__(self, settings: CloudEventsSettings, is_key: bool) -> None:
        self._envelope = _envelope_converter(settings, is_key)
        self._avro, self._uri_base = registry_converter(settings.avro)

    def write(self, topic: str, event: CloudEvent) -> bytes:
        data = self._avro.from_connect_data(topic, event.data_schema, event.data)
        out = self._envelope.from_connect_data(topic, event.envelope, _with_data(event, data, self._uri_base))
        assert out is not None
        return out

    def read(self, topic: str, data: bytes | None) -> SchemaAndValue:
        event = _read_json_envelope(self._envelope, topic, data)
        # Debezium reads `data` with the Avro converter only from a binary JSON node; parsed JSON has none (a base64
        # string is a text node), so the converter is handed null and `data` reads back as null
        event["data"] = None
        return SchemaAndValue(None, event)


class AvroEventWriter:
    """Avro envelope, Avro data (serializer.type=avro, data.serializer.type=avro)."""

    shape = dataclasses.replace(_AVRO_DATA, named=True)

    def __init__(self, settings: CloudEventsSettings, is_key: bool) -> None:
        self._avro, self._uri_base = registry_converter(settings.avro)
        self._name = settings.schema_name  # CloudEventsValidator: the envelope's name, as configured (not adjusted)

    def write(self, topic: str, event: CloudEvent) -> bytes:
        data = self._avro.from_connect_data(topic + DATA_SUBJECT_SUFFIX, event.data_schema, event.data)
        out = self._avro.from_connect_data(topic, event.envelope, _with_data(event, data, self._uri_base))
        assert out is not None
        return out

    def read(self, topic: str, data: bytes | None) -> SchemaAndValue:
        read = self._avro.to_connect_data(topic, data)
        schema, event = read.schema, read.value
        if schema is None or schema.name is None:  # Debezium: a NullPointerException on the schema's name
            raise DataError(
                f"A deserialized record without a schema name is not a CloudEvent: value={java_text(event)}"
            )
        named = schema.name == self._name if self._name is not None else schema.name.endswith(CLOUDEVENTS_SCHEMA_SUFFIX)
        if not (named and isinstance(event, Struct) and _has_required_fields(event.schema)):
            raise DataError(NOT_A_CLOUD_EVENT + java_text(event))
        field = schema.field("data")  # Struct.getBytes
        if field is None:
            raise DataError("data is not a valid field name")
        if field.schema.type is not Type.BYTES:
            raise DataError(f"Field 'data' is not of type {Type.BYTES.name}")
        inner = self._avro.to_connect_data(topic + DATA_SUBJECT_SUFFIX, event.values[field.index])
        if inner.schema is None:
            raise DataError("fieldSchema for field data cannot be null.")  # SchemaBuilder.field
        fields = [(f.name, inner.schema if f is field else f.schema) for f in schema.fields]
        whole = Schema(
            Type.STRUCT,
            name=schema.name,
            version=schema.version,
            doc=schema.doc,
            parameters=dict(schema.parameters) if schema.parameters else None,
            fields=fields,
        )
        values = [
            inner.value if f is field else (f.schema.default if v is None and _has_default(f.schema) else v)
            for f, v in zip(schema.fields, event.values, strict=True)
        ]  # Struct.get(field): a null takes the field's default
        return SchemaAndValue(whole, Struct.of(whole, values))


def _has_required_fields(schema: Schema) -> bool:
    return len(schema.fields) >= 4 and {f.name for f in schema.fields} >= _REQUIRED_ATTRIBUTES


def _has_default(schema: Schema) -> bool:
    return schema.default is not NO_DEFAULT and schema.default is not None
