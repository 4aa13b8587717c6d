"""The plugins the in-memory Herder knows: stand-ins with the names, versions and ConfigDefs of the real ones
(Kafka's FileStream connectors and RegexRouter, Debezium's PostgresConnector), plus Connect's framework keys."""

from __future__ import annotations

import dataclasses

from connect_worker.api import config as cfg
from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance, Width

FRAMEWORK = ConfigDef(
    [
        ConfigKey(
            "name",
            ConfigType.STRING,
            validator=cfg.non_empty_string,
            importance=Importance.HIGH,
            documentation="Globally unique name to use for this connector.",
            group="Common",
            order_in_group=1,
            width=Width.MEDIUM,
            display_name="Connector name",
        ),
        ConfigKey(
            "connector.class",
            ConfigType.STRING,
            importance=Importance.HIGH,
            documentation="Name or alias of the class for this connector.",
            group="Common",
            order_in_group=2,
            width=Width.LONG,
            display_name="Connector class",
        ),
        ConfigKey(
            "tasks.max",
            ConfigType.INT,
            default=1,
            validator=cfg.at_least(1),
            importance=Importance.HIGH,
            documentation="Maximum number of tasks to use for this connector.",
            group="Common",
            order_in_group=3,
            width=Width.SHORT,
            display_name="Tasks max",
        ),
    ]
)


@dataclasses.dataclass(frozen=True)
class FakePlugin:
    class_name: str
    type: str
    version: str
    config_def: ConfigDef = dataclasses.field(default_factory=ConfigDef)
    aliases: tuple[str, ...] = ()
    task_class: str = ""
    max_tasks: int | None = None  # task configs the connector returns at most (None: tasks.max)
    alters_offsets: bool = False  # what SourceConnector.alter_offsets returns

    def answers_to(self, name: str) -> bool:
        simple = self.class_name.rsplit(".", 1)[-1]
        return name in (self.class_name, simple, *self.aliases)


FILE_SOURCE = FakePlugin(
    "org.apache.kafka.connect.file.FileStreamSourceConnector",
    "source",
    "4.3.0",
    ConfigDef(
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
    ),
    aliases=("FileStreamSource",),
    task_class="org.apache.kafka.connect.file.FileStreamSourceTask",
    max_tasks=1,
    alters_offsets=True,
)
POSTGRES = FakePlugin(
    "io.debezium.connector.postgresql.PostgresConnector",
    "source",
    "3.6.3.Final",
    ConfigDef(
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
    ),
    task_class="io.debezium.connector.postgresql.PostgresConnectorTask",
    max_tasks=1,
)
FILE_SINK = FakePlugin(
    "org.apache.kafka.connect.file.FileStreamSinkConnector", "sink", "4.3.0", aliases=("FileStreamSink",)
)
REGEX_ROUTER = FakePlugin(
    "org.apache.kafka.connect.transforms.RegexRouter",
    "transformation",
    "4.3.0",
    ConfigDef(
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
    ),
)
UNWRAP = FakePlugin("io.debezium.transforms.ExtractNewRecordState", "transformation", "3.6.3.Final")
TOPIC_MATCHES = FakePlugin("org.apache.kafka.connect.transforms.predicates.TopicNameMatches", "predicate", "4.3.0")
JSON_CONVERTER = FakePlugin("org.apache.kafka.connect.json.JsonConverter", "converter", "4.3.0")
JSON_HEADER_CONVERTER = FakePlugin("org.apache.kafka.connect.json.JsonConverter", "header_converter", "4.3.0")
STRING_CONVERTER = FakePlugin("org.apache.kafka.connect.storage.StringConverter", "converter", "undefined")

# Deliberately not in Connect's order: the REST layer sorts.
PLUGINS = (
    JSON_CONVERTER,
    POSTGRES,
    REGEX_ROUTER,
    FILE_SOURCE,
    TOPIC_MATCHES,
    STRING_CONVERTER,
    FILE_SINK,
    JSON_HEADER_CONVERTER,
    UNWRAP,
)
