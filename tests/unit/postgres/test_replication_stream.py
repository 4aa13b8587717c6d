"""ReplicationStream's socket handling against a scripted libpq connection (no server).

These encode the pitfalls found with psycopg 3 (feasibility notes 1.4): drain libpq fully (bytes it
already holds never wake a reader), never raise out of the reader callback, wait for writability when
flush() returns 1, stop cleanly (CopyDone, drain to -1, results to None), and stop reading under
back-pressure without losing what libpq buffered. The real server is exercised by the integration tests.
"""

from __future__ import annotations

import asyncio
import collections
import socket
import struct
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, cast

import psycopg
import pytest
from psycopg import pq

from connect_worker.api.errors import DataError
from connectors.postgres.errors import PostgresConnectionError
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol.pgoutput import Begin, Commit, Insert, PgOutputDecoder
from connectors.postgres.replication import ReplicationStream

END = object()  # the server's CopyDone


@dataclass
class FakeResult:
    status: int


class FakePGconn:
    """Just the libpq calls the stream makes, with a real socket for the event loop to watch."""

    def __init__(self) -> None:
        self._r, self._w = socket.socketpair()
        self._r.setblocking(False)
        self.wire: collections.deque[object] = collections.deque()  # sent by the server, not yet read
        self.buffer: collections.deque[object] = collections.deque()  # read by libpq
        self.sent: list[bytes] = []
        self.flush_script: list[int] = []
        self.results: list[FakeResult | None] = [FakeResult(pq.ExecStatus.COMMAND_OK)] * 2 + [None]
        self.status = pq.ConnStatus.OK
        self.fail_on_get: int | None = None
        self.flushes = 0
        self.copy_ended = False

    @property
    def socket(self) -> int:
        return self._r.fileno()

    def server_sends(self, *messages: object, readable: bool = True) -> None:
        self.wire.extend(messages)
        if readable:
            self._w.send(b"x")

    def libpq_already_holds(self, *messages: object) -> None:
        self.buffer.extend(messages)

    def consume_input(self) -> None:
        try:
            while self._r.recv(4096):
                pass
        except BlockingIOError:
            pass
        self.buffer.extend(self.wire)
        self.wire.clear()

    def get_copy_data(self, async_: int) -> tuple[int, memoryview]:
        assert async_ == 1
        if self.fail_on_get is not None:
            if self.fail_on_get == 0:
                raise psycopg.OperationalError("receiving copy data failed: server closed the connection")
            self.fail_on_get -= 1
        if not self.buffer:
            return 0, memoryview(b"")
        item = self.buffer.popleft()
        if item is END:
            return -1, memoryview(b"")
        data = cast(bytes, item)
        return len(data), memoryview(data)

    def put_copy_data(self, data: bytes) -> int:
        self.sent.append(bytes(data))
        return 1

    def put_copy_end(self) -> int:
        if not self.copy_ended:
            self.server_sends(END)
        self.copy_ended = True
        return 1

    def flush(self) -> int:
        self.flushes += 1
        return self.flush_script.pop(0) if self.flush_script else 0

    def is_busy(self) -> int:
        return 0

    def get_result(self) -> FakeResult | None:
        return self.results.pop(0)

    def close(self) -> None:
        self._r.close()
        self._w.close()


class FakeConnection:
    def __init__(self, pgconn: FakePGconn) -> None:
        self.connection = self
        self.pgconn = pgconn
        self.closed_streams: list[object] = []

    def _stream_closed(self, stream: object) -> None:
        self.closed_streams.append(stream)

    def _copy_ended_by_client(self) -> None:
        pass


@pytest.fixture
def pgconn() -> Iterator[FakePGconn]:
    conn = FakePGconn()
    yield conn
    conn.close()


def make_stream(pgconn: FakePGconn, **kwargs: Any) -> ReplicationStream[Any]:
    options: dict[str, Any] = {"slot_name": "s1", "max_pending": 8192, "status_interval": 3600.0, "clock": lambda: 0.0}
    options.update(kwargs)
    stream: ReplicationStream[Any] = ReplicationStream(
        cast(Any, FakeConnection(pgconn)), PgOutputDecoder().decode, **options
    )
    stream._start()
    return stream


