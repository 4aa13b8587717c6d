"""Schema evolution on a real local[2] Spark and real Kafka topics of synthetic Debezium records: each type widening
Debezium sends after an ALTER COLUMN (int8/int16 → int32 → int64, float → double, numeric precision and scale growth,
date → timestamp, a varchar length) widens the Delta table, within one batch and across batches, on a table the job
creates and on an older one without the type widening feature; events of the older type are still written; other
type changes go to the dead letter (or stop a fail-fast job) naming the column and both types; a dropped column stays
in the table (NULL for new rows, kept by updates), and a column dropped and added back continues, widens or is
refused."""

from __future__ import annotations

import datetime as dt
import logging
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.integration.spark_sink.debezium_records import Table, decimal_b64, f
from tests.integration.spark_sink.support import Kafka, ledger_items, rows, run_job

pytestmark = [pytest.mark.integration, pytest.mark.spark]

DEC = "org.apache.kafka.connect.data.Decimal"
ID = f("id", "int32", False)


def dec(precision: int, scale: int, name: str = "v") -> dict[str, Any]:
    return f(name, "bytes", True, DEC, parameters={"scale": str(scale), "connect.decimal.precision": str(precision)})


def varchar(length: int) -> dict[str, Any]:
    params = {"__debezium.source.column.type": "VARCHAR", "__debezium.source.column.length": str(length)}
    return f("v", "string", True, parameters=params)


DATE = f("v", "int32", True, "io.debezium.time.Date")
MICRO_TS = f("v", "int64", True, "io.debezium.time.MicroTimestamp")
DAY = 19724  # 2024-01-02
MIDNIGHT = dt.datetime(2024, 1, 2)
NOON_US = (DAY * 86_400 + 12 * 3_600) * 1_000_000  # 2024-01-02 12:00 in µs since the epoch


class Source:
    """The topics of one test: one source table per scenario, `send` with the schema of the moment."""

    def __init__(self, prefix: str, kafka: Kafka, names: list[str]) -> None:
        self.kafka = kafka
        self.tables = {n: Table(prefix, "public", n, [ID], ["id"]) for n in names}
        for t in self.tables.values():
            kafka.create(t.topic)

    def send(
        self, table: str, lsn: int, row: dict[str, Any], *fields: dict[str, Any], op: str = "u", key: Any = ID
    ) -> None:
        t = self.tables[table]
        schema = [key, *fields]
        t.fields = schema  # the key schema is the key column's field of the moment
        after = None if op == "d" else row
        before = {"id": row["id"]} if op == "d" else None
        self.kafka.send(t.topic, t.key_bytes(row), t.value_bytes(op, lsn, after, before, fields=schema))


@pytest.fixture
def env(tmp_path: Path, unique_name: str, kafka_bootstrap: str) -> dict[str, Any]:
    from spark_sink.config import SinkConfig

    def config(**over: Any) -> Any:
        settings: dict[str, Any] = {
            "bootstrap_servers": kafka_bootstrap,
            "topic_pattern": f"{unique_name}\\.public\\..*",
            "warehouse": str(tmp_path / "warehouse"),
            "checkpoint": str(tmp_path / "checkpoint"),
            "table_name_template": "{table}",
            "query_name": f"q_{unique_name}",
        }
        return SinkConfig(**(settings | over))

    return {"prefix": unique_name, "kafka": Kafka(kafka_bootstrap), "config": config, "wh": tmp_path / "warehouse"}


def table_types(spark: Any, path: Path) -> dict[str, str]:
    return {fld.name: fld.dataType.simpleString() for fld in spark.read.format("delta").load(str(path)).schema}


def values(spark: Any, path: Path, column: str = "v") -> dict[int, Any]:
    return {r["id"]: r[column] for r in rows(spark, str(path))}


def properties(spark: Any, path: Path) -> dict[str, str]:
    from delta.tables import DeltaTable

    detail = DeltaTable.forPath(spark, str(path)).detail().first()
    assert detail is not None
    return dict(detail["properties"])


def dead_letters(spark: Any, wh: Path) -> dict[str, list[dict[str, Any]]]:
    out: dict[str, list[dict[str, Any]]] = {}
    if (wh / "_dead_letter").exists():
        for d in rows(spark, str(wh / "_dead_letter"), "offset"):
            out.setdefault(d["table"], []).append(d)
    return out


