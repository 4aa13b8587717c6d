"""AvroConverter: io.confluent.connect.avro.AvroConverter on fastavro and a Confluent-API schema registry.

Wire format: byte 0 = 0 (magic), bytes 1-4 = the schema id (big-endian), then the Avro binary datum (a top-level
non-optional `bytes` schema writes the raw bytes, as Confluent's serializer does). Schemas map as Confluent's
AvroData maps them (converters/avro_schema.py), values likewise (converters/avro_data.py).

The hot path is a dict lookup per record: Connect schema → compiled plan (Avro schema text, fastavro schema,
datum writer), (plan, subject) → the 5-byte header. A miss on the subject raises `PendingIO`: the worker runs the
registry call on a thread and converts the record again, so the event loop never waits on the registry.

Registry calls: `auto.register.schemas=true` registers (POST /subjects/{s}/versions); false looks the schema up
(POST /subjects/{s}); `use.latest.version=true` takes the subject's latest version (with
`latest.compatibility.strict`, only when it is the schema of the record; otherwise the record is written with the
latest schema, by field name). Unreachable registry → RetriableError naming the URLs; 409 → DataError naming the
subject with the registry's reason.
"""

from __future__ import annotations

import functools
import io
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Final

import fastavro
from fastavro.schema import to_parsing_canonical_form

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.converter import Converter, PendingIO
from connect_worker.api.errors import ConfigError, DataError, RetriableError
from connect_worker.api.record import Header, SchemaAndValue
from connect_worker.api.schema import Schema
from converters.avro_data import datum_writer, value_reader
from converters.avro_encoder import CALL, AvroEncoder, compile_plan
from converters.avro_schema import AvroDataOptions, from_connect
from converters.avro_schema_read import to_connect
from converters.avro_text import schema_text
from converters.schema_registry import (
    RegistryError,
    RegistryUnavailable,
    SchemaRegistryClient,
    settings_from_config,
)

CONFLUENT_VERSION: Final = "8.3.1"  # the Confluent release whose AvroData/AvroConverter this follows
MAGIC: Final = b"\x00"

_STRATEGY_PACKAGE: Final = "io.confluent.kafka.serializers.subject."
TOPIC_NAME_STRATEGY: Final = _STRATEGY_PACKAGE + "TopicNameStrategy"
RECORD_NAME_STRATEGY: Final = _STRATEGY_PACKAGE + "RecordNameStrategy"
TOPIC_RECORD_NAME_STRATEGY: Final = _STRATEGY_PACKAGE + "TopicRecordNameStrategy"
_STRATEGIES: Final = (TOPIC_NAME_STRATEGY, RECORD_NAME_STRATEGY, TOPIC_RECORD_NAME_STRATEGY)

#: Confluent serializer keys that select behaviour this converter does not have: refused when set.
_REFUSED: Final = {
    "use.schema.id": "-1",
    "use.schema.guid": "",
    "use.latest.with.metadata": "",
    "schema.reflection": "false",
    "schema.backup.enabled": "false",
    "rule.executors": "",
    "rule.actions": "",
    "key.schema.id.serializer": "",
    "value.schema.id.serializer": "",
    "proxy.host": "",
    "proxy.port": "-1",
}


def _bool(configs: Mapping[str, Any], key: str, default: bool) -> bool:
    raw = configs.get(key, default)
    if isinstance(raw, bool):
        return raw
    text = str(raw).strip().lower()
    if text not in ("true", "false"):
        raise ConfigError(f"Invalid value {raw} for configuration {key}: Expected value to be either true or false")
    return text == "true"


def _int(configs: Mapping[str, Any], key: str, default: int) -> int:
    raw = configs.get(key, default)
    try:
        return int(raw)
    except (TypeError, ValueError):
        raise ConfigError(f"Invalid value {raw} for configuration {key}: Not a number of type INT") from None


