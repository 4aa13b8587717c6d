"""The group-membership wire format byte by byte: each expected frame is built here by hand from the Kafka 4.3.1
message schemas (common/message/*.json), field by field, independently of the encoder under test."""

from __future__ import annotations

import struct

import pytest

from connect_worker.api import ConfigError, RetriableError
from connect_worker.kafka.group_client import CoordinatorUnavailable, GroupError, parse_bootstrap_servers
from connect_worker.kafka.group_wire import (
    ErrorCode,
    FindCoordinatorRequest,
    FindCoordinatorResponse,
    HeartbeatRequest,
    HeartbeatResponse,
    JoinGroupMember,
    JoinGroupRequest,
    JoinGroupResponse,
    LeaveGroupMemberResponse,
    LeaveGroupRequest,
    LeaveGroupResponse,
    MalformedResponse,
    SyncGroupRequest,
    SyncGroupResponse,
    decode_find_coordinator,
    decode_heartbeat,
    decode_join_group,
    decode_leave_group,
    decode_response_header,
    decode_sync_group,
    encode_request,
    error_name,
)


def s(text: str) -> bytes:
    """A non-flexible STRING: int16 length, UTF-8 bytes."""
    return struct.pack(">h", len(text.encode())) + text.encode()


NULL_STRING = struct.pack(">h", -1)


def framed(payload: bytes) -> bytes:
    return struct.pack(">i", len(payload)) + payload


def header_v1(api_key: int, version: int, correlation_id: int, client_id: str) -> bytes:
    # RequestHeader v1: RequestApiKey int16, RequestApiVersion int16, CorrelationId int32, ClientId nullable STRING
    return struct.pack(">hhi", api_key, version, correlation_id) + s(client_id)


# -- requests --------------------------------------------------------------------------------------------------


def test_find_coordinator_v2_frame() -> None:
    expected = framed(
        header_v1(10, 2, 7, "cw")
        + s("connect-cluster")  # Key
        + b"\x00"  # KeyType int8: 0 = group
    )
    assert encode_request(FindCoordinatorRequest("connect-cluster"), correlation_id=7, client_id="cw") == expected


def test_a_null_client_id_is_a_minus_one_length() -> None:
    frame = encode_request(FindCoordinatorRequest("g"), correlation_id=1, client_id=None)
    assert frame[4 + 8 : 4 + 10] == b"\xff\xff"


def test_join_group_v5_frame() -> None:
    request = JoinGroupRequest(
        group_id="connect-cluster",
        session_timeout_ms=10_000,
        rebalance_timeout_ms=60_000,
        member_id="",
        protocol_type="connect",
        protocols=(("sessioned", b"\x00\x01"), ("compatible", b"m1")),
    )
    expected = framed(
        header_v1(11, 5, 42, "worker-1")
        + s("connect-cluster")  # GroupId
        + struct.pack(">i", 10_000)  # SessionTimeoutMs
        + struct.pack(">i", 60_000)  # RebalanceTimeoutMs (v1+)
        + s("")  # MemberId: none yet
        + NULL_STRING  # GroupInstanceId (v5+): null, no static membership
        + s("connect")  # ProtocolType
        + struct.pack(">i", 2)  # Protocols: ARRAY, int32 count
        + s("sessioned")  # Name
        + struct.pack(">i", 2)  # Metadata: BYTES, int32 length
        + b"\x00\x01"
        + s("compatible")
        + struct.pack(">i", 2)
        + b"m1"
    )
    assert encode_request(request, correlation_id=42, client_id="worker-1") == expected


def test_sync_group_v5_is_flexible() -> None:
    long_assignment = bytes(range(200))  # compact length 201 takes two varint bytes: 0xC9 0x01
    request = SyncGroupRequest(
        group_id="g",
        generation_id=3,
        member_id="m-1",
        protocol_type="connect",
        protocol_name="compatible",
        assignments=(("m-1", b"A"), ("m-2", long_assignment)),
    )
    expected = framed(
        # RequestHeader v2: header v1's fields (the ClientId keeps its int16 length) then tagged fields
        header_v1(14, 5, 9, "cw")
        + b"\x00"  # header tagged fields: none
        + b"\x02g"  # GroupId: COMPACT_STRING, unsigned varint length + 1
        + struct.pack(">i", 3)  # GenerationId
        + b"\x04m-1"  # MemberId
        + b"\x00"  # GroupInstanceId: compact null
        + b"\x08connect"  # ProtocolType (v5+)
        + b"\x0bcompatible"  # ProtocolName (v5+)
        + b"\x03"  # Assignments: COMPACT_ARRAY, count + 1
        + b"\x04m-1"  # MemberId
        + b"\x02A"  # Assignment: COMPACT_BYTES
        + b"\x00"  # the element's tagged fields
        + b"\x04m-2"
        + b"\xc9\x01"  # 201 = 0b1_1001001: low 7 bits with the continuation bit, then 1
        + long_assignment
        + b"\x00"
        + b"\x00"  # the body's tagged fields
    )
    assert encode_request(request, correlation_id=9, client_id="cw") == expected


