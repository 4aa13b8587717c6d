"""ByLogicalTableRouter: send several physical tables to one topic (io.debezium.transforms.ByLogicalTableRouter).

The topic is renamed with a Java regex/replacement; the key, value and envelope schemas are renamed after the
new topic (`<topic>.Key`, `<topic>.Value`, `<topic>.Envelope`) and, with key.enforce.uniqueness, the key gains
a field naming the physical table (the original topic, or its key.field.regex/replacement rewrite).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, Width, at_least, one_of
from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex import Replacement, java_regex, regex_validator
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import STRING_SCHEMA, Schema, Type
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import DEBEZIUM_VERSION, SchemaCache, require_struct
from connect_worker.transforms.debezium._envelope import (
    AFTER,
    BEFORE,
    envelope_schema_name,
    is_envelope_record,
)

_PURPOSE = "Updating schema"

# Types, widths, labels and order as Debezium 3.6.3's ByLogicalTableRouter.config() declares them (no group, each
# numbered 1); key.field.name and schema.name.adjustment.mode are read but not listed there (internal here).
_CONFIG = ConfigDef(
    [
        ConfigKey(
            "topic.regex",
            ConfigType.STRING,
            None,
            validator=regex_validator,
            importance=Importance.LOW,
            documentation="Java regex the original topic name must fully match; its groups feed topic.replacement.",
            order_in_group=1,
            width=Width.LONG,
            display_name="Topic regex",
        ),
        ConfigKey(
            "topic.replacement",
            ConfigType.STRING,
            None,
            importance=Importance.LOW,
            documentation="Name of the logical table's topic; $1… refer to topic.regex groups.",
            order_in_group=1,
            width=Width.LONG,
            display_name="Topic replacement",
        ),
        ConfigKey(
            "key.enforce.uniqueness",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.LOW,
            documentation="Add a key field naming the physical table, so rows of different tables with the "
            "same primary key stay distinct. Turn off only when keys are unique across the tables.",
            order_in_group=1,
            width=Width.SHORT,
            display_name="Add source topic name into key",
        ),
        ConfigKey(
            "key.field.regex",
            ConfigType.STRING,
            None,
            validator=regex_validator,
            importance=Importance.LOW,
            documentation="Java regex on the original topic that derives the physical table identifier; "
            "without it the identifier is the original topic name.",
            order_in_group=1,
            width=Width.LONG,
            display_name="Key field regex",
        ),
        ConfigKey(
            "key.field.name",
            ConfigType.STRING,
            "__dbz__physicalTableIdentifier",
            importance=Importance.LOW,
            documentation="Name of the key field that holds the physical table identifier.",
            internal=True,
        ),
        ConfigKey(
            "key.field.replacement",
            ConfigType.STRING,
            None,
            importance=Importance.LOW,
            documentation="Replacement used with key.field.regex to build the identifier; required when "
            "key.field.regex is set.",
            order_in_group=1,
            width=Width.LONG,
            display_name="Key field replacement",
        ),
        ConfigKey(
            "schema.name.adjustment.mode",
            ConfigType.STRING,
            "none",
            validator=one_of("none", "avro", "avro_unicode", case_sensitive=False),
            importance=Importance.LOW,
            documentation="How schema names derived from the new topic are made converter-safe: none, avro "
            "(invalid characters become _) or avro_unicode (they become _uXXXX).",
            internal=True,
        ),
        ConfigKey(
            "logical.table.cache.size",
            ConfigType.INT,
            16,
            validator=at_least(1),
            importance=Importance.LOW,
            documentation="Entries kept in each of the caches of derived schemas and topic names.",
            order_in_group=1,
            width=Width.LONG,
            display_name="Logical table cache size",
        ),
    ]
)


def _avro_char_ok(c: str, first: bool) -> bool:
    if c == "_" or ("a" <= c <= "z") or ("A" <= c <= "Z"):
        return True
    return not first and (c == "." or "0" <= c <= "9")


def schema_name_adjuster(mode: str) -> Callable[[str], str]:
    """Debezium's SchemaNameAdjuster for the given schema.name.adjustment.mode."""
    mode = mode.lower()
    if mode == "none":
        return lambda name: name

    def adjust(name: str) -> str:
        out: list[str] = []
        for i, c in enumerate(name):
            if _avro_char_ok(c, i == 0):
                out.append(c)
            elif mode == "avro_unicode":
                out.append(f"_u{ord(c):04x}")
            else:
                out.append("_")
        return "".join(out)

    return adjust


