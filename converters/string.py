"""StringConverter: org.apache.kafka.connect.storage.StringConverter (keys, values or headers as text)."""

from __future__ import annotations

import codecs
from collections.abc import Mapping
from typing import Any, Final

from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, Width, invalid
from connect_worker.api.converter import Converter, HeaderConverter
from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import java_double_to_string
from connect_worker.api.record import Header, SchemaAndValue
from connect_worker.api.schema import OPTIONAL_STRING_SCHEMA, Schema
from converters import KAFKA_VERSION
from converters.converter_config import CONVERTER_TYPE, CONVERTER_TYPE_KEY

ENCODING: Final = "converter.encoding"


def _valid_encoding(name: str, value: Any) -> None:
    try:
        codecs.lookup(str(value))
    except LookupError:
        raise invalid(name, value, f"Unsupported encoding {value}") from None


CONFIG_DEF: Final = ConfigDef(
    [
        CONVERTER_TYPE_KEY,
        ConfigKey(
            ENCODING,
            ConfigType.STRING,
            "UTF-8",
            validator=_valid_encoding,
            importance=Importance.HIGH,
            documentation="The name of the Java character set to use for encoding strings as byte arrays.",
            width=Width.MEDIUM,
            display_name="Encoding",
        ),
    ]
)


def java_to_string(value: Any) -> str:
    """`Object.toString()` of the Java value a Python primitive stands for (strings unchanged)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_to_string(value)
    return str(value)


class StringConverter(Converter, HeaderConverter):
    """Writes `value.toString()` in the configured charset; reads bytes back as an optional string."""

    class_name = "org.apache.kafka.connect.storage.StringConverter"
    aliases = ("StringConverter",)
    plugin_version = KAFKA_VERSION

    def __init__(self) -> None:
        self._encoding = "utf-8"
        self._utf16_bom = False

    @classmethod
    def config_def(cls) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        conf = dict(configs)
        if is_key is not None:
            conf[CONVERTER_TYPE] = "key" if is_key else "value"
        conf.setdefault(CONVERTER_TYPE, "header")
        parsed = CONFIG_DEF.parse(conf)
        name = str(parsed[ENCODING])
        self._encoding = codecs.lookup(name).name
        # Java's "UTF-16" writes a big-endian BOM and reads big-endian unless a BOM says otherwise.
        self._utf16_bom = self._encoding == "utf-16"

    def _encode(self, text: str) -> bytes:
        if self._utf16_bom:
            return b"\xfe\xff" + text.encode("utf-16-be", "replace")
        return text.encode(self._encoding, "replace")

    def _decode(self, data: bytes) -> str:
        if self._utf16_bom:
            if data[:2] == b"\xff\xfe":
                return data[2:].decode("utf-16-le", "replace")
            if data[:2] == b"\xfe\xff":
                data = data[2:]
            return data.decode("utf-16-be", "replace")
        return data.decode(self._encoding, "replace")

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: tuple[Header, ...] = ()
    ) -> bytes | None:
        if value is None:
            return None
        try:
            return self._encode(java_to_string(value))
        except (UnicodeError, LookupError) as e:
            raise DataError(f"Failed to serialize to a string: {e}") from e

    def to_connect_data(self, topic: str, data: bytes | None) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(OPTIONAL_STRING_SCHEMA, None)
        return SchemaAndValue(OPTIONAL_STRING_SCHEMA, self._decode(data))

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)
