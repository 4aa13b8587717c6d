"""The REST application: Kafka Connect 4.3's REST API over the Herder interface.

A FastAPI application whose routes are plain Starlette routes: Connect's answers depend on binding bodies
the way Jackson does and on Jersey's routing and error texts, so every handler reads its request itself;
FastAPI's request validation (422), OpenAPI and docs routes are not used (Kafka publishes no OpenAPI of
its own that clients rely on).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from fastapi import FastAPI
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from connect_worker.runtime.herder import Herder
from rest.options import handle_http_exception_or_options
from rest.routes.connectors import ConnectorsResource
from rest.routes.loggers import LoggingResource
from rest.routes.metrics import MetricsResource
from rest.routes.plugins import ConnectorPluginsResource
from rest.routes.root import RootResource
from rest.routing import DEFAULT_REQUEST_TIMEOUT_S, EncodedPathMiddleware
from rest.uri_compliance import UriComplianceMiddleware


def create_app(
    herder: Herder,
    *,
    base_url: str | None = None,
    topic_tracking: bool = True,
    topic_tracking_reset: bool = True,
    request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT_S,
    middleware: Sequence[Middleware] = (),
    admin: bool = True,
    metrics: Callable[[], str] | None = None,
) -> Starlette:
    """The ASGI app answering like Kafka Connect 4.3.

    base_url: the URL `Location` headers start with (e.g. a proxy's); by default the request's own base URL,
        as Jersey does. topic_tracking / topic_tracking_reset: the worker's `topic.tracking.enable` and
        `topic.tracking.allow.reset`. request_timeout: seconds before a Herder call is answered with 500
        "Request timed out" (Connect: 90). middleware: extra ASGI middleware run before routing — the seam
        for authentication (Connect's REST extensions, rest.security.BasicAuthMiddleware).
        admin: serve /admin/loggers here (False when `admin.listeners` moves them to an app of their own,
        create_admin_app). metrics: what renders GET /metrics (Prometheus text); no route when None.
    """
    routes: list[BaseRoute] = [
        *RootResource(herder, timeout=request_timeout).routes(),
        *ConnectorsResource(
            herder,
            base_url=base_url,
            topic_tracking=topic_tracking,
            topic_tracking_reset=topic_tracking_reset,
            timeout=request_timeout,
        ).routes(),
        *ConnectorPluginsResource(herder, timeout=request_timeout).routes(),
    ]
    if admin:
        routes += LoggingResource(herder, timeout=request_timeout).routes()
    if metrics is not None:
        routes += MetricsResource(metrics).routes()
    return _app(routes, middleware)


def create_admin_app(
    herder: Herder,
    *,
    request_timeout: float | None = DEFAULT_REQUEST_TIMEOUT_S,
    middleware: Sequence[Middleware] = (),
) -> Starlette:
    """The app of Connect's `admin.listeners`: only the /admin resources (today /admin/loggers)."""
    return _app(LoggingResource(herder, timeout=request_timeout).routes(), middleware)


def _app(routes: Sequence[BaseRoute], middleware: Sequence[Middleware]) -> Starlette:
    app = FastAPI(
        routes=list(routes),
        middleware=[Middleware(UriComplianceMiddleware), *middleware, Middleware(EncodedPathMiddleware)],
        exception_handlers={HTTPException: handle_http_exception_or_options},
        docs_url=None,
        redoc_url=None,
        openapi_url=None,
    )
    app.router.redirect_slashes = False
    return app
