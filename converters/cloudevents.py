"""CloudEventsConverter: byte-identical to io.debezium.converters.CloudEventsConverter (Debezium 3.6.3).

A Debezium change event becomes one structured-mode CloudEvent (converters.cloudevents_maker says which
attributes and how they are made; converters.cloudevents_config which keys). The envelope and its `data` are
written by an event writer chosen by `serializer.type` and `data.serializer.type` (converters.cloudevents_writers):
json/json, json/avro (a JSON envelope whose `data` is Avro bytes, with a `dataschema` attribute naming the data's
schema in the registry) and avro/avro (the data under `<topic>-data`, then the whole envelope, both by the Avro
converter the `avro.*` keys select). avro/json is refused at configure() with Debezium's message.

The converter makes the parts of the event in Debezium's order, so the first problem is the one Debezium reports:
the attributes first when the data is written apart as JSON, else the data first. A registry call the Avro
converter needs raises PendingIO out of from_connect_data; converting the record again is safe (the caches below
hold only what depends on schemas and settings).

Reading back (toConnectData) is the writer's: a schemaless map for a JSON envelope, a struct for an Avro one,
after Debezium's check that it has `id`, `source`, `specversion` and `type`.

Per record: the layouts of the value schema and of the source schema, the data schema and the envelope schema
are cached (by schema), so an event costs its attribute values, two small structs and the two writes.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from connect_worker.api.config import ConfigDef
from connect_worker.api.converter import Converter
from connect_worker.api.errors import ConfigError, ConnectError, DataError
from connect_worker.api.record import Header, SchemaAndValue
from connect_worker.api.schema import STRING_SCHEMA, Schema, Type, struct_schema
from connect_worker.api.struct import Struct
from connectors.relational.naming import SchemaNameAdjuster
from converters.cloudevents_config import (
    CONFIG_DEF,
    DATA_SERIALIZER_TYPE,
    CloudEventsSettings,
    Origin,
    resolve_metadata_sources,
)
from converters.cloudevents_java import java_text, validate_fields, validate_value
from converters.cloudevents_maker import (
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
    envelope_name,
    envelope_schema,
    extension_name,
    last_header,
    maker_for,
    transaction_values,
)
from converters.cloudevents_writers import (
    AvroEventWriter,
    CloudEvent,
    EnvelopeShape,
    EventWriter,
    JsonAvroEventWriter,
    JsonEventWriter,
)

DEBEZIUM_VERSION: Final = "3.6.3.Final"  # the Debezium release this converter stands in for (its plugin version)

CONTENT_TYPES: Final = {"json": "application/json", "avro": "application/avro"}
AVRO_WITH_JSON_DATA: Final = "Cannot use 'application/json' data content type within Avro events"
_READ_FAILED: Final = "Converting byte[] to Kafka Connect data failed due to serialization error: "
_DATASCHEMA_PLACEHOLDER: Final = ""  # the writer puts the data's schema URL there once the data is written


#: (serializer.type, data.serializer.type) -> the writer; avro/json is refused at configure(), as Debezium does
_WRITERS: Final[dict[tuple[str, str], Callable[[CloudEventsSettings, bool], EventWriter]]] = {
    ("json", "json"): JsonEventWriter,
    ("json", "avro"): JsonAvroEventWriter,
    ("avro", "avro"): AvroEventWriter,
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
    """io.debezium.converters.CloudEventsConverter: Debezium change events as CloudEvents (JSON or Avro)."""

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
        self._adjuster = SchemaNameAdjuster("avro")

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
        self._writer = _WRITERS[settings.serializer, settings.data_serializer](settings, is_key)
        self._settings = settings
        self._adjuster = SchemaNameAdjuster(settings.schema_name_adjustment)
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
        shape = writer.shape
        event = self._event(schema, value, headers, settings, shape)
        try:
            return writer.write(topic, event)  # PendingIO (a registry call first) goes up as it is
        except DataError as e:
            raise self._explain(event, shape.data_first) or e from None

    def _event(
        self,
        schema: Schema,
        value: Struct,
        headers: tuple[Header, ...],
        settings: CloudEventsSettings,
        shape: EnvelopeShape,
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
        if not shape.data_first:
            assert shape.data_field is not None
            envelope = self._envelope(src, shape.data_field, None, shape, settings)
            attributes = self._attributes(value, layout, source, src, connector, headers, settings, shape)
            data_s, data = self._data(meta, layout, value, source, src, headers)
            return CloudEvent(envelope, attributes, data_s, data)
        # the data is part of the envelope, or written (as Avro) before it: Debezium makes it first, so its problems
        # come first
        data_s, data = self._data(meta, layout, value, source, src, headers)
        try:
            name = None
            if shape.named:
                name = self._adjuster.adjust(
                    settings.schema_name if settings.schema_name is not None else envelope_name(source, src)
                )
            field = data_s if shape.data_field is None else shape.data_field
            envelope = self._envelope(src, field, name, shape, settings)
            attributes = self._attributes(value, layout, source, src, connector, headers, settings, shape)
        except ConnectError:
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
        shape: EnvelopeShape,
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
        if shape.dataschema:
            attributes.append(_DATASCHEMA_PLACEHOLDER)
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

    def _envelope(
        self, src: SourceLayout, data: Schema, name: str | None, shape: EnvelopeShape, settings: CloudEventsSettings
    ) -> Schema:
        key = (src, data, name)  # the shape and the settings are the writer's: fixed per configure()
        schema = self._envelopes.get(key)
        if schema is None:
            built = envelope_schema(
                src,
                data,
                traceparent=settings.tracing,
                extensions=settings.extensions,
                dataschema=shape.dataschema,
                name=name,
            )
            schema = self._envelopes.remember(key, built)
        return schema  # type: ignore[no-any-return]

    @staticmethod
    def _explain(event: CloudEvent, data_first: bool) -> DataError | None:
        """Debezium's message for a value its Struct puts refuse (the writers' own messages differ): the data
        first when Debezium makes it first, else the attributes first."""
        checks = [(event.envelope, event.attributes), (event.data_schema, event.data.values)]
        for schema, values in checks if not data_first else reversed(checks):
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
