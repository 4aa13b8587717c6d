"""kill -9 of a PostgreSQL-streaming worker again and again at random moments under a steady write load (issue 19):
at least once, no committed change is lost; exactly once (`exactly.once.source.support=enabled`), no change is lost
and a read_committed consumer sees none twice. Transactions of 1-12 rows, so kills land inside database
transactions that poll batches split. `CW_CHAOS_KILLS` kills (6 here; `make chaos` runs 100), `CW_CHAOS_SEED`
repeats a run.

Streaming only (`snapshot.mode=no_data`): a snapshot cut short by a crash is taken again from the start, as
Debezium takes it, so its read events can repeat in either mode."""

from __future__ import annotations

import asyncio
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

import orjson
import psycopg
import pytest

from connect_worker.kafka.reader import read_to_end
from tests.integration.postgres.acceptance.pg_harness import create_database, drop_database
from tests.worker_support import (
    EXACTLY_ONCE_CONNECTOR,
    exactly_once_worker,
    free_port,
    postgres_connector,
    worker_properties,
)

pytestmark = [pytest.mark.integration, pytest.mark.timeout(900)]

PG_PORT = int(os.environ.get("CW_PG_PORT", "5433"))
KILLS = int(os.environ.get("CW_CHAOS_KILLS", "6"))


class Loader(threading.Thread):
    """Transactions of 1-12 inserted rows, about 400 rows a second, until stopped; `committed` holds the ids of
    every transaction whose COMMIT returned."""

    def __init__(self, dsn: str, seed: int) -> None:
        super().__init__(daemon=True)
        self.dsn, self.rnd = dsn, random.Random(seed)
        self.committed: list[int] = []
        self.stop_event = threading.Event()

    def run(self) -> None:
        next_id = 1
        with psycopg.connect(self.dsn) as conn:
            while not self.stop_event.is_set():
                n = self.rnd.randint(1, 12)
                ids = list(range(next_id, next_id + n))
                with conn.transaction():
                    conn.execute("INSERT INTO items (id, v) SELECT g, 'v' || g FROM unnest(%s::int[]) g", (ids,))
                self.committed.extend(ids)
                next_id += n
                time.sleep(n / 400)


def slot_active(dsn: str, slot: str) -> bool:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (slot,)).fetchone()
    return bool(row and row[0])


def created_ids(bootstrap: str, topic: str) -> list[int]:
    """The ids of the table topic's create events, in topic order (read_committed)."""
    got = asyncio.run(read_to_end({"bootstrap.servers": bootstrap}, topic, timeout=60))
    out = []
    for r in got:
        if r.value is not None:
            event: dict[str, Any] = orjson.loads(r.value)
            if event["op"] == "c":
                out.append(event["after"]["id"])
    return out


def wait_healthy(proc: subprocess.Popen[bytes], port: int, timeout: float = 60) -> None:
    import httpx

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"worker exited early with {proc.returncode}")
        try:
            if httpx.get(f"http://127.0.0.1:{port}/connectors/pg/status", timeout=1).json()["tasks"][0]["state"] == (
                "RUNNING"
            ):
                return
        except (httpx.HTTPError, KeyError, IndexError, ValueError):
            pass
        time.sleep(0.1)
    raise AssertionError("the worker's task did not run in time")


def worker_files(
    tmp_path: Path, bootstrap: str, name: str, worker_extra: dict[str, str], connector_extra: dict[str, str]
) -> tuple[list[str], int, str]:
    """worker.properties (JSON without schemas) and a streaming-only connector `pg` on database `name`: the command
    that runs them, the REST port and the offsets topic."""
    port = free_port()
    props = worker_properties(bootstrap, name)
    props.update(
        {
            "listeners": f"http://127.0.0.1:{port}",
            "key.converter.schemas.enable": "false",
            "value.converter.schemas.enable": "false",
            **worker_extra,
        }
    )
    connector = {"name": "pg", **postgres_connector(name, PG_PORT, **{"snapshot.mode": "no_data", **connector_extra})}
    (tmp_path / "worker.properties").write_text("".join(f"{k}={v}\n" for k, v in props.items()))
    (tmp_path / "pg.properties").write_text("".join(f"{k}={v}\n" for k, v in connector.items()))
    cmd = [sys.executable, "-m", "connect_worker", str(tmp_path / "worker.properties"), str(tmp_path / "pg.properties")]
    return cmd, port, props["offset.storage.topic"]


