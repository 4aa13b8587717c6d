"""Pure tests of schema evolution: which type changes widen a column (Delta 4.4's type widening during schema
evolution), the schema union of one batch whose events carry the old and the new type, and the Spark ↔ sink type
mapping the table check compares with."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

import pytest
from pyspark.sql import types as T

from spark_sink.connect_schema import parse_schema
from spark_sink.decoding.base import ChangeEvent, RawRecord, RowSchema
from spark_sink.planning import IncompatibleSchemaError, plan_table, union_schema
from spark_sink.position import SourcePosition
from spark_sink.spark_types import from_spark, to_spark
from spark_sink.types import default_registry
from spark_sink.types.model import (
    BINARY,
    BOOLEAN,
    BYTE,
    DATE,
    DOUBLE,
    FLOAT,
    INT,
    LONG,
    SHORT,
    STRING,
    TIMESTAMP,
    TIMESTAMP_NTZ,
    ArrayT,
    DecimalT,
    MapT,
    SinkType,
    StructT,
)
from spark_sink.types.widening import common, converts_values, widen_value, widens

WIDENINGS: list[tuple[SinkType, SinkType]] = [
    (BYTE, SHORT),
    (BYTE, INT),
    (BYTE, LONG),
    (SHORT, INT),
    (SHORT, LONG),
    (INT, LONG),
    (FLOAT, DOUBLE),
    (DecimalT(10, 2), DecimalT(14, 2)),  # numeric(10,2) → numeric(14,2): connect.decimal.precision grows
    (DecimalT(10, 2), DecimalT(12, 4)),  # scale +2 with precision +2: the integer digits stay 8
    (DecimalT(10, 2), DecimalT(38, 2)),
    (DATE, TIMESTAMP_NTZ),
    (ArrayT(INT), ArrayT(LONG)),
    (MapT(STRING, FLOAT), MapT(STRING, DOUBLE)),
    (StructT((("x", SHORT), ("d", DATE))), StructT((("x", LONG), ("d", TIMESTAMP_NTZ)))),
]
REFUSED: list[tuple[SinkType, SinkType]] = [
    (INT, STRING),
    (STRING, INT),
    (INT, DOUBLE),  # Delta supports it by ALTER TABLE only, never during schema evolution
    (INT, DecimalT(10, 0)),  # the same
    (LONG, DOUBLE),
    (DecimalT(10, 4), DecimalT(10, 2)),  # scale shrinks
    (DecimalT(10, 2), DecimalT(11, 4)),  # scale grows but the integer digits shrink (8 → 7)
    (TIMESTAMP, TIMESTAMP_NTZ),
    (TIMESTAMP_NTZ, TIMESTAMP),
    (DATE, TIMESTAMP),
    (BOOLEAN, INT),
    (BINARY, STRING),
    (StructT((("x", INT),)), StructT((("y", LONG),))),
]


@pytest.mark.parametrize(("old", "new"), WIDENINGS)
def test_widenings_delta_applies(old: SinkType, new: SinkType) -> None:
    assert widens(old, new) and not widens(new, old)
    assert common(old, new) == new and common(new, old) == new  # the narrower side (older events) fits the wider


@pytest.mark.parametrize(("old", "new"), REFUSED)
def test_other_changes_have_no_common_type(old: SinkType, new: SinkType) -> None:
    assert not widens(old, new)
    assert common(old, new) is None and common(new, old) is None


def test_common_type_of_containers_is_taken_element_by_element() -> None:
    a, b = StructT((("x", INT), ("y", LONG))), StructT((("x", LONG), ("y", INT)))
    assert not widens(a, b) and not widens(b, a)
    assert common(a, b) == StructT((("x", LONG), ("y", LONG)))
    assert common(MapT(INT, LONG), MapT(LONG, INT)) == MapT(LONG, LONG)
    assert common(ArrayT(StructT((("x", INT),))), ArrayT(StructT((("x", STRING),)))) is None


def test_only_dates_change_their_values() -> None:
    assert [old for old, new in WIDENINGS if converts_values(old, new)] == [DATE, StructT((("x", SHORT), ("d", DATE)))]
    assert converts_values(ArrayT(DATE), ArrayT(TIMESTAMP_NTZ))
    assert widen_value(dt.date(2024, 1, 2), DATE, TIMESTAMP_NTZ) == dt.datetime(2024, 1, 2)
    nested = widen_value([dt.date(2024, 1, 2), None], ArrayT(DATE), ArrayT(TIMESTAMP_NTZ))
    assert nested == [dt.datetime(2024, 1, 2), None]
    struct = StructT((("x", SHORT), ("d", DATE))), StructT((("x", LONG), ("d", TIMESTAMP_NTZ)))
    assert widen_value((7, dt.date(2024, 1, 2)), *struct) == (7, dt.datetime(2024, 1, 2))
    assert widen_value(Decimal("12.34"), DecimalT(10, 2), DecimalT(14, 2)) == Decimal("12.34")
    assert widen_value(None, DATE, TIMESTAMP_NTZ) is None


# -- the batch's schema union --------------------------------------------------------------------------------------


def event(lsn: int, key: int, value: Any, type_: SinkType, *, typed: bool = True, drop: bool = False) -> ChangeEvent:
    columns: tuple[tuple[str, SinkType], ...] = (("id", INT),) if drop else (("id", INT), ("v", type_))
    row = {"id": key} if drop else {"id": key, "v": value}
    return ChangeEvent(
        raw=RawRecord("p.s.t", 0, lsn, None, None),
        op="u",
        key={"id": key},
        row=row,
        schema=RowSchema(columns),
        position=SourcePosition(0, lsn, 0),
        typed=typed,
    )


@pytest.mark.parametrize(("old", "new"), [w for w in WIDENINGS if not converts_values(*w)])
def test_a_batch_with_the_old_and_the_new_type_takes_the_wider(old: SinkType, new: SinkType) -> None:
    schema, typed = union_schema([event(1, 1, None, old), event(2, 2, None, new)])
    assert typed and schema.type_of("v") == new
    # the source position decides which events are older, not the Kafka order; a narrowing keeps the wider type
    assert union_schema([event(2, 2, None, new), event(1, 1, None, old)])[0].type_of("v") == new
    assert union_schema([event(1, 1, None, new), event(2, 2, None, old)])[0].type_of("v") == new


def test_a_chain_of_widenings_in_one_batch_ends_at_the_widest() -> None:
    events = [event(1, 1, 1, BYTE), event(2, 1, 2, SHORT), event(3, 2, 3, INT), event(4, 3, 2**40, LONG)]
    plan = plan_table("t", events)
    assert plan.schema.type_of("v") == LONG
    assert {e.row["v"] for e in plan.changes if e.row} == {2, 3, 2**40}  # ints stay ints


def test_a_change_that_is_no_widening_fails_the_batch_with_column_and_types() -> None:
    with pytest.raises(IncompatibleSchemaError, match=r"column 'v' changes type within the batch: int → string"):
        union_schema([event(1, 1, 1, INT), event(2, 1, "x", STRING)])
    with pytest.raises(IncompatibleSchemaError, match=r"decimal\(10,4\) → decimal\(10,2\)"):
        union_schema([event(1, 1, None, DecimalT(10, 4)), event(2, 1, None, DecimalT(10, 2))])


def test_date_to_timestamp_within_one_batch_is_refused_until_the_plan_converts_dates() -> None:
    with pytest.raises(IncompatibleSchemaError, match=r"date → timestamp_ntz; this widening is applied across"):
        union_schema([event(1, 1, dt.date(2024, 1, 2), DATE), event(2, 2, dt.datetime(2024, 1, 2), TIMESTAMP_NTZ)])
    alone = union_schema([event(2, 2, dt.datetime(2024, 1, 2), TIMESTAMP_NTZ)])[0]
    assert alone.type_of("v") == TIMESTAMP_NTZ


def test_a_dropped_column_stays_in_the_union_and_schemaless_types_still_merge() -> None:
    schema, _ = union_schema([event(1, 1, 5, INT), event(2, 2, None, INT, drop=True)])
    assert schema.names == ("id", "v")
    loose, typed = union_schema([event(1, 1, 1, LONG, typed=False), event(2, 1, 1.5, DOUBLE, typed=False)])
    assert not typed and loose.type_of("v") == DOUBLE


# -- what the Connect schemas give, and what the table check compares ------------------------------------------------

REG = default_registry()
DEC = "org.apache.kafka.connect.data.Decimal"


def sink(schema: dict[str, Any]) -> SinkType:
    return REG.mapping_for(parse_schema(schema)).sink_type


def test_debezium_schema_changes_map_to_widenings() -> None:
    def decimal(precision: str, scale: str) -> dict[str, Any]:
        params = {"scale": scale, "connect.decimal.precision": precision}
        return {"type": "bytes", "name": DEC, "parameters": params}

    assert widens(sink({"type": "int16"}), sink({"type": "int32"}))  # smallint → int
    assert widens(sink({"type": "int32"}), sink({"type": "int64"}))  # ALTER COLUMN … TYPE bigint
    assert widens(sink({"type": "float"}), sink({"type": "double"}))  # real → double precision
    assert widens(sink(decimal("10", "2")), sink(decimal("14", "2")))  # numeric(10,2) → numeric(14,2)
    assert widens(sink(decimal("10", "2")), sink(decimal("12", "4")))
    assert not widens(sink(decimal("10", "4")), sink(decimal("10", "2")))
    date = {"type": "int32", "name": "io.debezium.time.Date"}
    assert widens(sink(date), sink({"type": "int64", "name": "io.debezium.time.MicroTimestamp"}))  # date → timestamp


def test_a_varchar_length_is_no_type() -> None:
    def varchar(length: str) -> dict[str, Any]:
        params = {"__debezium.source.column.type": "VARCHAR", "__debezium.source.column.length": length}
        return {"type": "string", "parameters": params}

    assert sink(varchar("10")) == sink(varchar("200")) == STRING


@pytest.mark.parametrize(
    "t",
    [
        BYTE,
        SHORT,
        INT,
        LONG,
        FLOAT,
        DOUBLE,
        BOOLEAN,
        STRING,
        BINARY,
        DATE,
        TIMESTAMP,
        TIMESTAMP_NTZ,
        DecimalT(14, 2),
        ArrayT(LONG),
        MapT(STRING, DecimalT(10, 2)),
        StructT((("wkb", BINARY), ("srid", INT))),
    ],
)
def test_table_types_read_back_as_sink_types(t: SinkType) -> None:
    assert from_spark(to_spark(t)) == t


def test_table_types_the_sink_never_writes_have_no_sink_type() -> None:
    assert from_spark(T.VarcharType(10)) is None
    assert from_spark(T.ArrayType(T.CharType(3))) is None
    assert from_spark(T.StructType([T.StructField("i", T.DayTimeIntervalType())])) is None
