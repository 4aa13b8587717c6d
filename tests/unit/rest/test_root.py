"""GET / and GET /health."""

from __future__ import annotations

import httpx
import pytest

from connect_worker.runtime.abstract_herder import COMMIT_ID
from connect_worker.runtime.standalone_herder import StandaloneHerder
from rest.app import create_app
from tests.unit.rest.helpers import rest_rig


async def test_server_info(client: httpx.AsyncClient) -> None:
    response = await client.get("/")

    assert response.status_code == 200
    assert response.headers["content-type"] == "application/json"
    # the Connect version this worker answers as, its own commit id, the cluster id its admin client reads
    assert response.content == (
        b'{"version":"4.3.1","commit":"' + COMMIT_ID.encode() + b'","kafka_cluster_id":"tansu_cluster"}'
    )


class _Unhealthy(StandaloneHerder):
    def health(self) -> tuple[str, str]:
        return "unhealthy", "Worker was unable to handle this request and may be unable to handle other requests."


@pytest.mark.parametrize(
    ("herder_class", "started", "status", "message", "code"),
    [
        (StandaloneHerder, True, "healthy", "Worker has completed startup and is ready to handle requests.", 200),
        (StandaloneHerder, False, "starting", "Worker is still starting up.", 503),
        (
            _Unhealthy,
            True,
            "unhealthy",
            "Worker was unable to handle this request and may be unable to handle other requests.",
            500,
        ),
    ],
)
async def test_health(
    herder_class: type[StandaloneHerder], started: bool, status: str, message: str, code: int
) -> None:
    herder = rest_rig(herder_class).herder
    if started:
        await herder.start()
    app = create_app(herder)
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://h") as c:
        response = await c.get("/health")

    assert response.status_code == code
    assert response.json() == {"status": status, "message": message}
