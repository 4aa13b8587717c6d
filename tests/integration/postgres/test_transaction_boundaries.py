"""Exactly once with `transaction.boundary=connector` (issue 19): the PostgreSQL connector ends a Kafka transaction
at the end of every database transaction, so a read_committed reader sees whole source transactions or nothing.

Database transactions of 1-120 rows with batches of at most 50 records (`max.batch.size`), so many span several
batches; the worker is killed with SIGKILL three times meanwhile. Every read_committed read of the topic taken while
this goes on (up to the last stable offset of that moment) must hold each database transaction whole, and the
final topic each row once."""

from __future__ import annotations

import asyncio
import random
import signal
import subprocess
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import psycopg
import pytest

from connect_worker.kafka.reader import read_to_end
from tests.integration.postgres.acceptance.pg_harness import create_database, drop_database
from tests.integration.postgres.test_chaos import PG_PORT, start_load, wait_healthy, worker_files
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


def test_a_read_committed_reader_sees_whole_database_transactions(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    seed = random.randrange(1 << 30)
    rnd = random.Random(seed)
    name = unique_name
    dsn = create_database(PG_PORT, name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE items (id int PRIMARY KEY, txn int NOT NULL, size int NOT NULL)")
    connector_extra = {
        "max.batch.size": "50",
        "max.queue.size": "400",
        "exactly.once.support": "required",
        "transaction.boundary": "connector",
    }
    cmd, port, offsets = worker_files(tmp_path, kafka_bootstrap, name, exactly_once_worker(name), connector_extra)
    topic = f"{name}.public.items"
    log = (tmp_path / "worker.log").open("ab")
    loader = Loader(dsn, seed)
    reads: list[int] = []
    proc: subprocess.Popen[bytes] | None = None
    try:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        start_load(proc, port, dsn, name, loader, kafka_bootstrap, offsets)
        for _ in range(KILLS):
            until = time.monotonic() + rnd.uniform(1.0, 3.0)
            while time.monotonic() < until:  # read_committed reads while the worker streams
                seen = rows(kafka_bootstrap, topic)
                assert not half_transactions(seen), f"a reader saw part of a transaction (seed {seed})"
                reads.append(len(seen))
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            wait_healthy(proc, port)
        loader.stop_event.set()
        loader.join(30)
        expected = sum(loader.sizes.values())
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len({r["id"] for r in rows(kafka_bootstrap, topic)}) < expected:
            time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        loader.stop_event.set()
        if proc is not None and proc.poll() is None:
            proc.kill()
        log.close()
        drop_database(PG_PORT, name)

    final = rows(kafka_bootstrap, topic)
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
    from confluent_kafka import Consumer, TopicPartition

    name, rows_n = unique_name, 150_000
    dsn = create_database(PG_PORT, name)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE items (id int PRIMARY KEY, txn int NOT NULL, size int NOT NULL)")
    connector_extra = {"max.batch.size": "200", "exactly.once.support": "required", "transaction.boundary": "connector"}
    cmd, port, offsets = worker_files(tmp_path, kafka_bootstrap, name, exactly_once_worker(name), connector_extra)
    topic = f"{name}.public.items"
    # read_uncommitted: librdkafka reports a read_committed consumer's end offset as the last stable offset
    watermarks = Consumer(
        {"bootstrap.servers": kafka_bootstrap, "group.id": f"w-{name}", "isolation.level": "read_uncommitted"}
    )

    def written() -> int:  # records of every state in the topic: the end offset
        try:
            return int(watermarks.get_watermark_offsets(TopicPartition(topic, 0), timeout=5, cached=False)[1])
        except Exception:  # noqa: BLE001 - the topic is not there yet
            return 0

    class One(threading.Thread):
        def __init__(self) -> None:
            super().__init__(daemon=True)
            self.sizes = {1: 1}
            self.stop_event = threading.Event()

        def run(self) -> None:
            with psycopg.connect(dsn, autocommit=True) as conn:
                conn.execute("INSERT INTO items VALUES (0, 1, 1)")

    log = (tmp_path / "worker.log").open("ab")
    proc: subprocess.Popen[bytes] | None = None
    try:
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        start_load(proc, port, dsn, name, One(), kafka_bootstrap, offsets)  # a committed offset first
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("INSERT INTO items SELECT g, 2, %s FROM generate_series(1, %s) g", (rows_n, rows_n))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and written() < 2_000:
            time.sleep(0.05)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
        seen = rows(kafka_bootstrap, topic)
        assert [r["txn"] for r in seen] == [1], "none of the transaction the stop cut"
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        wait_healthy(proc, port)
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and len(rows(kafka_bootstrap, topic)) < rows_n + 1:
            time.sleep(1)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        watermarks.close()
        if proc is not None and proc.poll() is None:
            proc.kill()
        log.close()
        drop_database(PG_PORT, name)
    final = rows(kafka_bootstrap, topic)
    ids = Counter(r["id"] for r in final)
    assert len(ids) == rows_n + 1 and max(ids.values()) == 1 and not half_transactions(final)
