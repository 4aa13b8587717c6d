"""`/connectors…`: Connect's ConnectorsResource, translated to Herder calls.

`?forward=` is distributed request forwarding (rest/forwarding.py); a standalone worker never forwards.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from connect_worker.api.errors import NotFoundError
from connect_worker.runtime.herder import ConnectorInfo, Herder
from connect_worker.runtime.request_signature import RequestSignature
from rest import dto
from rest.errors import RestError
from rest.responses import empty_response, json_response
from rest.routing import PATH_SAFE, RouteTable, path_param, query_bool, read_bound, read_json, task_param


class ConnectorsResource:
    def __init__(
        self,
        herder: Herder,
        *,
        base_url: str | None,
        topic_tracking: bool,
        topic_tracking_reset: bool,
        timeout: float | None,
    ) -> None:
        self.herder = herder
        self.base_url = base_url
        self.topic_tracking = topic_tracking
        self.topic_tracking_reset = topic_tracking_reset
        self.timeout = timeout

    def routes(self) -> list[Route]:
        table = RouteTable(consumes=True, timeout=self.timeout)
        c = "/connectors/{connector}"
        table.add("/connectors", self.list_connectors, ["GET"])
        table.add("/connectors", self.create_connector, ["POST"])
        table.add(c, self.get_connector, ["GET"])
        table.add(c, self.delete_connector, ["DELETE"])
        table.add(c + "/config", self.get_config, ["GET"])
        table.add(c + "/config", self.put_config, ["PUT"])
        table.add(c + "/config", self.patch_config, ["PATCH"])
        table.add(c + "/status", self.get_status, ["GET"])
        table.add(c + "/restart", self.restart_connector, ["POST"])
        table.add(c + "/pause", self.pause_connector, ["PUT"])
        table.add(c + "/resume", self.resume_connector, ["PUT"])
        table.add(c + "/stop", self.stop_connector, ["PUT"])
        table.add(c + "/tasks", self.get_tasks, ["GET"])
        table.add(c + "/tasks", self.put_tasks, ["POST"])  # internal: a worker hands task configs to the leader
        table.add(c + "/tasks/{task}/status", self.get_task_status, ["GET"])
        table.add(c + "/tasks/{task}/restart", self.restart_task, ["POST"])
        table.add(c + "/topics", self.get_topics, ["GET"])
        table.add(c + "/topics/reset", self.reset_topics, ["PUT"])
        table.add(c + "/offsets", self.get_offsets, ["GET"])
        table.add(c + "/offsets", self.alter_offsets, ["PATCH"])
        table.add(c + "/offsets", self.reset_offsets, ["DELETE"])
        table.add(c + "/signals", self.submit_signal, ["POST"])  # our extension (Debezium's JMX signal)
        return table.routes

    # -- helpers --------------------------------------------------------------------------------------
    def _location(self, request: Request, name: str) -> str:
        """Absolute, as Jersey resolves `/connectors/{name}` against the request's base URI."""
        base = self.base_url if self.base_url is not None else str(request.base_url)
        return base.rstrip("/") + "/connectors/" + quote(name, safe=PATH_SAFE)

    def _created(self, request: Request, name: str, info: ConnectorInfo) -> Response:
        return json_response(info.to_json(), 201, headers={"Location": self._location(request, name)})

    # -- collection -----------------------------------------------------------------------------------
    async def list_connectors(self, request: Request) -> Response:
        names = await self.herder.connectors()
        if "expand" not in request.query_params:
            return json_response(names)
        expansions = request.query_params.getlist("expand")
        out: dict[str, dict[str, Any]] = {}
        for name in names:
            try:
                entry: dict[str, Any] = {}
                for expansion in expansions:
                    if expansion == "status":
                        entry["status"] = (await self.herder.connector_status(name)).to_json()
                    elif expansion == "info":
                        entry["info"] = (await self.herder.connector_info(name)).to_json()
                out[name] = entry
            except NotFoundError:
                continue  # deleted while we looked, or no status yet: left out, as Connect does
        return json_response(out)

    async def create_connector(self, request: Request) -> Response:
        req = await read_bound(request, dto.create_request)
        config = dto.put_connector_name(req.name, req.config)
        _created, info = await self.herder.put_connector_config(
            req.name, config, allow_replace=False, initial_state=req.initial_state
        )
        return self._created(request, req.name, info)

    # -- one connector --------------------------------------------------------------------------------
    async def get_connector(self, request: Request) -> Response:
        info = await self.herder.connector_info(path_param(request, "connector"))
        return json_response(info.to_json())

    async def delete_connector(self, request: Request) -> Response:
        await self.herder.delete_connector(path_param(request, "connector"))
        return empty_response(204)

    async def get_config(self, request: Request) -> Response:
        return json_response(await self.herder.connector_config(path_param(request, "connector")))

    async def put_config(self, request: Request) -> Response:
        name = path_param(request, "connector")
        config = await read_bound(request, dto.config_map)
        if config is None:
            raise RestError(400, dto.NO_CONFIG)
        config = dto.put_connector_name(name, config)
        created, info = await self.herder.put_connector_config(name, config, allow_replace=True)
        if created:
            return self._created(request, name, info)
        return json_response(info.to_json())

    async def patch_config(self, request: Request) -> Response:
        name = path_param(request, "connector")
        patch = await read_bound(request, dto.config_patch)
        if patch is None:
            raise RestError(400, dto.NO_CONFIG)
        info = await self.herder.patch_connector_config(name, patch)
        return json_response(info.to_json())

    async def get_status(self, request: Request) -> Response:
        status = await self.herder.connector_status(path_param(request, "connector"))
        return json_response(status.to_json())

    async def restart_connector(self, request: Request) -> Response:
        plan = await self.herder.restart_connector(
            path_param(request, "connector"),
            include_tasks=query_bool(request, "includeTasks", False),
            only_failed=query_bool(request, "onlyFailed", False),
        )
        if plan is None:
            return empty_response(204)
        return json_response(plan.to_json(), 202)

    async def pause_connector(self, request: Request) -> Response:
        await self.herder.pause_connector(path_param(request, "connector"))
        return empty_response(202)

    async def resume_connector(self, request: Request) -> Response:
        await self.herder.resume_connector(path_param(request, "connector"))
        return empty_response(202)

    async def stop_connector(self, request: Request) -> Response:
        await self.herder.stop_connector(path_param(request, "connector"))
        return empty_response(204)

    # -- tasks ----------------------------------------------------------------------------------------
    async def get_tasks(self, request: Request) -> Response:
        tasks = await self.herder.task_configs(path_param(request, "connector"))
        return json_response([t.to_json() for t in tasks])

    async def put_tasks(self, request: Request) -> Response:
        body = await read_json(request)
        if not isinstance(body, list) or not all(isinstance(x, dict) for x in body):
            raise RestError(400, "Task configs must be a JSON array of objects")
        configs = [{str(k): str(v) for k, v in x.items()} for x in body]
        signature = RequestSignature.from_headers(request.headers, await request.body())
        await self.herder.put_task_configs(path_param(request, "connector"), configs, signature)
        return empty_response(204)

    async def get_task_status(self, request: Request) -> Response:
        name, task = path_param(request, "connector"), task_param(request)
        return json_response((await self.herder.task_status(name, task)).to_json())

    async def restart_task(self, request: Request) -> Response:
        name, task = path_param(request, "connector"), task_param(request)
        await self.herder.restart_task(name, task)
        return empty_response(204)

    # -- topics ---------------------------------------------------------------------------------------
    async def get_topics(self, request: Request) -> Response:
        if not self.topic_tracking:
            raise RestError(403, "Topic tracking is disabled.")
        name = path_param(request, "connector")
        topics = await self.herder.connector_active_topics(name)
        return json_response({name: {"topics": list(topics)}})

    async def reset_topics(self, request: Request) -> Response:
        if not self.topic_tracking:
            raise RestError(403, "Topic tracking is disabled.")
        if not self.topic_tracking_reset:
            raise RestError(403, "Topic tracking reset is disabled.")
        await self.herder.reset_connector_active_topics(path_param(request, "connector"))
        return empty_response(202)

    # -- offsets --------------------------------------------------------------------------------------
    async def get_offsets(self, request: Request) -> Response:
        offsets = await self.herder.connector_offsets(path_param(request, "connector"))
        return json_response({"offsets": [o.to_json() for o in offsets]})

    async def alter_offsets(self, request: Request) -> Response:
        name = path_param(request, "connector")
        offsets = await read_bound(request, dto.offsets_request)
        message = await self.herder.alter_connector_offsets(name, offsets)
        return json_response({"message": message})

    async def reset_offsets(self, request: Request) -> Response:
        message = await self.herder.reset_connector_offsets(path_param(request, "connector"))
        return json_response({"message": message})

    # -- signals (our extension) ---------------------------------------------------------------------------
    async def submit_signal(self, request: Request) -> Response:
        name = path_param(request, "connector")
        try:
            body = await read_json(request)
        except RestError as e:  # malformed JSON: Connect's endpoints answer 500; this one is ours
            raise RestError(400, e.message) from None
        signal = dto.signal_request(body)
        await self.herder.submit_signal(name, signal.id, signal.type, signal.data)
        return json_response({"id": signal.id, "type": signal.type}, 202)
