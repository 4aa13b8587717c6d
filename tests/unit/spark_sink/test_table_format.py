"""The table-format settings (`table_format`, Iceberg's catalog and namespace), the jars each format needs, and
Iceberg's type-promotion rule (which column type changes an Iceberg table applies in place)."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pyspark.sql import types as T

from spark_sink.__main__ import main
from spark_sink.config import SinkConfig
from spark_sink.delta.tables import DELTA_SOFT, ICEBERG_SOFT, RESERVED
from spark_sink.iceberg.evolution import promotion_problem
from spark_sink.prerequisites import catalog_problem, metastore_conf, missing_jars
from spark_sink.table_format import for_config, q

BASE = ["--bootstrap-servers", "x:1", "--topics", "a", "--warehouse", "/w"]
JARS = ["spark-sql-kafka-0-10_2.13-4.1.3.jar", "delta-spark_4.1_2.13-4.4.0.jar"]


def iceberg(**over: Any) -> SinkConfig:
    return SinkConfig(**({"warehouse": "/data/wh", "table_format": "iceberg"} | over))


def test_the_table_format_flag_and_its_checks(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([*BASE, "--table-format", "iceberg", "--catalog", "lake", "--check"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["table_format"], shown["catalog"], shown["database"]) == ("iceberg", "lake", None)
    assert main([*BASE, "--table-format", "iceberg", "--catalog", "spark_catalog"]) == 2
    assert "Iceberg tables need an Iceberg catalog" in capsys.readouterr().err
    with pytest.raises(SystemExit):  # argparse refuses other formats
        main([*BASE, "--table-format", "hudi"])
    assert "invalid choice: 'hudi'" in capsys.readouterr().err
    assert (
        "sink.table_format must be one of ('delta', 'iceberg'), got 'orc'" in SinkConfig(table_format="orc").validate()
    )


def test_iceberg_names_its_tables_in_its_catalog_and_needs_no_metastore() -> None:
    fmt = for_config(iceberg())
    assert fmt.ref("orders").sql == "`iceberg`.`default`.`orders`"
    named = for_config(iceberg(catalog="lake", database="sales"))
    assert named.ref("orders").sql == "`lake`.`sales`.`orders`"
    assert iceberg().catalog_name == "iceberg" and SinkConfig().catalog_name == "spark_catalog"
    assert metastore_conf(iceberg(database="sales"), {}) == {}  # no Derby metastore: the catalog keeps the names
    assert catalog_problem(iceberg(database="sales"), "in-memory", None) is None
    assert not iceberg(database="sales").manages_tables  # nothing to register: the names are the tables
    delta = for_config(SinkConfig(warehouse="/data/wh")).ref("orders")
    assert (delta.sql, delta.location) == (f"delta.{q('/data/wh/orders')}", "/data/wh/orders")


def test_the_jars_each_format_needs() -> None:
    assert missing_jars(JARS) == []
    assert missing_jars(JARS, "iceberg") == ["Apache Iceberg's Spark runtime (iceberg-spark-runtime-*.jar)"]
    assert missing_jars([*JARS, "iceberg-spark-runtime-4.1_2.13-1.11.0.jar"], "iceberg") == []


def test_soft_delete_columns_avoid_icebergs_reserved_names() -> None:
    assert (DELTA_SOFT.deleted, DELTA_SOFT.deleted_at) == ("_deleted", "_deleted_at")
    assert (ICEBERG_SOFT.deleted, ICEBERG_SOFT.deleted_at) == ("_cdc_deleted", "_cdc_deleted_at")
    assert for_config(iceberg()).soft_delete == ICEBERG_SOFT
    assert {"_deleted", "_cdc_deleted", "_cdc_deleted_at"} <= RESERVED  # a source column of those names is refused


DEC = T.DecimalType


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (T.IntegerType(), T.LongType()),
        (T.FloatType(), T.DoubleType()),
        (DEC(10, 2), DEC(14, 2)),
        (T.ArrayType(T.IntegerType()), T.ArrayType(T.LongType())),
        (T.MapType(T.StringType(), DEC(5, 1)), T.MapType(T.StringType(), DEC(9, 1))),
        (
            T.StructType([T.StructField("a", T.IntegerType())]),
            T.StructType([T.StructField("a", T.LongType()), T.StructField("b", T.StringType())]),
        ),
        (T.StringType(), T.StringType()),
    ],
)
def test_what_iceberg_promotes(old: T.DataType, new: T.DataType) -> None:
    assert promotion_problem(old, new) is None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (DEC(10, 2), DEC(12, 4)),  # scale growth: Delta widens it, Iceberg does not
        (T.DateType(), T.TimestampNTZType()),  # likewise
        (T.IntegerType(), T.DoubleType()),
        (T.LongType(), T.IntegerType()),
        (T.IntegerType(), T.StringType()),
        (T.ArrayType(DEC(10, 2)), T.ArrayType(DEC(12, 3))),
        (T.StructType([T.StructField("a", T.DateType())]), T.StructType([T.StructField("a", T.TimestampType())])),
    ],
)
def test_what_iceberg_refuses_names_the_rule_and_the_types(old: T.DataType, new: T.DataType) -> None:
    problem = promotion_problem(old, new)
    assert problem is not None
    assert problem.startswith("Iceberg widens only int → bigint, float → double and a decimal's precision")
    assert "→" in problem.split(", not ")[-1]
