"""Distributed mode on the real Kafka: workers meet in Kafka's group coordinator (protocol type "connect"), the
leader spreads connectors and tasks over them, writes made on any worker land through the leader, and work moves
when a worker joins or leaves. In-process workers here; tests/integration/runtime/test_distributed_faults.py kills
and stops worker processes."""

from __future__ import annotations

import asyncio
import contextlib
from collections import Counter
from collections.abc import AsyncIterator, Awaitable
from pathlib import Path
from typing import Any

import httpx
import pytest

from connect_worker.app import WorkerProcess
from connect_worker.kafka.reader import read_to_end
from connect_worker.runtime.distributed_herder import DistributedHerder
from connect_worker.runtime.herder import ConnectorTaskId
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.request_signature import SessionKey, signature_headers
from connect_worker.runtime.source_task import WorkerSourceTask
from connect_worker.runtime.worker_config import WorkerConfig
from tests import names
from tests.worker_support import wait_for, worker_properties

pytestmark = [pytest.mark.integration, pytest.mark.timeout(240)]

GROUP_TIMINGS = {"session.timeout.ms": "6000", "heartbeat.interval.ms": "1000", "rebalance.timeout.ms": "20000"}


class Cluster:
    """In-process distributed workers sharing one group and one set of internal topics."""

    def __init__(self, bootstrap: str, registry: PluginRegistry, **extra: str) -> None:
        self.prefix = names.unique("dist-", 8)
        self.bootstrap = bootstrap
        self.registry = registry
        self.extra = {**GROUP_TIMINGS, "group.id": self.prefix, **extra}
        self.workers: list[tuple[WorkerProcess, httpx.AsyncClient]] = []

    async def add(self) -> tuple[WorkerProcess, httpx.AsyncClient]:
        props = {**worker_properties(self.bootstrap, self.prefix), **self.extra}
        worker = WorkerProcess(WorkerConfig.from_properties(props), self.registry, distributed=True)
        await worker.start()
        client = httpx.AsyncClient(base_url=props["listeners"], timeout=30)
        self.workers.append((worker, client))
        return worker, client

    async def start(self, workers: int, connectors: int = 0, tasks: int = 0) -> dict[str | ConnectorTaskId, str]:
        """Adds `workers` workers, then waits until the cluster has settled with that much work running."""
        for _ in range(workers):
            await self.add()
        return await self.settled(connectors, tasks)

    async def remove(self, worker: WorkerProcess) -> None:
        for i, (w, client) in enumerate(self.workers):
            if w is worker:
                del self.workers[i]
                await w.stop()
                await client.aclose()
                return

    async def close(self) -> None:
        for w, client in reversed(self.workers):
            await w.stop()
            await client.aclose()
        self.workers.clear()

    def herder(self, i: int) -> DistributedHerder:
        h = self.workers[i][0].herder
        assert isinstance(h, DistributedHerder)
        return h

    def owners(self) -> dict[str | ConnectorTaskId, str]:
        """What runs where, from the workers' own memberships."""
        out: dict[str | ConnectorTaskId, str] = {}
        for w, _ in self.workers:
            a = self._member(w).assignment
            if a is not None:
                for x in (*a.connectors, *a.tasks):
                    assert x not in out, f"{x} runs on two workers"
                    out[x] = w.config.worker_id
        return out

    @staticmethod
    def _member(w: WorkerProcess) -> Any:
        h = w.herder
        assert isinstance(h, DistributedHerder)
        return h.member

    async def settled(self, connectors: int, tasks: int) -> dict[str | ConnectorTaskId, str]:
        """Wait until every worker is in one generation, nobody rebalances, and everything runs somewhere."""

        async def check() -> tuple[dict[str | ConnectorTaskId, str]] | None:
            members = [self._member(w) for w, _ in self.workers]
            if any(m.rebalancing or m.assignment is None for m in members):
                return None
            if len({m.generation for m in members}) != 1:
                return None
            owners = self.owners()
            have_c = sum(isinstance(x, str) for x in owners)
            have_t = sum(isinstance(x, ConnectorTaskId) for x in owners)
            return (owners,) if (have_c, have_t) == (connectors, tasks) else None  # (an empty dict is falsy)

        found: tuple[dict[str | ConnectorTaskId, str]] = await wait_for(check, timeout=60)
        return found[0]