def test_sync_group_of_a_follower_has_an_empty_compact_array() -> None:
    request = SyncGroupRequest("g", 1, "m", "connect", "compatible", ())
    body = request.encode_body()
    assert body.endswith(b"\x01" + b"\x00")  # count 0 encoded as 1, then the body's tagged fields


def test_heartbeat_v3_frame() -> None:
    expected = framed(
        header_v1(12, 3, 5, "cw")
        + s("g")  # GroupId
        + struct.pack(">i", 4)  # GenerationId
        + s("m-1")  # MemberId
        + NULL_STRING  # GroupInstanceId (v3+)
    )
    assert encode_request(HeartbeatRequest("g", 4, "m-1"), correlation_id=5, client_id="cw") == expected


def test_leave_group_v3_frame() -> None:
    expected = framed(
        header_v1(13, 3, 6, "cw")
        + s("g")  # GroupId
        + struct.pack(">i", 1)  # Members (v3+): ARRAY of MemberIdentity
        + s("m-1")  # MemberId
        + NULL_STRING  # GroupInstanceId
    )
    assert encode_request(LeaveGroupRequest("g", ("m-1",)), correlation_id=6, client_id="cw") == expected


def test_an_over_long_string_is_refused() -> None:
    with pytest.raises(ValueError, match="int16"):
        encode_request(FindCoordinatorRequest("g" * 40_000), correlation_id=1, client_id="cw")


# -- responses -------------------------------------------------------------------------------------------------


def test_response_header_v0_and_v1() -> None:
    assert decode_response_header(struct.pack(">i", 12) + b"body", flexible=False) == (12, b"body")
    # header v1: the correlation id, then tagged fields; one unknown field (tag 3, 2 bytes) is skipped
    v1 = struct.pack(">i", 12) + b"\x01" + b"\x03" + b"\x02" + b"xy" + b"body"
    assert decode_response_header(v1, flexible=True) == (12, b"body")


def test_find_coordinator_v2_response() -> None:
    body = (
        struct.pack(">i", 0)  # ThrottleTimeMs (v1+)
        + struct.pack(">h", 0)  # ErrorCode
        + NULL_STRING  # ErrorMessage (v1+), nullable
        + struct.pack(">i", 1)  # NodeId
        + s("127.0.0.1")  # Host
        + struct.pack(">i", 9092)  # Port
    )
    assert decode_find_coordinator(body) == FindCoordinatorResponse(0, 0, None, 1, "127.0.0.1", 9092)


def test_find_coordinator_v2_error_response() -> None:
    body = (
        struct.pack(">ih", 0, 15) + s("The coordinator is not available.") + struct.pack(">i", -1) + s("") + b"\xff" * 4
    )
    response = decode_find_coordinator(body)
    assert (response.error_code, response.error_message, response.node_id, response.port) == (
        ErrorCode.COORDINATOR_NOT_AVAILABLE,
        "The coordinator is not available.",
        -1,
        -1,
    )


def test_join_group_v5_response_of_the_leader() -> None:
    body = (
        struct.pack(">i", 0)  # ThrottleTimeMs
        + struct.pack(">h", 0)  # ErrorCode
        + struct.pack(">i", 2)  # GenerationId
        + s("compatible")  # ProtocolName (non-nullable before v7)
        + s("m-1")  # Leader
        + s("m-1")  # MemberId
        + struct.pack(">i", 2)  # Members
        + s("m-1")  # MemberId
        + NULL_STRING  # GroupInstanceId (v5+)
        + struct.pack(">i", 2)  # Metadata
        + b"m1"
        + s("m-2")
        + NULL_STRING
        + struct.pack(">i", 0)  # empty metadata
    )
    assert decode_join_group(body) == JoinGroupResponse(
        throttle_time_ms=0,
        error_code=0,
        generation_id=2,
        protocol_name="compatible",
        leader="m-1",
        member_id="m-1",
        members=(JoinGroupMember("m-1", None, b"m1"), JoinGroupMember("m-2", None, b"")),
    )


def test_join_group_v5_member_id_required() -> None:
    body = struct.pack(">ihi", 0, 79, -1) + s("") + s("") + s("cw-0b8e") + struct.pack(">i", 0)
    response = decode_join_group(body)
    assert (response.error_code, response.member_id, response.generation_id, response.members) == (
        ErrorCode.MEMBER_ID_REQUIRED,
        "cw-0b8e",
        -1,
        (),
    )


