"""A client of Kafka's classic group-membership protocol (the one Kafka Connect workers use, protocol type
"connect"), over raw TCP with asyncio: librdkafka does not let a caller join a group with a protocol type of
its own.

It finds a group's coordinator through the bootstrap servers (FindCoordinator), keeps one connection to it and
sends JoinGroup, SyncGroup, Heartbeat and LeaveGroup there. The encoding is group_wire.py's; this module is
the socket, the lock and the error handling around it. What to do with a membership (the rebalance loop, the
heartbeat timer, assignments) is the caller's.

Only PLAINTEXT listeners are supported: no TLS, no SASL.

One request at a time per connection: a Kafka broker answers a connection's requests in order, and a JoinGroup
may wait as long as the rebalance timeout, so a request sent behind it would wait too. Calls are serialised by a
lock, so concurrent calls are safe, but a heartbeat sent while the same client's join is waiting is delayed until
the join is answered. A connection that failed, timed out or was abandoned by a cancelled call is closed (its
answer would otherwise be read as the next call's); the call raises `CoordinatorUnavailable` and the next call
finds the coordinator again and reconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import struct
from collections.abc import Callable, Mapping, Sequence
from typing import Final, TypeVar

from connect_worker.api import ConfigError, ConnectError, RetriableError
from connect_worker.kafka.group_wire import (
    ErrorCode,
    FindCoordinatorRequest,
    HeartbeatRequest,
    JoinGroupRequest,
    LeaveGroupRequest,
    MalformedResponse,
    Request,
    Response,
    SyncGroupRequest,
    decode_find_coordinator,
    decode_heartbeat,
    decode_join_group,
    decode_leave_group,
    decode_response_header,
    decode_sync_group,
    encode_request,
    error_name,
)

log = logging.getLogger(__name__)

_R = TypeVar("_R", bound=Response)

_SIZE: Final = struct.Struct(">i")
_MAX_RESPONSE_BYTES: Final = 100 * 1024 * 1024  # far above any group response; a larger size is a broken stream
_JOIN_MARGIN: Final = 5.0  # seconds a JoinGroup may take beyond the rebalance timeout (Kafka's clients allow 5 s)
_BACKOFF_FIRST: Final = 0.1
_BACKOFF_MAX: Final = 1.0
_COORDINATOR_ERRORS: Final = frozenset(
    {ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR}
)


class _GroupFailure(ConnectError):
    """A group request that failed with a Kafka error code: `code` is the code, `name` its name in Kafka."""

    def __init__(self, group_id: str, code: int, detail: str | None = None) -> None:
        self.group_id = group_id
        self.code = code
        self.name = error_name(code)
        message = f"Group {group_id}: {self.name} (error {code})"
        super().__init__(f"{message}: {detail}" if detail else message)


class GroupError(_GroupFailure):
    """The coordinator answered with an error about the membership itself (REBALANCE_IN_PROGRESS,
    UNKNOWN_MEMBER_ID, INCONSISTENT_GROUP_PROTOCOL …): what to do depends on the code."""


class CoordinatorUnavailable(_GroupFailure, RetriableError):
    """No usable coordinator: the connection failed or timed out (NETWORK_EXCEPTION, REQUEST_TIMED_OUT), or the
    broker said it is not, or not yet, the group's coordinator. The connection is dropped; try again (the
    membership may have survived if the outage was shorter than the session timeout).

    Not a GroupError: a caller's ``except GroupError`` (membership verdicts) does not swallow an outage, which
    ``except RetriableError`` catches."""


@dataclasses.dataclass(frozen=True, slots=True)
class JoinResult:
    generation: int
    protocol: str  # the protocol name the coordinator chose
    leader_id: str
    member_id: str
    members: tuple[tuple[str, bytes], ...]  # (member id, metadata): the leader's only; empty for the others

    @property
    def is_leader(self) -> bool:
        return self.member_id == self.leader_id


def parse_bootstrap_servers(servers: str | Sequence[str]) -> tuple[tuple[str, int], ...]:
    """``"host:port,host:port"`` (or a sequence of ``"host:port"``) as (host, port) pairs; ``[v6]:port`` too."""
    items = servers.split(",") if isinstance(servers, str) else list(servers)
    out = []
    for item in (i.strip() for i in items):
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit():
            raise ConfigError(f"Invalid bootstrap server {item!r}: expected host:port", name="bootstrap.servers")
        out.append((host.removeprefix("[").removesuffix("]"), int(port)))
    if not out:
        raise ConfigError("No bootstrap server given", name="bootstrap.servers")
    return tuple(out)


class _Connection:
    """One TCP connection to a broker, opened on behalf of one group; one request on the wire at a time."""

    def __init__(
        self,
        group_id: str,
        address: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        client_id: str,
    ) -> None:
        self._group_id = group_id
        self.address = address
        self._reader = reader
        self._writer = writer
        self._client_id = client_id
        self._lock = asyncio.Lock()
        self._correlation_id = 0
        self._ready_at = 0.0  # the broker asked for no request before then (its throttle time)
        self.closed = False

    @classmethod
    async def open(cls, group_id: str, host: str, port: int, *, client_id: str, timeout: float) -> _Connection:
        address = f"{host}:{port}"
        try:
            async with asyncio.timeout(timeout):
                reader, writer = await asyncio.open_connection(host, port)
        except TimeoutError as e:
            raise CoordinatorUnavailable(group_id, ErrorCode.REQUEST_TIMED_OUT, f"connecting to {address}") from e
        except OSError as e:
            raise CoordinatorUnavailable(group_id, ErrorCode.NETWORK_EXCEPTION, f"connecting to {address}: {e}") from e
        return cls(group_id, address, reader, writer, client_id)

    async def request(self, request: Request, decode: Callable[[bytes], _R], timeout: float) -> _R:
        """Send `request`, wait up to `timeout` seconds for its response and decode it."""
        async with self._lock:
            if self.closed:
                raise CoordinatorUnavailable(
                    self._group_id, ErrorCode.NETWORK_EXCEPTION, f"connection to {self.address} closed"
                )
            loop = asyncio.get_running_loop()
            if (wait := self._ready_at - loop.time()) > 0:
                await asyncio.sleep(wait)
            self._correlation_id = (self._correlation_id + 1) & 0x7FFFFFFF
            correlation_id = self._correlation_id
            frame = encode_request(request, correlation_id=correlation_id, client_id=self._client_id)
            answered = False
            try:
                payload = await self._exchange(frame, timeout)
                answered = True
            finally:
                if not answered:  # failed, timed out or cancelled: a late answer must not meet the next request
                    self.abort()
            try:
                got, body = decode_response_header(payload, flexible=request.FLEXIBLE)
                if got != correlation_id:
                    raise MalformedResponse(f"correlation id {got} answers a request sent as {correlation_id}")
                response = decode(body)
            except MalformedResponse:
                self.abort()
                raise
            if response.throttle_time_ms > 0:
                self._ready_at = loop.time() + response.throttle_time_ms / 1000
            return response

    async def _exchange(self, frame: bytes, timeout: float) -> bytes:
        try:
            async with asyncio.timeout(timeout):
                self._writer.write(frame)
                await self._writer.drain()
                (size,) = _SIZE.unpack(await self._reader.readexactly(_SIZE.size))
                if not 4 <= size <= _MAX_RESPONSE_BYTES:
                    raise MalformedResponse(f"response size {size} from {self.address}")
                return await self._reader.readexactly(size)
        except TimeoutError as e:  # before OSError: TimeoutError is one
            raise CoordinatorUnavailable(
                self._group_id, ErrorCode.REQUEST_TIMED_OUT, f"no response from {self.address} in {timeout:g} s"
            ) from e
        except (OSError, asyncio.IncompleteReadError) as e:
            raise CoordinatorUnavailable(
                self._group_id, ErrorCode.NETWORK_EXCEPTION, f"connection to {self.address} lost: {e!r}"
            ) from e

    def abort(self) -> None:
        if not self.closed:
            self.closed = True
            self._writer.close()

    async def close(self) -> None:
        self.abort()
        with contextlib.suppress(OSError):  # the broker had already dropped it
            await self._writer.wait_closed()


class GroupClient:
    """Membership calls for any number of groups, each through one connection to its coordinator."""

    def __init__(
        self, bootstrap_servers: str | Sequence[str], *, client_id: str, request_timeout: float = 30.0
    ) -> None:
        self._servers = parse_bootstrap_servers(bootstrap_servers)
        self._client_id = client_id
        self._request_timeout = request_timeout
        self._coordinators: dict[str, _Connection] = {}
        self._discovery = asyncio.Lock()  # one coordinator lookup at a time: concurrent calls share its result

    async def join(
        self,
        group_id: str,
        member_id: str,
        protocol_type: str,
        protocols: Sequence[tuple[str, bytes]],
        *,
        session_timeout_ms: int,
        rebalance_timeout_ms: int,
    ) -> JoinResult:
        """Join (or rejoin) the group and wait for the coordinator to complete the rebalance, which may take up to
        the rebalance timeout. A new member (``member_id=""``) is named by the coordinator (MEMBER_ID_REQUIRED)
        and joins again at once with that id. A coordinator that moved or is not ready is looked up again,
        with a short backoff, for up to `request_timeout`, then `CoordinatorUnavailable`; so does a lost or
        timed-out connection, at once (the join may have reached the coordinator: the caller decides). Other
        errors raise `GroupError`."""
        request = JoinGroupRequest(
            group_id, session_timeout_ms, rebalance_timeout_ms, member_id, protocol_type, tuple(protocols)
        )
        timeout = rebalance_timeout_ms / 1000 + _JOIN_MARGIN
        loop = asyncio.get_running_loop()
        retry_until: float | None = None
        backoff = _BACKOFF_FIRST
        while True:
            conn = await self._coordinator(group_id)
            response = await conn.request(request, decode_join_group, timeout)
            code = response.error_code
            if code == ErrorCode.NONE:
                return JoinResult(
                    generation=response.generation_id,
                    protocol=response.protocol_name,
                    leader_id=response.leader,
                    member_id=response.member_id,
                    members=tuple((m.member_id, m.metadata) for m in response.members),
                )
            if code == ErrorCode.MEMBER_ID_REQUIRED and response.member_id not in ("", request.member_id):
                request = dataclasses.replace(request, member_id=response.member_id)
                continue
            if code not in _COORDINATOR_ERRORS:
                raise GroupError(group_id, code)
            self._forget(group_id, conn, error_name(code))
            retry_until = retry_until or loop.time() + self._request_timeout
            if loop.time() + backoff > retry_until:
                raise CoordinatorUnavailable(group_id, code, f"still after {self._request_timeout:g} s")
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, _BACKOFF_MAX)

    async def sync(
        self,
        group_id: str,
        generation: int,
        member_id: str,
        protocol_type: str,
        protocol: str,
        assignments: Mapping[str, bytes],
    ) -> bytes:
        """Hand in the leader's assignments (every member's; the others pass an empty mapping) and get this
        member's. The coordinator refuses a protocol type or name other than the group's."""
        request = SyncGroupRequest(group_id, generation, member_id, protocol_type, protocol, tuple(assignments.items()))
        response = await self._call(group_id, request, decode_sync_group)
        return response.assignment

    async def heartbeat(self, group_id: str, generation: int, member_id: str) -> None:
        """Keep the membership alive. REBALANCE_IN_PROGRESS means join again (with the same member id);
        UNKNOWN_MEMBER_ID and ILLEGAL_GENERATION that this member was dropped or is behind."""
        await self._call(group_id, HeartbeatRequest(group_id, generation, member_id), decode_heartbeat)

    async def leave(self, group_id: str, member_id: str) -> None:
        """Leave the group now rather than when the session times out: the others rebalance at once."""
        response = await self._call(group_id, LeaveGroupRequest(group_id, (member_id,)), decode_leave_group)
        for member in response.members:
            if member.error_code != ErrorCode.NONE:
                raise GroupError(group_id, member.error_code, f"member {member.member_id} could not leave")

    async def close(self) -> None:
        """Close every connection. The client stays usable: a later call connects again."""
        connections, self._coordinators = list(self._coordinators.values()), {}
        for conn in connections:
            await conn.close()

    # -- internals -------------------------------------------------------------------------------------------

    async def _call(self, group_id: str, request: Request, decode: Callable[[bytes], _R]) -> _R:
        """One request to the group's coordinator; an error in the answer raises (and a coordinator error also
        drops the connection, so the next call looks the coordinator up again)."""
        conn = await self._coordinator(group_id)
        response = await conn.request(request, decode, self._request_timeout)
        code = response.error_code
        if code in _COORDINATOR_ERRORS:
            self._forget(group_id, conn, error_name(code))
            raise CoordinatorUnavailable(group_id, code)
        if code != ErrorCode.NONE:
            raise GroupError(group_id, code)
        return response

    async def _coordinator(self, group_id: str) -> _Connection:
        conn = self._coordinators.get(group_id)
        if conn is not None and not conn.closed:
            return conn
        async with self._discovery:
            conn = self._coordinators.get(group_id)
            if conn is not None and not conn.closed:
                return conn
            deadline = asyncio.get_running_loop().time() + self._request_timeout
            host, port, node_id = await self._find_coordinator(group_id, deadline)
            conn = await _Connection.open(
                group_id, host, port, client_id=self._client_id, timeout=self._remaining(deadline)
            )
            self._coordinators[group_id] = conn
            log.info("Group %s: coordinator is node %d at %s", group_id, node_id, conn.address)
            return conn

    async def _find_coordinator(self, group_id: str, deadline: float) -> tuple[str, int, int]:
        """Ask the bootstrap servers in turn; retry with a backoff while none answers or the coordinator is not
        ready (the group metadata topic being created or loaded) until `deadline`."""
        backoff = _BACKOFF_FIRST
        while True:
            error: CoordinatorUnavailable | None = None
            for host, port in self._servers:
                try:
                    conn = await _Connection.open(
                        group_id, host, port, client_id=self._client_id, timeout=self._remaining(deadline)
                    )
                    try:
                        response = await conn.request(
                            FindCoordinatorRequest(group_id), decode_find_coordinator, self._remaining(deadline)
                        )
                    finally:
                        await conn.close()
                except CoordinatorUnavailable as e:
                    error = e
                    continue
                if response.error_code == ErrorCode.NONE:
                    return response.host, response.port, response.node_id
                if response.error_code not in _COORDINATOR_ERRORS:
                    raise GroupError(group_id, response.error_code, response.error_message)
                error = CoordinatorUnavailable(group_id, response.error_code, response.error_message)
                break  # the cluster answered: ask again after the backoff
            assert error is not None  # parse_bootstrap_servers gives at least one server
            if asyncio.get_running_loop().time() + backoff > deadline:
                raise error
            await asyncio.sleep(backoff)
            backoff = min(backoff * 2, _BACKOFF_MAX)

    def _remaining(self, deadline: float) -> float:
        return max(deadline - asyncio.get_running_loop().time(), 0.001)

    def _forget(self, group_id: str, conn: _Connection, reason: str) -> None:
        if self._coordinators.get(group_id) is conn:
            del self._coordinators[group_id]
        conn.abort()
        log.info("Group %s: coordinator %s dropped (%s); it will be looked up again", group_id, conn.address, reason)
