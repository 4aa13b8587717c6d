"""This worker's membership in its Connect cluster (Connect's WorkerGroupMember/WorkerCoordinator): it joins the
group `group.id` on Kafka's group coordinator with protocol type "connect", heartbeats, and hands the herder what the
leader assigned. Kafka's coordinator decides who is in the group and who leads; the leader (whichever member the
coordinator names) computes the assignment.

Zombie safety, stronger than Connect's: a member that learns it left the group (its heartbeat is refused, or no
heartbeat got through for a session timeout, e.g. after SIGSTOP) stops everything it ran before it rejoins, and
`fresh()` says whether the membership was confirmed within the session timeout: the tasks do not produce while it
is not (see `MembershipGate`).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Protocol

from connect_worker.api import ConnectError, RetriableError
from connect_worker.kafka.group_client import GroupClient, GroupError, JoinResult
from connect_worker.runtime.assignor import Configured, IncrementalAssignor
from connect_worker.runtime.connect_protocol import (
    COMPATIBLE,
    CONFIG_MISMATCH,
    PROTOCOL_VERSIONS,
    SESSIONED,
    Assignment,
    WorkerState,
    decode_assignment,
    decode_metadata,
    encode_assignment,
    join_protocols,
)
from connect_worker.runtime.herder import ConnectorTaskId

log = logging.getLogger(__name__)

PROTOCOL_TYPE = "connect"
# what ends membership: the member must join again, as a new member for the first two
_MEMBER_GONE = {"UNKNOWN_MEMBER_ID", "FENCED_INSTANCE_ID"}
_GENERATION_GONE = {"ILLEGAL_GENERATION"}
_REJOIN = {"REBALANCE_IN_PROGRESS"}
_FATAL = {
    "INCONSISTENT_GROUP_PROTOCOL",
    "GROUP_AUTHORIZATION_FAILED",
    "INVALID_GROUP_ID",
    "INVALID_SESSION_TIMEOUT",
    "GROUP_MAX_SIZE_REACHED",
    "UNSUPPORTED_VERSION",
}


class RebalanceListener(Protocol):
    """The herder, as the membership drives it."""

    def config_offset(self) -> int:
        """How far this worker has read the config topic (the next offset)."""

    async def fresh_config(self) -> tuple[int, Configured]:
        """Read the config topic to its end; the offset reached and what should run."""

    async def on_revoked(self, connectors: Sequence[str], tasks: Sequence[ConnectorTaskId]) -> None:
        """Stop these before the member rejoins."""

    def on_assigned(self, assignment: Assignment, generation: int) -> None:
        """The member's whole assignment now (what runs already and what to start); must not block."""


