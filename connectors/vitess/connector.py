"""VitessConnector: io.debezium.connector.vitess.VitessConnector (Debezium 2.7 generation), hosted by this
worker: one task streaming one keyspace from VTGate."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, ClassVar

import grpc

from connect_worker.api import ConfigDef, ConfigValue, SourceConnector, SourceTask
from connectors.vitess.config import VITESS_CONFIG_DEF, VitessConnectorConfig, validate_props
from connectors.vitess.source_info import VITESS_DEBEZIUM_VERSION
from connectors.vitess.task import VitessConnectorTask

_CONNECT_TIMEOUT_S = 5.0


class VitessConnector(SourceConnector):
    class_name: ClassVar[str] = "io.debezium.connector.vitess.VitessConnector"
    plugin_version: ClassVar[str] = VITESS_DEBEZIUM_VERSION

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    @classmethod
    def config_def(cls) -> ConfigDef:
        return VITESS_CONFIG_DEF

    async def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        """Every problem of the config, then (when it is sound) whether VTGate answers at all."""
        results = validate_props(props)
        if any(v.errors for v in results.values()):
            return results
        config = VitessConnectorConfig.from_props(props)
        target = f"{config.hostname}:{config.port}"
        async with grpc.aio.insecure_channel(target) as channel:
            try:
                await asyncio.wait_for(channel.channel_ready(), _CONNECT_TIMEOUT_S)
            except TimeoutError:
                results["database.hostname"].errors.append(
                    f"Unable to connect to VTGate at {target} within {_CONNECT_TIMEOUT_S:.0f} s"
                )
        return results

    async def start(self, props: Mapping[str, str]) -> None:
        VitessConnectorConfig.from_props(props)
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return VitessConnectorTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]  # one task: offsets per task are not supported yet

    async def stop(self) -> None:
        self._props = {}

    async def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[Any, Mapping[str, Any] | None]) -> bool:
        return False
