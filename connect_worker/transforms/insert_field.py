"""InsertField: add record metadata or a static value as fields (…transforms.InsertField$Key / $Value).

A field name ending in `!` makes the inserted field required, `?` (the default) optional.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.errors import DataError
from connect_worker.api.record import SourceRecord
from connect_worker.api.schema import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.api.transform import Transformation
from connect_worker.transforms._util import (
    KAFKA_TRANSFORMS,
    KAFKA_VERSION,
    SchemaCache,
    Side,
    field_value,
    from_epoch_millis,
    new_record,
    operating_schema,
    operating_value,
    require_map,
    require_struct,
    struct_like,
)

_PURPOSE = "field insertion"


def _spec_doc(what: str) -> str:
    return (
        f"Field name for {what}. Suffix with ! to make it a required field, or ? to keep it optional "
        "(the default). Empty to leave it out."
    )


_CONFIG = ConfigDef(
    [
        ConfigKey("topic.field", ConfigType.STRING, None, documentation=_spec_doc("the Kafka topic")),
        ConfigKey("partition.field", ConfigType.STRING, None, documentation=_spec_doc("the Kafka partition")),
        ConfigKey(
            "offset.field",
            ConfigType.STRING,
            None,
            documentation=_spec_doc("the Kafka offset (only known for sink records)"),
        ),
        ConfigKey("timestamp.field", ConfigType.STRING, None, documentation=_spec_doc("the record timestamp")),
        ConfigKey("static.field", ConfigType.STRING, None, documentation=_spec_doc("a static value")),
        ConfigKey(
            "static.value",
            ConfigType.STRING,
            None,
            importance=Importance.MEDIUM,
            documentation="The static value written into static.field.",
        ),
        ConfigKey(
            "replace.null.with.default",
            ConfigType.BOOLEAN,
            True,
            importance=Importance.MEDIUM,
            documentation="Copy a null field that has a default value as that default.",
        ),
    ]
)


@dataclass(frozen=True, slots=True)
class InsertionSpec:
    name: str
    optional: bool

    @classmethod
    def parse(cls, spec: str | None) -> InsertionSpec | None:
        if not spec:
            return None
        if spec.endswith("?"):
            return cls(spec[:-1], True)
        if spec.endswith("!"):
            return cls(spec[:-1], False)
        return cls(spec, True)


class InsertField(Transformation):
    """Inserts topic, partition, offset, timestamp and/or a static value into a Struct or a map."""

    side: ClassVar[Side]
    plugin_version: ClassVar[str] = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return _CONFIG

    def configure(self, configs: Mapping[str, Any]) -> None:
        cfg = _CONFIG.parse(configs)
        self._topic = InsertionSpec.parse(cfg["topic.field"])
        self._partition = InsertionSpec.parse(cfg["partition.field"])
        self._offset = InsertionSpec.parse(cfg["offset.field"])
        self._timestamp = InsertionSpec.parse(cfg["timestamp.field"])
        self._static = InsertionSpec.parse(cfg["static.field"])
        self._static_value: str | None = cfg["static.value"]
        self._replace_null: bool = cfg["replace.null.with.default"]
        self._cache: SchemaCache[Schema, Schema] = SchemaCache()

    def apply(self, record: SourceRecord) -> SourceRecord:
        value = operating_value(record, self.side)
        if value is None:
            return record
        if self._offset is not None:
            raise DataError("Offset insertion is only supported for sink connectors, record is of type: SourceRecord")
        schema = operating_schema(record, self.side)
        if schema is None:
            return self._apply_schemaless(record, value)
        return self._apply_with_schema(record, schema, value)

    def _apply_schemaless(self, record: SourceRecord, value: Any) -> SourceRecord:
        updated = dict(require_map(value, _PURPOSE))
        if self._topic is not None:
            updated[self._topic.name] = record.topic
        if self._partition is not None:
            updated[self._partition.name] = record.kafka_partition
        if self._timestamp is not None:
            updated[self._timestamp.name] = record.timestamp
        if self._static is not None:
            updated[self._static.name] = self._static_value
        return new_record(record, self.side, None, updated)

    def _apply_with_schema(self, record: SourceRecord, schema: Schema, value: Any) -> SourceRecord:
        struct = require_struct(value, _PURPOSE)
        updated_schema = self._cache.get(struct.schema, self._updated_schema)
        values = [field_value(struct, i, self._replace_null) for i in range(len(struct.values))]
        if self._topic is not None:
            values.append(record.topic)
        if self._partition is not None:
            values.append(record.kafka_partition)
        if self._timestamp is not None:
            values.append(None if record.timestamp is None else from_epoch_millis(record.timestamp))
        if self._static is not None:
            values.append(self._static_value)
        return new_record(record, self.side, updated_schema, Struct.of(updated_schema, values))

    def _updated_schema(self, schema: Schema) -> Schema:
        fields = [(f.name, f.schema) for f in schema.fields]
        if self._topic is not None:
            fields.append((self._topic.name, OPTIONAL_STRING_SCHEMA if self._topic.optional else STRING_SCHEMA))
        if self._partition is not None:
            opt = self._partition.optional
            fields.append((self._partition.name, OPTIONAL_INT32_SCHEMA if opt else INT32_SCHEMA))
        if self._offset is not None:  # pragma: no cover - rejected for source records before this point
            opt = self._offset.optional
            fields.append((self._offset.name, OPTIONAL_INT64_SCHEMA if opt else INT64_SCHEMA))
        if self._timestamp is not None:
            fields.append((self._timestamp.name, timestamp_schema(optional=self._timestamp.optional)))
        if self._static is not None:
            fields.append((self._static.name, OPTIONAL_STRING_SCHEMA if self._static.optional else STRING_SCHEMA))
        return struct_like(schema, fields)


class InsertFieldKey(InsertField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "InsertField$Key"
    side: ClassVar[Side] = Side.KEY


class InsertFieldValue(InsertField):
    class_name: ClassVar[str] = KAFKA_TRANSFORMS + "InsertField$Value"
    side: ClassVar[Side] = Side.VALUE
