"""What is Iceberg's own in the sink's second table format, on a real local Spark with Iceberg 1.11 and real Kafka
topics (the MERGE rules, deletes, truncates, SCD2, keyless tables, transaction-consistent mode and the PostgreSQL end
to end run for both formats in the other files, through the `table_format` fixture):
- schema evolution follows Iceberg's type promotions (int → bigint, float → double, decimal precision), refuses what
  Iceberg cannot do in place (decimal scale growth, date → timestamp: Delta widens those) naming the column, the types
  and the rule, adds new columns and keeps dropped ones; 8/16-bit integers are stored as int; a widened key column
  still matches its deletes recorded under the narrower type;
- tables are created format-version 2, merge-on-read, with the configured properties and partition columns in the
  configured namespace of a Hadoop catalog on the warehouse;
- OPTIMIZE (rewrite_data_files) and VACUUM (expire_snapshots) run when due, their last runs kept as table properties
  so a new job run knows them;
- a write under `once_per_batch` commits at most once per (writer, batch id), through the snapshot summary."""

from __future__ import annotations

import logging
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.integration.spark_sink.debezium_records import Table, decimal_b64, f
from tests.integration.spark_sink.support import Kafka, format_settings, ledger_items, run_job, table_frame, table_rows
from tests.integration.spark_sink.test_evolution import DATE, DAY, ID, NOON_US, Source, dec

pytestmark = [pytest.mark.integration, pytest.mark.spark]

MICRO_TS = f("v", "int64", True, "io.debezium.time.MicroTimestamp")


def config_for(tmp_path: Path, kafka_bootstrap: str, name: str, **over: Any) -> Any:
    from spark_sink.config import SinkConfig

    settings: dict[str, Any] = {
        "bootstrap_servers": kafka_bootstrap,
        "topic_pattern": f"{name}\\.public\\..*",
        "warehouse": str(tmp_path / "warehouse"),
        "checkpoint": str(tmp_path / "checkpoint"),
        "table_name_template": "{table}",
        "query_name": f"q_{name}",
        **format_settings("iceberg", name),
    }
    return SinkConfig(**(settings | over))


def types(spark: Any, config: Any, table: str) -> dict[str, str]:
    return {fld.name: fld.dataType.simpleString() for fld in table_frame(spark, config, table).schema}


def values(spark: Any, config: Any, table: str, column: str = "v") -> dict[Any, Any]:
    return {r["id"]: r[column] for r in table_rows(spark, config, table)}


def dead_letters(spark: Any, config: Any) -> dict[str, list[str]]:
    path = Path(config.warehouse) / "_dead_letter"
    out: dict[str, list[str]] = {}
    if path.exists():
        for r in spark.read.format("delta").load(str(path)).collect():
            out.setdefault(r["table"], []).append(r["reason"])
    return out


def iceberg_table(spark: Any, config: Any, table: str) -> Any:
    from spark_sink.table_format import for_config

    fmt = for_config(config)
    fmt.prepare_session(spark)
    return fmt, fmt.ref(table)


