"""CloudEventsConverter: byte-identical to io.debezium.converters.CloudEventsConverter (Debezium 3.6.3) for JSON.

A Debezium change event becomes one structured-mode CloudEvent (converters.cloudevents_maker says which
attributes and how they are made; converters.cloudevents_config which keys). The envelope and its `data` are
written by an event writer chosen by `serializer.type` and `data.serializer.type`; JSON/JSON is the one there is:

* the envelope by a JsonConverter configured with the `json.*` keys and `schemas.enable=false` (a CloudEvent has
  no schema envelope of its own);
* `data` by a second JsonConverter with the `json.*` keys as given: with `json.schemas.enable` (true by default)
  it is `{"schema":...,"payload":...}`, spliced in where the envelope wrote an empty struct, as Debezium does.

`serializer.type=avro` or `data.serializer.type=avro` is refused at configure(): an Avro writer is registered in
`_WRITERS` by its pair of serializer types.

Reading back (toConnectData) gives the CloudEvent as a schemaless map whose `data` is read with the `json.*`
settings, after Debezium's check that the map has `id`, `source`, `specversion` and `type`.

Per record: the layouts of the value schema and of the source schema, the data schema and the envelope schema
are cached (by schema), so an event costs its attribute values, two small structs and the two JSON writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple, Protocol

from connect_worker.api.config import ConfigDef
from connect_worker.api.converter import Converter
from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.record import Header, SchemaAndValue
from connect_worker.api.schema import STRING_SCHEMA, Schema, Type, struct_schema
from connect_worker.api.struct import Struct
from converters.cloudevents_config import (
    CONFIG_DEF,
    CONVERTER_TYPE,
    DATA_SERIALIZER_TYPE,
    SERIALIZER_TYPE,
    CloudEventsSettings,
    Origin,
    resolve_metadata_sources,
)
from converters.cloudevents_maker import (
    EMPTY_SCHEMA,
    EMPTY_STRUCT,
    MAKERS,
    OPERATION,
    SOURCE,
    SPECVERSION,
    RecordMetadata,
    SourceLayout,
    ValueLayout,
    ce_time,
    data_schema,
    data_values,
    envelope_schema,
    extension_name,
    java_text,
    last_header,
    maker_for,
    transaction_values,
    validate_fields,
    validate_value,
)
from converters.json import CONFIG_DEF as JSON_CONFIG_DEF
from converters.json import REPLACE_NULL_WITH_DEFAULT, SCHEMAS_CACHE_SIZE, JsonConverter
from converters.json_reader import MISSING, JsonReader, parse_json

DEBEZIUM_VERSION: Final = "3.6.3.Final"  # the Debezium release this converter stands in for (its plugin version)

CONTENT_TYPES: Final = {"json": "application/json", "avro": "application/avro"}
AVRO_WITH_JSON_DATA: Final = "Cannot use 'application/json' data content type within Avro events"
AVRO_NOT_SUPPORTED: Final = (
    "Avro CloudEvents are not supported yet: serializer.type and data.serializer.type must both be json"
)
NOT_A_CLOUD_EVENT: Final = "A deserialized record's value is not a CloudEvent: value="
_READ_FAILED: Final = "Converting byte[] to Kafka Connect data failed due to serialization error: "
_REQUIRED_ATTRIBUTES: Final = frozenset(("id", "source", "specversion", "type"))


# -- the event writers --------------------------------------------------------------------------------------------
class CloudEvent(NamedTuple):
    """One event to write: the envelope's schema, its attribute values (all but `data`, in field order), and the
    data with its schema."""

    envelope: Schema
    attributes: list[Any]
    data_schema: Schema
    data: Struct


class EventWriter(Protocol):
    #: True when `data` is written apart with its own schema: the envelope's `data` field is then an empty struct
    data_apart: bool

    def write(self, topic: str, event: CloudEvent) -> bytes: ...

    def read(self, topic: str, data: bytes | None) -> SchemaAndValue: ...


class JsonEventWriter:
    """JSON envelope, JSON data (Debezium's JSON-JSON mode)."""

    def __init__(self, settings: CloudEventsSettings, is_key: bool) -> None:
        self._envelope = JsonConverter()
        self._envelope.configure({**settings.json, "schemas.enable": "false"}, is_key)
        self._data = JsonConverter()
        self._data.configure(settings.json, True)
        self.data_apart = self._data.schemas_enabled
        # Debezium reads `data` back with the envelope converter's settings (the json.* keys)
        json = JSON_CONFIG_DEF.parse({**settings.json, CONVERTER_TYPE: "value"})
        self._reader = JsonReader(
            replace_null_with_default=bool(json[REPLACE_NULL_WITH_DEFAULT]), cache_size=int(json[SCHEMAS_CACHE_SIZE])
        )

    def write(self, topic: str, event: CloudEvent) -> bytes:
        envelope, attributes = event.envelope, event.attributes
        if self.data_apart:
            data = self._data.from_connect_data(topic, event.data_schema, event.data)
            head = self._envelope.from_connect_data(topic, envelope, Struct.of(envelope, (*attributes, EMPTY_STRUCT)))
            assert head is not None and data is not None and head.endswith(b"{}}")
            return head[:-3] + data + b"}"  # `"data":{}}` becomes `"data":<schema and payload>}`
        out = self._envelope.from_connect_data(topic, envelope, Struct.of(envelope, (*attributes, event.data)))
        assert out is not None
        return out

    def read(self, topic: str, data: bytes | None) -> SchemaAndValue:
        event = self._envelope.to_connect_data(topic, data).value
        if not (isinstance(event, dict) and len(event) >= 4 and event.keys() >= _REQUIRED_ATTRIBUTES):
            raise DataError(NOT_A_CLOUD_EVENT + java_text(event))
        assert data is not None
        try:
            node = parse_json(data)["data"]
        except KeyError:
            raise DataError("The CloudEvent has no data attribute") from None
        reader = self._reader
        if not self.data_apart:
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


#: (serializer.type, data.serializer.type) -> the writer; a pair not here is refused at configure()
_WRITERS: Final[dict[tuple[str, str], Callable[[CloudEventsSettings, bool], EventWriter]]] = {
    ("json", "json"): JsonEventWriter,
}


_NO_TIME: Final = object()
# the attributes Debezium puts first, to check an id or type read from a header (or not read at all)
_HEAD_SCHEMA: Final = struct_schema([(n, STRING_SCHEMA) for n in ("id", "source", "specversion", "type")])


class _Cache(dict[Any, Any]):
    """A bounded map: the oldest entry goes when it is full (schemas of the tables a task sends)."""

    LIMIT: Final = 1000

    def remember(self, key: Any, value: Any) -> Any:
        if len(self) >= self.LIMIT:
            del self[next(iter(self))]
        self[key] = value
        return value


# -- the converter ---------------------------------------------------------------------------------------------
class CloudEventsConverter(Converter):
    """io.debezium.converters.CloudEventsConverter: Debezium change events as CloudEvents (JSON)."""

    class_name = "io.debezium.converters.CloudEventsConverter"
    aliases = ("CloudEventsConverter",)
    plugin_version = DEBEZIUM_VERSION

    def __init__(self) -> None:
        self._settings: CloudEventsSettings | None = None
        self._writer: EventWriter | None = None
        self._meta = RecordMetadata(resolve_metadata_sources(["value"], tracing=False, data_name_from_header=False))
        self._values = _Cache()
        self._sources = _Cache()
        self._data_schemas = _Cache()
        self._envelopes = _Cache()
        self._time: tuple[object, str] = (_NO_TIME, "")

    @classmethod
    def config_def(cls) -> ConfigDef:
        return CONFIG_DEF

    @property
    def settings(self) -> CloudEventsSettings:
        if self._settings is None:
            raise ConfigError("CloudEventsConverter is not configured")
        return self._settings

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        settings = CloudEventsSettings.parse(configs)
        if settings.serializer == "avro" and settings.data_serializer == "json":
            raise ConfigError(AVRO_WITH_JSON_DATA, name=DATA_SERIALIZER_TYPE)
        factory = _WRITERS.get((settings.serializer, settings.data_serializer))
        if factory is None:
            raise ConfigError(
                AVRO_NOT_SUPPORTED, name=SERIALIZER_TYPE if settings.serializer != "json" else DATA_SERIALIZER_TYPE
            )
        self._writer = factory(settings, is_key)
        self._settings = settings
        self._meta = RecordMetadata(settings.sources)
        for cache in (self._values, self._sources, self._data_schemas, self._envelopes):
            cache.clear()

    # -- Connect data -> bytes -------------------------------------------------------------------------------
    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: tuple[Header, ...] = ()
    ) -> bytes | None:
        if schema is None or value is None:
            return None
        settings = self.settings
        sources = settings.sources
        if sources.global_ is Origin.HEADER:
            if last_header(headers, SOURCE) is None or last_header(headers, OPERATION) is None:
                return None
        else:
            name = schema.name
            if name is None:
                raise DataError("A value schema without a name is not a Debezium envelope (`*.Envelope`)")
            if not name.endswith(".Envelope"):
                return None  # heartbeats, transaction metadata, messages, keys: no CloudEvent
        if schema.type is not Type.STRUCT:
            raise DataError("Mismatching schema")
        if value.__class__ is not Struct and not isinstance(value, Struct):
            raise DataError(
                f"Only Struct objects supported for [CloudEvents converter], found: {type(value).__qualname__}"
            )
        writer = self._writer
        assert writer is not None
        event = self._event(schema, value, headers, settings, writer.data_apart)
        try:
            return writer.write(topic, event)
        except DataError as e:
            raise self._explain(event, writer.data_apart) or e from None

    def _event(
        self, schema: Schema, value: Struct, headers: tuple[Header, ...], settings: CloudEventsSettings, apart: bool
    ) -> CloudEvent:
        """The event's parts, read and made in Debezium's order (so the first problem is the one it reports)."""
        meta = self._meta
        layout = self._values.get(schema) or self._values.remember(
            schema, ValueLayout(schema, all_fields=meta.all_fields)
        )
        source = meta.source(value, layout, headers)
        src = self._sources.get(source.schema) or self._sources.remember(
            source.schema, SourceLayout(source.schema, extensions=settings.extensions)
        )
        connector = maker_for(source.values[src.connector]).connector
        if apart:
            envelope = self._envelope(src, EMPTY_SCHEMA, settings)
            attributes = self._attributes(value, layout, source, src, connector, headers, settings)
            data_s, data = self._data(meta, layout, value, source, src, headers)
            return CloudEvent(envelope, attributes, data_s, data)
        # the data is part of the envelope: Debezium makes it first, so its problems come first
        data_s, data = self._data(meta, layout, value, source, src, headers)
        try:
            envelope = self._envelope(src, data_s, settings)
            attributes = self._attributes(value, layout, source, src, connector, headers, settings)
        except DataError:
            validate_fields(data_s, data.values)
            raise
        return CloudEvent(envelope, attributes, data_s, data)

    def _attributes(
        self,
        value: Struct,
        layout: ValueLayout,
        source: Struct,
        src: SourceLayout,
        connector: str,
        headers: tuple[Header, ...],
        settings: CloudEventsSettings,
    ) -> list[Any]:
        """The attributes but `data`. A value Debezium reads after putting the ones before it is checked before
        it is read (a null id fails before a missing traceparent header does)."""
        meta, sources = self._meta, settings.sources
        ce_id = MAKERS[connector].ce_id(source, src) if sources.id is Origin.GENERATE else meta.ce_id(headers)
        ce_type = (
            "io.debezium.connector." + connector + ".DataChangeEvent"
            if sources.type is Origin.GENERATE
            else meta.ce_type(headers)
        )
        if ce_id.__class__ is not str or ce_type.__class__ is not str:
            validate_fields(_HEAD_SCHEMA, (ce_id, "", "", ce_type))
        index, default = src.ts_ms
        ts_ms = source.values[index]
        if ts_ms is None:
            ts_ms = default
        time = self._time  # the last ts_ms and its text: the events of one transaction share it
        if time[0] != ts_ms:
            if ts_ms.__class__ is not int:
                raise DataError(f"The source block's ts_ms is not a timestamp: {java_text(ts_ms)}")
            time = self._time = (ts_ms, ce_time(ts_ms))
        attributes = [
            ce_id,
            "/debezium/" + connector + "/" + java_text(source.values[src.name]),
            SPECVERSION,
            ce_type,
            time[1],
            CONTENT_TYPES[settings.data_serializer],
        ]
        if settings.tracing:
            traceparent = meta.trace_parent(headers)
            if traceparent.__class__ is not str:
                validate_value(STRING_SCHEMA, traceparent, 'field: "traceparent"')
            attributes.append(traceparent)
        if settings.extensions:
            op = meta.operation(value, layout, headers)
            if op.__class__ is not str:
                validate_value(STRING_SCHEMA, op, f'field: "{extension_name(OPERATION)}"')
            attributes.append(op)
            attributes += src.extension_values(source)
            attributes += transaction_values(meta.transaction(value, layout, headers))
        return attributes

    def _data(
        self,
        meta: RecordMetadata,
        layout: ValueLayout,
        value: Struct,
        source: Struct,
        src: SourceLayout,
        headers: tuple[Header, ...],
    ) -> tuple[Schema, Struct]:
        name = meta.data_schema_name(source, src, headers)
        if name is not None and name.__class__ is not str:
            raise DataError(f"The data schema name is not a string: {java_text(name)}")
        key = (value.schema, name)
        schema = self._data_schemas.get(key)
        if schema is None:
            fields = layout.data_fields
            if isinstance(fields, str):
                raise DataError(fields)
            schema = self._data_schemas.remember(key, data_schema(name, fields))
        return schema, Struct.of(schema, data_values(value, schema))

    def _envelope(self, src: SourceLayout, data: Schema, settings: CloudEventsSettings) -> Schema:
        key = (src, data)
        schema = self._envelopes.get(key)
        if schema is None:
            built = envelope_schema(src, data, traceparent=settings.tracing, extensions=settings.extensions)
            schema = self._envelopes.remember(key, built)
        return schema  # type: ignore[no-any-return]

    @staticmethod
    def _explain(event: CloudEvent, apart: bool) -> DataError | None:
        """Debezium's message for a value its Struct puts refuse (the writers' own messages differ): the data
        first when it is part of the envelope (Debezium makes it first then), else the attributes first."""
        checks = [(event.envelope, event.attributes), (event.data_schema, event.data.values)]
        for schema, values in checks if apart else reversed(checks):
            try:
                validate_fields(schema, values)
            except DataError as e:
                return e
        return None

    # -- bytes -> Connect data -------------------------------------------------------------------------------
    def to_connect_data(self, topic: str, data: bytes | None) -> SchemaAndValue:
        if self._writer is None:
            raise ConfigError("CloudEventsConverter is not configured")
        try:
            return self._writer.read(topic, data)
        except (ValueError, UnicodeDecodeError) as e:
            raise DataError(_READ_FAILED) from e
