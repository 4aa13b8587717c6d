"""The configuration of CloudEventsConverter (Debezium 3.6's CloudEventsConverterConfig), parsed once.

Keys: serializer.type and data.serializer.type (json, avro), opentelemetry.tracing.attributes.enable,
extension.attributes.enable, schema.name.adjustment.mode and schema.cloudevents.name (they name an Avro envelope;
a JSON one has no schema), schema.data.name.source.header.enable, metadata.source, and the `json.*` and `avro.*`
keys passed through, without their prefix, to the converters that write the envelope and its data.

metadata.source is `value` or `header` (where the `source` block, the operation and the transaction block come
from), then `field:origin` parts for id, type, traceparent and dataSchemaName (`header` or `generate`); a field
not named takes the global origin. Its errors are Debezium's ConfigException texts, and a ConfigError of ours
where Debezium fails on a null or an index (an unknown global origin, a part without `:origin`).

Unlike Debezium, serializer.type, data.serializer.type and schema.name.adjustment.mode are checked against their
values at configure() (Debezium takes an unknown serializer for Avro and fails on an unknown mode with a
NullPointerException).
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Mapping, Sequence
from typing import Any, Final

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, one_of
from connect_worker.api.errors import ConfigError
from converters.converter_config import CONVERTER_TYPE, CONVERTER_TYPE_KEY

SERIALIZER_TYPE: Final = "serializer.type"
DATA_SERIALIZER_TYPE: Final = "data.serializer.type"
TRACING_ATTRIBUTES: Final = "opentelemetry.tracing.attributes.enable"
EXTENSION_ATTRIBUTES: Final = "extension.attributes.enable"
SCHEMA_NAME_ADJUSTMENT_MODE: Final = "schema.name.adjustment.mode"
SCHEMA_CLOUDEVENTS_NAME: Final = "schema.cloudevents.name"
DATA_NAME_FROM_HEADER: Final = "schema.data.name.source.header.enable"
METADATA_SOURCE: Final = "metadata.source"
JSON_PREFIX: Final = "json."
AVRO_PREFIX: Final = "avro."


class Origin(enum.Enum):
    """Where a piece of metadata comes from (CloudEventsConverterConfig.MetadataSourceValue)."""

    VALUE = "value"
    HEADER = "header"
    GENERATE = "generate"

    @classmethod
    def parse(cls, text: str) -> Origin | None:
        folded = text.strip().lower()
        return next((o for o in cls if o.value == folded), None)


@dataclasses.dataclass(frozen=True, slots=True)
class MetadataSources:
    """metadata.source resolved: the global origin (value or header), then per attribute."""

    global_: Origin
    id: Origin
    type: Origin
    traceparent: Origin
    data_schema_name: Origin


_CUSTOM_FIELDS: Final = {"id": "id", "type": "type", "traceparent": "traceparent", "dataSchemaName": "data_schema_name"}


# -- metadata.source ---------------------------------------------------------------------------------------------
def parse_metadata_source(items: Sequence[str]) -> tuple[Origin, dict[str, Origin]]:
    """The global origin and the per-attribute ones given, with Debezium's ConfigException texts."""
    if not items or not items[0]:
        raise ConfigError("Global metadata source can't be empty: use value or header", name=METADATA_SOURCE)
    global_ = Origin.parse(items[0])
    if global_ not in (Origin.VALUE, Origin.HEADER):
        shown = global_.name if global_ is not None else items[0]
        raise ConfigError(f"Global metadata source can't be {shown}", name=METADATA_SOURCE)
    custom: dict[str, Origin] = {}
    for item in items[1:]:
        parts = item.split(":")
        while len(parts) > 1 and parts[-1] == "":  # Java's String.split drops trailing empty strings
            parts.pop()
        if len(parts) < 2:
            raise ConfigError(f"Field `{item}` has no metadata source (expected field:source)", name=METADATA_SOURCE)
        origin = Origin.parse(parts[1])
        if origin is None:
            raise ConfigError(f"Field source `{parts[1]}` is not valid", name=METADATA_SOURCE)
        if origin is Origin.VALUE:
            raise ConfigError(f"Field metadata source can't be {origin.name}", name=METADATA_SOURCE)
        field = _CUSTOM_FIELDS.get(parts[0])
        if field is None:
            raise ConfigError(f"Field `{parts[0]}` is not allowed to set custom source", name=METADATA_SOURCE)
        custom[field] = origin
    return global_, custom


def _check_metadata_source(name: str, value: Any) -> None:
    parse_metadata_source(value or [])


