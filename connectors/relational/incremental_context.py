"""The state of an incremental snapshot and its place in the offsets (Debezium's
``AbstractIncrementalSnapshotContext``), so that a restarted task - ours or Debezium's - goes on from the next
chunk.

While a snapshot runs, every streaming offset carries four keys:

* ``incremental_snapshot_collections``: JSON, the tables still to snapshot in order, each
  ``{"incremental_snapshot_collections_id": "schema.table", "..._additional_condition": "(filter)" | null,
  "..._surrogate_key": name | null, "..._correlation_id": signal id | null}``. As in Debezium, a stored condition
  is the signal's filter in parentheses and is wrapped once more each time it is loaded and stored again.
* ``incremental_snapshot_primary_key``: the key of the last row emitted from the current chunk, and
* ``incremental_snapshot_maximum_key``: the current table's largest key when its snapshot began, both as the hex
  of Java's serialization of an ``Object[]`` (``java_serialization``; ``aced000570``, a serialized null, before
  the first row of a chunk).
* ``incremental_snapshot_correlation_id``: the id of the signal that started the snapshot.

A task that loads such an offset reads the chunk after the stored key (``chunk_end``).
"""

from __future__ import annotations

import dataclasses
import json
import logging
import struct
import uuid
from collections.abc import Hashable, Mapping, Sequence
from typing import Any

from connect_worker.api.java_serialization import JavaInteger, JavaLong, JavaValue, decode_key, encode_key
from connect_worker.api.javacompat import jackson_dumps
from connectors.relational.table import TableId

log = logging.getLogger(__name__)

PRIMARY_KEY = "incremental_snapshot_primary_key"
MAXIMUM_KEY = "incremental_snapshot_maximum_key"
COLLECTIONS = "incremental_snapshot_collections"
CORRELATION_ID = "incremental_snapshot_correlation_id"
_ID = COLLECTIONS + "_id"
_CONDITION = COLLECTIONS + "_additional_condition"
_SURROGATE = COLLECTIONS + "_surrogate_key"
_CORRELATION = COLLECTIONS + "_correlation_id"

Key = tuple[JavaValue, ...]


@dataclasses.dataclass(frozen=True, slots=True)
class DataCollection:
    """A table to snapshot: its WHERE fragment (stored in parentheses), surrogate key, requesting signal."""

    id: TableId
    condition: str = ""
    surrogate_key: str = ""
    correlation_id: str | None = None

    @property
    def additional_condition(self) -> str | None:
        """What the chunk queries AND in, in parentheses (Debezium's ``getAdditionalCondition``)."""
        return f"({self.condition})" if self.condition else None


