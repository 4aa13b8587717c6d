"""The job's prerequisites (spark_sink/prerequisites.py): where the jars are found, when none are added, the Java
version, local folders, TCP reachability on loopback; and the command line's defaults (config.with_defaults)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from spark_sink.config import ConfigError, SinkConfig, bootstrap_addresses, from_mapping, with_defaults
from spark_sink.prerequisites import (
    REPO,
    PrerequisiteError,
    check_java,
    check_kafka,
    check_registry,
    check_services,
    check_writable,
    connect_problem,
    devstack_jar_dirs,
    jars_given,
    java_executable,
    java_major,
    local_path,
    missing_jars,
    registry_addresses,
    session_jars,
    under_spark_submit,
)

JARS = ["spark-sql-kafka-0-10_2.13-4.1.3.jar", "delta-spark_4.1_2.13-4.4.0.jar", "kafka-clients-3.9.1.jar"]


def fetched(folder: Path, names: list[str] = JARS, complete: bool = True) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for n in names:
        (folder / n).write_bytes(b"")
    if complete:
        (folder / ".complete").touch()
    return folder


@pytest.fixture
def closed_port() -> Iterator[int]:
    """A loopback port that refuses connections: bound (so nobody else takes it) but not listening."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        yield s.getsockname()[1]


@pytest.fixture
def open_port() -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


# -- the command line's defaults -----------------------------------------------------------------------


def test_flags_only_get_the_default_bootstrap_servers_and_checkpoint() -> None:
    doc, notes = with_defaults({"source": {"topics": "a"}, "sink": {"warehouse": "/tmp/wh"}})
    config = from_mapping(doc)
    assert config.bootstrap_servers == "localhost:9092"
    assert config.checkpoint == "/tmp/wh/_checkpoints/spark_sink"
    assert notes == [
        "bootstrap servers not given: using localhost:9092 (--bootstrap-servers to change)",
        "checkpoint not given: using /tmp/wh/_checkpoints/spark_sink (--checkpoint to change)",
    ]
    doc, _ = with_defaults({"sink": {"warehouse": "s3a://b/wh/", "query_name": "orders"}})
    assert doc["sink"]["checkpoint"] == "s3a://b/wh/_checkpoints/orders"


def test_given_values_are_kept_and_still_validated() -> None:
    doc, notes = with_defaults({"source": {"bootstrap_servers": "k:1"}, "sink": {"warehouse": "w", "checkpoint": "c"}})
    assert notes == [] and doc["source"]["bootstrap_servers"] == "k:1" and doc["sink"]["checkpoint"] == "c"
    doc, _ = with_defaults({"source": {"topics": "a", "bootstrap_servers": ""}, "sink": {"warehouse": "w"}})
    with pytest.raises(ConfigError, match="bootstrap_servers is required"):
        from_mapping(doc)
    doc, _ = with_defaults({"source": {"topics": "a"}, "sink": {}})  # no warehouse: no checkpoint default either
    with pytest.raises(ConfigError) as err:
        from_mapping(doc)
    assert "sink.warehouse is required" in err.value.problems and "sink.checkpoint is required" in err.value.problems


def test_bootstrap_servers_are_host_port_pairs() -> None:
    assert bootstrap_addresses("a:1, PLAINTEXT://b:9092,[::1]:9093,") == [("a", 1), ("b", 9092), ("::1", 9093)]
    for bad in ("localhost", "a:", ":9092", "a:x", "a:70000"):
        with pytest.raises(ValueError, match="is not host:port"):
            bootstrap_addresses(bad)
    with pytest.raises(ConfigError, match=r"source\.bootstrap_servers: 'k' is not host:port"):
        from_mapping(
            {"source": {"bootstrap_servers": "k", "topics": "a"}, "sink": {"warehouse": "w", "checkpoint": "c"}}
        )


# -- the jars ------------------------------------------------------------------------------------------


def test_spark_submit_is_told_by_its_gateway_variable() -> None:
    assert under_spark_submit({"PYSPARK_GATEWAY_PORT": "40000", "PYSPARK_GATEWAY_SECRET": "s"})
    assert not under_spark_submit({"SPARK_HOME": "/opt/spark"})


def test_jars_given_by_configuration_or_submit_args() -> None:
    assert jars_given({"spark.jars": "/a.jar"}, {})
    assert jars_given({"spark.jars.packages": "g:a:1"}, {})
    assert jars_given({}, {"PYSPARK_SUBMIT_ARGS": "--jars /a.jar pyspark-shell"})
    assert jars_given({}, {"PYSPARK_SUBMIT_ARGS": "--packages=g:a:1 pyspark-shell"})
    assert not jars_given({"spark.jars": ""}, {"PYSPARK_SUBMIT_ARGS": "--master local[1] pyspark-shell"})
    assert not jars_given({}, {"PYSPARK_SUBMIT_ARGS": "'unbalanced"})


