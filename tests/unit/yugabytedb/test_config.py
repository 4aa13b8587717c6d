"""The YugabyteDB connector's configuration: its plug-ins, defaults, snapshot modes and refusals."""

from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError
from connectors.postgres.config import LogicalDecoder, SnapshotMode
from connectors.postgres.libpq import conninfo, host_list
from connectors.yugabytedb.config import YUGABYTEDB_CONFIG_DEF, parse_yb_config, validate_yb_props

BASE = {"topic.prefix": "yb", "database.hostname": "127.0.0.1", "database.user": "yugabyte", "database.dbname": "db"}


def errors(props: dict[str, str]) -> dict[str, list[str]]:
    return {k: v.errors for k, v in validate_yb_props(props).items() if v.errors}


def test_defaults_are_yugabytedb_ones() -> None:
    config = parse_yb_config(BASE)
    assert config.plugin_name is LogicalDecoder.YBOUTPUT
    assert config.pgoutput  # same protocol, publication and START_REPLICATION options as pgoutput
    assert config.port == 5433
    assert config.snapshot_mode is SnapshotMode.INITIAL
    assert YUGABYTEDB_CONFIG_DEF["plugin.name"].default == "yboutput"
    assert YUGABYTEDB_CONFIG_DEF["database.port"].default == 5433
    assert errors(BASE) == {}


def test_pgoutput_is_accepted_and_stays_pgoutput() -> None:
    assert parse_yb_config({**BASE, "plugin.name": "pgoutput"}).plugin_name is LogicalDecoder.PGOUTPUT


@pytest.mark.parametrize("plugin", ["decoderbufs", "wal2json", "test_decoding"])
def test_other_plugins_are_refused(plugin: str) -> None:
    assert errors({**BASE, "plugin.name": plugin}) == {
        "plugin.name": [
            f"The 'plugin.name' value '{plugin}' is invalid: the YugabyteDB connector supports only yboutput "
            "and pgoutput"
        ]
    }
    with pytest.raises(ConfigError, match="supports only yboutput and pgoutput"):
        parse_yb_config({**BASE, "plugin.name": plugin})


def test_validate_recommends_the_yugabytedb_values() -> None:
    results = validate_yb_props(BASE)
    assert results["plugin.name"].recommended_values == ["yboutput", "pgoutput"]
    assert results["snapshot.mode"].recommended_values == ["initial", "never", "initial_only"]
    assert "streaming.mode" in results


@pytest.mark.parametrize(
    ("mode", "expected"),
    [("initial", SnapshotMode.INITIAL), ("never", SnapshotMode.NO_DATA), ("INITIAL_ONLY", SnapshotMode.INITIAL_ONLY)],
)
def test_the_three_snapshot_modes(mode: str, expected: SnapshotMode) -> None:
    assert parse_yb_config({**BASE, "snapshot.mode": mode}).snapshot_mode is expected


@pytest.mark.parametrize("mode", ["always", "when_needed", "no_data", "custom"])
def test_other_snapshot_modes_are_refused(mode: str) -> None:
    assert list(errors({**BASE, "snapshot.mode": mode})) == ["snapshot.mode"]


def test_parallel_streaming_is_refused_with_the_reason() -> None:
    problems = errors({**BASE, "streaming.mode": "parallel", "slot.names": "a,b"})
    assert problems == {
        "streaming.mode": [
            "streaming.mode=parallel (YugabyteDB's tech preview) is not supported by this worker yet; use 'default'"
        ]
    }
    assert errors({**BASE, "streaming.mode": "sideways"}) == {
        "streaming.mode": ["Value must be one of default, parallel"]
    }


def test_signals_are_the_postgresql_connectors() -> None:
    """YugabyteDB's Debezium fork inherits signals and incremental snapshots from the PostgreSQL connector."""
    props = {**BASE, "signal.data.collection": "public.signals", "incremental.snapshot.chunk.size": "7"}
    assert errors(props) == {}
    signaling = parse_yb_config(props).signaling
    assert str(signaling.signal_table) == "public.signals" and signaling.chunk_size == 7
    assert list(errors({**BASE, "signal.enabled.channels": "source,pigeon"})) == ["signal.enabled.channels"]


def test_transaction_topic_alias() -> None:
    assert parse_yb_config({**BASE, "transaction.topic": "tx"}).topic_transaction == "tx"
    both = {**BASE, "transaction.topic": "old", "topic.transaction": "new"}
    assert parse_yb_config(both).topic_transaction == "new"


def test_postgres_rules_still_apply() -> None:
    assert list(errors({**BASE, "slot.name": "Bad-Slot"})) == ["slot.name"]
    assert "database.user" in errors({k: v for k, v in BASE.items() if k != "database.user"})


def test_a_list_of_servers_becomes_libpq_host_and_port_lists() -> None:
    assert host_list("10.0.0.1:5434,10.0.0.2,[::1]:7000,::2", 5433) == (
        ["10.0.0.1", "10.0.0.2", "::1", "::2"],
        [5434, 5433, 7000, 5433],
    )
    config = parse_yb_config({**BASE, "database.hostname": "127.0.0.1:1,127.0.0.2"})
    info = conninfo(config)
    assert "host='127.0.0.1,127.0.0.2'" in info
    assert "port='1,5433'" in info


def test_socket_directories_and_plain_hosts_keep_their_names() -> None:
    assert host_list("/run/pg:sock", 5433) == (["/run/pg:sock"], [5433])
    assert host_list("db.example.org", 5432) == (["db.example.org"], [5432])
    assert host_list("fe80::1%eth0", 5432) == (["fe80::1%eth0"], [5432])


@pytest.mark.parametrize("bad", ["h:0", "h:port", "[::1", "a,,b", "[::1]x"])
def test_malformed_server_lists_are_config_errors(bad: str) -> None:
    with pytest.raises(ConfigError):
        host_list(bad, 5433)
