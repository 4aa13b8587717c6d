"""Transaction metadata (provide.transaction.metadata): BEGIN/END records on the transaction topic and the
`transaction` block of every data event. The id is the connector's: PostgreSQL's is "<txId>:<LSN of the
message at hand>" (`begin`/`event`/`end`), so BEGIN, events and END of one transaction carry different
suffixes, as Debezium's do; Vitess's is the transaction's VGTID (`begin_record`/`event_block`/`end_record`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from connect_worker.api import SourceRecord, Struct
from connectors.relational import metadata_schemas as md


class TransactionMonitor:
    def __init__(self, *, partition: Mapping[str, Any], topic: str) -> None:
        self._partition = partition
        self._topic = topic
        self._total = 0
        self._per_collection: dict[str, int] = {}
        self._commit_ms = 0

    def _record(self, tx_id: str, value: Struct, offset: Mapping[str, Any]) -> SourceRecord:
        return SourceRecord(
            self._partition,
            offset,
            self._topic,
            None,
            md.TRANSACTION_KEY_SCHEMA,
            md.transaction_key(tx_id),
            md.TRANSACTION_VALUE_SCHEMA,
            value,
        )

    def offset_keys(self, xid: int | str) -> dict[str, Any]:
        """What Debezium adds to the offsets of a transaction's records (so counters survive a restart)."""
        keys: dict[str, Any] = {"transaction_id": str(xid)}
        for name, n in self._per_collection.items():
            keys["transaction_data_collection_order_" + name] = n
        return keys

    def start(self) -> None:
        self._total = 0
        self._per_collection = {}

    def restore(self, per_collection: Iterable[tuple[str, int]]) -> None:
        """Resume an open transaction from the counts stored in its last committed offset (Debezium's
        TransactionContext.load): the total is the sum of the per-collection counts."""
        self._per_collection = dict(per_collection)
        self._total = sum(self._per_collection.values())

    def resume(self, commit_us: int) -> None:
        """The BEGIN of a transaction resumed after a restart: its BEGIN record was already emitted."""
        self._commit_ms = commit_us // 1000

    def begin(self, xid: int, lsn: int, commit_us: int, offset: Mapping[str, Any]) -> SourceRecord:
        return self.begin_record(f"{xid}:{lsn}", commit_us // 1000, offset)

    def event(self, xid: int | None, lsn: int, data_collection: str) -> Struct:
        return self.event_block(f"{xid}:{lsn}", data_collection)

    def end(self, xid: int, lsn: int, offset: Mapping[str, Any]) -> SourceRecord:
        return self.end_record(f"{xid}:{lsn}", offset)

    def begin_record(self, tx_id: str, commit_ms: int, offset: Mapping[str, Any]) -> SourceRecord:
        self._commit_ms = commit_ms
        return self._record(tx_id, md.transaction_begin_value(tx_id, commit_ms), offset)

    def event_block(self, tx_id: str, data_collection: str) -> Struct:
        self._total += 1
        n = self._per_collection.get(data_collection, 0) + 1
        self._per_collection[data_collection] = n
        return md.event_block(tx_id, self._total, n)

    def end_record(self, tx_id: str, offset: Mapping[str, Any]) -> SourceRecord:
        value = md.transaction_end_value(tx_id, self._commit_ms, self._total, self._per_collection)
        return self._record(tx_id, value, offset)
