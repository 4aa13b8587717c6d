"""The leader's incremental cooperative assignment, round by round, with members applying what they get."""

from __future__ import annotations

from collections.abc import Iterable

from connect_worker.runtime.assignor import Configured, IncrementalAssignor, configured_from
from connect_worker.runtime.connect_protocol import Assignment, WorkerState
from connect_worker.runtime.herder import ConnectorTaskId

Item = str | ConnectorTaskId


class Cluster:
    """Members that apply their incremental assignments as WorkerGroupMember does."""

    def __init__(self, assignor: IncrementalAssignor, members: Iterable[str]) -> None:
        self.assignor = assignor
        self.held: dict[str, set[Item]] = {m: set() for m in members}
        self.generation = 0
        self.last: dict[str, Assignment] = {}

    def round(self, configured: Configured, now_ms: int = 0) -> dict[str, Assignment]:
        self.generation += 1
        states = {
            m: WorkerState(
                f"http://{m}/",
                0,
                Assignment(
                    1,
                    0,
                    "a",
                    "http://a/",
                    0,
                    tuple(x for x in h if isinstance(x, str)),
                    tuple(x for x in h if not isinstance(x, str)),
                ),
            )
            for m, h in self.held.items()
        }
        leader = sorted(self.held)[0]
        out = self.assignor.assign(
            states,
            configured,
            leader_id=leader,
            config_offset=0,
            version=1,
            generation=self.generation,
            last_completed_generation=self.generation - 1,
            now_ms=now_ms,
        )
        for m, a in out.items():
            self.held[m] -= {*a.revoked_connectors, *a.revoked_tasks}
            self.held[m] |= {*a.connectors, *a.tasks}
        self.last = out
        return out

    def settle(self, configured: Configured, now_ms: int = 0, rounds: int = 5) -> int:
        """Rounds until nobody is revoked anything (a member with revocations rejoins at once)."""
        for n in range(1, rounds + 1):
            out = self.round(configured, now_ms)
            if not any(a.revoked_connectors or a.revoked_tasks for a in out.values()):
                return n
        raise AssertionError("no stable assignment")

    def everything(self) -> list[Item]:
        return [x for h in self.held.values() for x in h]

    def counts(self, kind: type) -> list[int]:
        return sorted(sum(isinstance(x, kind) for x in h) for h in self.held.values())


def _configured(**tasks: int) -> Configured:
    return configured_from(tasks, tasks)


def _exactly_once(cluster: Cluster, configured: Configured) -> None:
    everything = cluster.everything()
    assert sorted(map(str, everything)) == sorted(map(str, [*configured.connectors, *configured.tasks]))


def test_first_round_spreads_everything_evenly() -> None:
    cluster = Cluster(IncrementalAssignor(300000), ["w1", "w2", "w3"])
    configured = _configured(a=3, b=3, c=1)
    cluster.round(configured)
    _exactly_once(cluster, configured)
    assert cluster.counts(str) == [1, 1, 1]
    assert cluster.counts(ConnectorTaskId) == [2, 2, 3]
    assert all(a.leader == "w1" and a.leader_url == "http://w1/" for a in cluster.last.values())


def test_a_joining_member_takes_a_share_and_nothing_else_moves() -> None:
    cluster = Cluster(IncrementalAssignor(300000), ["w1", "w2"])
    configured = _configured(a=4, b=4)
    cluster.round(configured)
    before = {m: set(h) for m, h in cluster.held.items()}
    cluster.held["w3"] = set()
    first = cluster.round(configured)
    # only the excess is revoked, and nothing is handed out in the same round
    revoked = [x for a in first.values() for x in (*a.revoked_connectors, *a.revoked_tasks)]
    assert revoked and not any(a.connectors or a.tasks for a in first.values())
    cluster.settle(configured)
    _exactly_once(cluster, configured)
    assert cluster.counts(ConnectorTaskId) == [2, 3, 3]
    moved = {x for m in ("w1", "w2") for x in before[m] - cluster.held[m]}
    assert moved == set(cluster.held["w3"])  # what w3 runs came from the others; the rest stayed put
    assert len(moved) == len(revoked)


def test_a_departed_members_work_waits_for_the_delay_then_moves() -> None:
    cluster = Cluster(IncrementalAssignor(10_000), ["w1", "w2", "w3"])
    configured = _configured(a=3, b=3)
    cluster.round(configured, now_ms=1_000)
    gone = cluster.held.pop("w3")
    assert gone
    out = cluster.round(configured, now_ms=2_000)
    assert all(a.delay == 10_000 for a in out.values())
    assert not (set(cluster.everything()) & gone)  # held back for w3
    out = cluster.round(configured, now_ms=7_000)  # a rejoin before the deadline: the rest of the delay
    assert all(a.delay == 5_000 for a in out.values())
    cluster.round(configured, now_ms=12_000)
    _exactly_once(cluster, configured)
    assert all(a.delay == 0 for a in cluster.last.values())


def test_a_departed_members_work_moves_at_once_without_a_delay() -> None:
    cluster = Cluster(IncrementalAssignor(0), ["w1", "w2", "w3"])
    configured = _configured(a=2, b=2, c=2)
    cluster.round(configured)
    cluster.held.pop("w2")
    cluster.round(configured)
    _exactly_once(cluster, configured)
    assert cluster.counts(ConnectorTaskId) == [3, 3]


def test_a_member_back_within_the_delay_gets_its_work_back() -> None:
    cluster = Cluster(IncrementalAssignor(10_000), ["w1", "w2", "w3"])
    configured = _configured(a=3, b=3)
    cluster.round(configured, now_ms=0)
    gone = cluster.held.pop("w3")
    cluster.round(configured, now_ms=1_000)
    cluster.held["w3"] = set()  # back, as a new member with nothing
    cluster.round(configured, now_ms=2_000)
    cluster.round(configured, now_ms=11_500)
    _exactly_once(cluster, configured)
    assert cluster.held["w3"] == gone


def test_deleted_connectors_and_duplicates_are_revoked() -> None:
    cluster = Cluster(IncrementalAssignor(0), ["w1", "w2"])
    cluster.round(_configured(a=2, b=2))
    owner_of_a0 = next(m for m, h in cluster.held.items() if ConnectorTaskId("a", 0) in h)
    other = "w2" if owner_of_a0 == "w1" else "w1"
    cluster.held[other].add(ConnectorTaskId("a", 0))  # a zombie came back running a-0
    configured = _configured(a=2)
    out = cluster.round(configured)
    assert ConnectorTaskId("a", 0) in out[other].revoked_tasks
    assert ConnectorTaskId("a", 0) in out[owner_of_a0].revoked_tasks
    assert "b" in {c for a in out.values() for c in a.revoked_connectors}
    cluster.settle(configured)
    _exactly_once(cluster, configured)


def test_more_tasks_are_spread_and_fewer_are_revoked() -> None:
    cluster = Cluster(IncrementalAssignor(0), ["w1", "w2", "w3"])
    cluster.round(_configured(a=1))
    cluster.round(_configured(a=6))
    _exactly_once(cluster, _configured(a=6))
    assert cluster.counts(ConnectorTaskId) == [2, 2, 2]
    cluster.settle(_configured(a=2))
    _exactly_once(cluster, _configured(a=2))
