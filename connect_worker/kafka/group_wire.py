"""Kafka's classic group-membership requests and responses on the wire: bytes in, frozen dataclasses out.

Pure: no sockets, no clock, no logging. The transport (group_client.py) frames a request with `encode_request`,
reads one size-prefixed response, splits off its header with `decode_response_header` and hands the body to the
decoder of the API it asked.

Versions (from the Kafka 4.3.1 message schemas; the 4.3.1 broker accepts all of them). Each API uses the newest
non-flexible version, whose encoding is plain big-endian with int16/int32 length prefixes, except SyncGroup:

====================  =======  ==========================================================================
API (key)             version  why
====================  =======  ==========================================================================
FindCoordinator (10)  2        the last version with one key per request (v3 turns flexible, v4 batches)
JoinGroup (11)        5        member id handshake (MEMBER_ID_REQUIRED, v4+) and the group instance id
Heartbeat (12)        3        the group instance id; v4 only turns flexible
LeaveGroup (13)       3        members listed by identity; v4 only turns flexible, v5 adds a reason
SyncGroup (14)        5        flexible, but the only version that carries the protocol type and name, which
                               the coordinator checks against the group's (KIP-559): a member cannot install
                               an assignment made for another protocol
====================  =======  ==========================================================================

A flexible request takes request header v2 (v1 plus tagged fields; the client id keeps its int16 length), its
response header v1 (the correlation id plus tagged fields); strings, arrays and bytes are "compact" (an unsigned
varint of length + 1, 0 meaning null) and every structure ends with tagged fields, which a decoder skips when it
does not know them. No static membership: the group instance id is always sent as null.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from typing import ClassVar, Final

from connect_worker.kafka.wire_types import (
    I8,
    I16,
    I32,
    MalformedData,
    Reader,
    bytes_,
    compact_bytes,
    compact_nullable_string,
    compact_string,
    nullable_string,
    string,
    uvarint,
)

_EMPTY_TAGS: Final = b"\x00"  # a flexible structure without tagged fields: a count of 0


class ApiKey(enum.IntEnum):
    FIND_COORDINATOR = 10
    JOIN_GROUP = 11
    HEARTBEAT = 12
    LEAVE_GROUP = 13
    SYNC_GROUP = 14


class CoordinatorType(enum.IntEnum):
    """FindCoordinator's key type; only groups are asked for here."""

    GROUP = 0


class ErrorCode(enum.IntEnum):
    """The Kafka error codes these five APIs answer with (org.apache.kafka.common.protocol.Errors)."""

    UNKNOWN_SERVER_ERROR = -1
    NONE = 0
    CORRUPT_MESSAGE = 2
    REQUEST_TIMED_OUT = 7
    NETWORK_EXCEPTION = 13
    COORDINATOR_LOAD_IN_PROGRESS = 14
    COORDINATOR_NOT_AVAILABLE = 15
    NOT_COORDINATOR = 16
    ILLEGAL_GENERATION = 22
    INCONSISTENT_GROUP_PROTOCOL = 23
    INVALID_GROUP_ID = 24
    UNKNOWN_MEMBER_ID = 25
    INVALID_SESSION_TIMEOUT = 26
    REBALANCE_IN_PROGRESS = 27
    GROUP_AUTHORIZATION_FAILED = 30
    UNSUPPORTED_VERSION = 35
    INVALID_REQUEST = 42
    GROUP_ID_NOT_FOUND = 69
    MEMBER_ID_REQUIRED = 79
    GROUP_MAX_SIZE_REACHED = 81
    FENCED_INSTANCE_ID = 82
    UNRELEASED_INSTANCE_ID = 111


def error_name(code: int) -> str:
    """Kafka's name for an error code; a code not listed above keeps its number (``ERROR_<code>``)."""
    try:
        return ErrorCode(code).name
    except ValueError:
        return f"ERROR_{code}"


class MalformedResponse(MalformedData):
    """A response that does not parse by its schema (truncated, a null where none is allowed, bytes left over)."""


