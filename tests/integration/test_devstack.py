"""The local services are real and usable the way the project needs them."""

from __future__ import annotations

import psycopg
import pytest
from confluent_kafka import Consumer, Producer
from confluent_kafka.admin import AdminClient, NewTopic

pytestmark = pytest.mark.integration


def test_kafka_round_trip(kafka_bootstrap: str, unique_name: str) -> None:
    admin = AdminClient({"bootstrap.servers": kafka_bootstrap})
    futures = admin.create_topics([NewTopic(unique_name, num_partitions=3, replication_factor=1)])
    futures[unique_name].result(30)
    producer = Producer({"bootstrap.servers": kafka_bootstrap, "acks": "all"})
    for i in range(10):
        producer.produce(unique_name, key=f"k{i}".encode(), value=f"v{i}".encode())
    assert producer.flush(30) == 0

    consumer = Consumer(
        {"bootstrap.servers": kafka_bootstrap, "group.id": unique_name, "auto.offset.reset": "earliest"}
    )
    consumer.subscribe([unique_name])
    seen: dict[bytes, bytes] = {}
    try:
        for _ in range(60):
            msg = consumer.poll(1.0)
            if msg is not None and msg.error() is None:
                key, value = msg.key(), msg.value()
                assert key is not None and value is not None
                seen[key] = value
            if len(seen) == 10:
                break
    finally:
        consumer.close()
    assert seen == {f"k{i}".encode(): f"v{i}".encode() for i in range(10)}


def test_postgres_has_logical_decoding(pg_dsn: str) -> None:
    with psycopg.connect(pg_dsn) as conn:
        assert conn.execute("SHOW wal_level").fetchone() == ("logical",)
        assert conn.info.server_version // 10000 == 15


@pytest.mark.parametrize("plugin", ["pgoutput", "decoderbufs", "wal2json"])
def test_output_plugins_decode_a_change(pg_dsn: str, unique_name: str, plugin: str) -> None:
    table, slot = unique_name, unique_name + "_slot"
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        conn.execute(f"CREATE TABLE {table} (id int PRIMARY KEY, v text)")
        conn.execute(f"CREATE PUBLICATION {table}_pub FOR TABLE {table}")
        conn.execute("SELECT pg_create_logical_replication_slot(%s, %s)", (slot, plugin))
        try:
            conn.execute(f"INSERT INTO {table} VALUES (1, 'hello')")
            options: list[str] = []
            if plugin == "pgoutput":
                options = ["proto_version", "1", "publication_names", f"{table}_pub"]
            rows = conn.execute(
                "SELECT data FROM pg_logical_slot_get_binary_changes(%s, NULL, NULL, VARIADIC %s::text[])",
                (slot, options),
            ).fetchall()
            payload = b"".join(bytes(r[0]) for r in rows)
            assert b"hello" in payload
        finally:
            conn.execute("SELECT pg_drop_replication_slot(%s)", (slot,))
            conn.execute(f"DROP PUBLICATION {table}_pub")
            conn.execute(f"DROP TABLE {table}")


def test_registry_listens_on_loopback_only(registry_url: str) -> None:
    """Apicurio answers the Confluent API, and neither its HTTP port nor Quarkus's management port (which binds
    0.0.0.0:9000 unless told otherwise) listens beyond loopback."""
    import json
    import os
    import urllib.request
    from pathlib import Path

    assert json.loads(urllib.request.urlopen(registry_url + "/subjects", timeout=10).read()) is not None
    pid = (Path(__file__).resolve().parents[2] / ".devstack" / "registry" / "registry.pid").read_text().strip()
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:  # the JVM opens and closes descriptors meanwhile; a listening socket stays open
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except FileNotFoundError:
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    listening = []
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        for line in Path(table).read_text().splitlines()[1:]:
            cols = line.split()
            if cols[3] == "0A" and cols[9] in inodes:  # LISTEN, a socket of the registry process
                listening.append(cols[1].split(":")[0])
    assert listening, "the registry process listens on nothing"
    loopback = {"0100007F", "00000000000000000000000001000000", "0000000000000000FFFF00000100007F"}
    assert set(listening) <= loopback, listening
