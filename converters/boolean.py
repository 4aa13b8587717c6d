"""BooleanConverter: org.apache.kafka.connect.converters.BooleanConverter (one byte, 1 for true, 0 for false).

Unlike the number converters it checks the schema it is given (before the value, so even for a null value)
and reads any byte but 0 and 1 as an error. Null stays null both ways.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from connect_worker.api.config import ConfigDef
from connect_worker.api.converter import Converter, HeaderConverter
from connect_worker.api.errors import DataError
from connect_worker.api.record import Header, SchemaAndValue
from connect_worker.api.schema import OPTIONAL_BOOLEAN_SCHEMA, Schema, Type
from converters import KAFKA_VERSION
from converters.numbers import CONFIG_DEF, SerializationError, check_config, java_class_name

_TRUE: Final = b"\x01"
_FALSE: Final = b"\x00"


class BooleanConverter(Converter, HeaderConverter):
    """Writes a bool as one byte; reads one byte back as an optional BOOLEAN."""

    class_name = "org.apache.kafka.connect.converters.BooleanConverter"
    aliases = ("BooleanConverter",)
    plugin_version = KAFKA_VERSION

    @classmethod
    def config_def(cls) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        check_config(configs, is_key)

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: tuple[Header, ...] = ()
    ) -> bytes | None:
        if schema is not None and schema.type is not Type.BOOLEAN:
            raise DataError(f"Invalid schema type for BooleanConverter: {schema.type.name}")
        if value is None:
            return None
        if not isinstance(value, bool):
            raise DataError(
                f"BooleanConverter is not compatible with objects of type class {java_class_name(schema, value)}"
            )
        return _TRUE if value else _FALSE

    def to_connect_data(self, topic: str, data: bytes | None) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(OPTIONAL_BOOLEAN_SCHEMA, None)
        if len(data) != 1:
            cause = SerializationError("Size of data received by BooleanDeserializer is not 1")
        elif data[0] > 1:
            signed = data[0] - 256 if data[0] > 127 else data[0]  # Java prints the byte signed
            cause = SerializationError(f"Unexpected byte received by BooleanDeserializer: {signed}")
        else:
            return SchemaAndValue(OPTIONAL_BOOLEAN_SCHEMA, data[0] == 1)
        raise DataError("Failed to deserialize boolean: ") from cause

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)
