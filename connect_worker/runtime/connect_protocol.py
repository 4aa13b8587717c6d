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
import struct
from collections.abc import Iterable, Sequence

from connect_worker.api import ConnectError
from connect_worker.api.javacompat import java_hashset_order
from connect_worker.runtime.herder import ConnectorTaskId

CONNECTOR_TASK = -1
NO_ERROR = 0
CONFIG_MISMATCH = 1

EAGER = "default"
COMPATIBLE = "compatible"
SESSIONED = "sessioned"
PROTOCOL_VERSIONS = {EAGER: 0, COMPATIBLE: 1, SESSIONED: 2}


class ConnectProtocolError(ConnectError):
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


class _Writer:
    def __init__(self) -> None:
        self.parts: list[bytes] = []

    def int16(self, v: int) -> None:
        self.parts.append(struct.pack(">h", v))

    def int32(self, v: int) -> None:
        self.parts.append(struct.pack(">i", v))

    def int64(self, v: int) -> None:
        self.parts.append(struct.pack(">q", v))

    def string(self, v: str) -> None:
        raw = v.encode("utf-8")
        self.int16(len(raw))
        self.parts.append(raw)

    def nullable_bytes(self, v: bytes | None) -> None:
        if v is None:
            self.int32(-1)
        else:
            self.int32(len(v))
            self.parts.append(v)

    def bytes(self) -> bytes:
        return b"".join(self.parts)


class _Reader:
    def __init__(self, data: bytes) -> None:
        self.data = data
        self.pos = 0

    @property
    def at_end(self) -> bool:
        return self.pos >= len(self.data)

    def _take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            raise ConnectProtocolError(f"Connect group payload truncated at byte {self.pos} (needs {n} more)")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return out

    def int16(self) -> int:
        return int(struct.unpack(">h", self._take(2))[0])

    def int32(self) -> int:
        return int(struct.unpack(">i", self._take(4))[0])

    def int64(self) -> int:
        return int(struct.unpack(">q", self._take(8))[0])

    def string(self) -> str:
        return self._take(self.int16()).decode("utf-8")

    def nullable_bytes(self) -> bytes | None:
        n = self.int32()
        return None if n < 0 else self._take(n)


def _header(r: _Reader) -> int:
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


def _write_connector_assignments(w: _Writer, grouped: dict[str, list[int]] | None) -> None:
    if grouped is None:
        w.int32(-1)
        return
    w.int32(len(grouped))
    for connector, numbers in grouped.items():
        w.string(connector)
        w.int32(len(numbers))
        for n in numbers:
            w.int32(n)


def _read_connector_assignments(r: _Reader) -> tuple[tuple[str, ...], tuple[ConnectorTaskId, ...]]:
    count = r.int32()
    connectors: list[str] = []
    tasks: list[ConnectorTaskId] = []
    for _ in range(max(count, 0)):
        connector = r.string()
        for _ in range(max(r.int32(), 0)):
            n = r.int32()
            if n == CONNECTOR_TASK:
                connectors.append(connector)
            else:
                tasks.append(ConnectorTaskId(connector, n))
    return tuple(connectors), tuple(tasks)


def encode_assignment(a: Assignment) -> bytes:
    w = _Writer()
    w.int16(a.version)
    w.int16(a.error)
    w.string(a.leader)
    w.string(a.leader_url)
    w.int64(a.config_offset)
    _write_connector_assignments(w, _grouped(a.connectors, a.tasks, hashed=True))
    if a.version >= 1:
        _write_connector_assignments(w, _grouped(a.revoked_connectors, a.revoked_tasks))
        w.int32(a.delay)
    return w.bytes()


def decode_assignment(data: bytes) -> Assignment:
    r = _Reader(data)
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
    w = _Writer()
    w.int16(version)
    w.string(state.url)
    w.int64(state.config_offset)
    if version >= 1:
        a = state.assignment
        w.nullable_bytes(None if a is None else encode_assignment(dataclasses.replace(a, version=version)))
    return w.bytes()


def decode_metadata(data: bytes) -> WorkerState:
    r = _Reader(data)
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
