"""This project's worker, driven exactly like the real Kafka Connect + Debezium worker of debezium.py: same
REST client, same internal-topic names, same scenario. Only start/stop differ (a `connect-worker` process)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass

from tests.differential.debezium import ConnectDebezium, http


@dataclass
class OurWorker(ConnectDebezium):
    """`python -m connect_worker worker.properties`, with the internal topics named as ConnectDebezium's."""

    _proc: subprocess.Popen[bytes] | None = None
    #: another worker's offsets topic to share (the offsets hand-over test), instead of this worker's own
    offsets_from: str | None = None
    #: `--distributed`: a one-worker Connect cluster, set up as devstack/debezium.sh sets up the Java one
    distributed: bool = False

    def properties_lines(self) -> list[str]:
        """worker.properties for this worker: Connect-style internal topics named as ConnectDebezium's."""
        return [
            f"bootstrap.servers={self.kafka_bootstrap}",
            f"listeners=http://127.0.0.1:{self.rest_port}",
            f"group.id={self.group_id}",
            f"offset.storage.topic={self.offsets_from or self.offset_topic}",
            f"config.storage.topic={self.config_topic}",
            f"status.storage.topic={self.status_topic}",
            "offset.storage.replication.factor=1",
            "config.storage.replication.factor=1",
            "status.storage.replication.factor=1",
            f"offset.flush.interval.ms={self.flush_ms}",
            "key.converter=org.apache.kafka.connect.json.JsonConverter",
            "value.converter=org.apache.kafka.connect.json.JsonConverter",
            *(
                [
                    "rest.advertised.host.name=127.0.0.1",
                    f"rest.advertised.port={self.rest_port}",
                    "scheduled.rebalance.max.delay.ms=0",
                ]
                if self.distributed
                else []
            ),
        ]

    def start(self) -> None:
        assert self.run_dir is not None
        self.run_dir.mkdir(parents=True, exist_ok=True)
        props = self.run_dir / "worker.properties"
        props.write_text("\n".join(self.properties_lines()))
        log = self.log_file.open("ab")
        self._proc = subprocess.Popen(
            [sys.executable, "-m", "connect_worker", *(["--distributed"] if self.distributed else []), str(props)],
            stdout=log,
            stderr=subprocess.STDOUT,
        )
        self.pid_file.write_text(str(self._proc.pid))
        self._started = True
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self._proc.poll() is not None:
                raise AssertionError(f"connect-worker exited with {self._proc.returncode}\n{self.log_tail()}")
            with contextlib.suppress(OSError):
                if http("GET", self.url + "/health", timeout=2).status == 200:
                    return
            time.sleep(0.2)
        self.stop()
        raise TimeoutError(f"connect-worker not healthy after {self.start_timeout} s\n{self.log_tail()}")

    def stop(self, timeout: float = 45.0) -> None:
        if self._proc is None:
            return
        if self._proc.poll() is None:
            self._proc.send_signal(signal.SIGTERM)
            try:
                self._proc.wait(timeout)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(10)
        with contextlib.suppress(OSError):
            os.unlink(self.pid_file)
        self._proc = None
        self._started = False
