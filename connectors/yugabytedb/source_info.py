"""The `source` block of YugabyteDB change events: io.debezium.connector.postgresql.Source as Debezium 2.5
(the fork's base) writes it, with the connector named ``YugabyteDB`` and no ts_us/ts_ns/origin fields.

The `snapshot` enum lists all seven marks: Debezium emitted first/first_in_data_collection/... from 2.0 on
(the spec's shorter list would not admit the marks the same spec asks for).
"""

from __future__ import annotations

from typing import Any, Final

from connect_worker.api import Schema, Struct, Type
from connectors.postgres.source_info import SNAPSHOT_ENUM, SourceInfo, sequence_text
from connectors.relational.source_info import source_schema

CONNECTOR_NAME: Final = "YugabyteDB"
YB_DEBEZIUM_VERSION: Final = "2.5.2.Final"

_OPT_INT64 = Schema(Type.INT64, optional=True)
_STRING = Schema(Type.STRING)

YB_SOURCE_SCHEMA: Final = source_schema(
    "io.debezium.connector.postgresql.Source",
    SNAPSHOT_ENUM,
    [("schema", _STRING), ("table", _STRING), ("txId", _OPT_INT64), ("lsn", _OPT_INT64), ("xmin", _OPT_INT64)],
    micro_nano=False,
)

_of = Struct.of


class _StreamTemplate:
    """The blocks of one table's events in one transaction; only the LSN (and `sequence`) differ."""

    __slots__ = ("_head", "_seq_prefix", "_tail")

    def __init__(self, head: tuple[Any, ...], tail: tuple[Any, ...], last_commit_lsn: int | None) -> None:
        self._head = head
        self._tail = tail
        self._seq_prefix = '[null,"' if last_commit_lsn is None else f'["{last_commit_lsn}","'

    def at(self, lsn: int) -> Struct:
        return _of(YB_SOURCE_SCHEMA, (*self._head, self._seq_prefix + str(lsn) + '"]', *self._tail, lsn, None))


class _SnapshotTemplate:
    """The blocks of one table's snapshot rows: only the read time and the `snapshot` mark differ."""

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
        self._head = (YB_DEBEZIUM_VERSION, CONNECTOR_NAME, name)
        sequence = sequence_text(last_commit_lsn, lsn if sequence_lsn is None else sequence_lsn)
        self._tail = (db, sequence, schema, table, tx_id, lsn, None)

    def at(self, ts_us: int, mark: str) -> Struct:
        return _of(YB_SOURCE_SCHEMA, (*self._head, ts_us // 1000, mark, *self._tail))


class YugabyteSourceInfo(SourceInfo):
    """SourceInfo's interface, building YugabyteDB's (Debezium 2.5) blocks."""

    __slots__ = ()

    def template(  # type: ignore[override]
        self, *, ts_us: int, schema: str, table: str, tx_id: int | None, last_commit_lsn: int | None
    ) -> _StreamTemplate:
        head = (YB_DEBEZIUM_VERSION, CONNECTOR_NAME, self._name, ts_us // 1000, None, self._db)
        return _StreamTemplate(head, (schema, table, tx_id), last_commit_lsn)

    def snapshot_template(  # type: ignore[override]
        self,
        *,
        schema: str,
        table: str,
        tx_id: int | None,
        lsn: int | None,
        last_commit_lsn: int | None = None,
        sequence_lsn: int | None = None,
    ) -> _SnapshotTemplate:
        return _SnapshotTemplate(self._name, self._db, schema, table, tx_id, lsn, last_commit_lsn, sequence_lsn)

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
        sequence = sequence_text(last_commit_lsn, lsn) if lsn is not None or last_commit_lsn is not None else None
        return _of(
            YB_SOURCE_SCHEMA,
            (
                YB_DEBEZIUM_VERSION,
                CONNECTOR_NAME,
                self._name,
                ts_us // 1000,
                snapshot,
                self._db,
                sequence,
                schema,
                table,
                tx_id,
                lsn,
                xmin,
            ),
        )
