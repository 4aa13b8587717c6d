"""The fake VTGate itself, driven by a real grpc.aio client channel (no services needed)."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import AsyncIterator
from typing import Any

import grpc
import pytest

from connectors.vitess.vgtid import Vgtid
from tests.vitess_peer import (
    Abort,
    Col,
    FakeVtgate,
    begin,
    commit,
    copy_completed,
    ddl,
    field_event,
    heartbeat,
    other,
    query_pb2,
    response,
    row_event,
    vgtid_event,
    vtgate_pb2,
)

pytestmark = pytest.mark.integration

binlogdata_pb2: Any = importlib.import_module("connectors.vitess.proto.binlogdata_pb2")
vtgateservice_pb2_grpc: Any = importlib.import_module("connectors.vitess.proto.vtgateservice_pb2_grpc")

VGTID = Vgtid.parse('[{"keyspace":"commerce","shard":"-80","gtid":"MySQL56/u1:1-5"}]')
TIMEOUT = 5


@pytest.fixture
async def vtgate() -> AsyncIterator[FakeVtgate]:
    async with FakeVtgate(shards=("-40", "40-80", "80-")) as peer:
        yield peer


@pytest.fixture
async def stub(vtgate: FakeVtgate) -> AsyncIterator[Any]:
    async with grpc.aio.insecure_channel(vtgate.address) as channel:
        yield vtgateservice_pb2_grpc.VitessStub(channel)


def rows_of(result: Any) -> list[list[bytes | None]]:
    out = []
    for row in result.rows:
        values, pos = [], 0
        for n in row.lengths:
            values.append(None if n < 0 else row.values[pos : pos + n])
            pos += max(n, 0)
        out.append(values)
    return out


def execute_request(sql: str) -> Any:
    return vtgate_pb2.ExecuteRequest(query=query_pb2.BoundQuery(sql=sql))


def vstream_request() -> Any:
    return vtgate_pb2.VStreamRequest(
        tablet_type=1,
        vgtid=VGTID.to_proto(),
        flags=vtgate_pb2.VStreamFlags(heartbeat_interval=5, stop_on_reshard=True),
    )


async def test_execute_lists_shards_and_tables(vtgate: FakeVtgate, stub: Any) -> None:
    shards = await stub.Execute(execute_request("SHOW VITESS_SHARDS LIKE 'commerce/%'"), timeout=TIMEOUT)
    assert not shards.HasField("error")
    assert [f.name for f in shards.result.fields] == ["Shards"]
    assert shards.result.fields[0].type == query_pb2.VARCHAR
    assert rows_of(shards.result) == [[b"commerce/-40"], [b"commerce/40-80"], [b"commerce/80-"]]

    tables = await stub.Execute(execute_request("show tables from `commerce`"), timeout=TIMEOUT)
    assert [f.name for f in tables.result.fields] == ["Tables_in_commerce"]
    assert rows_of(tables.result) == [[b"customers"]]

    other_ks = await stub.Execute(execute_request("show vitess_shards like 'other/%'"), timeout=TIMEOUT)
    assert rows_of(other_ks.result) == []

    unknown = await stub.Execute(execute_request("SELECT 1"), timeout=TIMEOUT)
    assert unknown.HasField("error")
    assert "SELECT 1" in unknown.error.message

    assert vtgate.executed == [
        "SHOW VITESS_SHARDS LIKE 'commerce/%'",
        "show tables from `commerce`",
        "show vitess_shards like 'other/%'",
        "SELECT 1",
    ]


async def test_scripted_session_then_push_then_client_cancel(vtgate: FakeVtgate, stub: Any) -> None:
    cols = [Col("id", query_pb2.INT64, "bigint", flags=3), Col("name", query_pb2.VARCHAR, "varchar(64)")]
    first = response(begin(), field_event("commerce", "customers", "-80", cols))
    second = response(
        row_event("commerce", "customers", "-80", [(None, [b"1", "Zoë"]), ([b"2", None], None)]),
        vgtid_event(VGTID),
        commit(1_700_000_000),
    )
    vtgate.script([first, second])

    call = stub.VStream(vstream_request(), metadata=(("a", "1"), ("username", "u")), timeout=TIMEOUT)
    got = [await call.read(), await call.read()]
    assert got == [first, second]

    fe = got[0].events[1].field_event
    assert fe.table_name == "commerce.customers"
    assert [(f.name, f.type, f.column_type, f.flags) for f in fe.fields] == [
        ("id", query_pb2.INT64, "bigint", 3),
        ("name", query_pb2.VARCHAR, "varchar(64)", 0),
    ]
    insert, delete = got[1].events[0].row_event.row_changes
    assert not insert.HasField("before")
    assert (list(insert.after.lengths), insert.after.values) == ([1, 4], "1Zoë".encode())
    assert not delete.HasField("after")
    assert (list(delete.before.lengths), delete.before.values) == ([1, -1], b"2")
    assert Vgtid.from_proto(got[1].events[1].vgtid) == VGTID
    assert got[1].events[2].timestamp == 1_700_000_000

    pushed = response(heartbeat(), ddl("alter table customers add column x int"), other(), copy_completed())
    await vtgate.push(pushed)
    assert await call.read() == pushed
    assert [e.type for e in pushed.events] == [
        binlogdata_pb2.HEARTBEAT,
        binlogdata_pb2.DDL,
        binlogdata_pb2.OTHER,
        binlogdata_pb2.COPY_COMPLETED,
    ]

    assert len(vtgate.requests) == 1
    request = vtgate.requests[0]
    assert request.tablet_type == 1
    assert (request.flags.heartbeat_interval, request.flags.stop_on_reshard) == (5, True)
    assert Vgtid.from_proto(request.vgtid) == VGTID
    assert vtgate.metadata[0]["a"] == "1"
    assert vtgate.metadata[0]["username"] == "u"

    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call.read()


async def test_abort_step_ends_the_call_with_its_status(vtgate: FakeVtgate, stub: Any) -> None:
    hello = response(other())
    vtgate.script([hello, Abort(grpc.StatusCode.UNAVAILABLE, "tablet went away")], [])

    call = stub.VStream(vstream_request(), timeout=TIMEOUT)
    assert await call.read() == hello
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call.read()
    assert info.value.code() == grpc.StatusCode.UNAVAILABLE
    assert info.value.details() == "tablet went away"

    # the next call plays the next session (empty: it waits for pushes)
    second = stub.VStream(vstream_request(), timeout=TIMEOUT)
    await vtgate.wait_for_streams(2, timeout=TIMEOUT)
    await vtgate.push(hello)
    assert await second.read() == hello
    second.cancel()


async def test_fail_stream_aborts_the_open_call(vtgate: FakeVtgate, stub: Any) -> None:
    call = stub.VStream(vstream_request(), timeout=TIMEOUT)
    await vtgate.wait_for_streams(1, timeout=TIMEOUT)
    await vtgate.fail_stream(grpc.StatusCode.INTERNAL, "boom", timeout=TIMEOUT)
    with pytest.raises(grpc.aio.AioRpcError) as info:
        await call.read()
    assert (info.value.code(), info.value.details()) == (grpc.StatusCode.INTERNAL, "boom")


async def test_push_without_an_open_stream_times_out(vtgate: FakeVtgate) -> None:
    with pytest.raises(AssertionError, match="an open VStream call"):
        await vtgate.push(response(other()), timeout=0.05)
    with pytest.raises(AssertionError, match="1 VStream call"):
        await vtgate.wait_for_streams(1, timeout=0.05)
