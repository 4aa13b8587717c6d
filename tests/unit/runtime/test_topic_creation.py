import pytest

from connect_worker.api import ConfigError
from connect_worker.runtime.topic_creation import parse_groups


def test_not_configured_without_both_default_keys() -> None:
    assert parse_groups({"topic.creation.default.partitions": "3"}) is None


def test_groups_match_in_declared_order_with_default_last() -> None:
    groups = parse_groups(
        {
            "topic.creation.groups": "compacted,big",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "3",
            "topic.creation.default.compression.type": "lz4",
            "topic.creation.compacted.include": "db\\.public\\.(a|b)",
            "topic.creation.compacted.cleanup.policy": "compact",
            "topic.creation.big.include": "db\\..*",
            "topic.creation.big.exclude": "db\\.public\\.small",
            "topic.creation.big.partitions": "12",
        }
    )
    assert groups is not None
    assert [g.name for g in groups] == ["compacted", "big", "default"]

    def first(topic: str) -> str:
        return next(g for g in groups if g.matches(topic)).name

    assert first("db.public.a") == "compacted"
    assert first("db.public.c") == "big"
    assert first("db.public.small") == "default"
    assert first("other") == "default"
    compacted = groups[0]
    assert compacted.partitions == 3 and compacted.replication_factor == 1
    assert compacted.configs == {"compression.type": "lz4", "cleanup.policy": "compact"}
    assert groups[1].partitions == 12


def test_invalid_partitions_rejected() -> None:
    with pytest.raises(ConfigError):
        parse_groups({"topic.creation.default.replication.factor": "1", "topic.creation.default.partitions": "0"})


def test_group_patterns_are_java_regexes() -> None:
    """include/exclude are java.util.regex patterns (one dialect with the transforms and the connectors): a
    Unicode property and a class intersection, which Python's re would refuse, work."""
    groups = parse_groups(
        {
            "topic.creation.groups": "upper",
            "topic.creation.default.replication.factor": "1",
            "topic.creation.default.partitions": "1",
            "topic.creation.upper.include": "\\p{Lu}[a-z&&[^q]]+",
        }
    )
    assert groups is not None
    assert groups[0].matches("Orders") and not groups[0].matches("orders") and not groups[0].matches("Quq")
    with pytest.raises(ConfigError, match="topic creation"):
        parse_groups(
            {
                "topic.creation.groups": "bad",
                "topic.creation.default.replication.factor": "1",
                "topic.creation.default.partitions": "1",
                "topic.creation.bad.include": "(a",
            }
        )