def test_iceberg_evolution_follows_its_type_promotions(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str
) -> None:
    src = Source(unique_name, Kafka(kafka_bootstrap), ["ints", "floats", "precision", "scale", "dates", "dropped"])
    config = config_for(tmp_path, kafka_bootstrap, unique_name)
    src.send("ints", 1, {"id": 1, "v": 300}, f("v", "int16"), op="c")
    src.send("floats", 1, {"id": 1, "v": 1.5}, f("v", "float"), op="c")
    src.send("precision", 1, {"id": 1, "v": decimal_b64(Decimal("12345678.91"), 2)}, dec(10, 2), op="c")
    src.send("scale", 1, {"id": 1, "v": decimal_b64(Decimal("12345678.91"), 2)}, dec(10, 2), op="c")
    src.send("dates", 1, {"id": 1, "v": DAY}, DATE, op="c")
    for key in (1, 2):
        src.send("dropped", key, {"id": key, "v": key, "c": "one"}, f("v", "int32"), f("c", "string"), op="c")
    src.kafka.flush()
    run_job(spark, config)
    assert types(spark, config, "ints")["v"] == "int"  # Iceberg has no 16-bit integer
    fmt, ref = iceberg_table(spark, config, "ints")
    props = fmt.layout(spark, ref).properties
    assert props["format-version"] == "2" and props["write.merge.mode"] == "merge-on-read"
    assert ref.location == str(tmp_path / "warehouse" / "default" / "ints")
    assert (tmp_path / "warehouse" / "default" / "ints" / "metadata").is_dir()

    src.send("ints", 2, {"id": 1, "v": 2**40}, f("v", "int64"))
    src.send("floats", 2, {"id": 2, "v": 0.1}, f("v", "double"), op="c")
    src.send("precision", 2, {"id": 2, "v": decimal_b64(Decimal("123456789012.34"), 2)}, dec(14, 2), op="c")
    src.send("scale", 2, {"id": 2, "v": decimal_b64(Decimal("12345678.9123"), 4)}, dec(12, 4), op="c")
    src.send("dates", 2, {"id": 2, "v": NOON_US}, MICRO_TS, op="c")
    src.send("dropped", 10, {"id": 1, "v": 10}, f("v", "int32"))  # ALTER TABLE … DROP COLUMN c
    src.send("dropped", 11, {"id": 3, "v": 3, "extra": "e"}, f("v", "int32"), f("extra", "string"), op="c")
    src.kafka.flush()
    processor = run_job(spark, config)

    assert types(spark, config, "ints")["v"] == "bigint" and values(spark, config, "ints") == {1: 2**40}
    assert types(spark, config, "floats")["v"] == "double" and values(spark, config, "floats") == {1: 1.5, 2: 0.1}
    assert types(spark, config, "precision")["v"] == "decimal(14,2)"
    assert values(spark, config, "precision")[2] == Decimal("123456789012.34")
    dead = dead_letters(spark, config)
    assert sorted(dead) == ["dates", "scale"]
    assert (
        "column 'v': table has decimal(10,2), source now sends decimal(12,4) (Iceberg widens only" in dead["scale"][0]
    )
    assert "decimal(10,2) → decimal(12,4)" in dead["scale"][0]
    assert "column 'v': table has date, source now sends timestamp_ntz" in dead["dates"][0]
    assert types(spark, config, "scale")["v"] == "decimal(10,2)" and types(spark, config, "dates")["v"] == "date"
    got = {r["id"]: (r["v"], r["c"], r["extra"]) for r in table_rows(spark, config, "dropped")}
    assert got == {1: (10, "one", None), 2: (2, "one", None), 3: (3, None, "e")}
    assert processor.history[0].dead_letters == 2

    src.send("ints", 3, {"id": 2, "v": -8}, f("v", "int8"), op="c")  # an older, narrower event after the promotion
    src.send("floats", 3, {"id": 1, "v": 2.5}, f("v", "float"))
    src.kafka.flush()
    processor = run_job(spark, config)
    assert values(spark, config, "ints") == {1: 2**40, 2: -8} and types(spark, config, "ints")["v"] == "bigint"
    assert values(spark, config, "floats")[1] == 2.5
    assert processor.history[0].dead_letters == 0


def test_a_widened_iceberg_key_with_hard_deletes(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str
) -> None:
    src = Source(unique_name, Kafka(kafka_bootstrap), ["keyed"])
    config = config_for(tmp_path, kafka_bootstrap, unique_name)
    for lsn, key, op in ((1, 1, "c"), (2, 2, "c"), (3, 1, "d")):
        src.send("keyed", lsn, {"id": key, "v": 1}, f("v", "int32"), op=op, key=ID)
    src.kafka.flush()
    run_job(spark, config)
    wide = f("id", "int64", False)
    for lsn, key, op in ((4, 2**40, "c"), (5, 2**40, "d"), (6, 2**41, "c"), (1, 1, "c")):  # the last: a replay
        src.send("keyed", lsn, {"id": key, "v": 2}, f("v", "int32"), op=op, key=wide)
    src.kafka.flush()
    processor = run_job(spark, config)
    assert processor.history[0].dead_letters == 0, dead_letters(spark, config)
    assert values(spark, config, "keyed") == {2: 1, 2**41: 2}  # the replayed insert of key 1 stays deleted
    assert types(spark, config, "keyed")["id"] == "bigint"
    assert ledger_items(spark, tmp_path / "warehouse", "keyed") == [(1, 3, "d"), (2**40, 5, "d")]


