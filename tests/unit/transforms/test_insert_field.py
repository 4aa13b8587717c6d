from __future__ import annotations

import datetime as dt

import pytest

from connect_worker.api.errors import DataError
from connect_worker.api.schema import (
    INT32_SCHEMA,
    INT64_SCHEMA,
    OPTIONAL_INT32_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    Schema,
    Type,
    struct_schema,
    timestamp_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.transforms.insert_field import InsertFieldKey, InsertFieldValue

from ._helpers import make, rec

ROW = struct_schema(
    [("id", INT64_SCHEMA), ("n", Schema(Type.INT32, optional=True, default=5))],
    name="db.public.t.Value",
    optional=True,
    version=3,
)


def test_with_schema_appends_fields_in_kafka_order() -> None:
    t = make(
        InsertFieldValue,
        {
            "static.field": "src",
            "static.value": "pg",
            "timestamp.field": "ts!",
            "partition.field": "part",
            "topic.field": "topic!",
        },
    )
    out = t.apply(rec(Struct(ROW, {"id": 1}), ROW, topic="db.public.t", partition=2, timestamp=1000))
    s = out.value_schema
    assert [(f.name, f.schema) for f in s.fields] == [
        ("id", INT64_SCHEMA),
        ("n", ROW.fields[1].schema),
        ("topic", STRING_SCHEMA),
        ("part", OPTIONAL_INT32_SCHEMA),
        ("ts", timestamp_schema()),
        ("src", OPTIONAL_STRING_SCHEMA),
    ]
    # name/version/doc kept; optionality is not (Kafka's copySchemaBasics)
    assert (s.name, s.version, s.optional) == ("db.public.t.Value", 3, False)
    # null with a default becomes the default (replace.null.with.default=true)
    assert out.value.values == (1, 5, "db.public.t", 2, dt.datetime(1970, 1, 1, 0, 0, 1, tzinfo=dt.UTC), "pg")


def test_replace_null_with_default_off() -> None:
    t = make(InsertFieldValue, {"static.field": "x", "static.value": "v", "replace.null.with.default": "false"})
    out = t.apply(rec(Struct(ROW, {"id": 1}), ROW))
    assert out.value.values == (1, None, "v")


def test_schema_is_cached_per_input_schema() -> None:
    t = make(InsertFieldValue, **{"topic.field": "t"})
    a = t.apply(rec(Struct(ROW, {"id": 1}), ROW))
    b = t.apply(rec(Struct(ROW, {"id": 2}), ROW))
    assert a.value_schema is b.value_schema


def test_required_suffix_partition() -> None:
    t = make(InsertFieldValue, **{"partition.field": "p!"})
    out = t.apply(rec(Struct(ROW, {"id": 1}), ROW, partition=4))
    assert out.value_schema.field("p").schema == INT32_SCHEMA


def test_schemaless() -> None:
    t = make(
        InsertFieldValue, **{"topic.field": "t", "timestamp.field": "ts", "static.field": "s", "static.value": "v"}
    )
    out = t.apply(rec({"a": 1}, topic="x", timestamp=99))
    assert out.value == {"a": 1, "t": "x", "ts": 99, "s": "v"}
    assert out.value_schema is None


def test_key_side_and_tombstones() -> None:
    t = make(InsertFieldKey, **{"topic.field": "t"})
    out = t.apply(rec({"v": 1}, key={"id": 1}, topic="x"))
    assert out.key == {"id": 1, "t": "x"} and out.value == {"v": 1}
    tombstone = rec(None, key={"id": 1})
    assert make(InsertFieldValue, **{"topic.field": "t"}).apply(tombstone) is tombstone


def test_offset_is_sink_only_and_map_required() -> None:
    with pytest.raises(DataError, match="Offset insertion is only supported for sink connectors"):
        make(InsertFieldValue, **{"offset.field": "o"}).apply(rec({"a": 1}))
    with pytest.raises(DataError, match=r"Only Map objects supported in absence of schema for \[field insertion\]"):
        make(InsertFieldValue, **{"topic.field": "t"}).apply(rec("string"))
