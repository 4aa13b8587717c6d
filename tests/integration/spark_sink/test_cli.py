"""`python -m spark_sink` run as a user first runs it, with flags only (no config file, no --jars-dir, no
spark-submit), as a subprocess against the real Kafka: it finds the jars `make up` fetched and fills in the bootstrap
servers and checkpoint. A missing prerequisite is one line on stderr, exit code 2, no traceback."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.spark_sink.debezium_records import Table, f
from tests.integration.spark_sink.support import Kafka, rows

pytestmark = [pytest.mark.integration, pytest.mark.spark]

REPO = Path(__file__).resolve().parents[3]
FIELDS = [f("id", "int32", False), f("v", "string")]
JARS_HINT = "run `make up` (or `devstack/spark.sh fetch`), pass --jars-dir <folder>, or use spark-submit --jars"


def environment(**changes: str | None) -> dict[str, str]:
    """This process's environment without what would change the job's own discovery (spark-submit's gateway,
    PYSPARK_SUBMIT_ARGS), with `changes` applied (None removes)."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYSPARK_GATEWAY_PORT", "PYSPARK_GATEWAY_SECRET")}
    env.pop("PYSPARK_SUBMIT_ARGS", None)
    for k, v in changes.items():
        if v is None:
            env.pop(k, None)
        else:
            env[k] = v
    return env


