"""Assembling VStream events into units (spec vitess.md §1.5): pure, no I/O, no logging.

VTGate sends a transaction's events (BEGIN, FIELD, ROW, VGTID, COMMIT) in one or several responses. The
events of each response are buffered; after the response, the buffer is a complete *unit* when it holds
both BEGIN and COMMIT, or any DDL, OTHER or HEARTBEAT event. A complete unit is handed over whole, so a
transaction is emitted only once its COMMIT has arrived. Out-of-order boundaries are protocol errors, except
the BEGIN that VTGate repeats during a VStream Copy after an unfinished ``BEGIN, FIELD[, VGTID]`` (or
``COPY_COMPLETED, BEGIN, FIELD``) prefix, which is discarded.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Iterable, Sequence
from typing import Any, Final

from connect_worker.api.errors import RetriableError


class VEventType(enum.IntEnum):
    """binlogdata.VEventType."""

    UNKNOWN = 0
    GTID = 1
    BEGIN = 2
    COMMIT = 3
    ROLLBACK = 4
    DDL = 5
    INSERT = 6
    REPLACE = 7
    UPDATE = 8
    DELETE = 9
    SET = 10
    OTHER = 11
    ROW = 12
    FIELD = 13
    HEARTBEAT = 14
    VGTID = 15
    JOURNAL = 16
    VERSION = 17
    LASTPK = 18
    SAVEPOINT = 19
    COPY_COMPLETED = 20


_B, _C, _F, _V, _CC = VEventType.BEGIN, VEventType.COMMIT, VEventType.FIELD, VEventType.VGTID, VEventType.COPY_COMPLETED
#: Buffers a repeated BEGIN may find during a VStream Copy; they are dropped and the new BEGIN starts afresh.
_COPY_RESTARTS: Final = ((_B, _F), (_B, _F, _V), (_CC, _B, _F))
_CLOSING: Final = frozenset({VEventType.DDL, VEventType.OTHER, VEventType.HEARTBEAT})


class StreamProtocolError(RetriableError):
    """VTGate's events broke the BEGIN/COMMIT framing: the stream is restarted from the stored position."""


@dataclasses.dataclass(frozen=True, slots=True)
class Unit:
    """A complete unit: its events in order, and the last VGTID event's position (None when it had none)."""

    events: tuple[Any, ...]
    vgtid: Any  # binlogdata.VGtid, or None when the unit had no VGTID event

    @property
    def is_heartbeat(self) -> bool:
        return any(e.type == VEventType.HEARTBEAT for e in self.events)

    @property
    def types(self) -> tuple[VEventType, ...]:
        return tuple(VEventType(e.type) if e.type in _KNOWN else VEventType.UNKNOWN for e in self.events)


_KNOWN: Final = frozenset(int(t) for t in VEventType)


class UnitAssembler:
    """Feeds each VStreamResponse's events; returns the units it completes (usually zero or one)."""

    def __init__(self) -> None:
        self._buffer: list[Any] = []
        self._types: list[int] = []
        self._begin = self._commit = False
        self._vgtid: Any | None = None

    def _reset(self) -> None:
        self._buffer = []
        self._types = []
        self._begin = self._commit = False
        self._vgtid = None

    def feed(self, events: Iterable[Any]) -> list[Unit]:
        closing = False
        for event in events:
            kind = event.type
            if kind == _B:
                if self._commit:
                    raise StreamProtocolError("Received a BEGIN event after a COMMIT event in the same VStream unit")
                if self._begin:
                    if tuple(self._types) not in _COPY_RESTARTS:
                        raise StreamProtocolError("Received a second BEGIN event in the same VStream unit")
                    self._reset()
                self._begin = True
            elif kind == _C:
                if not self._begin:
                    raise StreamProtocolError("Received a COMMIT event before its BEGIN event")
                if self._commit:
                    raise StreamProtocolError("Received a second COMMIT event in the same VStream unit")
                self._commit = True
            elif kind == _V:
                self._vgtid = event.vgtid
            elif kind in _CLOSING:
                closing = True
            self._buffer.append(event)
            self._types.append(kind)
        if not self._buffer or not ((self._begin and self._commit) or closing):
            return []
        unit = Unit(tuple(self._buffer), self._vgtid)
        self._reset()
        return [unit]

    @property
    def pending(self) -> Sequence[Any]:
        """The buffered events of an incomplete unit."""
        return tuple(self._buffer)
