"""Source positions: where a change happened in the source's log, the only order the sink trusts.

PostgreSQL: `source.lsn` (the change's own WAL position; `sequence[1]` when `lsn` is absent), then the event's
order within its transaction (`transaction.total_order`, 0 without transaction metadata). Kafka offsets are never
compared across partitions and `ts_ms` never at all; within one micro-batch the Kafka (partition, offset) only
breaks exact ties, which is safe because one key always lives in one partition. Pure value type.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

UNKNOWN_LSN = -1


@dataclass(frozen=True, order=True)
class SourcePosition:
    lsn: int
    seq: int = 0

    @property
    def known(self) -> bool:
        return self.lsn != UNKNOWN_LSN

    def __str__(self) -> str:
        return f"{self.lsn}:{self.seq}"


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            return None
    return None


def position_of(source: Mapping[str, Any] | None, transaction: Mapping[str, Any] | None) -> SourcePosition:
    """The position of an event from its `source` and `transaction` blocks (UNKNOWN_LSN when there is none, e.g.
    incremental-snapshot rows: they then sort before every known position)."""
    lsn: int | None = None
    if source:
        lsn = _as_int(source.get("lsn"))
        if lsn is None and isinstance(source.get("sequence"), str):
            try:
                seq = json.loads(source["sequence"])
            except ValueError:
                seq = None
            if isinstance(seq, list) and seq:
                lsn = _as_int(seq[-1])
    order = _as_int(transaction.get("total_order")) if transaction else None
    return SourcePosition(UNKNOWN_LSN if lsn is None else lsn, order or 0)
