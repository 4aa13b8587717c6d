"""PostgresSources: what PostgreSQL does for the shared coordinator (connectors/relational/coordinator.py).

Per start: the stored offset, checked as Debezium's snapshotter checks it. Per attempt (open): a SQL connection,
the captured tables from the catalog, the publication and replica identities, the replication connection and
slot (exporting a snapshot when one is needed). Then the snapshot source (snapshot_source.py) and the streaming
source (streaming.py over replication.py). offsets_flushed() confirms to the slot only positions Kafka holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import time
from collections.abc import Mapping, Sequence
from typing import Any

import psycopg

from connect_worker.api import RetriableError
from connect_worker.api.errors import ConfigError
from connect_worker.api.java_regex import java_regex
from connectors.postgres import catalog
from connectors.postgres.config import LogicalDecoder, LsnFlushMode, PostgresConnectorConfig, conninfo
from connectors.postgres.errors import from_psycopg
from connectors.postgres.incremental_chunks import PostgresChunkSource
from connectors.postgres.lsn import Lsn
from connectors.postgres.messages import message_record
from connectors.postgres.offsets import StoredPosition
from connectors.postgres.protocol import pgoutput as pg
from connectors.postgres.publication import apply_replica_identities, ensure_publication
from connectors.postgres.read_only_snapshot import (
    CURRENT_SNAPSHOT,
    FORCE_NEW_TRANSACTION,
    PgSnapshot,
    ReadOnlyIncrementalSnapshot,
)
from connectors.postgres.replication import ReplicationConnection, ReplicationStream, SnapshotAction
from connectors.postgres.slot import drop_slot_on_stop, ensure_slot, output_plugin, retry_slot_operation
from connectors.postgres.snapshot import StreamPosition
from connectors.postgres.snapshot_chunks import HybridTimeSnapshot, Snapshot
from connectors.postgres.snapshot_source import PostgresSnapshotSource
from connectors.postgres.snapshotter import check_stored_position, snapshotter_for
from connectors.postgres.source_info import SourceInfo
from connectors.postgres.streamed_transactions import StreamedTransactions
from connectors.postgres.streaming import StreamingChangeSource, StreamingSettings
from connectors.postgres.value_converters.binary import binary_encoder
from connectors.relational.filters import MessagePrefixFilter, exclusive_lists
from connectors.relational.incremental_snapshot import IncrementalSnapshot
from connectors.relational.metrics import StreamingMetrics
from connectors.relational.pipeline import Pipeline
from connectors.relational.schema_builder import TableSchema
from connectors.relational.signaling import Signaling
from connectors.relational.table import TableId

log = logging.getLogger(__name__)

SYSTEM_SCHEMAS = frozenset({"pg_catalog", "information_schema", "pg_toast"})


def flushed_commit_position(
    offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]], *, commits_only: bool
) -> int:
    """The highest streamed position these flushed offsets carry (0: none): a commit's LSN, or with
    ``commits_only`` false also the LSN processed inside a transaction. Snapshot offsets carry none."""
    best = 0
    for _partition, offset in offsets:
        lsn = offset.get("lsn_commit")
        if not lsn and not commits_only:
            lsn = offset.get("lsn_proc")
        if isinstance(lsn, int) and offset.get("snapshot") is None:
            best = max(best, lsn)
    return best


class PostgresSources:
    def __init__(
        self,
        config: PostgresConnectorConfig,
        pipeline: Pipeline,
        stored_offset: Mapping[str, Any] | None,
        *,
        source_info: SourceInfo,
        logical_messages: bool,
        confirm_commits_only: bool,
    ) -> None:
        self._config = config
        self._pipeline = pipeline
        self._stored_offset = stored_offset
        self._source_info = source_info
        self._logical_messages = logical_messages
        self._confirm_commits_only = confirm_commits_only
        include, exclude = exclusive_lists(
            "message.prefix.include.list",
            config.message_prefix_include_list,
            "message.prefix.exclude.list",
            config.message_prefix_exclude_list,
        )
        self._messages = MessagePrefixFilter(include=include, exclude=exclude)
        self._snapshotter = snapshotter_for(config)
        self._schemas: dict[TableId, TableSchema] = {}
        self._signaling = self._new_signaling(stored_offset)
        self._snapshot = PostgresSnapshotSource(
            config,
            pipeline,
            self._snapshotter,
            self._connect_sql,
            source_info,
            self._signaling.notifications if self._signaling is not None else None,
        )
        self._snapshot.previous(stored_offset)
        self._streaming_metrics: StreamingMetrics = pipeline.streaming_metrics()
        self._heartbeat = pipeline.heartbeat(action=self._heartbeat_action if config.heartbeat_action_query else None)
        self._sql: psycopg.AsyncConnection[Any] | None = None
        self._replication: ReplicationConnection | None = None
        self._stream: ReplicationStream[Any] | None = None
        self._streaming_started = False
        self._confirmed = 0
        self._exported: Snapshot | None = None
        self._consistent: int | None = None
        self._initial_offset: dict[str, Any] | None = None  # what heartbeats carry until the first event
        self._resume: StoredPosition | None = None  # where a retry after a failure resumes
        self._missing_tables: set[TableId] = set()  # decoderbufs: tables the catalog did not have
        self._channels: asyncio.Task[None] | None = None  # polls the signal channels other than the table
        self._snapshotted = False  # a snapshot completed in this run (what incremental offsets say)
        self._source: StreamingChangeSource | None = None  # the current attempt's stream
        if self._signaling is not None:
            self._signaling.blocking_runner = self._blocking_snapshot

    def _new_signaling(self, stored_offset: Mapping[str, Any] | None) -> Signaling | None:
        """Signals, incremental snapshots and notifications, when any is configured."""
        settings = self._config.signaling
        if (
            settings.signal_table is None
            and not settings.read_only
            and set(settings.channels) <= {"source"}
            and not settings.notification_channels
        ):
            return None
        pipeline = self._pipeline
        return Signaling(
            settings,
            connector_name=self._config.topic_prefix,
            queue=pipeline.queue,
            partition=pipeline.partition,
            stored_offset=stored_offset,
            chunk_source=PostgresChunkSource(pipeline, self._sql_connection, lambda t: self._schemas.get(t)),
            metrics=pipeline.snapshot_metrics(),
            incremental_type=(
                functools.partial(
                    ReadOnlyIncrementalSnapshot,
                    current_snapshot=self._current_snapshot,
                    force_new_transaction=self._force_new_transaction,
                )
                if settings.read_only
                else IncrementalSnapshot
            ),
        )

    async def _current_snapshot(self) -> PgSnapshot:
        sql = await self._sql_connection()
        row = await (await sql.execute(CURRENT_SNAPSHOT)).fetchone()
        assert row is not None
        return PgSnapshot.parse(str(row[0]))

    async def _force_new_transaction(self) -> None:
        sql = await self._sql_connection()
        await sql.execute(FORCE_NEW_TRANSACTION)

    @property
    def signaling(self) -> Signaling | None:
        return self._signaling

    def _snapshot_flags(self) -> tuple[bool, bool]:
        """`last_snapshot_record` and `snapshot_completed` of incremental READ records' offsets: what Debezium's
        offset context holds - set by a snapshot of this run, else loaded from the stored offset."""
        if self._snapshotted:
            return True, True
        raw = self._stored_offset or {}
        return raw.get("last_snapshot_record") in (True, "true"), raw.get("snapshot_completed") in (True, "true")

    # -- the coordinator's contract ---------------------------------------------------------------------
    async def checked_position(self) -> StoredPosition | None:
        """The stored position after Debezium's start-up checks (snapshotter.check_stored_position): an
        interrupted snapshot in a never-snapshot mode or a lost position fail the task; a lost position in
        when_needed is forgotten (so the task snapshots)."""
        raw = self._stored_offset
        stored = StoredPosition.from_offset(raw)
        if stored is None:
            log.info("No previous offset found")
            return None
        log.info("Found previous offset %s", dict(raw or {}))
        sql = await self._sql_connection()
        keep = await check_stored_position(
            sql, self._config, self._snapshotter, raw, snapshot_in_progress=stored.snapshot_in_progress
        )
        return stored if keep else None

    def snapshot_needed(self, position: StoredPosition | None) -> bool:
        return self._snapshotter.should_snapshot_data(
            position is not None, position is not None and position.snapshot_in_progress
        )

    def streams(self) -> bool:
        return bool(self._snapshotter.should_stream())

    async def open(self, position: StoredPosition | None, *, snapshot: bool) -> None:
        try:
            await self._open(snapshot)
        except psycopg.Error as e:  # classified by SQLSTATE: a lost connection is retriable
            raise from_psycopg(e, action="opening the capture") from e

    async def _open(self, snapshot: bool) -> None:
        config = self._config
        pipeline = self._pipeline
        sql = await self._sql_connection()
        if config.signaling.read_only and sql.info.server_version < 130000:
            raise ConfigError(f"Read only is not supported for version minor to 13 (server {sql.info.server_version})")
        tables = await catalog.read_tables(sql, pipeline.tables.accepts)
        pipeline.tables_by_id.clear()
        pipeline.tables_by_id.update(tables)
        self._schemas = {tid: TableSchema(t, pipeline.builder) for tid, t in tables.items()}
        streams = self.streams()
        if streams and config.pgoutput:
            # Debezium 3.6.3 initialises the publication with the replication connection: not in initial_only
            await ensure_publication(sql, config, sorted(tables))
        await apply_replica_identities(sql, config.replica_identity_autoset_values, sorted(tables))
        self._exported = self._consistent = None
        if not streams:  # initial_only neither creates a slot nor opens a replication connection
            return
        repl = self._replication = await ReplicationConnection.connect(conninfo(config, replication=True))
        action = SnapshotAction.EXPORT if snapshot else SnapshotAction.NOEXPORT
        ensured = await ensure_slot(sql, repl, config, snapshot=action)
        if ensured.created is not None:
            name = ensured.created.snapshot_name
            if snapshot and name is not None:
                self._exported = HybridTimeSnapshot(name) if repl.is_yugabyte else name
            self._consistent = int(ensured.created.consistent_point)

    async def snapshot(self) -> StoredPosition:
        try:
            result = await self._snapshot.run(self._schemas, exported=self._exported, consistent_lsn=self._consistent)
        except psycopg.Error as e:  # a server shut down or a connection lost mid-snapshot is retriable, as in Debezium
            raise from_psycopg(e, action="snapshot") from e
        # what Debezium's heartbeats carry until the first streamed event
        self._initial_offset = {"lsn": result.lsn, "txId": result.tx_id, "ts_usec": time.time_ns() // 1000}
        # a retriable failure from here on resumes streaming at the snapshot's position: no new snapshot
        self._resume = result.position
        self._snapshotted = True
        return result.position

    def resume_position(self) -> StoredPosition | None:
        return self._resume

    async def stream(self, position: StoredPosition | None, *, resumed: bool) -> None:
        start_lsn: int | None = None
        stored: StoredPosition | None = None
        if self._initial_offset is not None:  # right after this attempt's snapshot: from its LSN
            start_lsn = int(self._initial_offset["lsn"])
        elif position is not None:
            start_lsn, stored = position.resume_lsn, position
        if not resumed and not self._snapshotted:
            await self._snapshot.skipped()
        try:
            await self._stream_from(start_lsn, stored, resumed=resumed)
        finally:
            self._initial_offset = None

    async def release(self) -> None:
        await self._close_stream()
        await self._close_sql()  # it may be as dead as the stream: always a new one

    async def offsets_flushed(self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> None:
        """Kafka holds these offsets: confirm the commit position they carry to the slot."""
        if self._stream is None or not self._streaming_started:
            return
        if self._config.lsn_flush_mode is LsnFlushMode.MANUAL:
            return
        best = flushed_commit_position(offsets, commits_only=self._confirm_commits_only)
        if best > self._confirmed:
            self._confirmed = best
            self._stream.confirm(Lsn(best))
            log.debug("confirmed LSN %s to slot %s", Lsn(best), self._config.slot_name)

    async def close(self) -> None:
        if self._channels is not None:
            self._channels.cancel()
            with contextlib.suppress(BaseException):
                await self._channels
            self._channels = None
        if self._signaling is not None:
            await self._signaling.close()
        await self._close_stream()
        if self._config.slot_drop_on_stop and self._sql is not None:
            with contextlib.suppress(Exception):
                await drop_slot_on_stop(self._sql, self._config)
        await self._close_sql()

    # -- connections ------------------------------------------------------------------------------------
    async def _sql_connection(self) -> psycopg.AsyncConnection[Any]:
        if self._sql is None or self._sql.closed:
            self._sql = await self._connect_sql()
        return self._sql

    async def _connect_sql(self) -> psycopg.AsyncConnection[Any]:
        config = self._config
        try:
            conn = await psycopg.AsyncConnection.connect(conninfo(config), autocommit=True)
        except psycopg.OperationalError as e:
            raise RetriableError(f"Cannot connect to PostgreSQL at {config.hostname}:{config.port}: {e}") from e
        for statement in config.initial_statements:
            await conn.execute(statement)
        return conn

    async def _close_sql(self) -> None:
        if self._sql is not None:
            with contextlib.suppress(Exception):
                await self._sql.close()
            self._sql = None

    async def _close_stream(self) -> None:
        if self._stream is not None:
            with contextlib.suppress(Exception):
                await self._stream.stop(timeout=10)
            self._stream = None
        if self._replication is not None:
            with contextlib.suppress(Exception):
                await self._replication.close()
            self._replication = None

    # -- tables -----------------------------------------------------------------------------------------
    async def _schema_for(self, table_id: TableId, relation: pg.Relation) -> TableSchema | None:
        if not self._captured(table_id):
            return None
        # Every Relation message describes the table anew, as in Debezium's PgOutputMessageDecoder: the message's
        # columns, types and modifiers (DDL already in the catalog but later in the WAL does not leak into earlier
        # changes; generated columns, which pgoutput leaves out, leave the streamed schema), the rest from the
        # catalog. pgoutput sends one per table and connection and after DDL; the decoderbufs adapter one when
        # the columns or their type texts change.
        known = self._pipeline.tables_by_id
        current = self._schemas.get(table_id)
        table = await catalog.read_relation(
            await self._sql_connection(),
            table_id,
            [(c.name, c.type_oid, c.type_modifier, c.optional, c.type_text) for c in relation.columns],
            current.table if current is not None else known.get(table_id),
        )
        if table is None:
            return None
        known[table_id] = table
        if current is not None and current.table == table:
            return current
        schema = TableSchema(table, self._pipeline.builder)
        self._schemas[table_id] = schema
        log.info("schema of %s refreshed (%d columns)", table_id, len(table.columns))
        return schema

    def _captured(self, table_id: TableId) -> bool:
        return table_id.schema not in SYSTEM_SCHEMAS and self._pipeline.tables.accepts(table_id)

    def _identity_columns(self, table_id: TableId) -> tuple[str, ...] | None:
        """decoderbufs: the replica identity's columns (DEFAULT/INDEX: the primary key), None under FULL or when
        unknown."""
        table = self._pipeline.tables_by_id.get(table_id)
        if table is None or table.replica_identity == "f":
            return None
        return table.primary_key

    async def _load_new_tables(self, table_ids: set[TableId]) -> None:
        """decoderbufs: read captured tables first seen in the stream (created after start), so their identity
        is known."""
        known = self._pipeline.tables_by_id
        for table_id in table_ids:
            if table_id in known or table_id in self._missing_tables or not self._captured(table_id):
                continue
            table = await catalog.read_table(await self._sql_connection(), table_id)
            if table is None:
                self._missing_tables.add(table_id)
            else:
                known[table_id] = table

    async def _start_signaling(self, resumed: bool) -> asyncio.Lock:
        """Streaming starts: open the signal channels, go on with an incremental snapshot the offsets carry. The
        lock the stream holds while it handles a batch."""
        signaling = self._signaling
        if signaling is None:
            return asyncio.Lock()
        signaling.open_channels()
        if self._channels is None or self._channels.done():
            self._channels = asyncio.get_running_loop().create_task(
                signaling.run_channels(), name=f"signals:{self._config.topic_prefix}"
            )
        if signaling.incremental is not None:
            async with signaling.lock:
                await signaling.incremental.start(resumed=resumed)
        return signaling.lock

    async def _blocking_snapshot(self, collections: Sequence[str], conditions: Sequence[tuple[str, str]]) -> None:
        """execute-snapshot (blocking): the named tables snapshotted as the initial snapshot does, while the stream
        waits (the caller holds the signal lock), then streaming goes on from where it paused. The records carry
        the stream's position with ``snapshot: BLOCKING``; ``additional-conditions`` are whole SELECT statements."""
        source = self._source
        if source is None:
            raise RuntimeError("a blocking snapshot needs a running stream")
        known = self._pipeline.tables_by_id
        patterns = [java_regex(c, case_insensitive=True) for c in collections]
        wanted = [t for t in known if any(p.fullmatch(str(t)) for p in patterns)]
        overrides: dict[TableId, str] = {}
        for name, statement in conditions:
            with contextlib.suppress(ValueError):
                overrides[TableId.parse(name)] = statement
        offset, tx_id, lsn, last_commit = source.stream_position()
        log.info("Starting blocking snapshot of %s", [str(t) for t in wanted])
        await self._snapshot.run_blocking(
            {t: self._schemas.get(t) or TableSchema(known[t], self._pipeline.builder) for t in wanted},
            overrides,
            StreamPosition(offset, tx_id, lsn, last_commit),
        )
        source.snapshot_done()
        log.info("Blocking snapshot completed, streaming resumes")

    async def _heartbeat_action(self) -> None:
        """heartbeat.action.query after each heartbeat: a server shutting down ends the stream, a server in
        recovery is a retriable failure, other failures are logged."""
        query = self._config.heartbeat_action_query
        if not query or self._sql is None:
            return
        try:
            await self._sql.execute(query)
        except psycopg.Error as e:
            state = getattr(e, "sqlstate", None)
            if state == "57P01":
                raise
            if state == "57P03":
                raise RetriableError(f"heartbeat action query failed: {e}") from e
            log.warning("heartbeat action query failed: %s", e)

    # -- streaming --------------------------------------------------------------------------------------
    async def _stream_from(self, start_lsn: int | None, stored: StoredPosition | None, *, resumed: bool) -> None:
        config = self._config
        pipeline = self._pipeline
        repl = self._replication
        assert repl is not None
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
        elif resumed:
            # after a retriable failure the resume point may not be in Kafka yet: confirm only what was flushed
            if self._confirmed:
                stream.confirm(Lsn(self._confirmed))
        elif start_lsn:
            stream.confirm(Lsn(start_lsn))  # everything before the resume point is already in Kafka
            self._confirmed = max(self._confirmed, start_lsn)
        self._streaming_started = True
        self._heartbeat.restart()
        source = StreamingChangeSource(
            queue=pipeline.queue,
            records=pipeline.records,
            source_info=self._source_info,
            schema_for=self._schema_for,
            topic_for=pipeline.naming.data_change_topic,
            transactions=pipeline.transactions(),
            message_records=lambda **kw: message_record(pipeline.partition, pipeline.records.headers, **kw),
            settings=StreamingSettings(
                skipped_operations=config.skipped_operations,
                message_filter=self._messages.includes if self._logical_messages else _no_message,
                message_topic=pipeline.naming.message_topic(),
                binary_message_content=binary_encoder(config.binary_handling_mode.value),
                skip_messages_without_change=config.skip_messages_without_change,
                estimate_sizes=config.max_queue_size_in_bytes > 0,
                failure_handling_mode=config.event_processing_failure_handling_mode.value,
                advance_when_idle=config.lsn_flush_mode is LsnFlushMode.CONNECTOR_AND_DRIVER,
                skip_replayed=config.slot_lsn_type != "HYBRID_TIME",
            ),
            stored=stored,
            initial_offset=self._initial_offset,
            heartbeat=self._heartbeat if self._heartbeat.enabled else None,
            signaling=self._signaling,
            snapshot_flags=self._snapshot_flags(),
        )
        self._source = source
        lock = await self._start_signaling(resumed)
        adapter = None
        if config.plugin_name is LogicalDecoder.DECODERBUFS:
            from connectors.postgres.decoderbufs_adapter import DecoderbufsAdapter  # protobuf: only when used

            adapter = DecoderbufsAdapter(captured=self._captured, identity_columns=self._identity_columns)
        streamed = StreamedTransactions() if getattr(plugin, "streaming", False) else None
        log.info("streaming from slot %s at %s", config.slot_name, lsn)
        heartbeat_s = self._heartbeat.interval_s
        wait = min(heartbeat_s, 1.0) if heartbeat_s > 0 else 1.0
        metrics = self._streaming_metrics
        metrics.connected(True)
        reported = _Reported()
        try:
            while True:
                batch = await stream.read_batch(max_messages=config.max_batch_size, timeout=wait)
                if batch and adapter is not None:
                    await self._load_new_tables(adapter.table_ids(batch))
                    batch = adapter.adapt(batch)
                async with lock:  # signals from other channels run between batches
                    if batch:
                        if streamed is None:
                            await source.handle_batch(batch)
                        else:
                            for chunk in streamed.feed(batch):
                                await source.handle_batch(chunk)
                        self._resume = StoredPosition.from_offset(source.last_offset)
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
