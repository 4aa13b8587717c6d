"""The distributed-mode phase (`BENCH_ONLY=cluster`): three workers of one Connect cluster.

* failover, both systems: a PostgreSQL connector under a steady insert load (~200 rows/s) on a 3-worker cluster;
  the worker running its task is killed (SIGKILL). Measured: kill → the task RUNNING on another worker (status
  topic), kill → the first change event of a row committed after the kill (its record's CreateTime, so only the
  new owner can have written it), and the rows lost (must be 0) and sent twice. Connect's group timings as
  Connect's defaults (session.timeout.ms 10000, heartbeat.interval.ms 3000), scheduled.rebalance.max.delay.ms 0 on
  both (as devstack/debezium.sh runs Connect), so the work moves as soon as the group notices.
* rebalance, this worker only (the Java worker's plugin path has no FileStreamSource): 50 FileStreamSource
  connectors created on a 3-worker cluster until all 50 connectors and 50 tasks are RUNNING; a worker stopped
  (SIGTERM) until everything runs on the other two; a worker added until it runs its share.
"""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
import signal
import threading
import time
from collections import Counter
from typing import Any

import orjson
from confluent_kafka import Consumer, TopicPartition

from benchmarks import kafkautil, pgload
from benchmarks.settings import PG_PORT
from benchmarks.workers import DebeziumProcess, OursProcess
from tests.differential.debezium import STATE_DIR, postgres_connector_config, unique_token

log = logging.getLogger(__name__)

MEMBERS = 3
LOAD_ROWS_PER_S = 200
REBALANCE_CONNECTORS = 50
# this worker's group settings in the phase: Connect's defaults, and no wait for a departed worker to come back
OURS_GROUP = ("scheduled.rebalance.max.delay.ms=0",)

Member = OursProcess | DebeziumProcess


def _member(kind: str, name: str, index: int, bootstrap: str) -> Member:
    run_dir = STATE_DIR / "bench" / f"{name}-{index}"
    if kind == "ours":
        return OursProcess(
            kafka_bootstrap=bootstrap,
            name=name,
            pg_port=PG_PORT,
            run_dir=run_dir,
            extra_properties=OURS_GROUP,
            distributed=True,
        )
    return DebeziumProcess(kafka_bootstrap=bootstrap, name=name, pg_port=PG_PORT, run_dir=run_dir)


def _status(member: Member, connector: str) -> dict[str, Any] | None:
    answer = member.get(f"/connectors/{connector}/status")
    return orjson.loads(answer.body) if answer.status == 200 else None


def _wait(what: str, check: Any, timeout: float, poll_s: float = 0.05) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = check()
        if result:
            return result
        time.sleep(poll_s)
    raise TimeoutError(f"{what}: not within {timeout} s")


class _Loader(threading.Thread):
    """Inserts rows one per transaction at LOAD_ROWS_PER_S; `commits` holds (id, commit wall time)."""

    def __init__(self, dbname: str, table: str) -> None:
        super().__init__(daemon=True)
        self.dbname, self.table = dbname, table
        self.commits: list[tuple[int, float]] = []
        self.stop_event = threading.Event()

    def run(self) -> None:
        with pgload.connect(self.dbname) as conn:
            conn.autocommit = True
            i = 0
            started = time.monotonic()
            while not self.stop_event.is_set():
                i += 1
                conn.execute(f'INSERT INTO "{self.table}" (id, v) VALUES (%s, %s)', (i, f"row {i}"))
                self.commits.append((i, time.time()))
                time.sleep(max(0.0, started + i / LOAD_ROWS_PER_S - time.monotonic()))


def _events(bootstrap: str, topic: str) -> list[tuple[int, float]]:
    """(row id, record CreateTime in s) of every change event in the topic."""
    consumer = Consumer(
        {"bootstrap.servers": bootstrap, "group.id": f"bench-{unique_token()}", "enable.auto.commit": False}
    )
    out: list[tuple[int, float]] = []
    try:
        tp = TopicPartition(topic, 0, 0)
        _, high = consumer.get_watermark_offsets(tp, timeout=10)
        consumer.assign([tp])
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and (not out or consumer.position([tp])[0].offset < high):
            for m in consumer.consume(10000, 0.5):
                value = m.value()
                if m.error() is None and value:
                    after = (orjson.loads(value) or {}).get("after") or {}
                    if "id" in after:
                        out.append((int(after["id"]), m.timestamp()[1] / 1000))
            if high == 0:
                break
    finally:
        consumer.close()
    return out


