"""The asyncio transport of PostgreSQL logical replication, on psycopg 3.

psycopg 3 has no replication support, so this module drives libpq through ``conn.pgconn``:

* :class:`ReplicationConnection` opens ``psycopg.AsyncConnection`` with ``replication=database`` (which
  does connect, authentication and TLS without blocking) and runs the replication commands
  (IDENTIFY_SYSTEM, CREATE_REPLICATION_SLOT, DROP_REPLICATION_SLOT) through psycopg's simple-query path.
* :meth:`ReplicationConnection.start_replication` sends START_REPLICATION with ``pgconn.send_query`` (the
  high-level ``execute`` would leave the connection stuck in COPY BOTH) and returns a
  :class:`ReplicationStream`: an async iterator of ``(wal_start, decoded message)``.

The stream reads with ``loop.add_reader``; after every ``consume_input`` it drains libpq's buffer until
``get_copy_data`` returns 0 (a reader callback never fires again for bytes libpq already holds), and it
never raises out of the callback: failures are stored and raised to the consumer after the messages
received before them. Decoding happens in the consumer, so a bad payload surfaces in order.
Back-pressure: when ``max_pending`` undecoded messages wait, the stream stops reading the socket and
resumes when the consumer has taken half of them.

Positions are confirmed to the server only through :meth:`ReplicationStream.confirm`: the runtime calls
it with positions already stored in Kafka. A timer every ``status_interval`` seconds sends a standby status
update carrying that confirmed position as written, flushed and applied.

A keepalive that asks for a reply is answered with written = the keepalive's WAL end (everything sent before it
has been received) and flushed = applied = 0/0 ("unknown"), as pg_receivewal answers without a synced position.
The server ignores a flush of 0/0 for the slot, so nothing is confirmed beyond the stored offsets; but a
walsender at fast shutdown exits only once the client's position equals everything it sent (the flush
position, or the written one when flush is 0/0), and WAL that carries no captured change (aborted transactions,
running-xacts records) is never confirmed by offsets. Answering with the confirmed flush kept PostgreSQL's
shutdown waiting for as long as the worker stayed connected.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import enum
import time
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, Generic, Self, TypeAlias, TypeVar

import psycopg
from psycopg import pq

from connect_worker.api.errors import ConnectError, DataError
from connectors.postgres.errors import PostgresConnectionError, PostgresError, from_psycopg, make_error
from connectors.postgres.lsn import Lsn, wire_lsn
from connectors.postgres.protocol import commands
from connectors.postgres.protocol.commands import CreatedSlot, SlotInfo, SnapshotAction, SystemIdentity
from connectors.postgres.protocol.copy_both import (
    KEEPALIVE,
    XLOG_DATA,
    XLOG_DATA_HEADER,
    XLOG_DATA_PAYLOAD_OFFSET,
    decode_keepalive,
    encode_standby_status_update,
    unix_us_to_pg_time,
)
from connectors.postgres.protocol.plugins import OutputPlugin, PayloadDecoder

__all__ = [
    "CreatedSlot",
    "ReplicationConnection",
    "ReplicationStream",
    "SlotInfo",
    "SnapshotAction",
    "StreamItem",
    "StreamStats",
    "SystemIdentity",
    "fetch_slot_info",
]

M = TypeVar("M")
StreamItem: TypeAlias = tuple[Lsn, M]

_DIAG_SQLSTATE: Final = pq.DiagnosticField.SQLSTATE
_DIAG_MESSAGE: Final = pq.DiagnosticField.MESSAGE_PRIMARY
_NO_POSITION: Final = Lsn(0)  # InvalidXLogRecPtr: "no position" in a standby status update


@dataclass(slots=True)
class StreamStats:
    """Counters of one stream (for metrics and tests)."""

    messages_received: int = 0
    bytes_received: int = 0
    keepalives_received: int = 0
    keepalive_replies: int = 0
    status_updates_sent: int = 0
    pauses: int = 0


class _State(enum.Enum):
    STREAMING = "streaming"
    ENDING = "ending"  # the server ended COPY BOTH: collecting the final results
    STOPPING = "stopping"  # stop() is running
    CLOSED = "closed"


def _wait_fd(loop: asyncio.AbstractEventLoop, fd: int, *, write: bool) -> asyncio.Future[None]:
    """A future resolved when ``fd`` is readable (or writable); the watcher removes itself."""
    fut: asyncio.Future[None] = loop.create_future()

    def ready() -> None:
        if write:
            loop.remove_writer(fd)
        else:
            loop.remove_reader(fd)
        if not fut.done():
            fut.set_result(None)

    if write:
        loop.add_writer(fd, ready)
    else:
        loop.add_reader(fd, ready)

    def cleanup(_: asyncio.Future[None]) -> None:
        if fut.cancelled():
            if write:
                loop.remove_writer(fd)
            else:
                loop.remove_reader(fd)

    fut.add_done_callback(cleanup)
    return fut


async def _flush_all(pgconn: pq.abc.PGconn, loop: asyncio.AbstractEventLoop) -> None:
    """Flush libpq's output buffer without blocking the loop."""
    while pgconn.flush() == 1:
        await _wait_fd(loop, pgconn.socket, write=True)


