"""Names of test resources (topics, slots, publications, databases, connectors, worker groups) that no other test
uses, each recorded, so that the Kafka topics they named are deleted when the pytest session ends: the local
broker of `make up` lives across many runs, and a day of runs left it thousands of topics (hundreds of Connect
offsets topics of 25 partitions) to load at every start."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable

log = logging.getLogger(__name__)

_TOKENS: set[str] = set()


def unique(prefix: str = "t", length: int = 12) -> str:
    """`prefix` and `length` random hex digits, recorded for the session's topic clean-up."""
    random = uuid.uuid4().hex[:length]
    _TOKENS.add(random)
    return prefix + random


def session_topics(topics: Iterable[str]) -> list[str]:
    """The topics among `topics` that a name of this session made (its random part is in the topic's name)."""
    return sorted(t for t in topics if any(token in t for token in _TOKENS))


def delete_session_topics(bootstrap: str, timeout: float = 30.0) -> int:
    """Delete the topics named by this session's names (the differential harness's `delete_topics`); how many were
    found. Best effort: a broker that is down or slow leaves them (logged), never fails the session."""
    if not _TOKENS:
        return 0
    from confluent_kafka import KafkaException
    from confluent_kafka.admin import AdminClient

    from tests.differential.debezium import delete_topics  # (it imports this module)

    try:
        admin = AdminClient({"bootstrap.servers": bootstrap, "socket.connection.setup.timeout.ms": "3000"})
        doomed = session_topics(admin.list_topics(timeout=10).topics)
        delete_topics(bootstrap, doomed, timeout=timeout)
        return len(doomed)
    except (KafkaException, RuntimeError) as e:
        log.warning("the session's test topics were left on %s: %s", bootstrap, e)
        return 0
