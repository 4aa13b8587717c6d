from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from connect_worker.api.errors import ConfigError, DataError
from connect_worker.api.schema import (
    BOOLEAN_SCHEMA,
    INT8_SCHEMA,
    INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    struct_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.transforms.mask_field import MaskFieldKey, MaskFieldValue
from connect_worker.transforms.replace_field import ReplaceFieldKey, ReplaceFieldValue

from ._helpers import make, rec

S = struct_schema(
    [("id", INT32_SCHEMA), ("name", STRING_SCHEMA), ("secret", OPTIONAL_STRING_SCHEMA), ("ok", BOOLEAN_SCHEMA)],
    name="row",
)
V = Struct(S, {"id": 7, "name": "ann", "secret": "pw", "ok": True})


def test_replace_field_exclude_and_rename_with_schema() -> None:
    t = make(ReplaceFieldValue, exclude="secret", renames="name:full_name,id:key")
    out = t.apply(rec(V, S))
    assert [f.name for f in out.value_schema.fields] == ["key", "full_name", "ok"]
    assert out.value_schema.name == "row"
    assert out.value.values == (7, "ann", True)


def test_replace_field_include_schemaless_key() -> None:
    t = make(ReplaceFieldKey, include="a,b", exclude="b")
    out = t.apply(rec(None, key={"a": 1, "b": 2, "c": 3}))
    assert out.key == {"a": 1}


def test_replace_field_tombstone_passes() -> None:
    r = rec(None)
    assert make(ReplaceFieldValue, exclude="x").apply(r) is r


def test_replace_field_bad_rename() -> None:
    with pytest.raises(ConfigError, match="Invalid rename mapping: a"):
        make(ReplaceFieldValue, renames="a")
    assert ReplaceFieldValue.config_def().validate({"renames": "a:b:c"})["renames"].errors


def test_mask_field_defaults_with_schema() -> None:
    out = make(MaskFieldValue, fields="id,name,secret,ok").apply(rec(V, S))
    assert out.value_schema is S
    assert out.value.values == (0, "", "", False)


def test_mask_field_null_stays_null() -> None:
    v = Struct(S, {"id": 1, "name": "x", "ok": False})
    assert make(MaskFieldValue, fields="secret").apply(rec(v, S)).value.get("secret") is None


def test_mask_field_replacement() -> None:
    out = make(MaskFieldValue, fields="name,id", replacement="42").apply(rec(V, S))
    assert out.value.get("name") == "42" and out.value.get("id") == 42
    with pytest.raises(DataError, match="Cannot mask value of type bool with custom replacement"):
        make(MaskFieldValue, fields="ok", replacement="x").apply(rec(V, S))
    with pytest.raises(DataError, match="Unable to mask value of type int with replacement abc"):
        make(MaskFieldValue, fields="id", replacement="abc").apply(rec(V, S))


def test_mask_field_int8_range() -> None:
    s = struct_schema([("b", INT8_SCHEMA)])
    with pytest.raises(DataError):
        make(MaskFieldValue, fields="b", replacement="300").apply(rec(Struct(s, {"b": 1}), s))


def test_mask_field_schemaless() -> None:
    value = {
        "i": 5,
        "f": 1.5,
        "d": Decimal("3.3"),
        "t": dt.datetime(2024, 1, 1, tzinfo=dt.UTC),
        "l": [1],
        "m": {"a": 1},
        "keep": "x",
    }
    out = make(MaskFieldKey, fields="i,f,d,t,l,m,missing").apply(rec(None, key=value))
    assert out.key == {
        "i": 0,
        "f": 0.0,
        "d": Decimal(0),
        "t": dt.datetime(1970, 1, 1, tzinfo=dt.UTC),
        "l": [],
        "m": {},
        "keep": "x",
        "missing": None,
    }


def test_mask_field_requires_fields() -> None:
    with pytest.raises(ConfigError):
        make(MaskFieldValue, fields="")
    with pytest.raises(ConfigError, match="replacement"):
        make(MaskFieldValue, fields="a", replacement="")
