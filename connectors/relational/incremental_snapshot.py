"""Incremental snapshots with watermarks (Debezium's ``AbstractIncrementalSnapshotChangeEventSource`` and
``SignalBasedIncrementalSnapshotChangeEventSource``, the DBLog algorithm), shared by every connector.

A table is read in chunks ordered by its key while streaming goes on. For each chunk::

    write an open watermark to the signal table ─► SELECT the chunk into the window ─► write a close watermark
    stream: ... open seen ─► each streamed change of a windowed key drops it ─► close seen: emit the rest, next chunk

The watermarks are rows of the signal table (``insert_insert``: ``<chunk>-open`` and ``<chunk>-close`` inserted;
``insert_delete``: ``<chunk>-open`` inserted then deleted, the DELETE closing the window), seen in the stream in
commit order with the data: a row the window still holds when the close watermark arrives was not changed after
the chunk was read, so its READ record cannot overwrite a newer change. Rows are emitted with ``op=r`` and
``source.snapshot=incremental``; the snapshot's progress travels in the offsets (incremental_context.py).

A connector supplies a :class:`ChunkSource` (its chunk queries and watermark writes) and, per streaming attempt,
an :class:`WindowEmitter` (records with the stream's current position). Failures of one table are reported as a
TABLE_SCAN_COMPLETED notification and the snapshot goes on with the next table; the task keeps streaming.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from typing import Any, Protocol

from connect_worker.api import Struct
from connect_worker.api.java_regex import java_regex
from connect_worker.api.java_serialization import JavaFloat, JavaInteger, JavaLong, JavaShort, JavaValue
from connect_worker.api.javacompat import jackson_dumps, java_double_to_string, java_float_to_string
from connectors.relational.incremental_context import DataCollection, IncrementalSnapshotContext, Key
from connectors.relational.metrics import SnapshotMetrics
from connectors.relational.notifications import NotificationService
from connectors.relational.signaling_config import SignalingConfig
from connectors.relational.table import TableId

log = logging.getLogger(__name__)

AGGREGATE = "Incremental Snapshot"
_NO_KEY = object()


class TableScanFailed(Exception):
    """A table cannot be snapshotted: ``status`` says why (UNKNOWN_SCHEMA, NO_PRIMARY_KEY, SQL_EXCEPTION)."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclasses.dataclass(frozen=True, slots=True)
class WindowRow:
    key: Struct | None  # the record key (what streamed changes are matched by)
    value: Struct
    chunk_key: Key  # the chunking key's values, with their Java classes (what offsets and queries hold)


class PreparedTable(Protocol):
    @property
    def id(self) -> TableId: ...


class ChunkSource(Protocol):
    """What a connector's database does for incremental snapshots."""

    def known_tables(self) -> Iterable[TableId]:
        """The captured tables (regexes of a signal are matched against them)."""
        ...

    async def prepare(self, collection: DataCollection) -> PreparedTable:
        """The table read from the catalog with its chunking key; :class:`TableScanFailed` when it has none or is
        unknown."""
        ...

    async def maximum_key(self, table: PreparedTable, condition: str | None) -> Key | None:
        """The largest chunking key (None: no rows)."""
        ...

    async def chunk(
        self, table: PreparedTable, after: Key | None, maximum: Key | None, condition: str | None, limit: int
    ) -> list[WindowRow]:
        """The next rows in key order: after ``after`` (None: from the start) and, past the first chunk, up to
        ``maximum``."""
        ...

    async def table_signature(self, table: PreparedTable) -> Hashable:
        """The table's columns as the catalog has them now (incremental.snapshot.allow.schema.changes compares
        them from window to window)."""
        ...

    async def write_open(self, signal_table: TableId, chunk_id: str, metadata: str) -> None: ...

    async def write_close(self, signal_table: TableId, chunk_id: str, metadata: str, *, delete: bool) -> None: ...