class IncrementalSnapshotContext:
    def __init__(self) -> None:
        self.collections: list[DataCollection] = []
        self.window_open = False
        self.chunk_id: str | None = None
        self.chunk_end: Key | None = None  # the last key of the previous chunk (None: the table's first chunk)
        self.last_sent: Key | None = None
        self.maximum_key: Key | None = None
        self.correlation_id: str | None = None
        self.paused = False
        self.to_stop: list[str] = []
        # incremental.snapshot.allow.schema.changes: the current table's columns as last seen, and whether a window
        # confirmed them (Debezium's context keeps these in memory only)
        self.schema: Hashable | None = None
        self.schema_verified = False
        self._stored: dict[str, Any] | None = None  # the offset keys, made again when the state changes
        self._static: tuple[str, str, str | None] | None = None  # maximum key, collections, correlation id

    # -- offsets ----------------------------------------------------------------------------------------
    @classmethod
    def load(cls, offset: Mapping[str, Any] | None) -> IncrementalSnapshotContext:
        """The context an offset carries (an empty one when it carries none)."""
        context = cls()
        if not offset:
            return context
        primary = offset.get(PRIMARY_KEY)
        maximum = offset.get(MAXIMUM_KEY)
        collections = offset.get(COLLECTIONS)
        context.chunk_end = _decoded(PRIMARY_KEY, primary)
        context.maximum_key = _decoded(MAXIMUM_KEY, maximum)
        if collections:
            try:
                items = json.loads(collections)
                context.collections = [
                    DataCollection(
                        TableId.parse(item[_ID]),
                        item.get(_CONDITION) or "",
                        item.get(_SURROGATE) or "",
                        item.get(_CORRELATION),
                    )
                    for item in items
                ]
            except (ValueError, KeyError, TypeError) as e:
                raise ValueError(f"Cannot de-serialize dataCollectionsToSnapshot information: {collections}") from e
        correlation = offset.get(CORRELATION_ID)
        context.correlation_id = None if correlation is None else str(correlation)
        return context

    def offset_keys(self) -> dict[str, Any] | None:
        """What every offset carries while a snapshot runs (None when none runs); the same dict until the state
        changes."""
        if not self.collections:
            return None
        stored = self._stored
        if stored is None:
            static = self._static
            if static is None:  # what changes per table, not per row
                static = self._static = (
                    encode_key(self.maximum_key),
                    self._collections_json(),
                    self.correlation_id,
                )
            stored = self._stored = {
                PRIMARY_KEY: encode_chunk_key(self.last_sent),
                MAXIMUM_KEY: static[0],
                COLLECTIONS: static[1],
                CORRELATION_ID: static[2],
            }
        return stored

    def _collections_json(self) -> str:
        return jackson_dumps(
            [
                {
                    _ID: str(c.id),
                    _CONDITION: c.additional_condition,
                    _SURROGATE: c.surrogate_key or None,
                    _CORRELATION: c.correlation_id or None,
                }
                for c in self.collections
            ]
        ).decode("utf-8")

    def changed(self) -> None:
        self._stored = self._static = None

    # -- the snapshot's progress --------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return bool(self.collections)

    @property
    def current(self) -> DataCollection | None:
        return self.collections[0] if self.collections else None

    def add(self, correlation_id: str | None, collections: Sequence[DataCollection]) -> None:
        self.collections.extend(collections)
        self.correlation_id = correlation_id
        self.changed()

    def next_collection(self) -> DataCollection | None:
        """Done with the current table: reset the chunk and go to the next one."""
        self.last_sent = self.chunk_end = self.maximum_key = None
        self.schema, self.schema_verified = None, False
        if self.collections:
            self.collections.pop(0)
        self.changed()
        return self.current

    def remove(self, table_id: TableId) -> bool:
        before = len(self.collections)
        self.collections = [c for c in self.collections if c.id != table_id]
        self.changed()
        return len(self.collections) != before

    def start_chunk(self) -> str:
        self.chunk_id = str(uuid.uuid4())
        return self.chunk_id

    def expects(self, signal_id: str) -> bool:
        """Whether a window signal belongs to the current chunk (its id starts with the chunk's)."""
        return self.chunk_id is not None and signal_id.startswith(self.chunk_id)

    def sent_key(self, key: Key) -> str:
        """A row of the window was emitted: the offset's primary key moves to it; returns the key as the offsets
        hold it (the rest of :meth:`offset_keys` is unchanged)."""
        self.last_sent = key
        primary = encode_chunk_key(key)
        stored = self._stored
        if stored is not None:
            stored = self._stored = dict(stored)
            stored[PRIMARY_KEY] = primary
        return primary

    def revert_chunk(self) -> None:
        """Read the chunk again (from the last key emitted)."""
        self.chunk_end = self.last_sent
        self.window_open = False

    def request_stop(self, collections: Sequence[str] | None) -> None:
        if self.running:
            self.to_stop.extend(collections or [".*"])

    def take_stop_requests(self) -> list[str]:
        out, self.to_stop = self.to_stop, []
        return out


def encode_chunk_key(key: Key | None) -> str:
    """:func:`encode_key` with a fast path for the common one-column keys (an Integer, a Long, an ASCII String):
    the bytes before the value are the same for every key of that kind, so only the value is encoded per row."""
    if key is not None and len(key) == 1:
        value = key[0]
        if isinstance(value, JavaLong):
            return _LONG_PREFIX + _I64.pack(value.value).hex()
        if isinstance(value, JavaInteger):
            return _INTEGER_PREFIX + _I32.pack(value.value).hex()
        if isinstance(value, str) and value.isascii() and len(value) < 65536:
            return _STRING_PREFIX + _U16.pack(len(value)).hex() + value.encode("ascii").hex()
    return encode_key(key)


_I64 = struct.Struct(">q")
_I32 = struct.Struct(">i")
_U16 = struct.Struct(">H")
_LONG_PREFIX = encode_key([JavaLong(0)])[: -2 * 8]
_INTEGER_PREFIX = encode_key([JavaInteger(0)])[: -2 * 4]
_STRING_PREFIX = encode_key([""])[: -2 * 2]  # TC_STRING stays in the prefix, the length follows


def _decoded(key: str, value: Any) -> Key | None:
    if value is None:
        return None
    try:
        decoded = decode_key(str(value))
    except ValueError as e:
        raise ValueError(f"Failed to deserialize '{key}' with value '{value}': {e}") from e
    return None if decoded is None else tuple(decoded)
