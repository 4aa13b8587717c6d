"""`/` and `/health`: Connect's RootResource and HealthResource (KIP-1017)."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from connect_worker.runtime.herder import Herder
from rest.responses import json_response
from rest.routing import RouteTable

HEALTH_STATUS: Final = {"healthy": 200, "starting": 503}


class RootResource:
    def __init__(self, herder: Herder, *, timeout: float | None) -> None:
        self.herder = herder
        self.timeout = timeout

    def routes(self) -> list[Route]:
        table = RouteTable(consumes=False, timeout=self.timeout)
        table.add("/", self.server_info, ["GET"])
        table.add("/health", self.health, ["GET"])
        return table.routes

    async def server_info(self, request: Request) -> Response:
        return json_response((await self.herder.server_info()).to_json())

    async def health(self, request: Request) -> Response:
        status, message = self.herder.health()
        return json_response({"status": status, "message": message}, HEALTH_STATUS.get(status, 500))