@pytest.fixture
async def cluster(kafka_bootstrap: str) -> AsyncIterator[Cluster]:
    c = Cluster(kafka_bootstrap, PluginRegistry.from_entry_points(), **{"scheduled.rebalance.max.delay.ms": "0"})
    try:
        yield c
    finally:
        await c.close()


def _file_connector(tmp_path: Path, name: str) -> dict[str, str]:
    source = tmp_path / f"{name}.txt"
    source.write_text("".join(f"{name}-{i}\n" for i in range(5)))
    return {"connector.class": "FileStreamSource", "file": str(source), "topic": f"{name}-lines"}


async def _create_file_connectors(client: httpx.AsyncClient, tmp_path: Path, names: list[str]) -> None:
    for name in names:
        r = await client.post("/connectors", json={"name": name, "config": _file_connector(tmp_path, name)})
        assert r.status_code == 201, r.text


async def _statuses(client: httpx.AsyncClient, names: list[str]) -> dict[str, Any]:
    out = {}
    for name in names:
        r = await client.get(f"/connectors/{name}/status")
        if r.status_code != 200:
            return {}
        out[name] = r.json()
    return out


async def test_three_workers_share_connectors_and_any_worker_takes_writes(cluster: Cluster, tmp_path: Path) -> None:
    await cluster.start(3)
    leaders = {cluster.herder(i).member.leader_url for i in range(3)}
    assert len(leaders) == 1 and None not in leaders
    names = [f"fs{i}" for i in range(4)]
    followers = [c for i, (_, c) in enumerate(cluster.workers) if not cluster.herder(i).member.is_leader]
    for i, name in enumerate(names):
        # writes on a follower are forwarded to the leader
        r = await followers[i % 2].post("/connectors", json={"name": name, "config": _file_connector(tmp_path, name)})
        assert r.status_code == 201, r.text
        assert r.json()["tasks"] == []  # distributed: task configs come later
    owners = await cluster.settled(4, 4)
    # connectors and tasks are each spread evenly (4 of each on 3 workers)
    assert sorted(Counter(w for x, w in owners.items() if isinstance(x, str)).values()) == [1, 1, 2]
    assert sorted(Counter(w for x, w in owners.items() if not isinstance(x, str)).values()) == [1, 1, 2]

    async def all_running() -> dict[str, Any] | None:
        views = [await _statuses(c, names) for _, c in cluster.workers]
        if not all(views) or any(v != views[0] for v in views):
            return None
        states = [v["connector"]["state"] for v in views[0].values()]
        states += [t["state"] for v in views[0].values() for t in v["tasks"]]
        return views[0] if states == ["RUNNING"] * 8 else None

    status = await wait_for(all_running, timeout=30)
    for name in names:  # each worker reports what it runs as its worker_id
        assert status[name]["connector"]["worker_id"] == owners[name]
        assert status[name]["tasks"][0]["worker_id"] == owners[ConnectorTaskId(name, 0)]
    # reads agree on every worker
    for _, c in cluster.workers:
        assert sorted((await c.get("/connectors")).json()) == names
        assert (await c.get("/connectors/fs2")).json()["tasks"] == [{"connector": "fs2", "task": 0}]

    # pause, resume and delete through a follower
    assert (await followers[0].put("/connectors/fs1/pause")).status_code == 202

    async def paused() -> bool:
        s = (await cluster.workers[0][1].get("/connectors/fs1/status")).json()
        return bool(s["connector"]["state"] == "PAUSED" and s["tasks"][0]["state"] == "PAUSED")

    await wait_for(paused)
    assert (await followers[1].put("/connectors/fs1/resume")).status_code == 202
    assert (await followers[1].delete("/connectors/fs3")).status_code == 204
    await cluster.settled(3, 3)
    for _, c in cluster.workers:
        assert (await c.get("/connectors/fs3")).status_code == 404


async def test_a_joining_worker_takes_work_without_restarting_what_stays(cluster: Cluster, tmp_path: Path) -> None:
    _, first = await cluster.add()
    await cluster.add()
    await cluster.settled(0, 0)
    names = [f"j{i}" for i in range(3)]
    await _create_file_connectors(first, tmp_path, names)
    before = await cluster.settled(3, 3)
    starts_before = {t: n for i in range(2) for t, n in cluster.herder(i).task_starts.items()}
    assert all(n == 1 for n in starts_before.values())
    await cluster.add()
    after = await cluster.settled(3, 3)
    new_id = cluster.workers[2][0].config.worker_id
    moved = {x for x in after if after[x] != before[x]}
    assert moved and all(after[x] == new_id for x in moved)  # only moves to the new worker
    assert sorted(Counter(w for x, w in after.items() if isinstance(x, str)).values()) == [1, 1, 1]
    assert sorted(Counter(w for x, w in after.items() if not isinstance(x, str)).values()) == [1, 1, 1]
    for i in range(2):  # tasks that stayed were not restarted
        for t, n in cluster.herder(i).task_starts.items():
            if after.get(t) == cluster.workers[i][0].config.worker_id:
                assert n == 1, f"{t} was restarted"


