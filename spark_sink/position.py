"""Source positions: where a change happened in the source's log, the only order the sink trusts.

A position is `(epoch, major, seq)`, compared in that order, and only ever between events of one key:
- PostgreSQL (`source.connector = "postgresql"`): major = `source.lsn`, the change's own WAL position (the last
  element of `source.sequence` when `lsn` is absent: incremental-snapshot rows carry the stream's LSN only there);
  seq = `transaction.total_order` (0 without transaction metadata: every change has its own LSN anyway).
- YugabyteDB (`"YugabyteDB"`): major = `source.lsn`; on a `HYBRID_TIME` slot every record of a transaction carries
  the commit's hybrid time, so without `transaction.total_order` the order inside a transaction is unknown.
- Vitess (`"vitess"`): one key lives in one shard, so the shard's own GTID set orders its events: major = the sum of
  the last sequence number of each member of the shard's GTID set in `source.vgtid` (Debezium's
  `transaction_rank`; it grows by one per transaction), epoch = `transaction.transaction_epoch` when the ordered
  transaction-metadata factory sends it (it rises when a failover drops a server uuid from the set), seq =
  `transaction.total_order`. Resharding moves keys to shards whose GTID sets are not comparable with the old ones.
- Oracle (`"oracle"`): major = `source.commit_scn` (the change's own `scn` for snapshot reads), seq =
  `transaction.total_order`.
- Anything else: `source.lsn` when there is one.

`seq = UNKNOWN_ORDER` (-1) says the order inside the transaction is unknown. Two events at the same (epoch, major)
then both count as newer than each other: a replayed transaction is applied again in its Kafka order, so the row
can step back inside the replay and ends where the source ended (see `newer_than`). An event whose position cannot
be derived at all gets a `PositionError` (the sink dead-letters it or fails, never guesses). Pure value types.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

UNKNOWN_ORDER = -1


class PositionError(ValueError):
    """The event's source block does not say where it happened."""


@dataclass(frozen=True, order=True)
class SourcePosition:
    epoch: int
    major: int
    seq: int

    def newer_than(self, other: SourcePosition) -> bool:
        """The guard's rule: strictly later, or at the same place in a transaction whose internal order is unknown."""
        if (self.epoch, self.major) != (other.epoch, other.major):
            return (self.epoch, self.major) > (other.epoch, other.major)
        return self.seq > other.seq or self.seq == UNKNOWN_ORDER

    def __str__(self) -> str:
        return f"{self.epoch}:{self.major}:{self.seq}"


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


def _order(transaction: Mapping[str, Any] | None, default: int) -> int:
    order = _as_int(transaction.get("total_order")) if transaction else None
    return default if order is None else order


def _lsn(source: Mapping[str, Any]) -> int | None:
    lsn = _as_int(source.get("lsn"))
    if lsn is None and isinstance(source.get("sequence"), str):
        try:
            seq = json.loads(source["sequence"])
        except ValueError:
            seq = None
        if isinstance(seq, list) and seq:
            lsn = _as_int(seq[-1])
    return lsn


def _postgres(source: Mapping[str, Any], transaction: Mapping[str, Any] | None) -> SourcePosition:
    lsn = _lsn(source)
    if lsn is None:
        raise PositionError("the source block has neither `lsn` nor `sequence`")
    return SourcePosition(0, lsn, _order(transaction, 0))


def _yugabytedb(source: Mapping[str, Any], transaction: Mapping[str, Any] | None) -> SourcePosition:
    lsn = _lsn(source)
    if lsn is None:
        raise PositionError("the source block has neither `lsn` nor `sequence`")
    return SourcePosition(0, lsn, _order(transaction, UNKNOWN_ORDER))


_MYSQL_MEMBER = re.compile(r"^[0-9A-Fa-f-]+(?::\d+(?:-\d+)?)+$")  # uuid:1-5:7-9
_MARIADB_MEMBER = re.compile(r"^\d+-\d+-(\d+)$")  # domain-server-sequence


