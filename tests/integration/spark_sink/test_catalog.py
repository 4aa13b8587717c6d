"""Named tables, layouts and scheduled maintenance on a real local Spark and real Kafka topics: each table is also a
catalog table `<database>.<table>` at its path (readable by name after inserts, updates and deletes; the name kept
by the next job run, through the job's own embedded metastore when run as `python -m spark_sink`), created with the
configured properties and partition columns (DESCRIBE DETAIL), altered when the properties change, warned about
when the partitioning differs; refused tables (a partition column that is no column, a name taken at another
location, an unknown `delta.` property) go to the dead letter with the reason; OPTIMIZE and VACUUM run when due
by the job's clock and the tables' history, not otherwise."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.spark_sink.debezium_records import Table, f
from tests.integration.spark_sink.support import Kafka, rows, run_job
from tests.integration.spark_sink.test_cli import REPO, environment, flags, spark_sink

pytestmark = [pytest.mark.integration, pytest.mark.spark]

FIELDS = [f("id", "int32", False), f("v", "string"), f("region", "string")]
LISTING = "spark.sql.sources.parallelPartitionDiscovery.parallelism"  # VACUUM lists files with that many tasks


@pytest.fixture
def small_listing(spark: Any) -> Iterator[None]:
    """VACUUM's file listing on 4 tasks, not Spark's default 10000 (seconds per VACUUM on local[2])."""
    before = spark.conf.get(LISTING)
    spark.conf.set(LISTING, "4")
    yield
    spark.conf.set(LISTING, before)


def send(kafka: Kafka, table: Table, op: str, lsn: int, row: dict[str, Any]) -> None:
    after = None if op == "d" else row
    before = {"id": row["id"]} if op == "d" else None
    kafka.send(table.topic, table.key_bytes(row), table.value_bytes(op, lsn, after, before))


def detail(spark: Any, name: str) -> Any:
    return spark.sql(f"DESCRIBE DETAIL {name}").first()


def history(spark: Any, path: Path) -> list[str]:
    from delta.tables import DeltaTable

    return [r["operation"] for r in DeltaTable.forPath(spark, str(path)).history().orderBy("version").collect()]


def maintained(caplog: pytest.LogCaptureFixture, table: str, operation: str) -> int:
    """How many `OPTIMIZE`/`VACUUM` the job logged as done for `table`."""
    lines = [r.getMessage() for r in caplog.records]
    return sum(1 for m in lines if m.startswith(f"table {table}: {operation} ") and " done (every 1 " in m)


def test_named_tables_with_layout_and_scheduled_maintenance(
    spark: Any,
    tmp_path: Path,
    unique_name: str,
    kafka_bootstrap: str,
    caplog: pytest.LogCaptureFixture,
    small_listing: None,
) -> None:
    from spark_sink.config import SinkConfig, TableConfig

    kafka = Kafka(kafka_bootstrap)
    customers, orders, bad_props, taken = (
        Table(unique_name, "public", name, FIELDS, ["id"]) for name in ("customers", "orders", "bad_props", "taken")
    )
    for t in (customers, orders, bad_props, taken):
        kafka.create(t.topic)
    db, wh = f"db_{unique_name}", tmp_path / "wh"
    # a catalog table of the name `taken` exists already, at another location
    other = tmp_path / "elsewhere"
    spark.range(1).write.format("delta").save(str(other))
    spark.sql(f"CREATE DATABASE {db} LOCATION '{tmp_path / 'db'}'")
    spark.sql(f"CREATE TABLE {db}.taken USING delta LOCATION '{other}'")

    for lsn, row in ((100, {"id": 1, "v": "a", "region": "eu"}), (110, {"id": 2, "v": "b", "region": "us"})):
        send(kafka, customers, "c", lsn, row)
    send(kafka, customers, "c", 120, {"id": 3, "v": "c", "region": "eu"})
    for t in (orders, bad_props, taken):
        send(kafka, t, "c", 100, {"id": 1, "v": "x", "region": "eu"})
    kafka.flush()

    def config(**over: Any) -> Any:
        settings: dict[str, Any] = {
            "bootstrap_servers": kafka_bootstrap,
            "topic_pattern": f"{unique_name}\\.public\\..*",
            "warehouse": str(wh),
            "checkpoint": str(tmp_path / "cp"),
            "table_name_template": "{table}",
            "max_offsets_per_trigger": 4,
            "query_name": f"q_{unique_name}",
            "database": db,
            "spark_conf": {"spark.sql.catalogImplementation": "in-memory"},  # the test session's catalog
            "table_properties": {"delta.logRetentionDuration": "interval 40 days", "delta.checkpointInterval": "20"},
            "partition_columns": ("region",),
            "tables": {
                f"{unique_name}.public.customers": TableConfig(table_properties={"delta.checkpointInterval": "15"}),
                f"{unique_name}.public.orders": TableConfig(partition_columns=("nope",)),
                f"{unique_name}.public.bad_props": TableConfig(table_properties={"delta.noSuchProperty": "1"}),
            },
            "optimize_interval": "1 hours",
            "vacuum_interval": "1 days",
        }
        return SinkConfig(**(settings | over))

    now = time.time()
    caplog.set_level(logging.INFO, logger="spark_sink")
    first = run_job(spark, config(), clock=lambda: now)

    batches_with_customers = [m for m in first.history if m.table("customers")]
    assert len(batches_with_customers) >= 2, [m.line() for m in first.history]  # so "not due" is seen in a run
    named = f"{db}.customers"
    got = [r.asDict() for r in spark.table(named).orderBy("id").collect()]
    assert [(r["id"], r["v"], r["region"]) for r in got] == [(1, "a", "eu"), (2, "b", "us"), (3, "c", "eu")]
    d = detail(spark, named)
    assert d["location"] == f"file:{wh / 'customers'}"
    assert d["partitionColumns"] == ["region"]
    assert d["properties"]["delta.logRetentionDuration"] == "interval 40 days"
    assert d["properties"]["delta.checkpointInterval"] == "15"  # the table's own entry over the global one
    # once per run, at the first batch: neither has run before
    assert maintained(caplog, "customers", "OPTIMIZE") == 1
    assert maintained(caplog, "customers", "VACUUM") == 1
    assert history(spark, wh / "customers").count("VACUUM END") == 1

    letters = {r["table"]: r for r in rows(spark, str(wh / "_dead_letter"), "offset")}
    assert set(letters) == {"orders", "bad_props", "taken"}
    assert letters["orders"]["stage"] == "schema"
    assert letters["orders"]["reason"] == (
        "IncompatibleTableError: partition column(s) 'nope' of table orders are not columns of the table "
        "(its columns: id, v, region, _cdc_epoch, _cdc_pos, _cdc_seq, _cdc_op, _cdc_source_ts)"
    )
    assert (
        "[DELTA_UNKNOWN_CONFIGURATION] Unknown configuration was specified: delta.noSuchProperty"
        in (letters["bad_props"]["reason"])
    )
    assert letters["taken"]["reason"] == (
        f"IncompatibleTableError: catalog table `spark_catalog`.`{db}`.`taken` exists at file:{other}, not at the "
        f"table's path {wh / 'taken'}: drop it or choose another database or table name"
    )
    assert not (wh / "orders").exists() and not spark.catalog.tableExists(f"{db}.orders")
    assert spark.table(f"{db}.taken").count() == 1  # left as it was

    # the next run, two hours later: updates and a delete, other properties, no partitioning configured
    caplog.clear()
    send(kafka, customers, "u", 130, {"id": 1, "v": "a2", "region": "eu"})
    send(kafka, customers, "d", 140, {"id": 2, "v": None, "region": None})
    kafka.flush()
    props = {"delta.logRetentionDuration": "interval 60 days"}
    optimized = history(spark, wh / "customers").count("OPTIMIZE")
    run_job(spark, config(table_properties=props, partition_columns=(), tables={}), clock=lambda: now + 7200)

    got = [r.asDict() for r in spark.table(named).orderBy("id").collect()]
    assert [(r["id"], r["v"]) for r in got] == [(1, "a2"), (3, "c")]
    d = detail(spark, named)
    assert d["properties"]["delta.logRetentionDuration"] == "interval 60 days"
    assert d["properties"]["delta.checkpointInterval"] == "15"  # not configured any more: left as it is
    assert d["partitionColumns"] == ["region"]
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert (
        warnings.count(
            "table customers: partitioned by [region], the configuration says []: the sink does not re-partition a "
            "table in place (rewrite it to change it); writing on with its partitioning"
        )
        == 1
    )
    # a new job run: the last VACUUM, two hours ago by the table's history, is not a day old; OPTIMIZE (hourly) is due
    assert maintained(caplog, "customers", "VACUUM") == 0
    assert history(spark, wh / "customers").count("VACUUM END") == 1
    assert maintained(caplog, "customers", "OPTIMIZE") == 1
    # two runs' files in the partitions by now: this run's OPTIMIZE committed
    assert history(spark, wh / "customers").count("OPTIMIZE") == optimized + 1


READER = """
import json, sys
from spark_sink.config import SinkConfig
from spark_sink.job import build_session
config = SinkConfig(master="local[1]", warehouse=sys.argv[1], database=sys.argv[2], query_name="reader")
spark = build_session(config)
rows = spark.table(sys.argv[2] + ".customers").orderBy("id").collect()
print("ROWS=" + json.dumps([[r["id"], r["v"]] for r in rows]))
"""


def test_the_cli_keeps_named_tables_in_its_own_metastore(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str
) -> None:
    customers = Table(unique_name, "public", "customers", FIELDS[:2], ["id"])
    kafka = Kafka(kafka_bootstrap)
    kafka.create(customers.topic)
    send(kafka, customers, "c", 100, {"id": 1, "v": "one"})
    send(kafka, customers, "c", 110, {"id": 2, "v": "two"})
    kafka.flush()
    wh, db = tmp_path / "wh", f"db_{unique_name}"

    done = spark_sink(
        flags(customers.topic, wh, kafka_bootstrap, "--table-name-template", "{table}", "--database", db),
        environment(),
    )
    assert done.returncode == 0, done.stderr[-5000:]
    assert f"named tables in {db}: Hive metastore (embedded Derby) in {wh / '_catalog'}" in done.stderr
    assert f"registered as `spark_catalog`.`{db}`.`customers`" in done.stderr
    assert (wh / "_catalog" / "metastore_db").is_dir() and (wh / "_catalog" / "derby.log").is_file()

    # a new Spark application, set up as the job sets up its session: the name is still there
    read = subprocess.run(
        [sys.executable, "-c", READER, str(wh), db],
        cwd=REPO,
        env=environment(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = [line for line in read.stdout.splitlines() if line.startswith("ROWS=")]
    assert out, read.stderr[-5000:]
    assert json.loads(out[0][len("ROWS=") :]) == [[1, "one"], [2, "two"]]
