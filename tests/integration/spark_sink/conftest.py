"""One local[2] Spark session (with the Kafka and Delta jars of devstack/spark/pom.xml) for every Spark test."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[3]
JARS = REPO / ".devstack" / "spark" / "jars"


@pytest.fixture(scope="session")
def spark_jars() -> Path:
    # `make test` installs the spark extra: a missing pyspark is a broken set-up, not a reason to skip
    for module in ("pyspark", "delta"):
        try:
            __import__(module)
        except ImportError:
            pytest.fail(f"{module} is not installed: run `pip install -e '.[dev,spark]'` (make test does)")
    if not (JARS / ".complete").exists():
        subprocess.run([str(REPO / "devstack" / "spark.sh"), "fetch"], check=True, timeout=600)
    return JARS


@pytest.fixture(scope="session")
def spark(spark_jars: Path) -> Iterator[Any]:
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    from spark_sink.config import SinkConfig
    from spark_sink.job import build_session

    config = SinkConfig(
        master="local[2]",
        jars_dir=str(spark_jars),
        query_name="spark_sink_tests",
        spark_conf={
            "spark.sql.shuffle.partitions": "2",
            "spark.databricks.delta.snapshotPartitions": "2",
            "spark.default.parallelism": "2",
            "spark.driver.memory": "1g",
            "spark.sql.streaming.noDataMicroBatches.enabled": "false",
            "spark.databricks.delta.stats.collect": "false",
            "spark.ui.showConsoleProgress": "false",
        },
    )
    session = build_session(config)
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


@pytest.fixture(params=["delta", "iceberg"])
def table_format(request: pytest.FixtureRequest) -> str:
    """The table format a test runs with: tests that take it run once for Delta and once for Iceberg."""
    return str(request.param)
