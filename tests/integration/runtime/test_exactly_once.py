"""Exactly-once source delivery (KIP-618) against real Kafka: a worker process killed with SIGKILL again and again
at random moments while its source grows. With `exactly.once.source.support=enabled` a read_committed consumer
sees every line exactly once and in order; at least once, every line at least once (what is sent again is what
followed the last offsets flush). `CW_CHAOS_KILLS` sets the number of kills (`make chaos` runs 100)."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import os
import random
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from connect_worker.kafka.reader import read_to_end, watermarks

from .test_cli import free_port, wait_http, write_worker_props

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

KILLS = int(os.environ.get("CW_CHAOS_KILLS", "6"))
RATE = 1500  # lines appended per second while the worker is killed and started again


def committed_lines(bootstrap: str, topic: str) -> list[bytes]:
    return [r.value or b"" for r in asyncio.run(read_to_end({"bootstrap.servers": bootstrap}, topic))]


def uncommitted_count(bootstrap: str, topic: str) -> int:
    """Records of every state in the topic (read_uncommitted): committed, aborted, and markers excluded."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"count-{topic}", "isolation.level": "read_uncommitted"}
    )
    try:
        tp = TopicPartition(topic, 0, OFFSET_BEGINNING)
        _, high = watermarks(consumer, tp, 10)
        consumer.assign([tp])
        n = 0
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            batch = consumer.consume(10000, 0.5)
            n += sum(1 for m in batch if m.error() is None)
            if consumer.position([TopicPartition(topic, 0)])[0].offset >= high:
                break
        return n
    finally:
        consumer.close()


class Writer(threading.Thread):
    """Appends `total` lines to the source file at RATE lines per second, then stops."""

    def __init__(self, path: Path, total: int) -> None:
        super().__init__(daemon=True)
        self.path, self.total, self.written = path, total, 0

    def run(self) -> None:
        started = time.monotonic()
        with self.path.open("a") as f:
            while self.written < self.total:
                due = min(self.total, int((time.monotonic() - started) * RATE) + 1)
                f.write("".join(f"line-{i}\n" for i in range(self.written, due)))
                f.flush()
                self.written = due
                time.sleep(0.01)


