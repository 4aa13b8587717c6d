"""Kafka's primitive converters: Short/Integer/Long/Float/Double/BooleanConverter (pure behaviour)."""

from __future__ import annotations

import datetime as dt
import math
import struct
from decimal import Decimal
from typing import Any

import pytest

from connect_worker.api import PluginType
from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.schema import (
    BOOLEAN_SCHEMA,
    FLOAT32_SCHEMA,
    FLOAT64_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_BOOLEAN_SCHEMA,
    OPTIONAL_FLOAT32_SCHEMA,
    OPTIONAL_FLOAT64_SCHEMA,
    OPTIONAL_INT16_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    STRING_SCHEMA,
    Schema,
    date_schema,
    struct_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.runtime.plugins import PluginRegistry
from converters import KAFKA_VERSION
from converters.boolean import BooleanConverter
from converters.numbers import (
    DoubleConverter,
    FloatConverter,
    IntegerConverter,
    LongConverter,
    NumberConverter,
    SerializationError,
    ShortConverter,
    java_class_name,
)

NUMBER_CONVERTERS: list[type[NumberConverter]] = [
    ShortConverter,
    IntegerConverter,
    LongConverter,
    FloatConverter,
    DoubleConverter,
]
ALL_CONVERTERS: list[type[NumberConverter] | type[BooleanConverter]] = [*NUMBER_CONVERTERS, BooleanConverter]


def _conv(cls: type[NumberConverter] | type[BooleanConverter], is_key: bool = False) -> Any:
    c = cls()
    c.configure({}, is_key)
    return c


def _bits32(data: bytes) -> int:
    return int(struct.unpack(">I", data)[0])


def _f64(bits: int) -> float:
    return float(struct.unpack(">d", struct.pack(">Q", bits))[0])


# -- bytes both ways -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cls", "schema", "value", "hex_bytes"),
    [
        (ShortConverter, INT16_SCHEMA, 0, "0000"),
        (ShortConverter, INT16_SCHEMA, 258, "0102"),
        (ShortConverter, INT16_SCHEMA, -1, "ffff"),
        (ShortConverter, INT16_SCHEMA, 32767, "7fff"),
        (ShortConverter, INT16_SCHEMA, -32768, "8000"),
        (IntegerConverter, INT32_SCHEMA, 1, "00000001"),
        (IntegerConverter, INT32_SCHEMA, -1, "ffffffff"),
        (IntegerConverter, INT32_SCHEMA, 2**31 - 1, "7fffffff"),
        (IntegerConverter, INT32_SCHEMA, -(2**31), "80000000"),
        (IntegerConverter, INT32_SCHEMA, 0x01020304, "01020304"),
        (LongConverter, INT64_SCHEMA, 2**63 - 1, "7fffffffffffffff"),
        (LongConverter, INT64_SCHEMA, -(2**63), "8000000000000000"),
        (LongConverter, INT64_SCHEMA, 1795303593299669, "000660d1b0f14ed5"),
        (FloatConverter, FLOAT32_SCHEMA, 1.0, "3f800000"),
        (FloatConverter, FLOAT32_SCHEMA, -0.0, "80000000"),
        (FloatConverter, FLOAT32_SCHEMA, math.inf, "7f800000"),
        (FloatConverter, FLOAT32_SCHEMA, -math.inf, "ff800000"),
        (FloatConverter, FLOAT32_SCHEMA, math.nan, "7fc00000"),
        (FloatConverter, FLOAT32_SCHEMA, 3.4028234663852886e38, "7f7fffff"),
        (FloatConverter, FLOAT32_SCHEMA, 1.401298464324817e-45, "00000001"),
        (DoubleConverter, FLOAT64_SCHEMA, 1.0, "3ff0000000000000"),
        (DoubleConverter, FLOAT64_SCHEMA, -0.0, "8000000000000000"),
        (DoubleConverter, FLOAT64_SCHEMA, 5e-324, "0000000000000001"),
        (DoubleConverter, FLOAT64_SCHEMA, 1.7976931348623157e308, "7fefffffffffffff"),
        (DoubleConverter, FLOAT64_SCHEMA, -math.inf, "fff0000000000000"),
        (DoubleConverter, FLOAT64_SCHEMA, math.nan, "7ff8000000000000"),
        (BooleanConverter, BOOLEAN_SCHEMA, True, "01"),
        (BooleanConverter, BOOLEAN_SCHEMA, False, "00"),
    ],
)
def test_big_endian_bytes_and_back(cls: Any, schema: Schema, value: Any, hex_bytes: str) -> None:
    for is_key in (True, False):
        c = _conv(cls, is_key)
        data = bytes.fromhex(hex_bytes)
        assert c.from_connect_data("t", schema, value) == data
        assert c.from_connect_data("t", None, value) == data  # schemaless: the converter's own type holds it
        back = c.to_connect_data("t", data)
        if isinstance(value, float) and math.isnan(value):
            assert math.isnan(back.value)
        else:
            assert back.value == value and type(back.value) is type(value)
            assert math.copysign(1, back.value) == math.copysign(1, value)


