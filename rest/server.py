"""Serving the REST app with uvicorn on Connect-style `listeners` (`http://host:port`, comma list in config).

`RestServer` starts one uvicorn server per listener and stops them cleanly; `serve()` runs them until
cancelled. Signals are left to the process's composition root (uvicorn's own handlers are not installed).
Each listener may serve its own app (`admin.listeners` serve only /admin) and an `https://` listener serves
TLS with the SSLContext built from the worker's `ssl.*` settings (rest.security.server_ssl_context).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import socket
import ssl
from collections.abc import Generator, Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

import uvicorn
from starlette.types import ASGIApp

from connect_worker.api.errors import ConfigError, ConnectError

log = logging.getLogger(__name__)

# How long an idle keep-alive connection stays open: as long as Kafka Connect 4.3.1's REST server keeps one
# (measured on the real worker: open after 89 s idle, closed after 91 s). It must outlast the keep-alive expiry of
# common clients (httpx uses 5 s): with equal values a request sent on a connection the server is closing fails
# with a connection reset.
IDLE_TIMEOUT_S = 90


@dataclasses.dataclass(frozen=True, slots=True)
class Listener:
    scheme: str
    host: str
    port: int

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


@dataclasses.dataclass(frozen=True, slots=True)
class ListenerSpec:
    """One listener: its URL, the app it serves (default: the server's) and, for https, its TLS context."""

    url: str
    app: ASGIApp | None = None
    ssl_context: ssl.SSLContext | None = None


def parse_listener(text: str, *, tls: bool = False) -> Listener:
    """`http://host:port` (empty host = all interfaces, as in Connect's `listeners=http://:8083`); an
    `https://` listener is accepted only when TLS settings come with it (`tls=True`)."""
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
    if scheme == "https" and not tls:
        raise ConfigError(
            f"Listener {text!r}: an https listener needs TLS settings (listeners.https.ssl.keystore.location, or "
            "ssl.keystore.certificate.chain and ssl.keystore.key)",
            name="listeners",
        )
    return Listener(scheme, parts.hostname or "0.0.0.0", port)


class _EmbeddedServer(uvicorn.Server):
    """uvicorn without its signal handlers: the worker process owns SIGINT/SIGTERM."""

    @contextlib.contextmanager
    def capture_signals(self) -> Generator[None, None, None]:
        yield


class _Config(uvicorn.Config):
    """uvicorn's Config with a ready SSLContext (key material already loaded and checked at start-up)."""

    def __init__(self, app: ASGIApp, *, ssl_context: ssl.SSLContext | None, **kwargs: Any) -> None:
        super().__init__(app, **kwargs)
        self._ssl_context = ssl_context

    def load(self) -> None:
        super().load()
        if self._ssl_context is not None:
            self.ssl = self._ssl_context


class RestServer:
    def __init__(
        self,
        app: ASGIApp,
        listeners: Sequence[str | ListenerSpec],
        *,
        ssl_options: Mapping[str, Any] | None = None,
        ssl_context: ssl.SSLContext | None = None,
    ) -> None:
        """listeners: URLs (served with `app`, https ones with `ssl_context`) or ListenerSpecs.
        ssl_options: extra uvicorn Config settings (ssl_certfile, …) for every listener."""
        if not listeners:
            raise ConfigError("At least one listener is required", name="listeners")
        self.app = app
        specs = [ListenerSpec(x) if isinstance(x, str) else x for x in listeners]
        self.ssl_options = dict(ssl_options or {})
        has_tls_options = bool(self.ssl_options.get("ssl_certfile"))
        self._contexts = [spec.ssl_context or ssl_context for spec in specs]
        self._apps = [spec.app or app for spec in specs]
        self.listeners = [
            parse_listener(spec.url, tls=ctx is not None or has_tls_options)
            for spec, ctx in zip(specs, self._contexts, strict=True)
        ]
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
        for listener, sock, app, ctx in zip(self._bound, sockets, self._apps, self._contexts, strict=True):
            config = _Config(
                app,
                ssl_context=ctx if listener.scheme == "https" else None,
                host=listener.host,
                port=listener.port,
                lifespan="off",
                log_config=None,
                access_log=False,
                server_header=False,
                timeout_keep_alive=IDLE_TIMEOUT_S,
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
