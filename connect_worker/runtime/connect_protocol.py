"""Kafka Connect's group-membership payloads: what a worker tells the group coordinator when it joins (its REST URL,
config-topic offset and current assignment) and what the leader hands each member back (its assignment).

Byte for byte as Connect's ConnectProtocol (v0, "default", eager) and IncrementalCooperativeConnectProtocol
(v1 "compatible", v2 "sessioned") write them, so Java workers and these can read each other's payloads. Kafka's
protocol types: INT16/INT32/INT64 big-endian, STRING = INT16 length + UTF-8, ARRAY = INT32 count (-1 = null),
NULLABLE_BYTES = INT32 length (-1 = null). In an assignment, task number -1 stands for the connector instance.

Pure: bytes in, frozen values out.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence

from connect_worker.api.javacompat import java_hashset_order
from connect_worker.kafka.wire_types import I16, I32, I64, MalformedData, Reader, nullable_bytes, string
from connect_worker.runtime.herder import ConnectorTaskId

CONNECTOR_TASK = -1
NO_ERROR = 0
CONFIG_MISMATCH = 1

EAGER = "default"
COMPATIBLE = "compatible"
SESSIONED = "sessioned"
PROTOCOL_VERSIONS = {EAGER: 0, COMPATIBLE: 1, SESSIONED: 2}


class ConnectProtocolError(MalformedData):
    """A join payload that cannot be read (truncated, or of a version below 0)."""


@dataclasses.dataclass(frozen=True, slots=True)
class Assignment:
    """What the leader gives one member: connectors and tasks to start (and, cooperative, to stop first)."""

    version: int
    error: int
    leader: str
    leader_url: str
    config_offset: int
    connectors: tuple[str, ...] = ()
    tasks: tuple[ConnectorTaskId, ...] = ()
    revoked_connectors: tuple[str, ...] = ()
    revoked_tasks: tuple[ConnectorTaskId, ...] = ()
    delay: int = 0

    @property
    def failed(self) -> bool:
        return self.error != NO_ERROR


@dataclasses.dataclass(frozen=True, slots=True)
class WorkerState:
    """A member's join metadata: its REST URL, how far it read the config topic, and what it runs now."""

    url: str
    config_offset: int
    assignment: Assignment | None = None


def _header(r: Reader) -> int:
    version = r.int16()
    if version < 0:
        raise ConnectProtocolError(f"Unsupported subscription version: {version}")
    return version


def _grouped(
    connectors: Sequence[str], tasks: Iterable[ConnectorTaskId], *, hashed: bool = False
) -> dict[str, list[int]]:
    """Connector name -> task numbers, -1 for the connector itself listed first (Connect's asMap order: assigned
    connectors go through a java.util.HashSet first, revoked ones keep their order)."""
    out: dict[str, list[int]] = {}
    for c in java_hashset_order(connectors) if hashed else dict.fromkeys(connectors):
        out.setdefault(c, []).append(CONNECTOR_TASK)
    for t in tasks:
        out.setdefault(t.connector, []).append(t.task)
    return out


def _connector_assignments(grouped: dict[str, list[int]]) -> bytes:
    parts = [I32.pack(len(grouped))]
    for connector, numbers in grouped.items():
        parts += (string(connector), I32.pack(len(numbers)), *(I32.pack(n) for n in numbers))
    return b"".join(parts)


def _read_connector_assignments(r: Reader) -> tuple[tuple[str, ...], tuple[ConnectorTaskId, ...]]:
    connectors: list[str] = []
    tasks: list[ConnectorTaskId] = []
    for _ in range(r.nullable_array_length()):
        connector = r.string()
        for _ in range(r.nullable_array_length()):
            n = r.int32()
            if n == CONNECTOR_TASK:
                connectors.append(connector)
            else:
                tasks.append(ConnectorTaskId(connector, n))
    return tuple(connectors), tuple(tasks)


def encode_assignment(a: Assignment) -> bytes:
    parts = [
        I16.pack(a.version),
        I16.pack(a.error),
        string(a.leader),
        string(a.leader_url),
        I64.pack(a.config_offset),
        _connector_assignments(_grouped(a.connectors, a.tasks, hashed=True)),
    ]
    if a.version >= 1:
        parts += (_connector_assignments(_grouped(a.revoked_connectors, a.revoked_tasks)), I32.pack(a.delay))
    return b"".join(parts)


def decode_assignment(data: bytes) -> Assignment:
    r = Reader(data, ConnectProtocolError)
    version = _header(r)
    error, leader, leader_url, offset = r.int16(), r.string(), r.string(), r.int64()
    connectors, tasks = _read_connector_assignments(r)
    revoked: tuple[tuple[str, ...], tuple[ConnectorTaskId, ...]] = ((), ())
    delay = 0
    # v1 fields are read when present (Connect tolerates them missing, with defaults)
    if version >= 1 and not r.at_end:
        revoked = _read_connector_assignments(r)
        if not r.at_end:
            delay = r.int32()
    return Assignment(version, error, leader, leader_url, offset, connectors, tasks, revoked[0], revoked[1], delay)


def encode_metadata(state: WorkerState, protocol: str) -> bytes:
    version = PROTOCOL_VERSIONS[protocol]
    parts = [I16.pack(version), string(state.url), I64.pack(state.config_offset)]
    if version >= 1:
        a = state.assignment
        parts.append(nullable_bytes(None if a is None else encode_assignment(dataclasses.replace(a, version=version))))
    return b"".join(parts)


def decode_metadata(data: bytes) -> WorkerState:
    r = Reader(data, ConnectProtocolError)
    version = _header(r)
    url, offset = r.string(), r.int64()
    assignment = None
    if version >= 1 and not r.at_end:
        raw = r.nullable_bytes()
        assignment = None if raw is None else decode_assignment(raw)
    return WorkerState(url, offset, assignment)


def join_protocols(state: WorkerState, protocols: Iterable[str]) -> list[tuple[str, bytes]]:
    """The (name, metadata) pairs a JoinGroup offers, in the order of preference given."""
    return [(p, encode_metadata(state, p)) for p in protocols]