def _keys() -> list[ConfigKey]:
    def key(
        name: str, type_: ConfigType, default: Any, doc: str, importance: Importance = Importance.MEDIUM
    ) -> ConfigKey:
        return ConfigKey(name, type_, default, importance=importance, documentation=doc)

    return [
        key(
            "schema.registry.url",
            ConfigType.LIST,
            None,
            "Comma-separated list of schema registry URLs.",
            Importance.HIGH,
        ),
        key("auto.register.schemas", ConfigType.BOOLEAN, True, "Register new schemas under the subject."),
        key("use.latest.version", ConfigType.BOOLEAN, False, "Write with the subject's latest schema."),
        key("latest.compatibility.strict", ConfigType.BOOLEAN, True, "With use.latest.version: the latest must fit."),
        key("key.subject.name.strategy", ConfigType.CLASS, TOPIC_NAME_STRATEGY, "Subject naming of keys."),
        key("value.subject.name.strategy", ConfigType.CLASS, TOPIC_NAME_STRATEGY, "Subject naming of values."),
        key("basic.auth.credentials.source", ConfigType.STRING, "URL", "URL or USER_INFO."),
        key("basic.auth.user.info", ConfigType.PASSWORD, "", "user:password for USER_INFO."),
        key("normalize.schemas", ConfigType.BOOLEAN, False, "Ask the registry to normalize schemas."),
        key("max.schemas.per.subject", ConfigType.INT, 1000, "Schemas one subject may take (then an error)."),
        key("schemas.cache.config", ConfigType.INT, 1000, "Connect schemas whose Avro form is cached."),
        key("connect.meta.data", ConfigType.BOOLEAN, True, "Write connect.* properties into Avro schemas."),
        key("enhanced.avro.schema.support", ConfigType.BOOLEAN, False, "Enum symbols and package names kept."),
        key("scrub.invalid.names", ConfigType.BOOLEAN, False, "Replace characters Avro names cannot hold."),
        key("allow.optional.map.keys", ConfigType.BOOLEAN, False, "Optional string map keys as Avro maps."),
        key("flatten.singleton.unions", ConfigType.BOOLEAN, True, "A one-member union reads as its member."),
        key("discard.type.doc.default", ConfigType.BOOLEAN, False, "Only field doc and default kept."),
        key("generalized.sum.type.support", ConfigType.BOOLEAN, False, "Connect enum/union parameter names."),
        key("ignore.default.for.nullables", ConfigType.BOOLEAN, False, "Null stays null in nullable fields."),
        key("avro.use.logical.type.converters", ConfigType.BOOLEAN, False, "Logical type conversions in Avro."),
    ]


CONFIG_DEF: Final = ConfigDef(_keys())


def avro_options(configs: Mapping[str, Any]) -> AvroDataOptions:
    return AvroDataOptions(
        connect_meta_data=_bool(configs, "connect.meta.data", True),
        enhanced_schema_support=_bool(configs, "enhanced.avro.schema.support", False),
        scrub_invalid_names=_bool(configs, "scrub.invalid.names", False),
        allow_optional_map_keys=_bool(configs, "allow.optional.map.keys", False),
        flatten_singleton_unions=_bool(configs, "flatten.singleton.unions", True),
        discard_type_doc_default=_bool(configs, "discard.type.doc.default", False),
        generalized_sum_type_support=_bool(configs, "generalized.sum.type.support", False),
        ignore_default_for_nullables=_bool(configs, "ignore.default.for.nullables", False),
    )


def _strategy(configs: Mapping[str, Any], key: str) -> str:
    raw = str(configs.get(key, TOPIC_NAME_STRATEGY)).strip()
    full = raw if "." in raw else _STRATEGY_PACKAGE + raw
    if full not in _STRATEGIES:
        raise ConfigError(f"Invalid value {raw} for configuration {key}: one of {', '.join(_STRATEGIES)}")
    return full


