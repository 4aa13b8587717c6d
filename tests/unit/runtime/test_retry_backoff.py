"""errors.retry.timeout / errors.retry.delay.max.ms: Kafka Connect's RetryWithToleranceOperator backoff (300 ms,
doubling, capped by the maximum delay and by the time left; no retry at 0; forever at -1)."""

from __future__ import annotations

from connect_worker.runtime.source_task import TaskSettings


def test_no_retries_by_default() -> None:
    assert TaskSettings(flush_interval_s=1).retry_delay_s(0, 0) is None


def test_backoff_doubles_up_to_the_maximum_delay() -> None:
    s = TaskSettings(flush_interval_s=1, retry_timeout_ms=-1, retry_delay_max_ms=2000)
    assert [s.retry_delay_s(a, 0) for a in range(5)] == [0.3, 0.6, 1.2, 2.0, 2.0]


def test_the_last_delay_ends_at_the_timeout_and_then_retries_stop() -> None:
    s = TaskSettings(flush_interval_s=1, retry_timeout_ms=1000, retry_delay_max_ms=60000)
    assert s.retry_delay_s(0, 0) == 0.3
    assert s.retry_delay_s(2, 900) == 0.1  # 1200 ms wanted, 100 ms left
    assert s.retry_delay_s(3, 1000) is None
