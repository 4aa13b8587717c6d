import pytest

from connect_worker.api import ConfigError
from connect_worker.runtime.worker_config import WorkerConfig


def test_defaults_and_listeners() -> None:
    cfg = WorkerConfig.from_properties(
        {"bootstrap.servers": "127.0.0.1:9092", "listeners": "http://127.0.0.1:18083", "producer.linger.ms": "10"}
    )
    assert cfg.bootstrap_servers == "127.0.0.1:9092"
    assert cfg["offset.storage.topic"] == "connect-offsets"
    assert cfg["offset.storage.partitions"] == 25
    assert cfg["offset.flush.interval.ms"] == 60000
    assert cfg.worker_id == "127.0.0.1:18083"
    assert cfg.prefixed("producer.") == {"linger.ms": "10"}


def test_advertised_host_overrides() -> None:
    cfg = WorkerConfig.from_properties(
        {"listeners": "http://0.0.0.0:8083", "rest.advertised.host.name": "w1", "rest.advertised.port": "9000"}
    )
    assert cfg.worker_id == "w1:9000"


@pytest.mark.parametrize(
    ("props", "message"),
    [
        ({"listeners": "ftp://x:1"}, "Invalid listener"),
        ({"offset.flush.interval.ms": "soon"}, "Invalid value soon for configuration offset.flush.interval.ms"),
        ({"offset.storage.partitions": "0"}, "Value must be at least 1"),
    ],
)
def test_bad_values_are_clear(props: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        WorkerConfig.from_properties(props)


def test_distributed_settings_are_checked_or_named_as_unused() -> None:
    """Distributed mode checks the inter-worker keys as Connect's DistributedConfig does; a standalone worker warns
    of every distributed-only key it was given instead of taking it silently."""
    from connect_worker.app import _check_distributed, _warn_distributed_only

    base = {"bootstrap.servers": "127.0.0.1:1"}
    given = WorkerConfig.from_properties({**base, "session.timeout.ms": "6000", "connect.protocol": "compatible"})
    assert _warn_distributed_only(given) == ["connect.protocol", "session.timeout.ms"]
    assert _warn_distributed_only(WorkerConfig.from_properties(base)) == []
    _check_distributed(WorkerConfig.from_properties(base))
    cases = {
        "inter.worker.verification.algorithms": ("", "At least one signature verification algorithm"),
        "inter.worker.signature.algorithm": ("HmacSHA512", "Signature algorithm must be present in"),
        "inter.worker.key.size": ("100", "whole bytes"),
        "security.protocol": ("SSL", "PLAINTEXT only"),
    }
    for key, (value, message) in cases.items():
        with pytest.raises(ConfigError, match=message):
            _check_distributed(WorkerConfig.from_properties({**base, key: value}))
