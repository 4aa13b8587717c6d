"""Kafka's number converters: org.apache.kafka.connect.converters.{Short,Integer,Long,Float,Double}Converter.

Each writes one number in its fixed width, big-endian, as Kafka's ShortSerializer … DoubleSerializer do (a
float as its raw IEEE 754 bits, NaN payload kept; a double NaN as the canonical one), and reads it back with
the optional schema of its type. Null stays null both ways. Like Kafka's, they look at neither the topic, the
header key nor the schema they are given: only the value counts.

Java refuses a value whose class is not the converter's own (a Long for IntegerConverter, a Double for
FloatConverter). Python has only int and float, so the class a number stands for is read from its schema:
an int under an INT32 schema is an Integer, a number under a FLOAT32 schema a Float. A number its schema does
not describe (no schema, or a schema of another kind) stands for the converter's own type when that type holds
it exactly, so a schemaless 7 suits IntegerConverter and a schemaless 0.5 FloatConverter; otherwise it is what
the rest of the worker takes a schemaless number for, a Long (a BigInteger past 64 bits) or a Double.

The messages are Kafka's, trailing colon included: the deserializer's complaint is the cause, not the text.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import struct
from collections.abc import Callable, Mapping
from decimal import Decimal
from typing import Any, ClassVar, Final

from connect_worker.api.config import ConfigDef
from connect_worker.api.converter import Converter, HeaderConverter
from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import to_float32
from connect_worker.api.record import Header, SchemaAndValue
from connect_worker.api.schema import (
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    Schema,
    Type,
)
from connect_worker.api.struct import Struct
from converters import KAFKA_VERSION
from converters.converter_config import CONVERTER_TYPE, CONVERTER_TYPE_KEY

# Kafka's ConverterConfig (NumberConverterConfig and BooleanConverterConfig add nothing): converter.type has
# no default, so a header converter configured without it fails, as in Connect (which always sets it).
CONFIG_DEF: Final = ConfigDef([CONVERTER_TYPE_KEY])


class SerializationError(DataError):
    """Kafka's SerializationException: what a serializer or deserializer said. It is the cause of the converter's
    DataError, whose own message does not repeat it."""


def check_config(configs: Mapping[str, Any], is_key: bool | None) -> None:
    """Parse the converter config as Kafka's converters do and keep nothing: a Converter's side comes from
    is_key (overriding any converter.type given); a HeaderConverter's must be in the config."""
    conf = dict(configs)
    if is_key is not None:
        conf[CONVERTER_TYPE] = "key" if is_key else "value"
    CONFIG_DEF.parse(conf)


# -- the Java class a Python value stands for ----------------------------------------------------------------
_INT_CLASSES: Final = {
    Type.INT8: "java.lang.Byte",
    Type.INT16: "java.lang.Short",
    Type.INT32: "java.lang.Integer",
    Type.INT64: "java.lang.Long",
}
_FLOAT_CLASSES: Final = {Type.FLOAT32: "java.lang.Float", Type.FLOAT64: "java.lang.Double"}
_LONG_MIN: Final = -(2**63)
_LONG_MAX: Final = 2**63 - 1


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def declared_number_class(schema: Schema | None, value: Any) -> str | None:
    """The boxed class of a number whose schema names its type (an int under INT8..INT64, an int or float under
    FLOAT32/FLOAT64); None for anything else."""
    if schema is None:
        return None
    if _is_int(value) and schema.type in _INT_CLASSES:
        return _INT_CLASSES[schema.type]
    if (_is_int(value) or isinstance(value, float)) and schema.type in _FLOAT_CLASSES:
        return _FLOAT_CLASSES[schema.type]
    return None


