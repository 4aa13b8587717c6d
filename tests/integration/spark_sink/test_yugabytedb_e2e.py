"""YugabyteDB topics this worker really wrote (yboutput cells, the real PostgreSQL 15 cluster standing in for
YugabyteDB, see tests/integration/yugabytedb) → the Spark job → a Delta table equal to the source table.

Every column arrives as a `{value, set}` cell; an update that leaves a TOASTed column alone sends a null cell, which
must leave the table's value as it is. The connector sends no transaction metadata here, so the order inside a
transaction is unknown to the sink (a HYBRID_TIME slot gives every event of a transaction one LSN): the job runs
two records per micro-batch, so a transaction's changes to one key land in different batches."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.integration.spark_sink.support import change_events, format_settings, run_job, table_rows, topic_sink
from tests.integration.yugabytedb.test_yugabytedb_e2e import BIG, employees, yb_config
from tests.worker_support import running_worker

pytestmark = [pytest.mark.integration, pytest.mark.spark]


async def source_rows(conn: psycopg.AsyncConnection[Any], schema: str) -> list[tuple[Any, ...]]:
    cur = await conn.execute(
        f"SELECT employee_id, employee_name, employee_dept, notes FROM {schema}.employees ORDER BY employee_id"
    )
    return list(await cur.fetchall())


def sink_rows(spark: Any, config: Any) -> list[tuple[Any, ...]]:
    return [
        (r["employee_id"], r["employee_name"], r["employee_dept"], r["notes"])
        for r in table_rows(spark, config, "employees", "employee_id")
    ]


async def test_yboutput_topics_to_delta(
    spark: Any, spark_jars: Path, tmp_path: Path, worker_props: dict[str, str], kafka_bootstrap: str, pg_dsn: str,
    unique_name: str, table_format: str,
) -> None:  # fmt: skip
    s = unique_name
    topic = f"{s}.{s}.employees"
    config = topic_sink(kafka_bootstrap, topic, tmp_path, f"yb_{s}", **format_settings(table_format, s))

    async def written(n: int) -> None:
        await change_events(kafka_bootstrap, topic, n)

    async with employees(pg_dsn, s) as conn, running_worker(worker_props) as (_w, client):
        r = await client.post("/connectors", json={"name": "yb", "config": yb_config(s)})
        assert r.status_code == 201, r.text
        await written(1)  # the snapshot of (1001, Alice, Packaging, NULL)
        await conn.execute(f"INSERT INTO {s}.employees VALUES (1002, 'Bob', 'Sales', %s)", (BIG,))
        await conn.execute(f"UPDATE {s}.employees SET employee_name = 'Bobby' WHERE employee_id = 1002")  # TOAST kept
        async with conn.transaction():  # three changes of one key in one transaction
            await conn.execute(f"INSERT INTO {s}.employees VALUES (1003, 'Cy', 'Ops', 'short')")
            await conn.execute(f"UPDATE {s}.employees SET employee_dept = 'Dev' WHERE employee_id = 1003")
            await conn.execute(f"UPDATE {s}.employees SET notes = 'longer' WHERE employee_id = 1003")
        async with conn.transaction():  # deleted and inserted again in one transaction
            await conn.execute(f"DELETE FROM {s}.employees WHERE employee_id = 1001")
            await conn.execute(f"INSERT INTO {s}.employees VALUES (1001, 'Alice', 'Board', NULL)")
        await conn.execute(f"UPDATE {s}.employees SET employee_id = 1004 WHERE employee_id = 1003")  # key change
        await conn.execute(f"UPDATE {s}.employees SET employee_dept = 'HR' WHERE employee_id = 1002")
        await written(1 + 2 + 3 + 2 + 2 + 1)  # r; c u; c u u; d c; d c; u (tombstones not counted)
        await asyncio.to_thread(run_job, spark, config)
        assert sink_rows(spark, config) == await source_rows(conn, s)

        # yboutput cannot tell "set to NULL" from "not sent" (both are a null cell): an update to NULL leaves the
        # table's value, as YugabyteDB's own YBExtractNewRecordState leaves the column out
        await conn.execute(f"UPDATE {s}.employees SET employee_dept = NULL WHERE employee_id = 1004")
        await written(1 + 2 + 3 + 2 + 2 + 1 + 1)
        await asyncio.to_thread(run_job, spark, config)
        want = [(i, n, "Dev" if i == 1004 else d, notes) for i, n, d, notes in await source_rows(conn, s)]
        assert sink_rows(spark, config) == want
