"""YugabyteDB's event shapes, built by the shared schema builder: yboutput's {value, set} cells, Debezium
2.5's envelope and source block (spec yugabytedb.md §1.3, §3.4, §3.5)."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks import micro
from connect_worker.api import Struct, Type
from connectors.postgres.protocol.toast import UNCHANGED_TOAST
from connectors.postgres.value_converters import TypeOptions, converter_for
from connectors.relational import metadata_schemas as md
from connectors.relational.emitter import record_factory
from connectors.relational.schema_builder import (
    EnvelopeLayout,
    SchemaBuilderSettings,
    TableSchema,
    _compile,
    _compile_generic,
)
from connectors.relational.table import Table, TableId
from connectors.yugabytedb.source_info import YB_SOURCE_SCHEMA, YugabyteSourceInfo


def yb_schema(table: Table | None = None, *, key_columns: tuple[str, ...] | None = None) -> TableSchema:
    """A table's schemas as the YugabyteDB connector builds them with yboutput (the benchmark table by default)."""
    options = TypeOptions()
    return TableSchema(
        table if table is not None else micro._table(),
        SchemaBuilderSettings(
            topic_prefix="yb",
            converter_for=lambda c: converter_for(c, options),
            mapper_for=lambda t, c: None,
            key_columns_for=lambda t: key_columns,
            column_included=lambda t, c: True,
            adjust_schema_name=lambda s: s,
            adjust_field_name=lambda s: s,
            source_schema=YB_SOURCE_SCHEMA,
            transaction_schema=md.EVENT_BLOCK_SCHEMA,
            wrap_cells=True,
            envelope=EnvelopeLayout.V2_5,
        ),
    )


def test_every_column_is_a_cell_named_for_it() -> None:
    ts = yb_schema()
    for field in ts.value_schema.fields:
        cell = field.schema
        assert cell.type is Type.STRUCT
        assert cell.name == field.name
        assert [(f.name, f.schema.type, f.schema.optional) for f in cell.fields][1] == ("set", Type.BOOLEAN, False)
        assert cell.fields[0].name == "value"
    by_name = {f.name: f.schema for f in ts.value_schema.fields}
    assert not by_name["id"].optional and not by_name["id"].fields[0].schema.optional  # NOT NULL column
    assert by_name["name"].optional and by_name["name"].fields[0].schema.optional
    assert ts.key_schema is not None
    (key_field,) = ts.key_schema.fields
    assert key_field.name == "id" and key_field.schema.type is Type.STRUCT and not key_field.schema.optional


def test_values_null_and_left_out_columns() -> None:
    ts = yb_schema()
    names = [c.name for c in ts.table.columns]
    key_fn, value_fn = ts.row_converter(names)
    row: list[Any] = list(micro._rows(1)[0])
    row[names.index("email")] = None  # SQL NULL
    row[names.index("note")] = UNCHANGED_TOAST  # left out of a CHANGE update ('u' on the wire)
    after = value_fn(row)
    assert after.get("id").values == (int(row[0]), True)
    assert after.get("name").values == (row[names.index("name")], True)
    assert after.get("email") is None
    assert after.get("note") is None  # never the PostgreSQL connector's placeholder
    assert key_fn is not None
    key = key_fn(row)
    assert key.get("id").values == (int(row[0]), True)
    assert ts.key_from_value is not None and ts.key_from_value(after) == key


def test_a_nullable_key_column_is_keyed_from_its_own_converter() -> None:
    ts = yb_schema(key_columns=("email",))
    assert ts.key_schema is not None and not ts.key_schema.fields[0].schema.optional
    assert ts.key_from_value is None  # the value's cell is optional, the key's required
    names = [c.name for c in ts.table.columns]
    key_fn, _ = ts.row_converter(names)
    row = micro._rows(1)[0]
    assert key_fn is not None and key_fn(row).get("email").values == (row[names.index("email")], True)


def test_partial_rows_keep_null_cells() -> None:
    ts = yb_schema()
    names = ["id"]
    _, value_fn = ts.row_converter(names)
    before = value_fn(("7",))
    assert ts.partial_row(before) is before
    assert before.get("account") is None  # NOT NULL, yet no value: YugabyteDB's connector leaves it null


@pytest.mark.parametrize("snapshot", [False, True])
def test_generated_cells_equal_the_generic_loop(snapshot: bool) -> None:
    ts = yb_schema()
    order = [c.name for c in ts.table.columns][::-1]
    index = {n: i for i, n in enumerate(order)}
    rows: list[tuple[Any, ...]] = [tuple(reversed(r)) for r in micro._rows(20)]
    rows.append(tuple(None for _ in order))
    rows.append(tuple(UNCHANGED_TOAST if n == "doc" else v for n, v in zip(order, rows[0], strict=True)))
    generated = _compile(ts.value_schema, ts.value_fields, index, snapshot)
    generic = _compile_generic(ts.value_schema, ts.value_fields, index, snapshot)
    for row in rows:
        assert generated(row) == generic(row)


def test_debezium_2_5_envelope_and_source() -> None:
    ts = yb_schema()
    assert [f.name for f in ts.envelope_schema.fields] == ["before", "after", "source", "op", "ts_ms", "transaction"]
    assert [f.name for f in YB_SOURCE_SCHEMA.fields] == [
        "version", "connector", "name", "ts_ms", "snapshot", "db", "sequence", "schema", "table", "txId", "lsn", "xmin",
    ]  # fmt: skip
    info = YugabyteSourceInfo("yb", "yugabyte")
    block = info.template(ts_us=1_559_033_904_863_123, schema="public", table="t", tx_id=555, last_commit_lsn=24023119)
    source = block.at(24023128)
    assert source == info.struct(
        ts_us=1_559_033_904_863_123, schema="public", table="t", tx_id=555, lsn=24023128, last_commit_lsn=24023119
    )
    assert dict(zip([f.name for f in YB_SOURCE_SCHEMA.fields], source.values, strict=True)) == {
        "version": "2.5.2.Final",
        "connector": "YugabyteDB",
        "name": "yb",
        "ts_ms": 1559033904863,
        "snapshot": None,
        "db": "yugabyte",
        "sequence": '["24023119","24023128"]',
        "schema": "public",
        "table": "t",
        "txId": 555,
        "lsn": 24023128,
        "xmin": None,
    }
    snap = info.snapshot_template(schema="public", table="t", tx_id=9, lsn=100).at(2_000_000, "first")
    assert snap == info.struct(ts_us=2_000_000, schema="public", table="t", tx_id=9, lsn=100, last_commit_lsn=None,
                               snapshot="first")  # fmt: skip

    records = record_factory(EnvelopeLayout.V2_5, partition={"server": "yb"}, headers=(), tombstones_on_delete=True)
    _, value_fn = ts.row_converter([c.name for c in ts.table.columns])
    after = value_fn(micro._rows(1)[0])
    record = records.read_or_create(ts, "yb.public.bench", "c", None, after, source, None, {"lsn": 1})
    value = record.value
    assert isinstance(value, Struct)
    assert value.values[:5:] == (None, after, source, "c", value.get("ts_ms")) and value.get("transaction") is None
    (deleted, tombstone) = records.delete(ts, "yb.public.bench", record.key or after, after, source, None, {"lsn": 2})
    assert isinstance(deleted.value, Struct) and deleted.value.get("op") == "d" and tombstone.value is None
    assert TableId("public", "bench") == ts.id
