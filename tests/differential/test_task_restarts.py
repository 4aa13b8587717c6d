"""Differential: which REST requests restart a running task, on the REAL Kafka Connect 4.3.1 + Debezium 3.6.3.Final
and on this worker (standalone and `--distributed`).

A Debezium PostgreSQL task holds one replication connection for as long as it runs, so the replication slot's
`active_pid` tells whether a request restarted the task: a restart closes that connection (the slot goes inactive
or another backend holds it). Connect restarts only what changed: a legacy `POST /restart` restarts the
connector alone, an update that leaves the generated task configs (and the connector config they came from) as
they were leaves the tasks running, a pause and resume neither stops nor starts them; an update that changes
them, `?includeTasks=true` and a task restart start them again. Each worker runs the same steps on its own
database and slot; the sequences of answers and of restarts must be equal: Connect's distributed worker and
this worker's `--distributed` mode, Connect's standalone worker (ConnectStandalone) and this worker's default
mode.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import psycopg
import pytest

from tests.differential.debezium import (
    ConnectDebezium,
    delete_topics,
    postgres_connector_config,
    scratch_database,
    unique_token,
)
from tests.differential.ours import OurWorker

pytestmark = [pytest.mark.integration, pytest.mark.debezium, pytest.mark.timeout(900)]

NAME = "restarts"
#: how long a step has to show a restart (Connect's distributed herder restarts tasks asynchronously)
WINDOW_S = 6.0
#: label -> the requests of the step, each (method, path, changes to the config or None for no body); a PUT
#: sends the whole config with the changes, a PATCH the changes only
STEPS: list[tuple[str, list[tuple[str, str, dict[str, str] | None]]]] = [
    ("legacy restart", [("POST", f"/connectors/{NAME}/restart", None)]),
    ("only failed, none failed", [("POST", f"/connectors/{NAME}/restart?includeTasks=true&onlyFailed=true", None)]),
    ("same config", [("PUT", f"/connectors/{NAME}/config", {})]),
    ("patch to the same values", [("PATCH", f"/connectors/{NAME}/config", {"poll.interval.ms": "500"})]),
    ("pause and resume", [("PUT", f"/connectors/{NAME}/pause", None), ("PUT", f"/connectors/{NAME}/resume", None)]),
    ("changed config", [("PUT", f"/connectors/{NAME}/config", {"poll.interval.ms": "750"})]),
    ("changed back", [("PUT", f"/connectors/{NAME}/config", {"poll.interval.ms": "500"})]),
    ("restart with tasks", [("POST", f"/connectors/{NAME}/restart?includeTasks=true", None)]),
    ("task restart", [("POST", f"/connectors/{NAME}/tasks/0/restart", None)]),
]


def _slot_pid(conn: psycopg.Connection[tuple[object, ...]], slot: str) -> int | None:
    row = conn.execute("SELECT active_pid FROM pg_replication_slots WHERE slot_name = %s", (slot,)).fetchone()
    return None if row is None else row[0]  # type: ignore[return-value]


def _streaming_pid(conn: psycopg.Connection[tuple[object, ...]], slot: str) -> int | None:
    """The walsender holding the slot once it streams: while the task creates the slot (and exports its snapshot)
    the same walsender holds it in state `startup` and lets it go before START_REPLICATION takes it again."""
    row = conn.execute(
        "SELECT s.active_pid FROM pg_replication_slots s JOIN pg_stat_replication r ON r.pid = s.active_pid"
        " WHERE s.slot_name = %s AND r.state = 'streaming'",
        (slot,),
    ).fetchone()
    return None if row is None else row[0]  # type: ignore[return-value]


def _settled_pid(worker: ConnectDebezium, conn: psycopg.Connection[tuple[object, ...]], slot: str) -> int:
    """Once connector and task run and a walsender streams from the slot: that walsender's pid."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        pid = _streaming_pid(conn, slot)
        if pid is not None:
            worker.wait_running(NAME)
            if _streaming_pid(conn, slot) == pid:
                return pid
        time.sleep(0.25)
    raise AssertionError(f"slot {slot} not streamed by a running task after 120 s\n{worker.log_tail()}")