async def _wait_not_busy(pgconn: pq.abc.PGconn, loop: asyncio.AbstractEventLoop) -> None:
    """Read until a whole result is available (``get_result`` would not block)."""
    pgconn.consume_input()
    while pgconn.is_busy():
        await _wait_fd(loop, pgconn.socket, write=False)
        pgconn.consume_input()


def _result_error(res: pq.abc.PGresult) -> tuple[str | None, str]:
    sqlstate = res.error_field(_DIAG_SQLSTATE)
    message = res.error_field(_DIAG_MESSAGE) or res.error_message
    return (sqlstate.decode("ascii") if sqlstate else None), message.decode("utf-8", "replace").strip()


class ReplicationStream(Generic[M]):
    """One START_REPLICATION session: iterate it for ``(wal_start, message)``, confirm positions, stop it.

    ``wal_start`` is the XLogData start position (``0/0`` for messages that have none, such as pgoutput
    Relation messages). Use :meth:`confirm` with the position to acknowledge (pgoutput: a Commit's
    ``end_lsn``), :meth:`stop` (or ``async with``) to end it; the connection is reusable afterwards.
    """

    def __init__(
        self,
        connection: ReplicationConnection,
        decoder: PayloadDecoder[M],
        *,
        slot_name: str,
        max_pending: int,
        status_interval: float,
        clock: Callable[[], float],
    ) -> None:
        self._connection = connection
        self._pgconn = connection.connection.pgconn
        self._loop = asyncio.get_running_loop()
        self._fd = self._pgconn.socket
        self._decode = decoder
        self._slot_name = slot_name
        self._max_pending = max_pending
        self._resume_at = max_pending // 2
        self._status_interval = status_interval
        self._clock = clock
        self._pending: collections.deque[tuple[int, memoryview]] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None
        self._state = _State.STREAMING
        self._error: ConnectError | None = None
        self._reading = False
        self._writing = False
        self._status_wanted = False
        self._reply_to: Lsn | None = None
        self._copy_active = True
        self._flushed = Lsn.ZERO
        self._server_wal_end = 0
        self._timer: asyncio.TimerHandle | None = None
        self.stats = StreamStats()

    # -- public API --------------------------------------------------------------------------------

    @property
    def slot_name(self) -> str:
        return self._slot_name

    @property
    def confirmed_flush_lsn(self) -> Lsn:
        """The last position given to :meth:`confirm` (``0/0`` before the first)."""
        return self._flushed

    @property
    def server_wal_end(self) -> Lsn:
        """The highest WAL end the server reported (XLogData or keepalive)."""
        return Lsn(self._server_wal_end)

    @property
    def closed(self) -> bool:
        return self._state is _State.CLOSED

    def confirm(self, flushed: Lsn) -> None:
        """Tell the server everything before ``flushed`` is durably stored; sends a status update now.

        A position lower than one confirmed earlier is ignored (the slot never goes back).
        """
        if flushed > self._flushed:
            self._flushed = flushed
        if self._state is _State.STREAMING:
            self._send_status()

    def send_status_update(self) -> None:
        """Send a standby status update with the confirmed position now (otherwise the timer does)."""
        if self._state is _State.STREAMING:
            self._send_status()

    def __aiter__(self) -> AsyncIterator[StreamItem[M]]:
        return self

    async def __anext__(self) -> StreamItem[M]:
        while True:
            if self._pending:
                return self._take()
            if self._error is not None:
                raise self._error
            if self._state is _State.CLOSED:
                raise StopAsyncIteration
            await self._wait()

    async def read_batch(self, max_messages: int = 2048, timeout: float | None = None) -> list[StreamItem[M]]:
        """Up to ``max_messages`` messages; waits at most ``timeout`` seconds for the first one.

        Returns an empty list on timeout or once the stream is closed; raises the stream's error.
        """
        if not self._pending and self._error is None and self._state is not _State.CLOSED:
            try:
                await asyncio.wait_for(self._wait(), timeout)
            except TimeoutError:
                return []
        batch: list[StreamItem[M]] = []
        while self._pending and len(batch) < max_messages:
            batch.append(self._take())
        if not batch and self._error is not None:
            raise self._error
        return batch

    async def stop(self, timeout: float = 30.0) -> None:
        """End COPY BOTH cleanly (a final status update first); the connection can then run commands.

        Messages not yet taken are discarded: they were never confirmed, the slot sends them again.
        """
        if self._state is _State.CLOSED or self._state is _State.STOPPING:
            return
        self._state = _State.STOPPING
        self._stop_watching()
        self._pending.clear()
        try:
            if self._pgconn.status == pq.ConnStatus.OK:  # otherwise there is nothing left to end
                async with asyncio.timeout(timeout):
                    if self._copy_active:
                        await self._end_copy()
                    await self._collect_results()
        except psycopg.OperationalError as e:
            if self._error is None:
                self._error = from_psycopg(e, action=f"stopping replication on slot {self._slot_name!r}")
            raise self._error from e
        except TimeoutError as e:
            self._error = PostgresConnectionError(
                f"stopping replication on slot {self._slot_name!r}: no reply from the server in {timeout}s"
            )
            raise self._error from e
        finally:
            self._close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        if exc is None:
            await self.stop()
        else:
            with contextlib.suppress(ConnectError):  # the original exception is the one to see
                await self.stop()

    # -- start (called by ReplicationConnection) --------------------------------------------------

    def _start(self) -> None:
        self._watch_reads()
        self._arm_timer()
        # libpq may already hold CopyData read together with the COPY BOTH response.
        self._loop.call_soon(self._on_readable)

    # -- consumer side ----------------------------------------------------------------------------

    def _take(self) -> StreamItem[M]:
        wal_start, payload = self._pending.popleft()
        if not self._reading and self._state is _State.STREAMING and len(self._pending) <= self._resume_at:
            self._watch_reads()
            self._on_readable()  # bytes libpq buffered before the pause would not wake the reader
        try:
            message = self._decode(payload)
        except DataError as e:
            error = DataError(f"slot {self._slot_name!r} at {Lsn(wal_start)}: {e}")
            self._fail(error)
            self._pending.clear()
            raise error from e
        return wire_lsn(wal_start), message

    async def _wait(self) -> None:
        """Wait for a message, an error or the end (no await before the check: no lost wake-up)."""
        if self._pending or self._error is not None or self._state is _State.CLOSED:
            return
        waiter = self._loop.create_future()
        self._waiter = waiter
        try:
            await waiter
        finally:
            self._waiter = None

    def _wake(self) -> None:
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    # -- socket side: never raises ------------------------------------------------------------------

    def _watch_reads(self) -> None:
        if not self._reading:
            self._loop.add_reader(self._fd, self._on_readable)
            self._reading = True

    def _stop_watching(self) -> None:
        if self._reading:
            self._loop.remove_reader(self._fd)
            self._reading = False
        if self._writing:
            self._loop.remove_writer(self._fd)
            self._writing = False
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_readable(self) -> None:
        if self._state is _State.STREAMING:
            if self._reading:
                try:
                    self._drain()
                except Exception as e:  # noqa: BLE001 - a callback must not raise; the consumer gets it
                    self._fail(self._classify(e))
        elif self._state is _State.ENDING:
            try:
                self._poll_results()
            except Exception as e:  # noqa: BLE001 - as above
                self._fail(self._classify(e))

    def _drain(self) -> None:
        pgconn = self._pgconn
        pgconn.consume_input()
        get = pgconn.get_copy_data
        pending = self._pending
        append = pending.append
        unpack = XLOG_DATA_HEADER.unpack_from
        stats = self.stats
        received = 0
        nbytes = 0
        try:
            while True:
                n, data = get(1)
                if n <= 0:
                    if n == -1:  # the server ended COPY BOTH (an error, or shutdown)
                        self._copy_active = False
                        self._state = _State.ENDING
                        self._poll_results()
                    break
                kind = data[0]
                if kind == XLOG_DATA:
                    if n < XLOG_DATA_PAYLOAD_OFFSET:
                        raise DataError(f"XLogData message of {n} bytes is shorter than its header")
                    wal_start, wal_end, _ = unpack(data, 1)
                    append((wal_start, data[XLOG_DATA_PAYLOAD_OFFSET:]))
                    if wal_end > self._server_wal_end:
                        self._server_wal_end = wal_end
                    received += 1
                    nbytes += n
                    if len(pending) >= self._max_pending:
                        self._pause()
                        break
                elif kind == KEEPALIVE:
                    keepalive = decode_keepalive(data)
                    stats.keepalives_received += 1
                    if keepalive.wal_end.value > self._server_wal_end:
                        self._server_wal_end = keepalive.wal_end.value
                    if keepalive.reply_requested:
                        stats.keepalive_replies += 1
                        self._reply_to = keepalive.wal_end
                        self._send_status()
                        if self._state is not _State.STREAMING:
                            break
                else:
                    raise DataError(f"unknown replication message type {kind:#04x}")
        finally:
            stats.messages_received += received
            stats.bytes_received += nbytes
            if received or self._state is not _State.STREAMING:
                self._wake()

    def _pause(self) -> None:
        if self._reading:
            self._loop.remove_reader(self._fd)
            self._reading = False
            self.stats.pauses += 1

    def _poll_results(self) -> None:
        """After the server ended the copy: take the final results without blocking."""
        self._watch_reads()
        pgconn = self._pgconn
        pgconn.consume_input()
        while not pgconn.is_busy():
            res = pgconn.get_result()
            if res is None:
                self._stop_watching()
                self._close()
                return
            if res.status == pq.ExecStatus.COPY_IN:
                # The server sent CopyDone first (it is shutting down) and waits for ours; libpq
                # returns this result until we send it.
                if not self._answer_copy_done():
                    return
                continue
            if res.status == pq.ExecStatus.FATAL_ERROR and self._error is None:
                sqlstate, message = _result_error(res)
                self._error = make_error(sqlstate, message, action=f"replication from slot {self._slot_name!r} ended")
        # busy: the reader fires again when the rest of the results arrive

    def _answer_copy_done(self) -> bool:
        """Send our CopyDone; False if it could not go out at once (the stream is then failed)."""
        self._connection._copy_ended_by_client()
        if self._error is None:
            self._error = PostgresConnectionError(
                f"the server ended replication from slot {self._slot_name!r} (shutting down?)", sqlstate=None
            )
        if self._pgconn.put_copy_end() != 1 or self._pgconn.flush() != 0:
            self._fail(PostgresConnectionError(f"slot {self._slot_name!r}: could not answer the server's CopyDone"))
            return False
        return True

    def _fail(self, error: ConnectError) -> None:
        if self._error is None:
            self._error = error
        self._stop_watching()
        if self._state is _State.STREAMING:
            self._state = _State.ENDING
        self._wake()

    def _classify(self, exc: Exception) -> ConnectError:
        if isinstance(exc, ConnectError):
            return exc
        if isinstance(exc, psycopg.Error):
            return from_psycopg(exc, action=f"streaming from slot {self._slot_name!r}")
        return PostgresError(f"streaming from slot {self._slot_name!r}: unexpected {exc!r}")

    # -- status updates -----------------------------------------------------------------------------

    def _arm_timer(self) -> None:
        self._timer = self._loop.call_later(self._status_interval, self._on_timer)

    def _on_timer(self) -> None:
        self._timer = None
        if self._state is _State.STREAMING:
            self._send_status()
            self._arm_timer()

    def _status_message(self) -> bytes:
        now = unix_us_to_pg_time(int(self._clock() * 1_000_000))
        reply_to, self._reply_to = self._reply_to, None
        if reply_to is not None:  # the answer to a keepalive (see the module docstring)
            return encode_standby_status_update(reply_to, _NO_POSITION, _NO_POSITION, now)
        flushed = self._flushed
        return encode_standby_status_update(flushed, flushed, flushed, now)

    def _send_status(self) -> None:
        self._status_wanted = True
        try:
            self._write()
        except Exception as e:  # noqa: BLE001 - called from callbacks; the consumer gets it
            self._fail(self._classify(e))

    def _write(self) -> None:
        """Queue the wanted status update and flush; wait for writability instead of blocking."""
        pgconn = self._pgconn
        if self._status_wanted:
            if pgconn.put_copy_data(self._status_message()) == 0:
                self._want_writable()  # libpq's buffer is full: retry when the socket drains
                return
            self._status_wanted = False
            self.stats.status_updates_sent += 1
        if pgconn.flush() == 1:
            self._want_writable()
        elif self._writing:
            self._loop.remove_writer(self._fd)
            self._writing = False

    def _want_writable(self) -> None:
        if not self._writing:
            self._loop.add_writer(self._fd, self._on_writable)
            self._writing = True

    def _on_writable(self) -> None:
        if self._state is not _State.STREAMING:
            return
        try:
            self._write()
        except Exception as e:  # noqa: BLE001 - a callback must not raise
            self._fail(self._classify(e))

    # -- stop ---------------------------------------------------------------------------------------

    async def _end_copy(self) -> None:
        pgconn = self._pgconn
        loop = self._loop
        pgconn.put_copy_data(self._status_message())
        self.stats.status_updates_sent += 1
        while pgconn.put_copy_end() == 0:
            await _wait_fd(loop, self._fd, write=True)
        await _flush_all(pgconn, loop)
        # Drain until the server's CopyDone: get_result() before that returns COPY_OUT forever.
        while True:
            pgconn.consume_input()
            n, _ = pgconn.get_copy_data(1)
            while n > 0:
                n, _ = pgconn.get_copy_data(1)
            if n == -1:
                self._copy_active = False
                self._connection._copy_ended_by_client()
                return
            await _wait_fd(loop, self._fd, write=False)

    async def _collect_results(self) -> None:
        pgconn = self._pgconn
        while True:
            await _wait_not_busy(pgconn, self._loop)
            res = pgconn.get_result()
            if res is None:
                return
            if res.status == pq.ExecStatus.COPY_IN:  # the server's CopyDone came first: answer it
                while pgconn.put_copy_end() == 0:
                    await _wait_fd(self._loop, self._fd, write=True)
                await _flush_all(pgconn, self._loop)
                self._connection._copy_ended_by_client()
                continue
            if res.status in (pq.ExecStatus.COPY_OUT, pq.ExecStatus.COPY_BOTH):
                raise PostgresError(f"stopping replication on {self._slot_name!r}: still copying after CopyDone")
            if res.status == pq.ExecStatus.FATAL_ERROR and self._error is None:
                sqlstate, message = _result_error(res)
                self._error = make_error(sqlstate, message, action=f"stopping replication on {self._slot_name!r}")

    def _close(self) -> None:
        self._stop_watching()
        self._state = _State.CLOSED
        self._connection._stream_closed(self)
        self._wake()