@pytest.mark.parametrize(
    ("cls", "schema"),
    [
        (ShortConverter, OPTIONAL_INT16_SCHEMA),
        (IntegerConverter, OPTIONAL_INT32_SCHEMA),
        (LongConverter, OPTIONAL_INT64_SCHEMA),
        (FloatConverter, OPTIONAL_FLOAT32_SCHEMA),
        (DoubleConverter, OPTIONAL_FLOAT64_SCHEMA),
        (BooleanConverter, OPTIONAL_BOOLEAN_SCHEMA),
    ],
)
def test_null_both_ways_and_optional_schema(cls: Any, schema: Schema) -> None:
    c = _conv(cls)
    assert c.from_connect_data("t", None, None) is None
    assert c.from_connect_header("t", "h", schema, None) is None
    assert c.to_connect_data("t", None) == (schema, None)
    assert c.to_connect_header("t", "h", None) == (schema, None)
    assert c.to_connect_data("t", None).schema.optional


def test_number_converters_ignore_schema_for_nulls() -> None:
    """Only BooleanConverter checks the schema; a number converter never looks at it."""
    assert _conv(IntegerConverter).from_connect_data("t", STRING_SCHEMA, None) is None
    with pytest.raises(DataError, match=r"^Invalid schema type for BooleanConverter: STRING$"):
        _conv(BooleanConverter).from_connect_data("t", STRING_SCHEMA, None)


@pytest.mark.parametrize("cls", NUMBER_CONVERTERS)
def test_every_value_of_the_width_round_trips(cls: type[NumberConverter]) -> None:
    c = _conv(cls)
    size = cls.codec.size
    samples = [bytes([b]) * size for b in (0x00, 0x01, 0x7F, 0x80, 0xFF)]
    samples += [bytes(range(i, i + size)) for i in range(0, 200, 13)]
    for data in samples:
        sv = c.to_connect_data("t", data)
        if cls is DoubleConverter and math.isnan(sv.value):
            continue  # see test_double_nan_is_written_canonical
        assert c.from_connect_data("t", sv.schema, sv.value) == data


# -- floats ----------------------------------------------------------------------------------------------------
def test_float32_precision() -> None:
    c = _conv(FloatConverter)
    data = c.from_connect_data("t", FLOAT32_SCHEMA, 0.1)
    assert data == bytes.fromhex("3dcccccd")
    assert c.to_connect_data("t", data).value == 0.10000000149011612
    # ties round to even, values past the largest float32 to infinity, as Java's (float) cast does
    assert c.from_connect_data("t", FLOAT32_SCHEMA, 16777217.0) == struct.pack(">f", 16777216.0)
    assert c.from_connect_data("t", FLOAT32_SCHEMA, 1e300) == bytes.fromhex("7f800000")
    assert c.from_connect_data("t", FLOAT32_SCHEMA, -1e300) == bytes.fromhex("ff800000")
    assert c.from_connect_data("t", FLOAT32_SCHEMA, 10**400) == bytes.fromhex("7f800000")
    assert c.from_connect_data("t", FLOAT32_SCHEMA, 1e-50) == bytes.fromhex("00000000")
    assert c.from_connect_data("t", FLOAT32_SCHEMA, -1e-50) == bytes.fromhex("80000000")
    # an int under a float schema is the Float it rounds to
    assert c.from_connect_data("t", FLOAT32_SCHEMA, 2**24 + 1) == struct.pack(">f", 2.0**24)


