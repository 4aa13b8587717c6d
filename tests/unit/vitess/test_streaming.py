"""VStreamSource: units → records (spec vitess.md §1.5, §2.3, §2.4, §2.6; acceptance items 10, 14-19, 23, 26)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from connect_worker.api import DataError
from connectors.relational import metadata_schemas as md
from connectors.relational.emitter import record_factory
from connectors.relational.heartbeat import Heartbeat
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.schema_builder import EnvelopeLayout, SchemaBuilderSettings, TableSchema
from connectors.relational.table import Table
from connectors.relational.transactions import TransactionMonitor
from connectors.vitess.events import UnitAssembler
from connectors.vitess.source_info import VITESS_SOURCE_SCHEMA
from connectors.vitess.streaming import StreamSettings, VStreamSource, heartbeat_value
from connectors.vitess.tables import IllegalColumnNameError
from connectors.vitess.value_converters import VitessTypeOptions, converter_for, is_binary
from connectors.vitess.vgtid import ShardGtid, Vgtid
from tests.vitess_peer import Col, begin, commit, ddl, field_event, heartbeat, row_event, vgtid_event

INT32, VARCHAR, BLOB = 263, 6165, 10260
COLS = (Col("id", INT32, "int(11)", flags=3), Col("name", VARCHAR, "varchar(10)"), Col("data", BLOB, "blob"))


def at(gtid: str) -> Vgtid:
    return Vgtid((ShardGtid("ks", "0", gtid),))


def make_source(
    queue: ChangeEventQueue,
    *,
    tx: bool = False,
    heartbeat_s: float = 0,  # > 0: heartbeats every heartbeat_s seconds
    mode: str = "fail",
    skipped: frozenset[str] = frozenset(),
    estimate_sizes: bool = False,
) -> VStreamSource:
    options = VitessTypeOptions()
    settings = SchemaBuilderSettings(
        topic_prefix="vt",
        converter_for=lambda c: converter_for(c, options),
        mapper_for=lambda t, c: None,
        key_columns_for=lambda t: None,
        column_included=lambda t, c: True,
        adjust_schema_name=lambda s: s,
        adjust_field_name=lambda s: s,
        source_schema=VITESS_SOURCE_SCHEMA,
        transaction_schema=md.EVENT_BLOCK_SCHEMA,
        envelope=EnvelopeLayout.V2_7,
    )

    def schema_for(table: Table) -> TableSchema:
        return TableSchema(table, settings)

    return VStreamSource(
        queue=queue,
        records=record_factory(EnvelopeLayout.V2_7, partition={"server": "vt"}, headers=(), tombstones_on_delete=True),
        settings=StreamSettings(
            server_name="vt",
            keyspace="ks",
            skipped_operations=skipped,
            failure_handling_mode=mode,
            estimate_sizes=estimate_sizes,
        ),
        schema_for=schema_for,
        binary_columns=lambda table: tuple(is_binary(c) for c in table.columns),
        topic_for=lambda tid: f"vt.{tid}",
        position=at("g0").to_json(),
        transactions=TransactionMonitor(partition={"server": "vt"}, topic="vt.transaction") if tx else None,
        heartbeat=Heartbeat(
            queue=queue,
            partition={"server": "vt"},
            topic="__debezium-heartbeat.vt",
            server_name="vt",
            interval_ms=round(heartbeat_s * 1000),
            value=heartbeat_value,
        )
        if heartbeat_s
        else None,
    )


async def run(source: VStreamSource, *responses: list[Any]) -> None:
    assembler = UnitAssembler()
    for events in responses:
        for unit in assembler.feed(events):
            await source.handle(unit)


def new_queue() -> ChangeEventQueue:
    return ChangeEventQueue(max_size=1000, max_batch=500, poll_interval_s=0.01)


def tx(gtid: str, *changes: Any, columns: tuple[Col, ...] = COLS, ts: int = 100) -> list[Any]:
    return [begin(), field_event("ks", "t", "0", columns), row_event("ks", "t", "0", list(changes)),
            vgtid_event(at(gtid)), commit(ts)]  # fmt: skip


async def test_rows_offsets_follow_the_restart_rule() -> None:
    queue = new_queue()
    source = make_source(queue)
    raw = bytes(range(256))  # every byte value: a binary column keeps them all
    await run(source, tx("g1", (None, ("1", "a", None)), (None, ("2", "b", raw)), (None, ("3", None, ""))))
    records = await queue.poll()
    assert [r.source_offset for r in records] == [
        {"vgtid": at("g0").to_json()},
        {"vgtid": at("g0").to_json()},
        {"vgtid": at("g1").to_json()},
    ]
    assert records[1].value.get("after").get("data") == bytes(range(256))
    assert records[0].value.get("after").get("data") is None and records[2].value.get("after").get("name") is None
    assert records[0].value.get("source").get("ts_ms") == 100_000
    assert source.position == at("g1").to_json()


async def test_transaction_metadata_and_its_offsets() -> None:
    queue = new_queue()
    await run(make_source(queue, tx=True), tx("g1", (None, ("1", "a", None)), (("1", "a", None), ("1", "b", None))))
    begin_record, create, update, end = await queue.poll()
    tx_id = at("g1").to_json()
    assert begin_record.topic == end.topic == "vt.transaction"
    assert begin_record.value.get("status") == "BEGIN" and begin_record.value.get("id") == tx_id
    assert end.value.get("status") == "END" and end.value.get("event_count") == 2
    assert [b.get("data_collection") for b in end.value.get("data_collections")] == ["ks.t"]
    assert [r.value.get("transaction").get("total_order") for r in (create, update)] == [1, 2]
    assert create.source_offset is not None
    assert create.source_offset["vgtid"] == at("g0").to_json() and create.source_offset["transaction_id"] == tx_id
    assert end.source_offset == {"vgtid": tx_id}


async def test_a_unit_without_vgtid_is_dropped_and_ddl_moves_the_position() -> None:
    queue = new_queue()
    source = make_source(queue)
    rows = row_event("ks", "t", "0", [(None, ("1", "a", None))])
    await run(source, [begin(), field_event("ks", "t", "0", COLS), rows, commit(5)])
    assert len(queue) == 0 and source.position == at("g0").to_json()
    await run(source, [ddl("alter table t add column x int"), vgtid_event(at("g2"))])
    assert source.position == at("g2").to_json()


async def test_a_new_field_event_changes_the_schema() -> None:
    queue = new_queue()
    source = make_source(queue)
    await run(source, tx("g1", (None, ("1", "a", None))))
    wider = (*COLS, Col("extra", INT32, "int(11)"))
    await run(source, tx("g2", (None, ("2", "b", None, "7")), columns=wider))
    first, second = await queue.poll()
    assert [f.name for f in second.value.get("after").schema.fields] == ["id", "name", "data", "extra"]
    assert second.value.get("after").get("extra") == 7 and len(first.value.get("after").schema.fields) == 3


async def test_column_count_mismatch_and_anonymous_columns_fail() -> None:
    with pytest.raises(DataError, match="number of columns"):
        await run(make_source(new_queue()), tx("g1", (None, ("1", "a"))))
    with pytest.raises(IllegalColumnNameError, match="Illegal prefix '@' for column: @1, from schema: ks, table: t"):
        await run(make_source(new_queue()), tx("g1", (None, ("1",)), columns=(Col("@1", INT32, "int(11)"),)))
    queue = new_queue()
    await run(make_source(queue, mode="warn"), tx("g1", (None, ("1", "a")), (None, ("2", "b", None))))
    (only,) = await queue.poll()
    assert only.value.get("after").get("id") == 2


async def test_heartbeats_carry_the_position() -> None:
    queue = new_queue()
    source = make_source(queue, heartbeat_s=0.001)
    await asyncio.sleep(0.01)  # the first heartbeat is due one interval after the stream starts (Debezium's rule)
    await run(source, [heartbeat()])
    (record,) = await queue.poll()
    assert record.topic == "__debezium-heartbeat.vt" and record.key.get("serverName") == "vt"
    assert record.value.get("vgtid") == at("g0").to_json() and record.source_offset == {"vgtid": at("g0").to_json()}
    quiet = new_queue()
    await run(make_source(quiet), [heartbeat()])
    assert len(quiet) == 0


async def test_each_shard_keeps_its_own_table_description() -> None:
    """A DDL reaches the shards one after the other: shard -80's wider FIELD event must not be applied to the
    rows shard 80- still sends in the old shape."""
    queue = new_queue()
    source = make_source(queue)
    wider = (*COLS, Col("extra", INT32, "int(11)"))

    def shard_tx(shard: str, gtid: str, columns: tuple[Col, ...], row: tuple[str | None, ...]) -> list[Any]:
        return [begin(), field_event("ks", "t", shard, columns), row_event("ks", "t", shard, [(None, row)]),
                vgtid_event(at(gtid)), commit(1)]  # fmt: skip

    await run(source, shard_tx("-80", "g1", COLS, ("1", "a", None)), shard_tx("80-", "g2", COLS, ("2", "b", None)))
    await run(source, shard_tx("-80", "g3", wider, ("3", "c", None, "9")))
    await run(source, [begin(), row_event("ks", "t", "80-", [(None, ("4", "d", None))]), vgtid_event(at("g4")),
                       commit(1)])  # fmt: skip
    records = await queue.poll()
    assert [r.value.get("source").get("shard") for r in records] == ["-80", "80-", "-80", "80-"]
    assert [len(r.value.get("after").schema.fields) for r in records] == [3, 3, 4, 3]


async def test_a_transaction_whose_rows_are_all_skipped_still_has_begin_and_end() -> None:
    queue = new_queue()
    await run(make_source(queue, tx=True, skipped=frozenset({"c"})), tx("g1", (None, ("1", "a", None))))
    begin_record, end_record = await queue.poll()
    assert (begin_record.value.get("status"), end_record.value.get("status")) == ("BEGIN", "END")
    assert end_record.value.get("event_count") == 0


async def test_text_that_is_not_utf8_is_replaced_not_fatal() -> None:
    queue = new_queue()
    await run(make_source(queue), tx("g1", (None, (b"1", b"caf\xe9", None))))
    (record,) = await queue.poll()
    assert record.value.get("after").get("name") == "caf\ufffd"


async def test_sizes_are_estimated_for_a_byte_bounded_queue() -> None:
    queue = ChangeEventQueue(max_size=1000, max_batch=500, poll_interval_s=0.01, max_bytes=1_000_000)
    await run(make_source(queue, estimate_sizes=True), tx("g1", (None, ("1", "a" * 100, None))))
    assert queue._bytes > 100  # what the queue holds is bounded by max.queue.size.in.bytes
