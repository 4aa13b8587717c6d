"""The exactly-once task's pure parts: its transactional id and producer settings, its boundary settings."""

from __future__ import annotations

import logging

import pytest

from connect_worker.api import ConfigError
from connect_worker.runtime.exactly_once_task import (
    CommitRequests,
    TransactionSettings,
    transactional_id,
    transactional_producer,
)


def test_transactional_id_is_connects() -> None:
    assert transactional_id("connect-cluster", "inventory", 0) == "connect-cluster-inventory-0"


def test_producer_settings_force_the_id_and_idempotence(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        out, timeout_s = transactional_producer(
            {"transactional.id": "mine", "linger.ms": "7"}, {"enable.idempotence": "false"}, "g-c-0"
        )
    assert out == {
        "transactional.id": "g-c-0",
        "enable.idempotence": "true",
        "linger.ms": "7",
        "message.timeout.ms": "60000",
    }
    assert timeout_s == 60.0
    assert "producer transactional.id=mine replaced by g-c-0" in caplog.text
    assert "producer enable.idempotence=false replaced by true" in caplog.text


def test_message_timeout_follows_the_transaction_timeout() -> None:
    out, timeout_s = transactional_producer({"transaction.timeout.ms": "15000"}, {}, "t")
    assert out["message.timeout.ms"] == "15000" and timeout_s == 15.0
    worker_level, timeout_s = transactional_producer({}, {"transaction.timeout.ms": "20000"}, "t")
    assert worker_level["message.timeout.ms"] == "20000" and timeout_s == 20.0
    # a delivery timeout of the user's is theirs (librdkafka refuses one above the transaction timeout)
    own, _ = transactional_producer({"delivery.timeout.ms": "5000"}, {}, "t")
    assert "message.timeout.ms" not in own


def test_an_unknown_boundary_is_refused_at_start() -> None:
    with pytest.raises(ConfigError, match=r"transaction\.boundary=bogus: expected poll, interval or connector"):
        TransactionSettings(boundary="bogus")
    assert TransactionSettings(boundary="interval", interval_s=2).interval_s == 2
    assert TransactionSettings(boundary="connector").boundary == "connector"


def test_commit_requests_are_the_tasks_transaction_context() -> None:
    requests = CommitRequests()
    assert not requests.requested
    requests.commit_transaction()
    assert requests.requested
