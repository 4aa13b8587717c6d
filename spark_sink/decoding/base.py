"""What decoders produce. Pure frozen values."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from spark_sink.frozen import cached_hash
from spark_sink.position import SourcePosition
from spark_sink.types.model import SinkType


@dataclass(frozen=True)
class RawRecord:
    topic: str
    partition: int
    offset: int
    key: bytes | None
    value: bytes | None
    timestamp_ms: int | None = None


@dataclass(frozen=True)
class RowSchema:
    """The columns of a table as one Connect row schema describes them, in source column order."""

    columns: tuple[tuple[str, SinkType], ...]
    name: str | None = None

    __hash__ = cached_hash  # (it keys the decode stage's caches: looked up per record)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(n for n, _ in self.columns)

    def type_of(self, name: str) -> SinkType | None:
        for n, t in self.columns:
            if n == name:
                return t
        return None


@dataclass(frozen=True)
class ChangeEvent:
    """One data change (op c/u/d/r) or truncate (op t, no key, no row)."""

    raw: RawRecord
    op: str
    key: Mapping[str, Any] | None  # None: a truncate, or a table without a primary key
    row: Mapping[str, Any] | None  # `after` for c/u/r, `before` (often key columns only) for d; key merged in
    schema: RowSchema
    position: SourcePosition
    unavailable: frozenset[str] = frozenset()  # columns carrying the unchanged-TOAST placeholder
    # columns filled from an earlier event of the batch (unchanged TOAST) → that event's position: the MERGE keeps
    # the table's value instead when the table is already at or past it (the earlier event was a replay)
    carried: Mapping[str, SourcePosition] = field(default_factory=dict)
    source_ts_ms: int | None = None
    source_table: str | None = None  # "schema.table" of the source block
    tx_id: str | None = None  # the txId part of the `transaction` block's id (None: no transaction block)
    typed: bool = True  # False for schemaless JSON (types inferred)
    before: Mapping[str, Any] | None = None  # keyless tables' updates: the whole old row (REPLICA IDENTITY FULL)
    snapshot: str | None = None  # `source.snapshot` (true, first, last, incremental, false …)

    @property
    def keyless(self) -> bool:
        """A change of a table without a primary key: the whole row is its identity."""
        return self.key is None and self.op != "t"

    @property
    def tiebreak(self) -> tuple[int, int]:
        return (self.raw.partition, self.raw.offset)

    @property
    def order(self) -> tuple[int, int, int, int, int]:
        """Position, then Kafka coordinates: only meaningful between events of one key (same partition)."""
        p = self.position
        return (p.epoch, p.major, p.seq, self.raw.partition, self.raw.offset)


@dataclass(frozen=True)
class Skipped:
    """A record with nothing to apply: tombstone, heartbeat, logical message."""

    raw: RawRecord
    reason: str


@dataclass(frozen=True)
class TxMarker:
    """A transaction-topic record (BEGIN/END)."""

    raw: RawRecord
    status: str
    tx_id: str  # the txId part of "<txId>:<lsn>"
    event_count: int | None
    data_collections: Mapping[str, int] = field(default_factory=dict)
    commit_lsn: int | None = None  # the LSN part of "<txId>:<lsn>" (PostgreSQL, YugabyteDB: monotonic in commit order)


@dataclass(frozen=True)
class DecodeFailure:
    raw: RawRecord
    reason: str


Decoded = ChangeEvent | Skipped | TxMarker | DecodeFailure


class Decoder(Protocol):
    def decode(self, record: RawRecord) -> Decoded: ...
