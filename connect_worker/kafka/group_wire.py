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
import struct
from collections.abc import Sequence
from typing import ClassVar, Final

from connect_worker.api import ConnectError

_I8: Final = struct.Struct(">b")
_I16: Final = struct.Struct(">h")
_I32: Final = struct.Struct(">i")
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


class MalformedResponse(ConnectError):
    """A response that does not parse by its schema (truncated, a null where none is allowed, bytes left over)."""


# -- encoding primitives ---------------------------------------------------------------------------------------


def _string(value: str) -> bytes:
    raw = value.encode()
    if len(raw) > 0x7FFF:
        raise ValueError(f"string of {len(raw)} bytes is longer than an int16-length string can be")
    return _I16.pack(len(raw)) + raw


def _nullable_string(value: str | None) -> bytes:
    return _I16.pack(-1) if value is None else _string(value)


def _bytes(value: bytes) -> bytes:
    return _I32.pack(len(value)) + value


def _uvarint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _compact_nullable_string(value: str | None) -> bytes:
    if value is None:
        return b"\x00"
    raw = value.encode()
    return _uvarint(len(raw) + 1) + raw


def _compact_string(value: str) -> bytes:
    return _compact_nullable_string(value)


def _compact_bytes(value: bytes) -> bytes:
    return _uvarint(len(value) + 1) + value


# -- requests --------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True, slots=True)
class FindCoordinatorRequest:
    key: str
    key_type: CoordinatorType = CoordinatorType.GROUP

    API_KEY: ClassVar[ApiKey] = ApiKey.FIND_COORDINATOR
    VERSION: ClassVar[int] = 2
    FLEXIBLE: ClassVar[bool] = False

    def encode_body(self) -> bytes:
        return _string(self.key) + _I8.pack(self.key_type)


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
            _string(self.group_id),
            _I32.pack(self.session_timeout_ms),
            _I32.pack(self.rebalance_timeout_ms),
            _string(self.member_id),
            _nullable_string(None),  # group instance id: no static membership
            _string(self.protocol_type),
            _I32.pack(len(self.protocols)),
        ]
        for name, metadata in self.protocols:
            parts += (_string(name), _bytes(metadata))
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
            _compact_string(self.group_id),
            _I32.pack(self.generation_id),
            _compact_string(self.member_id),
            _compact_nullable_string(None),  # group instance id
            _compact_nullable_string(self.protocol_type),
            _compact_nullable_string(self.protocol_name),
            _uvarint(len(self.assignments) + 1),
        ]
        for member_id, assignment in self.assignments:
            parts += (_compact_string(member_id), _compact_bytes(assignment), _EMPTY_TAGS)
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
        return _string(self.group_id) + _I32.pack(self.generation_id) + _string(self.member_id) + _nullable_string(None)


@dataclasses.dataclass(frozen=True, slots=True)
class LeaveGroupRequest:
    group_id: str
    member_ids: Sequence[str]

    API_KEY: ClassVar[ApiKey] = ApiKey.LEAVE_GROUP
    VERSION: ClassVar[int] = 3
    FLEXIBLE: ClassVar[bool] = False

    def encode_body(self) -> bytes:
        parts = [_string(self.group_id), _I32.pack(len(self.member_ids))]
        for member_id in self.member_ids:
            parts += (_string(member_id), _nullable_string(None))
        return b"".join(parts)


Request = FindCoordinatorRequest | JoinGroupRequest | SyncGroupRequest | HeartbeatRequest | LeaveGroupRequest


def encode_request(request: Request, *, correlation_id: int, client_id: str | None) -> bytes:
    """The whole frame to write: int32 size, request header (v1, or v2 for a flexible request), body."""
    header = (
        _I16.pack(request.API_KEY)
        + _I16.pack(request.VERSION)
        + _I32.pack(correlation_id)
        + _nullable_string(client_id)  # an int16-length string even in header v2
    )
    if request.FLEXIBLE:
        header += _EMPTY_TAGS
    payload = header + request.encode_body()
    return _I32.pack(len(payload)) + payload


# -- decoding --------------------------------------------------------------------------------------------------