def failover_run(ctx: Any, kind: str) -> dict[str, Any]:
    name = unique_token(f"fo{kind[:3]}")
    table = f"{ctx.token}_{name}"
    topic = f"{name}.public.{table}"
    bootstrap = ctx.plan.bootstrap
    with pgload.connect(ctx.dbname) as conn:
        conn.execute(f'CREATE TABLE "{table}" (id bigint PRIMARY KEY, v text)')
    members = [_member(kind, name, i, bootstrap) for i in range(MEMBERS)]
    loader = _Loader(ctx.dbname, table)
    try:
        if isinstance(members[0], DebeziumProcess) and members[0].run_dir is not None:
            members[0].run_dir.mkdir(parents=True, exist_ok=True)
            members[0].note_token(ctx.dbname)  # reap_orphans drops the database should this process die
        kafkautil.create_topics(bootstrap, [topic])
        for m in members:
            m.start()
        config = postgres_connector_config(
            prefix=name,
            dbname=ctx.dbname,
            slot=f"{name}_slot",
            publication=f"{name}_pub",
            tables=[f"public.{table}"],
            pg_port=PG_PORT,
            **{
                "snapshot.mode": "no_data",
                "key.converter": "org.apache.kafka.connect.json.JsonConverter",
                "value.converter": "org.apache.kafka.connect.json.JsonConverter",
                "key.converter.schemas.enable": "false",
                "value.converter.schemas.enable": "false",
            },
        )
        members[1].create_connector("fo", config)

        def running_on(but: str | None) -> str | None:
            for m in members:
                with contextlib.suppress(OSError):
                    s = _status(m, "fo")
                    if s and s["tasks"] and s["tasks"][0]["state"] == "RUNNING" and s["tasks"][0]["worker_id"] != but:
                        return str(s["tasks"][0]["worker_id"])
            return None

        owner = _wait("the task running", lambda: running_on(None), 120)
        loader.start()
        time.sleep(8)  # streaming, offsets flushed a few times
        victim = next(m for m in members if m.worker_id == owner)
        pid = victim.pid()
        assert pid is not None
        killed_at = time.time()
        os.kill(pid, signal.SIGKILL)
        survivors = [m for m in members if m is not victim]
        members = survivors  # the killed one is not stopped again
        new_owner = _wait("the task running elsewhere", lambda: running_on(owner), 180)
        running_at = time.time()
        after_kill = {i for i, t in loader.commits if t > killed_at}

        def first_new() -> float | None:
            times = [ts for i, ts in _events(bootstrap, topic) if i in after_kill]
            return min(times) if times else None

        _wait("an event of a row committed after the kill", lambda: after_kill and first_new(), 180, poll_s=0.5)
        first_at = first_new()
        time.sleep(3)
        loader.stop_event.set()
        loader.join(30)
        committed = {i for i, _ in loader.commits}
        ids: list[int] = []

        def complete() -> bool:
            ids[:] = [i for i, _ in _events(bootstrap, topic)]
            return committed <= set(ids)

        with contextlib.suppress(TimeoutError):
            _wait("every committed row in the topic", complete, 120, poll_s=1)
        assert first_at is not None
        return {
            "members": MEMBERS,
            "session_timeout_ms": 10000,
            "heartbeat_interval_ms": 3000,
            "scheduled_rebalance_max_delay_ms": 0,
            "owner": owner,
            "new_owner": new_owner,
            "kill_to_running_s": round(running_at - killed_at, 2),
            "kill_to_first_new_event_s": round(first_at - killed_at, 2),
            "rows": len(committed),
            "lost": len(committed - set(ids)),
            "twice": sum(n - 1 for n in Counter(ids).values() if n > 1),
        }
    finally:
        loader.stop_event.set()
        for m in members:
            with contextlib.suppress(Exception):
                m.stop()
        with pgload.connect(ctx.dbname) as conn:
            pgload.drop_publication_and_slot(conn, f"{name}_pub", f"{name}_slot")
            conn.execute(f'DROP TABLE IF EXISTS "{table}"')
        kafkautil.delete_topics(bootstrap, [topic, f"{name}.transaction"])
        with contextlib.suppress(Exception):
            members[0].delete_internal_topics()


