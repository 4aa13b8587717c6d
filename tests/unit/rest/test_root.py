"""GET / and GET /health."""

from __future__ import annotations

import httpx
import pytest

from tests.unit.rest.memory_herder import MemoryHerder


async def test_server_info(client: httpx.AsyncClient) -> None:
    response = await client.get("/")

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    assert response.content == b'{"version":"4.3.0","commit":"a9ce3221537b8653","kafka_cluster_id":"tansu_cluster"}'


@pytest.mark.parametrize(
    ("status", "message", "code"),
    [
        ("healthy", "Worker has completed startup and is ready to handle requests.", 200),
        ("starting", "Worker is still starting up. Reading the config topic", 503),
        ("unhealthy", "Worker was unable to handle this request and may be unable to handle other requests.", 500),
    ],
)
async def test_health(client: httpx.AsyncClient, herder: MemoryHerder, status: str, message: str, code: int) -> None:
    herder.health_answer = (status, message)

    response = await client.get("/health")

    assert response.status_code == code
    assert response.json() == {"status": status, "message": message}
