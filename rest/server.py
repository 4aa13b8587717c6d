"""Serving the REST app with uvicorn on Connect-style `listeners` (`http://host:port`, comma list in config).

`RestServer` starts one uvicorn server per listener and stops them cleanly; `serve()` runs them until
cancelled. Signals are left to the process's composition root (uvicorn's own handlers are not installed).
TLS (`https://` listeners with `listeners.https.ssl.*`) is the seam still to fill: `ssl_options` is passed
through to uvicorn's Config unchanged once https listeners are accepted.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import socket
from collections.abc import Generator, Mapping
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from starlette.types import ASGIApp

from connect_worker.api.errors import ConfigError, ConnectError

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, slots=True)
class Listener:
    scheme: str
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def parse_listener(text: str) -> Listener:
    """`http://host:port` (empty host = all interfaces, as in Connect's `listeners=http://:8083`)."""
    parts = urlsplit(text.strip())
    scheme = parts.scheme.lower()
    if scheme not in ("http", "https"):
        raise ConfigError(f"Invalid listener {text!r}: the protocol must be http or https", name="listeners")
    try:
        port = parts.port
    except ValueError:
        port = None
    if port is None:
        raise ConfigError(f"Invalid listener {text!r}: a port is required", name="listeners")
    if scheme == "https":
        raise ConfigError(f"Listener {text!r}: https listeners are not supported yet", name="listeners")
    return Listener(scheme, parts.hostname or "0.0.0.0", port)


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handlers: the worker process owns SIGINT/SIGTERM."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


class RestServer:
    def __init__(
        self,
        app: ASGIApp,
        listeners: list[str],
        *,
        ssl_options: Mapping[str, Any] | None = None,
    ) -> None:
        if not listeners:
            raise ConfigError("At least one listener is required", name="listeners")
        self.app = app
        self.listeners = [parse_listener(text) for text in listeners]
        self.ssl_options = dict(ssl_options or {})
        self._servers: list[_EmbeddedServer] = []
        self._tasks: list[asyncio.Task[None]] = []
        self._bound: list[Listener] = []

    @property
    def urls(self) -> list[str]:
        """The bound URLs (a port 0 resolved to the port the system chose); valid after start()."""
        return [lst.url for lst in self._bound]

    async def start(self) -> None:
        """Binds every listener (an OSError such as "address in use" is raised here, nothing left bound),
        then serves them."""
        sockets: list[socket.socket] = []
        try:
            for listener in self.listeners:
                sockets.append(_bind(listener))
        except OSError:
            for sock in sockets:
                sock.close()
            raise
        self._bound = [
            dataclasses.replace(lst, port=sock.getsockname()[1])
            for lst, sock in zip(self.listeners, sockets, strict=True)
        ]
        for listener, sock in zip(self._bound, sockets, strict=True):
            config = uvicorn.Config(
                self.app,
                host=listener.host,
                port=listener.port,
                lifespan="off",
                log_config=None,
                access_log=False,
                server_header=False,
                **self.ssl_options,
            )
            server = _EmbeddedServer(config)
            self._servers.append(server)
            self._tasks.append(asyncio.create_task(server.serve(sockets=[sock]), name=f"rest {listener.url}"))
        try:
            while not all(s.started for s in self._servers):
                if any(t.done() for t in self._tasks):
                    raise ConnectError("The REST server stopped while starting")
                await asyncio.sleep(0.005)
        except BaseException:
            await asyncio.shield(self.stop())
            raise
        log.info("REST server listening on %s", ", ".join(self.urls))

    async def stop(self) -> None:
        """Stops accepting, lets requests in flight finish, closes the sockets. Idempotent."""
        for server in self._servers:
            server.should_exit = True
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        self._tasks = []
        self._servers = []


def _bind(listener: Listener) -> socket.socket:
    family = socket.AF_INET6 if ":" in listener.host else socket.AF_INET
    return socket.create_server((listener.host, listener.port), family=family, reuse_port=False)


async def serve(app: ASGIApp, listeners: list[str], **options: Any) -> None:
    """Serves `app` on every listener until cancelled, then shuts the servers down cleanly."""
    server = RestServer(app, listeners, **options)
    try:
        await server.start()
        await asyncio.Event().wait()
    finally:
        await asyncio.shield(server.stop())
