"""PostgresConnectorTask: the assembly of one PostgreSQL capture on the shared pipeline.

The task parses the typed config, says what PostgreSQL's records look like (Debezium 3.x's envelope, the
PostgreSQL `source` block, the value converters of value_converters/) and hands the coordinator its sources
(sources.py: snapshot, then streaming from the replication slot). Everything else - queue, filters, topic
names, retries, heartbeats, polling - is connectors/relational's.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from connect_worker.api import Schema
from connectors.postgres.config import LogicalDecoder, PostgresConnectorConfig
from connectors.postgres.source_info import DEBEZIUM_VERSION, SOURCE_SCHEMA, SourceInfo
from connectors.postgres.sources import SYSTEM_SCHEMAS, PostgresSources
from connectors.postgres.value_converters import TypeOptions, converter_for
from connectors.relational.pipeline import Flavor, Pipeline
from connectors.relational.schema_builder import EnvelopeLayout
from connectors.relational.table import Column
from connectors.relational.task import RelationalSourceTask, TaskSources

CHARACTER_TYPES = frozenset({"text", "varchar", "bpchar", "char", "name", "citext"})


def is_character_column(column: Column) -> bool:
    return column.type.resolved.name in CHARACTER_TYPES


class PostgresConnectorTask(RelationalSourceTask[PostgresConnectorConfig]):
    class_name: ClassVar[str] = "io.debezium.connector.postgresql.PostgresConnectorTask"
    #: What a connector built on this task changes (the YugabyteDB connector): the `source` block, the
    #: envelope's layout, and whether logical decoding messages become records.
    source_schema: ClassVar[Schema] = SOURCE_SCHEMA
    envelope: ClassVar[EnvelopeLayout] = EnvelopeLayout.V3
    logical_messages: ClassVar[bool] = True
    #: Confirm to the slot only positions of completed commits (YugabyteDB: a HYBRID_TIME slot must not be
    #: told a position inside a transaction, and a SEQUENCE slot resends the whole transaction anyway).
    confirm_commits_only: ClassVar[bool] = False

    def version(self) -> str:
        return DEBEZIUM_VERSION

    def parse_config(self, props: Mapping[str, str]) -> PostgresConnectorConfig:
        return PostgresConnectorConfig.from_props(props)

    def new_source_info(self, config: PostgresConnectorConfig) -> SourceInfo:
        return SourceInfo(config.topic_prefix, config.dbname)

    def flavor(self, config: PostgresConnectorConfig) -> Flavor:
        options = TypeOptions(
            time_precision_mode=config.time_precision_mode.value,
            decimal_handling_mode=config.decimal_handling_mode.value,
            hstore_handling_mode=config.hstore_handling_mode.value,
            interval_handling_mode=config.interval_handling_mode.value,
            binary_handling_mode=config.binary_handling_mode.value,
            money_fraction_digits=config.money_fraction_digits,
            include_unknown_datatypes=config.include_unknown_datatypes,
        )
        return Flavor(
            connector="postgresql",
            metrics_plugin="postgres",
            source_schema=self.source_schema,
            envelope=self.envelope,
            converter_for=lambda column: converter_for(column, options),
            is_character_column=is_character_column,
            system_schemas=SYSTEM_SCHEMAS,
            builder_options=(
                ("unavailable_placeholder", config.unavailable_value_placeholder),
                ("wrap_cells", config.plugin_name is LogicalDecoder.YBOUTPUT),
            ),
        )

    def new_sources(
        self, config: PostgresConnectorConfig, pipeline: Pipeline, stored_offset: Mapping[str, Any] | None
    ) -> TaskSources:
        return PostgresSources(
            config,
            pipeline,
            stored_offset,
            source_info=self.new_source_info(config),
            logical_messages=self.logical_messages,
            confirm_commits_only=self.confirm_commits_only,
        )