async def test_a_leaving_worker_hands_its_work_over(cluster: Cluster, tmp_path: Path) -> None:
    await cluster.start(3)
    client = cluster.workers[0][1]
    await _create_file_connectors(client, tmp_path, ["l0", "l1", "l2"])
    owners = await cluster.settled(3, 3)
    leaving = cluster.workers[1][0]
    gone = {x for x, w in owners.items() if w == leaving.config.worker_id}
    assert gone
    await cluster.remove(leaving)  # a clean stop leaves the group: the others rebalance at once
    after = await cluster.settled(3, 3)
    assert leaving.config.worker_id not in after.values()


async def test_tasks_hold_their_records_while_the_membership_is_unconfirmed(cluster: Cluster, tmp_path: Path) -> None:
    """The zombie gate: a task produces nothing while its gate is shut (what WorkerGroupMember.fresh() says after a
    stopped process resumes past its session timeout), and everything once it opens. The gate is shut by hand here:
    a frozen process is tests/integration/runtime/test_distributed_faults.py."""
    worker, client = await cluster.add()
    await cluster.settled(0, 0)
    assert worker.herder is cluster.herder(0) and cluster.herder(0).member.fresh()
    source = tmp_path / "gate.txt"
    source.write_text("".join(f"before-{i}\n" for i in range(5)))
    topic = f"{cluster.prefix}-gate"
    config = {
        "connector.class": "FileStreamSource",
        "file": str(source),
        "topic": topic,
        "value.converter": "org.apache.kafka.connect.storage.StringConverter",
    }
    assert (await client.post("/connectors", json={"name": "gate", "config": config})).status_code == 201
    await cluster.settled(1, 1)

    async def lines() -> list[bytes]:
        return [r.value or b"" for r in await read_to_end({"bootstrap.servers": cluster.bootstrap}, topic)]

    await wait_for(lambda: _has(lines, 5))
    runtime_worker = cluster.herder(0)._worker
    (task,) = runtime_worker.tasks("gate").values()
    assert isinstance(task, WorkerSourceTask)
    shut = True
    task._gate = lambda: not shut
    with source.open("a") as f:
        f.write("".join(f"after-{i}\n" for i in range(5)))
    await asyncio.sleep(3)
    assert len(await lines()) == 5  # polled, but held
    shut = False
    got = await wait_for(lambda: _has(lines, 10))
    assert sorted(got) == sorted([f"before-{i}".encode() for i in range(5)] + [f"after-{i}".encode() for i in range(5)])


async def _has(read: Any, n: int) -> list[bytes] | None:
    got: list[bytes] = await read()
    return got if len(got) >= n else None


