"""Pure tests of the named-table, layout and maintenance settings: parsing, validation, flags, the metastore the
job sets up, the schedule rule, and the layout decisions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pyspark.sql import types as T

from spark_sink.__main__ import main
from spark_sink.config import ConfigError, SinkConfig, TableLayout, from_mapping, load_file
from spark_sink.delta import layout
from spark_sink.delta.maintenance import OPTIMIZE, VACUUM, Task, due, tasks
from spark_sink.delta.tables import IncompatibleTableError, TableCheck
from spark_sink.prerequisites import catalog_problem, metastore_conf
from spark_sink.table_format import TableRef

TOML = """
[source]
bootstrap_servers = "127.0.0.1:9092"
topics = ["db1.public.customers", "db1.public.orders"]

[sink]
warehouse = "/tmp/wh"
checkpoint = "/tmp/cp"
database = "cdc"
table_properties = { "delta.logRetentionDuration" = "interval 30 days", "delta.appendOnly" = false }
partition_columns = ["region"]
optimize_interval = "1 days"
vacuum_interval = "12 hours"
vacuum_retention = "10 days"

[tables."db1.public.customers"]
name = "customers"
table_properties = { "delta.appendOnly" = true, "delta.checkpointInterval" = 20 }
partition_columns = []
"""

SINK: dict[str, Any] = {"warehouse": "/w", "checkpoint": "/c"}
BASE: dict[str, Any] = {"source": {"bootstrap_servers": "x:1", "topics": ["a"]}, "sink": SINK}


def problems(**sink: Any) -> list[str]:
    with pytest.raises(ConfigError) as err:
        from_mapping({**BASE, "sink": {**SINK, **sink}})
    return err.value.problems


def test_toml_settings_and_the_effective_layout(tmp_path: Path) -> None:
    p = tmp_path / "sink.toml"
    p.write_text(TOML)
    config = from_mapping(load_file(p))
    assert config.qualified_name("customers") == ("spark_catalog", "cdc", "customers")
    # the table's own properties override the global ones key by key; its partition list replaces the global one
    assert config.layout_for("customers") == TableLayout(
        {
            "delta.logRetentionDuration": "interval 30 days",
            "delta.appendOnly": "true",
            "delta.checkpointInterval": "20",
        },
        (),
    )
    assert config.layout_for("db1_public_orders") == TableLayout(
        {"delta.logRetentionDuration": "interval 30 days", "delta.appendOnly": "false"}, ("region",)
    )
    assert config.optimize_interval_ms == 86_400_000
    assert config.vacuum_interval_ms == 12 * 3_600_000
    assert config.vacuum_retention_hours == 240
    assert config.manages_tables


def test_defaults_change_nothing() -> None:
    config = from_mapping(BASE)
    assert config.qualified_name("t") is None
    assert config.layout_for("t") == TableLayout({}, ())
    assert config.optimize_interval_ms is None and config.vacuum_interval_ms is None
    assert config.vacuum_retention_hours == 168  # Delta's default
    assert not config.manages_tables
    assert from_mapping({**BASE, "sink": {**SINK, "database": "d", "catalog": "lake"}}).qualified_name("t") == (
        "lake",
        "d",
        "t",
    )


def test_every_bad_setting_is_refused() -> None:
    got = problems(
        catalog="my-catalog",
        optimize_interval="daily",
        vacuum_retention="2 weeks",
        partition_columns=["a", "a"],
        table_properties={"": "x"},
    )
    assert "sink.catalog must be a name of letters, digits and _ (not starting with a digit)" in got
    assert "sink.catalog is used only with sink.database (the named tables' database)" in got
    assert 'sink.optimize_interval must be "<n> days", "<n> hours" or "<n> minutes"' in got
    assert 'sink.vacuum_retention must be "<n> days", "<n> hours" or "<n> minutes"' in got
    assert "sink.vacuum_retention is used only with sink.vacuum_interval (the schedule of VACUUM)" in got
    assert "sink.partition_columns names a column twice" in got
    assert "sink.table_properties: a property name is empty" in got
    assert problems(database="1db") == [
        "sink.database must be a name of letters, digits and _ (not starting with a digit)"
    ]
    assert problems(table_properties="delta.appendOnly=true") == [
        "sink.table_properties must be a table of names to strings, numbers or booleans"
    ]
    assert problems(partition_columns=[1]) == ["sink.partition_columns must be a list of column names"]


def test_per_table_settings_are_checked() -> None:
    with pytest.raises(ConfigError) as err:
        from_mapping(
            {
                **BASE,
                "tables": {
                    "a": {"partition_columns": "x,x", "table_properties": {"delta.appendOnly": ["no"]}},
                    "b": {"optimize_interval": "1 days"},
                },
            }
        )
    assert err.value.problems == [
        "tables.'a'.table_properties must be a table of names to strings, numbers or booleans",
        "tables.'b' accepts name, delete_mode, scd2, table_properties, partition_columns only",
        "tables.'a'.partition_columns names a column twice",
    ]


def test_flags(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--bootstrap-servers", "x:1", "--topics", "a", "--warehouse", "/w", "--database", "cdc"]
    args += ["--catalog", "lake", "--optimize-interval", "6 hours", "--vacuum-interval", "7 days"]
    assert main([*args, "--vacuum-retention", "14 days", "--check"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["catalog"], shown["database"]) == ("lake", "cdc")
    assert (shown["optimize_interval"], shown["vacuum_interval"], shown["vacuum_retention"]) == (
        "6 hours",
        "7 days",
        "14 days",
    )
    assert main(["--bootstrap-servers", "x:1", "--topics", "a", "--warehouse", "/w", "--catalog", "lake"]) == 2
    assert "sink.catalog is used only with sink.database" in capsys.readouterr().err


def config(**over: Any) -> SinkConfig:
    return SinkConfig(**({"warehouse": "/data/wh", "database": "cdc"} | over))


def test_the_job_keeps_names_in_an_embedded_metastore_unless_one_is_configured() -> None:
    assert metastore_conf(config(), {}) == {
        "spark.sql.catalogImplementation": "hive",
        "spark.hadoop.javax.jdo.option.ConnectionURL": (
            "jdbc:derby:;databaseName=/data/wh/_catalog/metastore_db;create=true"
        ),
        "spark.sql.warehouse.dir": "/data/wh/_catalog",
        "spark.driver.extraJavaOptions": "-Dderby.system.home=/data/wh/_catalog",
    }
    with_options = metastore_conf(config(spark_conf={"spark.driver.extraJavaOptions": "-Xss4m"}), {})
    assert with_options["spark.driver.extraJavaOptions"] == "-Dderby.system.home=/data/wh/_catalog -Xss4m"
    assert metastore_conf(config(database=None), {}) == {}
    assert metastore_conf(config(spark_conf={"spark.hadoop.hive.metastore.uris": "thrift://m:9083"}), {}) == {}
    assert metastore_conf(config(spark_conf={"spark.sql.catalogImplementation": "in-memory"}), {}) == {}
    assert metastore_conf(config(catalog="lake"), {}) == {}
    assert metastore_conf(config(warehouse="s3a://bucket/wh"), {}) == {}
    assert metastore_conf(config(), {"PYSPARK_GATEWAY_PORT": "1"}) == {}  # spark-submit: checked once it runs


def test_a_session_that_would_forget_the_names_is_refused() -> None:
    assert catalog_problem(config(database=None), "in-memory", None) is None
    assert catalog_problem(config(), "hive", None) is None
    assert (
        catalog_problem(config(spark_conf={"spark.sql.catalogImplementation": "in-memory"}), "in-memory", None) is None
    )
    assert catalog_problem(config(), "in-memory", None) == (
        "named tables (--database cdc) need a metastore that outlives the job, and this session's catalog is in "
        "memory (the names would vanish when the job stops): pass --conf spark.sql.catalogImplementation=hive with a "
        "metastore (hive-site.xml, spark.hadoop.hive.metastore.uris or spark.hadoop.javax.jdo.option.ConnectionURL), "
        "or --conf spark.sql.catalogImplementation=in-memory to keep the names for this run only"
    )
    assert catalog_problem(config(catalog="lake"), "in-memory", "io.unitycatalog.spark.UCSingleCatalog") is None
    assert catalog_problem(config(catalog="lake"), "in-memory", None) == (
        "catalog 'lake' (--catalog) is not configured: set spark.sql.catalog.lake to its class"
    )


def test_the_schedule() -> None:
    assert tasks(config(optimize_interval="1 days")) == [Task(OPTIMIZE, 86_400_000)]
    assert tasks(config(optimize_interval="2 hours", vacuum_interval="30 minutes")) == [
        Task(OPTIMIZE, 7_200_000),
        Task(VACUUM, 1_800_000),
    ]
    assert tasks(config()) == []
    assert due(None, 1000, 0)  # never run
    assert due(1000, 1000, 2000)
    assert not due(1001, 1000, 2000)


def check(exists: bool = False) -> TableCheck:
    schema = T.StructType([T.StructField("id", T.IntegerType()), T.StructField("region", T.StringType())])
    return TableCheck(TableRef("t", "delta.`/wh/t`", "/wh/t", "delta"), exists, schema)


EXTRA = [T.StructField("_cdc_op", T.StringType())]


def test_a_table_to_create_gets_its_layout_or_is_refused() -> None:
    c = check()
    layout.for_creation("t", c, TableLayout({"delta.appendOnly": "true"}, ("region", "_cdc_op")), EXTRA)
    assert (c.properties, c.partition_columns) == ({"delta.appendOnly": "true"}, ["region", "_cdc_op"])
    with pytest.raises(IncompatibleTableError) as err:
        layout.for_creation("t", check(), TableLayout({}, ("region", "nope")), EXTRA)
    assert str(err.value) == (
        "partition column(s) 'nope' of table t are not columns of the table (its columns: id, region, _cdc_op)"
    )


def test_an_existing_table_gets_the_differing_properties_and_a_warning_for_its_partitioning() -> None:
    wanted = TableLayout({"delta.appendonly": "true", "delta.checkpointInterval": "20", "app.owner": "x"}, ("region",))
    current = TableLayout({"delta.appendOnly": "true", "delta.checkpointInterval": "10", "other": "1"}, ())
    c = check(exists=True)
    assert not layout.align(c, wanted, current)
    assert c.enable == {
        ("delta.checkpointInterval", "20"): "table property of the configuration (was 10)",
        ("app.owner", "x"): "table property of the configuration",
    }
    assert layout.partitioning_warning("t", wanted, current) == (
        "table t: partitioned by [], the configuration says [region]: the sink does not re-partition a table in "
        "place (rewrite it to change it); writing on with its partitioning"
    )
    same = TableLayout({"delta.appendOnly": "true", "delta.checkpointInterval": "20", "app.owner": "x"}, ("region",))
    assert layout.align(check(exists=True), wanted, same)
    assert layout.partitioning_warning("t", wanted, same) is None