# -- requests --------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class FindCoordinatorRequest:
    key: str
    key_type: CoordinatorType = CoordinatorType.GROUP

    API_KEY: ClassVar[ApiKey] = ApiKey.FIND_COORDINATOR
    VERSION: ClassVar[int] = 2
    FLEXIBLE: ClassVar[bool] = False

    def encode_body(self) -> bytes:
        return string(self.key) + I8.pack(self.key_type)


@dataclasses.dataclass(frozen=True, slots=True)
class JoinGroupRequest:
    group_id: str
    session_timeout_ms: int
    rebalance_timeout_ms: int
    member_id: str  # "" for a member the coordinator has not named yet
    protocol_type: str
    protocols: Sequence[tuple[str, bytes]]  # (name, metadata), most preferred first

    API_KEY: ClassVar[ApiKey] = ApiKey.JOIN_GROUP
    VERSION: ClassVar[int] = 5
    FLEXIBLE: ClassVar[bool] = False

    def encode_body(self) -> bytes:
        parts = [
            string(self.group_id),
            I32.pack(self.session_timeout_ms),
            I32.pack(self.rebalance_timeout_ms),
            string(self.member_id),
            nullable_string(None),  # group instance id: no static membership
            string(self.protocol_type),
            I32.pack(len(self.protocols)),
        ]
        for name, metadata in self.protocols:
            parts += (string(name), bytes_(metadata))
        return b"".join(parts)


@dataclasses.dataclass(frozen=True, slots=True)
class SyncGroupRequest:
    group_id: str
    generation_id: int
    member_id: str
    protocol_type: str
    protocol_name: str
    assignments: Sequence[tuple[str, bytes]]  # (member id, assignment): the leader's, empty from the others

    API_KEY: ClassVar[ApiKey] = ApiKey.SYNC_GROUP
    VERSION: ClassVar[int] = 5
    FLEXIBLE: ClassVar[bool] = True

    def encode_body(self) -> bytes:
        parts = [
            compact_string(self.group_id),
            I32.pack(self.generation_id),
            compact_string(self.member_id),
            compact_nullable_string(None),  # group instance id
            compact_nullable_string(self.protocol_type),
            compact_nullable_string(self.protocol_name),
            uvarint(len(self.assignments) + 1),
        ]
        for member_id, assignment in self.assignments:
            parts += (compact_string(member_id), compact_bytes(assignment), _EMPTY_TAGS)
        parts.append(_EMPTY_TAGS)
        return b"".join(parts)


@dataclasses.dataclass(frozen=True, slots=True)
class HeartbeatRequest:
    group_id: str
    generation_id: int
    member_id: str

    API_KEY: ClassVar[ApiKey] = ApiKey.HEARTBEAT
    VERSION: ClassVar[int] = 3
    FLEXIBLE: ClassVar[bool] = False

    def encode_body(self) -> bytes:
        return string(self.group_id) + I32.pack(self.generation_id) + string(self.member_id) + nullable_string(None)


@dataclasses.dataclass(frozen=True, slots=True)
class LeaveGroupRequest:
    group_id: str
    member_ids: Sequence[str]

    API_KEY: ClassVar[ApiKey] = ApiKey.LEAVE_GROUP
    VERSION: ClassVar[int] = 3
    FLEXIBLE: ClassVar[bool] = False

    def encode_body(self) -> bytes:
        parts = [string(self.group_id), I32.pack(len(self.member_ids))]
        for member_id in self.member_ids:
            parts += (string(member_id), nullable_string(None))
        return b"".join(parts)


Request = FindCoordinatorRequest | JoinGroupRequest | SyncGroupRequest | HeartbeatRequest | LeaveGroupRequest


def encode_request(request: Request, *, correlation_id: int, client_id: str | None) -> bytes:
    """The whole frame to write: int32 size, request header (v1, or v2 for a flexible request), body."""
    header = (
        I16.pack(request.API_KEY)
        + I16.pack(request.VERSION)
        + I32.pack(correlation_id)
        + nullable_string(client_id)  # an int16-length string even in header v2
    )
    if request.FLEXIBLE:
        header += _EMPTY_TAGS
    payload = header + request.encode_body()
    return I32.pack(len(payload)) + payload


