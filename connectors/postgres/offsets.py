"""PostgreSQL source offsets, in Debezium 3.6's format (PostgresOffsetContext).

Streaming: {"lsn_proc","messageType","lsn_commit","lsn","txId","ts_usec"} (+ "transaction_id" and
"transaction_data_collection_order_<schema.table>" with provide.transaction.metadata, kept on the END
record). Snapshot records: {"last_snapshot_record","lsn","txId","ts_usec","snapshot":"INITIAL",
"snapshot_completed"}, the last one with both flags true. Pre-3.x offsets wrote `snapshot: true`; both
forms are read.

As in Debezium, `lsn` is the position of the last event emitted and `lsn_proc` the last *completely processed*
one; they differ for a transactional logical message (its `lsn_proc` stays at the event before it). A restart
skips the events of the partly emitted transaction up to and including `lsn`, like Debezium's WalPositionLocator.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any


@dataclasses.dataclass(frozen=True, slots=True)
class StoredPosition:
    """What a restart needs from the last committed offset."""

    lsn: int | None
    lsn_proc: int | None
    lsn_commit: int | None
    tx_id: int | None
    message_type: str | None
    snapshot_in_progress: bool
    ts_usec: int
    # provide.transaction.metadata: the open transaction's per-collection event counts (Debezium's
    # TransactionContext.load), so total_order/data_collection_order continue after a restart
    transaction_id: str | None = None
    transaction_orders: tuple[tuple[str, int], ...] = ()

    @classmethod
    def from_offset(cls, offset: Mapping[str, Any] | None) -> StoredPosition | None:
        if not offset:
            return None
        snap = offset.get("snapshot")
        # an initial snapshot in progress (incremental and blocking ones are streaming positions: Debezium's
        # isInitialSnapshotRunning, and `true` from pre-3.x offsets)
        in_snapshot = (
            snap is not None
            and str(snap).lower() in ("initial", "true")
            and offset.get("snapshot_completed") not in (True, "true")
        )
        lsn = _int(offset.get("lsn"))
        lsn_proc = _int(offset.get("lsn_proc"))
        commit = _int(offset.get("lsn_commit"))
        return cls(
            lsn=lsn,
            lsn_proc=lsn_proc if lsn_proc is not None else lsn,
            lsn_commit=commit if commit is not None else lsn_proc,
            tx_id=_int(offset.get("txId")),
            message_type=offset.get("messageType"),
            snapshot_in_progress=in_snapshot,
            ts_usec=_int(offset.get("ts_usec")) or 0,
            transaction_id=None if offset.get("transaction_id") is None else str(offset["transaction_id"]),
            transaction_orders=tuple(
                (k[len(_ORDER_PREFIX) :], n)
                for k, v in offset.items()
                if k.startswith(_ORDER_PREFIX) and (n := _int(v)) is not None
            ),
        )

    @property
    def resume_lsn(self) -> int | None:
        """Where to ask the server to start: the last commit fully processed, else the last position."""
        return self.lsn_commit if self.lsn_commit is not None else self.lsn

    def in_transaction(self, xid: int | None) -> bool:
        """True when the stored position lies inside transaction `xid` (its BEGIN was already emitted)."""
        return xid is not None and self.message_type not in (None, "COMMIT") and xid == self.tx_id

    def already_emitted(self, xid: int | None, lsn: int) -> bool:
        """True for events of the partly processed transaction that were emitted before the stop.

        A stored BEGIN emitted none of them: its LSN is the one of the transaction's first change."""
        last = self.lsn if self.lsn is not None else self.lsn_proc
        if last is None or self.message_type == "BEGIN" or not self.in_transaction(xid):
            return False
        return lsn <= last

    def offset(self) -> dict[str, Any]:
        """The stored offset again, in Debezium's form (what a heartbeat carries before any new event)."""
        if self.message_type is None:  # right after a snapshot (or no_data): Debezium's {lsn, txId, ts_usec}
            out: dict[str, Any] = {}
            if self.lsn is not None:
                out["lsn"] = self.lsn
            if self.tx_id is not None:
                out["txId"] = self.tx_id
            out["ts_usec"] = self.ts_usec
            return out
        return streaming_offset(
            lsn=self.lsn if self.lsn is not None else 0,
            lsn_proc=self.lsn_proc,
            lsn_commit=self.lsn_commit,
            tx_id=self.tx_id,
            ts_usec=self.ts_usec,
            message_type=self.message_type,
        )


_ORDER_PREFIX = "transaction_data_collection_order_"


def _int(v: Any) -> int | None:
    if v is None or isinstance(v, bool):
        return None
    try:
        return int(v)
    except (TypeError, ValueError):
        return None


def streaming_offset(
    *,
    lsn: int,
    lsn_commit: int | None,
    tx_id: int | None,
    ts_usec: int,
    message_type: str,
    lsn_proc: int | None = None,
) -> dict[str, Any]:
    """A streaming offset; `lsn_proc` (last completely processed LSN) defaults to `lsn`."""
    out: dict[str, Any] = {"lsn_proc": lsn if lsn_proc is None else lsn_proc, "messageType": message_type}
    if lsn_commit is not None:
        out["lsn_commit"] = lsn_commit
    out["lsn"] = lsn
    if tx_id is not None:
        out["txId"] = tx_id
    out["ts_usec"] = ts_usec
    return out


def snapshot_offset(*, lsn: int, tx_id: int, ts_usec: int, last: bool) -> dict[str, Any]:
    """The offset of a snapshot record; the last one marks the snapshot completed (what real Debezium 3.6.3
    stores, captured by the differential harness: the spec's `{"lsn","txId","ts_usec"}` is not it)."""
    return {
        "last_snapshot_record": last,
        "lsn": lsn,
        "txId": tx_id,
        "ts_usec": ts_usec,
        "snapshot": "INITIAL",
        "snapshot_completed": last,
    }