def java_class_name(schema: Schema | None, value: Any) -> str:
    """The name `getClass()` gives for the Java object a Python value stands for (as Kafka's messages show it)."""
    declared = declared_number_class(schema, value)
    if declared is not None:
        return declared
    if isinstance(value, bool):
        return "java.lang.Boolean"
    if isinstance(value, int):
        return "java.lang.Long" if _LONG_MIN <= value <= _LONG_MAX else "java.math.BigInteger"
    if isinstance(value, float):
        return "java.lang.Double"
    if isinstance(value, str):
        return "java.lang.String"
    if isinstance(value, bytes | bytearray | memoryview):
        return "[B"
    if isinstance(value, Decimal):
        return "java.math.BigDecimal"
    if isinstance(value, dt.date | dt.time):
        return "java.util.Date"
    if isinstance(value, Struct):
        return "org.apache.kafka.connect.data.Struct"
    if isinstance(value, list | tuple):
        return "java.util.ArrayList"
    if isinstance(value, Mapping):
        return "java.util.HashMap"
    return f"{type(value).__module__}.{type(value).__qualname__}"


# -- fixed-width big-endian codecs ---------------------------------------------------------------------------
_F32: Final = struct.Struct(">f")
_U32: Final = struct.Struct(">I")
_F64: Final = struct.Struct(">d")
_U64: Final = struct.Struct(">Q")


def _float32_bytes(value: float) -> bytes:
    """Float.floatToRawIntBits of the float32 the value stands for: rounded to nearest (overflow to infinity),
    a NaN keeping the top of its payload (a NaN that would lose all of it becomes a quiet one)."""
    if value != value:
        bits = _U64.unpack(_F64.pack(value))[0]
        payload = (bits >> 29) & 0x7FFFFF
        return _U32.pack((bits >> 32) & 0x80000000 | 0x7F800000 | (payload or 0x400000))
    return _F32.pack(to_float32(value))


def _float32_value(data: bytes) -> float:
    """Float.intBitsToFloat of 4 bytes as a Python float. A NaN's payload moves to the double's top bits as is
    (struct would set the quiet bit of a signalling NaN, so writing it back would change the bytes)."""
    bits = _U32.unpack(data)[0]
    if bits & 0x7F800000 == 0x7F800000 and bits & 0x7FFFFF:
        double = (bits & 0x80000000) << 32 | 0x7FF0000000000000 | (bits & 0x7FFFFF) << 29
        return float(_F64.unpack(_U64.pack(double))[0])
    return float(_F32.unpack(data)[0])


_CANONICAL_NAN: Final = bytes.fromhex("7ff8000000000000")


def _float64_bytes(value: float) -> bytes:
    """Double.doubleToLongBits: unlike the float serializer, Kafka's double one writes every NaN (any sign or
    payload) as the one canonical NaN."""
    return _CANONICAL_NAN if value != value else _F64.pack(float(value))


def _holds_float32(value: Any) -> bool:
    return isinstance(value, float) and (value != value or to_float32(value) == value)


def _holds_int(bits: int) -> Callable[[Any], bool]:
    low, high = -(2 ** (bits - 1)), 2 ** (bits - 1) - 1
    return lambda value: _is_int(value) and low <= value <= high


@dataclasses.dataclass(frozen=True, slots=True)
class NumberCodec:
    """One fixed-width number format: how Kafka's serializer writes it and its deserializer reads it."""

    size: int
    deserializer: str  # the class Kafka's size complaint names (its float and double ones say "Deserializer")
    pack: Callable[[Any], bytes]  # raises struct.error / OverflowError when the value does not fit
    unpack: Callable[[bytes], Any]
    holds: Callable[[Any], bool]  # whether a number no schema describes is exactly a value of this type


def _struct_codec(fmt: str, deserializer: str, holds: Callable[[Any], bool]) -> NumberCodec:
    s = struct.Struct(fmt)
    return NumberCodec(s.size, deserializer, s.pack, lambda data: s.unpack(data)[0], holds)


SHORT: Final = _struct_codec(">h", "ShortDeserializer", _holds_int(16))
INTEGER: Final = _struct_codec(">i", "IntegerDeserializer", _holds_int(32))
LONG: Final = _struct_codec(">q", "LongDeserializer", _holds_int(64))
FLOAT: Final = NumberCodec(4, "Deserializer", _float32_bytes, _float32_value, _holds_float32)
DOUBLE: Final = NumberCodec(
    8, "Deserializer", _float64_bytes, lambda data: float(_F64.unpack(data)[0]), lambda value: isinstance(value, float)
)


