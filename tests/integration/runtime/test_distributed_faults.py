"""Distributed mode with worker processes on the real Kafka and PostgreSQL: kill -9 of the worker running the
PostgreSQL task under a steady write load (the task runs elsewhere within the session timeout + 10 s; no committed
change is lost, what is repeated is counted), and a worker frozen (SIGSTOP) past its session timeout that must not
produce when it resumes (its task runs elsewhere by then)."""

from __future__ import annotations

import contextlib
import signal
import subprocess
import sys
import time
import uuid
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests import names
from tests.integration.postgres.acceptance.pg_harness import create_database, drop_database
from tests.integration.postgres.test_chaos import PG_PORT, Loader, created_ids, slot_active
from tests.integration.runtime.test_exactly_once import Writer, committed_lines
from tests.worker_support import postgres_connector, worker_properties

pytestmark = [pytest.mark.integration, pytest.mark.timeout(600)]

SESSION_MS = 6000
GROUP = {
    "session.timeout.ms": str(SESSION_MS),
    "heartbeat.interval.ms": "1000",
    "rebalance.timeout.ms": "20000",
    # the departed worker's work moves at once (Connect's default holds it 5 minutes for the worker to come back)
    "scheduled.rebalance.max.delay.ms": "0",
    "key.converter.schemas.enable": "false",
    "value.converter.schemas.enable": "false",
}


class WorkerProcesses:
    """`connect-worker --distributed` processes of one cluster, each with its log file; all killed at the end."""

    def __init__(self, tmp_path: Path, bootstrap: str) -> None:
        self.tmp_path = tmp_path
        self.prefix = names.unique("distp-", 8)
        self.bootstrap = bootstrap
        self.procs: dict[str, subprocess.Popen[bytes]] = {}  # worker id (host:port) -> process
        self._logs: list[Any] = []

    def start(self) -> str:
        props = {**worker_properties(self.bootstrap, self.prefix), **GROUP, "group.id": self.prefix}
        worker_id = props["listeners"].removeprefix("http://")
        path = self.tmp_path / f"worker-{len(self.procs)}.properties"
        path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        log = (self.tmp_path / f"worker-{len(self.procs)}.log").open("ab")
        self._logs.append(log)
        cmd = [sys.executable, "-m", "connect_worker", "--distributed", str(path)]
        self.procs[worker_id] = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT)
        return worker_id

    def url(self, worker_id: str) -> str:
        return f"http://{worker_id}"

    def wait_healthy(self, timeout: float = 60) -> None:
        deadline = time.monotonic() + timeout
        for worker_id, proc in self.procs.items():
            while True:
                assert proc.poll() is None, f"worker {worker_id} exited with {proc.returncode}"
                with contextlib.suppress(httpx.HTTPError):
                    if httpx.get(f"{self.url(worker_id)}/health", timeout=1).status_code == 200:
                        break
                assert time.monotonic() < deadline, f"worker {worker_id} not healthy"
                time.sleep(0.2)

    def any_url(self, *, but: str | None = None) -> str:
        return next(self.url(w) for w, p in self.procs.items() if p.poll() is None and w != but)

    def close(self) -> None:
        for proc in self.procs.values():
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.send_signal(signal.SIGCONT)
                proc.kill()
                proc.wait(10)
        for log in self._logs:
            log.close()


@pytest.fixture
def workers(tmp_path: Path, kafka_bootstrap: str) -> Iterator[WorkerProcesses]:
    w = WorkerProcesses(tmp_path, kafka_bootstrap)
    try:
        yield w
    finally:
        w.close()


