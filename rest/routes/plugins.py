"""`/connector-plugins…`: Connect's ConnectorPluginsResource, translated to Herder calls."""

from __future__ import annotations

from typing import Final

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from connect_worker.runtime.herder import Herder, PluginDesc
from rest import dto
from rest.errors import RestError
from rest.responses import json_response
from rest.routing import RouteTable, path_param, query_bool, read_bound

# Connect lists sinks, then sources, transformations, predicates, converters, header converters;
# within a type, by class name.
PLUGIN_TYPE_ORDER: Final = ("sink", "source", "transformation", "predicate", "converter", "header_converter")


def plugin_order(plugin: PluginDesc) -> tuple[int, str]:
    try:
        rank = PLUGIN_TYPE_ORDER.index(plugin.type)
    except ValueError:
        rank = len(PLUGIN_TYPE_ORDER)
    return rank, plugin.class_name


def normalized_plugin_name(name: str) -> str:
    """Works for full and simple class names alike: a trailing "Connector" is dropped."""
    return name[: -len("Connector")] if name.endswith("Connector") else name


class ConnectorPluginsResource:
    def __init__(self, herder: Herder, *, timeout: float | None) -> None:
        self.herder = herder
        self.timeout = timeout

    def routes(self) -> list[Route]:
        table = RouteTable(consumes=True, timeout=self.timeout)
        table.add("/connector-plugins", self.list_plugins, ["GET"])
        table.add("/connector-plugins/{plugin}/config", self.plugin_config, ["GET"])
        table.add("/connector-plugins/{plugin}/config/validate", self.validate, ["PUT"])
        return table.routes

    async def list_plugins(self, request: Request) -> Response:
        connectors_only = query_bool(request, "connectorsOnly", True)
        plugins = sorted(self.herder.plugins(connectors_only=connectors_only), key=plugin_order)
        return json_response([p.to_json() for p in plugins])

    async def plugin_config(self, request: Request) -> Response:
        keys = self.herder.plugin_config(path_param(request, "plugin"))
        return json_response([k.to_json() for k in keys])

    async def validate(self, request: Request) -> Response:
        plugin = path_param(request, "plugin")
        config = await read_bound(request, dto.config_map)
        if config is None:
            raise RestError(400, dto.NO_CONFIG)
        included = config.get("connector.class")
        if included is not None and not normalized_plugin_name(included).endswith(normalized_plugin_name(plugin)):
            raise RestError(400, f"Included connector type {included} does not match request type {plugin}")
        infos = await self.herder.validate_connector_config(plugin, config)
        return json_response(infos.to_json())
