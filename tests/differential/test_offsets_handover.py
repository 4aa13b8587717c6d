"""Offsets hand-over in both directions with the REAL Kafka Connect 4.3.1 + Debezium 3.6.3.Final.

One connector name, one slot, one offsets topic (the Java worker's): Debezium snapshots and streams, stops; changes
are made while nothing runs; this worker takes over from Debezium's stored offset and must emit exactly those
changes (no snapshot again, nothing repeated, nothing lost); it stops; more changes; Debezium resumes from the
offset this worker stored and must emit exactly the newest changes. Both write the same topic, so the test reads
one ordered history of the table.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from tests.differential.debezium import (
    ConnectDebezium,
    delete_topics,
    postgres_connector_config,
    read_topic,
    scratch_database,
    unique_token,
)
from tests.differential.ours import OurWorker

pytestmark = [pytest.mark.integration, pytest.mark.debezium, pytest.mark.timeout(900)]

TABLE = "items"


def _ops(records: list[Any]) -> list[tuple[str, int]]:
    out = []
    for r in records:
        value = r.value_json()
        if value is None:
            out.append(("tombstone", r.key_json()["payload"]["id"]))
            continue
        p = value["payload"]
        out.append((p["op"], (p["after"] or p["before"])["id"]))
    return out


def _wait_records(bootstrap: str, topic: str, count: int, timeout: float = 90.0) -> list[Any]:
    deadline = time.monotonic() + timeout
    got: list[Any] = []
    while time.monotonic() < deadline:
        got = read_topic(bootstrap, topic, timeout=10)
        if len(got) >= count:
            time.sleep(1.0)  # anything more (a duplicate) would show up now
            return read_topic(bootstrap, topic, timeout=10)
        time.sleep(0.5)
    raise AssertionError(f"{count} records on {topic} not seen in {timeout} s: {_ops(got)}")


def _stop_and_wait(worker: ConnectDebezium, name: str, dsn: str, slot: str, timeout: float = 60.0) -> dict[str, Any]:
    """PUT /connectors/{name}/stop; wait for STOPPED and an inactive slot; returns the stored offset."""
    answer = worker.request("PUT", f"/connectors/{name}/stop")
    assert answer.status in (200, 202, 204), answer.body
    deadline = time.monotonic() + timeout
    with psycopg.connect(dsn, autocommit=True) as conn:
        while time.monotonic() < deadline:
            state = worker.get(f"/connectors/{name}/status").json()["connector"]["state"]
            row = conn.execute("SELECT active FROM pg_replication_slots WHERE slot_name = %s", (slot,)).fetchone()
            if state == "STOPPED" and row is not None and not row[0]:
                offsets = worker.get(f"/connectors/{name}/offsets").json()["offsets"]
                assert len(offsets) == 1, offsets
                result: dict[str, Any] = offsets[0]["offset"]
                return result
            time.sleep(0.5)
    raise AssertionError(f"{name} did not stop in {timeout} s")


@pytest.fixture
def token() -> Iterator[str]:
    t = unique_token("ho")
    yield t


def test_offsets_hand_over_from_debezium_to_this_worker_and_back(
    debezium_connect: ConnectDebezium, kafka_bootstrap: str, pg_port: int, token: str
) -> None:
    topic = f"{token}.public.{TABLE}"
    config = postgres_connector_config(
        prefix=token, dbname=token, slot=token, publication=token, tables=[f"public.{TABLE}"], pg_port=pg_port
    )
    ours = OurWorker(
        kafka_bootstrap=kafka_bootstrap,
        name=unique_token("cwho"),
        pg_port=pg_port,
        offsets_from=debezium_connect.offset_topic,
    )
    with scratch_database(token, port=pg_port) as dsn, psycopg.connect(dsn, autocommit=True) as db:
        db.execute(f"CREATE TABLE public.{TABLE} (id int PRIMARY KEY, v text)")
        db.execute(f"INSERT INTO public.{TABLE} VALUES (1, 'a'), (2, 'b')")
        try:
            # 1. Debezium: snapshot of 1, 2 and a streamed insert of 3
            debezium_connect.create_connector(token, config)
            debezium_connect.wait_running(token)
            _wait_records(kafka_bootstrap, topic, 2)
            db.execute(f"INSERT INTO public.{TABLE} VALUES (3, 'c')")
            _wait_records(kafka_bootstrap, topic, 3)
            time.sleep(2 * debezium_connect.flush_ms / 1000 + 1)  # the insert's offset is committed
            dbz_offset = _stop_and_wait(debezium_connect, token, dsn, token)
            # the offset of the insert's own event (no record carries a COMMIT position without heartbeats):
            # the new owner must resume inside that transaction and skip what was already emitted
            assert dbz_offset["messageType"] == "INSERT" and dbz_offset["txId"] > 0

            # 2. changes while nothing runs, then this worker takes over from Debezium's offset
            db.execute(f"INSERT INTO public.{TABLE} VALUES (4, 'd')")
            db.execute(f"UPDATE public.{TABLE} SET v = 'bb' WHERE id = 2")
            db.execute(f"DELETE FROM public.{TABLE} WHERE id = 1")
            ours.start()
            ours.create_connector(token, config)
            ours.wait_running(token)
            records = _wait_records(kafka_bootstrap, topic, 7)
            assert _ops(records) == [
                ("r", 1), ("r", 2), ("c", 3),  # Debezium
                ("c", 4), ("u", 2), ("d", 1), ("tombstone", 1),  # this worker, from Debezium's offset
            ]  # fmt: skip
            time.sleep(2 * ours.flush_ms / 1000 + 1)
            our_offset = _stop_and_wait(ours, token, dsn, token)
            assert our_offset["lsn_proc"] > dbz_offset["lsn_proc"] and our_offset["messageType"] == "DELETE"
            ours.delete_connector(token)
            ours.stop()

            # 3. more changes, then Debezium resumes from the offset this worker stored in its topic
            db.execute(f"INSERT INTO public.{TABLE} VALUES (5, 'e')")
            db.execute(f"UPDATE public.{TABLE} SET v = 'cc' WHERE id = 3")
            answer = debezium_connect.request("PUT", f"/connectors/{token}/resume")
            assert answer.status in (200, 202, 204), answer.body
            debezium_connect.wait_running(token)
            records = _wait_records(kafka_bootstrap, topic, 9)
            assert _ops(records)[7:] == [("c", 5), ("u", 3)]
            assert len(records) == 9
        finally:
            ours.stop()
            ours.delete_internal_topics()
            debezium_connect.delete_connector(token)
            delete_topics(kafka_bootstrap, [topic])
