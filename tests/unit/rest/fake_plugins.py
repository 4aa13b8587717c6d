"""The plugins the REST tests' worker knows: stand-ins with the names, versions and ConfigDefs of the real ones
(Kafka's FileStream connectors, RegexRouter and converters, Debezium's PostgresConnector and ExtractNewRecordState),
in a PluginRegistry as the worker builds one from its entry points."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api import PluginType, SourceConnector, SourceTask
from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.api.plugin import Plugin
from connect_worker.runtime.plugins import PluginRegistry
from tests.unit.runtime.fakes import IdleTask


class _StandInConnector(SourceConnector):
    """Started with its config, it gives that config to each of its tasks, at most `max_tasks` of them."""

    definition: ClassVar[ConfigDef] = ConfigDef()
    task: ClassVar[type[SourceTask]] = IdleTask
    max_tasks: ClassVar[int | None] = None
    alters_offsets: ClassVar[bool] = False  # what alter_offsets answers

    @classmethod
    def config_def(cls) -> ConfigDef:
        return cls.definition

    async def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return self.task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        count = max_tasks if self.max_tasks is None else min(max_tasks, self.max_tasks)
        return [dict(self.props) for _ in range(count)]

    async def stop(self) -> None:
        pass

    async def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[Any, Mapping[str, Any] | None]) -> bool:
        return self.alters_offsets


class FileStreamSourceTask(IdleTask):
    class_name = "org.apache.kafka.connect.file.FileStreamSourceTask"


class FileStreamSourceConnector(_StandInConnector):
    class_name = "org.apache.kafka.connect.file.FileStreamSourceConnector"
    plugin_version = "4.3.0"
    definition = ConfigDef(
        [
            ConfigKey(
                "file",
                ConfigType.STRING,
                default=None,
                importance=Importance.HIGH,
                documentation="Source filename. If not specified, the standard input will be used",
            ),
            ConfigKey(
                "topic", ConfigType.STRING, importance=Importance.HIGH, documentation="The topic to publish data to"
            ),
            ConfigKey(
                "batch.size",
                ConfigType.INT,
                default=2000,
                importance=Importance.LOW,
                documentation="The maximum number of records the source task can read from the file each "
                "time it is polled",
            ),
        ]
    )
    task = FileStreamSourceTask
    max_tasks = 1
    alters_offsets = True


class PostgresConnectorTask(IdleTask):
    class_name = "io.debezium.connector.postgresql.PostgresConnectorTask"


class PostgresConnector(_StandInConnector):
    class_name = "io.debezium.connector.postgresql.PostgresConnector"
    plugin_version = "3.6.3.Final"
    definition = ConfigDef(
        [
            ConfigKey(
                "topic.prefix",
                ConfigType.STRING,
                importance=Importance.HIGH,
                group="Postgres",
                documentation="Topic prefix",
            ),
            ConfigKey(
                "database.hostname",
                ConfigType.STRING,
                importance=Importance.HIGH,
                group="Postgres",
                documentation="Resolvable hostname or IP address of the database server.",
            ),
        ]
    )
    task = PostgresConnectorTask
    max_tasks = 1


class FileStreamSinkConnector(Plugin):
    class_name = "org.apache.kafka.connect.file.FileStreamSinkConnector"
    plugin_version = "4.3.0"


class RegexRouter(Plugin):
    class_name = "org.apache.kafka.connect.transforms.RegexRouter"
    plugin_version = "4.3.0"

    @classmethod
    def config_def(cls) -> ConfigDef:
        return ConfigDef(
            [
                ConfigKey(
                    "regex",
                    ConfigType.STRING,
                    importance=Importance.HIGH,
                    documentation="Regular expression to use for matching.",
                ),
                ConfigKey(
                    "replacement", ConfigType.STRING, importance=Importance.HIGH, documentation="Replacement string."
                ),
            ]
        )


class ExtractNewRecordState(Plugin):
    class_name = "io.debezium.transforms.ExtractNewRecordState"
    plugin_version = "3.6.3.Final"


class TopicNameMatches(Plugin):
    class_name = "org.apache.kafka.connect.transforms.predicates.TopicNameMatches"
    plugin_version = "4.3.0"


class JsonConverter(Plugin):
    class_name = "org.apache.kafka.connect.json.JsonConverter"
    plugin_version = "4.3.0"


class StringConverter(Plugin):
    class_name = "org.apache.kafka.connect.storage.StringConverter"  # its version is "undefined"


# Deliberately not in Connect's order: the registry sorts.
REGISTRY = PluginRegistry(
    [
        (PluginType.CONVERTER, JsonConverter),
        (PluginType.SOURCE, PostgresConnector),
        (PluginType.TRANSFORMATION, RegexRouter),
        (PluginType.SOURCE, FileStreamSourceConnector),
        (PluginType.PREDICATE, TopicNameMatches),
        (PluginType.CONVERTER, StringConverter),
        (PluginType.SINK, FileStreamSinkConnector),
        (PluginType.HEADER_CONVERTER, JsonConverter),
        (PluginType.TRANSFORMATION, ExtractNewRecordState),
    ]
)