class WindowEmitter(Protocol):
    async def emit_window(self, table: PreparedTable, rows: Sequence[WindowRow]) -> None:
        """Queue the rows as incremental READ records at the stream's current position (calling
        ``context.sent_key`` before each record so its offset holds its key)."""
        ...


class IncrementalSnapshot:
    def __init__(
        self,
        context: IncrementalSnapshotContext,
        settings: SignalingConfig,
        source: ChunkSource,
        notifications: NotificationService,
        metrics: SnapshotMetrics,
        current_offset: Callable[[], Mapping[str, Any] | None],
    ) -> None:
        self.context = context
        self._settings = settings
        self._source = source
        self._notifications = notifications
        self._metrics = metrics
        self._offset = current_offset
        self.emitter: WindowEmitter | None = None
        self._window: dict[Any, WindowRow] = {}
        self._table: PreparedTable | None = None
        self._rows_scanned = 0
        self._open_metadata: dict[str, str] = {}
        #: the table whose streamed changes are checked against the window (None: no open window)
        self.dedup_table: TableId | None = None

    # -- the stream's events ---------------------------------------------------------------------------
    def deduplicate(self, key: Struct | None) -> None:
        """A streamed change of the windowed table: its key's READ event would be stale."""
        if key is not None and self._window.pop(key.values, None) is not None:
            log.debug("Removed '%s' from window", key)

    def _update_dedup(self) -> None:
        current = self.context.current
        self.dedup_table = current.id if self._window and self.context.window_open and current is not None else None

    async def open_window(self, signal_id: str) -> None:
        if not self.context.expects(signal_id):
            log.info(
                "Received request to open window with id = '%s', expected = '%s', request ignored",
                signal_id,
                self.context.chunk_id,
            )
            return
        self.context.window_open = True
        self._update_dedup()

    async def close_window(self, signal_id: str) -> None:
        context = self.context
        if not context.expects(signal_id):
            log.info(
                "Received request to close window with id = '%s', expected = '%s', request ignored",
                signal_id,
                context.chunk_id,
            )
            return
        context.window_open = False
        self.dedup_table = None
        await self._send_window()
        await self.read_chunk()

    async def _send_window(self) -> None:
        rows = list(self._window.values())
        self._window.clear()
        if rows and self._table is not None and self.emitter is not None:
            await self.emitter.emit_window(self._table, rows)

    # -- signals ---------------------------------------------------------------------------------------
    async def start(self, *, resumed: bool = False) -> None:
        """Streaming starts: a snapshot the offsets carry goes on from the next chunk. After a failure of this
        task (``resumed``) the window not yet emitted is read again, from the last row emitted."""
        context = self.context
        if not context.running:
            log.info("No incremental snapshot in progress, no action needed on start")
            return
        if resumed:
            self._window.clear()
            context.revert_chunk()
            self.dedup_table = None
        log.info("Incremental snapshot in progress, need to read new chunk on start")
        self._metrics.started(str(c.id) for c in context.collections)
        await self.read_chunk()

    async def add(
        self,
        correlation_id: str | None,
        collections: Sequence[str],
        conditions: Sequence[tuple[str, str]],
        surrogate_key: str,
    ) -> None:
        """execute-snapshot (incremental): queue the tables the regexes name; start reading if none ran."""
        context = self.context
        should_read = not context.running
        expanded = self._expand(collections)
        if len(expanded) > len(collections):
            log.info("Data-collections to snapshot have been expanded from %s to %s", list(collections), expanded)
        added: list[DataCollection] = []
        for name in expanded:
            condition = next(
                (f for pattern, f in conditions if java_regex(pattern, case_insensitive=True).fullmatch(name)), ""
            )
            try:
                table_id = TableId.parse(name)
            except ValueError:
                log.warning("Unable to parse table identifier from %s. Skipping it.", name)
                continue
            added.append(DataCollection(table_id, condition, surrogate_key, correlation_id))
        context.add(correlation_id, added)
        if should_read and context.running:
            self._metrics.started(str(c.id) for c in added)
            await self._notify("STARTED", {"data_collections": self._names()})
            await self.read_chunk()

    def request_stop(self, collections: Sequence[str] | None) -> None:
        self.context.request_stop(collections)

    async def pause(self) -> None:
        context = self.context
        if context.running and not context.paused:
            log.info("Pausing incremental snapshot")
            context.paused = True
            self._metrics.paused(True)
            await self._notify("PAUSED", {"data_collections": self._names()})

    async def resume(self) -> None:
        context = self.context
        if context.running and context.paused:
            log.info("Resuming incremental snapshot")
            context.paused = False
            self._metrics.paused(False)
            await self._notify("RESUMED", {"data_collections": self._names()})
            await self.read_chunk()

    # -- chunks ----------------------------------------------------------------------------------------
    async def read_chunk(self) -> None:
        context = self.context
        await self._process_stop_requests()
        if not context.running:
            log.info("Skipping read chunk because snapshot is not running")
            return
        if context.paused:
            log.info("Incremental snapshot was paused.")
            return
        chunk_id = context.start_chunk()
        while True:
            try:
                await self._window_open(chunk_id)
                break
            except TableScanFailed as e:
                # the watermark cannot be written (signal table gone, no privilege): the current table is skipped,
                # as Debezium's readChunk does, and the next one tried
                log.warning("Incremental snapshot window could not be opened: %s", e)
                await self._table_scan_completed(e.status)
                if not context.running:
                    return
        while context.running:
            current = context.current
            assert current is not None
            try:
                table = self._table
                if table is None or context.maximum_key is None or table.id != current.id:
                    # the table is read from the catalog when its snapshot starts (Debezium's refreshTableSchema)
                    table = self._table = await self._source.prepare(current)
                if self._settings.allow_schema_changes and not await self._schema_confirmed(table):
                    # Debezium: a window whose table's columns are not yet confirmed reads nothing; the next one
                    # (same columns again) does
                    break
                if context.maximum_key is None:
                    maximum = await self._source.maximum_key(table, current.additional_condition)
                    if maximum is None:
                        log.info(
                            "No maximum key returned by the query, incremental snapshotting of table '%s' "
                            "finished as it is empty",
                            current.id,
                        )
                        await self._table_scan_completed("EMPTY")
                        continue
                    context.maximum_key = maximum
                    context.changed()
                    log.info("Incremental snapshot for table '%s' will end at position %s", current.id, list(maximum))
                if self._settings.allow_schema_changes and await self._source.table_signature(table) != context.schema:
                    log.info("Schema has changed during the incremental snapshot of '%s'", current.id)
                    context.schema_verified = False
                    context.revert_chunk()
                    self._table = None  # read from the catalog again
                    break
                rows = await self._source.chunk(
                    table,
                    context.chunk_end,
                    context.maximum_key,
                    current.additional_condition,
                    self._settings.chunk_size,
                )
            except TableScanFailed as e:
                log.warning("%s", e)
                await self._table_scan_completed(e.status)
                continue
            # rows of a table without a record key (a surrogate key on a keyless table) are kept apart by their
            # chunk key: Debezium keys its window by the record key, so such a window keeps only its last row
            self._window = {(row.key.values if row.key is not None else (_NO_KEY, row.chunk_key)): row for row in rows}
            first = rows[0].chunk_key if rows else None
            last = rows[-1].chunk_key if rows else None
            self._metrics.chunk(
                chunk_id,
                _key_text(first),
                _key_text(last),
                None if context.chunk_end is not None else _key_text(context.maximum_key),
            )
            context.chunk_end = last
            self._rows_scanned += len(rows)
            self._metrics.rows_scanned(str(current.id), self._rows_scanned)
            if not self._window:
                log.info("No data returned by the query, incremental snapshotting of table '%s' finished", current.id)
                await self._table_scan_completed("SUCCEEDED")
                continue
            await self._notify(
                "IN_PROGRESS",
                {
                    "data_collections": self._names(),
                    "current_collection_in_progress": str(current.id),
                    "maximum_key": _key_text(context.maximum_key) or '"<null>"',
                    "last_processed_key": _key_text(context.chunk_end) or "",
                },
            )
            break
        try:
            await self._window_close(chunk_id)
        except TableScanFailed as e:
            # without a close watermark the window would never be emitted: skip the table, try the next one
            log.warning("Incremental snapshot window could not be closed: %s", e)
            self._window.clear()
            if context.running:
                await self._table_scan_completed(e.status)
            if context.running:
                await self.read_chunk()
            return
        self._update_dedup()

    async def _window_open(self, chunk_id: str) -> None:
        """The open watermark: a row in the signal table (Debezium's emitWindowOpen)."""
        signal_table = self._settings.signal_table
        if signal_table is None:
            log.warning("Not able to determine signal table, cannot emit window open signal")
            return
        metadata = {"openWindowTimestamp": _instant_now()}
        current = self.context.current
        if current is not None:
            if current.correlation_id:
                metadata["correlationId"] = current.correlation_id
            metadata["dataCollectionId"] = str(current.id)
        self._open_metadata = metadata
        await self._source.write_open(signal_table, chunk_id, _metadata_text(metadata))

    async def _window_close(self, chunk_id: str) -> None:
        """The close watermark: another row, or the open one deleted (insert_delete)."""
        signal_table = self._settings.signal_table
        if signal_table is None:
            log.warning("Not able to detect signal table, cannot emit window close signal")
            return
        close = {**self._open_metadata, "closeWindowTimestamp": _instant_now()}
        await self._source.write_close(
            signal_table,
            chunk_id,
            _metadata_text(_ordered(close)),
            delete=self._settings.watermarking.value == "insert_delete",
        )

    # -- transaction-driven windows (read.only): no-ops for signal-table watermarks ---------------------
    #: whether the stream must report transactions (:meth:`before_event`, :meth:`after_commit`, :meth:`idle`)
    transaction_driven = False

    async def before_event(self, tx_id: int | None) -> None:
        """A change event of a captured table is about to be emitted."""

    async def after_commit(self, tx_id: int | None) -> None:
        """A transaction's commit was handled."""

    async def idle(self, tx_id: int | None) -> None:
        """Nothing arrived from the stream (Debezium's heartbeat to the incremental snapshot)."""

    async def _schema_confirmed(self, table: PreparedTable) -> bool:
        """Debezium's schemaHistoryIsUpToDate: the columns seen by the previous window are still the table's."""
        context = self.context
        if context.schema_verified:
            return True
        signature = await self._source.table_signature(table)
        if context.schema is not None:
            context.schema_verified = context.schema == signature
            if context.schema_verified:
                log.info("Incremental snapshot's schema verification passed for '%s'", table.id)
        context.schema = signature
        return context.schema_verified

    async def _table_scan_completed(self, status: str) -> None:
        """Notify the table's end (any status) and go to the next table."""
        context = self.context
        current = context.current
        assert current is not None
        await self._notify(
            "TABLE_SCAN_COMPLETED",
            {
                "data_collections": self._names(),
                "scanned_collection": str(current.id),
                "total_rows_scanned": str(self._rows_scanned),
                "status": status,
            },
        )
        if status == "SUCCEEDED":
            self._metrics.table_done(str(current.id), self._rows_scanned)
            self._rows_scanned = 0
            self._metrics.chunk(None, None, None, None)
        await self._next_collection()

    async def _next_collection(self) -> None:
        context = self.context
        context.next_collection()
        if not context.running:
            self._metrics.completed()
            await self._notify("COMPLETED", {})
            context.correlation_id = None
            context.changed()

    async def _process_stop_requests(self) -> None:
        context = self.context
        requested = context.take_stop_requests()
        if not requested:
            return
        if not context.running:
            log.warning("No active incremental snapshot, stop ignored")
            context.correlation_id = None
            return
        expanded = self._expand(requested)
        log.info("Removing '%s' collections from incremental snapshot", expanded)
        stopped: list[str] = []
        current = context.current
        stop_current = False
        for name in expanded:
            try:
                table_id = TableId.parse(name)
            except ValueError:
                log.warning("Could not remove '%s', collection is not part of the incremental snapshot.", name)
                continue
            if self._table is not None and current is not None and table_id == current.id:
                stop_current = True
            elif context.remove(table_id):
                stopped.append(name)
                log.info("Removed '%s' from incremental snapshot collection list.", table_id)
            else:
                log.warning("Could not remove '%s', collection is not part of the incremental snapshot.", table_id)
        if stop_current and current is not None:
            # as Debezium: the current table ends like a finished one (the next table starts, or the snapshot
            # completes), its window already emitted
            log.info("Removed current collection '%s' from incremental snapshot collection list.", current.id)
            self._metrics.table_done(str(current.id), self._rows_scanned)
            self._rows_scanned = 0
            self._metrics.chunk(None, None, None, None)
            stopped.append(str(current.id))
            log.info("Advancing to next available collection in the incremental snapshot.")
            await self._next_collection()
        await self._notify("ABORTED", {"data_collections": ",".join(stopped)})
        if not context.running:
            context.correlation_id = None
            context.changed()
        log.info("Removed collections from incremental snapshot: '%s'", stopped)

    # -- helpers ---------------------------------------------------------------------------------------
    def _expand(self, patterns: Sequence[str]) -> list[str]:
        """Each regex as the known tables it matches, or itself when it matches none; duplicates dropped."""
        known = [str(t) for t in self._source.known_tables()]
        out: dict[str, None] = {}
        for pattern in patterns:
            try:
                regex = java_regex(pattern)
                matches = [t for t in known if regex.fullmatch(t)]
            except Exception:  # noqa: BLE001 - not a regex: the name itself
                matches = []
            for name in matches or [pattern]:
                out[name] = None
        return list(out)

    def _names(self) -> str:
        return ",".join(str(c.id) for c in self.context.collections)

    async def _notify(self, kind: str, data: Mapping[str, str]) -> None:
        if not self._notifications.enabled:
            return
        notification = self._notifications.build(AGGREGATE, kind, data, self.context.correlation_id)
        await self._notifications.notify(notification, self._offset)


