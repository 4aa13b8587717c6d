"""End to end: real PostgreSQL 15 → this worker (`python -m connect_worker`, a process of its own) → real Kafka → the
Spark job → a table that equals the source table. The first run of the job is a real spark-submit application that
is killed (SIGKILL) while the source keeps changing; the worker is killed (SIGKILL) too, and a new worker re-sends
what it had sent since its last offsets flush; a second run of the job resumes from its checkpoint and must converge
to the source."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import signal
import string
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.integration.spark_sink.conftest import REPO
from tests.integration.spark_sink.support import format_settings, table_rows
from tests.worker_support import free_port, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.spark]

COLUMNS = "id, name, price, amount, born, seen, local_ts, doc, uid, tags, flag, big"


def connector_config(name: str) -> dict[str, str]:
    return {
        "connector.class": "io.debezium.connector.postgresql.PostgresConnector",
        "database.hostname": "127.0.0.1",
        "database.port": os.environ.get("CW_PG_PORT", "5433"),
        "database.user": "postgres",
        "database.dbname": "postgres",
        "topic.prefix": name,
        "plugin.name": "pgoutput",
        "slot.name": "slot_" + name,
        "publication.name": "pub_" + name,
        "publication.autocreate.mode": "filtered",
        "schema.include.list": name,
    }


def worker_command(tmp_path: Path, props: dict[str, str], name: str) -> list[str]:
    """`python -m connect_worker` with the test's worker settings and its connector `pg`."""
    port = free_port()
    # offsets flushed often: a kill lands with records sent after the last flush, which the next worker sends again
    worker = {**props, "listeners": f"http://127.0.0.1:{port}", "offset.flush.interval.ms": "500"}
    (tmp_path / "worker.properties").write_text("".join(f"{k}={v}\n" for k, v in worker.items()))
    connector = {"name": "pg", **connector_config(name)}
    (tmp_path / "pg.properties").write_text("".join(f"{k}={v}\n" for k, v in connector.items()))
    return [
        sys.executable,
        "-m",
        "connect_worker",
        str(tmp_path / "worker.properties"),
        str(tmp_path / "pg.properties"),
    ]


def spawn(cmd: list[str], log: Path) -> subprocess.Popen[bytes]:
    with log.open("ab") as out:
        return subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)


async def topic_holds(bootstrap: str, topic: str, wanted: bytes) -> bool:
    """Whether a record of `topic` has `wanted` in its key."""
    from connect_worker.kafka.reader import read_to_end

    records = await read_to_end({"bootstrap.servers": bootstrap}, topic)
    return any(rec.key is not None and wanted in rec.key for rec in records)


def big_text(seed: int) -> str:
    rnd = random.Random(seed)  # incompressible, > 8 kB: stored out of line (TOAST)
    return "".join(rnd.choice(string.ascii_letters) for _ in range(12000))


async def execute(dsn: str, *statements: str) -> None:
    async with await psycopg.AsyncConnection.connect(dsn, autocommit=True) as conn:
        for sql in statements:
            await conn.execute(sql)


async def drop_source(dsn: str, name: str) -> None:
    """Remove what a test's connector `name` (connector_config) left in PostgreSQL: its schema, slot, publication."""
    await execute(dsn, f"DROP SCHEMA IF EXISTS {name} CASCADE")
    with contextlib.suppress(psycopg.Error):
        await execute(dsn, f"SELECT pg_drop_replication_slot('slot_{name}')")
    await execute(dsn, f"DROP PUBLICATION IF EXISTS pub_{name}")


async def source_rows(dsn: str, schema: str) -> list[tuple[Any, ...]]:
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        cur = await conn.execute(f"SELECT {COLUMNS} FROM {schema}.items ORDER BY id")
        return list(await cur.fetchall())


def normalise_pg(row: tuple[Any, ...]) -> tuple[Any, ...]:
    id_, name, price, amount, born, seen, local_ts, doc, uid, tags, flag, big = row
    return (
        id_,
        name,
        price,
        None if amount is None else amount.normalize(),
        born,
        None if seen is None else seen.timestamp(),
        local_ts,
        doc,
        None if uid is None else str(uid),
        tags,
        flag,
        big,
    )