def xlog(start: int, payload: bytes, end: int | None = None) -> bytes:
    return b"w" + struct.pack("!QQq", start, end if end is not None else start, 0) + payload


def keepalive(wal_end: int, reply: bool) -> bytes:
    return b"k" + struct.pack("!QqB", wal_end, 0, int(reply))


def insert(i: int) -> bytes:
    text = str(i).encode()
    return b"I" + struct.pack("!I", 1) + b"N" + struct.pack("!h", 1) + b"t" + struct.pack("!I", len(text)) + text


def begin(lsn: int) -> bytes:
    return b"B" + struct.pack("!QqI", lsn, 0, 7)


def commit(lsn: int, end: int) -> bytes:
    return b"C" + struct.pack("!BQQq", 0, lsn, end, 0)


async def take(stream: ReplicationStream[Any], n: int) -> list[tuple[Lsn, Any]]:
    out = []
    for _ in range(n):
        out.append(await asyncio.wait_for(stream.__anext__(), 2))
    return out


async def test_messages_libpq_already_holds_are_delivered_without_socket_readiness(pgconn: FakePGconn) -> None:
    pgconn.libpq_already_holds(xlog(100, begin(300)), xlog(100, insert(1)), xlog(300, commit(300, 330)))
    stream = make_stream(pgconn)
    items = await take(stream, 3)
    assert [type(m) for _, m in items] == [Begin, Insert, Commit]
    assert items[0][0] == Lsn(100)
    await stream.stop()


async def test_one_readable_event_drains_everything(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn)
    pgconn.server_sends(*[xlog(100 + i, insert(i)) for i in range(50)])
    items = await take(stream, 50)
    assert [m.new for _, m in items] == [(str(i),) for i in range(50)]
    assert stream.stats.messages_received == 50
    await stream.stop()


async def test_back_pressure_stops_reading_and_resumes_from_libpq_buffer(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn, max_pending=4)
    pgconn.server_sends(*[xlog(100 + i, insert(i)) for i in range(10)])
    await asyncio.sleep(0.05)
    assert len(stream._pending) == 4  # stopped reading at the bound
    assert not stream._reading and stream.stats.pauses == 1
    assert len(pgconn.buffer) == 6  # the rest waits in libpq; the socket will not signal it again
    items = await take(stream, 10)
    assert [m.new[0] for _, m in items] == [str(i) for i in range(10)]
    assert stream._reading
    await stream.stop()


async def test_keepalive_reply_reports_the_wal_end_written_and_no_flush(pgconn: FakePGconn) -> None:
    """Issue 14, item 6: the answer to a reply-requested keepalive is written = its WAL end, flushed = applied =
    0/0 (PostgreSQL ignores a 0/0 flush for the slot, and a walsender at fast shutdown then compares the written
    position with what it sent); the timer's updates keep carrying the confirmed position."""
    stream = make_stream(pgconn)
    stream.confirm(Lsn(0x1234))
    pgconn.sent.clear()
    pgconn.server_sends(keepalive(0x9999, reply=False), keepalive(0x9999, reply=True))
    await asyncio.sleep(0.05)
    assert stream.stats.keepalives_received == 2 and stream.stats.keepalive_replies == 1
    assert len(pgconn.sent) == 1
    kind, written, flushed, applied, _, reply = struct.unpack("!cQQQqB", pgconn.sent[0])
    assert (kind, written, flushed, applied, reply) == (b"r", 0x9999, 0, 0, 0)
    stream.send_status_update()
    kind, written, flushed, applied, _, reply = struct.unpack("!cQQQqB", pgconn.sent[1])
    assert (kind, written, flushed, applied, reply) == (b"r", 0x1234, 0x1234, 0x1234, 0)
    assert stream.server_wal_end == Lsn(0x9999)
    await stream.stop()


async def test_confirm_never_goes_back(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn)
    stream.confirm(Lsn(500))
    stream.confirm(Lsn(400))
    assert stream.confirmed_flush_lsn == Lsn(500)
    assert struct.unpack("!cQQQqB", pgconn.sent[-1])[2] == 500
    await stream.stop()


async def test_periodic_status_updates(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn, status_interval=0.02)
    await asyncio.sleep(0.15)
    assert stream.stats.status_updates_sent >= 3
    await stream.stop()