def test_each_widening_within_one_batch_then_older_events_into_the_wider_table(spark: Any, env: dict[str, Any]) -> None:
    src = Source(env["prefix"], env["kafka"], ["ints", "floats", "precision", "scale", "text"])
    wh, config = env["wh"], env["config"]()
    # one batch: the events before the source's ALTER carry the old type, the later ones the new
    src.send("ints", 1, {"id": 1, "v": 1}, f("v", "int8"), op="c")
    src.send("ints", 2, {"id": 2, "v": 300}, f("v", "int16"), op="c")
    src.send("ints", 3, {"id": 3, "v": 70_000}, f("v", "int32"), op="c")
    src.send("ints", 4, {"id": 4, "v": 2**40}, f("v", "int64"), op="c")
    src.send("ints", 5, {"id": 1, "v": 2**41}, f("v", "int64"))
    src.send("floats", 1, {"id": 1, "v": 1.5}, f("v", "float"), op="c")
    src.send("floats", 2, {"id": 2, "v": 0.1}, f("v", "double"), op="c")
    src.send("precision", 1, {"id": 1, "v": decimal_b64(Decimal("12345678.91"), 2)}, dec(10, 2), op="c")
    src.send("precision", 2, {"id": 2, "v": decimal_b64(Decimal("123456789012.34"), 2)}, dec(14, 2), op="c")
    src.send("scale", 1, {"id": 1, "v": decimal_b64(Decimal("12345678.91"), 2)}, dec(10, 2), op="c")
    src.send("scale", 2, {"id": 2, "v": decimal_b64(Decimal("12345678.9123"), 4)}, dec(12, 4), op="c")
    src.send("text", 1, {"id": 1, "v": "short"}, varchar(10), op="c")
    src.send("text", 2, {"id": 2, "v": "l" * 150}, varchar(200), op="c")
    env["kafka"].flush()
    processor = run_job(spark, config)

    assert table_types(spark, wh / "ints")["v"] == "bigint"
    assert values(spark, wh / "ints") == {1: 2**41, 2: 300, 3: 70_000, 4: 2**40}
    assert table_types(spark, wh / "floats")["v"] == "double"
    assert values(spark, wh / "floats") == {1: 1.5, 2: 0.1}
    assert table_types(spark, wh / "precision")["v"] == "decimal(14,2)"
    assert values(spark, wh / "precision") == {1: Decimal("12345678.91"), 2: Decimal("123456789012.34")}
    assert table_types(spark, wh / "scale")["v"] == "decimal(12,4)"
    assert values(spark, wh / "scale") == {1: Decimal("12345678.9100"), 2: Decimal("12345678.9123")}
    assert table_types(spark, wh / "text")["v"] == "string"
    assert values(spark, wh / "text") == {1: "short", 2: "l" * 150}
    assert properties(spark, wh / "ints").get("delta.enableTypeWidening") == "true"  # set on the tables it creates
    assert not dead_letters(spark, wh) and processor.history[0].dead_letters == 0

    # events of the older type after the table widened (a replay, a late partition, a source narrowing) fit
    src.send("ints", 6, {"id": 2, "v": 7}, f("v", "int16"))
    src.send("ints", 7, {"id": 5, "v": -8}, f("v", "int8"), op="c")
    src.send("floats", 3, {"id": 1, "v": 2.5}, f("v", "float"))
    src.send("precision", 3, {"id": 3, "v": decimal_b64(Decimal("-1.05"), 2)}, dec(10, 2), op="c")
    src.send("scale", 3, {"id": 3, "v": decimal_b64(Decimal("0.01"), 2)}, dec(10, 2), op="c")
    src.send("text", 3, {"id": 1, "v": "again"}, varchar(10))
    env["kafka"].flush()
    processor = run_job(spark, config)
    assert values(spark, wh / "ints") == {1: 2**41, 2: 7, 3: 70_000, 4: 2**40, 5: -8}
    assert table_types(spark, wh / "ints")["v"] == "bigint"  # the table never narrows
    assert values(spark, wh / "floats")[1] == 2.5
    assert values(spark, wh / "precision")[3] == Decimal("-1.05")
    assert values(spark, wh / "scale")[3] == Decimal("0.0100")
    assert values(spark, wh / "text")[1] == "again"
    assert not dead_letters(spark, wh) and processor.history[0].dead_letters == 0


