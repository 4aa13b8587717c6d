"""YBExtractNewRecordState on records the YugabyteDB connector builds: cells flattened, null cells left out."""

from __future__ import annotations

from typing import Any

import pytest

from benchmarks import micro
from connect_worker.api import SourceRecord, Struct, Type
from connect_worker.transforms.debezium.yb_extract_new_record_state import YBExtractNewRecordState
from connectors.relational.emitter import record_factory
from connectors.relational.schema_builder import EnvelopeLayout
from connectors.yugabytedb.source_info import YugabyteSourceInfo
from tests.unit.yugabytedb.test_events import yb_schema

TS = yb_schema()
NAMES = [c.name for c in TS.table.columns]
SOURCE = YugabyteSourceInfo("yb", "db").struct(
    ts_us=1, schema="public", table="bench", tx_id=1, lsn=10, last_commit_lsn=None
)
RECORDS = record_factory(EnvelopeLayout.V2_5, partition={"server": "yb"}, headers=(), tombstones_on_delete=True)


def smt(**config: str) -> YBExtractNewRecordState:
    t = YBExtractNewRecordState()
    t.configure(config)
    return t


def row(**changes: Any) -> tuple[Any, ...]:
    values = list(micro._rows(1)[0])
    for name, v in changes.items():
        values[NAMES.index(name)] = v
    return tuple(values)


def create(values: tuple[Any, ...]) -> SourceRecord:
    key_fn, value_fn = TS.row_converter(NAMES)
    after = value_fn(values)
    assert key_fn is not None
    return RECORDS.read_or_create(TS, "yb.public.bench", "c", key_fn(values), after, SOURCE, None, {"lsn": 10})


def test_cells_become_values_and_null_cells_disappear() -> None:
    out = smt().apply(create(row(email=None, note=None)))
    assert out is not None and isinstance(out.value, Struct) and isinstance(out.key, Struct)
    assert [f.name for f in out.value.schema.fields] == ["id", "account", "name", "amount", "created", "doc", "active"]
    assert out.value.get("id") == int(row()[0]) and out.value.get("name") == row()[2]
    name_field = out.value.schema.field("name")
    assert name_field is not None and name_field.schema.type is Type.STRING  # the cell's value schema
    assert out.value.schema.name == "yb.public.bench.Value" and not out.value.schema.optional
    assert out.key.schema.fields[0].schema.type is Type.INT64 and out.key.get("id") == int(row()[0])
    assert out.value_schema is out.value.schema and out.key_schema is out.key.schema
    full = smt().apply(create(row()))
    assert full is not None and isinstance(full.value, Struct) and len(full.value.schema.fields) == len(NAMES)


@pytest.mark.parametrize(("mode", "kept"), [("tombstone", True), ("drop", False), ("rewrite", True)])
def test_deletes_and_tombstones(mode: str, kept: bool) -> None:
    key_fn, value_fn = TS.row_converter(["id"])
    assert key_fn is not None
    key, before = key_fn(("7",)), value_fn(("7",))
    delete, tombstone = RECORDS.delete(TS, "yb.public.bench", key, before, SOURCE, None, {"lsn": 11})
    t = smt(**{"delete.tombstone.handling.mode": mode})
    out = t.apply(delete)
    if not kept:
        assert out is None
        return
    assert out is not None and isinstance(out.key, Struct) and out.key.get("id") == 7
    if mode == "rewrite":
        assert isinstance(out.value, Struct)
        assert [f.name for f in out.value.schema.fields] == ["id", "__deleted"]
        assert out.value.values == (7, "true")
    else:
        assert out.value is None and out.value_schema is None  # as YugabyteDB's transform leaves it
        gone = t.apply(tombstone)
        assert gone is not None and gone.value is None and isinstance(gone.key, Struct) and gone.key.get("id") == 7
