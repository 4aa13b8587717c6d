"""The real uvicorn server on a loopback port, over real HTTP."""

from __future__ import annotations

import asyncio
import contextlib
import socket

import httpx
import pytest

from connect_worker.api.errors import ConfigError
from rest.app import create_app
from rest.server import RestServer, parse_listener, serve
from tests.unit.rest.helpers import FS_CONFIG, started_herder


async def test_serves_over_http_and_stops_cleanly() -> None:
    server = RestServer(create_app(await started_herder()), ["http://127.0.0.1:0"])
    await server.start()
    try:
        (url,) = server.urls
        assert url.startswith("http://127.0.0.1:") and not url.endswith(":0")
        async with httpx.AsyncClient(base_url=url) as c:
            root = await c.get("/")
            created = await c.post("/connectors", json={"name": "fs", "config": FS_CONFIG})
            paused = await c.put("/connectors/fs/pause")
            missing = await c.get("/nonexistent")

        assert root.json()["version"] == "4.3.1"
        assert root.headers["content-type"] == "application/json"
        assert created.status_code == 201
        assert created.headers["location"] == f"{url}/connectors/fs"
        assert paused.status_code == 202
        assert paused.headers["content-length"] == "0"
        assert missing.status_code == 404
        assert missing.json() == {"error_code": 404, "message": "HTTP 404 Not Found"}
        assert "content-type" not in missing.headers
    finally:
        await server.stop()
    port = int(url.rsplit(":", 1)[1])
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass


async def test_an_idle_connection_outlasts_a_clients_five_second_keep_alive() -> None:
    """A client reusing a connection idle for a little over 5 s (httpx's expiry) must not find it closing
    under it: the server keeps idle connections 90 s, as Kafka Connect's REST server does."""
    server = RestServer(create_app(await started_herder()), ["http://127.0.0.1:0"])
    await server.start()
    try:
        port = int(server.urls[0].rsplit(":", 1)[1])
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        request = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
        answers = []
        for pause in (0.0, 5.5):
            await asyncio.sleep(pause)
            writer.write(request)
            await writer.drain()
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
            length = int(
                next(h for h in head.split(b"\r\n") if h.lower().startswith(b"content-length:")).split(b":")[1]
            )
            answers.append((head.split(b"\r\n")[0], await reader.readexactly(length)))
        writer.close()
        assert [status for status, _ in answers] == [b"HTTP/1.1 200 OK"] * 2
        assert all(b'"version"' in body for _, body in answers)
    finally:
        await server.stop()


async def test_port_in_use_fails_start_and_leaves_nothing_bound() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        server = RestServer(create_app(await started_herder()), ["http://127.0.0.1:0", f"http://127.0.0.1:{port}"])
        with pytest.raises(OSError):
            await server.start()
        assert server.urls == []


def test_parse_listener() -> None:
    assert parse_listener("http://:8083").url == "http://0.0.0.0:8083"
    assert parse_listener("HTTP://127.0.0.1:18083").url == "http://127.0.0.1:18083"
    assert parse_listener("http://[::1]:8083").url == "http://[::1]:8083"
    for bad in ["127.0.0.1:8083", "http://localhost", "https://localhost:8443", "ftp://h:1"]:
        with pytest.raises(ConfigError):
            parse_listener(bad)


async def test_serve_runs_until_cancelled() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    task = asyncio.create_task(serve(create_app(await started_herder()), [f"http://127.0.0.1:{port}"]))
    try:
        async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}") as c:
            for _ in range(200):
                try:
                    response = await c.get("/health")
                    break
                except httpx.ConnectError:
                    await asyncio.sleep(0.01)
        assert response.json()["status"] == "healthy"
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
        pass