async def test_flush_returning_1_waits_for_writability(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn)
    pgconn.flush_script = [1, 1, 0]
    stream.confirm(Lsn(10))
    assert stream._writing  # a writer is registered instead of blocking
    await asyncio.sleep(0.05)
    assert not stream._writing
    assert pgconn.flushes >= 3
    await stream.stop()


async def test_bad_frame_mid_drain_delivers_what_came_before_then_raises(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn)
    pgconn.server_sends(xlog(1, insert(1)), b"?garbage", xlog(2, insert(2)))
    items = await take(stream, 1)
    assert items[0][1].new == ("1",)
    with pytest.raises(DataError, match="unknown replication message type"):
        await take(stream, 1)
    with pytest.raises(DataError):  # and keeps raising
        await take(stream, 1)
    await stream.stop()  # ends the copy cleanly even so
    assert pgconn.copy_ended and stream.closed


async def test_undecodable_payload_raises_in_order_with_its_position(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn)
    pgconn.server_sends(xlog(1, insert(1)), xlog(0x20, b"I\x00"))
    await take(stream, 1)
    with pytest.raises(DataError, match="slot 's1' at 0/20"):
        await take(stream, 1)
    await stream.stop()


async def test_lost_connection_is_retriable_after_earlier_messages(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn)
    pgconn.fail_on_get = 2
    pgconn.server_sends(xlog(1, insert(1)), xlog(2, insert(2)), xlog(3, insert(3)))
    items = await take(stream, 2)
    assert len(items) == 2
    with pytest.raises(PostgresConnectionError):
        await take(stream, 1)
    pgconn.status = pq.ConnStatus.BAD
    await stream.stop()
    assert stream.closed


async def test_server_error_ends_the_stream_with_its_sqlstate(pgconn: FakePGconn) -> None:
    class ErrorResult:
        status = pq.ExecStatus.FATAL_ERROR
        error_message = b"ERROR:  publication does not exist"

        def error_field(self, field: pq.DiagnosticField) -> bytes | None:
            if field == pq.DiagnosticField.SQLSTATE:
                return b"42704"
            return b'publication "p" does not exist'

    pgconn.results = [cast(Any, ErrorResult()), None]
    stream = make_stream(pgconn)
    pgconn.server_sends(xlog(1, insert(1)), END)
    await take(stream, 1)
    with pytest.raises(Exception) as info:
        await take(stream, 1)
    assert getattr(info.value, "sqlstate", None) == "42704"
    assert "publication" in str(info.value)
    assert stream.closed


async def test_clean_stop(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn)
    stream.confirm(Lsn(77))
    pgconn.server_sends(xlog(1, insert(1)))
    await asyncio.sleep(0.01)
    await stream.stop()
    assert pgconn.copy_ended
    assert pgconn.results == []  # every result taken, up to None
    assert struct.unpack("!cQQQqB", pgconn.sent[-1])[2] == 77  # a final status update
    assert stream.closed
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()
    assert await stream.read_batch(10, timeout=0.01) == []


async def test_read_batch(pgconn: FakePGconn) -> None:
    stream = make_stream(pgconn)
    assert await stream.read_batch(10, timeout=0.01) == []
    pgconn.server_sends(*[xlog(i, insert(i)) for i in range(5)])
    batch = await stream.read_batch(3, timeout=1)
    assert [m.new[0] for _, m in batch] == ["0", "1", "2"]
    batch = await stream.read_batch(10, timeout=1)
    assert [m.new[0] for _, m in batch] == ["3", "4"]
    await stream.stop()


async def test_server_initiated_copy_done_is_answered(pgconn: FakePGconn) -> None:
    # On shutdown the walsender sends CopyDone first and waits for ours; libpq then returns a
    # COPY_IN result until the client ends its side too.
    pgconn.results = [FakeResult(pq.ExecStatus.COPY_IN), FakeResult(pq.ExecStatus.COMMAND_OK), None]
    stream = make_stream(pgconn)
    pgconn.server_sends(xlog(1, insert(1)), END)
    pgconn.copy_ended = True  # the fake's END is already on the wire
    await take(stream, 1)
    with pytest.raises(PostgresConnectionError, match="server ended replication"):
        await take(stream, 1)
    assert stream.closed and pgconn.results == []
