"""Transaction-consistent mode on the executors: the rule of spark_sink/transactions.py applied to decoded rows.

The records held from earlier micro-batches (raw Kafka records in the state table) are added to the batch's records
before decoding, so they are decoded on the executors with the rest (a record both held and in the batch, as when a
batch is replayed, is taken once). The driver sees only aggregates: per transaction and table the number of distinct
source positions read, and the END records; `decide` picks the transactions to release, and the events of the others
stay held: they are written back to the state table straight from the decoded rows, never collected."""

from __future__ import annotations

from typing import Any

from pyspark.sql import Column, DataFrame
from pyspark.sql import functions as F

from spark_sink.config import SinkConfig, join_path
from spark_sink.decoding.base import RawRecord, TxMarker
from spark_sink.delta import tx_state
from spark_sink.stage.decode import EVENT, MARKER
from spark_sink.transactions import STATE_DIR, decide, say_incomplete, subscribed_collections

KEYS = ["topic", "partition", "offset"]


def waits_for_end() -> Column:
    """Events of a transaction (snapshot reads and events outside transactions are applied at once)."""
    return (F.col("kind") == EVENT) & F.col("tx_id").isNotNull() & (F.col("op") != "r")


class HeldTransactions:
    def __init__(self, spark: Any, config: SinkConfig) -> None:
        self.spark = spark
        self.path = join_path(config.checkpoint, STATE_DIR)
        self.app_id = f"{config.query_name}-tx-state"
        self.subscribed = subscribed_collections(config)
        self._stored_through: int | None = None  # the watermark in the state table
        self._held_before: set[str] = set()  # transactions that were held after the previous batch
        self._next: tuple[DataFrame, int | None] | None = None  # what `commit` writes

    def with_held(self, raw: DataFrame) -> DataFrame:
        """The batch's raw records and the held ones not among them."""
        held, self._stored_through = tx_state.read_frame(self.spark, self.path)
        if held is None:
            return raw
        return raw.unionByName(held.join(raw.select(*KEYS), on=KEYS, how="left_anti"))

    def release(self, decoded: DataFrame) -> tuple[DataFrame, int]:
        """The decoded rows to apply now (held events removed) and how many events stay held. Call `commit` once
        the released rows are applied."""
        pending = waits_for_end()
        read: dict[str, dict[str, int]] = {}  # transaction → table → distinct positions (what completes it)
        rows: dict[str, int] = {}  # transaction → events read (duplicates included: what is held)
        counted = decoded.where(pending).groupBy("tx_id", "source_table")
        for r in counted.agg(F.count_distinct("epoch", "pos", "seq").alias("n"), F.count("*").alias("rows")).collect():
            read.setdefault(r["tx_id"], {})[r["source_table"] or ""] = int(r["n"])
            rows[r["tx_id"]] = rows.get(r["tx_id"], 0) + int(r["rows"])
        ends = decoded.where((F.col("kind") == MARKER) & (F.col("status") == "END"))
        markers = [
            TxMarker(
                RawRecord(r["topic"], r["partition"], r["offset"], None, None, None),
                "END",
                r["tx_id"],
                None,
                dict(r["collections"] or {}),
                r["commit_lsn"],
            )
            for r in ends.select(*KEYS, "tx_id", "collections", "commit_lsn").collect()
        ]
        decision = decide(read, markers, self.subscribed, self._stored_through)
        released = F.col("tx_id").isin(sorted(decision.released)) if decision.released else F.lit(False)
        held_events = pending & ~released
        waiting = sorted({m.tx_id for m in decision.held_markers})
        held_ends = (F.col("kind") == MARKER) & (F.col("status") == "END") & F.col("tx_id").isin(waiting)
        held = decoded.where(held_events | held_ends).select(*tx_state.RAW_COLUMNS)
        self._next = (held, decision.released_through)
        count = sum(n for tx, n in rows.items() if tx not in decision.released)
        if decision.held_markers:
            first = decision.held_markers[0].tx_id
            say_incomplete(first, first in self._held_before, count)
        self._held_before = set(waiting)
        return decoded.where(~held_events), count

    def released_through(self) -> int | None:
        """The commit LSN of the newest transaction released so far, this batch's releases included."""
        return self._stored_through if self._next is None else self._next[1]

    def commit(self, batch_id: int) -> None:
        """Rewrite the state (once per batch id: a replayed batch's rewrite is skipped by Delta)."""
        if self._next is None:
            return
        held, through = self._next
        self._next = None
        tx_state.write_frame(self.spark, self.path, self.app_id, batch_id, held, through)