async def test_stop_offsets_restart_and_resume_work_from_any_worker(cluster: Cluster, tmp_path: Path) -> None:
    await cluster.start(2)
    a, b = (c for _, c in cluster.workers)
    source = tmp_path / "ops.txt"
    source.write_text("x\ny\n")
    config = {"connector.class": "FileStreamSource", "file": str(source), "topic": f"{cluster.prefix}-ops"}
    assert (await a.post("/connectors", json={"name": "ops", "config": config})).status_code == 201
    await cluster.settled(1, 1)

    async def state(client: httpx.AsyncClient, want: str, tasks: int) -> bool:
        r = await client.get("/connectors/ops/status")
        if r.status_code != 200:
            return False
        s = r.json()
        return bool(s["connector"]["state"] == want and len(s["tasks"]) == tasks)

    await wait_for(lambda: state(b, "RUNNING", 1))
    # offsets may not change while the connector runs (the leader answers, wherever it was asked)
    for client in (a, b):
        r = await client.patch(
            "/connectors/ops/offsets", json={"offsets": [{"partition": {"filename": "f"}, "offset": {"position": 1}}]}
        )
        assert r.status_code == 400, r.text
    assert (await b.put("/connectors/ops/stop")).status_code == 204
    for client in (a, b):
        await wait_for(lambda c=client: state(c, "STOPPED", 0))  # type: ignore[misc]
        assert (await client.get("/connectors/ops/tasks")).json() == []
    await cluster.settled(1, 0)
    partition = {"filename": str(source)}
    r = await a.patch(
        "/connectors/ops/offsets", json={"offsets": [{"partition": partition, "offset": {"position": 2}}]}
    )
    assert r.status_code == 200, r.text
    for client in (a, b):
        got = (await client.get("/connectors/ops/offsets")).json()["offsets"]
        assert {"partition": partition, "offset": {"position": 2}} in got
    assert (await b.put("/connectors/ops/resume")).status_code == 202
    await cluster.settled(1, 1)
    for client in (a, b):
        await wait_for(lambda c=client: state(c, "RUNNING", 1))  # type: ignore[misc]
    task = ConnectorTaskId("ops", 0)

    def starts() -> int:
        return sum(cluster.herder(i).task_starts.get(task, 0) for i in range(2))

    assert starts() >= 2  # the first start and the one after resume
    # a restart of everything, asked of either worker, is planned by the leader and carried out by the owners; the
    # 202 comes before that (the request goes through the config topic), so the start is waited for
    before = starts()
    r = await b.post("/connectors/ops/restart?includeTasks=true")
    assert r.status_code == 202, r.text
    assert r.json()["connector"]["state"] == "RESTARTING"

    async def restarted() -> bool:
        return starts() > before

    await wait_for(restarted)
    await wait_for(lambda: state(a, "RUNNING", 1))
    # a task restart asked of the worker not running it is sent on to the one that does; it is done when answered
    before = starts()
    for client in (a, b):
        assert (await client.post("/connectors/ops/tasks/0/restart")).status_code == 204
    assert (await a.post("/connectors/ops/tasks/7/restart")).status_code == 404
    assert starts() >= before + 2, (before, starts())  # one start per worker asked, done before the 204
    await wait_for(lambda: state(b, "RUNNING", 1))
    owner = cluster.owners()[task]
    assert owner in {w.config.worker_id for w, _ in cluster.workers}


async def test_the_sessioned_group_signs_inter_worker_requests(cluster: Cluster, tmp_path: Path) -> None:
    """KIP-507: the group runs `sessioned` (Connect's default), the leader keeps a session key in the config topic,
    task configs handed to the leader are signed, and an internal request without a valid signature is refused
    with Connect's answers."""
    await cluster.start(2)
    assert all(cluster.herder(i).member.protocol == "sessioned" for i in range(2))

    async def key_known() -> bool:
        return all(cluster.herder(i)._session_key() is not None for i in range(2))

    await wait_for(key_known)
    key = cluster.herder(0)._session_key()
    assert key is not None and key.algorithm == "HmacSHA256" and len(key.key) == 32
    follower = next(c for i, (_, c) in enumerate(cluster.workers) if not cluster.herder(i).member.is_leader)
    # the followers' own hand-over works: connectors whose instance runs on the follower get their tasks
    await _create_file_connectors(follower, tmp_path, [f"s{i}" for i in range(2)])
    await cluster.settled(2, 2)

    body = b'[{"task.class":"x"}]'
    unsigned = await follower.post("/connectors/s0/tasks", content=body, headers={"Content-Type": "application/json"})
    assert unsigned.status_code == 400
    assert unsigned.json()["message"] == "Internal request missing required signature"
    forged = SessionKey(b"\0" * 32, "HmacSHA256", 0)
    bad = await follower.post(
        "/connectors/s0/tasks",
        content=body,
        headers={"Content-Type": "application/json", **signature_headers(forged, "HmacSHA256", body)},
    )
    assert bad.status_code == 403
    assert bad.json()["message"] == "Internal request contained invalid signature."
    other_mac = await follower.post(
        "/connectors/s0/tasks",
        content=body,
        headers={"Content-Type": "application/json", **signature_headers(key, "HmacSHA512", body)},
    )
    assert other_mac.status_code == 400 and "key signing algorithm" in other_mac.json()["message"]
    tasks_before = (await follower.get("/connectors/s0/tasks")).json()
    assert [t["config"].get("task.class") for t in tasks_before] != ["x"]  # nothing refused was written