def test_sync_group_v5_response() -> None:
    body = (
        struct.pack(">i", 0)  # ThrottleTimeMs
        + struct.pack(">h", 0)  # ErrorCode
        + b"\x08connect"  # ProtocolType: COMPACT_NULLABLE_STRING
        + b"\x0bcompatible"  # ProtocolName
        + b"\x03AB"  # Assignment: COMPACT_BYTES
        + b"\x01"  # tagged fields: one
        + b"\x00\x01\x07"  # tag 0, size 1, a value this client does not know
    )
    assert decode_sync_group(body) == SyncGroupResponse(0, 0, "connect", "compatible", b"AB")


def test_sync_group_v5_error_response_with_nulls() -> None:
    body = struct.pack(">ih", 0, 27) + b"\x00" + b"\x00" + b"\x01" + b"\x00"
    assert decode_sync_group(body) == SyncGroupResponse(0, ErrorCode.REBALANCE_IN_PROGRESS, None, None, b"")


def test_heartbeat_and_leave_group_v3_responses() -> None:
    assert decode_heartbeat(struct.pack(">ih", 100, 27)) == HeartbeatResponse(100, 27)
    body = (
        struct.pack(">i", 0)  # ThrottleTimeMs
        + struct.pack(">h", 0)  # ErrorCode
        + struct.pack(">i", 1)  # Members (v3+)
        + s("m-1")  # MemberId
        + NULL_STRING  # GroupInstanceId
        + struct.pack(">h", 25)  # ErrorCode of this member
    )
    assert decode_leave_group(body) == LeaveGroupResponse(0, 0, (LeaveGroupMemberResponse("m-1", None, 25),))


@pytest.mark.parametrize(
    ("decode", "body", "match"),
    [
        (decode_heartbeat, struct.pack(">i", 0) + b"\x00", "truncated"),
        (decode_heartbeat, struct.pack(">ih", 0, 0) + b"\x00", "left after"),
        (decode_find_coordinator, struct.pack(">ih", 0, 0) + NULL_STRING + struct.pack(">i", 1) + NULL_STRING, "null"),
        (decode_join_group, struct.pack(">ihi", 0, 0, 1) + s("p") + s("l") + s("m") + struct.pack(">i", 1), "trunc"),
        (decode_sync_group, struct.pack(">ih", 0, 0) + b"\x00\x00" + b"\x00" + b"\x00", "null"),
        (decode_sync_group, struct.pack(">ih", 0, 0) + b"\x00\x00\x01" + b"\xff" * 6, "varint"),
        (decode_join_group, struct.pack(">ihi", 0, 0, 1) + b"\x00\x02\xc3\x28", "UTF-8"),
    ],
)
def test_malformed_responses_are_refused(decode, body, match) -> None:
    with pytest.raises(MalformedResponse, match=match):
        decode(body)


# -- error codes -----------------------------------------------------------------------------------------------


def test_error_codes_are_kafkas() -> None:
    # org.apache.kafka.common.protocol.Errors, Kafka 4.3.1
    assert {e.name: e.value for e in ErrorCode}.items() >= {
        "NONE": 0,
        "COORDINATOR_LOAD_IN_PROGRESS": 14,
        "COORDINATOR_NOT_AVAILABLE": 15,
        "NOT_COORDINATOR": 16,
        "ILLEGAL_GENERATION": 22,
        "INCONSISTENT_GROUP_PROTOCOL": 23,
        "INVALID_GROUP_ID": 24,
        "UNKNOWN_MEMBER_ID": 25,
        "INVALID_SESSION_TIMEOUT": 26,
        "REBALANCE_IN_PROGRESS": 27,
        "GROUP_AUTHORIZATION_FAILED": 30,
        "MEMBER_ID_REQUIRED": 79,
        "GROUP_MAX_SIZE_REACHED": 81,
        "FENCED_INSTANCE_ID": 82,
    }.items()
    assert error_name(27) == "REBALANCE_IN_PROGRESS"
    assert error_name(-1) == "UNKNOWN_SERVER_ERROR"
    assert error_name(9999) == "ERROR_9999"


def test_group_errors_name_the_group_and_the_code() -> None:
    error = GroupError("connect-cluster", 27)
    assert (str(error), error.code, error.name) == (
        "Group connect-cluster: REBALANCE_IN_PROGRESS (error 27)",
        27,
        "REBALANCE_IN_PROGRESS",
    )
    lost = CoordinatorUnavailable("g", ErrorCode.NOT_COORDINATOR, "still after 30 s")
    assert isinstance(lost, RetriableError) and not isinstance(lost, GroupError)
    assert (lost.code, lost.name) == (16, "NOT_COORDINATOR")
    assert str(lost) == "Group g: NOT_COORDINATOR (error 16): still after 30 s"


def test_bootstrap_servers() -> None:
    assert parse_bootstrap_servers("a:9092, b:9093,") == (("a", 9092), ("b", 9093))
    assert parse_bootstrap_servers(["[::1]:9092"]) == (("::1", 9092),)
    with pytest.raises(ConfigError):
        parse_bootstrap_servers("a")
    with pytest.raises(ConfigError):
        parse_bootstrap_servers("")