# -- decoding --------------------------------------------------------------------------------------------------


def decode_response_header(payload: bytes, *, flexible: bool) -> tuple[int, bytes]:
    """Split a response (without its size prefix) into its correlation id and body. A flexible request's response
    has header v1, whose tagged fields are skipped."""
    reader = Reader(payload, MalformedResponse)
    correlation_id = reader.int32()
    if flexible:
        reader.skip_tagged_fields()
    return correlation_id, reader.rest()


@dataclasses.dataclass(frozen=True, slots=True)
class FindCoordinatorResponse:
    throttle_time_ms: int
    error_code: int
    error_message: str | None
    node_id: int
    host: str
    port: int


@dataclasses.dataclass(frozen=True, slots=True)
class JoinGroupMember:
    member_id: str
    group_instance_id: str | None
    metadata: bytes


@dataclasses.dataclass(frozen=True, slots=True)
class JoinGroupResponse:
    throttle_time_ms: int
    error_code: int
    generation_id: int
    protocol_name: str  # "" when the join failed
    leader: str
    member_id: str
    members: tuple[JoinGroupMember, ...]  # every member's metadata for the leader, empty for the others


@dataclasses.dataclass(frozen=True, slots=True)
class SyncGroupResponse:
    throttle_time_ms: int
    error_code: int
    protocol_type: str | None
    protocol_name: str | None
    assignment: bytes


@dataclasses.dataclass(frozen=True, slots=True)
class HeartbeatResponse:
    throttle_time_ms: int
    error_code: int


@dataclasses.dataclass(frozen=True, slots=True)
class LeaveGroupMemberResponse:
    member_id: str
    group_instance_id: str | None
    error_code: int


@dataclasses.dataclass(frozen=True, slots=True)
class LeaveGroupResponse:
    throttle_time_ms: int
    error_code: int
    members: tuple[LeaveGroupMemberResponse, ...]


Response = FindCoordinatorResponse | JoinGroupResponse | SyncGroupResponse | HeartbeatResponse | LeaveGroupResponse


def decode_find_coordinator(body: bytes) -> FindCoordinatorResponse:
    r = Reader(body, MalformedResponse)
    response = FindCoordinatorResponse(
        throttle_time_ms=r.int32(),
        error_code=r.int16(),
        error_message=r.nullable_string(),
        node_id=r.int32(),
        host=r.string(),
        port=r.int32(),
    )
    r.end()
    return response


def decode_join_group(body: bytes) -> JoinGroupResponse:
    r = Reader(body, MalformedResponse)
    throttle_time_ms, error_code, generation_id = r.int32(), r.int16(), r.int32()
    protocol_name, leader, member_id = r.string(), r.string(), r.string()
    members = tuple(
        JoinGroupMember(member_id=r.string(), group_instance_id=r.nullable_string(), metadata=r.bytes_())
        for _ in range(r.array_length())
    )
    r.end()
    return JoinGroupResponse(throttle_time_ms, error_code, generation_id, protocol_name, leader, member_id, members)


def decode_sync_group(body: bytes) -> SyncGroupResponse:
    r = Reader(body, MalformedResponse)
    response = SyncGroupResponse(
        throttle_time_ms=r.int32(),
        error_code=r.int16(),
        protocol_type=r.compact_nullable_string(),
        protocol_name=r.compact_nullable_string(),
        assignment=r.compact_bytes(),
    )
    r.skip_tagged_fields()
    r.end()
    return response


def decode_heartbeat(body: bytes) -> HeartbeatResponse:
    r = Reader(body, MalformedResponse)
    response = HeartbeatResponse(throttle_time_ms=r.int32(), error_code=r.int16())
    r.end()
    return response


def decode_leave_group(body: bytes) -> LeaveGroupResponse:
    r = Reader(body, MalformedResponse)
    throttle_time_ms, error_code = r.int32(), r.int16()
    members = tuple(
        LeaveGroupMemberResponse(member_id=r.string(), group_instance_id=r.nullable_string(), error_code=r.int16())
        for _ in range(r.array_length())
    )
    r.end()
    return LeaveGroupResponse(throttle_time_ms, error_code, members)
