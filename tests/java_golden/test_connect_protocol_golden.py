"""Connect's group payloads (join metadata, assignments) against the real ConnectProtocol and
IncrementalCooperativeConnectProtocol classes: the same bytes both ways, so Java workers and ours read each other."""

from __future__ import annotations

import base64
import dataclasses
import random
from typing import Any

import pytest

from connect_worker.runtime.connect_protocol import (
    Assignment,
    WorkerState,
    decode_assignment,
    decode_metadata,
    encode_assignment,
    encode_metadata,
)
from connect_worker.runtime.herder import ConnectorTaskId
from tests.java_golden.conftest import RunJava

pytestmark = pytest.mark.java

_NAMES = ["inventory", "fs", "pg-1", "ümlaut-连接器", "a" * 300, ""]


def _random_assignment(rng: random.Random, version: int) -> Assignment:
    def names(k: int) -> tuple[str, ...]:
        return tuple(dict.fromkeys(rng.choice(_NAMES) + str(rng.randint(0, 3)) for _ in range(k)))

    def tasks(k: int) -> tuple[ConnectorTaskId, ...]:
        return tuple(
            dict.fromkeys(
                ConnectorTaskId(rng.choice(_NAMES), rng.randint(0, 2**31 - 1 if k > 3 else 7)) for _ in range(k)
            )
        )

    return Assignment(
        version=version,
        error=rng.choice([0, 0, 1]),
        leader=f"connect-{rng.randint(0, 99)}-{rng.random()}",
        leader_url=rng.choice(["http://127.0.0.1:8083/", "https://[::1]:18083/", ""]),
        config_offset=rng.choice([0, 1, 17, 2**40, -1]),
        connectors=names(rng.randint(0, 4)),
        tasks=tasks(rng.randint(0, 6)),
        revoked_connectors=names(rng.randint(0, 2)),
        revoked_tasks=tasks(rng.randint(0, 3)),
        delay=rng.choice([0, 0, 1500, 300000, 2**31 - 1]),
    )


def _json(a: Assignment | None) -> Any:
    if a is None:
        return None
    return {
        "version": a.version,
        "error": a.error,
        "leader": a.leader,
        "leaderUrl": a.leader_url,
        "offset": a.config_offset,
        "connectors": list(a.connectors),
        "tasks": [[t.connector, t.task] for t in a.tasks],
        "revokedConnectors": list(a.revoked_connectors),
        "revokedTasks": [[t.connector, t.task] for t in a.revoked_tasks],
        "delay": a.delay,
    }


def _unordered(a: Any) -> Any:
    """Order aside: assigned connectors pass through a java.util.HashSet, and tasks are grouped by connector."""
    if isinstance(a, Assignment):
        return dataclasses.replace(
            a,
            connectors=tuple(sorted(a.connectors)),
            tasks=tuple(sorted(a.tasks, key=str)),
            revoked_tasks=tuple(sorted(a.revoked_tasks, key=str)),
        )
    if isinstance(a, dict):
        return {
            **a,
            "connectors": sorted(a["connectors"]),
            "tasks": sorted(a["tasks"]),
            "revokedTasks": sorted(a["revokedTasks"]),
        }
    return a


def _cases() -> list[Assignment]:
    rng = random.Random(20261206)
    fixed = [
        Assignment(1, 0, "leader-1", "http://127.0.0.1:8083/", 5),
        Assignment(1, 0, "l", "http://h:1/", 9, ("fs",), (ConnectorTaskId("fs", 0), ConnectorTaskId("pg", 3))),
        Assignment(2, 1, "l", "http://h:1/", 9, revoked_connectors=("x",), revoked_tasks=(ConnectorTaskId("x", 1),)),
    ]
    return fixed + [_random_assignment(rng, rng.choice([1, 2])) for _ in range(150)]


def test_assignments_are_written_as_java_writes_them(run_java: RunJava) -> None:
    assignments = _cases()
    cases = [{"op": "assignment", "sessioned": a.version == 2, "assignment": _json(a)} for a in assignments]
    answers = run_java("ConnectProtocolGolden.java", cases)
    for a, ans in zip(assignments, answers, strict=True):
        assert "error" not in ans, ans
        java = base64.b64decode(ans["bytes"])
        assert encode_assignment(a) == java, a
        assert _unordered(decode_assignment(java)) == _unordered(a)


def test_java_reads_our_assignments(run_java: RunJava) -> None:
    assignments = _cases()
    cases = [{"op": "read_assignment", "bytes": base64.b64encode(encode_assignment(a)).decode()} for a in assignments]
    for a, ans in zip(assignments, run_java("ConnectProtocolGolden.java", cases), strict=True):
        assert _unordered(ans["assignment"]) == _unordered(_json(a))


@pytest.mark.parametrize("protocol", ["default", "compatible", "sessioned"])
def test_join_metadata_is_written_as_java_writes_it(run_java: RunJava, protocol: str) -> None:
    states = [WorkerState("http://127.0.0.1:8083/", 0), WorkerState("https://worker-2:8443/", 2**33)]
    states += [WorkerState(f"http://w{i}:80{i}/", i * 7, a) for i, a in enumerate(_cases()[:60])]
    version = {"default": 0, "compatible": 1, "sessioned": 2}[protocol]
    cases = [
        {
            "op": "metadata",
            "protocol": protocol,
            "url": s.url,
            "offset": s.config_offset,
            # Java embeds the assignment under the metadata's own protocol version
            "assignment": _json(s.assignment) if s.assignment is None else {**_json(s.assignment), "version": version},
        }
        for s in states
    ]
    answers = run_java("ConnectProtocolGolden.java", cases)
    for s, ans in zip(states, answers, strict=True):
        java = base64.b64decode(ans["bytes"])
        assert encode_metadata(s, protocol) == java, s
        back = decode_metadata(java)
        assert (back.url, back.config_offset) == (s.url, s.config_offset)
        if protocol != "default" and s.assignment is not None:
            assert back.assignment is not None
            assert _unordered(back.assignment) == _unordered(dataclasses.replace(s.assignment, version=version))


def test_java_reads_our_join_metadata(run_java: RunJava) -> None:
    states = [WorkerState(f"http://w{i}:80/", i, a) for i, a in enumerate(_cases()[:40])] + [
        WorkerState("http://x/", 3)
    ]
    cases = [
        {"op": "read_metadata", "bytes": base64.b64encode(encode_metadata(s, "compatible")).decode()} for s in states
    ]
    for s, ans in zip(states, run_java("ConnectProtocolGolden.java", cases), strict=True):
        assert (ans["url"], ans["offset"]) == (s.url, s.config_offset)
        # no assignment (a worker's first join) reads as Java's empty assignment
        empty: dict[str, Any] = {
            "version": 1,
            "error": 0,
            "leader": None,
            "leaderUrl": None,
            "offset": -1,
            "connectors": [],
            "tasks": [],
            "revokedConnectors": [],
            "revokedTasks": [],
            "delay": 0,
        }
        expected = empty if s.assignment is None else {**_json(s.assignment), "version": 1}
        assert _unordered(ans["assignment"]) == _unordered(expected)