@dataclasses.dataclass(frozen=True)
class FileSource:
    """A worker.properties and a FileStreamSource connector `fs` appending `in.txt` to `<name>-lines`."""

    cmd: list[str]
    port: int
    source: Path
    topic: str

    def start(self, log: Any = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
        """The worker process, once its REST API answers."""
        proc = subprocess.Popen(self.cmd, stdout=log, stderr=subprocess.STDOUT)
        wait_http(f"http://127.0.0.1:{self.port}", proc)
        return proc


def file_source(
    tmp_path: Path,
    bootstrap: str,
    name: str,
    *,
    exactly_once: bool,
    connector_extra: str = "",
    flush_ms: int = 200,
    worker_file: str = "worker.properties",
) -> FileSource:
    """The files of a FileSource (several workers on one connector: one `worker_file` each, the same topics)."""
    port = free_port()
    worker = tmp_path / worker_file
    write_worker_props(worker, bootstrap, name, port)
    props = worker.read_text().replace("offset.flush.interval.ms=600000", f"offset.flush.interval.ms={flush_ms}")
    if exactly_once:
        props += f"\nexactly.once.source.support=enabled\ngroup.id={name}\n"
    worker.write_text(props)
    source, topic = tmp_path / "in.txt", f"{name}-lines"
    source.touch()
    connector = tmp_path / "fs.properties"
    connector.write_text(
        f"name=fs\nconnector.class=FileStreamSource\nfile={source}\ntopic={topic}\nbatch.size=40\n{connector_extra}"
    )
    return FileSource([sys.executable, "-m", "connect_worker", str(worker), str(connector)], port, source, topic)


def kill_while_writing(
    fs: FileSource, bootstrap: str, total: int, kills: int, pause: Callable[[], float], log: Any = subprocess.DEVNULL
) -> None:
    """While a Writer appends `total` lines: start a worker, SIGKILL it after `pause()` s, `kills` times; then a last
    worker until every line is in the topic (read_committed), stopped with SIGTERM."""
    writer = Writer(fs.source, total)
    writer.start()
    proc: subprocess.Popen[bytes] | None = None
    try:
        for _ in range(kills):
            proc = fs.start(log)
            time.sleep(pause())
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        writer.join(120)
        proc = fs.start(log)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(set(committed_lines(bootstrap, fs.topic))) < total:
            time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()


def lines(n: int) -> list[bytes]:
    return [f"line-{i}".encode() for i in range(n)]


@pytest.mark.parametrize("mode", ["exactly-once", "at-least-once"])
def test_kill_9_again_and_again(kafka_bootstrap: str, unique_name: str, tmp_path: Path, mode: str) -> None:
    seed = int(os.environ.get("CW_CHAOS_SEED", random.randrange(1 << 30)))
    rnd = random.Random(seed)
    extra = "exactly.once.support=required\ntransaction.boundary=poll\n" if mode == "exactly-once" else ""
    fs = file_source(tmp_path, kafka_bootstrap, unique_name, exactly_once=mode == "exactly-once", connector_extra=extra)
    total = int(RATE * (KILLS * 1.2 + 2))
    with (tmp_path / "worker.log").open("ab") as log:
        # a random moment: in a transaction, a commit, an offsets flush
        kill_while_writing(fs, kafka_bootstrap, total, KILLS, lambda: rnd.uniform(0.1, 1.5), log)

    got = committed_lines(kafka_bootstrap, fs.topic)
    in_topic = uncommitted_count(kafka_bootstrap, fs.topic)
    print(f"{mode}: {KILLS} kills (seed {seed}), {total} lines, {len(got)} read_committed, {in_topic} in the topic")
    assert set(got) == set(lines(total)), f"lost: {len(set(lines(total)) - set(got))} lines (seed {seed})"
    if mode == "exactly-once":
        assert got == lines(total), f"a read_committed consumer must see each line once, in order (seed {seed})"
    else:
        # each run continues in order from the committed position: a step forward is always the next line (no
        # gap), a step back is a restart sending again what followed its last offsets flush
        numbers = [int(line.split(b"-")[1]) for line in got]
        assert numbers[0] == 0 and all(b == a + 1 or b <= a for a, b in itertools.pairwise(numbers)), seed


def test_interval_boundaries_survive_kills_too(kafka_bootstrap: str, unique_name: str, tmp_path: Path) -> None:
    """transaction.boundary=interval: a transaction per 300 ms whatever the batches; kill -9 three times."""
    extra = "transaction.boundary=interval\ntransaction.boundary.interval.ms=300\n"
    fs = file_source(tmp_path, kafka_bootstrap, unique_name, exactly_once=True, connector_extra=extra)
    total = RATE * 8
    kill_while_writing(fs, kafka_bootstrap, total, 3, lambda: 1.2)
    assert committed_lines(kafka_bootstrap, fs.topic) == lines(total)


def test_a_second_worker_fences_the_first_ones_task(kafka_bootstrap: str, unique_name: str, tmp_path: Path) -> None:
    """A zombie: worker A still runs when worker B starts the same connector (same group.id, same internal topics).
    B's task registers the same transactional id, which fences A's producer: A's next commit fails and its task
    stops; B goes on from the committed offsets, and a read_committed reader sees every line once."""
    a, b = (
        file_source(tmp_path, kafka_bootstrap, unique_name, exactly_once=True, worker_file=f"worker-{w}.properties")
        for w in "ab"
    )
    total = RATE * 6
    writer = Writer(a.source, total)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        procs.append(a.start())
        writer.start()
        time.sleep(1.5)
        procs.append(b.start())
        writer.join(60)

        def task_of(port: int) -> dict[str, str]:
            return dict(httpx.get(f"http://127.0.0.1:{port}/connectors/fs/status", timeout=5).json()["tasks"][0])

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(committed_lines(kafka_bootstrap, a.topic)) < total:
            time.sleep(0.5)
        fenced, running = task_of(a.port), task_of(b.port)
        for proc in procs:
            proc.send_signal(signal.SIGTERM)
        for proc in procs:
            proc.wait(60)
    finally:
        for proc in procs:
            if proc.poll() is None:
                proc.kill()
    assert fenced["state"] == "FAILED" and "fenced" in fenced["trace"].lower(), fenced
    assert running["state"] == "RUNNING", running
    assert committed_lines(kafka_bootstrap, a.topic) == lines(total)


@pytest.mark.parametrize("boundary", ["interval", "poll"])
def test_a_pause_commits_the_open_transaction(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path, boundary: str
) -> None:
    """Paused, the task commits what its open transaction holds instead of leaving it to time out; resumed, it goes
    on: every line once, and the lines sent before the pause readable while it lasts (with poll boundaries each
    batch has committed already: the pause and resume must change nothing)."""
    # an interval longer than the test: only the pause can end the first transaction
    extra = f"transaction.boundary={boundary}\ntransaction.boundary.interval.ms=600000\n"
    fs = file_source(tmp_path, kafka_bootstrap, unique_name, exactly_once=True, connector_extra=extra)
    fs.source.write_text("".join(f"line-{i}\n" for i in range(500)))
    proc = fs.start()
    url = f"http://127.0.0.1:{fs.port}/connectors/fs"
    try:
        time.sleep(2)  # the 500 lines sent, in one open transaction with interval boundaries
        assert httpx.put(f"{url}/pause", timeout=10).status_code == 202
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(committed_lines(kafka_bootstrap, fs.topic)) < 500:
            time.sleep(0.3)
        assert len(committed_lines(kafka_bootstrap, fs.topic)) == 500, "the pause committed the open transaction"
        with fs.source.open("a") as f:
            f.write("".join(f"line-{i}\n" for i in range(500, 800)))
        time.sleep(1)
        assert httpx.put(f"{url}/resume", timeout=10).status_code == 202
        time.sleep(2)
        proc.send_signal(signal.SIGTERM)  # a graceful stop commits the rest
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert committed_lines(kafka_bootstrap, fs.topic) == lines(800)