@pytest.mark.parametrize("hex_bits", ["7f800001", "7fbfffff", "7fc00001", "ff800001", "ffc00000", "ffffffff"])
def test_float_nan_payloads_and_signalling_nans_survive(hex_bits: str) -> None:
    c = _conv(FloatConverter)
    data = bytes.fromhex(hex_bits)
    value = c.to_connect_data("t", data).value
    assert math.isnan(value)
    assert c.from_connect_data("t", FLOAT32_SCHEMA, value) == data
    assert c.from_connect_data("t", None, value) == data


def test_float_nan_from_a_double_keeps_what_fits() -> None:
    c = _conv(FloatConverter)
    assert c.from_connect_data("t", FLOAT32_SCHEMA, _f64(0xFFF8000000000000)) == bytes.fromhex("ffc00000")
    # a payload entirely in the low bits is lost: the float is still a NaN (a quiet one), never infinity
    assert c.from_connect_data("t", FLOAT32_SCHEMA, _f64(0x7FF0000000000001)) == bytes.fromhex("7fc00000")


def test_double_nan_is_written_canonical() -> None:
    """Kafka's DoubleSerializer uses doubleToLongBits (FloatSerializer the raw bits): every NaN becomes
    7ff8000000000000, sign and payload dropped; reading keeps them."""
    c = _conv(DoubleConverter)
    for bits in (0x7FF8000000000001, 0xFFF8000000000000, 0x7FF0000000000001, 0xFFFFFFFFFFFFFFFF):
        data = struct.pack(">Q", bits)
        value = c.to_connect_data("t", data).value
        assert struct.pack(">d", value) == data
        assert c.from_connect_data("t", FLOAT64_SCHEMA, value) == bytes.fromhex("7ff8000000000000")


def test_double_edge_values_round_trip() -> None:
    c = _conv(DoubleConverter)
    for v in (0.1, -0.0, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308, math.inf, -math.inf):
        data = c.from_connect_data("t", None, v)
        assert data == struct.pack(">d", v)
        back = c.to_connect_data("t", data).value
        assert back == v and math.copysign(1, back) == math.copysign(1, v)
    assert c.from_connect_data("t", FLOAT64_SCHEMA, 7) == struct.pack(">d", 7.0)


# -- which values each converter takes ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("cls", "schema", "value", "java_class"),
    [
        # the schema names the boxed class
        (IntegerConverter, INT64_SCHEMA, 5, "java.lang.Long"),
        (IntegerConverter, INT16_SCHEMA, 5, "java.lang.Short"),
        (IntegerConverter, INT8_SCHEMA, 5, "java.lang.Byte"),
        (LongConverter, INT32_SCHEMA, 5, "java.lang.Integer"),
        (ShortConverter, INT8_SCHEMA, 5, "java.lang.Byte"),
        (FloatConverter, FLOAT64_SCHEMA, 0.5, "java.lang.Double"),
        (DoubleConverter, FLOAT32_SCHEMA, 0.5, "java.lang.Float"),
        (IntegerConverter, FLOAT64_SCHEMA, 5, "java.lang.Double"),
        (DoubleConverter, INT64_SCHEMA, 5, "java.lang.Long"),
        # a number no schema describes: the converter's own type if it holds it exactly, else Long / Double
        (ShortConverter, None, 32768, "java.lang.Long"),
        (ShortConverter, None, -32769, "java.lang.Long"),
        (IntegerConverter, None, 2**31, "java.lang.Long"),
        (IntegerConverter, None, -(2**31) - 1, "java.lang.Long"),
        (LongConverter, None, 2**63, "java.math.BigInteger"),
        (LongConverter, None, -(2**63) - 1, "java.math.BigInteger"),
        (FloatConverter, None, 0.1, "java.lang.Double"),
        (FloatConverter, None, 1e300, "java.lang.Double"),
        (FloatConverter, None, 1, "java.lang.Long"),
        (DoubleConverter, None, 1, "java.lang.Long"),
        (IntegerConverter, None, 1.0, "java.lang.Double"),
        (IntegerConverter, INT32_SCHEMA, 1.5, "java.lang.Double"),
        (IntegerConverter, STRING_SCHEMA, 2**40, "java.lang.Long"),
        # everything else
        (IntegerConverter, None, True, "java.lang.Boolean"),
        (IntegerConverter, INT32_SCHEMA, True, "java.lang.Boolean"),
        (DoubleConverter, None, "1.0", "java.lang.String"),
        (LongConverter, None, b"\x01", "[B"),
        (LongConverter, None, bytearray(b"\x01"), "[B"),
        (LongConverter, None, Decimal("1"), "java.math.BigDecimal"),
        (IntegerConverter, date_schema(), dt.date(2024, 1, 2), "java.util.Date"),
        (LongConverter, None, dt.datetime(2024, 1, 2, tzinfo=dt.UTC), "java.util.Date"),
        (ShortConverter, None, [1], "java.util.ArrayList"),
        (ShortConverter, None, {"a": 1}, "java.util.HashMap"),
        (FloatConverter, None, object(), "builtins.object"),
    ],
)
def test_wrong_class_is_refused_with_kafkas_message(
    cls: Any, schema: Schema | None, value: Any, java_class: str
) -> None:
    message = f"Failed to serialize to {cls.type_name} (was class {java_class}): "
    with pytest.raises(DataError) as info:
        _conv(cls).from_connect_data("t", schema, value)
    assert str(info.value) == message
    assert info.value.__cause__ is None
    with pytest.raises(DataError) as info:
        _conv(cls).from_connect_header("t", "h", schema, value)
    assert str(info.value) == message


