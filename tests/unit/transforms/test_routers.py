from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError, DataError
from connect_worker.transforms.regex_router import RegexRouter
from connect_worker.transforms.timestamp_router import TimestampRouter

from ._helpers import make, rec


def test_regex_router_renames_matching_topics() -> None:
    t = make(RegexRouter, regex=r"dbserver1\.public\.(.*)", replacement="cdc_$1")
    assert t.apply(rec(topic="dbserver1.public.customers")).topic == "cdc_customers"
    original = rec(topic="other.public.customers")
    assert t.apply(original) is original
    # cached answers stay right
    assert t.apply(rec(topic="dbserver1.public.customers")).topic == "cdc_customers"


def test_regex_router_keeps_everything_else() -> None:
    t = make(RegexRouter, regex="(.*)", replacement="x-$1")
    r = rec({"a": 1}, key="k", timestamp=5)
    out = t.apply(r)
    assert out.topic == "x-test"
    assert (out.key, out.value, out.timestamp, out.source_offset) == ("k", {"a": 1}, 5, r.source_offset)


def test_regex_router_config_errors() -> None:
    with pytest.raises(ConfigError, match='Missing required configuration "regex"'):
        make(RegexRouter, replacement="x")
    with pytest.raises(ConfigError, match="regex"):
        make(RegexRouter, regex="(", replacement="x")
    errors = RegexRouter.config_def().validate({"regex": "(", "replacement": "x"})
    assert errors["regex"].errors and not errors["replacement"].errors


def test_timestamp_router_defaults() -> None:
    t = make(TimestampRouter)
    # 2024-03-05T14:07:09Z
    assert t.apply(rec(topic="orders", timestamp=1709647629000)).topic == "orders-20240305"


def test_timestamp_router_custom_format() -> None:
    t = make(TimestampRouter, **{"topic.format": "${timestamp}_${topic}_${topic}", "timestamp.format": "yyyy-MM"})
    assert t.apply(rec(topic="t", timestamp=0)).topic == "1970-01_t_t"


def test_timestamp_router_needs_a_timestamp() -> None:
    with pytest.raises(DataError, match="Timestamp missing on record"):
        make(TimestampRouter).apply(rec(timestamp=None))
