"""A table without a primary key, end to end: real PostgreSQL 15 (REPLICA IDENTITY FULL) → this worker → real Kafka
→ the Spark job → a Delta table holding each distinct row once with `_cdc_count`, the number of identical source
rows, equal to the source table as a multiset. Then the tail of the topic is written again (what a worker replays
after a crash: the same records) and the table must not change."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

import confluent_kafka
import psycopg
import pytest

from tests.integration.spark_sink.support import change_events, format_settings, run_job, table_rows, topic_sink
from tests.integration.spark_sink.test_postgres_e2e import big_text, connector_config, drop_source, execute
from tests.worker_support import running_worker

pytestmark = [pytest.mark.integration, pytest.mark.spark]


async def source_multiset(dsn: str, schema: str) -> Counter[tuple[Any, ...]]:
    async with await psycopg.AsyncConnection.connect(dsn) as conn:
        cur = await conn.execute(f"SELECT name, qty, note FROM {schema}.events")
        return Counter(await cur.fetchall())


def table_multiset(spark: Any, config: Any) -> Counter[tuple[Any, ...]]:
    got: Counter[tuple[Any, ...]] = Counter()
    for r in table_rows(spark, config, "events", "name"):
        assert r["_cdc_count"] > 0, r
        got[(r["name"], r["qty"], r["note"])] += r["_cdc_count"]
    return got


async def test_keyless_table_to_delta_and_a_replayed_tail(
    spark: Any, spark_jars: Path, tmp_path: Path, worker_props: dict[str, str], kafka_bootstrap: str, pg_dsn: str,
    unique_name: str, table_format: str,
) -> None:  # fmt: skip
    s = unique_name
    topic = f"{s}.{s}.events"
    big = big_text(7)
    await execute(
        pg_dsn,
        f"CREATE SCHEMA {s}",
        f"CREATE TABLE {s}.events (name text, qty int, note text)",
        f"ALTER TABLE {s}.events REPLICA IDENTITY FULL",
        f"ALTER TABLE {s}.events ALTER COLUMN note SET STORAGE EXTERNAL",
        f"INSERT INTO {s}.events VALUES ('a', 1, NULL), ('a', 1, NULL), ('b', 2, 'x'), ('z', 9, 'kept')",  # duplicates
    )
    config = topic_sink(kafka_bootstrap, topic, tmp_path, f"keyless_{s}", **format_settings(table_format, s))

    async def at_least(n: int) -> list[Any]:
        return await change_events(kafka_bootstrap, topic, n)

    try:
        async with running_worker(worker_props) as (_w, client):
            # transaction metadata gives every change a position of its own (a COPY's rows share one LSN)
            connector = {**connector_config(s), "provide.transaction.metadata": "true"}
            r = await client.post("/connectors", json={"name": "pg", "config": connector})
            assert r.status_code == 201, r.text
            await at_least(4)  # the snapshot, read two records per micro-batch below: split over batches
            await execute(
                pg_dsn,
                f"INSERT INTO {s}.events VALUES ('c', 3, '{big}')",  # TOASTed
                f"UPDATE {s}.events SET qty = 30 WHERE name = 'c'",  # note unchanged: taken from the old row
                f"DELETE FROM {s}.events WHERE ctid = (SELECT min(ctid) FROM {s}.events WHERE name = 'a')",  # one of 2
                f"UPDATE {s}.events SET name = 'bb' WHERE name = 'b'",
                f"INSERT INTO {s}.events VALUES ('b', 2, 'x')",  # the old content again
                f"INSERT INTO {s}.events VALUES ('d', 4, NULL)",
                f"DELETE FROM {s}.events WHERE name = 'd'",
            )
            async with await psycopg.AsyncConnection.connect(pg_dsn, autocommit=True) as conn:
                cur = conn.cursor()
                async with cur.copy(f"COPY {s}.events FROM STDIN") as copy:  # one WAL record, one LSN: 3 rows
                    for row in (("e", 5, None), ("e", 5, None), ("f", 6, "y")):
                        await copy.write_row(row)
            await at_least(4 + 7 + 3)
            await asyncio.to_thread(run_job, spark, config)
            want = await source_multiset(pg_dsn, s)
            assert table_multiset(spark, config) == want
            assert want[("a", 1, None)] == 1 and want[("c", 30, big)] == 1 and want[("e", 5, None)] == 2
            assert want[("z", 9, "kept")] == 1

            # the worker replays its last records (same bytes, same positions) after a crash: nothing changes
            tail = (await at_least(4 + 7 + 3))[-5:]
            producer = confluent_kafka.Producer({"bootstrap.servers": kafka_bootstrap})
            for rec in tail:
                producer.produce(topic, key=rec.key, value=rec.value, partition=0)
            assert producer.flush(15) == 0
            await execute(pg_dsn, f"INSERT INTO {s}.events VALUES ('a', 1, NULL)")
            await at_least(4 + 7 + 3 + sum(1 for rec in tail if rec.value is not None) + 1)
            await asyncio.to_thread(run_job, spark, config)
            assert table_multiset(spark, config) == await source_multiset(pg_dsn, s)
    finally:
        await drop_source(pg_dsn, s)
