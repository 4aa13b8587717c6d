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
The release rule itself is pure: `decide`, on per-transaction counts (the job, spark_sink/stage/transactions.py);
`release_complete` states the same rule over events, for the unit tests.
"""

from __future__ import annotations

import logging
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from spark_sink.config import SinkConfig
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


TxCounts = Mapping[str, Mapping[str, int]]  # transaction id → collection → distinct source positions read


@dataclass(frozen=True)
class Decision:
    released: frozenset[str]  # transactions whose events are applied now (complete, or re-sent and already applied)
    held_markers: list[TxMarker]  # END records of the transactions that wait, in commit order
    released_through: int | None


def decide(
    counts: TxCounts,
    markers: Iterable[TxMarker],
    subscribed: Callable[[str], bool],
    released_through: int | None = None,
) -> Decision:
    """Pure: which transactions to release, from how many distinct events of each were read per collection and the
    END records (BEGIN records are ignored). Complete transactions go in END order up to the first incomplete one;
    an END at or below `released_through` is a re-sent transaction, released as a no-op, never blocking."""
    ends: dict[str, TxMarker] = {}
    for m in sorted((m for m in markers if m.status == "END"), key=lambda m: (m.raw.partition, m.raw.offset)):
        ends.setdefault(m.tx_id, m)  # a re-sent END of a transaction still held: the first one stands for both
    released: set[str] = set()
    held_markers: list[TxMarker] = []
    through = released_through
    blocked = False
    for end in ends.values():
        read = counts.get(end.tx_id, {})
        if through is not None and end.commit_lsn is not None and end.commit_lsn <= through:
            released.add(end.tx_id)  # re-sent: already applied once
        elif not blocked and all(read.get(c, 0) >= n for c, n in end.data_collections.items() if subscribed(c)):
            released.add(end.tx_id)
            if end.commit_lsn is not None:
                through = end.commit_lsn if through is None else max(through, end.commit_lsn)
        else:
            blocked = True
            held_markers.append(end)
    return Decision(frozenset(released), held_markers, through)


def waits_for_end(e: ChangeEvent) -> bool:
    """Whether an event waits for its transaction's END (snapshot reads and events outside transactions do not)."""
    return e.tx_id is not None and e.op != "r"


def release_complete(
    events: Sequence[ChangeEvent],
    markers: Sequence[TxMarker],
    subscribed: Callable[[str], bool],
    released_through: int | None = None,
) -> Release:
    """Pure: split events into released ones (outside transactions, of complete transactions up to the first
    incomplete END, or of re-sent transactions already released) and held ones (`decide`). `subscribed(collection)`
    tells which `schema.table` this job reads; `released_through` is the watermark kept from earlier batches."""
    by_tx: dict[str, dict[Coordinates, ChangeEvent]] = defaultdict(dict)
    released: list[ChangeEvent] = []
    for e in events:
        if waits_for_end(e):
            by_tx[e.tx_id or ""][coordinates(e.raw)] = e
        else:
            released.append(e)
    counts: dict[str, dict[str, int]] = {}
    for tx, group in by_tx.items():
        positions: dict[str, set[SourcePosition]] = defaultdict(set)
        for e in group.values():
            positions[e.source_table or ""].add(e.position)
        counts[tx] = {c: len(p) for c, p in positions.items()}
    decision = decide(counts, markers, subscribed, released_through)
    for tx in decision.released:
        released.extend(by_tx.pop(tx, {}).values())
    held = [e for group in by_tx.values() for e in group.values()]
    return Release(sorted(released, key=lambda e: e.order), held, decision.held_markers, decision.released_through)


def say_incomplete(tx_id: str, again: bool, held_events: int) -> None:
    """A transaction whose events never arrive (started from `latest`, data deleted by retention, events filtered
    out before Kafka) holds everything after it: said at every batch, as a warning from the second on."""
    (log.warning if again else log.info)(
        "transaction %s is %sincomplete: %d events of it and of later transactions are held",
        tx_id,
        "still " if again else "",
        held_events,
    )


def subscribed_collections(config: SinkConfig) -> Callable[[str], bool]:
    """Whether the job reads a `schema.table` of the transaction topic's connector (its topic prefix)."""
    topic = config.transaction_topic or ""
    prefix = topic[: -len(".transaction")] if topic.endswith(".transaction") else topic.rsplit(".", 1)[0]

    def subscribed(collection: str) -> bool:
        name = f"{prefix}.{collection}"
        if config.topic_pattern:
            return re.fullmatch(config.topic_pattern, name) is not None
        return name in config.topics

    return subscribed
