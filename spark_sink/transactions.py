"""Transaction-consistent mode: change events are held until their whole transaction has arrived.

The transaction topic (`<prefix>.transaction`, provide.transaction.metadata=true) carries one END record per
transaction, in commit order, with per-table event counts. A transaction is complete when, for every table of its END
record that this job subscribes to, that many distinct events (distinct source positions: a worker restart may send
an event twice) have been read. Complete transactions are released in END order up to the first incomplete one, so
at every batch boundary the tables reflect a prefix of the source's commit order (Delta has no multi-table commit:
inside one batch the tables are updated one MERGE after another). Events without a `transaction` block (snapshot
reads, events written before transaction metadata was enabled) are released at once.

Re-sent transactions: after a worker restart the connector may send a transaction again, END included, possibly only
its tail. The sink keeps the commit LSN (the suffix of the END id, "<txId>:<lsn>") of the newest transaction it
released; an END at or below it is a duplicate: whatever events of it are held are released (the position guard makes
them no-ops) and it never blocks later transactions.

State between micro-batches (held raw records and that watermark) lives in a small Delta table inside the query's
checkpoint directory, so a new checkpoint starts with a new state. It is rewritten at the END of a batch, after every
table has been applied, and only once per batch id (Delta `txnAppId`/`txnVersion`):
- a batch that fails before the rewrite is replayed from the previous state and the same Kafka records, so it
  releases exactly the same events again (idempotent under the position guard);
- a batch replayed after the rewrite (killed before Spark committed it) reads the new state plus its own records,
  a subset of its first input, so it re-releases at most what was already applied, and its rewrite is skipped.
The release rule itself is pure (`release_complete`).
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from spark_sink.config import SinkConfig, join_path
from spark_sink.decoding.base import ChangeEvent, RawRecord, TxMarker
from spark_sink.position import SourcePosition

log = logging.getLogger("spark_sink")
STATE_DIR = "sink_tx_state"
Coordinates = tuple[str, int, int]


def coordinates(raw: RawRecord) -> Coordinates:
    return (raw.topic, raw.partition, raw.offset)


@dataclass(frozen=True)
class Release:
    released: list[ChangeEvent]
    held_events: list[ChangeEvent]
    held_markers: list[TxMarker]
    released_through: int | None  # commit LSN of the newest transaction released so far


def is_complete(end: TxMarker, events: Iterable[ChangeEvent], subscribed: Callable[[str], bool]) -> bool:
    positions: dict[str, set[SourcePosition]] = defaultdict(set)
    for e in events:
        positions[e.source_table or ""].add(e.position)
    return all(len(positions[c]) >= n for c, n in end.data_collections.items() if subscribed(c))


def release_complete(
    events: Sequence[ChangeEvent],
    markers: Sequence[TxMarker],
    subscribed: Callable[[str], bool],
    released_through: int | None = None,
) -> Release:
    """Pure: split events into released ones (outside transactions, of complete transactions up to the first
    incomplete END, or of re-sent transactions already released) and held ones. `subscribed(collection)` tells
    which `schema.table` this job reads; `released_through` is the watermark kept from earlier batches."""
    by_tx: dict[str, dict[Coordinates, ChangeEvent]] = defaultdict(dict)
    released: list[ChangeEvent] = []
    for e in events:
        if e.tx_id is None or e.op == "r":
            released.append(e)
        else:
            by_tx[e.tx_id][coordinates(e.raw)] = e
    ends: dict[str, TxMarker] = {}
    for m in sorted((m for m in markers if m.status == "END"), key=lambda m: (m.raw.partition, m.raw.offset)):
        ends.setdefault(m.tx_id, m)  # a re-sent END of a transaction still held: the first one stands for both
    held_markers: list[TxMarker] = []
    through = released_through
    blocked = False
    for end in ends.values():
        if through is not None and end.commit_lsn is not None and end.commit_lsn <= through:
            released.extend(by_tx.pop(end.tx_id, {}).values())  # re-sent: already applied once
        elif not blocked and is_complete(end, by_tx.get(end.tx_id, {}).values(), subscribed):
            released.extend(by_tx.pop(end.tx_id, {}).values())
            if end.commit_lsn is not None:
                through = end.commit_lsn if through is None else max(through, end.commit_lsn)
        else:
            blocked = True
            held_markers.append(end)
    held = [e for group in by_tx.values() for e in group.values()]
    return Release(sorted(released, key=lambda e: e.order), held, held_markers, through)


@dataclass(frozen=True)
class TxState:
    held: tuple[RawRecord, ...] = ()
    released_through: int | None = None

    def same_as(self, other: TxState) -> bool:
        return self.released_through == other.released_through and {coordinates(r) for r in self.held} == {
            coordinates(r) for r in other.held
        }


class TransactionBuffer:
    """Keeps what `release_complete` holds back between micro-batches (in memory and in the state table)."""

    def __init__(self, spark: Any, config: SinkConfig) -> None:
        self.spark = spark
        self.config = config
        self.path = join_path(config.checkpoint, STATE_DIR)
        self.app_id = f"{config.query_name}-tx-state"
        topic = config.transaction_topic or ""
        self.prefix = topic[: -len(".transaction")] if topic.endswith(".transaction") else topic.rsplit(".", 1)[0]
        self._state: TxState | None = None  # what the state table holds (None: not read yet)
        self._next: TxState | None = None  # the state after the batch being processed

    def subscribed(self, collection: str) -> bool:
        topic = f"{self.prefix}.{collection}"
        if self.config.topic_pattern:
            return re.fullmatch(self.config.topic_pattern, topic) is not None
        return topic in self.config.topics

    def state(self) -> TxState:
        if self._state is None:
            from spark_sink.delta import tx_state

            held, through = tx_state.read(self.spark, self.path)
            self._state = TxState(tuple(held), through)
        return self._state

    def release(
        self, events: list[ChangeEvent], markers: list[TxMarker], decode: Callable[[RawRecord], object]
    ) -> tuple[list[ChangeEvent], int]:
        """The events to apply in this batch and how many stay held. Call `commit` once they are applied."""
        state = self.state()
        seen = {coordinates(e.raw) for e in events} | {coordinates(m.raw) for m in markers}
        events, markers = list(events), list(markers)
        for raw in state.held:
            if coordinates(raw) in seen:  # a replayed batch: the record is in the batch and in the state
                continue
            decoded = decode(raw)
            if isinstance(decoded, ChangeEvent):
                events.append(decoded)
            elif isinstance(decoded, TxMarker):
                markers.append(decoded)
        result = release_complete(events, markers, self.subscribed, state.released_through)
        held = tuple([e.raw for e in result.held_events] + [m.raw for m in result.held_markers])
        self._next = TxState(held, result.released_through)
        if result.held_markers:
            first = result.held_markers[0]
            again = coordinates(first.raw) in {coordinates(r) for r in state.held}
            # a transaction whose events never arrive (started from `latest`, data deleted by retention, events
            # filtered out before Kafka) holds everything after it: say so at every batch
            (log.warning if again else log.info)(
                "transaction %s is %sincomplete: %d events of it and of later transactions are held",
                first.tx_id,
                "still " if again else "",
                len(result.held_events),
            )
        return result.released, len(result.held_events)

    def released_through(self) -> int | None:
        """The commit LSN of the newest transaction released so far, this batch's releases included."""
        return (self._next or self.state()).released_through

    def commit(self, batch_id: int) -> None:
        """Persist the state after the batch (only if it changed; a replayed batch's rewrite is skipped by Delta)."""
        from spark_sink.delta import tx_state

        new = self._next
        self._next = None
        if new is None or new.same_as(self.state()):
            return
        tx_state.write(self.spark, self.path, self.app_id, batch_id, new.held, new.released_through)
        self._state = None  # re-read: Delta may have skipped the write (replayed batch id)
