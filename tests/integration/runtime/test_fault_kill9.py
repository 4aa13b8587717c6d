"""kill -9 of the worker loses nothing: a new worker resumes from the last committed offsets. What can be
duplicated is exactly what was sent after the last offsets flush."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from connect_worker.kafka.reader import read_to_end

from .test_cli import free_port, wait_http, write_worker_props

pytestmark = pytest.mark.integration

LINES = 3000


def lines_in(bootstrap: str, topic: str) -> list[bytes]:
    got = asyncio.run(read_to_end({"bootstrap.servers": bootstrap}, topic))
    return [r.value or b"" for r in got]


def test_kill_9_then_restart_loses_nothing(kafka_bootstrap: str, unique_name: str, tmp_path: Path) -> None:
    port = free_port()
    worker = tmp_path / "worker.properties"
    write_worker_props(worker, kafka_bootstrap, unique_name, port)
    # flush offsets often so a kill lands between flushes with some records sent but not committed
    worker.write_text(worker.read_text().replace("offset.flush.interval.ms=600000", "offset.flush.interval.ms=300"))
    source = tmp_path / "in.txt"
    topic = f"{unique_name}-lines"
    connector = tmp_path / "fs.properties"
    connector.write_text(f"name=fs\nconnector.class=FileStreamSource\nfile={source}\ntopic={topic}\nbatch.size=50\n")
    expected = [f"line-{i}".encode() for i in range(LINES)]
    source.write_text("".join(f"line-{i}\n" for i in range(LINES // 2)))

    cmd = [sys.executable, "-m", "connect_worker", str(worker), str(connector)]
    first = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}", first)
        with source.open("a") as f:  # more lines while it runs
            for i in range(LINES // 2, LINES):
                f.write(f"line-{i}\n")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and len(lines_in(kafka_bootstrap, topic)) < LINES // 2:
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
        first.wait(10)
    finally:
        if first.poll() is None:
            first.kill()

    second = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_http(f"http://127.0.0.1:{port}", second)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and set(lines_in(kafka_bootstrap, topic)) != set(expected):
            time.sleep(0.3)
        second.send_signal(signal.SIGTERM)
        assert second.wait(60) == 0
    finally:
        if second.poll() is None:
            second.kill()

    got = lines_in(kafka_bootstrap, topic)
    # got = what the first run sent (expected[:a]) + the replay from the committed position (expected[k:])
    a = next((i for i, (g, e) in enumerate(zip(got, expected, strict=False)) if g != e), min(len(got), LINES))
    k = expected.index(got[a]) if a < len(got) else LINES
    assert k <= a, "the replay started after a line the first run had not sent: a line was lost"
    assert got[a:] == expected[k:], "after the kill the stream must continue in order from the committed position"
    assert set(got) == set(expected)
    print(f"kill -9: {a - k} lines sent again (sent after the last offsets flush), none lost")