def test_each_widening_across_batches_also_on_an_older_table_and_scd2(
    spark: Any, env: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    from pyspark.sql import types as T

    from spark_sink.config import TableConfig
    from spark_sink.delta.tables import META_FIELDS, create_table

    names = ["i8", "i16", "i32", "floats", "precision", "scale", "dates", "text", "older", "hist"]
    src = Source(env["prefix"], env["kafka"], names)
    wh = env["wh"]
    config = env["config"](tables={src.tables["hist"].topic: TableConfig(scd2=True)})
    # a table created by the job before it enabled type widening: the same columns, no table feature
    old_schema = T.StructType([T.StructField("id", T.IntegerType()), T.StructField("v", T.IntegerType())])
    create_table(spark, str(wh / "older"), T.StructType(old_schema.fields + META_FIELDS))
    assert "delta.enableTypeWidening" not in properties(spark, wh / "older")

    old: list[tuple[str, Any, dict[str, Any]]] = [
        ("i8", 1, f("v", "int8")),
        ("i16", 300, f("v", "int16")),
        ("i32", 70_000, f("v", "int32")),
        ("floats", 1.5, f("v", "float")),
        ("precision", decimal_b64(Decimal("12345678.91"), 2), dec(10, 2)),
        ("scale", decimal_b64(Decimal("12345678.91"), 2), dec(10, 2)),
        ("dates", DAY, DATE),
        ("text", "short", varchar(10)),
        ("older", 70_000, f("v", "int32")),
        ("hist", 70_000, f("v", "int32")),
    ]
    new: list[tuple[str, Any, dict[str, Any]]] = [
        ("i8", 300, f("v", "int16")),
        ("i16", 70_000, f("v", "int32")),
        ("i32", 2**40, f("v", "int64")),
        ("floats", 0.1, f("v", "double")),
        ("precision", decimal_b64(Decimal("123456789012.34"), 2), dec(14, 2)),
        ("scale", decimal_b64(Decimal("12345678.9123"), 4), dec(12, 4)),
        ("dates", NOON_US, MICRO_TS),
        ("text", "l" * 150, varchar(200)),
        ("older", 2**40, f("v", "int64")),
        ("hist", 2**40, f("v", "int64")),
    ]
    for table, v, fld in old:
        src.send(table, 1, {"id": 1, "v": v}, fld, op="c")
    env["kafka"].flush()
    run_job(spark, config)
    assert table_types(spark, wh / "i32")["v"] == "int" and table_types(spark, wh / "dates")["v"] == "date"

    for table, v, fld in new:  # after the source's ALTER COLUMN: an update of row 1 and a new row 2
        src.send(table, 2, {"id": 1, "v": v}, fld)
        src.send(table, 3, {"id": 2, "v": v}, fld, op="c")
    # a new timestamp column on a table without one (Delta needs its timestampNtz feature enabled first)
    src.send("text", 4, {"id": 2, "v": "l" * 150, "at": NOON_US}, varchar(200), dict(MICRO_TS, field="at"))
    env["kafka"].flush()
    with caplog.at_level(logging.INFO, logger="spark_sink"):
        processor = run_job(spark, config)
    assert processor.history[0].dead_letters == 0, dead_letters(spark, wh)
    expected = {
        "i8": ("smallint", 300),
        "i16": ("int", 70_000),
        "i32": ("bigint", 2**40),
        "floats": ("double", 0.1),
        "precision": ("decimal(14,2)", Decimal("123456789012.34")),
        "scale": ("decimal(12,4)", Decimal("12345678.9123")),
        "dates": ("timestamp_ntz", MIDNIGHT + dt.timedelta(hours=12)),
        "text": ("string", "l" * 150),
        "older": ("bigint", 2**40),
    }
    for table, (type_, v) in expected.items():
        assert table_types(spark, wh / table)["v"] == type_, table
        assert values(spark, wh / table) == {1: v, 2: v}, table
        assert properties(spark, wh / table).get("delta.enableTypeWidening") == "true", table
    logged = [r.getMessage() for r in caplog.records if "enabled" in r.getMessage()]
    assert sorted(logged) == [
        f"table {wh / 'dates'}: table feature timestampNtz enabled for v (delta.feature.timestampNtz = supported)",
        f"table {wh / 'older'}: type widening enabled for its first widened column (delta.enableTypeWidening = true)",
        f"table {wh / 'text'}: table feature timestampNtz enabled for at (delta.feature.timestampNtz = supported)",
    ]
    assert any(f"table {wh / 'i32'}: widened v int → bigint" == r.getMessage() for r in caplog.records)
    versions = rows(spark, str(wh / "hist"), "_cdc_pos")
    assert table_types(spark, wh / "hist")["v"] == "bigint"
    assert values(spark, wh / "text", "at") == {1: None, 2: MIDNIGHT + dt.timedelta(hours=12)}
    assert [(r["id"], r["v"], r["is_current"]) for r in versions] == [
        (1, 70_000, False),
        (1, 2**40, True),
        (2, 2**40, True),
    ]

    # older-typed events after the widening (the worker re-sending events from before the ALTER, a lagging partition)
    for table, v, fld in old:
        src.send(table, 4, {"id": 3, "v": v}, fld, op="c")
    env["kafka"].flush()
    processor = run_job(spark, config)
    assert processor.history[0].dead_letters == 0, dead_letters(spark, wh)
    assert values(spark, wh / "i32")[3] == 70_000 and values(spark, wh / "i8")[3] == 1
    assert values(spark, wh / "dates")[3] == MIDNIGHT  # a date in a timestamp column: its midnight
    assert values(spark, wh / "precision")[3] == Decimal("12345678.91")
    assert values(spark, wh / "scale")[3] == Decimal("12345678.9100")
    assert table_types(spark, wh / "dates")["v"] == "timestamp_ntz"
    assert [r["v"] for r in rows(spark, str(wh / "hist"), "_cdc_pos")][-1] == 70_000


def test_changes_that_are_no_widening_are_refused_naming_column_and_types(spark: Any, env: dict[str, Any]) -> None:
    from pyspark.errors import StreamingQueryException

    src = Source(env["prefix"], env["kafka"], ["to_text", "scale_shrink", "mixed", "ok"])
    wh, config = env["wh"], env["config"]()
    src.send("to_text", 1, {"id": 1, "v": 1}, f("v", "int32"), op="c")
    src.send("scale_shrink", 1, {"id": 1, "v": decimal_b64(Decimal("1.2345"), 4)}, dec(10, 4), op="c")
    env["kafka"].flush()
    run_job(spark, config)

    src.send("to_text", 2, {"id": 1, "v": "one"}, f("v", "string"))
    src.send("scale_shrink", 2, {"id": 1, "v": decimal_b64(Decimal("12345678.91"), 2)}, dec(10, 2))
    src.send("mixed", 1, {"id": 1, "v": 1}, f("v", "int64"), op="c")  # a new table, both types in one batch
    src.send("mixed", 2, {"id": 1, "v": "1"}, f("v", "string"))
    src.send("ok", 1, {"id": 1, "v": 1}, f("v", "int32"), op="c")  # other tables go on
    env["kafka"].flush()
    processor = run_job(spark, config)

    dead = dead_letters(spark, wh)
    assert sorted(dead) == ["mixed", "scale_shrink", "to_text"]
    assert [d["stage"] for d in dead["to_text"]] == ["schema"]
    assert "column 'v': table has int, source now sends string" in dead["to_text"][0]["reason"]
    assert "column 'v': table has decimal(10,4), source now sends decimal(10,2)" in dead["scale_shrink"][0]["reason"]
    assert [d["stage"] for d in dead["mixed"]] == ["plan", "plan"]
    assert "column 'v' changes type within the batch: long → string" in dead["mixed"][0]["reason"]
    assert values(spark, wh / "to_text") == {1: 1} and table_types(spark, wh / "to_text")["v"] == "int"
    assert values(spark, wh / "scale_shrink") == {1: Decimal("1.2345")}
    assert values(spark, wh / "ok") == {1: 1}
    assert processor.history[0].dead_letters == 4

    # fail-fast: the same refusal stops the query (and the batch is replayed at the next start)
    src.send("to_text", 3, {"id": 1, "v": "uno"}, f("v", "string"))
    src.send("ok", 2, {"id": 2, "v": 2}, f("v", "int32"), op="c")
    env["kafka"].flush()
    strict = env["config"](fail_fast=True)
    with pytest.raises(StreamingQueryException, match="column 'v': table has int, source now sends string"):
        run_job(spark, strict)


def test_a_dropped_column_stays_new_rows_get_null_updates_keep_it_then_it_is_added_back(
    spark: Any, env: dict[str, Any]
) -> None:
    from spark_sink.config import TableConfig

    names = ["same", "wider", "clash", "soft", "hist"]
    src = Source(env["prefix"], env["kafka"], names)
    wh = env["wh"]
    config = env["config"](
        tables={
            src.tables["soft"].topic: TableConfig(delete_mode="soft"),
            src.tables["hist"].topic: TableConfig(scd2=True),
        }
    )
    before = {
        "same": f("c", "string"),
        "wider": f("c", "int32"),
        "clash": f("c", "int32"),
        "soft": f("c", "string"),
        "hist": f("c", "string"),
    }
    first = {"same": "one", "wider": 1, "clash": 1, "soft": "one", "hist": "one"}
    for table in names:
        for key in (1, 2):
            src.send(table, key, {"id": key, "v": key, "c": first[table]}, f("v", "int32"), before[table], op="c")
    env["kafka"].flush()
    run_job(spark, config)

    # ALTER TABLE … DROP COLUMN c: the events no longer carry it
    for table in names:
        src.send(table, 10, {"id": 1, "v": 10}, f("v", "int32"))
        src.send(table, 11, {"id": 3, "v": 3}, f("v", "int32"), op="c")
    env["kafka"].flush()
    processor = run_job(spark, config)
    assert processor.history[0].dead_letters == 0
    for table in ("same", "soft"):
        got = {r["id"]: (r["v"], r["c"]) for r in rows(spark, str(wh / table))}
        assert got == {1: (10, "one"), 2: (2, "one"), 3: (3, None)}, table
        assert "c" in table_types(spark, wh / table)
    versions = [(r["id"], r["v"], r["c"], r["is_current"]) for r in rows(spark, str(wh / "hist"), "_cdc_pos")]
    # an SCD2 version is the row as the source has it then: no value for a dropped column
    assert versions == [(1, 1, "one", False), (2, 2, "one", True), (1, 10, None, True), (3, 3, None, True)]

    # ADD COLUMN c again: with the same type, a wider one, and one that does not widen
    src.send("same", 20, {"id": 3, "v": 3, "c": "back"}, f("v", "int32"), f("c", "string"))
    src.send("wider", 20, {"id": 3, "v": 3, "c": 2**40}, f("v", "int32"), f("c", "int64"))
    src.send("clash", 20, {"id": 3, "v": 3, "c": "text"}, f("v", "int32"), f("c", "string"))
    env["kafka"].flush()
    processor = run_job(spark, config)
    # rows the source did not change since keep their pre-drop value (Debezium sends no event for ADD COLUMN)
    assert values(spark, wh / "same", "c") == {1: "one", 2: "one", 3: "back"}
    assert values(spark, wh / "wider", "c") == {1: 1, 2: 1, 3: 2**40}
    assert table_types(spark, wh / "wider")["c"] == "bigint"
    assert values(spark, wh / "clash", "c") == {1: 1, 2: 1, 3: None}
    dead = dead_letters(spark, wh)
    assert sorted(dead) == ["clash"]
    assert "column 'c': table has int, source now sends string" in dead["clash"][0]["reason"]


def test_date_to_timestamp_within_one_batch(spark: Any, env: dict[str, Any]) -> None:
    src = Source(env["prefix"], env["kafka"], ["dates"])
    src.send("dates", 1, {"id": 1, "v": DAY}, DATE, op="c")
    src.send("dates", 2, {"id": 2, "v": NOON_US}, MICRO_TS, op="c")
    src.send("dates", 3, {"id": 3, "v": DAY}, DATE, op="c")  # an older-typed event after the widening
    src.send("dates", 4, {"id": 4, "v": DAY + 1}, DATE, op="c")
    src.send("dates", 5, {"id": 4, "v": NOON_US}, MICRO_TS)  # one key's date, then its timestamp
    env["kafka"].flush()
    processor = run_job(spark, env["config"]())
    assert processor.history[0].dead_letters == 0, dead_letters(spark, env["wh"])
    noon = MIDNIGHT + dt.timedelta(hours=12)
    assert values(spark, env["wh"] / "dates") == {1: MIDNIGHT, 2: noon, 3: MIDNIGHT, 4: noon}
    assert table_types(spark, env["wh"] / "dates")["v"] == "timestamp_ntz"


def test_a_column_dropped_within_one_batch_is_kept_by_later_updates(spark: Any, env: dict[str, Any]) -> None:
    src = Source(env["prefix"], env["kafka"], ["same"])
    src.send("same", 1, {"id": 1, "v": 1, "c": "one"}, f("v", "int32"), f("c", "string"), op="c")
    src.send("same", 2, {"id": 2, "v": 2, "c": "two"}, f("v", "int32"), f("c", "string"), op="c")
    env["kafka"].flush()
    run_job(spark, env["config"]())
    src.send("same", 3, {"id": 1, "v": 1, "c": "uno"}, f("v", "int32"), f("c", "string"))
    src.send("same", 4, {"id": 2, "v": 20}, f("v", "int32"))  # after the drop
    src.send("same", 5, {"id": 1, "v": 10}, f("v", "int32"))  # keeps the batch's earlier value of its key
    src.send("same", 6, {"id": 3, "v": 30}, f("v", "int32"), op="c")  # a new row: nothing to keep
    env["kafka"].flush()
    run_job(spark, env["config"]())
    assert values(spark, env["wh"] / "same", "c") == {1: "uno", 2: "two", 3: None}
    assert values(spark, env["wh"] / "same") == {1: 10, 2: 20, 3: 30}


def test_a_widened_key_column_with_hard_deletes(spark: Any, env: dict[str, Any]) -> None:
    src = Source(env["prefix"], env["kafka"], ["keyed"])
    for lsn, key, op in ((1, 1, "c"), (2, 2, "c"), (3, 1, "d")):  # the delete creates the ledger, keyed by int
        src.send("keyed", lsn, {"id": key, "v": 1}, f("v", "int32"), op=op)
    env["kafka"].flush()
    run_job(spark, env["config"]())
    wide = f("id", "int64", False)
    # ALTER COLUMN id TYPE bigint; the last: a replay of key 1's insert, older than its delete (recorded as an int)
    for lsn, key, op in ((4, 2**40, "c"), (5, 2**40, "d"), (6, 2**41, "c"), (1, 1, "c")):
        src.send("keyed", lsn, {"id": key, "v": 2}, f("v", "int32"), op=op, key=wide)
    env["kafka"].flush()
    processor = run_job(spark, env["config"]())
    assert processor.history[0].dead_letters == 0, dead_letters(spark, env["wh"])
    assert values(spark, env["wh"] / "keyed") == {2: 1, 2**41: 2}  # key 1 stays deleted
    assert ledger_items(spark, env["wh"], "keyed") == [(1, 3, "d"), (2**40, 5, "d")]
    processor.ledger.compact(None)  # the int-typed entry is rewritten as a bigint one, and still guards
    assert ledger_items(spark, env["wh"], "keyed", stored=True) == [(1, 3, "d"), (2**40, 5, "d")]
    src.send("keyed", 2, {"id": 1, "v": 3}, f("v", "int32"), op="u", key=wide)
    env["kafka"].flush()
    run_job(spark, env["config"]())
    assert values(spark, env["wh"] / "keyed") == {2: 1, 2**41: 2}
    # key 1 comes back (newer than everything the ledger holds: unread); compaction finds its row, by the bigint key
    src.send("keyed", 7, {"id": 1, "v": 4}, f("v", "int32"), op="c", key=wide)
    env["kafka"].flush()
    processor = run_job(spark, env["config"]())
    assert values(spark, env["wh"] / "keyed") == {1: 4, 2: 1, 2**41: 2}
    processor.ledger.compact(None)
    assert ledger_items(spark, env["wh"], "keyed", stored=True) == [(2**40, 5, "d")]
