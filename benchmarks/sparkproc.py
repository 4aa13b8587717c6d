"""A Spark program run by the benchmark in a process of its own: a session of its own, so that it and its JVM form one
process group, stopped by that group's id (SIGINT first: the query is interrupted and the session stopped); the
machine's busy share and the group's CPU sampled while it runs; its rates and times read from its checkpoints."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks import sinkfiles
from benchmarks.runner import machine_busy
from benchmarks.workers import ROOT


def group_cpu_s(pgid: int, seen: dict[int, float]) -> float:
    """CPU seconds (utime + stime) of the processes of group `pgid`, each at its highest reading so far (`seen`,
    kept by the caller, so that a process that exited still counts with its last reading)."""
    ticks = os.sysconf("SC_CLK_TCK")
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            with open(f"/proc/{entry.name}/stat", encoding="ascii", errors="replace") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[2]) == pgid:
            pid = int(entry.name)
            seen[pid] = max(seen.get(pid, 0.0), (int(fields[11]) + int(fields[12])) / ticks)
    return sum(seen.values())


class SparkProcess:
    """One Spark program (`cmd`) in a session of its own, so that it and its JVM form one process group, stopped by
    that group's id. Samples the machine's and the group's CPU every `interval` s while it runs."""

    def __init__(self, name: str, cmd: list[str], log_path: Path, interval: float = 0.25) -> None:
        self.name = name
        self.cmd = cmd
        self.log_path = log_path
        self.interval = interval
        self.samples: list[sinkfiles.Sample] = []
        self.spawned_at = 0.0
        self.exited_at: float | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._sample, name=f"sample-{name}", daemon=True)

    def _sample(self) -> None:
        assert self._proc is not None
        seen: dict[int, float] = {}
        while True:
            busy, total = machine_busy()
            self.samples.append(sinkfiles.Sample(time.time(), busy, total, group_cpu_s(self._proc.pid, seen)))
            if self._stop.wait(self.interval):
                return

    def start(self) -> None:
        env = {
            **os.environ,
            "PYSPARK_PYTHON": sys.executable,
            "PYSPARK_DRIVER_PYTHON": sys.executable,
            "SPARK_LOCAL_IP": "127.0.0.1",
        }
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        with self.log_path.open("ab") as out:
            self.spawned_at = time.time()
            self._proc = subprocess.Popen(
                self.cmd, stdout=out, stderr=subprocess.STDOUT, cwd=ROOT, env=env, start_new_session=True
            )
        self._thread.start()

    def alive(self) -> bool:
        return self._proc is not None and self._proc.poll() is None

    def wait(self, timeout: float) -> int:
        """Wait for the program to end by itself; stopped and TimeoutError after `timeout` s."""
        assert self._proc is not None
        try:
            rc = self._proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.stop()
            raise TimeoutError(f"{self.name} did not finish in {timeout:.0f} s\n{self.log_tail()}") from None
        self._ended()
        return rc

    def run_to_end(self, timeout: float) -> SparkProcess:
        """Start, wait for the end (stopped whatever happens), RuntimeError with the log's tail unless it exited 0."""
        self.start()
        try:
            rc = self.wait(timeout=timeout)
        finally:
            self.stop()
        if rc != 0:
            raise RuntimeError(f"{self.name} exited with {rc}\n{self.log_tail()}")
        return self

    def stop(self, grace: float = 30.0) -> None:
        """SIGINT (the query is interrupted, the session stopped), then SIGTERM and SIGKILL to the whole group."""
        proc = self._proc
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGINT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(grace)
        if proc.poll() is None:
            self._signal_group(signal.SIGTERM)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(10)
        if proc.poll() is None:
            self._signal_group(signal.SIGKILL)
            proc.wait(10)
        self._ended()

    def _ended(self) -> None:
        if self.exited_at is None:
            self.exited_at = time.time()
        self._stop.set()
        if self._thread.is_alive():
            self._thread.join(5)
        self._reap_group()

    def _signal_group(self, sig: int) -> bool:
        assert self._proc is not None
        try:
            os.killpg(self._proc.pid, sig)
            return True
        except ProcessLookupError:
            return False

    def _reap_group(self) -> None:
        """The JVM exits once its Python driver has; should it linger (or anything else of the group), end it."""
        for sig, wait_s in ((0, 10.0), (signal.SIGTERM, 5.0), (signal.SIGKILL, 5.0)):
            if sig:
                self._signal_group(sig)
            deadline = time.monotonic() + wait_s
            while self._signal_group(0):
                if time.monotonic() > deadline:
                    break
                time.sleep(0.2)
            else:
                return

    def log_tail(self, lines: int = 30) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-lines:])
        except OSError:
            return ""

    def figures(self, checkpoints: Sequence[sinkfiles.Checkpoint], events: int, after: int = -1) -> dict[str, Any]:
        """Rates and times of a query (or several at once) from its checkpoints and this process's samples."""
        window = sinkfiles.query_window(checkpoints, after)
        if window is None:
            raise RuntimeError(f"{self.name}: no batch was committed\n{self.log_tail()}")
        first, last, _ = window
        created = [c.started for c in checkpoints if c.started is not None]
        query_s = max(last - first, 1e-3)
        out: dict[str, Any] = {
            "events": events,
            "queries": len(checkpoints),
            "batches": max(len(c.committed(after)) for c in checkpoints),  # per query: Delta commits per table
            "query_s": round(query_s, 3),
            "events_per_s": round(events / query_s, 1),
            "startup_s": round(min(created) - self.spawned_at, 3) if created else None,
            "created_to_first_batch_s": round(first - min(created), 3) if created else None,
        }
        if self.exited_at is not None:
            out["process_s"] = round(self.exited_at - self.spawned_at, 3)
            out["last_batch_to_exit_s"] = round(self.exited_at - last, 3)
        return {**out, **sinkfiles.window_usage(self.samples, first, last)}
