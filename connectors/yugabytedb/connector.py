"""YugabyteDBConnector: io.debezium.connector.postgresql.YugabyteDBConnector (YugabyteDB's fork of Debezium's
PostgreSQL connector), hosted by this worker."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api import ConfigDef, ConfigValue, ExactlyOnceSupport, SourceConnector, SourceTask
from connectors.postgres.server_check import validate_connection
from connectors.yugabytedb.config import YUGABYTEDB_CONFIG_DEF, parse_yb_config, validate_yb_props
from connectors.yugabytedb.source_info import YB_DEBEZIUM_VERSION
from connectors.yugabytedb.task import YugabyteDBConnectorTask


class YugabyteDBConnector(SourceConnector):
    class_name: ClassVar[str] = "io.debezium.connector.postgresql.YugabyteDBConnector"
    plugin_version: ClassVar[str] = YB_DEBEZIUM_VERSION

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    @classmethod
    def config_def(cls) -> ConfigDef:
        return YUGABYTEDB_CONFIG_DEF

    async def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        """Every problem of the config, then (when it is sound) of the server it names."""
        results = validate_yb_props(props)
        if any(v.errors for v in results.values()):
            return results
        for key, errors in (await validate_connection(parse_yb_config(props))).items():
            results.setdefault(key, ConfigValue(key, props.get(key))).errors.extend(errors)
        return results

    async def start(self, props: Mapping[str, str]) -> None:
        parse_yb_config(props)
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return YugabyteDBConnectorTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]  # streaming.mode=default: one slot, one task

    async def stop(self) -> None:
        self._props = {}

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        return ExactlyOnceSupport.SUPPORTED

    async def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[Any, Mapping[str, Any] | None]) -> bool:
        return False