class WorkerGroupMember:
    def __init__(
        self,
        client: GroupClient,
        listener: RebalanceListener,
        *,
        group_id: str,
        url: str,
        session_timeout_ms: int,
        heartbeat_interval_ms: int,
        rebalance_timeout_ms: int,
        max_delay_ms: int,
        protocols: Sequence[str] = (COMPATIBLE,),
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._listener = listener
        self.group_id = group_id
        self.url = url
        self._session_s = session_timeout_ms / 1000
        self._heartbeat_s = heartbeat_interval_ms / 1000
        self._rebalance_timeout_ms = rebalance_timeout_ms
        self._assignor = IncrementalAssignor(max_delay_ms)
        self._protocols = tuple(protocols)  # offered in this order of preference
        self.protocol: str | None = None  # the one the group runs
        self._clock = clock
        self.member_id = ""
        self.generation = -1
        self._last_completed_generation = -1
        self.assignment: Assignment | None = None
        self._rejoin = asyncio.Event()
        self._rejoin.set()  # the first join
        self._stable = asyncio.Event()  # set between the end of a rebalance and the start of the next
        self._rejoin_at: float | None = None
        self._confirmed = float("-inf")  # when the coordinator last confirmed the membership
        self._rebalance_s = rebalance_timeout_ms / 1000
        self._joining_since: float | None = None  # a join under way (the member counts as one until its timeout)
        self._idle = False  # its work stopped after the membership was lost, to be taken up again by the next join
        self._stopping = False
        self.rebalances = 0

    # -- what the herder reads ------------------------------------------------------------------------
    @property
    def leader_url(self) -> str | None:
        """The leader's URL while the group is stable (None during a rebalance: requests get a 409 then)."""
        a = self.assignment
        return None if a is None or a.failed or self.rebalancing or self._idle else a.leader_url

    @property
    def is_leader(self) -> bool:
        a = self.assignment
        return a is not None and self.leader_url is not None and a.leader == self.member_id and self.fresh()

    @property
    def sessioned(self) -> bool:
        """Whether the group runs the `sessioned` protocol: inter-worker requests are signed and checked."""
        return self.protocol == SESSIONED

    @property
    def rebalancing(self) -> bool:
        return self._rejoin.is_set() or self._joining_since is not None

    def fresh(self) -> bool:
        """Whether the coordinator confirmed this member within the session timeout, or a join under way has not
        passed the rebalance timeout (the coordinator keeps a joining member that long). A stopped process resumed
        after either sees False until a heartbeat or a join gets through."""
        now = self._clock()
        if self._joining_since is not None and now - self._joining_since < self._rebalance_s:
            return True
        return now - self._confirmed < self._session_s

    def may_produce(self) -> bool:
        """The tasks' gate: a member whose membership is confirmed and not lost (its work stopped meanwhile)."""
        return not self._idle and self.fresh()

    def request_rejoin(self) -> None:
        self._stable.clear()
        self._rejoin.set()

    async def wait_stable(self, timeout: float) -> None:
        """Return once no rebalance is under way (or after `timeout`)."""
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._stable.wait(), timeout)

    # -- the loop ---------------------------------------------------------------------------------------
    async def run(self) -> None:
        backoff = 0.1
        while not self._stopping:
            try:
                if self._rejoin.is_set():
                    try:
                        await self._join()
                    except BaseException:
                        self.request_rejoin()  # a join or sync cut short is made again
                        raise
                    finally:
                        self._joining_since = None
                    backoff = 0.1
                else:
                    await self._heartbeat_once()
            except GroupError as e:
                if e.name in _FATAL:
                    raise ConnectError(f"Cannot join the Connect cluster {self.group_id}: {e}") from e
                await self._membership_error(e)
            except RetriableError as e:
                log.warning("group %s: coordinator unavailable (%s); retrying", self.group_id, e)
                await self._expire_if_stale()
                await asyncio.sleep(backoff)
                backoff = min(backoff * 2, 2.0)

    async def _membership_error(self, e: GroupError) -> None:
        if e.name in _REJOIN:
            log.info("group %s: rebalance started", self.group_id)
        elif e.name in _MEMBER_GONE or e.name in _GENERATION_GONE:
            log.warning("group %s: this worker is no longer a member (%s); stopping its work", self.group_id, e.name)
            if e.name in _MEMBER_GONE:
                self.member_id = ""
            self.generation = -1
            await self.stop_work()
        else:
            log.warning("group %s: %s; joining again", self.group_id, e)
            await asyncio.sleep(0.5)
        self.request_rejoin()

    async def _expire_if_stale(self) -> None:
        if self.assignment is not None and not self._idle and not self.fresh():
            log.warning(
                "group %s: no heartbeat got through for a session timeout; stopping this worker's work",
                self.group_id,
            )
            await self.stop_work()

    @contextlib.asynccontextmanager
    async def _heartbeating(self, generation: int) -> AsyncIterator[None]:
        """Keep the membership alive while the body runs (stopping revoked tasks takes up to their shutdown
        timeout, which may pass the session timeout); errors are left to the next regular heartbeat."""

        async def beat() -> None:
            while True:
                await asyncio.sleep(self._heartbeat_s)
                try:
                    await self._beat(generation)
                except (GroupError, RetriableError):
                    return

        task = asyncio.get_running_loop().create_task(beat())
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task

    async def stop_work(self) -> None:
        """Stop everything this worker runs while its membership is in doubt. The assignment is kept and reported
        at the next join, as a Connect worker reports its own: the leader then leaves it here (nothing is "lost", no
        `scheduled.rebalance.max.delay.ms` wait) unless another member runs it meanwhile (then both are told to
        stop it and it is assigned again), and this worker starts again what it is left."""
        a = self.assignment
        if self._idle or a is None:
            return
        self._idle = True
        if a.connectors or a.tasks:
            await self._listener.on_revoked(a.connectors, a.tasks)

    async def _heartbeat_once(self) -> None:
        deadline = self._clock() + self._heartbeat_s
        if self._rejoin_at is not None:
            deadline = min(deadline, self._rejoin_at)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._rejoin.wait(), max(0.0, deadline - self._clock()))
        if self._rejoin.is_set():
            return
        if self._rejoin_at is not None and self._clock() >= self._rejoin_at:
            self._rejoin_at = None
            self.request_rejoin()
            return
        await self._expire_if_stale()
        await self._beat(self.generation)

    async def _beat(self, generation: int) -> None:
        """One heartbeat; its answer confirms the membership (GroupError when the coordinator refuses it)."""
        await self._client.heartbeat(self.group_id, generation, self.member_id)
        self._confirmed = self._clock()

    async def _join(self) -> None:
        self._stable.clear()
        self._rejoin.clear()
        self._rejoin_at = None
        self._joining_since = self._clock()
        state = WorkerState(self.url, self._listener.config_offset(), self.assignment)
        joined = await self._client.join(
            self.group_id,
            self.member_id,
            PROTOCOL_TYPE,
            join_protocols(state, self._protocols),
            session_timeout_ms=int(self._session_s * 1000),
            rebalance_timeout_ms=self._rebalance_timeout_ms,
        )
        self.member_id = joined.member_id
        self.generation = joined.generation
        self.protocol = joined.protocol
        self._confirmed = self._clock()
        assignments: dict[str, bytes] = {}
        if joined.leader_id == joined.member_id:
            assignments = await self._lead(joined)
        raw = await self._client.sync(
            self.group_id, joined.generation, joined.member_id, PROTOCOL_TYPE, joined.protocol, assignments
        )
        self._confirmed = self._clock()
        self.rebalances += 1
        await self._apply(decode_assignment(raw), joined.generation)

    async def _lead(self, joined: JoinResult) -> dict[str, bytes]:
        members = {m: decode_metadata(meta) for m, meta in joined.members}
        version = PROTOCOL_VERSIONS[joined.protocol]
        max_offset = max(s.config_offset for s in members.values())
        async with self._heartbeating(joined.generation):
            offset, configured = await self._listener.fresh_config()
        leader_url = members[joined.leader_id].url
        if offset < max_offset:
            log.warning(
                "group %s: leading with config offset %d behind a member's %d; asking every member to re-sync",
                self.group_id,
                offset,
                max_offset,
            )
            failed = Assignment(version, CONFIG_MISMATCH, joined.leader_id, leader_url, max_offset)
            return {m: encode_assignment(failed) for m in members}
        out = self._assignor.assign(
            members,
            configured,
            leader_id=joined.leader_id,
            config_offset=offset,
            version=version,
            generation=joined.generation,
            last_completed_generation=self._last_completed_generation,
            now_ms=int(time.time() * 1000),
        )
        return {m: encode_assignment(a) for m, a in out.items()}

    async def _apply(self, new: Assignment, generation: int) -> None:
        if new.failed:
            log.info(
                "group %s: the leader's config is behind; reading the config topic and joining again", self.group_id
            )
            await self._listener.fresh_config()
            self.request_rejoin()
            return
        if new.revoked_connectors or new.revoked_tasks:
            async with self._heartbeating(generation):
                await self._listener.on_revoked(new.revoked_connectors, new.revoked_tasks)
        # what runs on: what was held, less what is revoked, with what is new (Connect's augmented assignment)
        held = self.assignment or Assignment(new.version, new.error, new.leader, new.leader_url, new.config_offset)
        gone_c, gone_t = set(new.revoked_connectors), set(new.revoked_tasks)
        merged = dataclasses.replace(
            new,
            connectors=tuple(c for c in dict.fromkeys((*new.connectors, *held.connectors)) if c not in gone_c),
            tasks=tuple(t for t in dict.fromkeys((*new.tasks, *held.tasks)) if t not in gone_t),
            revoked_connectors=(),
            revoked_tasks=(),
        )
        self.assignment = merged
        self._idle = False
        self._last_completed_generation = generation
        log.info(
            "group %s generation %d: leader %s; this worker runs %d connectors and %d tasks (%d/%d new, %d/%d revoked)",
            self.group_id,
            generation,
            new.leader_url,
            len(merged.connectors),
            len(merged.tasks),
            len(new.connectors),
            len(new.tasks),
            len(new.revoked_connectors),
            len(new.revoked_tasks),
        )
        self._listener.on_assigned(merged, generation)
        if new.revoked_connectors or new.revoked_tasks:
            self.request_rejoin()  # the revoked work goes to others in the next round
            return
        if new.delay > 0:
            self._rejoin_at = self._clock() + new.delay / 1000
        if not self._rejoin.is_set():
            self._stable.set()

    async def stop(self) -> None:
        """Leave the group (others take this worker's work at once) and close the connection."""
        self._stopping = True
        self.request_rejoin()
        if self.member_id:
            with contextlib.suppress(ConnectError, OSError):
                await self._client.leave(self.group_id, self.member_id)
        await self._client.close()
