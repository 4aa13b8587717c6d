"""Exactly once with `transaction.boundary=connector` (issue 19): the PostgreSQL connector ends a Kafka transaction
at the end of every database transaction, so a read_committed reader sees whole source transactions or nothing.

Database transactions of 1-120 rows with batches of at most 50 records (`max.batch.size`), so many span several
batches; the worker is killed with SIGKILL three times meanwhile. Every read_committed read of the topic taken while
this goes on (up to the last stable offset of that moment) must hold each database transaction whole, and the
final topic each row once."""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest
from confluent_kafka import Consumer, TopicPartition

from connect_worker.kafka.reader import read_to_end
from tests.integration.postgres.test_chaos import StreamingWorker, until
from tests.worker_support import exactly_once_worker

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

KILLS = 3


class Loader(threading.Thread):
    """Database transactions numbered 1, 2, … of 1-120 rows, each row naming its transaction and its size."""

    def __init__(self, dsn: str, seed: int) -> None:
        super().__init__(daemon=True)
        self.dsn, self.rnd = dsn, random.Random(seed)
        self.sizes: dict[int, int] = {}
        self.stop_event = threading.Event()

    def run(self) -> None:
        next_id, txn = 1, 1
        with psycopg.connect(self.dsn) as conn:
            while not self.stop_event.is_set():
                n = self.rnd.choice([1, 2, 5, 30, 49, 50, 51, 120])
                with conn.transaction():
                    conn.execute(
                        "INSERT INTO items (id, txn, size) SELECT g, %s, %s FROM generate_series(%s::int, %s::int) g",
                        (txn, n, next_id, next_id + n - 1),
                    )
                self.sizes[txn] = n
                next_id, txn = next_id + n, txn + 1
                time.sleep(0.01)


def rows(bootstrap: str, topic: str) -> list[dict[str, Any]]:
    got = asyncio.run(read_to_end({"bootstrap.servers": bootstrap}, topic, timeout=60))
    return [orjson.loads(r.value)["after"] for r in got if r.value is not None]


def half_transactions(seen: list[dict[str, Any]]) -> dict[int, tuple[int, int]]:
    """The transactions of `seen` that are not whole: txn -> (rows seen, its size)."""
    counts = Counter(r["txn"] for r in seen)
    size = {r["txn"]: r["size"] for r in seen}
    return {t: (c, size[t]) for t, c in counts.items() if c != size[t]}


DDL = "CREATE TABLE items (id int PRIMARY KEY, txn int NOT NULL, size int NOT NULL)"
CONNECTOR_BOUNDARIES = {"exactly.once.support": "required", "transaction.boundary": "connector"}


def test_a_read_committed_reader_sees_whole_database_transactions(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    seed = random.randrange(1 << 30)
    rnd = random.Random(seed)
    extra = {"max.batch.size": "50", "max.queue.size": "400", **CONNECTOR_BOUNDARIES}
    reads: list[int] = []
    eos = exactly_once_worker(unique_name)
    with StreamingWorker(tmp_path, kafka_bootstrap, unique_name, DDL, eos, extra) as worker:
        loader = Loader(worker.dsn, seed)
        try:
            worker.start_load(loader)
            for _ in range(KILLS):
                end = time.monotonic() + rnd.uniform(1.0, 3.0)
                while time.monotonic() < end:  # read_committed reads while the worker streams
                    seen = rows(kafka_bootstrap, worker.topic)
                    assert not half_transactions(seen), f"a reader saw part of a transaction (seed {seed})"
                    reads.append(len(seen))
                worker.kill()
                worker.start()
        finally:
            loader.stop_event.set()
            loader.join(30)
        expected = sum(loader.sizes.values())
        until(lambda: len({r["id"] for r in rows(kafka_bootstrap, worker.topic)}) >= expected, 120, 0.5)
        worker.stop()
        final = rows(kafka_bootstrap, worker.topic)

    ids = Counter(r["id"] for r in final)
    print(f"connector boundaries: {len(loader.sizes)} transactions, {expected} rows, {len(reads)} reads all whole")
    assert not half_transactions(final)
    assert len(ids) == expected and max(ids.values()) == 1, f"each row once (seed {seed})"
    assert len({r["txn"] for r in final}) == len(loader.sizes)


def test_a_stop_inside_a_database_transaction_shows_none_of_it(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    """SIGTERM while a 150,000-row database transaction streams: the stop aborts the Kafka transaction instead of
    committing part of it; the next worker sends it again, whole, and each row once."""
    rows_n = 150_000
    extra = {"max.batch.size": "200", **CONNECTOR_BOUNDARIES}
    eos = exactly_once_worker(unique_name)
    with StreamingWorker(tmp_path, kafka_bootstrap, unique_name, DDL, eos, extra) as worker:
        # read_uncommitted: librdkafka reports a read_committed consumer's end offset as the last stable offset
        watermarks = Consumer(
            {
                "bootstrap.servers": kafka_bootstrap,
                "group.id": f"w-{unique_name}",
                "isolation.level": "read_uncommitted",
            }
        )

        def written() -> int:  # records of every state in the topic: the end offset
            try:
                tp = TopicPartition(worker.topic, 0)
                return int(watermarks.get_watermark_offsets(tp, timeout=5, cached=False)[1])
            except Exception:  # noqa: BLE001 - the topic is not there yet
                return 0

        def first_transaction() -> None:
            with psycopg.connect(worker.dsn, autocommit=True) as conn:
                conn.execute("INSERT INTO items VALUES (0, 1, 1)")

        try:
            worker.start_load(threading.Thread(target=first_transaction))  # a committed offset first
            with psycopg.connect(worker.dsn, autocommit=True) as conn:
                conn.execute("INSERT INTO items SELECT g, 2, %s FROM generate_series(1, %s) g", (rows_n, rows_n))
            until(lambda: written() >= 2_000, 60, 0.05)
            worker.stop()
            seen = rows(kafka_bootstrap, worker.topic)
            assert [r["txn"] for r in seen] == [1], "none of the transaction the stop cut"
            worker.start()
            until(lambda: len(rows(kafka_bootstrap, worker.topic)) >= rows_n + 1, 120, 1)
            worker.stop()
        finally:
            watermarks.close()
        final = rows(kafka_bootstrap, worker.topic)
    ids = Counter(r["id"] for r in final)
    assert len(ids) == rows_n + 1 and max(ids.values()) == 1 and not half_transactions(final)
