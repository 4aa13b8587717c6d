"""Reassembly of pgoutput's streamed (in-progress) transactions, spilling to disk (protocol 2, streaming=on).

With streaming on, the server sends a large transaction in blocks while it runs (Stream Start ... Stream Stop,
each data message tagged with its (sub)transaction's xid), interleaved with other transactions, and ends it with
Stream Commit or Stream Abort. Change events must still come out whole and in commit order, as Debezium's do, so
:class:`StreamedTransactions` keeps each open transaction's messages and, at its Stream Commit, hands them on
framed exactly like a transaction sent at commit time: a Begin (at the transaction's first LSN, with its commit
LSN, time and xid), its messages with their own LSNs, and a Commit. The LSNs are the ones the server gives the
same changes without streaming, so offsets, restarts and `source` blocks do not depend on the mode.

Memory stays flat: past `chunk_size` messages a transaction's buffer is pickled into an anonymous temporary file
(unlinked at once, so nothing is left behind even after kill -9) and read back chunk by chunk at commit.
Stream Abort of a subtransaction drops its data messages at replay time (Relation and Type messages are kept:
the server counts them as sent for the whole transaction); an abort of the top-level transaction drops it all.
A stop in the middle loses nothing: the server streams an uncommitted transaction again from its start.
"""

from __future__ import annotations

import logging
import pickle
import struct
import tempfile
from collections.abc import Iterator
from typing import IO, Any, Final

from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol import pgoutput as pg

__all__ = ["StreamedTransactions"]

log = logging.getLogger(__name__)

_LEN: Final = struct.Struct(">I")
_METADATA: Final = (pg.Relation, pg.Type)


class _OpenTransaction:
    __slots__ = ("aborted_subxids", "buffer", "first_lsn", "messages", "spill", "spilled_chunks")

    def __init__(self, first_lsn: int) -> None:
        self.first_lsn = first_lsn
        self.buffer: list[tuple[Lsn, Any]] = []
        self.spill: IO[bytes] | None = None
        self.spilled_chunks = 0
        self.messages = 0
        self.aborted_subxids: set[int] = set()

    def add(self, lsn: Lsn, msg: Any, chunk_size: int) -> None:
        self.buffer.append((lsn, msg))
        self.messages += 1
        if len(self.buffer) >= chunk_size:
            if self.spill is None:
                self.spill = tempfile.TemporaryFile(prefix="cw-streamed-tx-")  # noqa: SIM115 - closed in close()
            blob = pickle.dumps(self.buffer, protocol=pickle.HIGHEST_PROTOCOL)
            self.spill.write(_LEN.pack(len(blob)))
            self.spill.write(blob)
            self.spilled_chunks += 1
            self.buffer = []

    def chunks(self) -> Iterator[list[tuple[Lsn, Any]]]:
        """The messages in arrival order, chunk by chunk, without those of aborted subtransactions."""
        aborted = self.aborted_subxids
        spill = self.spill
        if spill is not None:
            spill.seek(0)
            for _ in range(self.spilled_chunks):
                (size,) = _LEN.unpack(spill.read(_LEN.size))
                yield _live(pickle.loads(spill.read(size)), aborted)
        if self.buffer:
            yield _live(self.buffer, aborted)

    def close(self) -> None:
        if self.spill is not None:
            self.spill.close()
            self.spill = None
        self.buffer = []


def _live(chunk: list[tuple[Lsn, Any]], aborted: set[int]) -> list[tuple[Lsn, Any]]:
    if not aborted:
        return chunk
    return [(lsn, m) for lsn, m in chunk if isinstance(m, _METADATA) or getattr(m, "xid", None) not in aborted]


class StreamedTransactions:
    """Turns a message sequence with streamed blocks into one where every transaction arrives whole."""

    def __init__(self, chunk_size: int = 4096) -> None:
        self._chunk_size = chunk_size
        self._open: dict[int, _OpenTransaction] = {}
        self._current: _OpenTransaction | None = None  # between Stream Start and Stream Stop
        self.spilled_transactions = 0

    @property
    def open_transactions(self) -> int:
        return len(self._open)

    def feed(self, batch: list[tuple[Lsn, Any]]) -> Iterator[list[tuple[Lsn, Any]]]:
        """Yields what can be processed now, in bounded chunks: messages outside streamed blocks as they come,
        a streamed transaction at its Stream Commit."""
        passthrough: list[tuple[Lsn, Any]] = []
        for lsn, msg in batch:
            kind = msg.__class__
            current = self._current
            if current is not None and kind is not pg.StreamStop:
                current.add(lsn, msg, self._chunk_size)
            elif kind is pg.StreamStart:
                tx = self._open.get(msg.xid)
                if tx is None:
                    tx = self._open[msg.xid] = _OpenTransaction(int(lsn))
                self._current = tx
            elif kind is pg.StreamStop:
                self._current = None
            elif kind is pg.StreamCommit:
                if passthrough:
                    yield passthrough
                    passthrough = []
                yield from self._commit(lsn, msg)
            elif kind is pg.StreamAbort:
                self._abort(msg)
            else:
                passthrough.append((lsn, msg))
        if passthrough:
            yield passthrough

    def _commit(self, lsn: Lsn, msg: pg.StreamCommit) -> Iterator[list[tuple[Lsn, Any]]]:
        tx = self._open.pop(msg.xid, None)
        begin = pg.Begin(final_lsn=msg.commit_lsn, commit_time=msg.commit_time, xid=msg.xid)
        commit = pg.Commit(msg.flags, msg.commit_lsn, msg.end_lsn, msg.commit_time)
        if tx is None:  # nothing of it was streamed (or it was already dropped): an empty transaction
            yield [(lsn, begin), (lsn, commit)]
            return
        try:
            if tx.spill is not None:
                self.spilled_transactions += 1
                log.info(
                    "streamed transaction %d committed: %d messages, %d chunks read back from disk",
                    msg.xid,
                    tx.messages,
                    tx.spilled_chunks,
                )
            yield [(Lsn(tx.first_lsn), begin)]
            yield from tx.chunks()
            yield [(lsn, commit)]
        finally:
            tx.close()

    def _abort(self, msg: pg.StreamAbort) -> None:
        if msg.subxid == msg.xid:
            tx = self._open.pop(msg.xid, None)
            if tx is not None:
                tx.close()
            return
        tx = self._open.get(msg.xid)
        if tx is not None:
            tx.aborted_subxids.add(msg.subxid)

    def close(self) -> None:
        """Drop every open transaction (a stop or a reconnect: the server streams them again)."""
        for tx in self._open.values():
            tx.close()
        self._open.clear()
        self._current = None
