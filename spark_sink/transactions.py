"""Transaction-consistent mode: change events are held until their whole transaction has arrived.

The transaction topic (`<prefix>.transaction`, provide.transaction.metadata=true) carries one END record per
transaction with per-table event counts. A transaction is complete when, for every table of the END record this
job subscribes to, all its events have been read. Complete transactions are released in END order up to the first
incomplete one, so the tables only ever reflect a prefix of the source's commit order at batch boundaries (Delta has
no multi-table commit: within one batch the tables are updated one MERGE after another). Events outside any
transaction (snapshot reads) are released at once.

Held records persist in a Delta table (`<warehouse>/_cdc_tx_pending`) rewritten each batch. A replayed batch reads
records that may also be in that table; they are de-duplicated by Kafka coordinates. The release rule is pure
(`release_complete`).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from spark_sink.config import SinkConfig
from spark_sink.decoding.base import ChangeEvent, RawRecord, TxMarker


@dataclass(frozen=True)
class Release:
    released: list[ChangeEvent]
    held_events: list[ChangeEvent]
    held_markers: list[TxMarker]


def release_complete(
    events: Sequence[ChangeEvent], markers: Sequence[TxMarker], subscribed: Callable[[str], bool]
) -> Release:
    """Pure: split events into released (outside transactions, or of complete transactions up to the first
    incomplete END) and held ones. `subscribed(collection)` tells which `schema.table` this job reads."""
    by_tx: dict[str, dict[tuple[str, int, int], ChangeEvent]] = defaultdict(dict)
    released: list[ChangeEvent] = []
    for e in events:
        if e.tx_id is None or e.op == "r":
            released.append(e)
        else:
            by_tx[e.tx_id][(e.raw.topic, e.raw.partition, e.raw.offset)] = e
    ends = sorted(
        {(m.raw.partition, m.raw.offset): m for m in markers if m.status == "END"}.values(),
        key=lambda m: (m.raw.partition, m.raw.offset),
    )
    held_markers: list[TxMarker] = []
    blocked = False
    for end in ends:
        got = by_tx.get(end.tx_id, {})
        counts: dict[str, int] = defaultdict(int)
        for e in got.values():
            counts[e.source_table or ""] += 1
        complete = all(counts[c] >= n for c, n in end.data_collections.items() if subscribed(c))
        if complete and not blocked:
            released.extend(by_tx.pop(end.tx_id, {}).values())
        else:
            blocked = True
            held_markers.append(end)
    held = [e for group in by_tx.values() for e in group.values()]
    released.sort(key=lambda e: e.order)
    return Release(released, held, held_markers)


class TransactionBuffer:
    """Persists what `release_complete` holds back between micro-batches."""

    def __init__(self, spark: object, config: SinkConfig) -> None:
        self.spark = spark
        self.config = config
        self.path = str(Path(config.warehouse) / "_cdc_tx_pending")
        topic = config.transaction_topic or ""
        self.prefix = topic[: -len(".transaction")] if topic.endswith(".transaction") else topic.rsplit(".", 1)[0]

    def subscribed(self, collection: str) -> bool:
        topic = f"{self.prefix}.{collection}"
        if self.config.topic_pattern:
            return re.fullmatch(self.config.topic_pattern, topic) is not None
        return topic in self.config.topics

    def release(
        self, batch_id: int, events: list[ChangeEvent], markers: list[TxMarker], decode: Callable[[RawRecord], object]
    ) -> tuple[list[ChangeEvent], int]:
        from spark_sink.delta import pending

        seen = {(e.raw.topic, e.raw.partition, e.raw.offset) for e in events}
        seen |= {(m.raw.topic, m.raw.partition, m.raw.offset) for m in markers}
        for raw in pending.read(self.spark, self.path):
            if (raw.topic, raw.partition, raw.offset) in seen:
                continue
            decoded = decode(raw)
            if isinstance(decoded, ChangeEvent):
                events.append(decoded)
            elif isinstance(decoded, TxMarker):
                markers.append(decoded)
        result = release_complete(events, markers, self.subscribed)
        keep = [e.raw for e in result.held_events] + [m.raw for m in result.held_markers]
        pending.write(self.spark, self.path, self.config.query_name, batch_id, keep)
        return result.released, len(result.held_events)
