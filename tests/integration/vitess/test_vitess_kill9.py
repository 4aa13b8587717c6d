"""kill -9 of a worker streaming from VTGate loses no transaction: the new worker asks VTGate for the VGTID of
the last committed offset and continues from there. What is emitted twice is exactly the transactions after
that offset which the first worker had already sent (spec vitess.md §2.3, §6.3; acceptance item 21)."""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import httpx
import orjson
import pytest

from connect_worker.kafka.reader import read_to_end
from connectors.vitess.vgtid import ShardGtid, Vgtid
from tests.integration.runtime.test_cli import free_port, write_worker_props
from tests.vitess_peer import Col, FakeVtgate, begin, commit, field_event, response, row_event, vgtid_event
from tests.worker_support import wait_for

pytestmark = pytest.mark.integration

TRANSACTIONS = 400
COLUMNS = (Col("id", 263, "int(11)", flags=3), Col("name", 6165, "varchar(20)"))


def position(n: int) -> Vgtid:
    return Vgtid((ShardGtid("commerce", "0", f"MySQL56/a:1-{n}"),))


def transaction(n: int) -> object:
    """Transaction n inserts row n and moves shard 0 to GTID 1-n."""
    return response(
        begin(),
        field_event("commerce", "customers", "0", COLUMNS),
        row_event("commerce", "customers", "0", [(None, (str(n), f"row-{n}"))]),
        vgtid_event(position(n)),
        commit(1_700_000_000 + n),
    )


async def healthy(port: int, worker: asyncio.subprocess.Process) -> None:
    async def answers() -> bool:
        assert worker.returncode is None, f"the worker exited early with {worker.returncode}"
        try:
            async with httpx.AsyncClient() as client:
                r = await client.get(f"http://127.0.0.1:{port}/health", timeout=1)
                return bool(r.json().get("status") == "healthy")
        except httpx.HTTPError:
            return False

    await wait_for(answers, 30)


async def start_worker(*cmd: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        *cmd, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL
    )


async def ids_in(bootstrap: str, topic: str) -> list[int]:
    got = await read_to_end({"bootstrap.servers": bootstrap}, topic)
    return [orjson.loads(r.value or b"null")["after"]["id"] for r in got if r.value]


async def test_kill_9_mid_stream_then_resume_from_the_committed_vgtid(
    kafka_bootstrap: str, unique_name: str, tmp_path: Path
) -> None:
    port = free_port()
    worker = tmp_path / "worker.properties"
    write_worker_props(worker, kafka_bootstrap, unique_name, port)
    text = worker.read_text().replace("offset.flush.interval.ms=600000", "offset.flush.interval.ms=200")
    text = text.replace(
        "org.apache.kafka.connect.storage.StringConverter", "org.apache.kafka.connect.json.JsonConverter"
    )
    worker.write_text(text + "\nkey.converter.schemas.enable=false\nvalue.converter.schemas.enable=false\n")
    topic = f"{unique_name}.commerce.customers"
    expected = list(range(1, TRANSACTIONS + 1))

    async with FakeVtgate(keyspace="commerce", shards=("0",), tables=("customers",)) as vtgate:
        connector = tmp_path / "vt.properties"
        connector.write_text(
            "name=vt\nconnector.class=VitessConnector\ndatabase.hostname=127.0.0.1\n"
            f"database.port={vtgate.port}\nvitess.keyspace=commerce\ntopic.prefix={unique_name}\n"
            "snapshot.mode=never\n"
        )
        cmd = [sys.executable, "-m", "connect_worker", str(worker), str(connector)]

        first = await start_worker(*cmd)
        try:
            await healthy(port, first)
            await vtgate.wait_for_streams(1, timeout=30)

            # VTGate, as far as this test needs it: the database commits one transaction after another while
            # `running`; every VStream call gets the transactions after the position it asked for, then the new
            # ones as they come (a stream that died takes its unsent transactions with it, as a real one does)
            committed_in_db = 0
            running = True

            async def database() -> None:
                nonlocal committed_in_db
                while running and committed_in_db < TRANSACTIONS:
                    committed_in_db += 1
                    await asyncio.sleep(0.005)

            async def serve() -> None:
                streams, sent = 0, 0
                while True:
                    if len(vtgate.requests) > streams:  # a new call: resume after its VGTID
                        streams = len(vtgate.requests)
                        gtid = vtgate.requests[-1].vgtid.shard_gtids[0].gtid
                        # "current" is the first call's (snapshot.mode=never): the database starts with the test
                        sent = 0 if gtid == "current" else int(gtid.rsplit("-", 1)[1])
                    if sent < committed_in_db and vtgate.has_open_stream:  # never held for a later stream
                        sent += 1
                        await vtgate.push(transaction(sent))
                    else:
                        await asyncio.sleep(0.002)

            loop = asyncio.get_running_loop()
            db, server = loop.create_task(database()), loop.create_task(serve())

            async def half_in_kafka() -> bool:
                return len(await ids_in(kafka_bootstrap, topic)) >= TRANSACTIONS // 2

            await wait_for(half_in_kafka, 30)
            first.send_signal(signal.SIGKILL)
            await asyncio.wait_for(first.wait(), 10)
            assert len(await ids_in(kafka_bootstrap, topic)) < TRANSACTIONS, "the kill came after the whole stream"
            streams_before = len(vtgate.requests)
        finally:
            if first.returncode is None:
                first.kill()

        second = await start_worker(*cmd)
        try:
            await healthy(port, second)

            async def all_in_kafka() -> bool:
                return set(await ids_in(kafka_bootstrap, topic)) == set(expected)

            await wait_for(all_in_kafka, 60)
            second.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(second.wait(), 60) == 0
        finally:
            if second.returncode is None:
                second.kill()
            running = False
            server.cancel()
            db.cancel()

    resumed = [Vgtid.from_proto(r.vgtid) for r in vtgate.requests[streams_before:]]
    assert resumed, "the second worker never asked VTGate for a stream"
    starts = [int(v.shard_gtids[0].gtid.rsplit("-", 1)[1]) for v in resumed]
    # every position asked for is a whole transaction's own VGTID, never one from inside a transaction
    assert resumed == [position(n) for n in starts]

    got = await ids_in(kafka_bootstrap, topic)
    assert set(got) == set(expected), "a transaction was lost"
    # Kafka holds runs of consecutive transactions: the first run from the start, each later one from a position
    # the worker asked VTGate for (the committed VGTID); what runs overlap is what was sent twice
    runs = [[got[0]]]
    for n in got[1:]:
        if n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    assert runs[0][0] == 1
    assert all(run[0] - 1 in starts for run in runs[1:]), (starts, [(r[0], r[-1]) for r in runs])
    print(f"kill -9: {len(got) - len(expected)} transactions sent again (after the last offsets flush), none lost")
