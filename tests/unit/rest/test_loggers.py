"""/admin/loggers… (KIP-495 / KIP-976)."""

from __future__ import annotations

import httpx

from tests.unit.rest.helpers import error, send
from tests.unit.runtime.fakes import HerderRig

REST = "org.apache.kafka.connect.runtime.rest"


async def test_list_and_get_loggers(client: httpx.AsyncClient) -> None:
    listed = await client.get("/admin/loggers")
    one = await client.get("/admin/loggers/root")

    assert listed.json()["root"] == {"level": "INFO", "last_modified": None}
    assert set(listed.json()) == {"root", REST, REST + ".RestServer"}
    assert one.content == b'{"level":"INFO","last_modified":null}'


async def test_unknown_logger_is_404(client: httpx.AsyncClient) -> None:
    assert error(await client.get("/admin/loggers/x.y")) == (404, "Logger x.y not found.")


async def test_set_level_worker_scope_lists_changed_loggers(client: httpx.AsyncClient, rig: HerderRig) -> None:
    response = await send(client, "PUT", f"/admin/loggers/{REST}", {"level": "debug"})

    assert response.status_code == 200
    assert response.json() == [REST, REST + ".RestServer"]
    assert rig.loggers.calls[-1] == (REST, "DEBUG")
    assert (await client.get(f"/admin/loggers/{REST}")).json() == {"level": "DEBUG", "last_modified": 1795303509461}
    again = await send(client, "PUT", f"/admin/loggers/{REST}?scope=bogus", {"level": "DEBUG"})
    assert again.status_code == 200
    assert again.json() == []


async def test_set_level_cluster_scope_is_204(client: httpx.AsyncClient, rig: HerderRig) -> None:
    response = await send(client, "PUT", "/admin/loggers/org.example?scope=Cluster", {"level": "WARN"})

    assert response.status_code == 204
    assert response.content == b""
    assert rig.loggers.calls[-1] == ("org.example", "WARN")


async def test_set_level_needs_a_valid_level(client: httpx.AsyncClient, rig: HerderRig) -> None:
    assert error(await send(client, "PUT", "/admin/loggers/x", {})) == (
        400,
        "Desired 'level' parameter was not specified in request.",
    )
    assert error(await send(client, "PUT", "/admin/loggers/x", {"level": "NOPE"})) == (
        404,
        "invalid log level 'NOPE'.",
    )
    assert rig.loggers.calls == []
