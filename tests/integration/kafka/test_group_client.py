"""The classic group-membership client on the real broker, as Kafka Connect workers use it (protocol type
"connect"): two members settle into one generation with one leader, assignments reach each member, and the
coordinator's verdicts (a member timed out, a member left, a foreign protocol) arrive as GroupErrors.

Each member runs the loop a worker runs: join, sync, heartbeat, and join again when told to rebalance. Two
concurrent joins do not always land in one generation: the first may complete alone, and the second then waits
for it to rejoin."""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import AsyncIterator

import pytest

from connect_worker.kafka.group_client import GroupClient, GroupError, JoinResult

pytestmark = [pytest.mark.integration, pytest.mark.timeout(60)]

SESSION_MS = 6000  # the broker's group.min.session.timeout.ms (its default)
REBALANCE_MS = 10_000
PROTOCOL_TYPE = "connect"


@dataclasses.dataclass
class Member:
    client: GroupClient
    metadata: bytes
    member_id: str = ""
    joined: JoinResult | None = None
    assignment: bytes | None = None

    @property
    def generation(self) -> int:
        assert self.joined is not None
        return self.joined.generation

    async def join(self, group: str) -> JoinResult:
        self.joined = await self.client.join(
            group,
            self.member_id,
            PROTOCOL_TYPE,
            [("compatible", self.metadata)],
            session_timeout_ms=SESSION_MS,
            rebalance_timeout_ms=REBALANCE_MS,
        )
        self.member_id = self.joined.member_id
        return self.joined

    async def sync(self, group: str) -> bytes:
        """The leader hands each member the upper case of its metadata's last letter ("m1" → "A", "m2" → "B")."""
        assert self.joined is not None
        plan: dict[str, bytes] = {}
        if self.joined.member_id == self.joined.leader_id:
            letters = {b"m1": b"A", b"m2": b"B"}
            plan = {member_id: letters[metadata] for member_id, metadata in self.joined.members}
        self.assignment = await self.client.sync(
            group, self.generation, self.member_id, PROTOCOL_TYPE, self.joined.protocol, plan
        )
        return self.assignment

    async def heartbeat(self, group: str) -> None:
        await self.client.heartbeat(group, self.generation, self.member_id)


def _rebalancing(e: GroupError) -> bool:
    return e.name == "REBALANCE_IN_PROGRESS"


async def settle(group: str, *members: Member) -> None:
    """Run every member's join-sync-heartbeat loop until all are in one generation and the leader saw them all."""
    done = asyncio.Event()

    def check() -> None:
        synced = [m.joined for m in members if m.joined is not None and m.assignment is not None]
        leaders = [j for j in synced if j.member_id == j.leader_id]
        in_step = len(synced) == len(members) and len({j.generation for j in synced}) == 1
        if in_step and len(leaders) == 1 and len(leaders[0].members) == len(members):
            done.set()

    async def run(member: Member) -> None:
        while not done.is_set():
            member.assignment = None
            await member.join(group)
            try:
                await member.sync(group)
                check()
                while not done.is_set():
                    await member.heartbeat(group)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(done.wait(), 0.3)
            except GroupError as e:
                if not _rebalancing(e):
                    raise

    async with asyncio.timeout(30):
        await asyncio.gather(*(run(m) for m in members))


@pytest.fixture
async def clients(kafka_bootstrap: str) -> AsyncIterator[list[GroupClient]]:
    made: list[GroupClient] = []
    yield made
    for client in made:
        await client.close()


def two_members(kafka_bootstrap: str, clients: list[GroupClient]) -> tuple[Member, Member]:
    a = GroupClient(kafka_bootstrap, client_id="worker-a", request_timeout=15)
    b = GroupClient(kafka_bootstrap, client_id="worker-b", request_timeout=15)
    clients += (a, b)
    return Member(a, b"m1"), Member(b, b"m2")


async def test_two_members_one_leader_each_gets_its_assignment(
    kafka_bootstrap: str, unique_name: str, clients: list[GroupClient]
) -> None:
    group = unique_name
    a, b = two_members(kafka_bootstrap, clients)

    await settle(group, a, b)

    assert a.joined is not None and b.joined is not None
    assert a.generation == b.generation >= 1
    assert a.joined.leader_id == b.joined.leader_id
    assert a.joined.protocol == b.joined.protocol == "compatible"
    leader, follower = (a, b) if a.joined.leader_id == a.member_id else (b, a)
    assert leader.joined is not None and follower.joined is not None
    assert sorted(leader.joined.members) == sorted([(a.member_id, b"m1"), (b.member_id, b"m2")])
    assert follower.joined.members == ()
    assert (a.assignment, b.assignment) == (b"A", b"B")
    await a.heartbeat(group)
    await b.heartbeat(group)

    await a.client.close()  # the next call connects again
    await a.heartbeat(group)


