from __future__ import annotations

import pytest

from connect_worker.api.errors import DataError
from connect_worker.api.schema import (
    INT32_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    STRING_SCHEMA,
    Schema,
    SchemaBuilder,
    Type,
    struct_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.transforms.flatten import FlattenKey, FlattenValue

from ._helpers import make, rec

LEAF = struct_schema([("x", INT32_SCHEMA), ("y", Schema(Type.STRING, default="d"))], name="leaf", optional=True)
MID = struct_schema([("leaf", LEAF), ("z", INT32_SCHEMA)], name="mid")
TOP = struct_schema(
    [("id", INT32_SCHEMA), ("mid", MID), ("tags", SchemaBuilder.array(STRING_SCHEMA).build())], name="top"
)


def test_flatten_with_schema() -> None:
    value = Struct(
        TOP, {"id": 1, "mid": Struct(MID, {"leaf": Struct(LEAF, {"x": 2, "y": "b"}), "z": 3}), "tags": ["t"]}
    )
    out = make(FlattenValue).apply(rec(value, TOP))
    s = out.value_schema
    assert [f.name for f in s.fields] == ["id", "mid.leaf.x", "mid.leaf.y", "mid.z", "tags"]
    assert s.name == "top"
    # fields under an optional struct become optional; defaults are kept
    assert s.field("mid.leaf.x").schema == OPTIONAL_INT32_SCHEMA
    assert s.field("mid.leaf.y").schema.optional and s.field("mid.leaf.y").schema.default == "d"
    assert s.field("mid.z").schema == INT32_SCHEMA
    assert out.value.values == (1, 2, "b", 3, ["t"])


def test_flatten_null_nested_struct_and_delimiter() -> None:
    value = Struct(TOP, {"id": 1, "mid": Struct(MID, {"leaf": None, "z": 3}), "tags": []})
    out = make(FlattenValue, delimiter="_").apply(rec(value, TOP))
    assert out.value.as_dict() == {"id": 1, "mid_leaf_x": None, "mid_leaf_y": None, "mid_z": 3, "tags": []}


def test_flatten_tombstone_keeps_flat_schema() -> None:
    out = make(FlattenValue).apply(rec(None, TOP))
    assert out.value is None and [f.name for f in out.value_schema.fields][1] == "mid.leaf.x"


def test_flatten_schemaless() -> None:
    out = make(FlattenKey).apply(rec(None, key={"a": {"b": {"c": 1}, "d": [1, 2]}, "e": None}))
    assert out.key == {"a.b.c": 1, "a.d": [1, 2], "e": None}
    with pytest.raises(DataError, match="Flatten transformation does not support"):
        make(FlattenKey).apply(rec(None, key={"a": object()}))
