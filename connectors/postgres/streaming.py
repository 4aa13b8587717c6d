"""Streaming: pgoutput messages → Debezium change records on the task's queue.

One transaction at a time, in commit order. Every record carries the offset of its own position, so the
worker commits exactly what Kafka acknowledged. Positions (decimal LSNs): a data event's `lsn` is the
XLogData start of its change; a Commit's is its end LSN, which becomes `lsn_commit` for what follows.
On restart the server is asked to start at the last fully processed commit; the events of the partly
processed transaction that were already emitted (same xid, LSN ≤ stored lsn) are skipped, its BEGIN record is
not emitted again and its transaction-metadata counters continue from the stored ones.

Details that follow the real Debezium 3.6.3 (checked with the differential harness):
* a transactional logical message is an event of its transaction (`transaction` block, counted in END); it
  and BEGIN leave `lsn_proc` (last completely processed LSN) where it was;
* a non-transactional one is handled like a commit of its own: `lsn_commit = lsn_proc = lsn` and later events'
  `sequence` start from it; its `source.ts_ms` is the last commit time seen (not the clock); no `txId`;
* the offset of a heartbeat after a COMMIT has no transaction keys (the END record's offset has them);
* a key built from a key-only old tuple fills its required fields like the before image does.
"""

from __future__ import annotations

import collections
import dataclasses
import logging
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Final

from connect_worker.api import RetriableError, SourceRecord, Struct
from connect_worker.api.errors import DataError
from connect_worker.api.javacompat import java_map_text
from connectors.postgres.lsn import Lsn
from connectors.postgres.messages import message_collection_id
from connectors.postgres.offsets import StoredPosition, streaming_offset
from connectors.postgres.protocol import pgoutput as pg
from connectors.postgres.protocol.copy_both import PG_EPOCH_OFFSET_US
from connectors.postgres.source_info import SourceInfo, SourceTemplate
from connectors.relational.emitter import RecordFactory
from connectors.relational.heartbeat import Heartbeat
from connectors.relational.incremental_context import PRIMARY_KEY
from connectors.relational.incremental_snapshot import PreparedTable, WindowRow
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.schema_builder import RowFn, TableSchema
from connectors.relational.signaling import Signaling
from connectors.relational.signals import signal_from_row
from connectors.relational.table import TableId
from connectors.relational.transactions import TransactionMonitor

log = logging.getLogger(__name__)

# max.queue.size.in.bytes: what a record costs beyond its values (schemas are shared; source, offset, headers)
_RECORD_OVERHEAD = 512
# the pgoutput messages that become change records (the per-event path)
_ROW_CHANGES: Final = frozenset({pg.Insert, pg.Update, pg.Delete})


@dataclasses.dataclass(slots=True)
class _RelationState:
    table_id: TableId
    schema: TableSchema | None  # None: the table is not captured
    topic: str
    key_fn: RowFn | None
    value_fn: RowFn | None
    names: tuple[str, ...]
    # the source block of this table's events in the current transaction (made again when `_gen` moves)
    source: SourceTemplate | None = None
    source_gen: int = -1
    # a signal table: its inserts (and deletes, with insert_delete watermarks) are signals
    signal: bool = False


@dataclasses.dataclass(frozen=True, slots=True)
class StreamingSettings:
    skipped_operations: frozenset[str]
    message_filter: Callable[[str], bool]
    message_topic: str
    binary_message_content: Callable[[bytes], Any]
    skip_messages_without_change: bool = False
    # max.queue.size.in.bytes > 0: records are put with an estimate of their size (else with 0, at no cost)
    estimate_sizes: bool = False
    # event.processing.failure.handling.mode: fail | warn | skip (ignore is skip)
    failure_handling_mode: str = "fail"
    # lsn.flush.mode=connector_and_driver: when idle, heartbeats carry the WAL end the server reported
    advance_when_idle: bool = False
    # after a restart inside a transaction the server resends all of it: skip the events whose LSN the stored
    # offset passed. Off for YugabyteDB's HYBRID_TIME slots, where every event of a transaction has the same
    # LSN (the commit's hybrid time): the whole transaction is emitted again (duplicates, never a loss)
    skip_replayed: bool = True


