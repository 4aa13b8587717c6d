"""`GET /metrics`: the worker's metrics in the Prometheus text format (not a Connect endpoint; Connect exposes
JMX, which a Prometheus JMX exporter turns into the same names)."""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from rest.errors import response_for

PROMETHEUS_TEXT = "text/plain; version=0.0.4; charset=utf-8"


class MetricsResource:
    def __init__(self, render: Callable[[], str]) -> None:
        self.render = render

    def routes(self) -> list[Route]:
        return [Route("/metrics", self.metrics, methods=["GET"])]

    async def metrics(self, request: Request) -> Response:
        try:
            body = self.render()
        except Exception as error:  # noqa: BLE001 - answered like every other error
            return response_for(error)
        return Response(body, media_type=PROMETHEUS_TEXT)
