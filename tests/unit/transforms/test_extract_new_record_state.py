from __future__ import annotations

from typing import Any

import pytest

from connect_worker.api.errors import ConfigError
from connect_worker.api.record import Header, SourceRecord
from connect_worker.api.schema import (
    INT64_SCHEMA,
    OPTIONAL_INT64_SCHEMA,
    OPTIONAL_STRING_SCHEMA,
    STRING_SCHEMA,
    SchemaBuilder,
    struct_schema,
)
from connect_worker.api.struct import Struct
from connect_worker.transforms.debezium.extract_new_record_state import ExtractNewRecordState, FieldReference

from . import _debezium as dbz
from ._helpers import make


def smt(props: dict[str, str] | None = None) -> Any:
    return make(ExtractNewRecordState, props or {})


# -- default mode (tombstone) -----------------------------------------------------------------------------
def test_create_becomes_the_after_row() -> None:
    record = dbz.create(1)
    out = smt().apply(record)
    assert out is not None
    assert out.value_schema is dbz.ROW
    assert out.value == dbz.row(1)
    assert (out.topic, out.key, out.key_schema, out.timestamp) == (
        record.topic,
        record.key,
        record.key_schema,
        record.timestamp,
    )
    assert out.headers == dbz.CONTEXT_HEADERS
    assert out.source_offset == record.source_offset


def test_read_and_update_become_after_rows() -> None:
    assert smt().apply(dbz.read(2)).value == dbz.row(2)
    assert smt().apply(dbz.update(3)).value.get("email") == "new@x.org"


def test_default_delete_becomes_null_value_and_tombstone_passes() -> None:
    t = smt()
    out = t.apply(dbz.delete(1))
    assert out is not None and out.value is None
    assert out.value_schema is dbz.ROW  # Debezium keeps the row schema on the rewritten delete
    assert out.key == dbz.delete(1).key
    tomb = dbz.tombstone(1)
    assert t.apply(tomb) is tomb


def test_truncate_is_dropped_and_non_envelopes_pass() -> None:
    t = smt()
    assert t.apply(dbz.truncate()) is None
    hb = dbz.heartbeat()
    assert t.apply(hb) is hb
    schemaless = dbz.create().with_(value_schema=None, value={"after": {"id": 1}})
    assert t.apply(schemaless) is schemaless


# -- every delete.tombstone.handling.mode -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("mode", "delete_kind", "tombstone_kept"),
    [
        ("drop", "dropped", False),
        ("tombstone", "null-value", True),
        ("rewrite", "rewritten", False),
        ("rewrite-with-tombstone", "rewritten", True),
        ("delete-to-tombstone", "tombstone", False),
        ("REWRITE", "rewritten", False),
    ],
)
def test_delete_modes(mode: str, delete_kind: str, tombstone_kept: bool) -> None:
    t = smt({"delete.tombstone.handling.mode": mode})
    out = t.apply(dbz.delete(5))
    if delete_kind == "dropped":
        assert out is None
    elif delete_kind == "null-value":
        assert out is not None and out.value is None and out.value_schema is dbz.ROW
    elif delete_kind == "tombstone":
        assert out is not None and out.value is None and out.value_schema is None
        assert out.key == Struct(dbz.KEY, {"id": 5})
    else:
        assert out is not None
        assert [f.name for f in out.value_schema.fields] == ["id", "email", "status", "__deleted"]
        assert out.value_schema.field("__deleted").schema == OPTIONAL_STRING_SCHEMA
        assert out.value.get("__deleted") == "true"
        assert out.value.get("id") == 5
    tomb = dbz.tombstone(5)
    assert (t.apply(tomb) is tomb) if tombstone_kept else (t.apply(tomb) is None)


@pytest.mark.parametrize("mode", ["rewrite", "rewrite-with-tombstone"])
def test_rewrite_marks_creates_and_updates_not_deleted(mode: str) -> None:
    t = smt({"delete.tombstone.handling.mode": mode})
    for record in (dbz.create(1), dbz.update(1), dbz.read(1)):
        out = t.apply(record)
        assert out is not None
        assert out.value.get("__deleted") == "false"
        # the rebuilt row: Kafka's InsertField copies name/version, not optionality
        assert out.value_schema.name == dbz.ROW.name and not out.value_schema.optional


def test_rewrite_applies_defaults_only_when_asked() -> None:
    record = dbz.event("c", None, dbz.row(1, status=None))
    on = smt({"delete.tombstone.handling.mode": "rewrite"}).apply(record)
    off = smt({"delete.tombstone.handling.mode": "rewrite", "replace.null.with.default": "false"}).apply(record)
    assert on.value.get("status") == "new"
    assert off.value.get("status") is None


# -- add.fields / add.headers -------------------------------------------------------------------------------
def test_add_fields_with_prefix_qualified_and_renamed() -> None:
    t = smt({"add.fields": "op,table,lsn,source.ts_ms,transaction.id,ts_ms:event_ts,nope"})
    out = t.apply(dbz.create(1))
    assert out is not None
    names = [f.name for f in out.value_schema.fields]
    assert names == [
        "id",
        "email",
        "status",
        "__op",
        "__table",
        "__lsn",
        "__source_ts_ms",
        "__transaction_id",
        "__event_ts",
    ]
    assert out.value.as_dict() | {} == {
        "id": 1,
        "email": "a@x.org",
        "status": "active",
        "__op": "c",
        "__table": "customers",
        "__lsn": 22182192,
        "__source_ts_ms": 1795303602364,
        "__transaction_id": "729:22182192",
        "__event_ts": 1795303602825,
    }
    # added fields are optional copies of their envelope schemas
    assert out.value_schema.field("__op").schema == OPTIONAL_STRING_SCHEMA
    assert out.value_schema.field("__source_ts_ms").schema == OPTIONAL_INT64_SCHEMA


