"""The two systems under test, started as processes and driven through the same Kafka Connect REST client.

* `OursProcess`: `python -m connect_worker worker.properties` (optionally under `python -m cProfile -o …`).
* `DebeziumProcess`: the real Kafka Connect 4.3.1 + Debezium 3.6.3 of tests/differential/debezium.py
  (devstack/debezium.sh, distributed mode, -Xmx512m), whose PID is the JVM's.

Both record `spawned_at` (wall clock, just before the process is started), so that the time to the first event
can be computed from the broker's LogAppendTime, and both are stopped by their own PID only.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from tests.differential.debezium import SCRIPT, ConnectDebezium, http, reap_orphans
from tests.differential.ours import OurWorker

ROOT = Path(__file__).resolve().parents[1]


def proc_memory_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) of a process in kB, from /proc/<pid>/status; (0, 0) when it is gone."""
    rss = hwm = 0
    try:
        with open(f"/proc/{pid}/status", encoding="ascii", errors="replace") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    rss = int(line.split()[1])
                elif line.startswith("VmHWM:"):
                    hwm = int(line.split()[1])
    except OSError:
        pass
    return rss, hwm


class RssSampler:
    """Samples VmRSS every `interval` s in a thread; `peak_kb` is the highest sample (VmHWM is read as well)."""

    def __init__(self, pid: int, interval: float = 0.25) -> None:
        self.pid = pid
        self.interval = interval
        self.peak_kb = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="rss-sampler", daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            rss, _ = proc_memory_kb(self.pid)
            self.peak_kb = max(self.peak_kb, rss)
            self._stop.wait(self.interval)

    def __enter__(self) -> RssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(5)


def _wait_healthy(url: str, alive: object, timeout: float, poll_s: float = 0.05) -> float:
    """Poll GET /health every `poll_s` until 200; returns the wall time. `alive()` False ⇒ the process died."""
    assert callable(alive)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not alive():
            raise RuntimeError(f"the worker behind {url} exited during start-up")
        with contextlib.suppress(OSError):
            if http("GET", url + "/health", timeout=2).status == 200:
                return time.time()
        time.sleep(poll_s)
    raise TimeoutError(f"{url} not healthy after {timeout} s")


PACKAGES = ("connect_worker", "connectors", "converters", "rest")


def compile_bytecode() -> None:
    """Write the worker's bytecode (`__pycache__`) as an installed wheel or the container image has it. The
    development install is editable and, under PYTHONDONTWRITEBYTECODE, never caches its bytecode, so every start
    would compile the project's modules again: about 0.4 s of the time to the first event, which no deployment
    pays. Python checks each file's mtime, so an edited module is still compiled afresh."""
    import compileall

    for package in PACKAGES:
        if not compileall.compile_dir(str(ROOT / package), quiet=1):
            raise RuntimeError(f"could not compile {package}: a syntax error?")


@dataclasses.dataclass
class OursProcess(OurWorker):
    """This project's worker as a separate process (tests/differential/ours.py), timed and optionally profiled."""

    profile_to: Path | None = None
    spawned_at: float = 0.0
    ready_at: float = 0.0
    extra_properties: tuple[str, ...] = ()  # more worker.properties lines (exactly.once.source.support=enabled)
    distributed: bool = False  # `--distributed`: a member of the Connect cluster group.id

    kind = "ours"

    def _properties(self) -> str:
        return "\n".join([*self.properties_lines(), "producer.acks=all", *self.extra_properties])

    def start(self) -> None:
        assert self.run_dir is not None
        self.run_dir.mkdir(parents=True, exist_ok=True)
        props = self.run_dir / "worker.properties"
        props.write_text(self._properties() + "\n")
        if self.profile_to is not None:
            cmd = [sys.executable, "-m", "benchmarks.profiled_worker", str(self.profile_to), str(props)]
        else:
            cmd = [sys.executable, "-m", "connect_worker", *(["--distributed"] if self.distributed else []), str(props)]
        log = self.log_file.open("ab")
        self.spawned_at = time.time()
        self._proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, cwd=ROOT)
        log.close()
        self.pid_file.write_text(str(self._proc.pid))
        self._started = True
        proc = self._proc
        try:
            self.ready_at = _wait_healthy(self.url, lambda: proc.poll() is None, self.start_timeout)
        except BaseException:
            self.stop()
            raise

    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def profile_start(self) -> None:
        """Switch the cProfile window on (benchmarks.profiled_worker)."""
        assert self._proc is not None and self.profile_to is not None
        self._proc.send_signal(signal.SIGUSR1)

    def profile_stop(self, timeout: float = 30.0) -> None:
        """Switch it off and wait until the statistics file is written."""
        assert self._proc is not None and self.profile_to is not None
        with contextlib.suppress(FileNotFoundError):
            self.profile_to.unlink()
        self._proc.send_signal(signal.SIGUSR2)
        deadline = time.monotonic() + timeout
        while not (self.profile_to.exists() and self.profile_to.stat().st_size > 0):
            if time.monotonic() > deadline:
                raise TimeoutError(f"no profile written to {self.profile_to} in {timeout} s")
            time.sleep(0.1)
        time.sleep(0.5)  # dump_stats writes in one go; let it finish


@dataclasses.dataclass
class DebeziumProcess(ConnectDebezium):
    """The real Kafka Connect + Debezium worker; start-up polled like ours (50 ms), not by the script's 1 s loop."""

    spawned_at: float = 0.0
    ready_at: float = 0.0
    _script: subprocess.Popen[bytes] | None = None

    kind = "debezium"

    def start(self) -> None:
        """Launch devstack/debezium.sh start and return as soon as GET /health answers 200 (the script itself
        only checks every second; it is reaped in stop())."""
        self.fetch()
        reap_orphans(kafka_bootstrap=self.kafka_bootstrap, pg_port=self.pg_port)
        assert self.run_dir is not None
        self.run_dir.mkdir(parents=True, exist_ok=True)
        (self.run_dir / "owner.pid").write_text(str(os.getpid()))
        self._started = True
        self.spawned_at = time.time()
        script = self._script = subprocess.Popen([str(SCRIPT), "start"], env=self._env(), stdout=subprocess.DEVNULL)
        try:
            self.ready_at = _wait_healthy(self.url, lambda: script.poll() in (None, 0), self.start_timeout)
        except BaseException:
            self.stop()
            raise

    def stop(self, timeout: float = 45.0) -> None:
        script, self._script = self._script, None
        if script is not None:
            try:
                script.wait(5)
            except subprocess.TimeoutExpired:  # still in its own readiness loop: the JVM is stopped below
                script.kill()
                script.wait(10)
        super().stop(timeout)


Worker = OursProcess | DebeziumProcess