async def test_a_compatible_member_makes_the_group_unsigned(kafka_bootstrap: str, tmp_path: Path) -> None:
    """A member offering only `compatible` (connect.protocol=compatible, or an older worker) makes the whole group
    run it: internal requests are then not signed and not checked, as in Connect."""
    cluster = Cluster(kafka_bootstrap, PluginRegistry.from_entry_points(), **{"scheduled.rebalance.max.delay.ms": "0"})
    try:
        await cluster.add()
        cluster.extra["connect.protocol"] = "compatible"
        await cluster.add()
        await cluster.settled(0, 0)
        assert {cluster.herder(i).member.protocol for i in range(2)} == {"compatible"}
        client = cluster.workers[1][1]
        await _create_file_connectors(client, tmp_path, [f"c{i}" for i in range(2)])
        await cluster.settled(2, 2)
    finally:
        await cluster.close()


async def test_a_worker_that_lost_its_membership_takes_its_own_work_up_again(
    kafka_bootstrap: str, tmp_path: Path
) -> None:
    """A worker the coordinator forgot (here: its member id made unknown) stops its work at once, joins again
    reporting what it ran, and is left it: no wait for `scheduled.rebalance.max.delay.ms` (Connect's 5 minutes,
    the default kept here), no work moved."""
    cluster = Cluster(kafka_bootstrap, PluginRegistry.from_entry_points())
    try:
        await cluster.start(2)
        client = cluster.workers[0][1]
        await _create_file_connectors(client, tmp_path, [f"m{i}" for i in range(2)])
        before = await cluster.settled(2, 2)
        member = cluster.herder(1).member
        mine = {x for x, w in before.items() if w == cluster.workers[1][0].config.worker_id}
        assert mine
        starts = dict(cluster.herder(1).task_starts)
        member.member_id = "connect-forgotten"  # the next heartbeat: UNKNOWN_MEMBER_ID
        await wait_for(lambda: _stopped_work(cluster.herder(1)), timeout=10)
        after = await cluster.settled(2, 2)
        assert after == before
        expected = {x for x in mine if isinstance(x, ConnectorTaskId)}

        async def restarted() -> set[ConnectorTaskId]:
            return {t for t, n in cluster.herder(1).task_starts.items() if n > starts.get(t, 0)}

        # the assignment settles before the tasks have started again (each first reads the offsets topic)
        with contextlib.suppress(AssertionError):
            await wait_for(lambda: _equal(restarted(), expected), timeout=20)
        assert await restarted() == expected  # stopped, then started again here
    finally:
        await cluster.close()


async def _equal(value: Awaitable[Any], expected: Any) -> bool:
    return bool(await value == expected)


async def _stopped_work(herder: DistributedHerder) -> bool:
    return bool(herder.member._idle or herder.member.member_id != "connect-forgotten")


async def test_a_restarted_cluster_resumes_as_it_was(kafka_bootstrap: str, tmp_path: Path) -> None:
    """Every worker stopped, then a new set started on the same topics: the connectors, their task configs and
    target states come back from the config topic (a paused connector stays paused)."""
    first = Cluster(kafka_bootstrap, PluginRegistry.from_entry_points(), **{"scheduled.rebalance.max.delay.ms": "0"})
    second = Cluster(kafka_bootstrap, PluginRegistry.from_entry_points(), **{"scheduled.rebalance.max.delay.ms": "0"})
    second.prefix, second.extra = first.prefix, dict(first.extra)
    try:
        await first.start(2)
        client = first.workers[0][1]
        await _create_file_connectors(client, tmp_path, [f"r{i}" for i in range(3)])
        await first.settled(3, 3)
        assert (await client.put("/connectors/r1/pause")).status_code == 202
        await first.close()
        await second.start(2, 3, 3)

        ids = {w.config.worker_id for w, _ in second.workers}

        async def states() -> dict[str, list[str]] | None:
            """The statuses once the new workers wrote them all (the old workers' are in the topic too)."""
            out = {}
            for name in ("r0", "r1", "r2"):
                r = await second.workers[1][1].get(f"/connectors/{name}/status")
                if r.status_code != 200:
                    return None
                s = r.json()
                parts = [s["connector"], *s["tasks"]]
                if len(parts) != 2 or any(p["worker_id"] not in ids for p in parts):
                    return None
                out[name] = [p["state"] for p in parts]
            return out if "UNASSIGNED" not in str(out) else None

        got = await wait_for(states)
        assert got == {"r0": ["RUNNING", "RUNNING"], "r1": ["PAUSED", "PAUSED"], "r2": ["RUNNING", "RUNNING"]}
    finally:
        await first.close()
        await second.close()
