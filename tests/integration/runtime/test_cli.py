"""The `connect-worker` command as a user runs it: a real process, files on disk, signals."""

from __future__ import annotations

import asyncio
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from connect_worker.kafka.reader import read_to_end

pytestmark = pytest.mark.integration

CLI = [sys.executable, "-m", "connect_worker"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def write_worker_props(path: Path, bootstrap: str, prefix: str, port: int) -> None:
    path.write_text(
        "\n".join(
            [
                f"bootstrap.servers={bootstrap}",
                f"listeners=http://127.0.0.1:{port}",
                f"offset.storage.topic={prefix}-offsets",
                f"config.storage.topic={prefix}-configs",
                f"status.storage.topic={prefix}-status",
                "offset.storage.replication.factor=1",
                "config.storage.replication.factor=1",
                "status.storage.replication.factor=1",
                # a long interval: only the final flush at SIGTERM can commit the offsets
                "offset.flush.interval.ms=600000",
                "key.converter=org.apache.kafka.connect.storage.StringConverter",
                "value.converter=org.apache.kafka.connect.storage.StringConverter",
            ]
        )
    )


def wait_http(url: str, proc: subprocess.Popen[bytes], timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"worker exited early with {proc.returncode}")
        try:
            if httpx.get(url + "/health", timeout=1).json().get("status") == "healthy":
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise AssertionError("worker did not become healthy")


def test_standalone_cli_runs_connector_files_and_flushes_on_sigterm(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    port = free_port()
    worker = tmp_path / "worker.properties"
    write_worker_props(worker, kafka_bootstrap, unique_name, port)
    source = tmp_path / "in.txt"
    source.write_text("a\nb\nc\n")
    connector = tmp_path / "fs.properties"
    connector.write_text(
        f"name=fs\nconnector.class=FileStreamSource\ntasks.max=1\nfile={source}\ntopic={unique_name}-lines\n"
    )
    proc = subprocess.Popen([*CLI, str(worker), str(connector)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        url = f"http://127.0.0.1:{port}"
        wait_http(url, proc)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            got = asyncio.run(read_to_end({"bootstrap.servers": kafka_bootstrap}, f"{unique_name}-lines"))
            if len(got) == 3:
                break
            time.sleep(0.3)
        assert [r.value for r in got] == [b"a", b"b", b"c"]
        proc.send_signal(signal.SIGTERM)
        output, _ = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, output.decode()
    offsets = asyncio.run(read_to_end({"bootstrap.servers": kafka_bootstrap}, f"{unique_name}-offsets"))
    assert [(r.key, r.value) for r in offsets] == [(f'["fs",{{"filename":"{source}"}}]'.encode(), b'{"position":6}')]


def test_unreachable_kafka_is_one_clear_error(tmp_path: Path) -> None:
    worker = tmp_path / "worker.properties"
    write_worker_props(worker, f"127.0.0.1:{free_port()}", "x", free_port())
    env = {**os.environ}
    proc = subprocess.run([*CLI, str(worker)], capture_output=True, timeout=120, env=env)
    assert proc.returncode == 1
    assert b"Cannot reach Kafka at 127.0.0.1:" in proc.stderr


def test_bad_worker_config_exits_2(tmp_path: Path) -> None:
    worker = tmp_path / "worker.properties"
    worker.write_text("offset.flush.interval.ms=soon\n")
    proc = subprocess.run([*CLI, str(worker)], capture_output=True, timeout=60)
    assert proc.returncode == 2
    assert b"Invalid value soon for configuration offset.flush.interval.ms" in proc.stderr
    missing = subprocess.run([*CLI, str(tmp_path / "nope.properties")], capture_output=True, timeout=60)
    assert missing.returncode == 2
    assert b"No such file or directory" in missing.stderr