def _rename(source: Schema, name: str, fields: list[tuple[str, Schema]] | None = None) -> Schema:
    return Schema(
        Type.STRUCT,
        name=name,
        version=source.version,
        doc=source.doc,
        parameters=source.parameters,
        optional=source.optional,
        fields=fields if fields is not None else [(f.name, f.schema) for f in source.fields],
    )


class ByLogicalTableRouter(Transformation):
    """Routes change events of sharded/partitioned physical tables to one logical-table topic."""

    class_name: ClassVar[str] = "io.debezium.transforms.ByLogicalTableRouter"
    plugin_version: ClassVar[str] = DEBEZIUM_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        for name in ("topic.regex", "topic.replacement"):  # optional in the ConfigDef (as Debezium's), needed here
            if cfg[name] is None:
                raise ConfigError(f'Missing required configuration "{name}" which has no default value.', name=name)
        self._topic_regex = java_regex(cfg["topic.regex"])
        self._topic_replacement = Replacement(self._topic_regex, cfg["topic.replacement"])
        key_regex: str | None = cfg["key.field.regex"]
        self._key_regex = None
        self._key_replacement: Replacement | None = None
        if key_regex is not None and key_regex.strip():
            replacement: str | None = cfg["key.field.replacement"]
            if replacement is None or not replacement.strip():
                raise ConfigError(
                    "key.field.replacement must be non-empty if key.field.regex is set.", name="key.field.replacement"
                )
            self._key_regex = java_regex(key_regex)
            self._key_replacement = Replacement(self._key_regex, replacement)
        self._enforce_uniqueness: bool = cfg["key.enforce.uniqueness"]
        self._key_field: str = cfg["key.field.name"]
        self._adjust = schema_name_adjuster(cfg["schema.name.adjustment.mode"])
        size: int = cfg["logical.table.cache.size"]
        self._topics: SchemaCache[str, str | None] = SchemaCache(size)
        self._identifiers: SchemaCache[str, str] = SchemaCache(size)
        self._key_schemas: SchemaCache[tuple[Schema, str], Schema] = SchemaCache(size)
        self._envelope_schemas: SchemaCache[tuple[Schema, str], Schema] = SchemaCache(size)

    def _new_topic(self, topic: str) -> str | None:
        if self._topic_regex.fullmatch(topic) is None:
            return None
        return self._topic_replacement.replace_first(self._topic_regex, topic)

    def _identifier(self, topic: str) -> str:
        if self._key_regex is None or self._key_replacement is None:
            return topic
        if self._key_regex.fullmatch(topic) is None:
            return topic
        return self._key_replacement.replace_first(self._key_regex, topic)

    def apply(self, record: SourceRecord) -> SourceRecord:
        old_topic = record.topic
        new_topic = self._topics.get(old_topic, self._new_topic)
        if not new_topic:
            return record
        key_schema: Schema | None = None
        key: Struct | None = None
        if record.key is not None:
            old_key = require_struct(record.key, _PURPOSE)
            key_schema = self._key_schemas.get((old_key.schema, new_topic), self._updated_key_schema)
            values = list(old_key.values)
            if self._enforce_uniqueness:
                values.append(self._identifiers.get(old_topic, self._identifier))
            key = Struct.of(key_schema, values)
        if record.value is None or not is_envelope_record(record):
            return record.with_(topic=new_topic, key_schema=key_schema, key=key)
        envelope = require_struct(record.value, _PURPOSE)
        env_schema = self._envelope_schemas.get((envelope.schema, new_topic), self._updated_envelope_schema)
        new_values: list[Any] = []
        for f, v in zip(envelope.schema.fields, envelope.values, strict=True):
            if f.name in (BEFORE, AFTER) and isinstance(v, Struct):
                v = Struct.of(env_schema.fields[f.index].schema, v.values)
            new_values.append(v)
        return record.with_(
            topic=new_topic,
            key_schema=key_schema,
            key=key,
            value_schema=env_schema,
            value=Struct.of(env_schema, new_values),
        )

    def _updated_key_schema(self, cache_key: tuple[Schema, str]) -> Schema:
        old, topic = cache_key
        fields = [(f.name, f.schema) for f in old.fields]
        if self._enforce_uniqueness:
            fields.append((self._key_field, STRING_SCHEMA))
        return _rename(old, self._adjust(topic + ".Key"), fields)

    def _updated_envelope_schema(self, cache_key: tuple[Schema, str]) -> Schema:
        old, topic = cache_key
        before = old.field(BEFORE)
        if before is None:
            return old
        row = _rename(before.schema, self._adjust(topic + ".Value"))
        fields = [(f.name, row if f.name in (BEFORE, AFTER) else f.schema) for f in old.fields]
        return _rename(old, self._adjust(envelope_schema_name(topic)), fields)
