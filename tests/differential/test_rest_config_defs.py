"""Differential: GET /connector-plugins/{p}/config and PUT /connector-plugins/{p}/config/validate asked of the REAL
Kafka Connect 4.3.1 + Debezium 3.6.3.Final and of this worker (a `connect-worker` process), same bodies, compared
field by field (tests/differential/config_infos.py says what is left out and why). The real answers are also held
to the golden captures the unit tests (tests/unit/runtime/test_plugin_config_keys.py) check this worker against.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from connect_worker.api import PluginType
from tests.differential.config_infos import (
    CONFIG_DEFS_GOLDEN,
    CONFIG_PATH,
    VALIDATE_GOLDEN,
    VALIDATE_PATH,
    diff_config_defs,
    diff_validate,
    installed_plugins,
    live_only_cases,
    validate_cases,
    without_documentation,
)
from tests.differential.debezium import ConnectDebezium
from tests.differential.ours import OurWorker

pytestmark = [pytest.mark.integration, pytest.mark.debezium, pytest.mark.timeout(900)]


@pytest.fixture(scope="module")
def our_worker(our_connect: OurWorker) -> OurWorker:
    return our_connect  # the session's worker process (conftest.py)


@pytest.fixture(scope="module")
def installed() -> dict[PluginType, list[str]]:
    return installed_plugins()


def _cases(pg_port: int) -> dict[str, dict[str, str]]:
    return {**validate_cases(pg_port), **live_only_cases(pg_port)}


def _ask(worker: ConnectDebezium, method: str, path: str, body: Any = None) -> tuple[int, Any]:
    answer = worker.request(method, path, body)
    return answer.status, answer.json()


def test_plugin_config_equals_connects(debezium_connect: ConnectDebezium, our_worker: OurWorker) -> None:
    status_j, theirs = _ask(debezium_connect, "GET", CONFIG_PATH)
    status_o, ours = _ask(our_worker, "GET", CONFIG_PATH)

    assert (status_o, status_j) == (200, 200)
    assert diff_config_defs(theirs, ours) == []
    assert without_documentation(theirs) == json.loads(CONFIG_DEFS_GOLDEN.read_text())


@pytest.mark.parametrize("case", sorted(_cases(5433)))
def test_validate_equals_connects(
    case: str,
    debezium_connect: ConnectDebezium,
    our_worker: OurWorker,
    pg_port: int,
    installed: dict[PluginType, list[str]],
) -> None:
    body = _cases(pg_port)[case]

    status_j, theirs = _ask(debezium_connect, "PUT", VALIDATE_PATH, body)
    status_o, ours = _ask(our_worker, "PUT", VALIDATE_PATH, body)

    assert (status_o, status_j) == (200, 200), (ours, theirs)
    assert diff_validate(theirs, ours, installed) == []
    golden = json.loads(VALIDATE_GOLDEN.read_text()).get(case)
    if golden is not None:  # the goldens still say what the real worker says (database.port aside: not shown)
        assert without_documentation(theirs) == golden["answer"]
