"""Shared fixtures: where the real local services started by `make up` listen."""

from __future__ import annotations

import os

import pytest

from tests import names


def _kafka_bootstrap() -> str:
    return "127.0.0.1:" + os.environ.get("CW_KAFKA_PORT", "9092")


@pytest.fixture(scope="session")
def kafka_bootstrap() -> str:
    return _kafka_bootstrap()


_DELETED = pytest.StashKey[int]()  # how many topics the session's end deleted (said in the terminal summary)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """The topics this session's names made are deleted from the local broker (tests/names.py)."""
    session.config.stash[_DELETED] = names.delete_session_topics(_kafka_bootstrap())


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, config: pytest.Config) -> None:
    """(Called after pytest_sessionfinish, on a line of its own.)"""
    deleted = config.stash.get(_DELETED, 0)
    if deleted:
        terminalreporter.write_line(f"deleted {deleted} Kafka topic(s) this session's tests made (tests/names.py)")


@pytest.fixture(scope="session")
def pg_dsn() -> str:
    port = os.environ.get("CW_PG_PORT", "5433")
    return f"host=127.0.0.1 port={port} user=postgres dbname=postgres"


@pytest.fixture
def unique_name() -> str:
    """A name no other test uses: for topics, slots, publications, databases."""
    return names.unique("t", 12)


@pytest.fixture
def worker_props(kafka_bootstrap: str, unique_name: str) -> dict[str, str]:
    """Worker settings with internal topics of this test's own (so tests never share state)."""
    from tests.worker_support import worker_properties

    return worker_properties(kafka_bootstrap, unique_name)


@pytest.fixture(scope="session")
def registry_url() -> str:
    """The devstack's schema registry (Apicurio, Confluent API); started here when `make up` has not."""
    import subprocess
    import urllib.request
    from pathlib import Path

    url = f"http://127.0.0.1:{os.environ.get('CW_REGISTRY_PORT', '8081')}/apis/ccompat/v7"
    try:
        urllib.request.urlopen(url + "/subjects", timeout=5).close()
    except OSError:
        script = Path(__file__).resolve().parents[1] / "devstack" / "registry.sh"
        subprocess.run([str(script), "start"], check=True, timeout=600)
    return url