class ReplicationConnection:
    """A ``replication=database`` connection: replication commands and one stream at a time.

    Plain SQL (simple protocol, no parameters) works too, through :meth:`execute`.
    """

    def __init__(self, connection: psycopg.AsyncConnection[Any]) -> None:
        self._conn = connection
        self._stream: ReplicationStream[Any] | None = None
        self._stream_ended_by_client = False

    @classmethod
    async def connect(cls, conninfo: str, **kwargs: Any) -> ReplicationConnection:
        """Connect; ``kwargs`` are libpq connection parameters (e.g. ``options='-c wal_sender_timeout=10s'``)."""
        try:
            conn = await psycopg.AsyncConnection.connect(conninfo, replication="database", autocommit=True, **kwargs)
        except psycopg.Error as e:
            raise from_psycopg(e, action="connecting for logical replication") from e
        return cls(conn)

    @property
    def connection(self) -> psycopg.AsyncConnection[Any]:
        return self._conn

    @property
    def server_version(self) -> int:
        return self._conn.info.server_version

    @property
    def is_yugabyte(self) -> bool:
        """The server is YugabyteDB (its server_version reads like ``11.2-YB-2024.1.1.0-b0``)."""
        return "-YB-" in (self._conn.info.parameter_status("server_version") or "")

    @property
    def streaming(self) -> bool:
        return self._stream is not None

    async def execute(self, command: str, *, slot_name: str | None = None, action: str = "") -> list[tuple[Any, ...]]:
        """Run one command on the simple-query path and return its rows (an empty list if none)."""
        if self._stream is not None:
            raise PostgresError("the replication connection is streaming; stop the stream first")
        try:
            cur = await self._conn.execute(command.encode("utf-8"), prepare=False)
            return await cur.fetchall() if cur.description is not None else []
        except psycopg.Error as e:
            raise from_psycopg(e, slot_name=slot_name, action=action or command) from e

    async def identify_system(self) -> SystemIdentity:
        return commands.parse_identify_system(await self.execute(commands.identify_system()))

    async def create_slot(
        self,
        slot_name: str,
        plugin: str,
        *,
        snapshot: SnapshotAction = SnapshotAction.NOEXPORT,
        temporary: bool = False,
        two_phase: bool = False,
        yugabyte_lsn_type: str = "SEQUENCE",
    ) -> CreatedSlot:
        """CREATE_REPLICATION_SLOT ... LOGICAL; see :class:`SnapshotAction` for the snapshot rules. On
        YugabyteDB the slot gets ``yugabyte_lsn_type`` and no snapshot option (see the command)."""
        command = commands.create_replication_slot(
            slot_name,
            plugin,
            snapshot=snapshot,
            temporary=temporary,
            two_phase=two_phase,
            server_version=self.server_version,
            yugabyte_lsn_type=yugabyte_lsn_type if self.is_yugabyte else None,
        )
        rows = await self.execute(command, slot_name=slot_name, action=f"creating replication slot {slot_name!r}")
        return commands.parse_created_slot(rows)

    async def drop_slot(self, slot_name: str, *, wait: bool = False) -> None:
        """DROP_REPLICATION_SLOT; an active slot raises ReplicationSlotInUseError unless ``wait``."""
        await self.execute(
            commands.drop_replication_slot(slot_name, wait=wait),
            slot_name=slot_name,
            action=f"dropping replication slot {slot_name!r}",
        )

    async def start_replication(
        self,
        slot_name: str,
        plugin: OutputPlugin[M],
        *,
        start_lsn: Lsn = Lsn.ZERO,
        max_pending: int = 8192,
        status_interval: float = 10.0,
        clock: Callable[[], float] = time.time,
    ) -> ReplicationStream[M]:
        """START_REPLICATION SLOT ... LOGICAL; the stream is reading when this returns.

        ``start_lsn`` 0/0 starts at the slot's confirmed_flush_lsn; the server never goes back before
        it, whatever is asked. ``status_interval`` must stay below the server's wal_sender_timeout.
        """
        if self._stream is not None:
            raise PostgresError("the replication connection is already streaming")
        if self._stream_ended_by_client:
            # The walsender does not reset its "CopyDone received" state for logical replication
            # (PostgreSQL 15 resets it only in physical StartReplication): a second stream on this
            # connection would end at once with no data and no error.
            raise PostgresError(
                "a replication connection streams only once after a stream was stopped; "
                "open a new ReplicationConnection to stream again"
            )
        if max_pending < 1 or status_interval <= 0:
            raise ValueError("max_pending must be >= 1 and status_interval > 0")
        command = commands.start_replication_logical(slot_name, start_lsn, plugin.start_options())
        action = f"starting replication from slot {slot_name!r} at {start_lsn}"
        pgconn = self._conn.pgconn
        loop = asyncio.get_running_loop()
        try:
            pgconn.send_query(command.encode("utf-8"))
            await _flush_all(pgconn, loop)
            await _wait_not_busy(pgconn, loop)
            res = pgconn.get_result()
            if res is None:
                raise PostgresError(f"{action}: no result from the server")
            if res.status != pq.ExecStatus.COPY_BOTH:
                error: ConnectError
                if res.status == pq.ExecStatus.FATAL_ERROR:
                    sqlstate, message = _result_error(res)
                    error = make_error(sqlstate, message, slot_name=slot_name, action=action)
                else:
                    error = PostgresError(f"{action}: unexpected result {pq.ExecStatus(res.status).name}")
                # Leave the connection ready for the next command.
                while True:
                    await _wait_not_busy(pgconn, loop)
                    if pgconn.get_result() is None:
                        break
                raise error
        except psycopg.Error as e:
            raise from_psycopg(e, slot_name=slot_name, action=action) from e
        stream = ReplicationStream(
            self,
            plugin.new_decoder(),
            slot_name=slot_name,
            max_pending=max_pending,
            status_interval=status_interval,
            clock=clock,
        )
        self._stream = stream
        stream._start()
        return stream

    def _copy_ended_by_client(self) -> None:
        self._stream_ended_by_client = True

    def _stream_closed(self, stream: ReplicationStream[Any]) -> None:
        if self._stream is stream:
            self._stream = None

    async def close(self) -> None:
        """Stop a running stream (best effort) and close the connection."""
        stream = self._stream
        if stream is not None:
            with contextlib.suppress(ConnectError):
                await stream.stop(timeout=5.0)
        await self._conn.close()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


async def fetch_slot_info(conn: psycopg.AsyncConnection[Any], slot_name: str) -> SlotInfo | None:
    """The slot's row of ``pg_replication_slots`` over a normal connection, None if there is none."""
    try:
        cur = await conn.execute(commands.SLOT_INFO_QUERY, [slot_name])
        row = await cur.fetchone()
    except psycopg.Error as e:
        raise from_psycopg(e, action=f"reading the state of replication slot {slot_name!r}") from e
    return None if row is None else commands.parse_slot_info(row)
