from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.schema import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    Type,
    struct_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.transforms.extract_field import ExtractFieldKey, ExtractFieldValue, parse_field_path
from connect_worker.transforms.hoist_field import HoistFieldKey, HoistFieldValue
from connect_worker.transforms.set_schema_metadata import SetSchemaMetadataKey, SetSchemaMetadataValue
from connect_worker.transforms.value_to_key import ValueToKey

from ._helpers import make, rec

INNER = struct_schema([("x", INT32_SCHEMA), ("a.b", STRING_SCHEMA)], name="inner", optional=True)
S = struct_schema(
    [("id", INT64_SCHEMA), ("email", Schema(Type.STRING, optional=True, default="none")), ("nested", INNER)],
    name="row",
)
V = Struct(S, {"id": 1, "email": None, "nested": Struct(INNER, {"x": 5, "a.b": "dots"})})


def test_value_to_key_with_schema() -> None:
    t = make(ValueToKey, fields="email,id")
    out = t.apply(rec(V, S, key="old"))
    assert [(f.name, f.schema) for f in out.key_schema.fields] == [("email", S.fields[1].schema), ("id", INT64_SCHEMA)]
    assert out.key_schema.name is None
    assert out.key.values == ("none", 1)
    assert out.value is V
    assert t.apply(rec(V, S)).key_schema is out.key_schema


def test_value_to_key_schemaless_and_errors() -> None:
    assert make(ValueToKey, fields="a").apply(rec({"a": 1, "b": 2})).key == {"a": 1}
    with pytest.raises(DataError, match="Field does not exist: nope"):
        make(ValueToKey, fields="nope").apply(rec(V, S))
    with pytest.raises(DataError, match=r"copying fields from value to key"):
        make(ValueToKey, fields="a").apply(rec(None))
    with pytest.raises(ConfigError):
        make(ValueToKey, fields="")


def test_extract_field_with_schema() -> None:
    out = make(ExtractFieldValue, field="nested").apply(rec(V, S))
    assert out.value_schema is INNER and out.value == V.get("nested")
    out = make(ExtractFieldValue, field="email").apply(rec(V, S))
    assert out.value == "none"  # replace.null.with.default
    out = make(ExtractFieldValue, {"field": "email", "replace.null.with.default": "false"}).apply(rec(V, S))
    assert out.value is None
    tomb = make(ExtractFieldValue, field="id").apply(rec(None, S))
    assert tomb.value is None and tomb.value_schema == INT64_SCHEMA
    with pytest.raises(DataError, match="Unknown field: nope"):
        make(ExtractFieldValue, field="nope").apply(rec(V, S))


def test_extract_field_v2_paths() -> None:
    t = make(ExtractFieldValue, {"field": "nested.`a.b`", "field.syntax.version": "v2"})
    out = t.apply(rec(V, S))
    assert out.value == "dots" and out.value_schema == STRING_SCHEMA
    # V1 takes the name literally
    with pytest.raises(DataError):
        make(ExtractFieldValue, field="nested.x").apply(rec(V, S))
    schemaless = make(ExtractFieldKey, {"field": "a.b", "field.syntax.version": "V2"})
    assert schemaless.apply(rec(None, key={"a": {"b": 3}})).key == 3
    assert parse_field_path("a.`b.c`.d", "V2") == ("a", "b.c", "d")
    assert parse_field_path("`x\\`y`", "V2") == ("x`y",)
    with pytest.raises(ConfigError):
        make(ExtractFieldValue, {"field": "a", "field.syntax.version": "V3"})


def test_extract_field_schemaless() -> None:
    t = make(ExtractFieldKey, field="id")
    assert t.apply(rec(None, key={"id": 9})).key == 9
    assert t.apply(rec(None, key=None)).key is None
    with pytest.raises(DataError):
        t.apply(rec(None, key=5))


def test_hoist_field() -> None:
    out = make(HoistFieldValue, field="line").apply(rec("text", OPTIONAL_STRING_SCHEMA))
    assert [(f.name, f.schema) for f in out.value_schema.fields] == [("line", OPTIONAL_STRING_SCHEMA)]
    assert out.value.get("line") == "text"
    assert make(HoistFieldKey, field="k").apply(rec(None, key=42)).key == {"k": 42}


def test_set_schema_metadata() -> None:
    t = make(SetSchemaMetadataValue, **{"schema.name": "renamed", "schema.version": "7"})
    out = t.apply(rec(V, S))
    assert (out.value_schema.name, out.value_schema.version) == ("renamed", 7)
    assert out.value.schema is out.value_schema
    assert out.value.values == (1, "none", V.get("nested"))
    key_out = make(SetSchemaMetadataKey, **{"schema.version": "2"}).apply(rec(None, key=5, key_schema=INT32_SCHEMA))
    assert key_out.key_schema.version == 2 and key_out.key == 5


def test_set_schema_metadata_errors() -> None:
    with pytest.raises(ConfigError, match="Neither schema name nor version configured"):
        make(SetSchemaMetadataValue)
    with pytest.raises(DataError, match=r"Schema required for \[updating schema metadata\]"):
        make(SetSchemaMetadataValue, **{"schema.name": "x"}).apply(rec({"a": 1}))
