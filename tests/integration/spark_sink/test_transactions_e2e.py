"""Transaction-consistent mode end to end: real PostgreSQL 15 → this worker (transaction metadata on) → real Kafka →
the Spark job as a spark-submit application in transaction-consistent mode, killed with SIGKILL twice while
multi-table transactions stream, split over micro-batches; into Delta and into Iceberg (the `table_format` fixture).

Every source transaction keeps three invariants across its tables: the sum of the account balances never changes,
every order has exactly its lines (count and amount total), no line lacks its order. A reader of any cut the job
published (spark_sink/delta/published.py, each table at its published version) must find all three true: it never
sees half a source transaction. The last cut must equal the source tables row by row."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.integration.spark_sink.support import format_settings, table_frame
from tests.integration.spark_sink.test_postgres_e2e import (
    commits,
    connector_config,
    delta_commits,
    drop_source,
    execute,
    submit,
)
from tests.worker_support import running_worker, wait_for

pytestmark = [pytest.mark.integration, pytest.mark.spark]

ACCOUNTS, OPENING = 8, 1000
TRANSACTIONS = 24


async def workload(dsn: str, schema: str, seed: int) -> None:
    """Multi-table transactions, paced so they stream while the job runs and is killed: new orders paid from one
    account to another, orders amended (one line changed, the total with it), orders cancelled (deleted with their
    lines, the money returned)."""
    rnd = random.Random(seed)
    live: list[int] = []
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        for k in range(1, TRANSACTIONS + 1):
            a, b = rnd.sample(range(1, ACCOUNTS + 1), 2)
            async with conn.transaction():
                if k % 7 == 0 and live:
                    order = live.pop(rnd.randrange(len(live)))
                    cur = await conn.execute(f"SELECT total FROM {schema}.orders WHERE id = {order}")
                    row = await cur.fetchone()
                    assert row is not None
                    await conn.execute(f"DELETE FROM {schema}.lines WHERE order_id = {order}")
                    await conn.execute(f"DELETE FROM {schema}.orders WHERE id = {order}")
                    amount = row[0]
                elif k % 5 == 0 and live:
                    order, amount = rnd.choice(live), rnd.randint(1, 9)
                    await conn.execute(
                        f"UPDATE {schema}.lines SET amount = amount + {amount} WHERE order_id = {order} AND n = 1"
                    )
                    await conn.execute(f"UPDATE {schema}.orders SET total = total + {amount} WHERE id = {order}")
                else:
                    amounts = [rnd.randint(1, 20) for _ in range(rnd.randint(2, 6))]
                    amount = sum(amounts)
                    await conn.execute(f"INSERT INTO {schema}.orders VALUES ({k}, {len(amounts)}, {amount})")
                    for n, x in enumerate(amounts, 1):
                        await conn.execute(f"INSERT INTO {schema}.lines VALUES ({k}, {n}, {x})")
                    live.append(k)
                await conn.execute(f"UPDATE {schema}.accounts SET balance = balance - {amount} WHERE id = {a}")
                await conn.execute(f"UPDATE {schema}.accounts SET balance = balance + {amount} WHERE id = {b}")
            await asyncio.sleep(0.15)


def broken_invariants(tables: dict[str, list[dict[str, Any]]]) -> list[str]:
    problems = []
    accounts = tables.get("accounts", [])
    balance = sum(r["balance"] for r in accounts)
    if len(accounts) == ACCOUNTS and balance != ACCOUNTS * OPENING:
        problems.append(f"balances sum to {balance}")
    if len(accounts) < ACCOUNTS and tables.get("orders"):  # snapshot rows come before any transaction's updates
        problems.append(f"orders applied with {len(accounts)} of the {ACCOUNTS} accounts")
    lines: dict[int, list[int]] = {}
    for r in tables.get("lines", []):
        lines.setdefault(r["order_id"], []).append(r["amount"])
    orders = {r["id"]: r for r in tables.get("orders", [])}
    for oid, o in orders.items():
        got = lines.get(oid, [])
        if (len(got), sum(got)) != (o["lines"], o["total"]):
            problems.append(f"order {oid}: {len(got)} lines summing to {sum(got)}, expected {o['lines']}/{o['total']}")
    problems.extend(f"lines of order {oid} without the order" for oid in lines.keys() - orders.keys())
    return problems


async def source_tables(dsn: str, schema: str) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        for table, cols in (
            ("accounts", "id, balance"),
            ("orders", "id, lines, total"),
            ("lines", "order_id, n, amount"),
        ):
            cur = await conn.execute(f"SELECT {cols} FROM {schema}.{table} ORDER BY {cols}")
            out[table] = [tuple(r) for r in await cur.fetchall()]
    return out


def as_tuples(tables: dict[str, list[dict[str, Any]]]) -> dict[str, list[tuple[Any, ...]]]:
    cols = {"accounts": ("id", "balance"), "orders": ("id", "lines", "total"), "lines": ("order_id", "n", "amount")}
    return {t: sorted(tuple(r[c] for c in cols[t]) for r in rows) for t, rows in tables.items()}


TABLES = ("accounts", "orders", "lines")


async def poll(done: Callable[[], bool], timeout: float, every: float = 0.05) -> None:
    deadline = time.monotonic() + timeout
    while not await asyncio.to_thread(done):
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        await asyncio.sleep(every)


def newest_versions(spark: Any, config: Any) -> dict[str, list[dict[str, Any]]]:
    return {t: [r.asDict() for r in table_frame(spark, config, t).collect()] for t in TABLES}


def job_logs(folder: Path) -> str:
    return "\n".join(p.read_text(errors="replace") for p in sorted(folder.glob("job*.log")))


def read_cut(spark: Any, cut: Any) -> dict[str, list[dict[str, Any]]]:
    from spark_sink.delta.published import read_cut as frames

    return {t: [r.asDict() for r in df.collect()] for t, df in frames(spark, cut).items()}


@pytest.mark.timeout(600)
async def test_a_reader_of_published_cuts_never_sees_half_a_transaction(
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
    from spark_sink.delta.published import cuts, latest, log_path
    from spark_sink.table_format import for_config

    schema = unique_name
    topics = [f"{schema}.{schema}.{t}" for t in TABLES]
    tx_topic = f"{schema}.transaction"
    warehouse, checkpoint, query = tmp_path / "warehouse", tmp_path / "checkpoint", f"tx_{schema}"
    published = log_path(str(warehouse), query)
    settings = format_settings(table_format, schema)
    # the test's own reads: the job's tables in the job's catalog (for Iceberg, the same Hadoop catalog on the
    # warehouse, defined in this session too, so the cuts' table names resolve here)
    config = SinkConfig(
        bootstrap_servers=kafka_bootstrap,
        topics=tuple(topics),
        warehouse=str(warehouse),
        checkpoint=str(checkpoint),
        table_name_template="{table}",
        query_name=query,
        **settings,
    )
    for_config(config).prepare_session(spark)
    await execute(
        pg_dsn,
        f"CREATE SCHEMA {schema}",
        f"CREATE TABLE {schema}.accounts (id int PRIMARY KEY, balance bigint NOT NULL)",
        f"CREATE TABLE {schema}.orders (id int PRIMARY KEY, lines int NOT NULL, total bigint NOT NULL)",
        f"CREATE TABLE {schema}.lines (order_id int, n int, amount bigint NOT NULL, PRIMARY KEY (order_id, n))",
        f"INSERT INTO {schema}.accounts SELECT g, {OPENING} FROM generate_series(1, {ACCOUNTS}) g",
    )
    args = [
        *("--bootstrap-servers", kafka_bootstrap, "--topics", ",".join([*topics, tx_topic])),
        *("--warehouse", str(warehouse), "--checkpoint", str(checkpoint), "--query-name", query),
        *("--table-name-template", "{table}", "--trigger", "processing-time=1 second"),
        *("--transaction-consistent", "--transaction-topic", tx_topic, "--max-offsets-per-trigger", "120"),
        *(f"--{k.replace('_', '-')}={v}" for k, v in settings.items()),
    ]
    jobs: list[subprocess.Popen[bytes]] = []

    def kill(job: subprocess.Popen[bytes]) -> None:
        os.killpg(job.pid, signal.SIGKILL)
        job.wait(30)

    try:
        connector = {**connector_config(schema), "provide.transaction.metadata": "true"}
        async with running_worker(worker_props) as (_worker, client):
            r = await client.post("/connectors", json={"name": "pg", "config": connector})
            assert r.status_code == 201, r.text

            async def written(topic: str, n: int) -> bool:
                from connect_worker.kafka.reader import read_to_end

                return len(await read_to_end({"bootstrap.servers": kafka_bootstrap}, topic)) >= n

            await wait_for(lambda: written(topics[0], ACCOUNTS), 40)  # the snapshot: the slot exists
            # one transaction so every topic exists before the job subscribes (the snapshot has no transaction)
            await execute(
                pg_dsn,
                f"BEGIN; INSERT INTO {schema}.orders VALUES (0, 1, 5); INSERT INTO {schema}.lines VALUES (0, 1, 5);"
                f" UPDATE {schema}.accounts SET balance = balance - 5 WHERE id = 1;"
                f" UPDATE {schema}.accounts SET balance = balance + 5 WHERE id = 2; COMMIT",
            )
            await wait_for(lambda: written(tx_topic, 2), 40)
            load = asyncio.create_task(workload(pg_dsn, schema, seed=int(schema[1:], 16)))
            mid_batch_kill = None
            for attempt in range(3):  # bounded: a kill that misses the inside of a batch is tried again
                jobs.append(submit(spark_jars, args, tmp_path / f"job{attempt}.log"))
                cut_commits = delta_commits(Path(published))

                def published_one(before: int = cut_commits) -> bool:
                    return delta_commits(Path(published)) > before

                await poll(published_one, 180)  # a batch published its cut
                cut_commits = delta_commits(Path(published))
                at_cut = {t: commits(table_format, warehouse, t) for t in TABLES}

                def next_batch_writes(at_cut: dict[str, int] = at_cut) -> bool:
                    return any(commits(table_format, warehouse, t) > n for t, n in at_cut.items())

                # the next batch has written one of its tables: kill the job before it writes the others
                await poll(next_batch_writes, 120)
                kill(jobs[-1])
                if delta_commits(Path(published)) == cut_commits:
                    mid_batch_kill = {t: commits(table_format, warehouse, t) - n for t, n in at_cut.items()}
                    break
            assert mid_batch_kill is not None, "no kill landed between a batch's table writes and its cut"
            newest = await asyncio.to_thread(lambda: newest_versions(spark, config))
            await load
            expected = await source_tables(pg_dsn, schema)
            jobs.append(submit(spark_jars, args, tmp_path / "job_last.log"))

            def caught_up() -> bool:
                cut = latest(spark, published)
                return cut is not None and as_tuples(read_cut(spark, cut)) == expected

            await poll(caught_up, 300, every=3.0)
            kill(jobs[-1])
            assert (await client.delete("/connectors/pg")).status_code == 204

        logs = job_logs(tmp_path)
        assert " held=" in logs, "no micro-batch ended inside a transaction: the test proved nothing"
        history = cuts(spark, published)
        # each batch published once: the log's rows are exactly the cuts' (cuts() would fold a second append)
        assert spark.read.format("delta").load(published).count() == sum(len(c.tables) for c in history)
        seen: dict[str, list[dict[str, Any]]] = {}
        for cut in history:
            seen = read_cut(spark, cut)
            assert broken_invariants(seen) == [], f"cut of batch {cut.batch_id}: {broken_invariants(seen)}"
        assert as_tuples(seen) == expected
        print(
            f"{len(history)} cuts checked; killed after writing {mid_batch_kill} commits past the cut; newest versions"
            f" then broke {broken_invariants(newest) or 'nothing'}"
        )
    finally:
        for job in jobs:
            if job.poll() is None:
                kill(job)
        await drop_source(pg_dsn, schema)