async def test_a_newcomer_waits_until_the_stable_member_rejoins(
    kafka_bootstrap: str, unique_name: str, clients: list[GroupClient]
) -> None:
    group = unique_name
    first, newcomer = two_members(kafka_bootstrap, clients)
    await settle(group, first)
    assert first.generation == 1 and first.assignment == b"A"

    joining = asyncio.create_task(newcomer.join(group))
    await asyncio.sleep(0.5)
    assert not joining.done()  # the coordinator holds the newcomer's JoinGroup until every member rejoined
    with pytest.raises(GroupError) as told:
        await first.heartbeat(group)
    assert told.value.name == "REBALANCE_IN_PROGRESS"

    rejoined = await first.join(group)
    joined = await joining
    assert rejoined.generation == joined.generation == 2
    leader = rejoined if rejoined.leader_id == rejoined.member_id else joined
    assert len(leader.members) == 2
    assert sorted(await asyncio.gather(first.sync(group), newcomer.sync(group))) == [b"A", b"B"]


async def test_a_silent_member_is_dropped_and_the_survivor_rejoins_as_leader(
    kafka_bootstrap: str, unique_name: str, clients: list[GroupClient]
) -> None:
    group = unique_name
    silent, survivor = two_members(kafka_bootstrap, clients)
    await settle(group, silent, survivor)
    generation = survivor.generation
    loop = asyncio.get_running_loop()
    started = loop.time()

    with pytest.raises(GroupError) as told:  # the survivor keeps heartbeating; the silent member does not
        while loop.time() - started < SESSION_MS / 1000 + 5:
            await survivor.heartbeat(group)
            await asyncio.sleep(0.5)
    assert told.value.name == "REBALANCE_IN_PROGRESS" and told.value.code == 27
    assert loop.time() - started >= SESSION_MS / 1000 - 1

    rejoined = await survivor.join(group)
    assert rejoined.generation == generation + 1
    assert rejoined.leader_id == survivor.member_id
    assert rejoined.members == ((survivor.member_id, b"m2"),)
    survivor.assignment = None
    assert await survivor.sync(group) == b"B"
    await survivor.heartbeat(group)

    with pytest.raises(GroupError) as dropped:
        await silent.heartbeat(group)
    assert dropped.value.name in ("UNKNOWN_MEMBER_ID", "ILLEGAL_GENERATION")


async def test_a_member_leaving_makes_the_other_rebalance(
    kafka_bootstrap: str, unique_name: str, clients: list[GroupClient]
) -> None:
    group = unique_name
    leaving, staying = two_members(kafka_bootstrap, clients)
    await settle(group, leaving, staying)

    await leaving.client.leave(group, leaving.member_id)

    with pytest.raises(GroupError) as told:
        await staying.heartbeat(group)
    assert told.value.name == "REBALANCE_IN_PROGRESS"
    rejoined = await staying.join(group)
    assert rejoined.leader_id == staying.member_id and len(rejoined.members) == 1


@pytest.mark.parametrize(
    ("protocol_type", "protocol_name"),
    [("consumer", "compatible"), (PROTOCOL_TYPE, "sessioned")],
    ids=["other-protocol-type", "no-common-protocol"],
)
async def test_an_inconsistent_protocol_is_refused(
    kafka_bootstrap: str, unique_name: str, clients: list[GroupClient], protocol_type: str, protocol_name: str
) -> None:
    group = unique_name
    member, _ = two_members(kafka_bootstrap, clients)
    await member.join(group)
    await member.sync(group)

    other = GroupClient(kafka_bootstrap, client_id="other", request_timeout=15)
    clients.append(other)
    with pytest.raises(GroupError) as refused:
        await other.join(
            group,
            "",
            protocol_type,
            [(protocol_name, b"x")],
            session_timeout_ms=SESSION_MS,
            rebalance_timeout_ms=REBALANCE_MS,
        )
    assert (refused.value.name, refused.value.code) == ("INCONSISTENT_GROUP_PROTOCOL", 23)
    assert str(refused.value) == f"Group {group}: INCONSISTENT_GROUP_PROTOCOL (error 23)"
    await member.heartbeat(group)  # the group is unaffected


async def test_sync_refuses_a_protocol_other_than_the_groups(
    kafka_bootstrap: str, unique_name: str, clients: list[GroupClient]
) -> None:
    group = unique_name
    member, _ = two_members(kafka_bootstrap, clients)
    joined = await member.join(group)
    with pytest.raises(GroupError) as refused:
        await member.client.sync(group, joined.generation, joined.member_id, "consumer", joined.protocol, {})
    assert refused.value.name == "INCONSISTENT_GROUP_PROTOCOL"