def test_struct_is_named_for_its_java_class() -> None:
    s = struct_schema([("id", INT32_SCHEMA)])
    with pytest.raises(DataError, match=r"^Failed to serialize to integer \(was class org.apache.kafka.connect.data"):
        _conv(IntegerConverter).from_connect_data("t", s, Struct.of(s, [1]))
    assert java_class_name(None, Struct.of(s, [1])) == "org.apache.kafka.connect.data.Struct"


@pytest.mark.parametrize(
    ("cls", "schema", "value", "cause"),
    [
        (ShortConverter, INT16_SCHEMA, 32768, "'h' format requires"),
        (IntegerConverter, INT32_SCHEMA, 2**31, "'i' format requires"),
        (IntegerConverter, OPTIONAL_INT32_SCHEMA, -(2**31) - 1, "'i' format requires"),
        (LongConverter, INT64_SCHEMA, 2**63, "int too large"),
        (DoubleConverter, FLOAT64_SCHEMA, 10**400, "int too large"),
    ],
)
def test_value_outside_its_declared_type(cls: Any, schema: Schema, value: int, cause: str) -> None:
    """A value its schema declares as this type but that no such Java object could hold: the serializer fails."""
    with pytest.raises(DataError) as info:
        _conv(cls).from_connect_data("t", schema, value)
    assert str(info.value) == f"Failed to serialize to {cls.type_name}: "
    assert isinstance(info.value.__cause__, SerializationError)
    assert cause in str(info.value.__cause__)


@pytest.mark.parametrize(
    ("cls", "size", "deserializer"),
    [
        (ShortConverter, 2, "ShortDeserializer"),
        (IntegerConverter, 4, "IntegerDeserializer"),
        (LongConverter, 8, "LongDeserializer"),
        (FloatConverter, 4, "Deserializer"),
        (DoubleConverter, 8, "Deserializer"),
        (BooleanConverter, 1, "BooleanDeserializer"),
    ],
)
def test_wrong_size_is_refused(cls: Any, size: int, deserializer: str) -> None:
    word = getattr(cls, "type_name", "boolean")
    for data in sorted({bytes(n) for n in (0, 1, size - 1, size + 1, 2 * size)} - {bytes(size)}):
        with pytest.raises(DataError):
            _conv(cls).to_connect_header("t", "h", data)
        with pytest.raises(DataError) as info:
            _conv(cls).to_connect_data("t", data)
        assert str(info.value) == f"Failed to deserialize {word}: "
        assert isinstance(info.value.__cause__, SerializationError)
        assert str(info.value.__cause__) == f"Size of data received by {deserializer} is not {size}"


def test_reads_bytes_like_data() -> None:
    c = _conv(IntegerConverter)
    assert c.to_connect_data("t", bytearray(b"\x00\x00\x01\x00")).value == 256
    assert c.to_connect_data("t", memoryview(b"\xff\xff\xff\xfe")).value == -2


