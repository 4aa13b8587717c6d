from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.record import Header
from connect_worker.api.schema import (
    BOOLEAN_SCHEMA,
    FLOAT32_SCHEMA,
    INT8_SCHEMA,
    INT16_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    struct_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.transforms.drop_headers import DropHeaders
from connect_worker.transforms.filter import Filter
from connect_worker.transforms.header_from import HeaderFromKey, HeaderFromValue
from connect_worker.transforms.insert_header import InsertHeader

from ._helpers import make, rec

H = (Header("a", None, 1), Header("b", None, 2), Header("a", None, 3), Header("c", None, 4))


def test_filter_drops_everything() -> None:
    assert make(Filter).apply(rec({"a": 1})) is None


def test_drop_headers_removes_every_occurrence() -> None:
    out = make(DropHeaders, headers="a,c").apply(rec(headers=H))
    assert out.headers == (Header("b", None, 2),)
    untouched = rec(headers=(Header("z", None, 0),))
    assert make(DropHeaders, headers="a").apply(untouched) is untouched


def test_drop_headers_needs_names() -> None:
    with pytest.raises(ConfigError, match="Empty list"):
        make(DropHeaders, headers="")


@pytest.mark.parametrize(
    ("literal", "schema", "value"),
    [
        ("hello world", STRING_SCHEMA, "hello world"),
        ("true", BOOLEAN_SCHEMA, True),
        ("42", INT8_SCHEMA, 42),
        ("300", INT16_SCHEMA, 300),
        ("9999999999", INT64_SCHEMA, 9999999999),
        ("1.5", FLOAT32_SCHEMA, 1.5),
        ("null", None, None),
    ],
)
def test_insert_header_infers_the_type(literal: str, schema: object, value: object) -> None:
    out = make(InsertHeader, header="h", **{"value.literal": literal}).apply(rec(headers=(Header("x", None, 0),)))
    assert out.headers == (Header("x", None, 0), Header("h", schema, value))  # type: ignore[arg-type]


def test_insert_header_requires_both_keys() -> None:
    with pytest.raises(ConfigError, match=r"value.literal"):
        make(InsertHeader, header="h")


VALUE_SCHEMA = struct_schema(
    [("id", INT64_SCHEMA), ("email", OPTIONAL_STRING_SCHEMA), ("name", STRING_SCHEMA)], name="v"
)


def test_header_from_value_copy_with_schema() -> None:
    value = Struct(VALUE_SCHEMA, {"id": 1, "email": "a@b", "name": "n"})
    t = make(HeaderFromValue, fields="id,email", headers="h_id,h_email", operation="copy")
    out = t.apply(rec(value, VALUE_SCHEMA))
    assert out.value == value and out.value_schema == VALUE_SCHEMA
    assert out.headers == (Header("h_id", INT64_SCHEMA, 1), Header("h_email", OPTIONAL_STRING_SCHEMA, "a@b"))


def test_header_from_value_move_with_schema() -> None:
    value = Struct(VALUE_SCHEMA, {"id": 1, "email": "a@b", "name": "n"})
    t = make(HeaderFromValue, fields="email", headers="mail", operation="move")
    out = t.apply(rec(value, VALUE_SCHEMA))
    assert [f.name for f in out.value_schema.fields] == ["id", "name"]
    assert out.value_schema.name == "v"
    assert out.value.as_dict() == {"id": 1, "name": "n"}
    assert out.headers == (Header("mail", OPTIONAL_STRING_SCHEMA, "a@b"),)


def test_header_from_key_schemaless_move() -> None:
    t = make(HeaderFromKey, fields="id", headers="kid", operation="move")
    out = t.apply(rec({"v": 1}, key={"id": 7, "x": 1}))
    assert out.key == {"x": 1} and out.value == {"v": 1}
    assert out.headers == (Header("kid", None, 7),)


def test_header_from_errors() -> None:
    with pytest.raises(ConfigError, match="same number of elements"):
        make(HeaderFromValue, fields="a,b", headers="x", operation="copy")
    with pytest.raises(ConfigError, match="operation"):
        make(HeaderFromValue, fields="a", headers="x", operation="swap")
    t = make(HeaderFromValue, fields="nope", headers="x", operation="copy")
    with pytest.raises(DataError, match="nope"):
        t.apply(rec(Struct(VALUE_SCHEMA, {"id": 1, "name": "n"}), VALUE_SCHEMA))
