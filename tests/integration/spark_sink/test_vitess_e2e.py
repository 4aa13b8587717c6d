"""Vitess topics this worker really wrote (fed by the VTGate test peer of tests/vitess_peer.py: the real gRPC
VStream protocol, no Vitess server can run here) → the Spark job → a Delta table equal to the peer's script.

Vitess events carry no LSN: the sink orders one key's events by its shard's GTID set in `source.vgtid`, and without
transaction metadata the order inside a transaction is unknown (spark_sink/position.py). The job runs two records
per micro-batch, so a transaction's insert and update of one key land in different batches and must both apply;
then the connector is restarted and the peer sends transactions again, as VTGate does after a rewind, and the
table must still end equal to the script."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from connectors.vitess.vgtid import ShardGtid, Vgtid
from tests.integration.spark_sink.support import change_events, format_settings, run_job, table_rows, topic_sink
from tests.integration.vitess.test_vitess_e2e import INT32, NOT_NULL, PRI_KEY, UINT64, VARCHAR
from tests.vitess_peer import (
    Col,
    FakeVtgate,
    begin,
    commit,
    copy_completed,
    field_event,
    response,
    row_event,
    vgtid_event,
)
from tests.worker_support import running_worker

pytestmark = [pytest.mark.integration, pytest.mark.spark]

COLUMNS = (
    Col("id", INT32, "int(11)", flags=NOT_NULL | PRI_KEY),
    Col("name", VARCHAR, "varchar(64)"),
    Col("big", UINT64, "bigint(20) unsigned"),
)
Row = tuple[str, str | None, str | None]


@pytest.fixture
async def vtgate() -> AsyncIterator[FakeVtgate]:
    async with FakeVtgate(keyspace="commerce", shards=("-80", "80-"), tables=("customers",)) as peer:
        yield peer


class Script:
    """The transactions the peer sends, and the table they leave (the model the Delta table must equal)."""

    def __init__(self) -> None:
        self.gtids = {"-80": 5, "80-": 1}
        self.table: dict[int, tuple[str | None, str | None]] = {}
        self.sent: list[Any] = []

    def vgtid(self) -> Vgtid:
        uuids = {"-80": "a1", "80-": "b2"}
        return Vgtid(
            tuple(ShardGtid("commerce", s, f"MySQL56/{uuids[s]}:1-{n}") for s, n in sorted(self.gtids.items()))
        )

    def transaction(self, shard: str, *changes: tuple[Row | None, Row | None]) -> Any:
        self.gtids[shard] += 1
        for before, after in changes:
            if before is not None:
                self.table.pop(int(before[0]), None)
            if after is not None:
                self.table[int(after[0])] = (after[1], after[2])
        unit = response(
            begin(),
            field_event("commerce", "customers", shard, COLUMNS),
            row_event("commerce", "customers", shard, list(changes)),
            vgtid_event(self.vgtid()),
            commit(1_700_000_000 + len(self.sent)),
        )
        self.sent.append(unit)
        return unit

    def expected(self) -> list[tuple[int, str | None, str | None]]:
        return sorted((k, name, big) for k, (name, big) in self.table.items())


def sink_rows(spark: Any, config: Any) -> list[tuple[int, str | None, str | None]]:
    return [(r["id"], r["name"], r["big"]) for r in table_rows(spark, config, "customers")]


async def test_vitess_topics_to_delta_across_shards_and_a_replay(
    spark: Any, spark_jars: Path, tmp_path: Path, worker_props: dict[str, str], kafka_bootstrap: str,
    unique_name: str, vtgate: FakeVtgate, table_format: str,
) -> None:  # fmt: skip
    p = unique_name
    topic = f"{p}.commerce.customers"
    script = Script()
    copied = [("1", "Anne", "18446744073709551615"), ("2", "Bob", "7"), ("3", "Cid", None)]
    script.table.update({int(r[0]): (r[1], r[2]) for r in copied})
    vtgate.script(
        [
            response(begin(), field_event("commerce", "customers", "-80", COLUMNS)),
            response(row_event("commerce", "customers", "-80", [(None, r) for r in copied])),
            response(vgtid_event(Vgtid((ShardGtid("commerce", "-80", "MySQL56/a1:1-5"), ShardGtid("commerce", "80-",
                                                                                                  "")))),
                     commit(1_600_000_000)),
            response(copy_completed()),
        ]
    )  # fmt: skip
    # two records per batch: transactions split
    config = topic_sink(kafka_bootstrap, topic, tmp_path, f"vt_{p}", **format_settings(table_format, p))
    connector = {
        "connector.class": "io.debezium.connector.vitess.VitessConnector",
        "database.hostname": "127.0.0.1",
        "database.port": str(vtgate.port),
        "vitess.keyspace": "commerce",
        "topic.prefix": p,
    }

    async def written(n: int) -> None:
        await change_events(kafka_bootstrap, topic, n)

    async with running_worker({**worker_props, "offset.flush.interval.ms": "300"}) as (_w, client):
        r = await client.post("/connectors", json={"name": "vt", "config": connector})
        assert r.status_code == 201, r.text
        await written(3)
        first = [
            script.transaction("-80", (None, ("4", "Dee", "1")), (("4", "Dee", "1"), ("4", "Dee2", "2"))),
            script.transaction("80-", (None, ("10", "Ten", None)), (None, ("11", "Eleven", "11"))),
            script.transaction("-80", (("1", "Anne", "18446744073709551615"), ("1", "Ann", "1")),
                               (("2", "Bob", "7"), None)),
            # delete and insert of one key in one transaction: the insert must win, in every batch split
            script.transaction("80-", (("10", "Ten", None), ("10", "Ten2", None)), (("11", "Eleven", "11"), None),
                               (None, ("11", "Eleven again", "12"))),
            script.transaction("-80", (("3", "Cid", None), ("5", "Cid", None))),  # key change: d(3), tombstone, c(5)
            script.transaction("-80", (None, ("6", "Six", "6")), (("6", "Six", "6"), None)),  # born and gone
        ]  # fmt: skip
        await vtgate.push(*first)
        await written(3 + 13)  # tombstones not counted
        await asyncio.to_thread(run_job, spark, config)
        assert sink_rows(spark, config) == script.expected()

        # the connector restarts and the peer sends the last four transactions again (VTGate after a rewind), then
        # new ones: the replay must not move any row back for good
        await asyncio.sleep(1.0)
        r = await client.post("/connectors/vt/restart", params={"includeTasks": "true"})
        assert r.status_code in (202, 204), r.text
        await vtgate.wait_for_streams(2)
        later = [
            script.transaction("-80", (("4", "Dee2", "2"), ("4", "Dee3", "3"))),
            script.transaction("80-", (("11", "Eleven again", "12"), None), (None, ("12", "Twelve", None))),
        ]
        await vtgate.push(*first[2:], *later)
        await written(3 + 13 + 9 + 3)
    await asyncio.to_thread(run_job, spark, config)
    assert sink_rows(spark, config) == script.expected()
    assert script.expected() == [
        (1, "Ann", "1"), (4, "Dee3", "3"), (5, "Cid", None), (10, "Ten2", None), (12, "Twelve", None),
    ]  # fmt: skip