def test_add_fields_custom_prefix_and_missing_transaction() -> None:
    t = smt({"add.fields": "op,id", "add.fields.prefix": "meta_"})
    out = t.apply(dbz.read(1))  # snapshot: no transaction block
    assert out.value.get("meta_op") == "r" and out.value.get("meta_id") is None


def test_add_fields_on_rewritten_delete_come_before_deleted() -> None:
    t = smt({"delete.tombstone.handling.mode": "rewrite", "add.fields": "op,source.lsn"})
    out = t.apply(dbz.delete(2))
    assert [f.name for f in out.value_schema.fields][-3:] == ["__op", "__source_lsn", "__deleted"]
    assert out.value.get("__op") == "d" and out.value.get("__deleted") == "true"


def test_add_headers() -> None:
    t = smt({"add.headers": "op,source.ts_ms,db", "add.headers.prefix": "dbz_"})
    out = t.apply(dbz.update(1))
    assert out is not None
    assert out.headers == (
        *dbz.CONTEXT_HEADERS,
        Header("dbz_op", OPTIONAL_STRING_SCHEMA, "u"),
        Header("dbz_source_ts_ms", OPTIONAL_INT64_SCHEMA, 1795303602364),
        Header("dbz_db", OPTIONAL_STRING_SCHEMA, "postgres"),
    )
    deleted = t.apply(dbz.delete(1))
    assert deleted is not None and deleted.value is None
    assert Header("dbz_op", OPTIONAL_STRING_SCHEMA, "d") in deleted.headers


def test_tombstones_get_only_the_op_header() -> None:
    t = smt({"add.headers": "op,lsn"})
    out = t.apply(dbz.tombstone(1))
    assert out is not None
    assert out.headers == (*dbz.CONTEXT_HEADERS, Header("__op", STRING_SCHEMA, "d"))


def test_field_reference_parsing() -> None:
    assert FieldReference.parse("__", "op") == FieldReference(None, "op", "__op")
    assert FieldReference.parse("__", "lsn") == FieldReference("source", "lsn", "__lsn")
    assert FieldReference.parse("__", "total_order") == FieldReference("transaction", "total_order", "__total_order")
    assert FieldReference.parse("x", "source.ts_ms:ts") == FieldReference("source", "ts_ms", "xts")
    with pytest.raises(ConfigError, match="Unexpected field name"):
        smt({"add.fields": "a:b:c"})


# -- routing and field dropping -----------------------------------------------------------------------------
def test_route_by_field() -> None:
    t = smt({"route.by.field": "email", "delete.tombstone.handling.mode": "rewrite"})
    assert t.apply(dbz.create(1)).topic == "a@x.org"
    assert t.apply(dbz.delete(1)).topic == "a@x.org"
    no_email = dbz.event("c", None, dbz.row(1, email=None))
    assert t.apply(no_email).topic == no_email.topic


def _with_drop_header(record: SourceRecord, names: list[str]) -> SourceRecord:
    schema = SchemaBuilder.array(STRING_SCHEMA).optional().build()
    return record.with_(headers=(*record.headers, Header("__changes.unchanged", schema, names)))


def test_drop_fields_keep_schema_compatible_drops_only_optional() -> None:
    t = smt({"drop.fields.header.name": "__changes.unchanged"})
    out = t.apply(_with_drop_header(dbz.update(1), ["id", "email"]))
    assert [f.name for f in out.value_schema.fields] == ["id", "status"]
    assert out.value.as_dict() == {"id": 1, "status": "active"}
    untouched = t.apply(dbz.update(1))
    assert untouched.value_schema is dbz.ROW


def test_drop_fields_incompatible_and_from_key() -> None:
    t = smt(
        {
            "drop.fields.header.name": "__changes.unchanged",
            "drop.fields.keep.schema.compatible": "false",
            "drop.fields.from.key": "true",
        }
    )
    out = t.apply(_with_drop_header(dbz.update(1), ["id"]))
    assert [f.name for f in out.value_schema.fields] == ["email", "status"]
    assert out.key_schema.fields == () and out.key.values == ()


# -- config -----------------------------------------------------------------------------------------------
def test_config_validation() -> None:
    with pytest.raises(ConfigError, match=r"delete.tombstone.handling.mode"):
        smt({"delete.tombstone.handling.mode": "none"})
    errors = ExtractNewRecordState.config_def().validate({"drop.fields.from.key": "maybe"})
    assert errors["drop.fields.from.key"].errors
    # 2.x-era keys are ignored, as in Debezium 3.2+
    assert smt({"drop.tombstones": "false", "delete.handling.mode": "rewrite"}).apply(dbz.delete()).value is None


def test_derived_schemas_are_cached() -> None:
    t = smt({"add.fields": "op"})
    a, b = t.apply(dbz.create(1)), t.apply(dbz.create(2))
    assert a.value_schema is b.value_schema


def test_envelope_without_before_after_passes() -> None:
    odd = struct_schema([("x", INT64_SCHEMA)], name="some.Envelope")
    r = dbz.heartbeat().with_(value_schema=odd, value=Struct(odd, {"x": 1}))
    assert smt().apply(r) is r