def test_devstack_folders_follow_common_sh() -> None:
    assert devstack_jar_dirs({"CW_STATE_DIR": "/s"}, Path("/repo"), Path("/cwd")) == [Path("/s/spark/jars")]
    assert devstack_jar_dirs({}, Path("/repo"), Path("/cwd")) == [
        Path("/repo/.devstack/spark/jars"),
        Path("/cwd/.devstack/spark/jars"),
    ]
    assert devstack_jar_dirs({}, Path("/repo"), Path("/repo")) == [Path("/repo/.devstack/spark/jars")]
    assert (REPO / "spark_sink" / "prerequisites.py").is_file()


def test_missing_jars_names_what_is_missing() -> None:
    assert missing_jars(JARS) == []
    assert missing_jars(["/x/" + JARS[1]]) == ["Spark's Kafka source (spark-sql-kafka-0-10_*.jar)"]
    assert len(missing_jars([])) == 2


def test_discovery_takes_the_first_complete_folder(tmp_path: Path) -> None:
    config = SinkConfig()
    partial = fetched(tmp_path / "partial", complete=False)
    no_delta = fetched(tmp_path / "no_delta", [JARS[0]])
    good = fetched(tmp_path / "good")
    jars = session_jars(config, {}, [tmp_path / "absent", partial, no_delta, good])
    assert jars is not None
    assert [Path(p).name for p in jars.paths] == sorted(JARS)
    assert jars.origin == f"{good.resolve()} (found: fetched by devstack/spark.sh)"


def test_no_folder_found_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(PrerequisiteError) as err:
        session_jars(SinkConfig(), {}, [tmp_path / "a", tmp_path / "b"])
    assert str(err.value) == (
        f"the Kafka source and Delta Lake jars were not found (looked in {tmp_path}/a, {tmp_path}/b): "
        "run `make up` (or `devstack/spark.sh fetch`), pass --jars-dir <folder>, or use spark-submit --jars"
    )
    assert "\n" not in str(err.value)


def test_discovery_follows_cw_state_dir(tmp_path: Path) -> None:
    good = fetched(tmp_path / "spark" / "jars")
    jars = session_jars(SinkConfig(), {"CW_STATE_DIR": str(tmp_path)})
    assert jars is not None and jars.origin.startswith(str(good.resolve()))


def test_nothing_is_added_under_spark_submit_or_with_spark_jars(tmp_path: Path) -> None:
    empty = [tmp_path / "none"]
    assert session_jars(SinkConfig(), {"PYSPARK_GATEWAY_PORT": "1"}, empty) is None
    assert session_jars(SinkConfig(spark_conf={"spark.jars": "/k.jar,/d.jar"}), {}, empty) is None


def test_an_explicit_jars_dir_is_used_as_given(tmp_path: Path) -> None:
    folder = fetched(tmp_path / "mine", complete=False)  # no .complete needed: the user chose it
    jars = session_jars(SinkConfig(jars_dir=str(folder)), {"PYSPARK_GATEWAY_PORT": "1"})
    assert jars is not None and len(jars.paths) == 3 and jars.origin == f"{folder.resolve()} (--jars-dir)"
    extra = session_jars(SinkConfig(jars_dir=str(folder), spark_conf={"spark.jars": "/x/other.jar"}), {})
    assert extra is not None and extra.paths[-1] == "/x/other.jar"
    with pytest.raises(PrerequisiteError, match=r"no jars in .*empty \(--jars-dir / spark.jars_dir\): run `make up`"):
        session_jars(SinkConfig(jars_dir=str(tmp_path / "empty")), {})
    kafka_only = fetched(tmp_path / "kafka_only", [JARS[0]])
    with pytest.raises(PrerequisiteError, match=r"kafka_only \(--jars-dir\) has no Delta Lake \(delta-spark_\*\.jar\)"):
        session_jars(SinkConfig(jars_dir=str(kafka_only)), {})
    delta_elsewhere = SinkConfig(jars_dir=str(kafka_only), spark_conf={"spark.jars": "/x/" + JARS[1]})
    assert session_jars(delta_elsewhere, {}) is not None


# -- Java ----------------------------------------------------------------------------------------------


def test_java_major_version() -> None:
    assert java_major('openjdk version "17.0.15" 2025-04-15\nOpenJDK Runtime Environment') == 17
    assert java_major('openjdk version "21" 2023-09-19') == 21
    assert java_major('java version "1.8.0_392"') == 8
    assert java_major("something else") is None


