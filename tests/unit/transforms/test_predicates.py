from __future__ import annotations

import pytest

from connect_worker.api.errors import ConfigError
from connect_worker.api.record import Header
from connect_worker.api.schema import STRING_SCHEMA
from connect_worker.transforms.predicates import HasHeaderKey, RecordIsTombstone, TopicNameMatches

from ._helpers import make, rec


def test_topic_name_matches_full_topic() -> None:
    p = make(TopicNameMatches, pattern=r"dbserver1\.public\..*")
    assert p.test(rec(topic="dbserver1.public.customers"))
    assert not p.test(rec(topic="x.dbserver1.public.customers"))
    assert not p.test(rec(topic="dbserver1.other.t"))
    assert p.test(rec(topic="dbserver1.public.customers"))  # cached


def test_topic_name_matches_config() -> None:
    with pytest.raises(ConfigError, match="pattern"):
        make(TopicNameMatches, pattern="")
    with pytest.raises(ConfigError, match="pattern"):
        make(TopicNameMatches, pattern="[")
    with pytest.raises(ConfigError, match='Missing required configuration "pattern"'):
        make(TopicNameMatches)


def test_has_header_key() -> None:
    p = make(HasHeaderKey, name="__debezium.newkey")
    assert p.test(rec(headers=(Header("a", None, 1), Header("__debezium.newkey", STRING_SCHEMA, "{}"))))
    assert not p.test(rec(headers=(Header("a", None, 1),)))
    assert not p.test(rec())
    with pytest.raises(ConfigError):
        make(HasHeaderKey, name="")


def test_record_is_tombstone() -> None:
    p = make(RecordIsTombstone)
    assert p.test(rec(None, key="k"))
    assert not p.test(rec({"a": 1}))
