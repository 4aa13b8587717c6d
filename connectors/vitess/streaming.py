"""Vitess units → change records (spec vitess.md §1.5, §2.3, §2.4, §2.6, §3).

Each complete unit from :class:`~connectors.vitess.events.UnitAssembler` is turned into records at once:
FIELD events (re)define tables, ROW events become c/u/d records (a primary-key change is a delete,
tombstone and create), BEGIN/COMMIT frame the transaction (its COMMIT time, in whole seconds, is every
row's `source.ts_ms`), and the unit's VGTID is its position. Offsets follow Debezium's restart rule: every
record of a unit carries the position *before* the unit, except the unit's last record, which carries the
unit's own VGTID, so a crash inside a transaction replays the whole transaction.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from connect_worker.api import DataError, Schema, SourceRecord, Struct, Type
from connect_worker.api.schema import struct_schema
from connectors.relational.emitter import RecordFactory
from connectors.relational.heartbeat import Heartbeat
from connectors.relational.metrics import StreamingMetrics
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.schema_builder import RowFn, TableSchema
from connectors.relational.table import Table, TableId
from connectors.relational.transactions import TransactionMonitor
from connectors.vitess.events import Unit, VEventType
from connectors.vitess.source_info import source_block
from connectors.vitess.tables import row_values, table_from_fields, table_id
from connectors.vitess.vgtid import Vgtid

log = logging.getLogger(__name__)

_RECORD_OVERHEAD: Final = 500  # bytes of envelope, source block and key an estimate adds to a row's data

HEARTBEAT_VALUE_SCHEMA: Final = struct_schema(
    [("vgtid", Schema(Type.STRING)), ("ts_ms", Schema(Type.INT64))],
    name="io.debezium.connector.vitess.Heartbeat",
    version=1,
)


@dataclass(slots=True)
class _TableState:
    schema: TableSchema
    topic: str
    key_fn: RowFn | None
    value_fn: RowFn
    binary: tuple[bool, ...]  # per column: decode as latin-1 (bytes kept) rather than UTF-8


@dataclass(frozen=True, slots=True)
class StreamSettings:
    server_name: str
    keyspace: str
    skipped_operations: frozenset[str]
    failure_handling_mode: str  # fail | warn | skip | ignore
    estimate_sizes: bool = False  # max.queue.size.in.bytes > 0: records are put with an estimate of their size


class VStreamSource:
    """Turns units into records on the queue; remembers the position of the last unit it completed."""

    def __init__(
        self,
        *,
        queue: ChangeEventQueue,
        records: RecordFactory,
        settings: StreamSettings,
        schema_for: Callable[[Table], TableSchema | None],
        binary_columns: Callable[[Table], tuple[bool, ...]],
        topic_for: Callable[[TableId], str],
        position: str | None,
        transactions: TransactionMonitor | None = None,
        metrics: StreamingMetrics | None = None,
        heartbeat: Heartbeat | None = None,
    ) -> None:
        self._queue = queue
        self._records = records
        self._settings = settings
        self._schema_for = schema_for
        self._binary_columns = binary_columns
        self._topic_for = topic_for
        self._metrics = metrics
        self._tx = transactions
        # by (shard, "keyspace.table"): each shard's FIELD events describe its own copy of a table, and a DDL
        # reaches the shards one after the other
        self._tables: dict[tuple[str, str], _TableState | None] = {}
        self.position = position  # the VGTID JSON of the last completed unit (the restart position)
        self._heartbeat = heartbeat

    # -- units -------------------------------------------------------------------------------------
    async def handle(self, unit: Unit) -> None:
        if unit.vgtid is None and not unit.is_heartbeat:
            log.warning("dropping a VStream unit without a VGTID event: %s", [t.name for t in unit.types])
            return
        vgtid = Vgtid.from_proto(unit.vgtid).to_json() if unit.vgtid is not None else self.position
        restart = self.position
        out: list[SourceRecord] = []
        commit_seconds = next((int(e.timestamp) for e in unit.events if e.type == VEventType.COMMIT), 0)
        tx = self._tx
        if tx is not None:
            tx.start()
        heartbeat = False
        for event in unit.events:
            kind = event.type
            if kind == VEventType.ROW:
                self._rows(event.row_event, restart, vgtid or "", commit_seconds, out)
            elif kind == VEventType.FIELD:
                self._fields(event.field_event)
            elif kind == VEventType.BEGIN and tx is not None:
                out.append(tx.begin_record(vgtid or "", commit_seconds * 1000, {"vgtid": restart}))
            elif kind == VEventType.COMMIT:
                if self._metrics is not None:
                    self._metrics.transactions.inc()
                if tx is not None:
                    out.append(tx.end_record(vgtid or "", {"vgtid": vgtid}))
                heartbeat = True
            elif kind == VEventType.HEARTBEAT:
                heartbeat = True
            elif kind == VEventType.COPY_COMPLETED:
                log.info("VStream Copy completed: the initial snapshot of keyspace %s is done", self._settings.keyspace)
        if out:
            last = out[-1]
            out[-1] = last.with_(source_offset={**(last.source_offset or {}), "vgtid": vgtid})
        size = self._record_size(unit, len(out)) if self._settings.estimate_sizes and out else 0
        for record in out:
            await self._queue.put(record, size)
        self.position = vgtid
        if heartbeat:
            await self._maybe_heartbeat()

    @staticmethod
    def _record_size(unit: Unit, records: int) -> int:
        """max.queue.size.in.bytes: the unit's row bytes shared among its records, plus the envelope's share."""
        data = sum(
            len(change.before.values) + len(change.after.values)
            for event in unit.events
            if event.type == VEventType.ROW
            for change in event.row_event.row_changes
        )
        return _RECORD_OVERHEAD + data // records

    def _fields(self, event: Any) -> None:
        tid = table_id(event.table_name, self._settings.keyspace)
        table = table_from_fields(tid, event.fields)
        schema = self._schema_for(table)
        name = (event.shard, str(tid))
        if schema is None:
            self._tables[name] = None
            return
        key_fn, value_fn = schema.row_converter([c.name for c in table.columns])
        self._tables[name] = _TableState(schema, self._topic_for(tid), key_fn, value_fn, self._binary_columns(table))
        log.info("schema of %s from a FIELD event (%d columns)", tid, len(table.columns))

    # -- rows --------------------------------------------------------------------------------------
    def _rows(
        self,
        event: Any,
        restart: str | None,
        vgtid: str,
        commit_seconds: int,
        out: list[SourceRecord],
    ) -> None:
        tid = table_id(event.table_name, self._settings.keyspace)
        name = (event.shard, str(tid))
        if name not in self._tables:
            raise DataError(f"ROW event for {tid} (shard {event.shard}) before any FIELD event describing it")
        state = self._tables[name]
        for change in event.row_changes:
            if state is None:
                self._filtered()
                continue
            has_before, has_after = change.HasField("before"), change.HasField("after")
            op = "u" if has_before and has_after else "c" if has_after else "d"
            if op in self._settings.skipped_operations:
                self._filtered()
                continue
            try:
                self._row(state, tid, event.shard, change, op, restart, vgtid, commit_seconds, out)
            except DataError as e:
                self._failed(e, vgtid)
                continue
            if self._metrics is not None:
                self._metrics.event(op, commit_seconds * 1000)

    def _row(
        self,
        state: _TableState,
        tid: TableId,
        shard: str,
        change: Any,
        op: str,
        restart: str | None,
        vgtid: str,
        commit_seconds: int,
        out: list[SourceRecord],
    ) -> None:
        offset: dict[str, Any] = {"vgtid": restart}
        tx = self._tx
        block = tx.event_block(vgtid, str(tid)) if tx is not None else None
        if tx is not None:
            offset.update(tx.offset_keys(vgtid))
        source = source_block(
            self._settings.server_name,
            commit_seconds=commit_seconds,
            keyspace=tid.schema,
            table=tid.table,
            shard=shard,
            vgtid=vgtid,
        )
        records, schema = self._records, state.schema
        before = after = key = old_key = None
        if op != "c":
            values = _decode(change.before, state.binary, tid)
            before = state.value_fn(values)
            old_key = state.key_fn(values) if state.key_fn is not None else None
        if op != "d":
            values = _decode(change.after, state.binary, tid)
            after = state.value_fn(values)
            key = state.key_fn(values) if state.key_fn is not None else None
        if op == "c":
            assert after is not None
            out.append(records.read_or_create(schema, state.topic, "c", key, after, source, block, offset))
        elif op == "u":
            assert after is not None
            create_tx = (
                tx.event_block(vgtid, str(tid)) if tx is not None and records.key_changed(old_key, key) else None
            )
            out.extend(
                records.update(
                    schema, state.topic, old_key, key, before, after, source, block, offset, create_tx=create_tx
                )
            )
        else:
            out.extend(records.delete(schema, state.topic, old_key, before, source, block, offset))

    def _failed(self, error: DataError, vgtid: str) -> None:
        mode = self._settings.failure_handling_mode
        if mode == "fail":
            raise DataError(f"Error while processing a Vitess row event at VGTID {vgtid}: {error}") from error
        self._filtered()
        if mode == "warn":
            log.warning("Skipping a Vitess row event at VGTID %s: %s", vgtid, error)

    def _filtered(self) -> None:
        if self._metrics is not None:
            self._metrics.filtered(1)

    # -- heartbeats ----------------------------------------------------------------
    async def _maybe_heartbeat(self) -> None:
        if self._heartbeat is not None and self.position is not None:
            await self._heartbeat.maybe_emit({"vgtid": self.position})


def heartbeat_value(offset: Mapping[str, Any], now_ms: int) -> tuple[Schema, Any]:
    """Vitess's heartbeat value: the VGTID with the time (io.debezium.connector.vitess.Heartbeat)."""
    return HEARTBEAT_VALUE_SCHEMA, Struct.of(HEARTBEAT_VALUE_SCHEMA, (offset["vgtid"], now_ms))


def _decode(row: Any, binary: tuple[bool, ...], tid: TableId) -> tuple[str | None, ...]:
    """A ROW event's row, which must have as many columns as the table's FIELD event described."""
    lengths = row.lengths
    if len(lengths) != len(binary):
        raise DataError(
            f"The number of columns in the ROW event for {tid} ({len(lengths)}) is different from the in-memory "
            f"table schema ({len(binary)})"
        )
    return row_values(row, binary)
