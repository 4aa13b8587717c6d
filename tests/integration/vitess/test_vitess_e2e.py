"""The Vitess connector end to end: this worker → real Kafka, fed by the fake VTGate of tests/vitess_peer.py.

No Vitess cluster can run here (MySQL 8 is in no package source of these machines). The peer speaks the
real gRPC protocol (vtgateservice.Vitess/VStream and /Execute, protobuf messages with VStream's field
numbers), records what the connector asks for, and replays VStream responses scripted by each test.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

from connect_worker.kafka.reader import TopicRecord, read_to_end
from connectors.vitess.vgtid import ShardGtid, Vgtid
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
from tests.worker_support import running_worker, wait_for

pytestmark = pytest.mark.integration

INT32, VARCHAR, DATETIME, UINT64 = 263, 6165, 2064, 778
NOT_NULL, PRI_KEY = 1, 2
COLUMNS = (
    Col("id", INT32, "int(11)", flags=NOT_NULL | PRI_KEY),
    Col("name", VARCHAR, "varchar(64)"),
    Col("created", DATETIME, "datetime(6)", decimals=6),
    Col("big", UINT64, "bigint(20) unsigned"),
)


@pytest.fixture
async def vtgate() -> AsyncIterator[FakeVtgate]:
    async with FakeVtgate(keyspace="commerce", shards=("-80", "80-"), tables=("customers", "orders")) as peer:
        yield peer


def config(prefix: str, port: int, **extra: str) -> dict[str, str]:
    return {
        "connector.class": "io.debezium.connector.vitess.VitessConnector",
        "database.hostname": "127.0.0.1",
        "database.port": str(port),
        "vitess.keyspace": "commerce",
        "topic.prefix": prefix,
        **extra,
    }


def position(*gtids: tuple[str, str]) -> Vgtid:
    return Vgtid(tuple(ShardGtid("commerce", shard, gtid) for shard, gtid in gtids))


async def records_of(bootstrap: str, topic: str, at_least: int) -> list[TopicRecord]:
    async def enough() -> list[TopicRecord]:
        got = await read_to_end({"bootstrap.servers": bootstrap}, topic)
        return got if len(got) >= at_least else []

    result: list[TopicRecord] = await wait_for(enough, 40)
    return result


def payload(record: TopicRecord) -> Any:
    return None if record.value is None else orjson.loads(record.value)["payload"]


def transaction(shard: str, ts: int, after_gtid: str, *changes: Any) -> Any:
    return response(
        begin(),
        field_event("commerce", "customers", shard, COLUMNS),
        row_event("commerce", "customers", shard, list(changes)),
        vgtid_event(position(("-80", after_gtid), ("80-", "MySQL56/b:1-1"))),
        commit(ts),
    )


async def test_copy_then_stream_with_debezium_2_7_records(
    worker_props: dict[str, str], kafka_bootstrap: str, unique_name: str, vtgate: FakeVtgate
) -> None:
    p = unique_name
    row1 = ("1", "Anne", "2018-06-20 06:37:03.123456", "18446744073709551615")
    row2 = ("2", "Bob", None, "7")
    vtgate.script(
        [
            response(begin(), field_event("commerce", "customers", "-80", COLUMNS)),
            response(row_event("commerce", "customers", "-80", [(None, row1)])),
            response(vgtid_event(position(("-80", "MySQL56/a:1-5"), ("80-", ""))), commit(1_559_033_904)),
            response(copy_completed()),
        ]
    )
    worker_props = {**worker_props, "offset.flush.interval.ms": "300"}
    async with running_worker(worker_props) as (_w, client):
        r = await client.post("/connectors", json={"name": "vt", "config": config(p, vtgate.port)})
        assert r.status_code == 201, r.text
        topic = f"{p}.commerce.customers"
        (copied,) = await records_of(kafka_bootstrap, topic, 1)
        # no offset, snapshot.mode=initial: a VStream Copy of every shard VTGate lists
        assert vtgate.executed[0] == "SHOW VITESS_SHARDS LIKE 'commerce/%'"
        first = vtgate.requests[0]
        assert [(g.keyspace, g.shard, g.gtid) for g in first.vgtid.shard_gtids] == [
            ("commerce", "-80", ""),
            ("commerce", "80-", ""),
        ]
        assert first.tablet_type == 1 and not first.flags.stop_on_reshard
        value = orjson.loads(copied.value or b"")
        envelope = [f["field"] for f in value["schema"]["fields"]]
        assert envelope == ["before", "after", "source", "op", "ts_ms", "ts_us", "ts_ns", "transaction"]
        source_fields = [f["field"] for f in value["schema"]["fields"][2]["fields"]]
        assert source_fields == [
            "version", "connector", "name", "ts_ms", "snapshot", "db", "sequence", "ts_us", "ts_ns", "keyspace",
            "table", "shard", "vgtid",
        ]  # fmt: skip
        c = value["payload"]
        assert c["op"] == "c"
        assert c["after"] == {"id": 1, "name": "Anne", "created": 1529476623123456, "big": "18446744073709551615"}
        src = c["source"]
        assert (src["connector"], src["name"], src["snapshot"], src["db"], src["sequence"]) == (
            "vitess", p, "false", "", None,
        )  # fmt: skip
        assert (src["ts_ms"], src["ts_us"], src["ts_ns"]) == (1559033904000, 1559033904000000, 1559033904000000000)
        assert (src["keyspace"], src["table"], src["shard"]) == ("commerce", "customers", "-80")
        assert src["vgtid"] == '[{"keyspace":"commerce","shard":"-80","gtid":"MySQL56/a:1-5"},' + (
            '{"keyspace":"commerce","shard":"80-","gtid":""}]'
        )
        assert c["ts_us"] // 1000 == c["ts_ms"] and c["ts_ns"] // 1000 == c["ts_us"]
        assert orjson.loads(copied.key or b"")["payload"] == {"id": 1}

        await vtgate.push(
            transaction("-80", 1_600_000_000, "MySQL56/a:1-6", (None, row2)),
            transaction("-80", 1_600_000_001, "MySQL56/a:1-7", (row2, ("2", "Bobby", None, "7"))),
            transaction("-80", 1_600_000_002, "MySQL56/a:1-8", (("2", "Bobby", None, "7"), ("3", "Bobby", None, "7"))),
            transaction("-80", 1_600_000_003, "MySQL56/a:1-9", (("3", "Bobby", None, "7"), None)),
        )
        got = await records_of(kafka_bootstrap, topic, 8)
        ops = [payload(r)["op"] if r.value else None for r in got[1:]]
        assert ops == ["c", "u", "d", None, "c", "d", None]
        update = payload(got[2])
        assert update["before"]["name"] == "Bob" and update["after"]["name"] == "Bobby"
        assert payload(got[1])["after"]["created"] is None
        assert next(h[0] for h in got[3].headers or []) == "__debezium.newkey"
        assert next(h[0] for h in got[5].headers or []) == "__debezium.oldkey"

        # the offsets topic holds the last transaction's VGTID; a restarted task resumes from it exactly
        await asyncio.sleep(1.0)
        r = await client.post("/connectors/vt/restart", params={"includeTasks": "true"})
        assert r.status_code in (202, 204), r.text
        await vtgate.wait_for_streams(2)
        resumed = vtgate.requests[-1]
        assert Vgtid.from_proto(resumed.vgtid) == position(("-80", "MySQL56/a:1-9"), ("80-", "MySQL56/b:1-1"))


async def test_never_streams_from_current_with_filter_flags_and_metadata(
    worker_props: dict[str, str], unique_name: str, vtgate: FakeVtgate
) -> None:
    extra = {
        "snapshot.mode": "never",
        "table.include.list": "commerce.customers",
        "heartbeat.interval.ms": "5000",
        "vitess.grpc.headers": "a:1,b:2",
        "database.user": "alice",
        "database.password": "secret",
        "vitess.tablet.type": "REPLICA",
    }
    async with running_worker(worker_props) as (_w, client):
        r = await client.post("/connectors", json={"name": "vt", "config": config(unique_name, vtgate.port, **extra)})
        assert r.status_code == 201, r.text
        await vtgate.wait_for_streams(1)
        request = vtgate.requests[0]
        assert [(g.keyspace, g.shard, g.gtid) for g in request.vgtid.shard_gtids] == [("commerce", "", "current")]
        assert [(rule.match, rule.filter) for rule in request.filter.rules] == [
            ("customers", "select * from `customers`")
        ]
        assert request.flags.heartbeat_interval == 5 and request.tablet_type == 2
        metadata = vtgate.metadata[0]
        assert (metadata["a"], metadata["b"], metadata["username"], metadata["password"]) == (
            "1",
            "2",
            "alice",
            "secret",
        )
        assert "SHOW TABLES FROM commerce" in vtgate.executed


async def test_bad_settings_and_unreachable_vtgate_are_refused(worker_props: dict[str, str], unique_name: str) -> None:
    async with running_worker(worker_props) as (_w, client):
        bad = config(unique_name, 1, **{"time.precision.mode": "adaptive", "name": "vt"})
        answer = (await client.put("/connector-plugins/VitessConnector/config/validate", json=bad)).json()
        errors = {c["value"]["name"]: c["value"]["errors"] for c in answer["configs"] if c["value"]["errors"]}
        assert errors == {"time.precision.mode": ["The 'adaptive' time.precision.mode is no longer supported"]}
        unreachable = {k: v for k, v in bad.items() if k != "time.precision.mode"}
        r = await client.post("/connectors", json={"name": "vt", "config": unreachable})
        assert r.status_code == 400 and "Unable to connect to VTGate at 127.0.0.1:1" in r.text
