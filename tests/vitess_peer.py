"""A fake VTGate for the Vitess connector's tests: a real gRPC server (grpc.aio, 127.0.0.1, free port).

It serves the two methods the connector calls, ``/vtgateservice.Vitess/VStream`` and
``/vtgateservice.Vitess/Execute``, and records what it receives. Each VStream call plays the next
scripted *session*: its steps are sent in order (a :class:`Abort` step ends the call with that gRPC
status), then the stream stays open and delivers whatever the test :meth:`FakeVtgate.push`-es until the
client cancels or the test calls :meth:`FakeVtgate.fail_stream`. A call with no session left scripted
gets an empty one. Execute answers the connector's two metadata queries from the constructor's keyspace,
shards and tables; any other statement gets an ``ExecuteResponse`` carrying an error (as VTGate does:
the gRPC status stays OK).

Event builders at the bottom keep scripts short::

    async with FakeVtgate() as vtgate:
        vtgate.script([response(begin(), field_event("commerce", "customers", "-80", cols),
                                row_event("commerce", "customers", "-80", [(None, [b"1", "Zoë"])]),
                                vgtid_event(Vgtid.parse(text)), commit(1_700_000_000))])
        ... start the connector against f"127.0.0.1:{vtgate.port}" ...
        await vtgate.wait_for_streams(1)
        assert vtgate.requests[0].flags.heartbeat_interval == 5
"""

from __future__ import annotations

import asyncio
import importlib
import re
from collections import deque
from collections.abc import AsyncIterator, Callable, Iterable, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Any, Final, TypeAlias

import grpc

from connectors.vitess.vgtid import Vgtid

# Generated modules have no type information: used as Any (tests import these names from here).
binlogdata_pb2: Any = importlib.import_module("connectors.vitess.proto.binlogdata_pb2")
query_pb2: Any = importlib.import_module("connectors.vitess.proto.query_pb2")
vtgate_pb2: Any = importlib.import_module("connectors.vitess.proto.vtgate_pb2")
vtrpc_pb2: Any = importlib.import_module("connectors.vitess.proto.vtrpc_pb2")
vtgateservice_pb2_grpc: Any = importlib.import_module("connectors.vitess.proto.vtgateservice_pb2_grpc")

__all__ = [
    "Abort",
    "Col",
    "FakeVtgate",
    "Step",
    "begin",
    "binlogdata_pb2",
    "commit",
    "copy_completed",
    "ddl",
    "field_event",
    "heartbeat",
    "other",
    "query_pb2",
    "response",
    "row_event",
    "vgtid_event",
    "vtgate_pb2",
]

HOST: Final = "127.0.0.1"