class StreamingChangeSource:
    """Turns decoded pgoutput messages into records. Owns no connection: `handle_batch()` is fed by the task."""

    def __init__(
        self,
        *,
        queue: ChangeEventQueue,
        records: RecordFactory,
        source_info: SourceInfo,
        schema_for: Callable[[TableId, pg.Relation], Awaitable[TableSchema | None]],
        topic_for: Callable[[TableId], str],
        transactions: TransactionMonitor | None,
        message_records: Callable[..., SourceRecord],
        settings: StreamingSettings,
        stored: StoredPosition | None,
        heartbeat: Heartbeat | None = None,
        initial_offset: Mapping[str, Any] | None = None,
        signaling: Signaling | None = None,
        snapshot_flags: tuple[bool, bool] = (False, False),
    ) -> None:
        """`initial_offset`: what a heartbeat carries before the first event (after a snapshot: Debezium's
        `{"lsn","txId","ts_usec"}` of the snapshot); by default the stored offset, if any."""
        self._queue = queue
        # records the queue had no room for, in order: row changes are turned into records synchronously (no
        # await per row) and only then wait for room (`_wait_for_room`)
        self._overflow: collections.deque[tuple[SourceRecord, int]] = collections.deque()
        self._records = records
        self._source = source_info
        self._schema_for = schema_for
        self._topic_for = topic_for
        self._tx = transactions
        self._message_records = message_records
        self._settings = settings
        self._stored = stored
        self._heartbeat = heartbeat
        self._relations: dict[int, _RelationState] = {}
        self._xid: int | None = None
        self._commit_us = stored.ts_usec if stored else 0
        self.last_commit_lsn: int | None = stored.lsn_commit if stored else None
        self._lsn_proc: int | None = stored.lsn_proc if stored else None
        # a heartbeat before the first new event carries the stored offset again (as Debezium's does)
        self.last_offset: dict[str, Any] | None = (
            dict(initial_offset)
            if initial_offset is not None
            else stored.offset()
            if stored is not None and not stored.snapshot_in_progress
            else None
        )
        # moves whenever the transaction id, commit time or last commit LSN change: what every event of a
        # transaction shares (source block, offset) is made once per generation
        self._gen = 0
        self._offset_gen = -1
        self._offset_templates: dict[str, dict[str, Any]] = {}
        self.events_seen = 0
        self.events_filtered = 0
        self.events_failed = 0  # changes skipped by event.processing.failure.handling.mode warn/skip
        self.commits = 0
        self.ops = {"c": 0, "u": 0, "d": 0}  # per-operation counts, read by the task's metrics
        # signals and incremental snapshots (None: no signal table, no channel)
        self._signaling = signaling
        self._incremental = signaling.incremental if signaling is not None else None
        # read.only snapshots follow transactions: told of each captured change, commit and idle moment
        self._tx_driven = (
            self._incremental if self._incremental is not None and self._incremental.transaction_driven else None
        )
        self._inc_context = signaling.context if signaling is not None else None
        # a signal row being processed: its offset (what the window's records carry) and LSN
        self._signal_offset: dict[str, Any] | None = None
        self._signal_lsn: int | None = None
        # the offsets of incremental READ records: `last_snapshot_record`, `snapshot_completed`
        self._snapshot_flags = snapshot_flags
        if signaling is not None:
            signaling.offset_from(lambda: self.last_offset)
            if self._incremental is not None:
                self._incremental.emitter = self
            if self.last_offset is not None:
                self.last_offset = self._with_incremental(dict(self.last_offset))

    @property
    def commit_time_ms(self) -> int:
        """Commit time of the transaction being (or last) processed."""
        return self._commit_us // 1000

    # -- the dispatch loop ---------------------------------------------------------------------------
    async def handle_batch(self, batch: list[tuple[Lsn, Any]]) -> None:
        row_change = _ROW_CHANGES
        for lsn, msg in batch:
            kind = msg.__class__
            if kind not in row_change:
                await self._control(int(lsn), msg)
                continue
            # the hot path: a row change becomes records without a coroutine; only a full queue is awaited
            at = int(lsn)
            if self._tx_driven is not None and self._tx_driven.context.running:
                await self._before_change(at, msg)
            try:
                if self._row(at, msg):  # a signal-table row: the signal first, then its own event
                    await self._signal_row(at, msg)
            except RetriableError:
                raise  # a lost connection (a signal's SQL): the task resumes from its offsets
            except Exception as e:  # noqa: BLE001 - event.processing.failure.handling.mode decides
                self._failed(at, kind, e)
            if self._overflow:
                await self._wait_for_room()

    async def _control(self, lsn: int, msg: Any) -> None:
        """Every message that is not a row change: transaction bounds, relations, truncates, logical messages."""
        kind = msg.__class__
        if kind is pg.Begin:
            if self._overflow:  # the queue's transaction bounds follow its records
                await self._wait_for_room()
            self._queue.begin_transaction()
            self._xid = msg.xid
            self._commit_us = msg.commit_time + PG_EPOCH_OFFSET_US
            self._gen += 1
            # lsn_proc stays: in Debezium a BEGIN is not a completely processed position
            if self._tx is not None:
                stored = self._stored
                if stored is not None and stored.in_transaction(msg.xid):  # BEGIN already emitted before a stop
                    if stored.transaction_id == str(msg.xid):
                        self._tx.restore(stored.transaction_orders)
                    else:
                        self._tx.start()
                    self._tx.resume(self._commit_us)
                else:
                    self._tx.start()
                    await self._put(self._tx.begin(self._xid, lsn, self._commit_us, self._offset(lsn, "BEGIN")))
        elif kind is pg.Commit:
            self.commits += 1
            self.last_commit_lsn = lsn
            self._lsn_proc = lsn
            self._gen += 1
            offset = self._offset(lsn, "COMMIT", transaction_keys=False)
            if self._tx is not None and self._xid is not None:
                await self._put(self._tx.end(self._xid, lsn, {**offset, **self._tx.offset_keys(self._xid)}))
            if self._overflow:
                await self._wait_for_room()
            self._queue.end_transaction()
            self.last_offset = offset
            committed = self._xid
            self._xid = None
            self._gen += 1
            if self._tx_driven is not None:
                await self._tx_driven.after_commit(committed)
            await self.maybe_heartbeat()
        elif kind is pg.Relation:
            await self._relation(msg)
        elif kind is pg.Truncate:
            await self._truncate(lsn, msg)
        elif kind is pg.LogicalMessage:
            await self._message(lsn, msg)
        # Origin and Type messages need no action: types are resolved from the catalog

    async def idle(self, server_wal_end: int) -> None:
        """Nothing arrived: heartbeat when due. With `advance_when_idle`, between transactions, the offset moves
        to the WAL end the server last reported (a keepalive's position) when that is past the last one: every
        transaction committed before it has already arrived and been handed on, and one still open commits after
        it, so the server resends it whole from there. The heartbeat's offset commits after every earlier
        record is in Kafka; only then is the position confirmed to the slot. Events keep their own positions."""
        if self._settings.advance_when_idle and self._xid is None and server_wal_end > self._position():
            last = self.last_offset or {}
            self.last_offset = self._with_incremental(
                streaming_offset(
                    lsn=server_wal_end,
                    lsn_commit=server_wal_end,
                    tx_id=last.get("txId"),
                    ts_usec=self._commit_us,
                    message_type="COMMIT",
                )
            )
        if self._tx_driven is not None and self._xid is None:
            tx = (self.last_offset or {}).get("txId")
            await self._tx_driven.idle(tx if isinstance(tx, int) else None)
        await self.maybe_heartbeat()

    def _position(self) -> int:
        last = self.last_offset
        if last is None:
            return 0
        return max([v for k in ("lsn", "lsn_proc", "lsn_commit") if isinstance(v := last.get(k), int)], default=0)

    async def maybe_heartbeat(self) -> None:
        """Emit a heartbeat carrying the current offset when heartbeat.interval.ms has passed."""
        if self._heartbeat is None or self.last_offset is None or self._xid is not None:
            return
        await self._heartbeat.maybe_emit(self.last_offset)

    # -- helpers -------------------------------------------------------------------------------------
    def _offset(self, lsn: int, message_type: str, *, transaction_keys: bool = True) -> dict[str, Any]:
        # a copy of this generation's offset of the kind, with this event's positions (keys keep their order)
        if self._offset_gen != self._gen:
            self._offset_templates.clear()
            self._offset_gen = self._gen
        template = self._offset_templates.get(message_type)
        if template is None:
            template = self._offset_templates[message_type] = streaming_offset(
                lsn=0,
                lsn_proc=0,
                lsn_commit=self.last_commit_lsn,
                tx_id=self._xid,
                ts_usec=self._commit_us,
                message_type=message_type,
            )
        offset = template.copy()
        lsn_proc = self._lsn_proc
        offset["lsn_proc"] = lsn if lsn_proc is None else lsn_proc
        offset["lsn"] = lsn
        if transaction_keys and self._tx is not None and self._xid is not None:
            offset.update(self._tx.offset_keys(self._xid))
        if self._inc_context is not None:
            return self._with_incremental(offset)
        return offset

    def _with_incremental(self, offset: dict[str, Any]) -> dict[str, Any]:
        """While an incremental snapshot runs, offsets carry its progress (incremental_context.py)."""
        context = self._inc_context
        keys = context.offset_keys() if context is not None else None
        if keys is not None:
            offset.update(keys)
        return offset

    def _emit(self, record: SourceRecord, size: int = 0) -> None:
        """Queue a record now, or keep it (in order) for `_wait_for_room` when the queue is full."""
        if self._overflow or not self._queue.offer(record, size):
            self._overflow.append((record, size))

    async def _wait_for_room(self) -> None:
        overflow = self._overflow
        while overflow:
            record, size = overflow[0]
            await self._queue.put(record, size)
            overflow.popleft()

    async def _put(self, record: SourceRecord, size: int = 0) -> None:
        self._emit(record, size)
        if self._overflow:
            await self._wait_for_room()

    def _failed(self, lsn: int, kind: type, error: Exception) -> None:
        """A change could not be turned into records: fail with its offset, or log it and go on (the position
        advances past it all the same), as Debezium's EventDispatcher does."""
        message_type = "INSERT" if kind is pg.Insert else "UPDATE" if kind is pg.Update else "DELETE"
        offset = java_map_text(self._offset(lsn, message_type))
        mode = self._settings.failure_handling_mode
        if mode == "fail":
            raise DataError(f"Error while processing event at offset {offset}: {error}") from error
        self.events_failed += 1
        if mode == "warn":
            log.warning("Error while processing event at offset %s: %s", offset, error)
        else:
            log.debug("Error while processing event at offset %s: %s", offset, error)

    async def _relation(self, msg: pg.Relation) -> None:
        table_id = TableId(msg.namespace or "pg_catalog", msg.name)
        schema = await self._schema_for(table_id, msg)
        names = tuple(c.name for c in msg.columns)
        if schema is None:
            self._relations[msg.relation_id] = _RelationState(table_id, None, "", None, None, names)
            return
        key_fn, value_fn = schema.row_converter(names)
        signaling = self._signaling
        self._relations[msg.relation_id] = _RelationState(
            table_id,
            schema,
            self._topic_for(table_id),
            key_fn,
            value_fn,
            names,
            signal=signaling is not None and signaling.is_signal_table(table_id),
        )

    def _source_struct(self, rel: _RelationState, lsn: int) -> Struct:
        template = rel.source
        if rel.source_gen != self._gen or template is None:
            template = rel.source = self._source.template(
                ts_us=self._commit_us,
                schema=rel.table_id.schema,
                table=rel.table_id.table,
                tx_id=self._xid,
                last_commit_lsn=self.last_commit_lsn,
            )
            rel.source_gen = self._gen
        return template.at(lsn)

    def _row(self, lsn: int, msg: Any, signal_done: bool = False) -> bool:
        """Emit a row change's records; True (nothing emitted yet) for a signal-table row."""
        if not signal_done:
            self.events_seen += 1
            self._lsn_proc = lsn
        rel = self._relations.get(msg.relation_id)
        if rel is None:
            raise RuntimeError(f"change for relation {msg.relation_id} arrived before its Relation message")
        schema = rel.schema
        if schema is None or (
            self._stored is not None and self._settings.skip_replayed and self._stored.already_emitted(self._xid, lsn)
        ):
            self.events_filtered += 1
            return False
        if rel.signal and not signal_done:
            return True  # handle_batch processes the signal, then comes back here
        kind = msg.__class__
        op = "c" if kind is pg.Insert else "u" if kind is pg.Update else "d"
        if op in self._settings.skipped_operations:
            self.events_filtered += 1
            return False
        self.ops[op] += 1
        value_fn = rel.value_fn
        key_fn = rel.key_fn
        assert value_fn is not None
        records = self._records
        size = self._size_of(msg) if self._settings.estimate_sizes else 0
        if op == "c":
            new = msg.new
            after = value_fn(new)
            key_of = schema.key_from_value
            key = key_of(after) if key_of is not None else key_fn(new) if key_fn else None
            tx, offset, source = self._event(rel, lsn, "INSERT")
            self._emit(records.read_or_create(schema, rel.topic, "c", key, after, source, tx, offset), size)
            if self._incremental is not None:
                self._deduplicate(rel.table_id, key)
            return False
        if op == "u":
            new = msg.new
            old_tuple = msg.old if msg.old is not None else msg.key
            if msg.old is not None:  # REPLICA IDENTITY FULL: unchanged TOAST values are in the old tuple
                new = tuple(o if _is_unchanged(n) else n for n, o in zip(new, msg.old, strict=False))
            before = None
            old_key = None
            if old_tuple is not None:
                before = value_fn(old_tuple)
                old_key = key_fn(old_tuple) if key_fn else None
                if msg.old is None:
                    before = schema.partial_row(before)
                    old_key = schema.partial_row(old_key) if old_key is not None else None
            after = value_fn(new)
            if self._settings.skip_messages_without_change and after == before:
                # skip.messages.without.change: no included column changed (needs REPLICA IDENTITY FULL)
                self.events_filtered += 1
                return False
            tx, offset, source = self._event(rel, lsn, "UPDATE")
            key_of = schema.key_from_value
            key = key_of(after) if key_of is not None else key_fn(new) if key_fn else None
            create_tx = create_offset = None
            if records.key_changed(old_key, key) and self._tx is not None and self._xid:
                # the create on the new key is a second event of the transaction
                create_tx = self._tx.event(self._xid, lsn, str(rel.table_id))
                create_offset = self._offset(lsn, "UPDATE")
                self.last_offset = create_offset
            for r in records.update(
                schema,
                rel.topic,
                old_key,
                key,
                before,
                after,
                source,
                tx,
                offset,
                create_tx=create_tx,
                create_offset=create_offset,
            ):
                self._emit(r, size)
            if self._incremental is not None:
                self._deduplicate(rel.table_id, old_key, key)
            return False
        old_tuple = msg.old if msg.old is not None else msg.key
        before = value_fn(old_tuple)
        old_key = key_fn(old_tuple) if key_fn else None
        if msg.old is None:  # key-only old tuple: required fields get their default or zero value
            before = schema.partial_row(before)
            old_key = schema.partial_row(old_key) if old_key is not None else None
        tx, offset, source = self._event(rel, lsn, "DELETE")
        for r in records.delete(schema, rel.topic, old_key, before, source, tx, offset):
            self._emit(r, size)
        if self._incremental is not None:
            self._deduplicate(rel.table_id, old_key)
        return False

    def _deduplicate(self, table_id: TableId, *keys: Struct | None) -> None:
        """A streamed change of the table an incremental snapshot's window holds: its keys leave the window."""
        inc = self._incremental
        if inc is not None and inc.dedup_table is not None and inc.dedup_table == table_id:
            for key in keys:
                inc.deduplicate(key)

    async def _before_change(self, lsn: int, msg: Any) -> None:
        """read.only: a captured change is about to be emitted; the window may close (its rows then carry this
        change's position) or the change drops its key from the window."""
        hook = self._tx_driven
        rel = self._relations.get(msg.relation_id)
        if hook is None or rel is None or rel.schema is None or self._xid is None:
            return
        kind = msg.__class__
        op = "c" if kind is pg.Insert else "u" if kind is pg.Update else "d"
        if op in self._settings.skipped_operations:
            return
        self._signal_offset = self._offset(lsn, "INSERT" if op == "c" else "UPDATE" if op == "u" else "DELETE")
        self._signal_lsn = lsn
        try:
            await hook.before_event(self._xid)
        finally:
            self._signal_offset = self._signal_lsn = None

    async def _signal_row(self, lsn: int, msg: Any) -> None:
        """A signal-table row: its signal is processed before its own event is emitted (as Debezium's
        dispatcher does), so that event's offset holds what the signal changed; records the signal makes (an
        incremental snapshot's window) carry the row's position."""
        signaling = self._signaling
        rel = self._relations[msg.relation_id]
        assert signaling is not None and rel.value_fn is not None
        kind = msg.__class__
        signal = None
        if kind is pg.Insert:
            signal = signal_from_row(_plain(rel.value_fn(msg.new).values))
            message_type = "INSERT"
        elif kind is pg.Delete and signaling.settings.watermarking.value == "insert_delete":
            old = msg.old if msg.old is not None else msg.key
            signal = signal_from_row(_plain(rel.value_fn(old).values), deleted=True)
            message_type = "DELETE"
        if signal is not None:
            self._signal_offset = self._offset(lsn, message_type)
            self._signal_lsn = lsn
            try:
                await signaling.source_signal(signal)
            finally:
                self._signal_offset = self._signal_lsn = None
        self._row(lsn, msg, signal_done=True)
        if self._overflow:
            await self._wait_for_room()
        await signaling.run_pending_blocking()  # streaming pauses after the signal's own event

    def stream_position(self) -> tuple[dict[str, Any], int | None, int | None, int | None]:
        """Where the stream is: its offset without incremental-snapshot keys, txId, LSN, last commit LSN."""
        offset = {
            k: v
            for k, v in (self.last_offset or {}).items()
            if not k.startswith(("incremental_snapshot_", "transaction_"))
        }
        lsn = offset.get("lsn")
        tx_id = offset.get("txId")
        return (
            offset,
            tx_id if isinstance(tx_id, int) else None,
            lsn if isinstance(lsn, int) else None,
            (self.last_commit_lsn),
        )

    def snapshot_done(self) -> None:
        """A blocking snapshot completed: later incremental records' offsets say so (Debezium's context)."""
        self._snapshot_flags = (True, True)

    async def emit_window(self, table: PreparedTable, rows: Sequence[WindowRow]) -> None:
        """An incremental snapshot's window as READ records at the stream's position (Debezium's
        sendWindowEvents): the source block has the read time and `snapshot=incremental` but no txId, lsn or
        xmin; the offset is the stream's with `snapshot=INCREMENTAL` and, per record, its own key."""
        context = self._inc_context
        assert context is not None
        base = dict(self._signal_offset if self._signal_offset is not None else self.last_offset or {})
        lsn = self._signal_lsn if self._signal_lsn is not None else base.get("lsn")
        last_record, completed = self._snapshot_flags
        base.update({"snapshot": "INCREMENTAL", "last_snapshot_record": last_record, "snapshot_completed": completed})
        self._with_incremental(base)  # the keys that stay the same through the window
        schema: TableSchema = table.schema  # type: ignore[attr-defined]
        topic = self._topic_for(table.id)
        template = self._source.snapshot_template(
            schema=table.id.schema,
            table=table.id.table,
            tx_id=None,
            lsn=None,
            last_commit_lsn=self.last_commit_lsn,
            sequence_lsn=lsn if isinstance(lsn, int) else None,
        )
        read = self._records.read_or_create
        offer = self._queue.offer
        put = self._queue.put
        time_ns = time.time_ns
        for row in rows:
            primary = context.sent_key(row.chunk_key)
            now_us = time_ns() // 1000
            offset = base.copy()
            offset["ts_usec"] = now_us
            offset[PRIMARY_KEY] = primary
            record = read(schema, topic, "r", row.key, row.value, template.at(now_us, "incremental"), None, offset)
            if not offer(record, 0):
                await put(record, 0)

    @staticmethod
    def _size_of(msg: Any) -> int:
        """max.queue.size.in.bytes: the text length of the change's tuples plus the envelope's share."""
        kind = msg.__class__
        size = _RECORD_OVERHEAD
        if kind is not pg.Delete:
            size += _tuple_size(msg.new)
        if kind is not pg.Insert:
            size += _tuple_size(msg.old if msg.old is not None else msg.key)
        return size

    def _event(self, rel: _RelationState, lsn: int, message_type: str) -> tuple[Struct | None, dict[str, Any], Struct]:
        """The transaction block, offset and source of an event about to be emitted. Counted first: the offset
        includes this event in the transaction's per-table order."""
        tx = self._tx.event(self._xid, lsn, str(rel.table_id)) if self._tx is not None and self._xid else None
        offset = self._offset(lsn, message_type)
        self.last_offset = offset
        return tx, offset, self._source_struct(rel, lsn)

    async def _truncate(self, lsn: int, msg: pg.Truncate) -> None:
        self._lsn_proc = lsn
        if "t" in self._settings.skipped_operations:
            self.events_filtered += len(msg.relation_ids)
            return
        for relid in msg.relation_ids:
            rel = self._relations.get(relid)
            if rel is None or rel.schema is None:
                continue
            tx = self._tx.event(self._xid, lsn, str(rel.table_id)) if self._tx is not None and self._xid else None
            offset = self._offset(lsn, "TRUNCATE")
            self.last_offset = offset
            await self._put(self._records.truncate(rel.schema, rel.topic, self._source_struct(rel, lsn), tx, offset))

    async def _message(self, lsn: int, msg: pg.LogicalMessage) -> None:
        transactional = msg.transactional and self._xid is not None
        if not transactional:
            # Debezium commits a non-transactional message on its own: it is the new commit position, and
            # its time is the last commit time seen (the clock only when none is known yet)
            self.last_commit_lsn = self._lsn_proc = lsn
            if not self._commit_us:
                self._commit_us = time.time_ns() // 1000
            self._gen += 1
        xid = self._xid if transactional else None
        if not self._settings.message_filter(msg.prefix):
            if not transactional:
                self.last_offset = self._message_offset(lsn)
                await self.maybe_heartbeat()
            return
        tx = self._tx.event(xid, lsn, message_collection_id()) if self._tx is not None and xid is not None else None
        offset = self._offset(lsn, "MESSAGE") if transactional else self._message_offset(lsn)
        self.last_offset = offset
        source = self._source.struct(
            ts_us=self._commit_us, schema="", table="", tx_id=xid, lsn=lsn, last_commit_lsn=self.last_commit_lsn
        )
        await self._put(
            self._message_records(
                topic=self._settings.message_topic,
                prefix=msg.prefix,
                content=self._settings.binary_message_content(msg.content),
                source=source,
                transaction=tx,
                offset=offset,
            )
        )
        if not transactional:
            await self.maybe_heartbeat()

    def _message_offset(self, lsn: int) -> dict[str, Any]:
        """The offset of a non-transactional message: a commit position of its own, without txId."""
        return self._with_incremental(
            streaming_offset(lsn=lsn, lsn_commit=lsn, tx_id=None, ts_usec=self._commit_us, message_type="MESSAGE")
        )


def _plain(values: tuple[Any, ...]) -> tuple[Any, ...]:
    """A row's values with YugabyteDB's cells (`{value, set}` structs) unwrapped."""
    return tuple(v.values[0] if isinstance(v, Struct) else v for v in values)


def record_size(*tuples: Any) -> int:
    """max.queue.size.in.bytes estimate of a record made from these source tuples."""
    return _RECORD_OVERHEAD + sum(_tuple_size(t) for t in tuples)


def _tuple_size(values: Any) -> int:
    """A cheap estimate of a tuple's size: the length of its text values."""
    if values is None:
        return 0
    return sum([len(v) for v in values if v.__class__ is str or v.__class__ is bytes])


def _is_unchanged(v: Any) -> bool:
    return v is not None and not isinstance(v, str | bytes)