def resolve_metadata_sources(items: Sequence[str], *, tracing: bool, data_name_from_header: bool) -> MetadataSources:
    """metadata.source resolved as CloudEventsConverterConfig.metadataSource() does: an attribute not named takes
    the global origin; `traceparent` comes from a header only with tracing attributes enabled and the data schema
    name only with schema.data.name.source.header.enable (both otherwise generated)."""
    global_, custom = parse_metadata_source(items)
    traceparent = custom.get("traceparent", global_)
    if traceparent is Origin.HEADER and not tracing:
        traceparent = Origin.GENERATE
    data_name = custom.get("data_schema_name", global_)
    if data_name is Origin.HEADER and not data_name_from_header:
        data_name = Origin.GENERATE
    return MetadataSources(global_, custom.get("id", global_), custom.get("type", global_), traceparent, data_name)


def _key(name: str, t: ConfigType, default: Any, doc: str, importance: Importance, **kw: Any) -> ConfigKey:
    return ConfigKey(name, t, default, importance=importance, documentation=doc, internal=True, **kw)


_SERIALIZERS: Final = one_of("json", "avro", case_sensitive=False)

CONFIG_DEF: Final = ConfigDef(
    [
        dataclasses.replace(CONVERTER_TYPE_KEY, internal=True),
        _key(
            SERIALIZER_TYPE,
            ConfigType.STRING,
            "json",
            "The encoding of the CloudEvents envelope: json or avro.",
            Importance.HIGH,
            validator=_SERIALIZERS,
        ),
        _key(
            DATA_SERIALIZER_TYPE,
            ConfigType.STRING,
            "json",
            "The encoding of the data attribute of CloudEvents: json or avro.",
            Importance.HIGH,
            validator=_SERIALIZERS,
        ),
        _key(
            TRACING_ATTRIBUTES,
            ConfigType.BOOLEAN,
            False,
            "Whether a cloud event has the OpenTelemetry traceparent attribute (taken from the traceparent header).",
            Importance.HIGH,
        ),
        _key(
            EXTENSION_ATTRIBUTES,
            ConfigType.BOOLEAN,
            True,
            "Whether a cloud event has the iodebezium* extension attributes (operation, source and transaction).",
            Importance.HIGH,
        ),
        _key(
            SCHEMA_NAME_ADJUSTMENT_MODE,
            ConfigType.STRING,
            "avro",
            "How the CloudEvents schema name is adjusted: avro (default), avro_unicode or none. Only an Avro "
            "envelope has a schema name.",
            Importance.LOW,
            validator=one_of("none", "avro", "avro_unicode", case_sensitive=False),
        ),
        _key(
            SCHEMA_CLOUDEVENTS_NAME,
            ConfigType.STRING,
            None,
            "The CloudEvents schema name registered in a schema registry (default <name>.<db>.CloudEvents.Envelope). "
            "Only an Avro envelope has a schema name.",
            Importance.LOW,
        ),
        _key(
            DATA_NAME_FROM_HEADER,
            ConfigType.BOOLEAN,
            False,
            "Whether the schema name of the data attribute may come from the dataSchemaName header.",
            Importance.LOW,
        ),
        _key(
            METADATA_SOURCE,
            ConfigType.LIST,
            ["value", "id:generate", "type:generate", "traceparent:header", "dataSchemaName:generate"],
            "Where the metadata comes from: value or header, then field:source parts for id, type, traceparent and "
            "dataSchemaName (header or generate).",
            Importance.HIGH,
            validator=_check_metadata_source,
        ),
    ]
)


@dataclasses.dataclass(frozen=True, slots=True)
class CloudEventsSettings:
    """The converter's configuration, parsed once."""

    serializer: str
    data_serializer: str
    tracing: bool
    extensions: bool
    schema_name_adjustment: str
    schema_name: str | None
    sources: MetadataSources
    json: Mapping[str, Any]  # the json.* keys without their prefix: the inner JsonConverters' configuration
    avro: Mapping[str, Any]  # the avro.* keys without their prefix

    @classmethod
    def parse(cls, configs: Mapping[str, Any]) -> CloudEventsSettings:
        # Debezium parses its own keys as a value converter's, whichever side it converts
        parsed = CONFIG_DEF.parse({**configs, CONVERTER_TYPE: "value"})
        tracing = bool(parsed[TRACING_ATTRIBUTES])
        return cls(
            serializer=str(parsed[SERIALIZER_TYPE]).lower(),
            data_serializer=str(parsed[DATA_SERIALIZER_TYPE]).lower(),
            tracing=tracing,
            extensions=bool(parsed[EXTENSION_ATTRIBUTES]),
            schema_name_adjustment=str(parsed[SCHEMA_NAME_ADJUSTMENT_MODE]).lower(),
            schema_name=parsed[SCHEMA_CLOUDEVENTS_NAME],
            sources=resolve_metadata_sources(
                parsed[METADATA_SOURCE], tracing=tracing, data_name_from_header=bool(parsed[DATA_NAME_FROM_HEADER])
            ),
            json=_subset(configs, JSON_PREFIX),
            avro=_subset(configs, AVRO_PREFIX),
        )


def _subset(configs: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    return {k[len(prefix) :]: v for k, v in configs.items() if k.startswith(prefix) and v is not None}