# -- the converters ----------------------------------------------------------------------------------------
class NumberConverter(Converter, HeaderConverter):
    """Kafka's NumberConverter: one number type, both a Converter and a HeaderConverter, with no settings."""

    plugin_version = KAFKA_VERSION

    type_name: ClassVar[str]  # the word Kafka's messages use: "integer"
    java_class: ClassVar[str]  # the boxed class it serializes: "java.lang.Integer"
    schema: ClassVar[Schema]  # what to_connect_data answers with, always optional
    codec: ClassVar[NumberCodec]

    @classmethod
    def config_def(cls) -> ConfigDef:
        return CONFIG_DEF

    def configure(self, configs: Mapping[str, Any], is_key: bool | None = None) -> None:
        check_config(configs, is_key)

    def _is_own_type(self, schema: Schema | None, value: Any) -> bool:
        declared = declared_number_class(schema, value)
        return declared == self.java_class if declared is not None else self.codec.holds(value)

    def from_connect_data(
        self, topic: str, schema: Schema | None, value: Any, headers: tuple[Header, ...] = ()
    ) -> bytes | None:
        if value is None:
            return None
        if not self._is_own_type(schema, value):
            raise DataError(f"Failed to serialize to {self.type_name} (was class {java_class_name(schema, value)}): ")
        try:
            return self.codec.pack(value)
        except (struct.error, OverflowError) as e:  # declared as this type but out of its range
            raise DataError(f"Failed to serialize to {self.type_name}: ") from SerializationError(str(e))

    def to_connect_data(self, topic: str, data: bytes | None) -> SchemaAndValue:
        if data is None:
            return SchemaAndValue(self.schema, None)
        codec = self.codec
        if len(data) != codec.size:
            cause = SerializationError(f"Size of data received by {codec.deserializer} is not {codec.size}")
            raise DataError(f"Failed to deserialize {self.type_name}: ") from cause
        return SchemaAndValue(self.schema, codec.unpack(bytes(data)))

    def from_connect_header(self, topic: str, header_key: str, schema: Schema | None, value: Any) -> bytes | None:
        return self.from_connect_data(topic, schema, value)

    def to_connect_header(self, topic: str, header_key: str, data: bytes | None) -> SchemaAndValue:
        return self.to_connect_data(topic, data)


class ShortConverter(NumberConverter):
    """Two bytes; reads back as an optional INT16."""

    class_name = "org.apache.kafka.connect.converters.ShortConverter"
    aliases = ("ShortConverter",)
    type_name = "short"
    java_class = "java.lang.Short"
    schema = OPTIONAL_INT16_SCHEMA
    codec = SHORT


class IntegerConverter(NumberConverter):
    """Four bytes; reads back as an optional INT32."""

    class_name = "org.apache.kafka.connect.converters.IntegerConverter"
    aliases = ("IntegerConverter",)
    type_name = "integer"
    java_class = "java.lang.Integer"
    schema = OPTIONAL_INT32_SCHEMA
    codec = INTEGER


class LongConverter(NumberConverter):
    """Eight bytes; reads back as an optional INT64."""

    class_name = "org.apache.kafka.connect.converters.LongConverter"
    aliases = ("LongConverter",)
    type_name = "long"
    java_class = "java.lang.Long"
    schema = OPTIONAL_INT64_SCHEMA
    codec = LONG


class FloatConverter(NumberConverter):
    """Four bytes of IEEE 754 single precision; reads back as an optional FLOAT32."""

    class_name = "org.apache.kafka.connect.converters.FloatConverter"
    aliases = ("FloatConverter",)
    type_name = "float"
    java_class = "java.lang.Float"
    schema = OPTIONAL_FLOAT32_SCHEMA
    codec = FLOAT


class DoubleConverter(NumberConverter):
    """Eight bytes of IEEE 754 double precision; reads back as an optional FLOAT64."""

    class_name = "org.apache.kafka.connect.converters.DoubleConverter"
    aliases = ("DoubleConverter",)
    type_name = "double"
    java_class = "java.lang.Double"
    schema = OPTIONAL_FLOAT64_SCHEMA
    codec = DOUBLE
