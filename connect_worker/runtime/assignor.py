"""The group leader's incremental cooperative assignment (KIP-415), as Connect's IncrementalCooperativeAssignor
decides it: every configured connector and task runs on exactly one member, spread evenly, and a rebalance moves
only what it must.

Each member reports what it runs; the leader remembers what it handed out the round before. From the two:
  deleted    what runs but is no longer configured           -> revoked
  duplicated what runs on two members (a zombie came back)   -> revoked everywhere, reassigned next round
  lost       handed out last round, reported by nobody now   -> held for `scheduled.rebalance.max.delay.ms` in
             case its member comes back (members get the remaining delay and rejoin then), then reassigned
  created    configured and neither running nor held         -> assigned to the least loaded members
When a member holds more than its share (a worker joined), the excess is revoked; the members whose work was revoked
stop it and rejoin at once, and the next round assigns it to the new member. Assignments sent are incremental:
what to start and what to stop; a member keeps everything else.

Pure: no clock (the caller passes the time), no I/O.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping, Sequence

from connect_worker.runtime.connect_protocol import NO_ERROR, Assignment, WorkerState
from connect_worker.runtime.herder import ConnectorTaskId

log = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True, slots=True)
class Configured:
    """What the config topic says should run: connector names and their task ids."""

    connectors: tuple[str, ...]
    tasks: tuple[ConnectorTaskId, ...]


@dataclasses.dataclass(slots=True)
class _Load:
    member: str
    items: list[str | ConnectorTaskId]


def _sort_key(item: str | ConnectorTaskId) -> tuple[str, int]:
    return (item, -1) if isinstance(item, str) else (item.connector, item.task)


class IncrementalAssignor:
    """The leader's memory between rounds lives here: a new leader starts with none (as in Connect)."""

    def __init__(self, max_delay_ms: int) -> None:
        self.max_delay_ms = max_delay_ms
        self._previous: set[str | ConnectorTaskId] = set()
        self._previous_generation = -1
        self._previous_members: set[str] = set()
        self._scheduled_rebalance = 0  # when held lost work is given away (ms); 0: nothing held
        self._delay = 0
        self._candidates: set[str] = set()

    def assign(
        self,
        members: Mapping[str, WorkerState],
        configured: Configured,
        *,
        leader_id: str,
        config_offset: int,
        version: int,
        generation: int,
        last_completed_generation: int,
        now_ms: int,
    ) -> dict[str, Assignment]:
        if self._previous_generation != last_completed_generation:
            # the last round did not complete with this leader's assignment: what it remembers may be stale
            self._previous = set()
        wanted: set[str | ConnectorTaskId] = {*configured.connectors, *configured.tasks}
        running: dict[str, set[str | ConnectorTaskId]] = {}
        for m, state in members.items():
            a = state.assignment
            running[m] = set() if a is None else {*a.connectors, *a.tasks}
        active: set[str | ConnectorTaskId] = set().union(*running.values()) if running else set()
        counts: dict[str | ConnectorTaskId, int] = {}
        for items in running.values():
            for x in items:
                counts[x] = counts.get(x, 0) + 1
        duplicated = {x for x, n in counts.items() if n > 1}
        deleted = active - wanted
        lost = self._previous - active - (self._previous - wanted)
        created = wanted - self._previous - active

        revoke: dict[str, set[str | ConnectorTaskId]] = {
            m: items & (deleted | duplicated) for m, items in running.items()
        }
        nxt: dict[str, set[str | ConnectorTaskId]] = {m: items - revoke[m] for m, items in running.items()}

        reassign_lost = self._lost(lost, nxt, set(members), now_ms)
        if self._delay == 0:
            for m, items in self._balancing_revocations(nxt, configured).items():
                revoke[m] |= items
                nxt[m] -= items

        to_assign = (created | reassign_lost) - set().union(*nxt.values()) if nxt else set()
        self._spread(nxt, sorted((x for x in to_assign if isinstance(x, str)), key=_sort_key))
        self._spread(nxt, sorted((x for x in to_assign if not isinstance(x, str)), key=_sort_key))

        self._previous = set().union(*nxt.values()) if nxt else set()
        self._previous |= lost - reassign_lost  # still held for their member
        self._previous_generation = generation
        self._previous_members = set(members)

        leader_url = members[leader_id].url
        out: dict[str, Assignment] = {}
        for m in members:
            added = sorted(nxt[m] - running[m], key=_sort_key)
            gone = sorted(revoke[m], key=_sort_key)
            out[m] = Assignment(
                version,
                NO_ERROR,
                leader_id,
                leader_url,
                config_offset,
                connectors=tuple(x for x in added if isinstance(x, str)),
                tasks=tuple(x for x in added if not isinstance(x, str)),
                revoked_connectors=tuple(x for x in gone if isinstance(x, str)),
                revoked_tasks=tuple(x for x in gone if not isinstance(x, str)),
                delay=self._delay,
            )
        if lost or any(revoke.values()) or to_assign:
            log.info(
                "assignment for generation %d: %d created, %d lost (%d reassigned), %d revoked, delay %d ms",
                generation,
                len(created),
                len(lost),
                len(reassign_lost),
                sum(len(v) for v in revoke.values()),
                self._delay,
            )
        return out

    # -- lost work ----------------------------------------------------------------------------------------
    def _lost(
        self,
        lost: set[str | ConnectorTaskId],
        nxt: dict[str, set[str | ConnectorTaskId]],
        members: set[str],
        now_ms: int,
    ) -> set[str | ConnectorTaskId]:
        """Which lost connectors and tasks to give away in this round (the rest stay held)."""
        if not lost:
            self._reset_delay()
            return set()
        if self._scheduled_rebalance <= 0 and members >= self._previous_members:
            # nobody left: a member missed the last assignment; hand its work out again
            return lost
        if self.max_delay_ms == 0:
            return lost
        if 0 < self._scheduled_rebalance <= now_ms:
            candidates = sorted(m for m in self._candidates if m in nxt)
            self._reset_delay()
            if not candidates:
                return lost
            # a worker that was empty while the work was held (the one that came back) takes it
            for i, x in enumerate(sorted(lost, key=_sort_key)):
                nxt[candidates[i % len(candidates)]].add(x)
            return set()
        self._candidates |= {m for m, items in nxt.items() if not items}
        if now_ms < self._scheduled_rebalance:
            self._delay = self._scheduled_rebalance - now_ms
        else:
            self._delay = self.max_delay_ms
        self._scheduled_rebalance = now_ms + self._delay
        return set()

    def _reset_delay(self) -> None:
        self._candidates.clear()
        self._scheduled_rebalance = 0
        self._delay = 0

    # -- balance ------------------------------------------------------------------------------------------
    @staticmethod
    def _balancing_revocations(
        nxt: Mapping[str, set[str | ConnectorTaskId]], configured: Configured
    ) -> dict[str, set[str | ConnectorTaskId]]:
        """What to take from members above their share so that every member can reach at least its floor."""
        out: dict[str, set[str | ConnectorTaskId]] = {m: set() for m in nxt}
        n = len(nxt)
        if n == 0:
            return out
        kinds: tuple[tuple[int, type], ...] = (
            (len(configured.connectors), str),
            (len(configured.tasks), ConnectorTaskId),
        )
        for total, kind in kinds:
            # the r most loaded members may keep one more than the floor; everyone else keeps the floor at most
            floor = total // n
            r = total - floor * n
            loads = {m: sorted((x for x in items if isinstance(x, kind)), key=_sort_key) for m, items in nxt.items()}
            for rank, m in enumerate(sorted(loads, key=lambda k: (-len(loads[k]), k))):
                allowed = floor + 1 if rank < r else floor
                take = len(loads[m]) - allowed
                if take > 0:
                    out[m] |= set(loads[m][-take:])
        return {m: v for m, v in out.items() if v}

    @staticmethod
    def _spread(nxt: dict[str, set[str | ConnectorTaskId]], items: Sequence[str | ConnectorTaskId]) -> None:
        """Each item to the member holding the fewest of its kind (ties: the fewest in all, then by member id)."""
        if not items or not nxt:
            return
        kind = str if isinstance(items[0], str) else ConnectorTaskId
        loads = [_Load(m, [x for x in nxt[m] if isinstance(x, kind)]) for m in sorted(nxt)]
        for x in items:
            target = min(loads, key=lambda load: (len(load.items), len(nxt[load.member])))
            target.items.append(x)
            nxt[target.member].add(x)


def configured_from(connectors: Iterable[str], task_counts: Mapping[str, int]) -> Configured:
    names = tuple(sorted(connectors))
    return Configured(names, tuple(ConnectorTaskId(c, i) for c in names for i in range(task_counts.get(c, 0))))
