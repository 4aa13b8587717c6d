"""BYTEA and bit strings (postgresql.md §6.1; §11 items 63, 65)."""

from __future__ import annotations

import pytest

from connect_worker.api.schema import Type
from connectors.postgres.value_converters import ValueConversionError

from ._helpers import conv, json_of


def test_bytea_modes() -> None:  # item 65
    assert conv("bytea").schema.type is Type.BYTES
    assert conv("bytea").from_text("\\x0102") == b"\x01\x02"
    assert conv("bytea").from_text("\\x") == b""
    b64 = conv("bytea", binary_handling_mode="base64")
    assert b64.schema.type is Type.STRING and b64.from_text("\\x0102") == "AQI="
    assert conv("bytea", binary_handling_mode="hex").from_text("\\x0102ff") == "0102ff"
    assert conv("bytea", binary_handling_mode="base64-url-safe").from_text("\\xfbff") == "-_8="
    assert '"f":"AQI="' in json_of(conv("bytea").schema, b"\x01\x02")


def test_bytea_escape_format_is_rejected() -> None:
    with pytest.raises(ValueConversionError, match="bytea_output=hex"):
        conv("bytea").from_text("\\001")


def test_bit_n_is_little_endian_bits() -> None:  # item 63
    c = conv("bit", length=3)
    assert c.schema.name == "io.debezium.data.Bits" and c.schema.parameters == {"length": "3"}
    assert c.from_text("101") == b"\x05"
    c16 = conv("bit", length=16)
    assert c16.from_text("1000000000000001") == b"\x01\x80"
    assert c16.from_text("0000000000000001") == b"\x01"  # BitSet.toByteArray: length follows the content
    assert c16.from_text("0000000000000000") == b""


def test_bit_1_is_boolean() -> None:  # item 63
    c = conv("bit", length=1)
    assert c.schema.type is Type.BOOLEAN
    assert c.from_text("1") is True and c.from_text("0") is False


def test_varbit() -> None:
    unbounded = conv("varbit")
    assert unbounded.schema.parameters == {"length": "2147483647"}
    assert unbounded.from_text("110") == b"\x06"
    assert conv("varbit", length=33).from_text("101") == b"\x05"
    assert conv("varbit", length=1).from_text("1") is True
