"""Exactly-once source delivery (KIP-618) against real Kafka: a worker process killed with SIGKILL again and again
at random moments while its source grows. With `exactly.once.source.support=enabled` a read_committed consumer
sees every line exactly once and in order; at least once, every line at least once (what is sent again is what
followed the last offsets flush). `CW_CHAOS_KILLS` sets the number of kills (`make chaos` runs 100)."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from confluent_kafka import OFFSET_BEGINNING, Consumer, TopicPartition

from connect_worker.kafka.reader import read_to_end

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
        _, high = consumer.get_watermark_offsets(tp, timeout=10)
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


@pytest.mark.parametrize("mode", ["exactly-once", "at-least-once"])
def test_kill_9_again_and_again(kafka_bootstrap: str, unique_name: str, tmp_path: Path, mode: str) -> None:
    seed = int(os.environ.get("CW_CHAOS_SEED", random.randrange(1 << 30)))
    rnd = random.Random(seed)
    port = free_port()
    worker = tmp_path / "worker.properties"
    write_worker_props(worker, kafka_bootstrap, unique_name, port)
    props = worker.read_text().replace("offset.flush.interval.ms=600000", "offset.flush.interval.ms=200")
    if mode == "exactly-once":
        props += f"\nexactly.once.source.support=enabled\ngroup.id={unique_name}\n"
    worker.write_text(props)
    source = tmp_path / "in.txt"
    source.touch()
    topic = f"{unique_name}-lines"
    connector = tmp_path / "fs.properties"
    extra = "exactly.once.support=required\ntransaction.boundary=poll\n" if mode == "exactly-once" else ""
    connector.write_text(
        f"name=fs\nconnector.class=FileStreamSource\nfile={source}\ntopic={topic}\nbatch.size=40\n{extra}"
    )
    total = int(RATE * (KILLS * 1.2 + 2))
    expected = [f"line-{i}".encode() for i in range(total)]
    cmd = [sys.executable, "-m", "connect_worker", str(worker), str(connector)]
    log = (tmp_path / "worker.log").open("ab")
    writer = Writer(source, total)
    writer.start()
    proc: subprocess.Popen[bytes] | None = None
    try:
        for _ in range(KILLS):
            proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
            wait_http(f"http://127.0.0.1:{port}", proc)
            time.sleep(rnd.uniform(0.1, 1.5))  # a random moment: in a transaction, a commit, an offsets flush
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        writer.join(120)
        proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        wait_http(f"http://127.0.0.1:{port}", proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(set(committed_lines(kafka_bootstrap, topic))) < total:
            time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
        log.close()

    got = committed_lines(kafka_bootstrap, topic)
    in_topic = uncommitted_count(kafka_bootstrap, topic)
    print(f"{mode}: {KILLS} kills (seed {seed}), {total} lines, {len(got)} read_committed, {in_topic} in the topic")
    assert set(got) == set(expected), f"lost: {len(set(expected) - set(got))} lines (seed {seed})"
    if mode == "exactly-once":
        assert got == expected, f"a read_committed consumer must see each line once, in order (seed {seed})"
        assert in_topic >= len(got)
    else:
        # each run continues in order from the committed position: duplicates only, and never a gap
        assert len(got) >= total


def test_interval_boundaries_survive_kills_too(kafka_bootstrap: str, unique_name: str, tmp_path: Path) -> None:
    """transaction.boundary=interval: a transaction per 300 ms whatever the batches; kill -9 three times."""
    port = free_port()
    worker = tmp_path / "worker.properties"
    write_worker_props(worker, kafka_bootstrap, unique_name, port)
    worker.write_text(worker.read_text() + f"\nexactly.once.source.support=enabled\ngroup.id={unique_name}\n")
    source, topic = tmp_path / "in.txt", f"{unique_name}-lines"
    source.touch()
    connector = tmp_path / "fs.properties"
    connector.write_text(
        f"name=fs\nconnector.class=FileStreamSource\nfile={source}\ntopic={topic}\nbatch.size=40\n"
        "transaction.boundary=interval\ntransaction.boundary.interval.ms=300\n"
    )
    total = RATE * 8
    cmd = [sys.executable, "-m", "connect_worker", str(worker), str(connector)]
    writer = Writer(source, total)
    writer.start()
    proc: subprocess.Popen[bytes] | None = None
    try:
        for _ in range(3):
            proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            wait_http(f"http://127.0.0.1:{port}", proc)
            time.sleep(1.2)
            proc.send_signal(signal.SIGKILL)
            proc.wait(10)
        writer.join(60)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_http(f"http://127.0.0.1:{port}", proc)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(committed_lines(kafka_bootstrap, topic)) < total:
            time.sleep(0.5)
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(60) == 0
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
    assert committed_lines(kafka_bootstrap, topic) == [f"line-{i}".encode() for i in range(total)]


def test_a_second_worker_fences_the_first_ones_task(kafka_bootstrap: str, unique_name: str, tmp_path: Path) -> None:
    """A zombie: worker A still runs when worker B starts the same connector (same group.id, same internal topics).
    B's task registers the same transactional id, which fences A's producer: A's next commit fails and its task
    stops; B goes on from the committed offsets, and a read_committed reader sees every line once."""
    ports = free_port(), free_port()
    files = []
    for name, port in zip("ab", ports, strict=True):
        worker = tmp_path / f"worker-{name}.properties"
        write_worker_props(worker, kafka_bootstrap, unique_name, port)
        worker.write_text(worker.read_text() + f"\nexactly.once.source.support=enabled\ngroup.id={unique_name}\n")
        files.append(worker)
    source, topic = tmp_path / "in.txt", f"{unique_name}-lines"
    source.touch()
    connector = tmp_path / "fs.properties"
    connector.write_text(f"name=fs\nconnector.class=FileStreamSource\nfile={source}\ntopic={topic}\nbatch.size=40\n")
    total = RATE * 6
    writer = Writer(source, total)
    procs: list[subprocess.Popen[bytes]] = []
    try:
        for worker, port in zip(files, ports, strict=True):
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-m", "connect_worker", str(worker), str(connector)],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
            wait_http(f"http://127.0.0.1:{port}", procs[-1])
            if len(procs) == 1:
                writer.start()
                time.sleep(1.5)
        writer.join(60)

        def task_of(port: int) -> dict[str, str]:
            import httpx

            return dict(httpx.get(f"http://127.0.0.1:{port}/connectors/fs/status", timeout=5).json()["tasks"][0])

        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(committed_lines(kafka_bootstrap, topic)) < total:
            time.sleep(0.5)
        fenced, running = task_of(ports[0]), task_of(ports[1])
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
    assert committed_lines(kafka_bootstrap, topic) == [f"line-{i}".encode() for i in range(total)]


@pytest.mark.parametrize("boundary", ["interval", "poll"])
def test_a_pause_commits_the_open_transaction(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path, boundary: str
) -> None:
    """Paused, the task commits what its open transaction holds instead of leaving it to time out; resumed, it goes
    on: every line once, and the lines sent before the pause readable while it lasts."""
    import httpx

    port = free_port()
    worker = tmp_path / "worker.properties"
    write_worker_props(worker, kafka_bootstrap, unique_name, port)
    worker.write_text(worker.read_text() + f"\nexactly.once.source.support=enabled\ngroup.id={unique_name}\n")
    source, topic = tmp_path / "in.txt", f"{unique_name}-lines"
    source.write_text("".join(f"line-{i}\n" for i in range(500)))
    connector = tmp_path / "fs.properties"
    connector.write_text(
        f"name=fs\nconnector.class=FileStreamSource\nfile={source}\ntopic={topic}\n"
        # an interval longer than the test: only the pause can end the first transaction
        f"transaction.boundary={boundary}\ntransaction.boundary.interval.ms=600000\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "connect_worker", str(worker), str(connector)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}/connectors/fs"
    try:
        wait_http(f"http://127.0.0.1:{port}", proc)
        time.sleep(2)  # the 500 lines sent, in one open transaction with interval boundaries
        assert httpx.put(f"{url}/pause", timeout=10).status_code == 202
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(committed_lines(kafka_bootstrap, topic)) < 500:
            time.sleep(0.3)
        assert len(committed_lines(kafka_bootstrap, topic)) == 500, "the pause committed the open transaction"
        with source.open("a") as f:
            f.write("".join(f"line-{i}\n" for i in range(500, 800)))
        time.sleep(1)
        assert httpx.put(f"{url}/resume", timeout=10).status_code == 202
        time.sleep(2)
        proc.send_signal(signal.SIGTERM)  # a graceful stop commits the rest
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
    assert committed_lines(kafka_bootstrap, topic) == [f"line-{i}".encode() for i in range(800)]
