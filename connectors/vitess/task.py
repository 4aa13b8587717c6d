"""VitessConnectorTask: the composition root of one VStream capture (spec vitess.md §1, §2).

start() parses the config and launches the stream in the background; poll() drains the bounded queue. The
stream starts at the stored VGTID, or (no offset) at a VStream Copy of every shard (snapshot.mode=initial)
or at the current position (never). A gRPC failure restarts the stream, within the task, from the position
of the last unit handed to the queue (errors.max.retries bounds the attempts); nothing is told to VTGate
about what Kafka holds: the position lives in the offsets only.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Mapping
from typing import ClassVar

import grpc

from connect_worker.api import ConnectError, RetriableError, SourceRecord, SourceTask
from connect_worker.api.metrics import task_metrics
from connectors.relational import metadata_schemas as md
from connectors.relational.column_mappers import ColumnMappers
from connectors.relational.emitter import context_headers, record_factory
from connectors.relational.filters import ColumnFilter, TableFilter
from connectors.relational.key_mapper import KeyMapper
from connectors.relational.metrics import StreamingMetrics
from connectors.relational.naming import TopicNamingStrategy, adjusters_from_config
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.schema_builder import EnvelopeLayout, SchemaBuilderSettings, TableSchema
from connectors.relational.table import Column, Table, TableId
from connectors.relational.transactions import TransactionMonitor
from connectors.vitess.config import VitessConnectorConfig
from connectors.vitess.events import UnitAssembler
from connectors.vitess.source_info import VITESS_DEBEZIUM_VERSION, VITESS_SOURCE_SCHEMA
from connectors.vitess.streaming import StreamSettings, VStreamSource
from connectors.vitess.value_converters import QueryType, VitessTypeOptions, converter_for, is_binary
from connectors.vitess.vgtid import ShardGtid, Vgtid
from connectors.vitess.vtgate import VtgateClient

log = logging.getLogger(__name__)

#: gRPC statuses a restart cannot cure: the task fails at once.
_FATAL = frozenset(
    {
        grpc.StatusCode.UNAUTHENTICATED,
        grpc.StatusCode.PERMISSION_DENIED,
        grpc.StatusCode.INVALID_ARGUMENT,
        grpc.StatusCode.UNIMPLEMENTED,
    }
)
_CHARACTER_TYPES = frozenset({QueryType.TEXT, QueryType.VARCHAR, QueryType.CHAR})


class VitessConnectorTask(SourceTask):
    class_name: ClassVar[str] = "io.debezium.connector.vitess.VitessConnectorTask"

    def __init__(self) -> None:
        self._config: VitessConnectorConfig | None = None
        self._queue: ChangeEventQueue | None = None
        self._runner: asyncio.Task[None] | None = None
        self._client: VtgateClient | None = None
        self._tables_by_id: dict[TableId, Table] = {}
        self._source: VStreamSource | None = None

    def version(self) -> str:
        return VITESS_DEBEZIUM_VERSION

    async def start(self, props: Mapping[str, str]) -> None:
        config = VitessConnectorConfig.from_props(props)
        self._config = config
        self._partition = {"server": config.topic_prefix}
        self._queue = ChangeEventQueue(
            max_size=config.max_queue_size,
            max_batch=config.max_batch_size,
            poll_interval_s=config.poll_interval_ms / 1000,
            max_bytes=config.max_queue_size_in_bytes,
        )
        raw = {k: str(v) for k, v in props.items()}
        self._tables = TableFilter.from_config(raw)
        columns = ColumnFilter.from_config(raw)
        self._keys = KeyMapper.from_config(raw)
        self._naming = TopicNamingStrategy.from_config(raw)
        schema_adjust, field_adjust = adjusters_from_config(raw)
        self._type_options = VitessTypeOptions(
            time_precision_mode=config.time_precision_mode,  # type: ignore[arg-type]
            bigint_unsigned_handling_mode=config.bigint_unsigned_handling_mode,  # type: ignore[arg-type]
            binary_handling_mode=config.binary_handling_mode,  # type: ignore[arg-type]
            include_unknown_datatypes=config.include_unknown_datatypes,
        )
        mappers = ColumnMappers.from_config(raw, is_character_column=_is_character_column)
        self._builder = SchemaBuilderSettings(
            topic_prefix=config.topic_prefix,
            converter_for=lambda col: converter_for(col, self._type_options),
            mapper_for=mappers.mapper_for,
            key_columns_for=self._key_columns,
            column_included=columns.includes,
            adjust_schema_name=schema_adjust.adjust,
            adjust_field_name=field_adjust.adjust,
            source_schema=VITESS_SOURCE_SCHEMA,
            transaction_schema=md.EVENT_BLOCK_SCHEMA,
            envelope=EnvelopeLayout.V2_7,
        )
        self._records = record_factory(
            EnvelopeLayout.V2_7,
            partition=self._partition,
            headers=context_headers(config.topic_prefix, "0", "vitess", str(uuid.uuid4())),
            tombstones_on_delete=config.tombstones_on_delete,
        )
        queue = self._queue
        self._metrics = StreamingMetrics(
            task_metrics(self.context),
            "vitess",
            config.topic_prefix,
            queue_capacity=config.max_queue_size,
            queue_remaining=lambda: queue.remaining_capacity,
        )
        stored = self.context.offset_storage_reader.offset(self._partition)
        position = stored.get("vgtid") if stored else None
        if position:
            log.info("Found previous offset: VGTID %s", position)
        self._runner = asyncio.get_running_loop().create_task(self._run(position), name=f"vitess-{config.topic_prefix}")

    async def poll(self) -> list[SourceRecord] | None:
        assert self._queue is not None
        return await self._queue.poll()

    async def stop(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        await self._close()

    async def _close(self) -> None:
        if self._client is not None:
            with contextlib.suppress(Exception):
                await self._client.close()
            self._client = None

    # -- tables ------------------------------------------------------------------------------------
    def _key_columns(self, table_id: TableId) -> tuple[str, ...] | None:
        table = self._tables_by_id.get(table_id)
        if table is None:
            return None
        return self._keys.key_columns(table_id, [c.name for c in table.columns])

    def _schema_for(self, table: Table) -> TableSchema | None:
        if not self._tables.accepts(table.id):
            return None
        self._tables_by_id[table.id] = table
        if not table.primary_key and self._key_columns(table.id) is None:
            log.warning("%s has no primary or unique key: its records have a null key", table.id)
        return TableSchema(table, self._builder)

    def _topic_for(self, table_id: TableId) -> str:
        assert self._config is not None
        if self._config.table_topic_naming:  # io.debezium.connector.vitess.TableTopicNamingStrategy
            return self._naming.data_change_topic(TableId("", table_id.table))
        return self._naming.data_change_topic(table_id)

    # -- the stream --------------------------------------------------------------------------------
    async def _run(self, position: str | None) -> None:
        assert self._queue is not None and self._config is not None
        config = self._config
        attempts = 0
        try:
            while True:
                try:
                    await self._stream(position)
                    return
                except RetriableError as e:
                    resumed = self._source.position if self._source is not None else None
                    if resumed and resumed != position:
                        attempts = 0  # the stream made progress since the last failure: a new series of retries
                        position = resumed
                    attempts += 1
                    if 0 <= config.errors_max_retries < attempts:
                        raise
                    log.warning(
                        "VStream failed (%s); restarting from %s in %d ms (attempt %d)",
                        e,
                        position or "the start position",
                        config.retriable_restart_wait_ms,
                        attempts,
                    )
                    await self._close()
                    await asyncio.sleep(config.retriable_restart_wait_ms / 1000)
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # noqa: BLE001 - handed to poll(), which fails the task
            log.error("Vitess capture failed: %s", e)
            self._queue.fail(e)
        finally:
            self._metrics.connected(False)

    async def _stream(self, position: str | None) -> None:
        config = self._config
        assert config is not None and self._queue is not None
        client = self._client = VtgateClient(config)
        try:
            start = Vgtid.parse(position) if position else await self._initial_vgtid(client)
            rules = await self._filter_rules(client)
            source = self._source = VStreamSource(
                queue=self._queue,
                records=self._records,
                settings=StreamSettings(
                    server_name=config.topic_prefix,
                    keyspace=config.keyspace,
                    skipped_operations=config.skipped_operations,
                    heartbeat_topic=self._naming.heartbeat_topic(),
                    heartbeat_interval_s=config.heartbeat_interval_ms / 1000,
                    failure_handling_mode=config.failure_handling_mode,
                    estimate_sizes=config.max_queue_size_in_bytes > 0,
                ),
                schema_for=self._schema_for,
                binary_columns=lambda table: tuple(is_binary(c) for c in table.columns),
                topic_for=self._topic_for,
                position=position,
                transactions=TransactionMonitor(partition=self._partition, topic=self._naming.transaction_topic())
                if config.provide_transaction_metadata
                else None,
                metrics=self._metrics,
            )
            assembler = UnitAssembler()
            log.info("VStream of keyspace %s from %s", config.keyspace, start.to_json())
            self._metrics.connected(True)
            async with contextlib.aclosing(client.vstream(start, rules)) as stream:
                async for events in stream:
                    for unit in assembler.feed(events):
                        await source.handle(unit)
        except grpc.aio.AioRpcError as e:
            message = f"VStream from {config.hostname}:{config.port} failed: {e.code().name}: {e.details()}"
            if e.code() in _FATAL:
                raise ConnectError(message) from e
            raise RetriableError(message) from e
        finally:
            self._metrics.connected(False)
        raise ConnectError(
            "VTGate ended the VStream"
            + (
                " (vitess.stop_on_reshard=true: a reshard happened; restart with the new shards)"
                if config.stop_on_reshard
                else ""
            )
        )

    async def _initial_vgtid(self, client: VtgateClient) -> Vgtid:
        """Where a capture with no stored offset starts (spec §1.3)."""
        config = self._config
        assert config is not None
        ks = config.keyspace
        gtid = "" if config.snapshot_initial else "current"
        if not config.shards:
            if not config.snapshot_initial:
                return Vgtid((ShardGtid(ks, "", "current"),))  # every shard, as VTGate expands it
            shards = await client.shards(ks)
            return Vgtid(tuple(ShardGtid(ks, s, "") for s in shards))
        given = config.start_vgtid
        if config.snapshot_initial or not given or given == "current":
            return Vgtid(tuple(ShardGtid(ks, s, gtid) for s in config.shards))
        if given.lstrip().startswith("["):
            vgtid = Vgtid.parse(given)
            if sorted(vgtid.shards) != sorted(config.shards):
                raise ConnectError(
                    f"The shards of vitess.vgtid {sorted(vgtid.shards)} differ from vitess.shard {list(config.shards)}"
                )
            return vgtid
        if len(config.shards) != 1:
            raise ConnectError("vitess.gtid holds one GTID: vitess.shard must then name exactly one shard")
        return Vgtid((ShardGtid(ks, config.shards[0], given),))

    async def _filter_rules(self, client: VtgateClient) -> list[tuple[str, str]]:
        """(match, filter) rules for table.include.list (none: every table of the keyspace)."""
        config = self._config
        assert config is not None
        if not self._tables.table_include:
            return []
        tables = await client.tables(config.keyspace)
        return [(t, f"select * from `{t}`") for t in tables if self._tables.accepts(TableId(config.keyspace, t))]


def _is_character_column(column: Column) -> bool:
    return column.type.oid in _CHARACTER_TYPES
