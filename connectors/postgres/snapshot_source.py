"""PostgresSnapshotSource: the initial snapshot as the coordinator runs it (Debezium's snapshot change event source).

The tables are read in table.include.list order (snapshot.include.collection.list narrows them), with the
snapshot query/locking SPIs, the select overrides and the chunked readers of snapshot.py, on a connection of its
own inside the slot's exported snapshot when there is one. The snapshotter is told the outcome; the snapshot
metrics follow it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import psycopg

from connectors.postgres.config import PostgresConnectorConfig, SnapshotLockingMode, SnapshotQueryMode
from connectors.postgres.offsets import StoredPosition, snapshot_offset
from connectors.postgres.snapshot import SnapshotSettings, StreamPosition, run_snapshot
from connectors.postgres.snapshot_chunks import Snapshot
from connectors.postgres.source_info import SourceInfo
from connectors.relational.filters import RegexList, capture_order
from connectors.relational.notifications import InitialSnapshotNotifier, NotificationService
from connectors.relational.pipeline import Pipeline
from connectors.relational.schema_builder import TableSchema
from connectors.relational.snapshot_spi import load_snapshot_lock, load_snapshot_query
from connectors.relational.table import TableId


@dataclasses.dataclass(frozen=True, slots=True)
class SnapshotOutcome:
    lsn: int
    tx_id: int
    #: where streaming resumes after it (the offset of its last record)
    position: StoredPosition


class PostgresSnapshotSource:
    def __init__(
        self,
        config: PostgresConnectorConfig,
        pipeline: Pipeline,
        snapshotter: object,
        connect: Callable[[], Awaitable[psycopg.AsyncConnection[Any]]],
        source_info: SourceInfo,
        notifications: NotificationService | None = None,
    ) -> None:
        self._config = config
        self._notifications = notifications
        self._pipeline = pipeline
        self._snapshotter = snapshotter
        self._connect = connect
        self._source_info = source_info
        self._query = (
            load_snapshot_query(config.snapshot_query_mode_custom_name or "", config.values)
            if config.snapshot_query_mode is SnapshotQueryMode.CUSTOM
            else None
        )
        self._lock = (
            load_snapshot_lock(config.snapshot_locking_mode_custom_name or "", config.values)
            if config.snapshot_locking_mode is SnapshotLockingMode.CUSTOM
            else None
        )
        self._metrics = pipeline.snapshot_metrics()

    async def run(
        self, schemas: Mapping[TableId, TableSchema], *, exported: Snapshot | None, consistent_lsn: int | None
    ) -> SnapshotOutcome:
        config = self._config
        pipeline = self._pipeline
        if config.snapshot_delay_ms:
            await asyncio.sleep(config.snapshot_delay_ms / 1000)
        conn = await self._connect()
        signal_tables = config.signaling.data_collections
        order = self._tables(capture_order(schemas, config.table_include_list))
        # the signal table is captured but never snapshotted (Debezium's prepareTables skips it)
        included = [t for t in order if t not in signal_tables]
        captured = order + [t for t in signal_tables if t in schemas and t not in order]
        notifier = (
            InitialSnapshotNotifier(self._notifications, [str(t) for t in captured], [str(t) for t in included])
            if self._notifications is not None and self._notifications.enabled
            else None
        )
        try:
            self._metrics.started([str(t) for t in included])
            if notifier is not None:
                await notifier.started(self._previous_offset)
            result = await run_snapshot(
                conn,
                [schemas[t] for t in included],
                exported_snapshot=exported,
                consistent_lsn=consistent_lsn,
                records=pipeline.records,
                source=self._source_info,
                topic_for=pipeline.naming.data_change_topic,
                queue=pipeline.queue,
                settings=self._settings(),
                connect=self._connect,
                progress=notifier,
            )
        except BaseException:
            self._metrics.aborted_now()
            self._notify("snapshot_aborted")
            if notifier is not None:
                with contextlib.suppress(Exception):
                    await notifier.aborted(self._previous_offset)
            raise
        finally:
            with contextlib.suppress(Exception):
                await conn.close()
        self._metrics.seen.inc(result.records)
        self._metrics.completed()
        self._notify("snapshot_completed")
        last = snapshot_offset(lsn=result.lsn, tx_id=result.tx_id, ts_usec=time.time_ns() // 1000, last=True)
        if notifier is not None:
            await notifier.completed(last)
        position = StoredPosition.from_offset(last)
        assert position is not None
        return SnapshotOutcome(result.lsn, result.tx_id, position)

    #: the offset stored before this snapshot (what STARTED carries: none on a first start)
    _previous_offset: Mapping[str, Any] | None = None

    def previous(self, offset: Mapping[str, Any] | None) -> None:
        self._previous_offset = offset

    async def skipped(self) -> None:
        """No snapshot runs in this start (Debezium's SKIPPED notification)."""
        if self._notifications is not None and self._notifications.enabled:
            await InitialSnapshotNotifier(self._notifications, [], []).skipped(self._previous_offset)

    async def run_blocking(
        self,
        schemas: Mapping[TableId, TableSchema],
        overrides: Mapping[TableId, str],
        position: StreamPosition,
    ) -> None:
        """A blocking snapshot of these tables (Debezium's getBlockingSnapshottingTask): in capture order, the
        signal table left out, each ``additional-conditions`` entry a SELECT override; its own transaction."""
        config = self._config
        signal_tables = config.signaling.data_collections
        order = capture_order(schemas, config.table_include_list)
        included = [t for t in order if t not in signal_tables]
        notifier = (
            # the captured tables are the requested ones only (the signal table is not among them)
            InitialSnapshotNotifier(self._notifications, [str(t) for t in order], [str(t) for t in included])
            if self._notifications is not None and self._notifications.enabled
            else None
        )
        settings = dataclasses.replace(
            self._settings(), select_overrides={**self._select_overrides(), **overrides}, max_threads=1
        )
        self._metrics.started([str(t) for t in included])
        if notifier is not None:
            await notifier.started(position.offset)
        conn = await self._connect()
        try:
            result = await run_snapshot(
                conn,
                [schemas[t] for t in included],
                exported_snapshot=None,
                consistent_lsn=None,
                records=self._pipeline.records,
                source=self._source_info,
                topic_for=self._pipeline.naming.data_change_topic,
                queue=self._pipeline.queue,
                settings=settings,
                progress=notifier,
                position=position,
            )
        except BaseException:
            self._metrics.aborted_now()
            if notifier is not None:
                with contextlib.suppress(Exception):
                    await notifier.aborted(position.row_offset(time.time_ns() // 1000, last=False))
            raise
        finally:
            with contextlib.suppress(Exception):
                await conn.close()
        self._metrics.seen.inc(result.records)
        self._metrics.completed()
        if notifier is not None:
            await notifier.completed(position.row_offset(time.time_ns() // 1000, last=True))

    def _settings(self) -> SnapshotSettings:
        config = self._config
        return SnapshotSettings(
            lock_tables=config.snapshot_locking_mode.value == "shared",
            lock_timeout_ms=config.snapshot_lock_timeout_ms,
            select_overrides=self._select_overrides(),
            estimate_sizes=config.max_queue_size_in_bytes > 0,
            query_for=self._query.snapshot_query if self._query else None,
            lock_statement=self._lock.table_locking_statement if self._lock else None,
            max_threads=config.snapshot_max_threads,
            chunks_per_table=(
                1
                if config.legacy_snapshot_max_threads
                else config.snapshot_max_threads * config.snapshot_max_threads_multiplier
            ),
        )

    def _tables(self, order: Sequence[TableId]) -> list[TableId]:
        wanted = self._config.snapshot_include_collection_list
        if not wanted:
            return list(order)
        patterns = RegexList(wanted)
        return [t for t in order if patterns.matches(str(t))]

    def _select_overrides(self) -> dict[TableId, str]:
        out: dict[TableId, str] = {}
        for name, statement in self._config.snapshot_select_statement_overrides.items():
            with contextlib.suppress(ValueError):
                out[TableId.parse(name)] = statement
        return out

    def _notify(self, hook: str) -> None:
        """Call the snapshotter's optional snapshot_completed/snapshot_aborted hook."""
        method = getattr(self._snapshotter, hook, None)
        if callable(method):
            method()