def _strip_logical(avro: Any) -> Any:
    """The schema with logicalType removed everywhere: fastavro then reads the raw int/long/bytes forms."""
    if isinstance(avro, dict):
        return {k: _strip_logical(v) for k, v in avro.items() if k != "logicalType"}
    if isinstance(avro, list):
        return [_strip_logical(v) for v in avro]
    return avro


@dataclass
class _Plan:
    """Everything about one Connect schema's Avro form."""

    schema: Schema
    options: AvroDataOptions
    text: str  # the schema as registered (Java's compact JSON)
    parsed: Any  # fastavro's parsed schema
    record_name: str  # Avro full name, for RecordNameStrategy (the type name for non-named schemas)
    raw_bytes: bool  # a non-optional bytes schema: the payload is the bytes themselves
    encoder: AvroEncoder
    # topic -> (header, schema written with): the subject follows from the topic (and this plan), so the hot path
    # looks up by topic and never builds the subject name
    writers: dict[str, tuple[bytes, Any]] = field(default_factory=dict)

    # only for writing with a subject's later schema (use.latest.version, not strict): made when first needed
    @functools.cached_property
    def datum(self) -> Callable[[Any], Any]:
        return datum_writer(self.schema, self.options)

    @functools.cached_property
    def canonical(self) -> str:
        return str(to_parsing_canonical_form(self.parsed))


@dataclass
class _Reader:
    schema: Schema
    parsed: Any
    read: Callable[[Any], Any]
    raw_bytes: bool