# -- BooleanConverter -------------------------------------------------------------------------------------------
def test_boolean_reads_only_zero_and_one() -> None:
    c = _conv(BooleanConverter)
    assert c.to_connect_data("t", b"\x01") == (OPTIONAL_BOOLEAN_SCHEMA, True)
    assert c.to_connect_data("t", b"\x00") == (OPTIONAL_BOOLEAN_SCHEMA, False)
    for byte, shown in ((2, 2), (0x7F, 127), (0x80, -128), (0xFF, -1)):
        with pytest.raises(DataError) as info:
            c.to_connect_data("t", bytes([byte]))
        assert str(info.value) == "Failed to deserialize boolean: "
        assert str(info.value.__cause__) == f"Unexpected byte received by BooleanDeserializer: {shown}"


@pytest.mark.parametrize(
    ("schema", "value", "message"),
    [
        (INT32_SCHEMA, True, "Invalid schema type for BooleanConverter: INT32"),
        (INT8_SCHEMA, None, "Invalid schema type for BooleanConverter: INT8"),
        (FLOAT64_SCHEMA, 1.0, "Invalid schema type for BooleanConverter: FLOAT64"),
        (struct_schema([("b", BOOLEAN_SCHEMA)]), None, "Invalid schema type for BooleanConverter: STRUCT"),
        (None, 1, "BooleanConverter is not compatible with objects of type class java.lang.Long"),
        (BOOLEAN_SCHEMA, 0, "BooleanConverter is not compatible with objects of type class java.lang.Long"),
        (None, "true", "BooleanConverter is not compatible with objects of type class java.lang.String"),
        (None, 1.0, "BooleanConverter is not compatible with objects of type class java.lang.Double"),
        (None, b"\x01", "BooleanConverter is not compatible with objects of type class [B"),
    ],
)
def test_boolean_refusals(schema: Schema | None, value: Any, message: str) -> None:
    with pytest.raises(DataError) as info:
        _conv(BooleanConverter).from_connect_data("t", schema, value)
    assert str(info.value) == message
    with pytest.raises(DataError) as info:
        _conv(BooleanConverter).from_connect_header("t", "h", schema, value)
    assert str(info.value) == message


# -- configuration and plugin metadata -----------------------------------------------------------------------
@pytest.mark.parametrize("cls", ALL_CONVERTERS)
def test_configure_checks_converter_type(cls: Any) -> None:
    header = cls()
    with pytest.raises(ConfigError, match=r'^Missing required configuration "converter\.type" which has no default'):
        header.configure({})
    with pytest.raises(ConfigError) as info:
        header.configure({"converter.type": "KEY"})
    assert str(info.value) == (
        "Invalid value KEY for configuration converter.type: String must be one of: key, value, header"
    )
    for side in ("header", "key", " value "):
        header.configure({"converter.type": side, "unknown.setting": "ignored"})
    cls().configure({"converter.type": "bogus"}, True)  # is_key decides a Converter's side


@pytest.mark.parametrize("cls", ALL_CONVERTERS)
def test_usable_without_configure(cls: Any) -> None:
    c = cls()
    value = {BooleanConverter: True, FloatConverter: 1.5, DoubleConverter: 1.5}.get(cls, 1)
    data = c.from_connect_data("t", None, value)
    assert c.to_connect_data("t", data).value == value


@pytest.mark.parametrize("cls", ALL_CONVERTERS)
def test_plugin_metadata(cls: Any) -> None:
    simple = cls.__name__
    assert cls.class_name == f"org.apache.kafka.connect.converters.{simple}"
    assert cls.aliases == (simple,)
    assert cls.plugin_version == KAFKA_VERSION
    assert cls().version() == KAFKA_VERSION
    [key] = cls.config_def().keys
    assert (key.name, key.required, key.documentation) == ("converter.type", True, "How this converter will be used.")


def test_listed_as_converter_and_header_converter() -> None:
    """Entry points register each class under both kinds, as Connect lists a class under each type it implements."""
    registry = PluginRegistry.from_entry_points()
    for cls in ALL_CONVERTERS:
        for kind in (PluginType.CONVERTER, PluginType.HEADER_CONVERTER):
            assert registry.resolve(kind, cls.class_name) is cls
            assert registry.resolve(kind, cls.__name__) is cls
            assert (kind, cls.class_name, cls) in registry.listing(connectors_only=False)