def gtid_rank(gtid: str) -> int:
    """The sum over the members of a GTID set of each member's last sequence number: Vitess's `transaction_rank`
    (MySQL `uuid:1-5:7-N`, MariaDB `domain-server-N`; a flavor prefix such as `MySQL56/` is dropped)."""
    head = gtid.split(":", 1)[0]
    text = gtid.split("/", 1)[1] if "/" in head else gtid
    if not text.strip():
        raise PositionError(f"the GTID set {gtid!r} is empty")
    total = 0
    for member in (m.strip() for m in text.split(",")):
        mariadb = _MARIADB_MEMBER.match(member)
        if mariadb:
            total += int(mariadb.group(1))
        elif _MYSQL_MEMBER.match(member):
            total += int(member.rsplit(":", 1)[1].rsplit("-", 1)[-1])
        else:
            raise PositionError(f"{member!r} is not a GTID set member")
    return total


def _vitess(source: Mapping[str, Any], transaction: Mapping[str, Any] | None) -> SourcePosition:
    shard, keyspace, vgtid = source.get("shard"), source.get("keyspace"), source.get("vgtid")
    if not isinstance(vgtid, str) or not shard:
        raise PositionError("a Vitess source block needs `shard` and `vgtid`")
    rank = _as_int(transaction.get("transaction_rank")) if transaction else None
    epoch = _as_int(transaction.get("transaction_epoch")) if transaction else None
    if rank is None:
        rank = shard_rank(vgtid, str(keyspace), str(shard))
    return SourcePosition(epoch or 0, rank, _order(transaction, UNKNOWN_ORDER))


@functools.lru_cache(maxsize=256)
def shard_rank(vgtid: str, keyspace: str, shard: str) -> int:
    """The rank of one shard's GTID set in a VGTID (JSON). Cached: every event of a transaction carries the same
    VGTID text."""
    try:
        shard_gtids = json.loads(vgtid)
    except ValueError as e:
        raise PositionError(f"`vgtid` is not JSON: {e}") from None
    if not isinstance(shard_gtids, list):
        raise PositionError("`vgtid` is not a list of shard GTIDs")
    gtid = next(
        (
            g.get("gtid")
            for g in shard_gtids
            if isinstance(g, Mapping) and g.get("shard") == shard and g.get("keyspace", keyspace) == keyspace
        ),
        None,
    )
    if not isinstance(gtid, str) or gtid in ("", "current"):
        raise PositionError(f"`vgtid` has no GTID set for shard {keyspace}/{shard}")
    return gtid_rank(gtid)


def _oracle(source: Mapping[str, Any], transaction: Mapping[str, Any] | None) -> SourcePosition:
    scn = _as_int(source.get("commit_scn"))
    if scn is None:
        scn = _as_int(source.get("scn"))
    if scn is None:
        raise PositionError("an Oracle source block needs `commit_scn` or `scn`")
    return SourcePosition(0, scn, _order(transaction, UNKNOWN_ORDER))


def _generic(source: Mapping[str, Any], transaction: Mapping[str, Any] | None) -> SourcePosition:
    lsn = _lsn(source)
    if lsn is None:
        raise PositionError(f"connector {source.get('connector')!r}: the sink knows no position in its source block")
    return SourcePosition(0, lsn, _order(transaction, UNKNOWN_ORDER))


POSITIONS = {
    "postgresql": _postgres,
    "yugabytedb": _yugabytedb,
    "vitess": _vitess,
    "oracle": _oracle,
}


def position_of(source: Mapping[str, Any] | None, transaction: Mapping[str, Any] | None) -> SourcePosition:
    """The position of an event from its `source` and `transaction` blocks; PositionError when there is none."""
    if not source:
        raise PositionError("the event has no source block")
    connector = str(source.get("connector") or "").lower()
    return POSITIONS.get(connector, _generic)(source, transaction)


def transaction_id(value: Any) -> tuple[str, int | None]:
    """A transaction block's / boundary record's `id` → (transaction id, commit LSN or None). PostgreSQL and
    YugabyteDB write `"<txId>:<lsn>"`; Vitess writes the transaction's VGTID (JSON), an id as a whole."""
    text = str(value)
    if text.startswith("["):
        return text, None
    tx, _, lsn = text.partition(":")
    return tx, int(lsn) if lsn.isdigit() else None
