"""Pure tests of the configuration (file + flags) and the CLI's --check."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from spark_sink.__main__ import main
from spark_sink.config import ConfigError, from_mapping, load_file, with_overrides

TOML = """
[source]
bootstrap_servers = "127.0.0.1:9092"
topic_pattern = "dbserver1\\\\.public\\\\..*"

[sink]
warehouse = "/tmp/wh"
checkpoint = "/tmp/cp"
delete_mode = "soft"

[tables."dbserver1.public.customers"]
name = "customers"
scd2 = true
"""


def test_toml_file_and_table_names(tmp_path: Path) -> None:
    p = tmp_path / "sink.toml"
    p.write_text(TOML)
    config = from_mapping(load_file(p))
    assert config.topic_pattern == "dbserver1\\.public\\..*"
    assert config.table_name("dbserver1.public.customers") == "customers"
    assert config.table_name("dbserver1.public.orders") == "dbserver1_public_orders"
    opts = config.options_for("customers")
    assert opts.scd2 is True and opts.delete_mode == "soft"
    assert config.dead_letter == "/tmp/wh/_dead_letter"


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(ConfigError) as err:
        from_mapping({"source": {"topics": ["a"], "topic_pattern": "b", "nope": 1}, "sink": {"delete_mode": "x"}})
    text = str(err.value)
    for needle in ("bootstrap_servers", "exactly one", "unknown setting source.nope", "warehouse", "delete_mode"):
        assert needle in text


def test_flags_override_the_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "sink.json"
    p.write_text(
        json.dumps(
            {"source": {"bootstrap_servers": "x:1", "topics": "a,b"}, "sink": {"warehouse": "w", "checkpoint": "c"}}
        )
    )
    assert (
        main(
            ["--config", str(p), "--topics", "c", "--trigger", "processing-time=5 seconds", "--conf", "a=b", "--check"]
        )
        == 0
    )
    shown = json.loads(capsys.readouterr().out)
    assert (
        shown["topics"] == ["c"]
        and shown["trigger"] == "processing-time=5 seconds"
        and shown["spark_conf"] == {"a": "b"}
    )
    assert main(["--config", str(p), "--delete-mode", "soft", "--trigger", "sometimes", "--check"]) == 2


def test_with_overrides_ignores_unset_flags() -> None:
    merged = with_overrides({"sink": {"warehouse": "w"}}, {"sink": {"warehouse": None, "checkpoint": "c"}})
    assert merged == {"sink": {"warehouse": "w", "checkpoint": "c"}}


BASE_SOURCE: dict[str, object] = {"bootstrap_servers": "x:1", "topics": ["a"]}
BASE: dict[str, object] = {"source": BASE_SOURCE, "sink": {"warehouse": "w", "checkpoint": "c"}}


def with_source(**source: object) -> dict[str, object]:
    return {**BASE, "source": {**BASE_SOURCE, **source}}


def test_avro_needs_a_registry_url_and_json_refuses_one() -> None:
    config = from_mapping(with_source(format="avro", schema_registry_url="http://r:8081/apis/ccompat/v7"))
    assert config.format == "avro" and config.schema_registry_url == "http://r:8081/apis/ccompat/v7"
    cases = [
        (with_source(format="avro"), 'source.schema_registry_url is required with format = "avro"'),
        (with_source(format="avro", schema_registry_url="r:8081, ftp://x"), "is not an http(s) URL"),
        (with_source(format="avro", schema_registry_url="http://r", schema_registry_user_info="nocolon"), "user:pass"),
        (with_source(schema_registry_url="http://r"), 'source.schema_registry_url is only used with format = "avro"'),
        (with_source(format="protobuf"), "source.format must be one of ('json', 'avro')"),
        (with_source(format="avro", schema_registry_url="http://r", schemas="true"), "not used with format"),
    ]
    for data, needle in cases:
        with pytest.raises(ConfigError) as err:
            from_mapping(data)
        assert needle in str(err.value), (needle, str(err.value))


def test_avro_flags_and_check_hides_credentials(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "sink.toml"
    p.write_text(
        '[source]\nbootstrap_servers = "x:1"\ntopics = ["a"]\nschema_registry_user_info = "u:secret"\n'
        '[sink]\nwarehouse = "w"\ncheckpoint = "c"\n'
    )
    url = "http://u:pw@r:8081/apis/ccompat/v7"
    assert main(["--config", str(p), "--format", "avro", "--schema-registry-url", url, "--check"]) == 0
    out = capsys.readouterr().out
    shown = json.loads(out)
    assert shown["format"] == "avro" and shown["schema_registry_url"] == "http://u:****@r:8081/apis/ccompat/v7"
    assert shown["schema_registry_user_info"] == "****" and "secret" not in out and ":pw@" not in out
    assert main(["--config", str(p), "--check"]) == 2  # user info without avro


def test_delete_ledger_retention() -> None:
    sink: dict[str, Any] = {"warehouse": "/w", "checkpoint": "/c"}
    base: dict[str, Any] = {"source": {"bootstrap_servers": "k:9092", "topics": ["t"]}, "sink": sink}
    assert from_mapping(base).delete_ledger_retention_ms is None
    for text, ms in (
        ("30 days", 30 * 86_400_000),
        ("1 day", 86_400_000),
        ("12 hours", 43_200_000),
        ("5 minutes", 300_000),
    ):
        config = from_mapping({**base, "sink": {**sink, "delete_ledger_retention": text}})
        assert config.delete_ledger_retention_ms == ms
    for bad in ("0 days", "7", "2 weeks", "-1 days"):
        with pytest.raises(ConfigError, match="delete_ledger_retention"):
            from_mapping({**base, "sink": {**sink, "delete_ledger_retention": bad}})


def test_table_parallelism(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    sink: dict[str, Any] = {"warehouse": "/w", "checkpoint": "/c"}
    base: dict[str, Any] = {"source": {"bootstrap_servers": "k:9092", "topics": ["t"]}, "sink": sink}
    assert from_mapping(base).table_parallelism == 4
    assert from_mapping({**base, "sink": {**sink, "table_parallelism": 1}}).table_parallelism == 1
    for bad in (0, -2):
        with pytest.raises(ConfigError, match="table_parallelism must be at least 1"):
            from_mapping({**base, "sink": {**sink, "table_parallelism": bad}})
    with pytest.raises(ConfigError, match="table_parallelism must be an integer"):
        from_mapping({**base, "sink": {**sink, "table_parallelism": "many"}})
    flags = ["--bootstrap-servers", "k:9092", "--topics", "t", "--warehouse", "/w", "--checkpoint", "/c"]
    assert main([*flags, "--table-parallelism", "2", "--check"]) == 0
    assert json.loads(capsys.readouterr().out)["table_parallelism"] == 2
    assert main([*flags, "--table-parallelism", "0", "--check"]) == 2


def test_source_options_wait_briefly_for_kafka_data_unless_the_job_says_otherwise() -> None:
    from spark_sink.job import source_options

    source: dict[str, Any] = {"bootstrap_servers": "127.0.0.1:9092", "topics": ["a", "b"]}
    sink = {"warehouse": "/w", "checkpoint": "/c"}
    options = source_options(from_mapping({"source": source, "sink": sink}))
    assert options["kafka.fetch.max.wait.ms"] == "5"
    assert options["subscribe"] == "a,b" and options["failOnDataLoss"] == "false"
    mine = {"kafka.fetch.max.wait.ms": "250", "failOnDataLoss": "true", "kafka.security.protocol": "SSL"}
    options = source_options(from_mapping({"source": {**source, "options": mine}, "sink": sink}))
    assert {k: options[k] for k in mine} == mine
