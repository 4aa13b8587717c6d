"""PostgresConnector: Debezium's io.debezium.connector.postgresql.PostgresConnector, in Python."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api import (
    ConfigDef,
    ConfigValue,
    ConnectorTransactionBoundaries,
    ExactlyOnceSupport,
    SourceConnector,
    SourceTask,
)
from connectors.postgres.config import POSTGRES_CONFIG_DEF, PostgresConnectorConfig, validate_props
from connectors.postgres.server_check import validate_connection
from connectors.postgres.source_info import DEBEZIUM_VERSION
from connectors.postgres.task import PostgresConnectorTask


class PostgresConnector(SourceConnector):
    class_name: ClassVar[str] = "io.debezium.connector.postgresql.PostgresConnector"
    plugin_version: ClassVar[str] = DEBEZIUM_VERSION

    def __init__(self) -> None:
        self._props: dict[str, str] = {}

    @classmethod
    def config_def(cls) -> ConfigDef:
        return POSTGRES_CONFIG_DEF

    async def validate(self, props: Mapping[str, str]) -> dict[str, ConfigValue]:
        """Every problem of the config, then (when the config itself is sound) of the database: it is
        connected to, as Debezium's validate() does, so an unreachable server fails connector creation."""
        results = validate_props(props)
        if any(v.errors for v in results.values()):
            return results
        config = PostgresConnectorConfig.from_props(props)
        for key, errors in (await validate_connection(config)).items():
            results.setdefault(key, ConfigValue(key, props.get(key))).errors.extend(errors)
        return results

    async def start(self, props: Mapping[str, str]) -> None:
        PostgresConnectorConfig.from_props(props)
        self._props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return PostgresConnectorTask

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [dict(self._props)]  # one slot, one task (tasks.max is accepted and ignored)

    async def stop(self) -> None:
        self._props = {}

    def exactly_once_support(self, props: Mapping[str, str]) -> ExactlyOnceSupport:
        return ExactlyOnceSupport.SUPPORTED

    def can_define_transaction_boundaries(self, props: Mapping[str, str]) -> ConnectorTransactionBoundaries:
        """Ours, not Debezium's (3.6.3 refuses transaction.boundary=connector): a Kafka transaction per database
        transaction, so that a read_committed consumer sees whole source transactions or nothing."""
        return ConnectorTransactionBoundaries.SUPPORTED

    async def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[Any, Mapping[str, Any] | None]) -> bool:
        return False  # Debezium does not override it: the slot is not touched by an offsets reset