class StreamingWorker:
    """Database `name` with `ddl`, and workers streaming it (worker_files), one process at a time, their output in
    worker.log; leaving the block kills a worker still running and drops the database."""

    def __init__(
        self,
        tmp_path: Path,
        bootstrap: str,
        name: str,
        ddl: str,
        worker_extra: dict[str, str],
        connector_extra: dict[str, str],
    ) -> None:
        self.tmp_path, self.bootstrap, self.name, self.ddl = tmp_path, bootstrap, name, ddl
        self.cmd, self.port, self.offsets = worker_files(tmp_path, bootstrap, name, worker_extra, connector_extra)
        self.topic = f"{name}.public.items"
        self.dsn = ""
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> StreamingWorker:
        self.dsn = create_database(PG_PORT, self.name)
        self._log = (self.tmp_path / "worker.log").open("ab")
        try:
            with psycopg.connect(self.dsn, autocommit=True) as conn:
                conn.execute(self.ddl)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        self._log.close()
        drop_database(PG_PORT, self.name)

    def start(self, *, healthy: bool = True) -> None:
        self.proc = subprocess.Popen(self.cmd, stdout=self._log, stderr=subprocess.STDOUT)
        if healthy:
            self.healthy()

    def healthy(self) -> None:
        assert self.proc is not None
        wait_healthy(self.proc, self.port)

    def kill(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        """SIGTERM: the worker must exit cleanly."""
        assert self.proc is not None
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(60) == 0

    def start_load(self, loader: threading.Thread) -> None:
        """A worker, then the slot streaming (a task runs before its slot exists: changes made before it are not
        captured), then the load, then a first committed offset (a worker killed before its first one starts over
        as Debezium does, and with no_data that streams from the database's current position)."""
        self.start()
        until(lambda: slot_active(self.dsn, self.name), 60, 0.1)
        loader.start()
        until(lambda: asyncio.run(read_to_end({"bootstrap.servers": self.bootstrap}, self.offsets)), 60, 0.1)


def until(condition: Callable[[], Any], timeout: float, pause: float) -> None:
    """Wait until `condition()` holds or `timeout` s passed (the caller's assertions say what was missed)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and not condition():
        time.sleep(pause)


@pytest.mark.parametrize("mode", ["exactly-once", "at-least-once"])
def test_kill_9_under_load(kafka_bootstrap: str, unique_name: str, tmp_path: Path, mode: str) -> None:
    seed = int(os.environ.get("CW_CHAOS_SEED", random.randrange(1 << 30)))
    rnd = random.Random(seed)
    worker_extra = {"offset.flush.interval.ms": "500"}
    connector_extra = {}
    if mode == "exactly-once":
        worker_extra.update(exactly_once_worker(unique_name))
        connector_extra.update(EXACTLY_ONCE_CONNECTOR)
    ddl = "CREATE TABLE items (id int PRIMARY KEY, v text)"
    with StreamingWorker(tmp_path, kafka_bootstrap, unique_name, ddl, worker_extra, connector_extra) as worker:
        loader = Loader(worker.dsn, seed)
        try:
            worker.start_load(loader)
            for _ in range(KILLS):
                time.sleep(rnd.uniform(0.2, 2.0))  # in a transaction, a commit, an offsets flush, a start
                worker.kill()
                worker.start(healthy=rnd.random() < 0.5)  # half the kills land while the worker is still starting
        finally:
            loader.stop_event.set()
            loader.join(30)
        worker.healthy()
        expected = loader.committed
        until(lambda: set(expected) <= set(created_ids(kafka_bootstrap, worker.topic)), 120, 1)
        worker.stop()
        got = created_ids(kafka_bootstrap, worker.topic)

    lost = set(expected) - set(got)
    duplicates = len(got) - len(set(got))
    print(f"{mode}: {KILLS} kills (seed {seed}), {len(expected)} rows, {len(got)} create events, {duplicates} twice")
    assert not lost, f"{len(lost)} committed rows lost, e.g. {sorted(lost)[:5]} (seed {seed})"
    assert set(got) == set(expected)
    if mode == "exactly-once":
        assert duplicates == 0, f"a read_committed consumer saw {duplicates} changes twice (seed {seed})"
        assert got == sorted(got), "changes in commit order"
