"""ByteArrayConverter: org.apache.kafka.connect.converters.ByteArrayConverter (bytes pass through)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from connect_worker.api.config import ConfigDef
from connect_worker.api.converter import Converter, HeaderConverter
from connect_worker.api.errors import DataError
from connect_worker.api.record import Header, SchemaAndValue
from connect_worker.api.schema import OPTIONAL_BYTES_SCHEMA, Schema, Type
from converters import KAFKA_VERSION
from converters.converter_config import CONVERTER_TYPE_KEY

# Kafka's ConverterConfig: only converter.type (the bytes need no settings).
CONFIG_DEF: Final = ConfigDef([CONVERTER_TYPE_KEY])


class ByteArrayConverter(Converter, HeaderConverter):
    """Passes bytes through unchanged; anything but BYTES schemas / bytes values is a DataError."""

    class_name = "org.apache.kafka.connect.converters.ByteArrayConverter"
    aliases = ("ByteArrayConverter",)
    plugin_version = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        pass

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: tuple[Header, ...] = ()
    ) -> bytes | None:
        if schema is not None and schema.type is not Type.BYTES:
            raise DataError(f"Invalid schema type for ByteArrayConverter: {schema.type.name}")
        if value is None:
            return None
        if isinstance(value, bytes):
            return value
        if isinstance(value, (bytearray, memoryview)):
            return bytes(value)
        raise DataError(f"ByteArrayConverter is not compatible with objects of type {type(value)}")

    def to_connect_data(self, topic: str, data: bytes | None) -> SchemaAndValue:
        return SchemaAndValue(OPTIONAL_BYTES_SCHEMA, data)

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)