class _Reader:
    """A cursor over one response; every read checks the bytes are there."""

    __slots__ = ("_data", "_pos")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._pos = 0

    def _take(self, n: int) -> bytes:
        end = self._pos + n
        if n < 0 or end > len(self._data):
            raise MalformedResponse(f"response truncated: {n} bytes wanted at offset {self._pos} of {len(self._data)}")
        chunk = self._data[self._pos : end]
        self._pos = end
        return chunk

    def int8(self) -> int:
        return int(_I8.unpack(self._take(1))[0])

    def int16(self) -> int:
        return int(_I16.unpack(self._take(2))[0])

    def int32(self) -> int:
        return int(_I32.unpack(self._take(4))[0])

    def uvarint(self) -> int:
        value = shift = 0
        while True:
            byte = self._take(1)[0]
            value |= (byte & 0x7F) << shift
            if not byte & 0x80:
                return value
            shift += 7
            if shift > 28:
                raise MalformedResponse("unsigned varint longer than 5 bytes")

    def nullable_string(self) -> str | None:
        n = self.int16()
        return None if n == -1 else self._utf8(self._take(n))

    def string(self) -> str:
        value = self.nullable_string()
        if value is None:
            raise MalformedResponse("null where the schema has a non-nullable string")
        return value

    def bytes_(self) -> bytes:
        n = self.int32()
        if n == -1:
            raise MalformedResponse("null where the schema has non-nullable bytes")
        return self._take(n)

    def array_length(self) -> int:
        n = self.int32()
        if n == -1:
            raise MalformedResponse("null where the schema has a non-nullable array")
        return n

    def compact_nullable_string(self) -> str | None:
        n = self.uvarint()
        return None if n == 0 else self._utf8(self._take(n - 1))

    def compact_bytes(self) -> bytes:
        n = self.uvarint()
        if n == 0:
            raise MalformedResponse("null where the schema has non-nullable bytes")
        return self._take(n - 1)

    def skip_tagged_fields(self) -> None:
        """Tagged fields this client has no use for (none of its versions defines one): skipped by their size."""
        for _ in range(self.uvarint()):
            self.uvarint()  # tag
            self._take(self.uvarint())

    def rest(self) -> bytes:
        return self._data[self._pos :]

    def end(self) -> None:
        if self._pos != len(self._data):
            raise MalformedResponse(f"{len(self._data) - self._pos} bytes left after the response")

    @staticmethod
    def _utf8(raw: bytes) -> str:
        try:
            return raw.decode()
        except UnicodeDecodeError as e:
            raise MalformedResponse(f"string is not UTF-8: {e}") from e


def decode_response_header(payload: bytes, *, flexible: bool) -> tuple[int, bytes]:
    """Split a response (without its size prefix) into its correlation id and body. A flexible request's response
    has header v1, whose tagged fields are skipped."""
    reader = _Reader(payload)
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
    r = _Reader(body)
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
    r = _Reader(body)
    throttle_time_ms, error_code, generation_id = r.int32(), r.int16(), r.int32()
    protocol_name, leader, member_id = r.string(), r.string(), r.string()
    members = tuple(
        JoinGroupMember(member_id=r.string(), group_instance_id=r.nullable_string(), metadata=r.bytes_())
        for _ in range(r.array_length())
    )
    r.end()
    return JoinGroupResponse(throttle_time_ms, error_code, generation_id, protocol_name, leader, member_id, members)


def decode_sync_group(body: bytes) -> SyncGroupResponse:
    r = _Reader(body)
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
    r = _Reader(body)
    response = HeartbeatResponse(throttle_time_ms=r.int32(), error_code=r.int16())
    r.end()
    return response


def decode_leave_group(body: bytes) -> LeaveGroupResponse:
    r = _Reader(body)
    throttle_time_ms, error_code = r.int32(), r.int16()
    members = tuple(
        LeaveGroupMemberResponse(member_id=r.string(), group_instance_id=r.nullable_string(), error_code=r.int16())
        for _ in range(r.array_length())
    )
    r.end()
    return LeaveGroupResponse(throttle_time_ms, error_code, members)