def normalise_delta(row: Any) -> tuple[Any, ...]:
    return (
        row["id"],
        row["name"],
        row["price"],
        None if row["amount"] is None else row["amount"].normalize(),
        row["born"],
        None if row["seen"] is None else row["seen"].timestamp(),  # naive local time, like pyspark returns it
        row["local_ts"],
        None if row["doc"] is None else json.loads(row["doc"]),
        row["uid"],
        row["tags"],
        row["flag"],
        row["big"],
    )


def submit(jars: Path, args: list[str], log: Path) -> subprocess.Popen[bytes]:
    env = {
        **os.environ,
        "PYSPARK_PYTHON": sys.executable,
        "PYSPARK_DRIVER_PYTHON": sys.executable,
        "SPARK_LOCAL_IP": "127.0.0.1",
    }
    cmd = [
        str(Path(sys.executable).parent / "spark-submit"),
        "--master",
        "local[2]",
        "--jars",
        ",".join(str(p) for p in sorted(jars.glob("*.jar"))),
        "--conf",
        "spark.ui.showConsoleProgress=false",
        "--conf",
        "spark.sql.shuffle.partitions=2",
        "--conf",
        "spark.databricks.delta.snapshotPartitions=2",
        str(REPO / "spark_sink" / "__main__.py"),
        *args,
    ]
    with log.open("wb") as out:
        return subprocess.Popen(cmd, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def delta_commits(path: Path) -> int:
    return len(list((path / "_delta_log").glob("*.json"))) if (path / "_delta_log").exists() else 0


def commits(table_format: str, warehouse: Path, table: str) -> int:
    """The table's commits so far: Delta log entries, or Iceberg snapshots (manifest lists; creation makes none)."""
    if table_format == "iceberg":
        metadata = warehouse / "default" / table / "metadata"
        return len(list(metadata.glob("snap-*.avro"))) if metadata.exists() else 0
    return delta_commits(warehouse / table)


async def test_postgres_to_delta_with_a_killed_job(
    spark: Any,
    spark_jars: Path,
    tmp_path: Path,
    worker_props: dict[str, str],
    kafka_bootstrap: str,
    pg_dsn: str,
    unique_name: str,
    table_format: str,
) -> None:
    from spark_sink.config import SinkConfig
    from spark_sink.job import make_processor, start

    schema = unique_name
    topic = f"{schema}.{schema}.items"
    warehouse, checkpoint = tmp_path / "warehouse", tmp_path / "checkpoint"
    settings = format_settings(table_format, schema)
    flags = [f"--{k.replace('_', '-')}={v}" for k, v in settings.items()]

    def written() -> int:
        return commits(table_format, warehouse, "items")

    await execute(
        pg_dsn,
        f"CREATE SCHEMA {schema}",
        f"CREATE TABLE {schema}.items (id int PRIMARY KEY, name text, price numeric(10,2), amount numeric, born date,"
        " seen timestamptz, local_ts timestamp, doc jsonb, uid uuid, tags text[], flag boolean, big text)",
        f"ALTER TABLE {schema}.items ALTER COLUMN big SET STORAGE EXTERNAL",
        *[
            f"INSERT INTO {schema}.items VALUES ({i}, 'n{i}', {i}.25, {i}.000123, '2024-01-{i:02d}',"
            f" '2024-01-02 03:04:05.{i:06d}+00', '2018-06-20 15:13:16.9451{i:02d}', '{{\"k\": {i}}}',"
            f" 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a{i:02d}', '{{a,b{i}}}', {str(i % 2 == 0).lower()}, '{big_text(i)}')"
            for i in range(1, 11)
        ],
    )
    job: subprocess.Popen[bytes] | None = None
    cmd = worker_command(tmp_path, worker_props, schema)
    workers: list[subprocess.Popen[bytes]] = []
    try:
        workers.append(spawn(cmd, tmp_path / "worker.log"))
        # the Kafka source fails on a topic that does not exist yet: wait for the snapshot's last row
        await wait_for(lambda: topic_holds(kafka_bootstrap, topic, b'"id":10}'), 60)
        job = submit(
            spark_jars,
            [
                "--bootstrap-servers",
                kafka_bootstrap,
                "--topics",
                topic,
                "--warehouse",
                str(warehouse),
                "--checkpoint",
                str(checkpoint),
                "--table-name-template",
                "{table}",
                "--trigger",
                "processing-time=1 second",
                "--query-name",
                f"e2e_{schema}",
                *flags,
            ],
            tmp_path / "job.log",
        )
        first = 2 if table_format == "delta" else 1  # Delta: created + first MERGE; Iceberg: first MERGE
        await wait_for(lambda: asyncio.sleep(0, written() >= first), 120)
        await execute(
            pg_dsn,
            f"UPDATE {schema}.items SET name = 'renamed' WHERE id = 1",  # big unchanged: TOAST placeholder
            f"DELETE FROM {schema}.items WHERE id = 2",
            f"INSERT INTO {schema}.items (id, name, price) VALUES (11, 'new', -5.50)",
            f"UPDATE {schema}.items SET big = 'small now', amount = NULL WHERE id = 3",
        )
        done = written()
        with contextlib.suppress(AssertionError):  # usually applied before the kill; either way is fine
            await wait_for(lambda: asyncio.sleep(0, written() > done), 20)
        os.killpg(job.pid, signal.SIGKILL)
        job.wait(30)
        await execute(pg_dsn, f"INSERT INTO {schema}.items (id, name) VALUES (50, 'before the worker kill')")
        await wait_for(lambda: topic_holds(kafka_bootstrap, topic, b'"id":50}'), 40)
        workers[0].send_signal(signal.SIGKILL)
        workers[0].wait(30)
        await execute(
            pg_dsn,
            f"UPDATE {schema}.items SET name = 'again', flag = NULL WHERE id = 1",
            # primary-key change: delete + create. `big` is set too: on a key change pgoutput still marks an
            # unchanged TOAST value as unchanged, Debezium puts the placeholder in the `c` event of the new key,
            # and the sink has no earlier value under that key (a known limitation, see spark_sink notes)
            f"UPDATE {schema}.items SET id = 12, big = 'moved' WHERE id = 4",
            f"DELETE FROM {schema}.items WHERE id = 11",
            f"INSERT INTO {schema}.items (id, name) VALUES (99, 'last')",
        )
        expected = [normalise_pg(r) for r in await source_rows(pg_dsn, schema)]
        workers.append(spawn(cmd, tmp_path / "worker.log"))  # resumes from the committed offsets
        await wait_for(lambda: topic_holds(kafka_bootstrap, topic, b'"id":99}'), 60)
        workers[1].send_signal(signal.SIGTERM)
        assert workers[1].wait(60) == 0

        config = SinkConfig(
            bootstrap_servers=kafka_bootstrap,
            topics=(topic,),
            warehouse=str(warehouse),
            checkpoint=str(checkpoint),
            table_name_template="{table}",
            query_name=f"e2e_{schema}",
            **settings,
        )
        started = time.monotonic()
        processor = make_processor(spark, config)
        query = start(spark, config, processor)
        assert await asyncio.to_thread(query.awaitTermination, 120)
        restart_s = time.monotonic() - started
        got = [normalise_delta(r) for r in table_rows(spark, config, "items")]
        assert [g[0] for g in got] == [e[0] for e in expected]
        for g, e in zip(got, expected, strict=True):
            assert g == e, f"row {e[0]} differs"
        assert not (warehouse / "_dead_letter").exists()
        print(f"restarted available-now run: {restart_s:.1f}s, batches {[m.line() for m in processor.history]}")
    finally:
        if job is not None and job.poll() is None:
            os.killpg(job.pid, signal.SIGKILL)
        for w in workers:
            if w.poll() is None:
                w.kill()
        await drop_source(pg_dsn, schema)
