"""The `source` block of PostgreSQL change events (io.debezium.connector.postgresql.Source, Debezium 3.6)."""

from __future__ import annotations

from typing import Any, Final

from connect_worker.api import Schema, Struct, Type
from connectors.relational.source_info import snapshot_enum, source_schema

CONNECTOR_NAME: Final = "postgresql"
DEBEZIUM_VERSION: Final = "3.6.3.Final"

SNAPSHOT_ENUM: Final = snapshot_enum(
    "true,first,first_in_data_collection,last_in_data_collection,last,false,incremental"
)
_OPT_INT64 = Schema(Type.INT64, optional=True)
_OPT_STRING = Schema(Type.STRING, optional=True)
_STRING = Schema(Type.STRING)

SOURCE_SCHEMA: Final = source_schema(
    "io.debezium.connector.postgresql.Source",
    SNAPSHOT_ENUM,
    [
        ("schema", _STRING),
        ("table", _STRING),
        ("txId", _OPT_INT64),
        ("lsn", _OPT_INT64),
        ("xmin", _OPT_INT64),
        ("origin", _OPT_STRING),
        ("origin_lsn", _OPT_INT64),
    ],
)


def sequence_text(last_commit_lsn: int | None, lsn: int | None) -> str:
    """`["<last commit lsn>","<lsn>"]` with null for unknown parts, as JSON text (Debezium's `sequence`)."""
    a = "null" if last_commit_lsn is None else f'"{last_commit_lsn}"'
    b = "null" if lsn is None else f'"{lsn}"'
    return f"[{a},{b}]"


class SourceTemplate:
    """The source blocks of one table's events in one transaction: everything but the event's LSN (and the
    `sequence` built from it) fixed, so an event's block is one tuple (the streaming hot path)."""

    __slots__ = ("_head", "_mid", "_seq_prefix")

    def __init__(self, head: tuple[Any, ...], mid: tuple[Any, ...], last_commit_lsn: int | None) -> None:
        self._head = head
        self._mid = mid
        self._seq_prefix = '[null,"' if last_commit_lsn is None else f'["{last_commit_lsn}","'

    def at(self, lsn: int) -> Struct:
        """The block of the event at `lsn` (equal to `SourceInfo.struct` with this template's fields)."""
        return _of(SOURCE_SCHEMA, (*self._head, self._seq_prefix + str(lsn) + '"]', *self._mid, lsn, None, None, None))


class SnapshotSourceTemplate:
    """The source blocks of one table's snapshot rows: all read at one LSN in one transaction, so only the read
    time and the `snapshot` mark differ (the snapshot's hot path)."""

    __slots__ = ("_head", "_tail")

    def __init__(
        self,
        name: str,
        db: str,
        schema: str,
        table: str,
        tx_id: int | None,
        lsn: int | None,
        last_commit_lsn: int | None = None,
        sequence_lsn: int | None = None,
    ) -> None:
        self._head = (DEBEZIUM_VERSION, CONNECTOR_NAME, name)
        sequence = sequence_text(last_commit_lsn, lsn if sequence_lsn is None else sequence_lsn)
        self._tail = (db, sequence, schema, table, tx_id, lsn)

    def at(self, ts_us: int, mark: str) -> Struct:
        """The block of a row read at `ts_us` (equal to `SourceInfo.struct` with these fields)."""
        db, sequence, schema, table, tx_id, lsn = self._tail
        return _of(
            SOURCE_SCHEMA,
            (
                *self._head,
                ts_us // 1000,
                mark,
                db,
                sequence,
                ts_us,
                ts_us * 1000,
                schema,
                table,
                tx_id,
                lsn,
                None,
                None,
                None,
            ),
        )


_of = Struct.of


class SourceInfo:
    """Builds source structs for one connector (server name and database fixed)."""

    __slots__ = ("_db", "_name", "_times")

    def __init__(self, server_name: str, database: str) -> None:
        self._name = server_name
        self._db = database
        # the last commit time with its ms and ns forms: the events of one transaction share these objects,
        # which lets a converter recognise them (JsonConverter remembers a source field's last encoding)
        self._times: tuple[int, int, int] = (-1, -1, -1)

    def template(
        self, *, ts_us: int, schema: str, table: str, tx_id: int | None, last_commit_lsn: int | None
    ) -> SourceTemplate:
        """What `struct` gives for these fields, made once for all the events that differ only by LSN."""
        times = self._times
        if times[0] != ts_us:
            times = self._times = (ts_us, ts_us // 1000, ts_us * 1000)
        head = (DEBEZIUM_VERSION, CONNECTOR_NAME, self._name, times[1], None, self._db)
        return SourceTemplate(head, (times[0], times[2], schema, table, tx_id), last_commit_lsn)

    def snapshot_template(
        self,
        *,
        schema: str,
        table: str,
        tx_id: int | None,
        lsn: int | None,
        last_commit_lsn: int | None = None,
        sequence_lsn: int | None = None,
    ) -> SnapshotSourceTemplate:
        """What `struct` gives for a snapshot row of this table, made once per table. A blocking snapshot's rows
        carry the paused stream's txId, LSN and last commit; an incremental snapshot's have no txId and LSN, the
        stream's LSN only in `sequence` (``sequence_lsn``), as Debezium's PostgresSourceInfoStructMaker leaves
        them out of incremental blocks."""
        return SnapshotSourceTemplate(self._name, self._db, schema, table, tx_id, lsn, last_commit_lsn, sequence_lsn)

    def struct(
        self,
        *,
        ts_us: int,
        schema: str,
        table: str,
        tx_id: int | None,
        lsn: int | None,
        last_commit_lsn: int | None,
        snapshot: str | None = None,
        xmin: int | None = None,
        origin: str | None = None,
    ) -> Struct:
        times = self._times
        if times[0] != ts_us:
            times = self._times = (ts_us, ts_us // 1000, ts_us * 1000)
        return Struct.of(
            SOURCE_SCHEMA,
            (
                DEBEZIUM_VERSION,
                CONNECTOR_NAME,
                self._name,
                times[1],
                snapshot,
                self._db,
                sequence_text(last_commit_lsn, lsn) if lsn is not None or last_commit_lsn is not None else None,
                times[0],
                times[2],
                schema,
                table,
                tx_id,
                lsn,
                xmin,
                origin,
                None,
            ),
        )