def test_java_is_looked_up_as_spark_class_does(tmp_path: Path) -> None:
    home = tmp_path / "jdk"
    (home / "bin").mkdir(parents=True)
    java = home / "bin" / "java"
    java.write_text("#!/bin/sh\necho 'openjdk version \"11.0.2\"' >&2\n")
    java.chmod(0o755)
    assert java_executable({"JAVA_HOME": str(home), "PATH": ""}) == (str(java), "")
    assert java_executable({"JAVA_HOME": str(tmp_path / "nope")}) == (
        None,
        f"JAVA_HOME={tmp_path}/nope has no bin/java",
    )
    assert java_executable({"PATH": str(home / "bin")}) == (str(java), "")
    assert java_executable({"PATH": str(tmp_path)}) == (None, "no JAVA_HOME and no java on PATH")
    with pytest.raises(PrerequisiteError) as err:
        check_java({"PATH": str(tmp_path)})
    assert str(err.value) == (
        "Java 17+ is needed to run Spark (no JAVA_HOME and no java on PATH): install one (e.g. apt-get install "
        "openjdk-17-jre-headless) and put its java on PATH or set JAVA_HOME"
    )
    with pytest.raises(PrerequisiteError, match=f"Java 17\\+ is needed to run Spark, {java} is Java 11: install"):
        check_java({"JAVA_HOME": str(home)})


# -- folders and services ------------------------------------------------------------------------------


def test_local_paths() -> None:
    assert local_path("/data/wh") == Path("/data/wh")
    assert local_path("wh") == Path("wh")
    assert local_path("file:///data/wh") == Path("/data/wh")
    assert local_path("s3a://bucket/wh") is None and local_path("hdfs://nn/wh") is None


def test_warehouse_must_be_creatable_and_writable(tmp_path: Path) -> None:
    check_writable(str(tmp_path / "a" / "b"), "warehouse", "--warehouse")
    assert (tmp_path / "a" / "b").is_dir() and list((tmp_path / "a" / "b").iterdir()) == []
    check_writable("s3a://bucket/wh", "warehouse", "--warehouse")  # not probed
    (tmp_path / "file").write_text("")
    with pytest.raises(PrerequisiteError) as err:
        check_writable(str(tmp_path / "file" / "wh"), "warehouse", "--warehouse")
    assert str(err.value) == (
        f"the warehouse folder {tmp_path}/file/wh cannot be created or written (Not a directory): "
        "pass a writable --warehouse"
    )


def test_tcp_reachability_on_loopback(open_port: int, closed_port: int) -> None:
    assert connect_problem("127.0.0.1", open_port) is None
    assert connect_problem("127.0.0.1", closed_port) == "Connection refused"
    assert check_kafka(f"127.0.0.1:{open_port}") == []
    assert check_kafka(f"127.0.0.1:{closed_port},127.0.0.1:{open_port}") == [
        f"127.0.0.1:{closed_port} (Connection refused)"
    ]
    with pytest.raises(PrerequisiteError) as err:
        check_kafka(f"127.0.0.1:{closed_port}")
    assert str(err.value) == (
        f"Kafka is not reachable at 127.0.0.1:{closed_port} (Connection refused): start it (`make up`) or pass "
        "--bootstrap-servers host:port"
    )


def test_registry_reachability(open_port: int, closed_port: int) -> None:
    assert registry_addresses("http://r/apis/ccompat/v7, https://s:8443") == [
        ("http://r/apis/ccompat/v7", "r", 80),
        ("https://s:8443", "s", 8443),
    ]
    check_registry(f"http://127.0.0.1:{closed_port},http://127.0.0.1:{open_port}")
    with pytest.raises(PrerequisiteError) as err:
        check_registry(f"http://u:****@127.0.0.1:{closed_port}/apis/ccompat/v7")
    assert str(err.value) == (
        f"the schema registry is not reachable at http://u:****@127.0.0.1:{closed_port}/apis/ccompat/v7 "
        "(Connection refused): start it (`make up`) or pass --schema-registry-url"
    )


def test_services_before_the_query(tmp_path: Path, open_port: int, closed_port: int) -> None:
    base = SinkConfig(
        bootstrap_servers=f"127.0.0.1:{open_port}",
        topics=("a",),
        warehouse=str(tmp_path / "wh"),
        checkpoint=str(tmp_path / "wh" / "_checkpoints" / "q"),
    )
    assert check_services(base) == []
    avro = replace(base, format="avro", schema_registry_url=f"http://u:pw@127.0.0.1:{closed_port}")
    with pytest.raises(PrerequisiteError, match=r"http://u:\*\*\*\*@127\.0\.0\.1"):  # the password never shows
        check_services(avro)
    # a Kafka option naming the servers is what the Kafka source uses, so it is what is checked
    moved = replace(base, kafka_options={"kafka.bootstrap.servers": f"127.0.0.1:{closed_port}"})
    with pytest.raises(PrerequisiteError, match="Kafka is not reachable"):
        check_services(moved)


def test_missing_topics() -> None:
    from spark_sink.prerequisites import missing_topics

    assert missing_topics(["a", "b", "c"], {"b", "x"}) == ["a", "c"]
    assert missing_topics([], {"b"}) == []