class AvroConverter(Converter):
    """Connect data as Confluent-framed Avro, schemas in a Confluent-API schema registry."""

    class_name = "io.confluent.connect.avro.AvroConverter"
    aliases: ClassVar[tuple[str, ...]] = ("AvroConverter",)
    plugin_version = CONFLUENT_VERSION
    #: toConnectData gives the schema its subject version (Confluent's deserializer does; Apicurio's converter not)
    reads_subject_version: ClassVar[bool] = True

    def __init__(self) -> None:
        self._client: SchemaRegistryClient | None = None
        self._is_key = False
        self._options = AvroDataOptions()
        self._plans: dict[Schema, _Plan] = {}
        self._last: tuple[Schema, _Plan] | None = None
        self._readers: dict[int, _Reader] = {}
        self._cache_size = 1000
        self._max_per_subject = 1000
        self._per_subject: dict[str, set[str]] = {}  # schema texts resolved per subject (max.schemas.per.subject)
        self._auto_register = True
        self._use_latest = False
        self._latest_strict = True
        self._strategy = TOPIC_NAME_STRATEGY
        self._suffix = "-value"

    @classmethod
    def config_def(cls) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool) -> None:
        for key, default in _REFUSED.items():
            if key in configs and str(configs[key]).strip() not in (default, ""):
                raise ConfigError(f"{key} is not supported by this AvroConverter (Confluent's serializer option)")
        self._is_key = is_key
        self._suffix = "-key" if is_key else "-value"
        self._client = SchemaRegistryClient(settings_from_config(configs))
        self._options = avro_options(configs)
        self._cache_size = max(1, _int(configs, "schemas.cache.config", 1000))
        self._max_per_subject = _int(configs, "max.schemas.per.subject", 1000)
        self._auto_register = _bool(configs, "auto.register.schemas", True)
        self._use_latest = _bool(configs, "use.latest.version", False)
        self._latest_strict = _bool(configs, "latest.compatibility.strict", True)
        _bool(configs, "avro.use.logical.type.converters", False)  # no effect on Connect data: values arrive raw
        self._strategy = _strategy(configs, "key.subject.name.strategy" if is_key else "value.subject.name.strategy")

    @property
    def client(self) -> SchemaRegistryClient:
        if self._client is None:
            raise ConfigError("AvroConverter used before configure()")
        return self._client

    # -- Connect -> bytes -------------------------------------------------------------------------------
    def plan(self, schema: Schema) -> _Plan:
        last = self._last
        if last is not None and last[0] is schema:
            return last[1]
        plan = self._plans.get(schema)
        if plan is None:
            plan = self._compile(schema)
            if len(self._plans) >= self._cache_size:
                self._plans.clear()
            self._plans[schema] = plan
        self._last = (schema, plan)
        return plan

    def _compile(self, schema: Schema) -> _Plan:
        try:
            avro = from_connect(schema, self._options)
            # written without logical types: the datums are already in their raw forms (and Java's Avro, unlike
            # fastavro, ignores an invalid one, such as AvroData's legacy decimal whose scale exceeds its precision)
            parsed = fastavro.parse_schema(_strip_logical(avro), _ignore_default_error=True)
        except DataError:
            raise
        except Exception as e:
            raise DataError(f"Connect schema {schema.name or schema.type.name} has no Avro form: {e}") from e
        text = schema_text(avro)  # the text Java's Schema.toString writes
        if isinstance(avro, dict) and avro.get("type") in ("record", "enum", "fixed"):
            record_name = str(parsed["name"])  # type: ignore[index, call-overload]
        elif isinstance(avro, list):
            record_name = "union"
        else:
            record_name = avro if isinstance(avro, str) else str(avro["type"])
        raw_bytes = avro == "bytes" or (isinstance(avro, dict) and avro.get("type") == "bytes" and not schema.optional)
        encoder = AvroEncoder(compile_plan(schema, self._options))
        return _Plan(schema, self._options, text, parsed, record_name, raw_bytes, encoder)

    def subject(self, topic: str, plan: _Plan) -> str:
        if self._strategy == TOPIC_NAME_STRATEGY:
            return topic + self._suffix
        if self._strategy == RECORD_NAME_STRATEGY:
            return plan.record_name
        return f"{topic}-{plan.record_name}"

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: tuple[Header, ...] = ()
    ) -> bytes | None:
        if value is None:
            if schema is not None and not schema.optional:  # AvroData.fromConnectData refuses it
                raise DataError(f"Found null value for non-optional schema (topic {topic})")
            return None
        if schema is None:
            raise DataError(f"Schemaless values cannot be written as Avro by this converter (topic {topic})")
        plan = self.plan(schema)
        writer = plan.writers.get(topic)
        if writer is None:
            subject = self.subject(topic, plan)
            raise PendingIO(lambda: self._resolve(topic, subject, plan), f"schema id for subject {subject}")
        header, parsed = writer
        if parsed is plan.parsed:  # the record's own schema: the compiled encoder
            if plan.raw_bytes:
                node = plan.encoder.plan
                raw = node[1](value) if node[0] == CALL else value
                if not isinstance(raw, (bytes, bytearray, memoryview)):
                    raise DataError(f"Invalid type for BYTES: {type(raw).__name__}")
                return header + bytes(raw)
            return plan.encoder.encode(value, header)
        datum = plan.datum(value)  # the subject's latest schema (use.latest.version, not strict): by field name
        out = io.BytesIO()
        out.write(header)
        try:
            fastavro.schemaless_writer(out, parsed, datum)
        except (ValueError, TypeError, AttributeError, KeyError) as e:
            raise DataError(f"Failed to serialize Avro data from topic {topic}: {e}") from e
        return out.getvalue()

    def _resolve(self, topic: str, subject: str, plan: _Plan) -> None:
        """The registry call for a (schema, subject) not seen yet; caches the header to write with."""
        client = self.client
        known = self._per_subject.setdefault(subject, set())
        if plan.text not in known and len(known) >= self._max_per_subject:  # CachedSchemaRegistryClient's limit
            raise DataError(
                f"Failed to serialize Avro data from topic {topic}: Too many schema objects created for {subject}!"
            )
        try:
            parsed = plan.parsed
            if self._auto_register:
                schema_id = client.register(subject, plan.text)
            elif self._use_latest:
                schema_id, _, text = client.latest(subject)
                latest = fastavro.parse_schema(_strip_logical(json.loads(text)), _ignore_default_error=True)
                if to_parsing_canonical_form(latest) != plan.canonical:
                    if self._latest_strict:
                        raise DataError(
                            f"Failed to serialize Avro data from topic {topic}: the latest schema of subject "
                            f'"{subject}" (id {schema_id}) is not the schema of this record, and '
                            "latest.compatibility.strict=true"
                        )
                    parsed = latest
            else:
                schema_id, _ = client.lookup(subject, plan.text)
        except RegistryUnavailable as e:
            raise RetriableError(f"Failed to serialize Avro data from topic {topic}: {e}") from e
        except RegistryError as e:
            if e.status == 409:
                raise DataError(
                    f'Schema being registered is incompatible with an earlier schema for subject "{subject}": '
                    f"{e.message} (registry {e.url})"
                ) from e
            what = "registering" if self._auto_register else "retrieving"
            raise DataError(f'Error {what} Avro schema for subject "{subject}" (topic {topic}): {e}') from e
        plan.writers[topic] = (MAGIC + schema_id.to_bytes(4, "big"), parsed)
        known.add(plan.text)

    # -- bytes -> Connect -------------------------------------------------------------------------------
    def to_connect_data(self, topic: str, data: bytes | None) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(None, None)
        if len(data) < 5 or data[0] != 0:
            raise DataError(f"Failed to deserialize data for topic {topic} to Avro: Unknown magic byte!")
        schema_id = int.from_bytes(data[1:5], "big")
        reader = self._readers.get(schema_id)
        if reader is None:
            reader = self._reader(topic, schema_id)
        body = memoryview(data)[5:]
        if reader.raw_bytes:  # a top-level bytes schema: the bytes themselves (a Decimal's unscaled bytes)
            return SchemaAndValue(reader.schema, reader.read(bytes(body)))
        try:
            datum = fastavro.schemaless_reader(io.BytesIO(body), reader.parsed, None, return_record_name=True)
        except Exception as e:
            raise DataError(f"Failed to deserialize data for topic {topic} to Avro: {e}") from e
        return SchemaAndValue(reader.schema, None if datum is None else reader.read(datum))

    def _reader(self, topic: str, schema_id: int) -> _Reader:
        client = self.client
        try:
            text = client.schema_by_id(schema_id)
        except RegistryUnavailable as e:
            raise RetriableError(f"Failed to deserialize data for topic {topic} to Avro: {e}") from e
        except RegistryError as e:
            raise DataError(f"Failed to deserialize data for topic {topic} to Avro: schema id {schema_id}: {e}") from e
        version: int | None = None
        if self.reads_subject_version:
            try:  # the deserializer asks for the version whatever connect.meta.data says
                subject = topic + self._suffix
                _, version = client.lookup(subject, text)
            except (RegistryError, RegistryUnavailable):
                version = None  # a subject of another naming strategy: no version to attach
        try:
            avro = json.loads(text)
            schema = to_connect(avro, self._options, version)
            parsed = fastavro.parse_schema(_strip_logical(avro), _ignore_default_error=True)
        except DataError as e:
            raise DataError(f"Failed to deserialize data for topic {topic} to Avro: schema id {schema_id}: {e}") from e
        except Exception as e:  # fastavro refuses it (avro_text: a namespace-less type referred to in a namespace)
            raise DataError(
                f"Failed to deserialize data for topic {topic} to Avro: schema id {schema_id}: {e!r}"
            ) from e
        raw = avro == "bytes" or (isinstance(avro, dict) and avro.get("type") == "bytes")
        reader = _Reader(schema, parsed, value_reader(schema), raw)
        if len(self._readers) >= self._cache_size:
            self._readers.clear()
        self._readers[schema_id] = reader
        return reader


def convert_blocking(converter: Converter, topic: str, schema: Schema | None, value: Any) -> bytes | None:
    """from_connect_data for a caller outside the worker: runs any pending registry call inline."""
    for _ in range(3):
        try:
            return converter.from_connect_data(topic, schema, value)
        except PendingIO as pending:
            pending.work()
    return converter.from_connect_data(topic, schema, value)
