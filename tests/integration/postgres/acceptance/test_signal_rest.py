"""Signals over the worker's REST API (our extension standing in for Debezium's JMX signal channel), on the real
PostgreSQL 15 and Kafka: an execute-snapshot POSTed to /connectors/{name}/signals runs an incremental snapshot;
a connector without `jmx` in signal.enabled.channels answers 400, an unknown connector 404."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.integration.postgres.acceptance.pg_harness import (
    Harness,
    connector,
    harness_fixture,
    payload,
    signal_setup,
    wait,
)

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="module")]

h = harness_fixture("accr")

NOT_ENABLED = "signals over the REST API need 'jmx' (or 'rest') in signal.enabled.channels of this connector"


async def post_signal(h: Harness, name: str, body: dict[str, Any], timeout: float = 30.0) -> httpx.Response:
    """POST the signal, again while the task answers 409 (not streaming yet)."""
    last: httpx.Response | None = None

    async def answered() -> httpx.Response | None:
        nonlocal last
        last = await h.client.post(f"/connectors/{name}/signals", json=body)
        return None if last.status_code == 409 else last

    try:
        response: httpx.Response = await wait(answered, timeout)
    except AssertionError as e:
        raise AssertionError(f"still 409 after {timeout}s: {last.text if last else None}") from e
    return response


async def test_an_execute_snapshot_signal_posted_over_rest_runs_an_incremental_snapshot(h: Harness) -> None:
    name = h.name()
    items, sig = await signal_setup(h, name, 30)
    config = h.config(
        name,
        name,
        **{"snapshot.mode": "no_data", "signal.enabled.channels": "source,jmx", "signal.data.collection": sig},
    )
    async with connector(h, name, config):
        await h.task_state(name, "RUNNING")
        body = {"id": "rest-1", "type": "execute-snapshot", "data": {"data-collections": [items]}}
        response = await post_signal(h, name, body)

        assert response.status_code == 202, response.text
        assert response.json() == {"id": "rest-1", "type": "execute-snapshot"}
        got = await h.records(f"{name}.{items}", 30, timeout=60)
        reads = [payload(r) for r in got]
        assert {p["op"] for p in reads} == {"r"}
        assert {p["source"]["snapshot"] for p in reads} == {"incremental"}
        assert sorted(p["after"]["id"] for p in reads) == list(range(1, 31))


async def test_a_connector_without_jmx_in_its_channels_answers_400(h: Harness) -> None:
    name = h.name()
    _, sig = await signal_setup(h, name, 1)
    config = h.config(
        name, name, **{"snapshot.mode": "no_data", "signal.enabled.channels": "source", "signal.data.collection": sig}
    )
    async with connector(h, name, config):
        await h.task_state(name, "RUNNING")
        response = await post_signal(h, name, {"id": "x", "type": "log", "data": {"message": "hello"}})

        assert response.status_code == 400
        assert response.json() == {"error_code": 400, "message": NOT_ENABLED}


async def test_an_unknown_connector_answers_404(h: Harness) -> None:
    response = await h.client.post("/connectors/nope-none/signals", json={"id": "x", "type": "log"})

    assert response.status_code == 404
    assert response.json() == {"error_code": 404, "message": "Connector nope-none not found"}
