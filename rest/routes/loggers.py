"""`/admin/loggers…`: Connect's LoggingResource (KIP-495, KIP-976), translated to Herder calls."""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from connect_worker.runtime.herder import Herder
from rest import dto
from rest.responses import empty_response, json_response
from rest.routing import RouteTable, path_param, read_bound


class LoggingResource:
    def __init__(self, herder: Herder, *, timeout: float | None) -> None:
        self.herder = herder
        self.timeout = timeout

    def routes(self) -> list[Route]:
        table = RouteTable(consumes=True, timeout=self.timeout)
        table.add("/admin/loggers", self.list_loggers, ["GET"])
        table.add("/admin/loggers/{logger}", self.get_logger, ["GET"])
        table.add("/admin/loggers/{logger}", self.set_level, ["PUT"])
        return table.routes

    async def list_loggers(self, request: Request) -> Response:
        return json_response({name: level.to_json() for name, level in self.herder.loggers().items()})

    async def get_logger(self, request: Request) -> Response:
        return json_response(self.herder.logger_level(path_param(request, "logger")).to_json())

    async def set_level(self, request: Request) -> Response:
        name = path_param(request, "logger")
        level = await read_bound(request, dto.logger_level_request)
        scope = request.query_params.get("scope") or "worker"
        # A standalone worker applies the cluster scope locally, as Connect's StandaloneHerder does.
        changed = self.herder.set_logger_level(name, level)
        if scope.lower() == "cluster":
            return empty_response(204)
        return json_response(changed)  # "worker", and any unknown scope, which Connect treats as worker