def spark_sink(args: list[str], env: dict[str, str], timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "spark_sink", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def flags(topic: str, warehouse: Path, kafka_bootstrap: str, *more: str) -> list[str]:
    """The flags a user gives; --bootstrap-servers only when the services do not listen on the default port."""
    args = ["--master", "local[1]", "--topics", topic, "--warehouse", str(warehouse), "--trigger", "available-now"]
    if kafka_bootstrap != "127.0.0.1:9092":
        args += ["--bootstrap-servers", kafka_bootstrap]
    return [*args, *more]


def the_one_line(done: subprocess.CompletedProcess[str]) -> str:
    """The job's own message: exit code 2, no traceback, exactly one `spark_sink: …` line."""
    assert done.returncode == 2, done.stderr[-3000:]
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    lines = [line for line in done.stderr.splitlines() if line.startswith("spark_sink: ")]
    assert len(lines) == 1, done.stderr[-3000:]
    return lines[0]


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound (so nobody else takes it) but not listening."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


def test_flags_only_run_writes_the_table(
    spark: Any, spark_jars: Path, tmp_path: Path, unique_name: str, kafka_bootstrap: str
) -> None:
    customers = Table(unique_name, "public", "customers", FIELDS, ["id"])
    kafka = Kafka(kafka_bootstrap)
    kafka.create(customers.topic)
    for lsn, row in ((100, {"id": 1, "v": "one"}), (110, {"id": 2, "v": "two"})):
        kafka.send(customers.topic, customers.key_bytes(row), customers.value_bytes("c", lsn, row))
    kafka.flush()
    warehouse = tmp_path / "warehouse"

    done = spark_sink(flags(customers.topic, warehouse, kafka_bootstrap), environment())

    assert done.returncode == 0, done.stderr[-5000:]
    assert "Traceback" not in done.stderr
    # the query's last events reached the listener before the process ended (no JVM call into a Python gone)
    assert "query terminated id=" in done.stderr, done.stderr[-5000:]
    assert "threw an exception" not in done.stderr, done.stderr[-5000:]
    # the log holds the job's lines, not py4j's per-call INFO lines or Spark's console progress bar
    assert "INFO py4j" not in done.stderr, done.stderr[-5000:]
    assert "[Stage " not in done.stderr, done.stderr[-5000:]
    checkpoint = warehouse / "_checkpoints" / "spark_sink"
    assert f"checkpoint not given: using {checkpoint} (--checkpoint to change)" in done.stderr
    assert f"Kafka source and Delta Lake jars: {len(list(spark_jars.glob('*.jar')))} from " in done.stderr
    if kafka_bootstrap == "127.0.0.1:9092":
        assert "bootstrap servers not given: using localhost:9092" in done.stderr
    assert (checkpoint / "offsets").is_dir()
    got = rows(spark, str(warehouse / f"{unique_name}_public_customers"))
    assert [(r["id"], r["v"]) for r in got] == [(1, "one"), (2, "two")]


def test_no_jars_found_is_one_line(tmp_path: Path, unique_name: str, kafka_bootstrap: str) -> None:
    state = tmp_path / "state"  # CW_STATE_DIR moves the devstack's folders, as in devstack/common.sh
    done = spark_sink(
        flags(f"{unique_name}.public.t", tmp_path / "wh", kafka_bootstrap), environment(CW_STATE_DIR=str(state))
    )
    assert the_one_line(done) == (
        f"spark_sink: the Kafka source and Delta Lake jars were not found (looked in {state}/spark/jars): {JARS_HINT}"
    )
    assert "SparkContext" not in done.stderr  # stopped before Spark started


def test_unreachable_kafka_is_one_line(tmp_path: Path, unique_name: str, closed_port: int) -> None:
    done = spark_sink(
        flags(
            f"{unique_name}.public.t",
            tmp_path / "wh",
            "127.0.0.1:9092",
            "--bootstrap-servers",
            f"127.0.0.1:{closed_port}",
        ),
        environment(),
    )
    assert the_one_line(done) == (
        f"spark_sink: Kafka is not reachable at 127.0.0.1:{closed_port} (Connection refused): start it (`make up`) "
        "or pass --bootstrap-servers host:port"
    )


def test_unreachable_registry_is_one_line(
    tmp_path: Path, unique_name: str, kafka_bootstrap: str, closed_port: int
) -> None:
    url = f"http://127.0.0.1:{closed_port}/apis/ccompat/v7"
    args = flags(f"{unique_name}.public.t", tmp_path / "wh", kafka_bootstrap, "--format", "avro")
    done = spark_sink([*args, "--schema-registry-url", url], environment())
    assert the_one_line(done) == (
        f"spark_sink: the schema registry is not reachable at {url} (Connection refused): start it (`make up`) or "
        "pass --schema-registry-url"
    )


def test_unwritable_warehouse_is_one_line(tmp_path: Path, unique_name: str, kafka_bootstrap: str) -> None:
    (tmp_path / "file").write_text("")
    warehouse = tmp_path / "file" / "wh"
    done = spark_sink(flags(f"{unique_name}.public.t", warehouse, kafka_bootstrap), environment())
    assert the_one_line(done) == (
        f"spark_sink: the warehouse folder {warehouse} cannot be created or written (Not a directory): "
        "pass a writable --warehouse"
    )


def test_no_java_is_one_line(spark_jars: Path, tmp_path: Path, unique_name: str, kafka_bootstrap: str) -> None:
    empty = tmp_path / "bin"
    empty.mkdir()
    env = environment(PATH=str(empty), JAVA_HOME=None)
    done = spark_sink(flags(f"{unique_name}.public.t", tmp_path / "wh", kafka_bootstrap), env)
    assert the_one_line(done) == (
        "spark_sink: Java 17+ is needed to run Spark (no JAVA_HOME and no java on PATH): install one (e.g. apt-get "
        "install openjdk-17-jre-headless) and put its java on PATH or set JAVA_HOME"
    )


def test_a_topic_that_does_not_exist_is_one_line(tmp_path: Path, unique_name: str, kafka_bootstrap: str) -> None:
    """Spark's Kafka source creates no topic and fails with UnknownTopicOrPartitionException: the job says so first."""
    topic = f"{unique_name}.public.not_yet"
    done = spark_sink(flags(topic, tmp_path / "wh", kafka_bootstrap), environment())
    servers = "localhost:9092" if kafka_bootstrap == "127.0.0.1:9092" else kafka_bootstrap  # the default, as given
    assert the_one_line(done) == (
        f"spark_sink: topic(s) {topic} do not exist at {servers}: start the connector that writes them first "
        "(Spark's Kafka source creates no topic), or subscribe with --topic-pattern"
    )
