from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError
from connect_worker.api.schema import STRING_SCHEMA
from connect_worker.api.struct import Struct
from connect_worker.transforms.debezium.by_logical_table_router import ByLogicalTableRouter, schema_name_adjuster

from . import _debezium as dbz
from ._helpers import make

SHARD = {"topic.regex": r"dbserver1\.public\.(customers)", "topic.replacement": "all.$1"}


def test_routes_and_renames_schemas() -> None:
    t = make(ByLogicalTableRouter, SHARD)
    record = dbz.update(4)
    out = t.apply(record)
    assert out.topic == "all.customers"
    assert out.key_schema.name == "all.customers.Key"
    assert [(f.name, f.schema) for f in out.key_schema.fields] == [
        ("id", dbz.KEY.fields[0].schema),
        ("__dbz__physicalTableIdentifier", STRING_SCHEMA),
    ]
    assert out.key.values == (4, "dbserver1.public.customers")
    env = out.value_schema
    assert env.name == "all.customers.Envelope" and env.version == 2
    assert env.field("before").schema.name == "all.customers.Value"
    assert env.field("after").schema is env.field("before").schema
    assert env.field("after").schema.optional
    assert env.field("source").schema is dbz.SOURCE
    assert out.value.get("after").values == dbz.row(4, email="new@x.org").values
    assert out.value.get("after").schema is env.field("after").schema
    assert out.value.get("op") == "u"
    # cached
    assert t.apply(dbz.create(5)).value_schema is env


def test_key_field_regex_and_no_uniqueness() -> None:
    t = make(
        ByLogicalTableRouter,
        {**SHARD, "key.field.regex": r"(dbserver1)\..*", "key.field.replacement": "$1", "key.field.name": "shard"},
    )
    out = t.apply(dbz.create(1))
    assert out.key.as_dict() == {"id": 1, "shard": "dbserver1"}
    plain = make(ByLogicalTableRouter, {**SHARD, "key.enforce.uniqueness": "false"}).apply(dbz.create(1))
    assert [f.name for f in plain.key_schema.fields] == ["id"] and plain.key_schema.name == "all.customers.Key"


def test_tombstones_and_non_matching_topics() -> None:
    t = make(ByLogicalTableRouter, SHARD)
    tomb = t.apply(dbz.tombstone(3))
    assert tomb.topic == "all.customers" and tomb.value is None
    assert tomb.key == Struct(
        tomb.key_schema, {"id": 3, "__dbz__physicalTableIdentifier": "dbserver1.public.customers"}
    )
    hb = dbz.heartbeat()
    assert t.apply(hb) is hb
    keyless = dbz.truncate()
    out = t.apply(keyless)
    assert out.topic == "all.customers" and out.key is None and out.key_schema is None


def test_schema_name_adjustment() -> None:
    t = make(
        ByLogicalTableRouter,
        {"topic.regex": "(.*)", "topic.replacement": "1-logical-$1", "schema.name.adjustment.mode": "avro"},
    )
    out = t.apply(dbz.create(1))
    assert out.key_schema.name == "__logical_dbserver1.public.customers.Key"
    assert schema_name_adjuster("avro_unicode")("a-b") == "a_u002db"
    assert schema_name_adjuster("none")("a-b") == "a-b"


def test_config_errors() -> None:
    with pytest.raises(ConfigError, match=r"topic.replacement"):
        make(ByLogicalTableRouter, {"topic.regex": "x"})
    with pytest.raises(ConfigError, match=r"key.field.replacement must be non-empty if key.field.regex is set"):
        make(ByLogicalTableRouter, {**SHARD, "key.field.regex": "(.*)"})
    with pytest.raises(ConfigError, match=r"logical.table.cache.size"):
        make(ByLogicalTableRouter, {**SHARD, "logical.table.cache.size": "0"})