def _run(worker: ConnectDebezium, token: str, pg_port: int) -> list[tuple[str, list[int], bool]]:
    """Each step's label, answer statuses and whether the task's replication connection was replaced."""
    dbname, slot = f"{token}_db", f"{token}_slot"
    results = []
    with scratch_database(dbname, port=pg_port) as dsn, psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("CREATE TABLE t (id int PRIMARY KEY, v text)")
        conn.execute("INSERT INTO t VALUES (1, 'a')")
        config = postgres_connector_config(
            prefix=token,
            dbname=dbname,
            slot=slot,
            publication=f"{token}_pub",
            tables=["public.t"],
            pg_port=pg_port,
            **{"poll.interval.ms": "500"},
        )
        worker.create_connector(NAME, config)
        try:
            pid = _settled_pid(worker, conn, slot)
            for label, requests in STEPS:
                statuses = []
                for method, path, changes in requests:
                    body = changes
                    if changes is not None:
                        config = {**config, **changes}
                        body = config if method == "PUT" else changes
                    statuses.append(worker.request(method, path, body).status)
                seen = set()
                deadline = time.monotonic() + WINDOW_S
                while time.monotonic() < deadline:
                    seen.add(_slot_pid(conn, slot))
                    time.sleep(0.1)
                after = _settled_pid(worker, conn, slot)
                results.append((label, statuses, seen != {pid} or after != pid))
                pid = after
        finally:
            worker.delete_connector(NAME)
    return results


@pytest.fixture
def tokens(kafka_bootstrap: str) -> Iterator[list[str]]:
    """One token per worker (database, slot, publication, topic prefix); their topics deleted at the end."""
    names = [unique_token("tr") for _ in range(4)]
    yield names
    delete_topics(kafka_bootstrap, [f"{n}.public.t" for n in names])


def _on_own_worker(worker: ConnectDebezium, token: str, pg_port: int) -> list[tuple[str, list[int], bool]]:
    worker.start()
    try:
        return _run(worker, token, pg_port)
    finally:
        worker.stop()
        worker.delete_internal_topics()


def test_the_same_requests_restart_the_same_tasks(
    debezium_connect: ConnectDebezium, kafka_bootstrap: str, tokens: list[str], pg_port: int
) -> None:
    """Connect distributed against this worker's distributed mode, Connect's standalone worker (ConnectStandalone)
    against this worker's default mode. The four workers run their steps at the same time (each on its own
    database, slot and topics): the steps wait out fixed windows, so one after the other took four times as long."""
    java_standalone = ConnectDebezium(
        kafka_bootstrap=kafka_bootstrap, name=unique_token("dbzs"), pg_port=pg_port, standalone=True
    )
    ours = OurWorker(kafka_bootstrap=kafka_bootstrap, name=unique_token("cw"), pg_port=pg_port)
    ours_distributed = OurWorker(
        kafka_bootstrap=kafka_bootstrap, name=unique_token("cw"), pg_port=pg_port, distributed=True
    )
    with ThreadPoolExecutor(max_workers=4) as pool:
        runs = [
            pool.submit(_run, debezium_connect, tokens[0], pg_port),
            pool.submit(_on_own_worker, java_standalone, tokens[1], pg_port),
            pool.submit(_on_own_worker, ours, tokens[2], pg_port),
            pool.submit(_on_own_worker, ours_distributed, tokens[3], pg_port),
        ]
        connect, standalone, ours_standalone, ours_cluster = (run.result() for run in runs)
    # what Connect does, asserted too, so that a change on its side shows here
    assert [(label, restarted) for label, _, restarted in connect] == [
        ("legacy restart", False),
        ("only failed, none failed", False),
        ("same config", False),
        ("patch to the same values", False),
        ("pause and resume", False),
        ("changed config", True),
        ("changed back", True),
        ("restart with tasks", True),
        ("task restart", True),
    ], connect
    assert standalone == connect
    assert ours_standalone == standalone
    assert ours_cluster == connect