_SHOW_SHARDS: Final = re.compile(r"\s*show\s+vitess_shards\s+like\s+'([^']*)/%'\s*;?\s*", re.IGNORECASE)
_SHOW_TABLES: Final = re.compile(r"\s*show\s+tables\s+from\s+`?([^`\s;]+)`?\s*;?\s*", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class Abort:
    """A script step (or :meth:`FakeVtgate.fail_stream`'s effect): end the VStream call with this status."""

    code: grpc.StatusCode
    message: str = ""


Step: TypeAlias = Any
"""A script step: a ``vtgate_pb2.VStreamResponse`` to send, or an :class:`Abort`."""


class _OpenStream:
    """One VStream call in progress: the queue of steps pushed to it."""

    def __init__(self) -> None:
        self.queue: asyncio.Queue[Step] = asyncio.Queue()
        self.closed = False


class FakeVtgate:
    """The fake VTGate. Start it (or use ``async with``), script sessions, push, then assert on records.

    Attributes, filled as calls arrive: ``requests`` (every ``VStreamRequest``, in order), ``metadata``
    (the invocation metadata of each VStream call), ``executed`` (the SQL of every Execute call) and
    ``execute_metadata`` (the invocation metadata of each Execute call).
    """

    def __init__(
        self,
        *,
        keyspace: str = "commerce",
        shards: Sequence[str] = ("-80", "80-"),
        tables: Sequence[str] = ("customers",),
    ) -> None:
        self.keyspace = keyspace
        self.shards = tuple(shards)
        self.tables = tuple(tables)
        self.port = 0
        self.requests: list[Any] = []
        self.metadata: list[dict[str, str]] = []
        self.executed: list[str] = []
        self.execute_metadata: list[dict[str, str]] = []
        self._sessions: deque[tuple[Step, ...]] = deque()
        self._current: _OpenStream | None = None
        self._changed = asyncio.Event()
        self._server: Any = None

    # -- lifecycle ---------------------------------------------------------------------------------

    async def start(self) -> None:
        """Listen on 127.0.0.1 on a free port (then in ``port``)."""
        server = grpc.aio.server()
        vtgateservice_pb2_grpc.add_VitessServicer_to_server(_Servicer(self), server)
        self.port = server.add_insecure_port(f"{HOST}:0")
        await server.start()
        self._server = server

    async def stop(self) -> None:
        """Stop at once: open calls end with CANCELLED/UNAVAILABLE on the client side."""
        if self._server is not None:
            await self._server.stop(None)
            self._server = None

    async def __aenter__(self) -> FakeVtgate:
        await self.start()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.stop()

    @property
    def has_open_stream(self) -> bool:
        """A VStream call is open: :meth:`push` would deliver to it without waiting."""
        return self._current is not None

    @property
    def address(self) -> str:
        """``"127.0.0.1:<port>"``, for a client channel."""
        return f"{HOST}:{self.port}"

    # -- driving it --------------------------------------------------------------------------------

    def script(self, *sessions: Sequence[Step]) -> None:
        """Queue sessions: each new VStream call plays the next one (appends to earlier scripts)."""
        self._sessions.extend(tuple(s) for s in sessions)

    async def push(self, *responses: Any, timeout: float = 10) -> None:
        """Send responses on the open stream (the latest call), after anything it has not sent yet.

        Waits up to ``timeout`` seconds for a stream to be open.
        """
        stream = await self._open_stream(timeout)
        for r in responses:
            stream.queue.put_nowait(r)

    async def fail_stream(self, code: grpc.StatusCode, message: str, *, timeout: float = 10) -> None:
        """End the open stream with this gRPC status (after anything queued before) and wait until it ended."""
        stream = await self._open_stream(timeout)
        stream.queue.put_nowait(Abort(code, message))
        await self._wait_until(lambda: stream.closed, timeout, "the aborted stream to end")

    async def wait_for_streams(self, n: int, timeout: float = 10) -> None:
        """Wait until ``n`` VStream calls have arrived in total."""
        await self._wait_until(lambda: len(self.requests) >= n, timeout, f"{n} VStream call(s)")

    # -- internals ---------------------------------------------------------------------------------

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def _wait_until(self, ready: Callable[[], bool], timeout: float, what: str) -> None:
        try:
            async with asyncio.timeout(timeout):
                while not ready():
                    await self._changed.wait()
        except TimeoutError:
            raise AssertionError(f"fake VTGate: timed out after {timeout}s waiting for {what}") from None

    async def _open_stream(self, timeout: float) -> _OpenStream:
        await self._wait_until(lambda: self._current is not None, timeout, "an open VStream call")
        assert self._current is not None
        return self._current

    async def _vstream(self, request: Any, context: Any) -> AsyncIterator[Any]:
        self.requests.append(request)
        self.metadata.append(_metadata(context))
        steps = self._sessions.popleft() if self._sessions else ()
        stream = _OpenStream()
        self._current = stream
        self._notify()
        try:
            for step in steps:
                if isinstance(step, Abort):
                    await context.abort(step.code, step.message)  # raises: the call ends here
                    return
                yield step
            while True:
                step = await stream.queue.get()
                if isinstance(step, Abort):
                    await context.abort(step.code, step.message)  # raises: the call ends here
                    return
                yield step
        finally:
            stream.closed = True
            if self._current is stream:
                self._current = None
            self._notify()

    async def _execute(self, request: Any, context: Any) -> Any:
        sql: str = request.query.sql
        self.executed.append(sql)
        self.execute_metadata.append(_metadata(context))
        if m := _SHOW_SHARDS.fullmatch(sql):
            keyspace = m.group(1)
            shards = self.shards if keyspace == self.keyspace else ()
            return vtgate_pb2.ExecuteResponse(
                session=request.session, result=_varchar_result("Shards", [f"{keyspace}/{s}" for s in shards])
            )
        if m := _SHOW_TABLES.fullmatch(sql):
            keyspace = m.group(1)
            if keyspace != self.keyspace:
                return _error_response(request, vtrpc_pb2.NOT_FOUND, f"Unknown database '{keyspace}'")
            return vtgate_pb2.ExecuteResponse(
                session=request.session, result=_varchar_result(f"Tables_in_{keyspace}", self.tables)
            )
        return _error_response(request, vtrpc_pb2.UNIMPLEMENTED, f"fake VTGate does not run: {sql}")


class _Servicer:
    """The two handlers, as ``add_VitessServicer_to_server`` looks them up by method name."""

    def __init__(self, vtgate: FakeVtgate) -> None:
        self.Execute = vtgate._execute
        self.VStream = vtgate._vstream


def _metadata(context: Any) -> dict[str, str]:
    pairs: Iterable[tuple[str, str | bytes]] = context.invocation_metadata() or ()
    return {k: v.decode("latin-1") if isinstance(v, bytes) else v for k, v in pairs}


def _encode_row(values: Sequence[bytes | str | None]) -> Any:
    lengths: list[int] = []
    parts: list[bytes] = []
    for v in values:
        if v is None:
            lengths.append(-1)
            continue
        data = v.encode() if isinstance(v, str) else v
        lengths.append(len(data))
        parts.append(data)
    return query_pb2.Row(lengths=lengths, values=b"".join(parts))


def _varchar_result(column: str, values: Iterable[str]) -> Any:
    return query_pb2.QueryResult(
        fields=[query_pb2.Field(name=column, type=query_pb2.VARCHAR)],
        rows=[_encode_row([v]) for v in values],
    )


def _error_response(request: Any, code: int, message: str) -> Any:
    return vtgate_pb2.ExecuteResponse(error=vtrpc_pb2.RPCError(code=code, message=message), session=request.session)


# -- event builders --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Col:
    """A column of a FIELD event: ``type`` is a ``query_pb2`` Type value, ``column_type`` the SQL type text."""

    name: str
    type: int
    column_type: str
    flags: int = 0
    decimals: int = 0
    column_length: int = 0
    charset: int = 0


def response(*events: Any) -> Any:
    """A ``VStreamResponse`` carrying these events."""
    return vtgate_pb2.VStreamResponse(events=list(events))


def begin() -> Any:
    return binlogdata_pb2.VEvent(type=binlogdata_pb2.BEGIN)


def commit(ts_seconds: int) -> Any:
    """A COMMIT whose ``timestamp`` (epoch seconds) is the transaction's commit time."""
    return binlogdata_pb2.VEvent(type=binlogdata_pb2.COMMIT, timestamp=ts_seconds)


def vgtid_event(vgtid: Vgtid) -> Any:
    return binlogdata_pb2.VEvent(type=binlogdata_pb2.VGTID, vgtid=vgtid.to_proto())


def field_event(keyspace: str, table: str, shard: str, columns: Sequence[Col]) -> Any:
    """The columns of ``<keyspace>.<table>`` on one shard, filled in as vstreamer fills them."""
    fields = [
        query_pb2.Field(
            name=c.name,
            type=c.type,
            table=table,
            org_table=table,
            database=f"vt_{keyspace}",
            org_name=c.name,
            column_length=c.column_length,
            charset=c.charset,
            decimals=c.decimals,
            flags=c.flags,
            column_type=c.column_type,
        )
        for c in columns
    ]
    event = binlogdata_pb2.FieldEvent(table_name=f"{keyspace}.{table}", fields=fields, keyspace=keyspace, shard=shard)
    return binlogdata_pb2.VEvent(type=binlogdata_pb2.FIELD, field_event=event, keyspace=keyspace, shard=shard)


def row_event(
    keyspace: str,
    table: str,
    shard: str,
    changes: Sequence[tuple[Sequence[bytes | str | None] | None, Sequence[bytes | str | None] | None]],
) -> Any:
    """Row changes ``(before, after)`` of ``<keyspace>.<table>``: only after = insert, both = update,
    only before = delete. Values are column texts (str is UTF-8 encoded); None is SQL NULL (length -1)."""
    row_changes = []
    for before, after in changes:
        change = binlogdata_pb2.RowChange()
        if before is not None:
            change.before.CopyFrom(_encode_row(before))
        if after is not None:
            change.after.CopyFrom(_encode_row(after))
        row_changes.append(change)
    event = binlogdata_pb2.RowEvent(
        table_name=f"{keyspace}.{table}", row_changes=row_changes, keyspace=keyspace, shard=shard
    )
    return binlogdata_pb2.VEvent(type=binlogdata_pb2.ROW, row_event=event, keyspace=keyspace, shard=shard)


def heartbeat(ts_seconds: int = 0) -> Any:
    return binlogdata_pb2.VEvent(type=binlogdata_pb2.HEARTBEAT, timestamp=ts_seconds)


def copy_completed() -> Any:
    return binlogdata_pb2.VEvent(type=binlogdata_pb2.COPY_COMPLETED)


def ddl(statement: str) -> Any:
    return binlogdata_pb2.VEvent(type=binlogdata_pb2.DDL, statement=statement)


def other() -> Any:
    return binlogdata_pb2.VEvent(type=binlogdata_pb2.OTHER)