def _key_text(key: Sequence[JavaValue] | None) -> str | None:
    """A key as Debezium's notifications and metrics print it (Java's toString of each value, comma-joined)."""
    if key is None:
        return None
    return ",".join(java_to_string(v) for v in key)


def java_to_string(value: JavaValue) -> str:
    """Java's ``Objects.toString(value, "<null>")`` of a key value."""
    if value is None:
        return "<null>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return java_double_to_string(value)
    if isinstance(value, JavaFloat):
        return java_float_to_string(value.value)
    if isinstance(value, JavaInteger | JavaLong | JavaShort):
        return str(value.value)
    if isinstance(value, bytes):
        return f"[B@{id(value) & 0xFFFFFFF:x}"  # an array's identity, as Java prints it
    return str(value)


def _ordered(metadata: Mapping[str, str]) -> dict[str, str]:
    order = ("openWindowTimestamp", "closeWindowTimestamp", "correlationId", "dataCollectionId")
    return {k: metadata[k] for k in order if k in metadata}


def _metadata_text(metadata: Mapping[str, str]) -> str:
    """Debezium's SignalMetadata JSON: ``{"k": "v", "k2": "v2"}`` (a space after each colon and comma)."""

    return (
        "{" + ", ".join(f"{jackson_dumps(k).decode()}: {jackson_dumps(v).decode()}" for k, v in metadata.items()) + "}"
    )


def _instant_now() -> str:
    """``Instant.now().toString()``: ISO-8601 UTC with the fraction's trailing zero groups dropped."""
    ns = time.time_ns()
    seconds, frac = divmod(ns, 1_000_000_000)
    text = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(seconds))
    if frac:
        digits = f"{frac:09d}"
        while digits.endswith("000"):
            digits = digits[:-3]
        text += "." + digits
    return text + "Z"
