"""Replica identity CHANGE, YugabyteDB's default, at the byte level: a Relation with identity 'c', an UPDATE
that sends only the changed columns (the others as 'u', as YugabyteDB's proto.c writes omitted columns)
and a DELETE with the key tuple, decoded by the pgoutput decoder and turned into records by the streaming
source with yboutput's cells (spec yugabytedb.md §1.3, §1.4; acceptance items 10, 12, 13, 17)."""

from __future__ import annotations

import struct
from typing import Any

from connectors.postgres.lsn import Lsn
from connectors.postgres.offsets import StoredPosition
from connectors.postgres.protocol.pgoutput import PgOutputDecoder, Relation
from connectors.postgres.streaming import StreamingChangeSource, StreamingSettings
from connectors.relational.emitter import record_factory
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.schema_builder import EnvelopeLayout, TableSchema
from connectors.relational.table import Column, ColumnType, Table, TableId
from connectors.yugabytedb.source_info import YugabyteSourceInfo
from converters.json import JsonConverter
from tests.unit.yugabytedb.test_events import yb_schema

TABLE = Table(
    TableId("public", "employees"),
    (
        Column("employee_id", 1, ColumnType(23, "int4", "N"), optional=False),
        Column("employee_name", 2, ColumnType(25, "text", "S"), optional=False),  # NOT NULL, yet left out below
        Column("employee_dept", 3, ColumnType(25, "text", "S")),
    ),
    primary_key=("employee_id",),
    replica_identity="c",
)


def cstr(s: str) -> bytes:
    return s.encode() + b"\x00"


def tuple_data(*values: str | None) -> bytes:
    out = struct.pack("!h", len(values))
    for v in values:
        out += b"n" if v is None else b"u" if v == "<omitted>" else b"t" + struct.pack("!i", len(v)) + v.encode()
    return out


RELATION = (
    b"R" + struct.pack("!i", 16400) + cstr("public") + cstr("employees") + b"c" + struct.pack("!h", 3)
    + b"\x01" + cstr("employee_id") + struct.pack("!ii", 23, -1)
    + b"\x00" + cstr("employee_name") + struct.pack("!ii", 25, -1)
    + b"\x00" + cstr("employee_dept") + struct.pack("!ii", 25, -1)
)  # fmt: skip
BEGIN = b"B" + struct.pack("!qqi", 0x100, 1_700_000_000_000_000, 571)
INSERT = b"I" + struct.pack("!i", 16400) + b"N" + tuple_data("1001", "Alice", "Packaging")
UPDATE = b"U" + struct.pack("!i", 16400) + b"N" + tuple_data("1001", "Bob", "<omitted>")
DELETE = b"D" + struct.pack("!i", 16400) + b"K" + tuple_data("1001", "<omitted>", "<omitted>")
COMMIT = b"C" + b"\x00" + struct.pack("!qqq", 0x200, 0x200, 1_700_000_000_000_000)


def yb_source(
    queue: ChangeEventQueue, *, stored: StoredPosition | None = None, skip_replayed: bool = True
) -> StreamingChangeSource:
    schema = yb_schema(TABLE)

    async def schema_for(_t: TableId, _r: Any) -> TableSchema:
        return schema

    return StreamingChangeSource(
        queue=queue,
        records=record_factory(EnvelopeLayout.V2_5, partition={"server": "yb"}, headers=(), tombstones_on_delete=True),
        source_info=YugabyteSourceInfo("yb", "yugabyte"),
        schema_for=schema_for,
        topic_for=lambda t: f"yb.{t}",
        transactions=None,
        message_records=lambda **kw: None,  # type: ignore[arg-type]
        settings=StreamingSettings(
            skipped_operations=frozenset(),
            message_filter=lambda _p: False,
            message_topic="yb.message",
            binary_message_content=lambda b: b,
            skip_replayed=skip_replayed,
        ),
        stored=stored,
    )


def cells(record: Any, side: str) -> dict[str, Any] | None:
    row = record.value.get(side)
    if row is None:
        return None
    return {f.name: None if row.get(f.name) is None else row.get(f.name).values for f in row.schema.fields}


async def test_change_identity_events() -> None:
    decoder = PgOutputDecoder()
    messages = [decoder.decode(raw) for raw in (BEGIN, RELATION, INSERT, UPDATE, DELETE, COMMIT)]
    relation = messages[1]
    assert isinstance(relation, Relation) and relation.replica_identity == "c"
    queue = ChangeEventQueue(max_size=100, max_batch=10, poll_interval_s=0.05)
    source = yb_source(queue)
    await source.handle_batch([(Lsn(0x100 + i), m) for i, m in enumerate(messages)])
    create, update, delete, tombstone = await queue.poll()
    assert create.value.get("op") == "c" and cells(create, "before") is None
    assert cells(create, "after") == {
        "employee_id": (1001, True), "employee_name": ("Alice", True), "employee_dept": ("Packaging", True),
    }  # fmt: skip
    # CHANGE: no before image; the PK and the changed column set, the left-out column null (not a placeholder)
    assert update.value.get("op") == "u" and cells(update, "before") is None
    assert cells(update, "after") == {
        "employee_id": (1001, True),
        "employee_name": ("Bob", True),
        "employee_dept": None,
    }
    # the delete's before holds only the key
    assert delete.value.get("op") == "d" and cells(delete, "after") is None
    assert cells(delete, "before") == {"employee_id": (1001, True), "employee_name": None, "employee_dept": None}
    assert tombstone.value is None and tombstone.key == delete.key
    assert delete.key.get("employee_id").values == (1001, True)
    # every record serialises: a NOT NULL column's cell may be null (not sent), so it is an optional cell
    converter = JsonConverter()
    converter.configure({"schemas.enable": "true"}, is_key=False)
    for record in (create, update, delete):
        assert converter.from_connect_data("t", record.value_schema, record.value)
    assert update.value.get("source").get("connector") == "YugabyteDB"
    assert update.value.get("source").get("txId") == 571


async def test_a_hybrid_time_transaction_replayed_after_a_restart_is_emitted_whole() -> None:
    """On a HYBRID_TIME slot every event of a transaction has the commit's hybrid time as LSN. A restart whose
    stored offset lies inside the transaction must not skip the resent events by LSN: they would all look
    already emitted, and the ones never delivered would be lost."""
    hybrid_time = 0x100
    decoder = PgOutputDecoder()
    messages = [decoder.decode(raw) for raw in (BEGIN, RELATION, INSERT, UPDATE, DELETE, COMMIT)]
    batch = [(Lsn(hybrid_time), m) for m in messages]
    stored = StoredPosition.from_offset(
        {"lsn": hybrid_time, "lsn_proc": hybrid_time, "txId": 571, "messageType": "INSERT", "ts_usec": 1}
    )
    emitted = {}
    for skip in (True, False):
        queue = ChangeEventQueue(max_size=100, max_batch=10, poll_interval_s=0.05)
        await yb_source(queue, stored=stored, skip_replayed=skip).handle_batch(batch)
        emitted[skip] = len(queue)
    assert emitted == {True: 0, False: 4}  # skipping by LSN would lose the update and the delete