def _task_owner(url: str, connector: str, *, but: str | None = None, timeout: float = 60) -> str:
    """The worker id running the connector's task 0 (RUNNING, not `but`), from the status topic."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError, KeyError, IndexError, ValueError):
            task = httpx.get(f"{url}/connectors/{connector}/status", timeout=2).json()["tasks"][0]
            if task["state"] == "RUNNING" and task["worker_id"] != but:
                return str(task["worker_id"])
        time.sleep(0.1)
    raise AssertionError(f"task of {connector} not running (elsewhere than {but}) in time")


def _create(url: str, name: str, config: dict[str, str]) -> None:
    r = httpx.post(f"{url}/connectors", json={"name": name, "config": config}, timeout=60)
    assert r.status_code == 201, r.text


def test_kill_9_of_the_worker_running_the_postgres_task(workers: WorkerProcesses, tmp_path: Path) -> None:
    name = f"distkill_{uuid.uuid4().hex[:6]}"
    dsn = create_database(PG_PORT, name)
    loader = Loader(dsn, seed=20261206)
    try:
        import psycopg

        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE items (id int PRIMARY KEY, v text)")
        for _ in range(3):
            workers.start()
        workers.wait_healthy()
        url = workers.any_url()
        _create(url, "pg", postgres_connector(name, PG_PORT, **{"snapshot.mode": "no_data"}))
        for i in range(2):  # file connectors beside it, so the workers share several connectors and tasks
            source = tmp_path / f"fs{i}.txt"
            source.write_text("a\nb\n")
            _create(url, f"fs{i}", {"connector.class": "FileStreamSource", "file": str(source), "topic": f"{name}-fs"})
        owner = _task_owner(url, "pg")
        deadline = time.monotonic() + 30
        while not slot_active(dsn, name):
            assert time.monotonic() < deadline, "the slot never streamed"
            time.sleep(0.1)
        loader.start()
        topic = f"{name}.public.items"
        time.sleep(3)  # some changes streamed and offsets flushed by the first owner
        before_kill = len(loader.committed)
        workers.procs[owner].send_signal(signal.SIGKILL)
        workers.procs[owner].wait(10)
        killed_at = time.monotonic()
        survivor = workers.any_url(but=owner)
        new_owner = _task_owner(survivor, "pg", but=owner, timeout=SESSION_MS / 1000 + 30)
        # the first change committed after the kill reaches the topic from the new owner
        mark = len(loader.committed)
        deadline = killed_at + SESSION_MS / 1000 + 10
        while True:
            got = set(created_ids(workers.bootstrap, topic))
            if any(i in got for i in loader.committed[mark : mark + 50]):
                break
            assert time.monotonic() < deadline, f"no event from the new owner {new_owner} within session + 10 s"
            time.sleep(0.5)
        failover_s = time.monotonic() - killed_at
        time.sleep(2)
        loader.stop_event.set()
        loader.join(30)
        committed = list(loader.committed)
        deadline = time.monotonic() + 60
        while True:
            ids = created_ids(workers.bootstrap, topic)
            if set(committed) <= set(ids) or time.monotonic() > deadline:
                break
            time.sleep(1)
        lost = set(committed) - set(ids)
        twice = sum(n - 1 for n in Counter(ids).values() if n > 1)
        print(f"failover {failover_s:.1f} s; {len(committed)} rows ({before_kill} before the kill), {twice} twice")
        assert not lost, f"{len(lost)} committed rows lost"
        assert new_owner != owner
    finally:
        loader.stop_event.set()
        workers.close()
        drop_database(PG_PORT, name)


def test_a_frozen_worker_does_not_produce_when_it_resumes(workers: WorkerProcesses, tmp_path: Path) -> None:
    for _ in range(2):
        workers.start()
    workers.wait_healthy()
    source, topic = tmp_path / "lines.txt", f"{workers.prefix}-lines"
    source.touch()
    url = workers.any_url()
    string = "org.apache.kafka.connect.storage.StringConverter"
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic, "value.converter": string}
    _create(url, "fs", config)
    owner = _task_owner(url, "fs")
    writer = Writer(source, 6000)
    writer.start()
    try:
        time.sleep(2)
        frozen = workers.procs[owner]
        frozen.send_signal(signal.SIGSTOP)
        stopped_at_line = writer.written
        survivor = workers.any_url(but=owner)
        _task_owner(survivor, "fs", but=owner, timeout=SESSION_MS / 1000 + 30)
        frozen.send_signal(signal.SIGCONT)  # it resumes after its session expired and its task moved
        writer.join(120)
        time.sleep(5)
        lines = committed_lines(workers.bootstrap, topic)
    finally:
        with contextlib.suppress(ProcessLookupError):
            workers.procs[owner].send_signal(signal.SIGCONT)
    written = source.read_text().splitlines()
    counts = Counter(lines)
    assert not [x for x in written if counts[x.encode()] == 0], "lines lost"
    # every line written after the freeze is in the topic once: the resumed worker produced none of them
    after = written[stopped_at_line + 50 :]
    again = [x for x in after if counts[x.encode()] > 1]
    assert not again, f"{len(again)} lines written after the freeze appear twice (first {again[:3]})"
    log = (tmp_path / f"worker-{list(workers.procs).index(owner)}.log").read_text()
    assert "holds its records until this worker's membership is confirmed" in log or "no longer a member" in log