def rebalance_run(ctx: Any) -> dict[str, Any]:
    name = unique_token("rb")
    bootstrap = ctx.plan.bootstrap
    members = [_member("ours", name, i, bootstrap) for i in range(MEMBERS)]
    files = STATE_DIR / "bench" / f"{name}-files"
    files.mkdir(parents=True, exist_ok=True)
    topic = f"{name}-lines"
    names = [f"fs{i:02d}" for i in range(REBALANCE_CONNECTORS)]
    out: dict[str, Any] = {"members": MEMBERS, "connectors": REBALANCE_CONNECTORS}
    try:
        kafkautil.create_topics(bootstrap, [topic])
        for m in members:
            m.start()

        def placement(alive: list[Member]) -> Counter[str] | None:
            """Who runs each connector and task, when all of them are RUNNING on live workers."""
            ids = {m.worker_id for m in alive}
            where: Counter[str] = Counter()
            with contextlib.suppress(OSError):
                answer = alive[0].get("/connectors?expand=status")
                if answer.status != 200:
                    return None
                statuses = orjson.loads(answer.body)
                if len(statuses) != len(names):
                    return None
                for s in statuses.values():
                    parts = [s["status"]["connector"], *s["status"]["tasks"]]
                    if len(parts) != 2 or any(p["state"] != "RUNNING" or p["worker_id"] not in ids for p in parts):
                        return None
                    where.update(p["worker_id"] for p in parts)
                return where
            return None

        started = time.time()
        for i, c in enumerate(names):
            source = files / f"{c}.txt"
            source.write_text("x\n")
            config = {"connector.class": "FileStreamSource", "file": str(source), "topic": topic}
            members[i % MEMBERS].create_connector(c, config)
        created_at = time.time()
        spread = _wait("50 connectors running", lambda: placement(members), 300)
        out["create_s"] = round(created_at - started, 2)
        out["create_to_all_running_s"] = round(time.time() - started, 2)
        out["spread_3"] = sorted(spread.values())

        leaving = members.pop()
        stopped_at = time.time()
        leaving.stop()
        spread = _wait("everything on two workers", lambda: placement(members), 300)
        out["worker_stop_to_all_running_s"] = round(time.time() - stopped_at, 2)
        out["spread_2"] = sorted(spread.values())

        joining = _member("ours", name, MEMBERS, bootstrap)
        joined_at = time.time()
        joining.start()
        members.append(joining)
        share = 2 * (REBALANCE_CONNECTORS // MEMBERS)  # connectors and tasks are each spread: 16 + 16 of 50 + 50
        spread = _wait(
            "the new worker running its share",
            lambda: (p := placement(members)) is not None and p[joining.worker_id] >= share and p,
            300,
        )
        out["worker_join_to_balanced_s"] = round(time.time() - joined_at, 2)
        out["spread_3_again"] = sorted(spread.values())
        return out
    finally:
        for m in members:
            with contextlib.suppress(Exception):
                m.stop()
        kafkautil.delete_topics(bootstrap, [topic])
        with contextlib.suppress(Exception):
            members[0].delete_internal_topics()
        shutil.rmtree(files, ignore_errors=True)


def cluster_phase(ctx: Any, kinds: list[str], guard: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"failover": {}}
    for kind in kinds:
        log.info("cluster: %s failover, %d workers", kind, MEMBERS)
        out["failover"][kind] = guard(f"cluster.failover.{kind}", lambda k=kind: failover_run(ctx, k))
    if "ours" in kinds:
        log.info("cluster: ours rebalance, %d connectors on %d workers", REBALANCE_CONNECTORS, MEMBERS)
        out["rebalance"] = guard("cluster.rebalance.ours", lambda: rebalance_run(ctx))
    return out
