"""PostgresConnectorTask: the composition root of one PostgreSQL capture (snapshot, then streaming).

start() parses the config and launches the pipeline in the background; poll() drains the bounded queue;
offsets_flushed() confirms to the slot only positions Kafka already holds. A retriable database failure
restarts the stream from the last position handed to the queue (no record is lost or repeated by it);
other failures fail the task with the error.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import logging
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, ClassVar

import psycopg

from connect_worker.api import RetriableError, Schema, SourceRecord, SourceTask
from connect_worker.api.metrics import task_metrics
from connectors.postgres import catalog
from connectors.postgres.config import (
    LogicalDecoder,
    LsnFlushMode,
    PostgresConnectorConfig,
    SnapshotLockingMode,
    SnapshotQueryMode,
    conninfo,
)
from connectors.postgres.lsn import Lsn
from connectors.postgres.messages import message_record
from connectors.postgres.offsets import StoredPosition, snapshot_offset
from connectors.postgres.protocol import pgoutput as pg
from connectors.postgres.publication import apply_replica_identities, ensure_publication
from connectors.postgres.replication import ReplicationConnection, ReplicationStream, SnapshotAction
from connectors.postgres.slot import drop_slot_on_stop, ensure_slot, output_plugin, retry_slot_operation
from connectors.postgres.snapshot import SnapshotSettings, run_snapshot
from connectors.postgres.snapshot_chunks import HybridTimeSnapshot, Snapshot
from connectors.postgres.snapshotter import check_stored_position, snapshotter_for
from connectors.postgres.source_info import DEBEZIUM_VERSION, SOURCE_SCHEMA, SourceInfo
from connectors.postgres.streamed_transactions import StreamedTransactions
from connectors.postgres.streaming import StreamingChangeSource, StreamingSettings
from connectors.postgres.value_converters import TypeOptions, converter_for
from connectors.relational import metadata_schemas as md
from connectors.relational.column_mappers import ColumnMappers
from connectors.relational.emitter import RecordFactory, context_headers, record_factory
from connectors.relational.filters import ColumnFilter, MessagePrefixFilter, RegexList, TableFilter, capture_order
from connectors.relational.key_mapper import KeyMapper
from connectors.relational.metrics import SnapshotMetrics, StreamingMetrics
from connectors.relational.naming import TopicNamingStrategy, adjusters_from_config
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.schema_builder import EnvelopeLayout, SchemaBuilderSettings, TableSchema
from connectors.relational.snapshot_spi import load_snapshot_lock, load_snapshot_query
from connectors.relational.table import Column, Table, TableId
from connectors.relational.transactions import TransactionMonitor

log = logging.getLogger(__name__)

SYSTEM_SCHEMAS = frozenset({"pg_catalog", "information_schema", "pg_toast"})
CHARACTER_TYPES = frozenset({"text", "varchar", "bpchar", "char", "name", "citext"})


def _binary_content(mode: str) -> Any:
    if mode == "base64":
        return lambda b: base64.b64encode(b).decode()
    if mode == "base64-url-safe":
        return lambda b: base64.urlsafe_b64encode(b).decode()
    if mode == "hex":
        return lambda b: b.hex()
    return lambda b: b


class PostgresConnectorTask(SourceTask):
    class_name: ClassVar[str] = "io.debezium.connector.postgresql.PostgresConnectorTask"
    #: What a connector built on this task changes (the YugabyteDB connector): the `source` block, the
    #: envelope's layout, and whether logical decoding messages become records.
    source_schema: ClassVar[Schema] = SOURCE_SCHEMA
    envelope: ClassVar[EnvelopeLayout] = EnvelopeLayout.V3
    logical_messages: ClassVar[bool] = True
    #: Confirm to the slot only positions of completed commits (YugabyteDB: a HYBRID_TIME slot must not be
    #: told a position inside a transaction, and a SEQUENCE slot resends the whole transaction anyway).
    confirm_commits_only: ClassVar[bool] = False

    def __init__(self) -> None:
        self._config: PostgresConnectorConfig | None = None
        self._queue: ChangeEventQueue | None = None
        self._runner: asyncio.Task[None] | None = None
        self._stream: ReplicationStream[Any] | None = None
        self._replication: ReplicationConnection | None = None
        self._sql: psycopg.AsyncConnection[Any] | None = None
        self._schemas: dict[TableId, TableSchema] = {}
        self._stopping = False
        self._confirmed = 0
        self._streaming_started = False
        self._resume_position: StoredPosition | None = None  # where a retry after a failure resumes
        self._resuming = False
        self._missing_tables: set[TableId] = set()  # decoderbufs: tables the catalog did not have

    def version(self) -> str:
        return DEBEZIUM_VERSION

    def parse_config(self, props: Mapping[str, str]) -> PostgresConnectorConfig:
        return PostgresConnectorConfig.from_props(props)

    def new_source_info(self, config: PostgresConnectorConfig) -> SourceInfo:
        return SourceInfo(config.topic_prefix, config.dbname)

    def new_record_factory(self, **settings: Any) -> RecordFactory:
        return record_factory(self.envelope, **settings)

    # -- lifecycle ----------------------------------------------------------------------------------
    async def start(self, props: Mapping[str, str]) -> None:
        config = self.parse_config(props)
        for w in config.warnings:
            log.warning("%s", w)
        self._config = config
        self._partition = {"server": config.topic_prefix}
        self._queue = ChangeEventQueue(
            max_size=config.max_queue_size,
            max_batch=config.max_batch_size,
            poll_interval_s=config.poll_interval_ms / 1000,
            max_bytes=config.max_queue_size_in_bytes,
        )
        raw = {k: str(v) for k, v in props.items()}
        self._tables = TableFilter.from_config(raw, system_schemas=SYSTEM_SCHEMAS)
        self._columns = ColumnFilter.from_config(raw)
        self._messages = MessagePrefixFilter.from_config(raw)
        self._keys = KeyMapper.from_config(raw)
        self._naming = TopicNamingStrategy.from_config(raw)
        schema_adjust, field_adjust = adjusters_from_config(raw)
        self._type_options = TypeOptions(
            time_precision_mode=config.time_precision_mode.value,
            decimal_handling_mode=config.decimal_handling_mode.value,
            hstore_handling_mode=config.hstore_handling_mode.value,
            interval_handling_mode=config.interval_handling_mode.value,
            binary_handling_mode=config.binary_handling_mode.value,
            money_fraction_digits=config.money_fraction_digits,
            include_unknown_datatypes=config.include_unknown_datatypes,
        )
        self._column_types: dict[tuple[TableId, str], str] = {}
        self._mappers = ColumnMappers.from_config(raw, is_character_column=self._is_character_column)
        self._tables_by_id: dict[TableId, Table] = {}
        self._builder = SchemaBuilderSettings(
            topic_prefix=config.topic_prefix,
            converter_for=lambda col: converter_for(col, self._type_options),
            mapper_for=self._mappers.mapper_for,
            key_columns_for=self._key_columns,
            column_included=self._columns.includes,
            adjust_schema_name=schema_adjust.adjust,
            adjust_field_name=field_adjust.adjust,
            source_schema=self.source_schema,
            transaction_schema=md.EVENT_BLOCK_SCHEMA,
            unavailable_placeholder=config.unavailable_value_placeholder,
            wrap_cells=config.plugin_name is LogicalDecoder.YBOUTPUT,
            envelope=self.envelope,
        )
        self._source_info = self.new_source_info(config)
        run_id = str(uuid.uuid4())
        self._records = self.new_record_factory(
            partition=self._partition,
            headers=context_headers(config.topic_prefix, "0", "postgresql", run_id),
            tombstones_on_delete=config.tombstones_on_delete,
        )
        self._snapshotter = snapshotter_for(config)
        self._snapshot_query = (
            load_snapshot_query(config.snapshot_query_mode_custom_name or "", config.values)
            if config.snapshot_query_mode is SnapshotQueryMode.CUSTOM
            else None
        )
        self._snapshot_lock = (
            load_snapshot_lock(config.snapshot_locking_mode_custom_name or "", config.values)
            if config.snapshot_locking_mode is SnapshotLockingMode.CUSTOM
            else None
        )
        group = task_metrics(self.context)
        queue = self._queue
        self._snapshot_metrics = SnapshotMetrics(
            group,
            "postgres",
            config.topic_prefix,
            queue_capacity=config.max_queue_size,
            queue_remaining=lambda: queue.remaining_capacity,
        )
        self._streaming_metrics = StreamingMetrics(
            group,
            "postgres",
            config.topic_prefix,
            queue_capacity=config.max_queue_size,
            queue_remaining=lambda: queue.remaining_capacity,
        )
        self._initial_offset: dict[str, Any] | None = None
        raw_offset = self.context.offset_storage_reader.offset(self._partition)
        self._runner = asyncio.get_running_loop().create_task(self._run(raw_offset), name=f"pg-{config.topic_prefix}")

    @staticmethod
    def _is_character_column(column: Column) -> bool:
        return column.type.resolved.name in CHARACTER_TYPES

    def _key_columns(self, table_id: TableId) -> tuple[str, ...] | None:
        table = self._tables_by_id.get(table_id)
        if table is None:
            return None
        return self._keys.key_columns(table_id, [c.name for c in table.columns])

    async def poll(self) -> list[SourceRecord] | None:
        assert self._queue is not None
        return await self._queue.poll()

    async def offsets_flushed(self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> None:
        """Kafka holds these offsets: confirm the commit position they carry to the slot."""
        config = self._config
        if config is None or self._stream is None or not self._streaming_started:
            return
        if config.lsn_flush_mode is LsnFlushMode.MANUAL:
            return
        best = 0
        for _partition, offset in offsets:
            lsn = offset.get("lsn_commit")
            if not lsn and not self.confirm_commits_only:
                lsn = offset.get("lsn_proc")
            if isinstance(lsn, int) and offset.get("snapshot") is None:
                best = max(best, lsn)
        if best > self._confirmed:
            self._confirmed = best
            self._stream.confirm(Lsn(best))
            log.debug("confirmed LSN %s to slot %s", Lsn(best), config.slot_name)

    async def stop(self) -> None:
        self._stopping = True
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        await self._close_stream()
        config = self._config
        if config is not None and config.slot_drop_on_stop and self._sql is not None:
            with contextlib.suppress(Exception):
                await drop_slot_on_stop(self._sql, config)
        if self._sql is not None:
            with contextlib.suppress(Exception):
                await self._sql.close()

    async def _close_stream(self) -> None:
        if self._stream is not None:
            with contextlib.suppress(Exception):
                await self._stream.stop(timeout=10)
            self._stream = None
        if self._replication is not None:
            with contextlib.suppress(Exception):
                await self._replication.close()
            self._replication = None

    # -- the pipeline -----------------------------------------------------------------------------------
    async def _run(self, raw_offset: Mapping[str, Any] | None) -> None:
        assert self._queue is not None and self._config is not None
        config = self._config
        attempts = 0
        try:
            position: StoredPosition | None = None
            snapshot_needed = False
            decided = False
            while True:
                try:
                    if not decided:
                        position = await self._checked_position(raw_offset)
                        snapshot_needed = self._snapshot_needed(position)
                        decided = True
                    position = await self._capture(position, snapshot_needed)
                    return
                except RetriableError as e:
                    attempts += 1
                    if config.errors_max_retries >= 0 and attempts > config.errors_max_retries:
                        raise
                    log.warning(
                        "retriable error (%s); restarting in %d ms (attempt %d)",
                        e,
                        config.retriable_restart_connector_wait_ms,
                        attempts,
                    )
                    await self._close_stream()
                    await self._close_sql()  # it may be as dead as the stream: always a new one
                    await asyncio.sleep(config.retriable_restart_connector_wait_ms / 1000)
                    # once a snapshot finished (or streaming started) the retry resumes from that position
                    snapshot_needed = snapshot_needed and self._resume_position is None
                    position = self._resume_position or position
                    self._resuming = True
        except asyncio.CancelledError:
            raise
        except BaseException as e:  # noqa: BLE001 - handed to poll(), which fails the task
            log.error("PostgreSQL capture failed: %s", e)
            self._queue.fail(e)

    async def _checked_position(self, raw_offset: Mapping[str, Any] | None) -> StoredPosition | None:
        """The stored position after Debezium's start-up checks (snapshotter.check_stored_position): an
        interrupted snapshot in a never-snapshot mode or a lost position fail the task; a lost position in
        when_needed is forgotten (so the task snapshots)."""
        config = self._config
        assert config is not None
        stored = StoredPosition.from_offset(raw_offset)
        if stored is None:
            log.info("No previous offset found")
            return None
        log.info("Found previous offset %s", dict(raw_offset or {}))
        if self._sql is None or self._sql.closed:
            self._sql = await self._connect_sql()
        keep = await check_stored_position(
            self._sql, config, self._snapshotter, raw_offset, snapshot_in_progress=stored.snapshot_in_progress
        )
        return stored if keep else None

    def _snapshot_needed(self, stored: StoredPosition | None) -> bool:
        return self._snapshotter.should_snapshot_data(
            stored is not None, stored is not None and stored.snapshot_in_progress
        )

    def _streams(self) -> bool:
        return self._snapshotter.should_stream()

    async def _close_sql(self) -> None:
        if self._sql is not None:
            with contextlib.suppress(Exception):
                await self._sql.close()
            self._sql = None

    async def _connect_sql(self) -> psycopg.AsyncConnection[Any]:
        config = self._config
        assert config is not None
        try:
            conn = await psycopg.AsyncConnection.connect(conninfo(config), autocommit=True)
        except psycopg.OperationalError as e:
            raise RetriableError(f"Cannot connect to PostgreSQL at {config.hostname}:{config.port}: {e}") from e
        for statement in config.initial_statements:
            await conn.execute(statement)
        return conn

    async def _capture(self, stored: StoredPosition | None, snapshot_needed: bool) -> StoredPosition | None:
        config = self._config
        queue = self._queue
        assert config is not None and queue is not None
        if self._sql is None or self._sql.closed:
            self._sql = await self._connect_sql()
        sql_conn = self._sql
        tables = await catalog.read_tables(sql_conn, self._tables.accepts)
        self._tables_by_id = dict(tables)
        self._schemas = {tid: TableSchema(t, self._builder) for tid, t in tables.items()}
        streams = self._streams()
        if streams and config.pgoutput:
            # Debezium 3.6.3 initialises the publication with the replication connection: not in initial_only
            await ensure_publication(sql_conn, config, sorted(tables))
        await apply_replica_identities(sql_conn, config.replica_identity_autoset_values, sorted(tables))

        repl: ReplicationConnection | None = None
        exported: Snapshot | None = None
        consistent: int | None = None
        if streams:  # initial_only neither creates a slot nor opens a replication connection
            repl = await ReplicationConnection.connect(conninfo(config, replication=True))
            self._replication = repl
            ensured = await ensure_slot(
                sql_conn,
                repl,
                config,
                snapshot=SnapshotAction.EXPORT if snapshot_needed else SnapshotAction.NOEXPORT,
            )
            if ensured.created is not None:
                name = ensured.created.snapshot_name
                if snapshot_needed and name is not None:
                    exported = HybridTimeSnapshot(name) if repl.is_yugabyte else name
                consistent = int(ensured.created.consistent_point)

        start_lsn: int | None = stored.resume_lsn if stored is not None and not snapshot_needed else None
        if snapshot_needed:
            if config.snapshot_delay_ms:
                await asyncio.sleep(config.snapshot_delay_ms / 1000)
            snap_conn = await self._connect_sql()
            try:
                included = self._snapshot_tables(capture_order(self._schemas, config.table_include_list))
                self._snapshot_metrics.started([str(t) for t in included])
                result = await run_snapshot(
                    snap_conn,
                    [self._schemas[t] for t in included],
                    exported_snapshot=exported,
                    consistent_lsn=consistent,
                    records=self._records,
                    source=self._source_info,
                    topic_for=self._naming.data_change_topic,
                    queue=queue,
                    settings=SnapshotSettings(
                        lock_tables=config.snapshot_locking_mode.value == "shared",
                        lock_timeout_ms=config.snapshot_lock_timeout_ms,
                        select_overrides=self._select_overrides(),
                        estimate_sizes=config.max_queue_size_in_bytes > 0,
                        query_for=self._snapshot_query.snapshot_query if self._snapshot_query else None,
                        lock_statement=self._snapshot_lock.table_locking_statement if self._snapshot_lock else None,
                        max_threads=config.snapshot_max_threads,
                        chunks_per_table=(
                            1
                            if config.legacy_snapshot_max_threads
                            else config.snapshot_max_threads * config.snapshot_max_threads_multiplier
                        ),
                    ),
                    connect=self._connect_sql,
                )
            except BaseException:
                self._snapshot_metrics.aborted_now()
                _notify(self._snapshotter, "snapshot_aborted")
                raise
            finally:
                await snap_conn.close()
            self._snapshot_metrics.seen.inc(result.records)
            self._snapshot_metrics.completed()
            _notify(self._snapshotter, "snapshot_completed")
            start_lsn = result.lsn
            stored = None
            # what Debezium's heartbeats carry until the first streamed event
            self._initial_offset = {"lsn": result.lsn, "txId": result.tx_id, "ts_usec": time.time_ns() // 1000}
            # a retriable failure from here on resumes streaming at the snapshot's position: no new snapshot
            self._resume_position = StoredPosition.from_offset(
                snapshot_offset(lsn=result.lsn, tx_id=result.tx_id, ts_usec=0, last=True)
            )
        if not streams:
            log.info("snapshot.mode=%s: not streaming", config.snapshot_mode.value)
            return stored
        assert repl is not None
        await self._stream_from(repl, start_lsn, stored, initial_offset=self._initial_offset)
        return stored

    def _snapshot_tables(self, order: Sequence[TableId]) -> list[TableId]:
        config = self._config
        assert config is not None
        wanted = config.snapshot_include_collection_list
        if not wanted:
            return list(order)
        patterns = RegexList(",".join(wanted))
        return [t for t in order if patterns.matches(str(t))]

    def _select_overrides(self) -> dict[TableId, str]:
        config = self._config
        assert config is not None
        out: dict[TableId, str] = {}
        for name, statement in config.snapshot_select_statement_overrides.items():
            with contextlib.suppress(ValueError):
                out[TableId.parse(name)] = statement
        return out

    async def _schema_for(self, table_id: TableId, relation: pg.Relation) -> TableSchema | None:
        if table_id.schema in SYSTEM_SCHEMAS or not self._tables.accepts(table_id):
            return None
        # Every Relation message describes the table anew, as in Debezium's PgOutputMessageDecoder: the message's
        # columns, types and modifiers (DDL already in the catalog but later in the WAL does not leak into earlier
        # changes; generated columns, which pgoutput leaves out, leave the streamed schema), the rest from the
        # catalog. pgoutput sends one per table and connection and after DDL; the decoderbufs adapter one when
        # the columns or their type texts change.
        current = self._schemas.get(table_id)
        assert self._sql is not None
        table = await catalog.read_relation(
            self._sql,
            table_id,
            [(c.name, c.type_oid, c.type_modifier, c.optional, c.type_text) for c in relation.columns],
            current.table if current is not None else self._tables_by_id.get(table_id),
        )
        if table is None:
            return None
        self._tables_by_id[table_id] = table
        if current is not None and current.table == table:
            return current
        schema = TableSchema(table, self._builder)
        self._schemas[table_id] = schema
        log.info("schema of %s refreshed (%d columns)", table_id, len(table.columns))
        return schema

    # -- decoderbufs: what the adapter needs to know about tables ---------------------------------------
    def _captured(self, table_id: TableId) -> bool:
        return table_id.schema not in SYSTEM_SCHEMAS and self._tables.accepts(table_id)

    def _identity_columns(self, table_id: TableId) -> tuple[str, ...] | None:
        """The replica identity's columns (DEFAULT/INDEX: the primary key), None under FULL or when unknown."""
        table = self._tables_by_id.get(table_id)
        if table is None or table.replica_identity == "f":
            return None
        return table.primary_key

    async def _load_new_tables(self, table_ids: set[TableId]) -> None:
        """Read captured tables first seen in the stream (created after start), so their identity is known."""
        for table_id in table_ids:
            if table_id in self._tables_by_id or table_id in self._missing_tables or not self._captured(table_id):
                continue
            assert self._sql is not None
            table = await catalog.read_table(self._sql, table_id)
            if table is None:
                self._missing_tables.add(table_id)
            else:
                self._tables_by_id[table_id] = table

    async def _heartbeat(self, offset: Mapping[str, Any]) -> None:
        config = self._config
        assert config is not None and self._queue is not None
        record = SourceRecord(
            self._partition,
            dict(offset),
            self._naming.heartbeat_topic(),
            0,
            md.HEARTBEAT_KEY_SCHEMA,
            md.heartbeat_key(config.topic_prefix),
            md.HEARTBEAT_VALUE_SCHEMA,
            md.heartbeat_value(time.time_ns() // 1_000_000),
        )
        await self._queue.put(record)
        if config.heartbeat_action_query and self._sql is not None:
            try:
                await self._sql.execute(config.heartbeat_action_query)
            except psycopg.Error as e:
                state = getattr(e, "sqlstate", None)
                if state == "57P01":
                    raise
                if state == "57P03":
                    raise RetriableError(f"heartbeat action query failed: {e}") from e
                log.warning("heartbeat action query failed: %s", e)

    async def _stream_from(
        self,
        repl: ReplicationConnection,
        start_lsn: int | None,
        stored: StoredPosition | None,
        *,
        initial_offset: Mapping[str, Any] | None = None,
    ) -> None:
        config = self._config
        queue = self._queue
        assert config is not None and queue is not None
        plugin = output_plugin(config, repl.server_version)
        lsn = Lsn(start_lsn) if start_lsn is not None else Lsn(0)
        stream = await retry_slot_operation(
            lambda: repl.start_replication(
                config.slot_name,
                plugin,
                start_lsn=lsn,
                max_pending=max(2 * config.max_batch_size, 4096),
                status_interval=config.status_update_interval_ms / 1000,
            ),
            config,
            description="start streaming from the replication slot",
        )
        self._stream = stream
        self._missing_tables = set()
        if config.lsn_flush_mode is LsnFlushMode.MANUAL:
            pass  # never tell the slot anything (lsn.flush.mode=manual, flush.lsn.source=false)
        elif self._resuming:
            # after a retriable failure the resume point may not be in Kafka yet: confirm only what was flushed
            if self._confirmed:
                stream.confirm(Lsn(self._confirmed))
        elif start_lsn:
            stream.confirm(Lsn(start_lsn))  # everything before the resume point is already in Kafka
            self._confirmed = max(self._confirmed, start_lsn)
        self._streaming_started = True
        heartbeat_s = config.heartbeat_interval_ms / 1000
        source = StreamingChangeSource(
            queue=queue,
            records=self._records,
            source_info=self._source_info,
            schema_for=self._schema_for,
            topic_for=self._naming.data_change_topic,
            transactions=TransactionMonitor(partition=self._partition, topic=self._naming.transaction_topic())
            if config.provide_transaction_metadata
            else None,
            message_records=lambda **kw: message_record(self._partition, self._records.headers, **kw),
            settings=StreamingSettings(
                skipped_operations=config.skipped_operations,
                message_filter=self._messages.includes if self.logical_messages else _no_message,
                message_topic=self._naming.message_topic(),
                binary_message_content=_binary_content(config.binary_handling_mode.value),
                heartbeat_interval_s=heartbeat_s,
                skip_messages_without_change=config.skip_messages_without_change,
                estimate_sizes=config.max_queue_size_in_bytes > 0,
                failure_handling_mode=config.event_processing_failure_handling_mode.value,
                advance_when_idle=config.lsn_flush_mode is LsnFlushMode.CONNECTOR_AND_DRIVER,
                skip_replayed=config.slot_lsn_type != "HYBRID_TIME",
            ),
            stored=stored,
            initial_offset=initial_offset,
            heartbeat=self._heartbeat if heartbeat_s > 0 else None,
        )
        adapter = None
        if config.plugin_name is LogicalDecoder.DECODERBUFS:
            from connectors.postgres.decoderbufs_adapter import DecoderbufsAdapter  # protobuf: only when used

            adapter = DecoderbufsAdapter(captured=self._captured, identity_columns=self._identity_columns)
        streamed = StreamedTransactions() if getattr(plugin, "streaming", False) else None
        log.info("streaming from slot %s at %s", config.slot_name, lsn)
        wait = min(heartbeat_s, 1.0) if heartbeat_s > 0 else 1.0
        metrics = self._streaming_metrics
        metrics.connected(True)
        reported = _Reported()
        try:
            while not self._stopping:
                batch = await stream.read_batch(max_messages=config.max_batch_size, timeout=wait)
                if batch and adapter is not None:
                    await self._load_new_tables(adapter.table_ids(batch))
                    batch = adapter.adapt(batch)
                if batch:
                    if streamed is None:
                        await source.handle_batch(batch)
                    else:
                        for chunk in streamed.feed(batch):
                            await source.handle_batch(chunk)
                    self._resume_position = StoredPosition.from_offset(source.last_offset)
                    reported.update(metrics, source)
                else:
                    await source.idle(int(stream.server_wal_end))
        except psycopg.OperationalError as e:
            raise RetriableError(f"lost the replication connection: {e}") from e
        finally:
            metrics.connected(False)
            if streamed is not None:
                streamed.close()


def _no_message(prefix: str) -> bool:
    return False


def _notify(snapshotter: object, hook: str) -> None:
    """Call a snapshotter's optional snapshot_completed/snapshot_aborted hook."""
    method = getattr(snapshotter, hook, None)
    if callable(method):
        method()


class _Reported:
    """What the streaming metrics were last told, to report each batch's increments cheaply."""

    __slots__ = ("commits", "filtered", "ops")

    def __init__(self) -> None:
        self.filtered = self.commits = 0
        self.ops = {"c": 0, "u": 0, "d": 0}

    def update(self, metrics: StreamingMetrics, source: StreamingChangeSource) -> None:
        for op, n in source.ops.items():
            metrics.events(op, n - self.ops[op], source.commit_time_ms)
            self.ops[op] = n
        if source.events_filtered > self.filtered:
            metrics.filtered(source.events_filtered - self.filtered)
            self.filtered = source.events_filtered
        if source.commits > self.commits:
            metrics.committed_transaction(source.commits - self.commits)
            self.commits = source.commits
