"""HSTORE (postgresql.md §6.1; §11 item 62)."""

from __future__ import annotations

import json

import pytest

from connect_worker.api.schema import Type
from connectors.postgres.value_converters import ValueConversionError
from connectors.postgres.value_converters.hstore import parse_hstore

from ._helpers import conv, ctype, json_of

HSTORE = ctype("hstore", schema="public")


def test_json_mode() -> None:  # item 62
    c = conv(HSTORE)
    assert c.schema.name == "io.debezium.data.Json"
    assert json.loads(c.from_text('"a"=>"1"')) == {"a": "1"}
    assert c.from_text('"a"=>"1", "b"=>NULL') == '{"a":"1","b":null}'


def test_map_mode() -> None:  # item 62
    c = conv(HSTORE, hstore_handling_mode="map")
    assert c.schema.type is Type.MAP and c.schema.key_schema is not None and c.schema.value_schema is not None
    assert not c.schema.key_schema.optional and c.schema.value_schema.optional
    assert c.from_text('"a"=>"1"') == {"a": "1"}
    out = json_of(c.schema, c.from_text('"a"=>"1"'))
    assert '{"type":"map","keys":{"type":"string","optional":false},"values":{"type":"string","optional":true}' in out


def test_quoting_and_escapes() -> None:
    assert parse_hstore('"b c"=>NULL, "q\\""=>"x\\\\y", ""=>"", "NULL"=>"NULL"') == {
        "b c": None,
        'q"': "x\\y",
        "": "",
        "NULL": "NULL",
    }
    assert parse_hstore("") == {}
    assert conv(HSTORE).from_text('"k"=>"a\\"b\nc\\n"') == '{"k":"a\\"b\\ncn"}'
    assert conv(HSTORE).from_text('"é"=>"😀"') == '{"é":"😀"}'


def test_hashmap_order() -> None:
    # java.util.HashMap iterates by bucket: "b" (hash 98) before "aa" (hash 3104 → bucket 0).
    assert list(conv(HSTORE, hstore_handling_mode="map").from_text('"aa"=>"1", "b"=>"2"')) == ["aa", "b"]
    assert list(conv(HSTORE, hstore_handling_mode="map").from_text('"b"=>"1", "a"=>"2"')) == ["a", "b"]


def test_malformed() -> None:
    with pytest.raises(ValueConversionError):
        parse_hstore('"a"=>')
