"""One task's change-event pipeline, built once per start from the connector's typed config (never from the raw
properties again): the bounded queue, table/column filters, key mapper, topic naming, name adjusters, column
mappers, schema-builder settings, record factory, transaction monitor, heartbeat and metrics.

What differs per connector comes in as a :class:`Flavor` (the `source` block, the envelope's generation, the
value converters, what a character column is, which schemas are system schemas). A connector's sources
(snapshot, streaming) take what they need from here; :class:`connectors.relational.task.RelationalSourceTask`
runs them under the coordinator.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Awaitable, Callable, Collection
from typing import Any

from connect_worker.api import Schema
from connect_worker.api.metrics import MetricsGroup
from connectors.relational import metadata_schemas as md
from connectors.relational.column_mappers import ColumnMappers
from connectors.relational.common_config import CommonConnectorConfig
from connectors.relational.emitter import RecordFactory, context_headers, record_factory
from connectors.relational.filters import ColumnFilter, TableFilter, exclusive_lists
from connectors.relational.heartbeat import Heartbeat, HeartbeatValue
from connectors.relational.key_mapper import KeyMapper
from connectors.relational.metrics import SnapshotMetrics, StreamingMetrics
from connectors.relational.naming import TopicNamingStrategy, adjusters
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.schema_builder import ColumnConverter, EnvelopeLayout, SchemaBuilderSettings
from connectors.relational.table import Column, Table, TableId
from connectors.relational.transactions import TransactionMonitor


@dataclasses.dataclass(frozen=True, slots=True)
class Flavor:
    """What a connector's records look like where connectors differ."""

    #: Debezium's connector name in the context headers (``postgresql``, ``vitess``).
    connector: str
    #: The metrics' plug-in name (``debezium_<plugin>_connector_metrics``).
    metrics_plugin: str
    source_schema: Schema
    envelope: EnvelopeLayout
    #: The column's value converter, None for a type the connector cannot convert.
    converter_for: Callable[[Column], ColumnConverter | None]
    #: Debezium masks and hashes only character columns (JDBC CHAR/VARCHAR/...).
    is_character_column: Callable[[Column], bool]
    #: Schemas never captured while table.ignore.builtin is true.
    system_schemas: Collection[str] = ()
    #: Extra SchemaBuilderSettings fields (the TOAST placeholder, YugabyteDB's cells).
    builder_options: tuple[tuple[str, Any], ...] = ()


class Pipeline:
    def __init__(self, config: CommonConnectorConfig, flavor: Flavor, metrics: MetricsGroup) -> None:
        self.config = config
        self.flavor = flavor
        self.partition: dict[str, Any] = {"server": config.topic_prefix}
        self.queue = ChangeEventQueue(
            max_size=config.max_queue_size,
            max_batch=config.max_batch_size,
            poll_interval_s=config.poll_interval_ms / 1000,
            max_bytes=config.max_queue_size_in_bytes,
        )
        schema_include, schema_exclude = exclusive_lists(
            "schema.include.list", config.schema_include_list, "schema.exclude.list", config.schema_exclude_list
        )
        table_include, table_exclude = exclusive_lists(
            "table.include.list", config.table_include_list, "table.exclude.list", config.table_exclude_list
        )
        self.tables = TableFilter(
            schema_include=schema_include,
            schema_exclude=schema_exclude,
            table_include=table_include,
            table_exclude=table_exclude,
            system_schemas=flavor.system_schemas,
            ignore_builtin=config.table_ignore_builtin,
            also=config.signaling.data_collections,
        )
        column_include, column_exclude = exclusive_lists(
            "column.include.list", config.column_include_list, "column.exclude.list", config.column_exclude_list
        )
        self.columns = ColumnFilter(include=column_include, exclude=column_exclude)
        self.keys = KeyMapper(config.message_key_columns)
        self.naming = TopicNamingStrategy.checked(
            config.topic_prefix,
            delimiter=config.topic_delimiter,
            transaction=config.topic_transaction,
            heartbeat_prefix=config.topic_heartbeat_prefix,
            cache_size=config.topic_cache_size,
        )
        schema_adjust, field_adjust = adjusters(config.schema_name_adjustment_mode, config.field_name_adjustment_mode)
        self.mappers = ColumnMappers(config.column_rules, is_character_column=flavor.is_character_column)
        #: the tables seen so far (catalog, relation messages, FIELD events): what custom keys are computed over
        self.tables_by_id: dict[TableId, Table] = {}
        self.builder = SchemaBuilderSettings(
            topic_prefix=config.topic_prefix,
            converter_for=flavor.converter_for,
            mapper_for=self.mappers.mapper_for,
            key_columns_for=self.key_columns,
            column_included=self.columns.includes,
            adjust_schema_name=schema_adjust.adjust,
            adjust_field_name=field_adjust.adjust,
            source_schema=flavor.source_schema,
            transaction_schema=md.EVENT_BLOCK_SCHEMA,
            envelope=flavor.envelope,
            **dict(flavor.builder_options),
        )
        self.records: RecordFactory = record_factory(
            flavor.envelope,
            partition=self.partition,
            headers=context_headers(config.topic_prefix, "0", flavor.connector, str(uuid.uuid4())),
            tombstones_on_delete=config.tombstones_on_delete,
        )
        self._metrics = metrics

    def key_columns(self, table_id: TableId) -> tuple[str, ...] | None:
        """message.key.columns' key of a known table, None to keep its primary key."""
        table = self.tables_by_id.get(table_id)
        if table is None:
            return None
        return self.keys.key_columns(table_id, [c.name for c in table.columns])

    def transactions(self) -> TransactionMonitor | None:
        """BEGIN/END records and transaction blocks, when provide.transaction.metadata is on."""
        if not self.config.provide_transaction_metadata:
            return None
        return TransactionMonitor(partition=self.partition, topic=self.naming.transaction_topic())

    def heartbeat(
        self, *, value: HeartbeatValue | None = None, action: Callable[[], Awaitable[None]] | None = None
    ) -> Heartbeat:
        options: dict[str, Any] = {} if value is None else {"value": value}
        return Heartbeat(
            queue=self.queue,
            partition=self.partition,
            topic=self.naming.heartbeat_topic(),
            server_name=self.config.topic_prefix,
            interval_ms=self.config.heartbeat_interval_ms,
            action=action,
            **options,
        )

    def snapshot_metrics(self) -> SnapshotMetrics:
        return SnapshotMetrics(
            self._metrics, self.flavor.metrics_plugin, self.config.topic_prefix, **self._queue_gauges()
        )

    def streaming_metrics(self) -> StreamingMetrics:
        return StreamingMetrics(
            self._metrics, self.flavor.metrics_plugin, self.config.topic_prefix, **self._queue_gauges()
        )

    def _queue_gauges(self) -> dict[str, Any]:
        queue = self.queue
        return {"queue_capacity": self.config.max_queue_size, "queue_remaining": lambda: queue.remaining_capacity}