def test_iceberg_layout_scheduled_maintenance_and_once_per_batch(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str, caplog: pytest.LogCaptureFixture
) -> None:
    import time

    kafka = Kafka(kafka_bootstrap)
    fields = [f("id", "int32", False), f("v", "string"), f("region", "string")]
    customers = Table(unique_name, "public", "customers", fields, ["id"])
    kafka.create(customers.topic)
    config = config_for(
        tmp_path,
        kafka_bootstrap,
        unique_name,
        database="shop",
        table_properties={"app.owner": "sales", "write.parquet.compression-codec": "snappy"},
        partition_columns=("region",),
        optimize_interval="1 hours",
        vacuum_interval="1 hours",
        vacuum_retention="1 minutes",
    )

    def send(lsn: int, key: int, region: str) -> None:
        row = {"id": key, "v": f"v{lsn}", "region": region}
        kafka.send(customers.topic, customers.key_bytes(row), customers.value_bytes("u", lsn, row))

    def done(operation: str) -> int:
        lines = [r.getMessage() for r in caplog.records]
        return sum(1 for m in lines if m.startswith(f"table customers: {operation}") and " done (every 1 hours)" in m)

    for lsn, key, region in ((1, 1, "eu"), (2, 2, "us"), (3, 3, "eu")):
        send(lsn, key, region)
    kafka.flush()
    now = time.time()
    with caplog.at_level(logging.INFO, logger="spark_sink"):
        run_job(spark, config, clock=lambda: now)
    fmt, ref = iceberg_table(spark, config, "customers")
    assert ref.sql == f"`{config.catalog}`.`shop`.`customers`"
    assert ref.location == str(tmp_path / "warehouse" / "shop" / "customers")
    layout = fmt.layout(spark, ref)
    assert layout.partition_columns == ("region",)
    assert layout.properties["app.owner"] == "sales" and layout.properties["format-version"] == "2"
    assert layout.properties["write.parquet.compression-codec"] == "snappy"
    assert done("OPTIMIZE") == 1 and done("expire_snapshots") == 1  # never run before: due at once
    assert layout.properties["cdc.last-optimize-ms"] == str(int(now * 1000))
    assert sorted(r["id"] for r in spark.table(f"{config.catalog}.shop.customers").collect()) == [1, 2, 3]

    # a new job run 10 minutes later: the last runs are read back from the table, nothing is due
    send(4, 1, "us")
    kafka.flush()
    with caplog.at_level(logging.INFO, logger="spark_sink"):
        run_job(spark, config, clock=lambda: now + 600)
    assert done("OPTIMIZE") == 1 and done("expire_snapshots") == 1
    assert len(spark.sql(f"SELECT * FROM {ref.sql}.snapshots").collect()) > 1

    # two hours later both are due again; the expiry (older than 1 minute) keeps only the newest snapshot
    send(5, 2, "eu")
    kafka.flush()
    with caplog.at_level(logging.INFO, logger="spark_sink"):
        run_job(spark, config, clock=lambda: now + 7200)
    assert done("OPTIMIZE") == 2 and done("expire_snapshots") == 2
    assert len(spark.sql(f"SELECT * FROM {ref.sql}.snapshots").collect()) == 1
    assert values(spark, config, "customers") == {1: "v4", 2: "v5", 3: "v3"}

    # at most once per (writer, batch id): the batch id travels in the snapshot summary
    with fmt.once_per_batch(spark, ref, "writer-a", 7) as first:
        assert first
        spark.sql(f"UPDATE {ref.sql} SET v = 'once' WHERE id = 3")
    assert fmt.committed_batch(spark, ref, "writer-a") == 7
    with fmt.once_per_batch(spark, ref, "writer-a", 7) as again:
        assert not again  # already committed: the caller writes nothing
    with fmt.once_per_batch(spark, ref, "writer-b", 7) as other:
        assert other  # another writer's ids are its own
    with fmt.once_per_batch(spark, ref, "writer-a", 8) as later:
        assert later
    assert spark.conf.get("spark.sql.iceberg.snapshot-property.cdc.batch-id", None) is None  # unset after
