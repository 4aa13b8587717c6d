"""What a herder answers apart from its control-plane state machine (Connect's AbstractHerder): who the worker is,
its plugins and their config keys, connector config validation and the log levels. A standalone herder (and a
distributed one) adds the connectors: configs, target states, statuses, restarts and offsets."""

from __future__ import annotations

import hashlib
import traceback
from collections.abc import Mapping

from connect_worker import __version__
from connect_worker.runtime.config_providers import ConfigTransformer
from connect_worker.runtime.config_validator import ConnectorConfigValidator
from connect_worker.runtime.herder import ConfigInfos, ConfigKeyInfo, Herder, LoggerLevel, PluginDesc, ServerInfo
from connect_worker.runtime.herder_ports import ClusterAdmin, LoggerLevels
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.validation import plugin_config_keys
from connect_worker.runtime.worker_config import WorkerConfig

CONNECT_VERSION = "4.3.1"  # the Kafka Connect REST API version this worker answers as
COMMIT_ID = hashlib.sha1(f"connect-worker-{__version__}".encode()).hexdigest()[:16]


class AbstractHerder(Herder):
    def __init__(
        self,
        *,
        config: WorkerConfig,
        registry: PluginRegistry,
        admin: ClusterAdmin,
        loggers: LoggerLevels,
        config_transformer: ConfigTransformer | None = None,
    ) -> None:
        self._config = config
        self._registry = registry
        self._admin = admin
        self._loggers = loggers
        # config providers: connectors and tasks get resolved values; configs stored and shown keep placeholders
        transformer = config_transformer if config_transformer is not None else config.config_transformer
        self._redact = transformer.redactor.redact
        self._validator = ConnectorConfigValidator(registry, config, transformer)
        self._started = False
        self._cluster_id: str | None = None

    def _trace(self, e: BaseException) -> str:
        """A failure's stack trace as a status shows it: with any secret the config providers gave redacted."""
        return self._redact("".join(traceback.format_exception(e)))

    # -- worker ---------------------------------------------------------------------------------------
    @property
    def worker_id(self) -> str:
        return self._config.worker_id

    async def server_info(self) -> ServerInfo:
        return ServerInfo(CONNECT_VERSION, COMMIT_ID, self._cluster_id)

    def health(self) -> tuple[str, str]:
        if not self._started:
            return "starting", "Worker is still starting up."
        return "healthy", "Worker has completed startup and is ready to handle requests."

    # -- plugins and validation ---------------------------------------------------------------------
    def plugins(self, *, connectors_only: bool) -> list[PluginDesc]:
        return [
            PluginDesc(full, kind.value, getattr(cls, "plugin_version", "undefined"))
            for kind, full, cls in self._registry.listing(connectors_only=connectors_only)
        ]

    def plugin_config(self, plugin: str) -> list[ConfigKeyInfo]:
        kind, cls = self._registry.any_plugin(plugin)
        return plugin_config_keys(kind, cls)

    async def validate_connector_config(self, plugin: str | None, given: Mapping[str, str | None]) -> ConfigInfos:
        return await self._validator.validate(plugin, given)

    # -- loggers -------------------------------------------------------------------------------------
    def loggers(self) -> dict[str, LoggerLevel]:
        return self._loggers.all()

    def logger_level(self, name: str) -> LoggerLevel:
        return self._loggers.get(name)

    def set_logger_level(self, name: str, level: str) -> list[str]:
        return self._loggers.set(name, level)
