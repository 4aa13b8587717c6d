"""StringConverter, ByteArrayConverter and SimpleHeaderConverter (pure behaviour)."""

from __future__ import annotations

import datetime as dt

import pytest

from connect_worker.api.errors import DataError
from connect_worker.api.schema import (
    INT32_SCHEMA,
    OPTIONAL_BYTES_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    struct_schema,
)
from connect_worker.api.struct import Struct
from converters.bytearray import ByteArrayConverter
from converters.simple_header import SimpleHeaderConverter, parse_string
from converters.string import StringConverter


def test_string_converter() -> None:
    c = StringConverter()
    c.configure({}, False)
    assert c.from_connect_data("t", STRING_SCHEMA, "é") == "é".encode()
    assert c.from_connect_data("t", None, 1e10) == b"1.0E10"
    assert c.from_connect_data("t", None, None) is None
    assert c.to_connect_data("t", b"x") == (OPTIONAL_STRING_SCHEMA, "x")
    c.configure({"converter.encoding": "UTF-16"}, True)
    assert c.from_connect_data("t", None, "a") == b"\xfe\xff\x00a"
    assert c.to_connect_data("t", b"\xfe\xff\x00a").value == "a"


def test_bytearray_converter() -> None:
    c = ByteArrayConverter()
    c.configure({}, False)
    assert c.from_connect_data("t", None, b"\x00") == b"\x00"
    assert c.to_connect_data("t", b"\x01") == (OPTIONAL_BYTES_SCHEMA, b"\x01")
    with pytest.raises(DataError, match="Invalid schema type for ByteArrayConverter: STRING"):
        c.from_connect_data("t", STRING_SCHEMA, b"")
    with pytest.raises(DataError, match="not compatible"):
        c.from_connect_data("t", None, "s")


def test_simple_header_converter() -> None:
    c = SimpleHeaderConverter()
    s = struct_schema([("id", INT32_SCHEMA), ("name", STRING_SCHEMA)])
    assert c.from_connect_header("t", "h", s, Struct.of(s, [2, 'a"b'])) == b'{"id":2,"name":"a\\"b"}'
    ts = dt.datetime(2023, 11, 14, 22, 13, 20, 123000, tzinfo=dt.UTC)
    assert c.from_connect_header("t", "h", None, ts) == b"2023-11-14T22:13:20.123Z"
    assert c.from_connect_header("t", "h", None, ["a", 1]) == b'["a",1]'
    assert c.from_connect_header("t", "h", None, None) is None
    assert parse_string("42").value == 42
    assert parse_string("text").value == "text"
