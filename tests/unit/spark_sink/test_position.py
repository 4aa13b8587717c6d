"""Source positions per connector (spark_sink/position.py) and the envelope's use of them: yboutput cells,
Vitess VGTIDs, events without a derivable position."""

from __future__ import annotations

import json
from typing import Any

import pytest

from spark_sink.decoding import ChangeEvent, DecodeFailure, RawRecord, TxMarker, decoder_for
from spark_sink.position import UNKNOWN_ORDER, PositionError, SourcePosition, gtid_rank, position_of, transaction_id

PH = "__debezium_unavailable_value"
U1, U2 = "3e11fa47-71ca-11e1-9e33-c80aa9429562", "b9c1e8a0-1f2a-11ee-8c4a-0242ac120002"


def vgtid(*shards: tuple[str, str]) -> str:
    return json.dumps([{"keyspace": "commerce", "shard": s, "gtid": g} for s, g in shards])


def test_postgresql_lsn_then_order_in_transaction() -> None:
    src = {"connector": "postgresql", "lsn": 5}
    assert position_of(src, None) == SourcePosition(0, 5, 0)
    assert position_of(src, {"total_order": 3}) == SourcePosition(0, 5, 3)
    incremental = {"connector": "postgresql", "lsn": None, "sequence": '["3","9"]'}
    assert position_of(incremental, {"total_order": 2}) == SourcePosition(0, 9, 2)
    with pytest.raises(PositionError, match="neither `lsn` nor `sequence`"):
        position_of({"connector": "postgresql", "lsn": None, "sequence": None}, None)


def test_yugabytedb_without_transaction_order_is_transaction_granular() -> None:
    src = {"connector": "YugabyteDB", "lsn": 7_400_000_000_000}  # a HYBRID_TIME slot: the commit's hybrid time
    assert position_of(src, None) == SourcePosition(0, 7_400_000_000_000, UNKNOWN_ORDER)
    assert position_of(src, {"total_order": 2}) == SourcePosition(0, 7_400_000_000_000, 2)


def test_gtid_rank_sums_the_last_sequence_of_each_member() -> None:
    assert gtid_rank(f"MySQL56/{U1}:1-100") == 100
    assert gtid_rank(f"MySQL56/{U1}:1-100,{U2}:1-5:7-9") == 109
    assert gtid_rank(f"{U1}:42") == 42
    assert gtid_rank("MariaDB/0-1-100,1-2-7") == 107
    for bad in ("", "MySQL56/", "current", f"{U1}"):
        with pytest.raises(PositionError):
            gtid_rank(bad)


def test_vitess_orders_by_the_own_shards_gtid_set() -> None:
    pos = vgtid(("-80", f"MySQL56/{U1}:1-100"), ("80-", f"MySQL56/{U2}:1-7"))
    west = {"connector": "vitess", "keyspace": "commerce", "shard": "-80", "vgtid": pos}
    east = dict(west, shard="80-")
    assert position_of(west, None) == SourcePosition(0, 100, UNKNOWN_ORDER)
    assert position_of(east, {"total_order": 4}) == SourcePosition(0, 7, 4)
    ordered = {"total_order": 1, "transaction_epoch": 2, "transaction_rank": 555}
    assert position_of(west, ordered) == SourcePosition(2, 555, 1)  # VitessOrderedTransactionMetadataFactory
    with pytest.raises(PositionError, match="no GTID set for shard commerce/c0-"):
        position_of(dict(west, shard="c0-"), None)
    with pytest.raises(PositionError, match="no GTID set"):
        position_of(dict(west, vgtid=vgtid(("-80", "current"))), None)
    with pytest.raises(PositionError, match="not JSON"):
        position_of(dict(west, vgtid="[{"), None)


def test_oracle_commit_scn_and_unknown_connectors() -> None:
    assert position_of({"connector": "oracle", "scn": "90", "commit_scn": "100"}, None) == SourcePosition(
        0, 100, UNKNOWN_ORDER
    )
    assert position_of({"connector": "oracle", "scn": "90", "commit_scn": None}, None) == SourcePosition(
        0, 90, UNKNOWN_ORDER
    )
    assert position_of({"connector": "mysql", "lsn": 3}, None) == SourcePosition(0, 3, UNKNOWN_ORDER)
    with pytest.raises(PositionError, match="knows no position"):
        position_of({"connector": "mysql", "file": "binlog.000003", "pos": 154}, None)
    with pytest.raises(PositionError, match="no source block"):
        position_of(None, None)


def test_newer_than() -> None:
    assert SourcePosition(0, 10, 0).newer_than(SourcePosition(0, 9, 5))
    assert SourcePosition(0, 9, 1).newer_than(SourcePosition(0, 9, 0))
    assert not SourcePosition(0, 9, 0).newer_than(SourcePosition(0, 9, 0))  # a replayed event: not applied again
    assert not SourcePosition(0, 9, 0).newer_than(SourcePosition(0, 9, 1))
    assert SourcePosition(1, 1, 0).newer_than(SourcePosition(0, 500, 9))  # a new Vitess epoch wins
    same = SourcePosition(0, 9, UNKNOWN_ORDER)
    assert same.newer_than(same)  # order inside the transaction unknown: applied again, in Kafka order
    assert not same.newer_than(SourcePosition(0, 10, UNKNOWN_ORDER))


def test_transaction_ids() -> None:
    assert transaction_id("571:53195829") == ("571", 53195829)
    assert transaction_id("571") == ("571", None)
    v = vgtid(("-80", f"MySQL56/{U1}:1-100"))
    assert transaction_id(v) == (v, None)  # a VGTID is the id as a whole (it holds ':' itself)


# -- through the decoder ------------------------------------------------------------------------------------------
def decode(value: Any, key: Any, topic: str = "yb.public.employees") -> Any:
    raw = RawRecord(topic, 0, 0, json.dumps(key).encode(), json.dumps(value).encode())
    return decoder_for("json", placeholder=PH).decode(raw)


def cell_field(name: str, kind: str, optional: bool = True) -> dict[str, Any]:
    return {
        "type": "struct",
        "fields": [{"type": kind, "optional": optional, "field": "value"}, {"type": "boolean", "optional": False,
                                                                            "field": "set"}],
        "optional": optional,
        "name": name,
        "field": name,
    }  # fmt: skip


YB_ROW = {
    "type": "struct",
    "optional": True,
    "name": "yb.public.employees.Value",
    "fields": [cell_field("id", "int32", False), cell_field("name", "string"), cell_field("notes", "string")],
}
YB_KEY = {
    "type": "struct",
    "optional": False,
    "name": "yb.public.employees.Key",
    "fields": [cell_field("id", "int32", False)],
}
YB_SOURCE = {"connector": "YugabyteDB", "lsn": 40, "schema": "public", "table": "employees", "ts_ms": 1}


def yb_record(op: str, after: Any, before: Any = None, schemas: bool = True) -> tuple[Any, Any]:
    payload = {"before": before, "after": after, "source": YB_SOURCE, "op": op, "ts_ms": 1}
    key = {"id": {"value": 7, "set": True}}
    if not schemas:
        return payload, key
    envelope = {
        "type": "struct",
        "optional": False,
        "name": "yb.public.employees.Envelope",
        "fields": [
            dict(YB_ROW, field="before"),
            dict(YB_ROW, field="after"),
            {"type": "struct", "fields": [], "optional": False, "field": "source"},
            {"type": "string", "optional": False, "field": "op"},
        ],
    }
    return {"schema": envelope, "payload": payload}, {"schema": YB_KEY, "payload": key}


@pytest.mark.parametrize("schemas", [True, False])
def test_yboutput_cells_are_unwrapped(schemas: bool) -> None:
    cells = {"id": {"value": 7, "set": True}, "name": {"value": "Ann", "set": True}, "notes": None}
    event = decode(*yb_record("c", cells, schemas=schemas))
    assert isinstance(event, ChangeEvent)
    assert event.key == {"id": 7} and event.row == {"id": 7, "name": "Ann", "notes": None}
    assert event.unavailable == frozenset()  # a null cell in an insert is SQL NULL
    assert event.position == SourcePosition(0, 40, UNKNOWN_ORDER)
    if schemas:
        assert dict(event.schema.columns)["id"].ddl() == "int"  # the cell's value type, not the cell struct
    update = {"id": {"value": 7, "set": True}, "name": None, "notes": {"value": "x", "set": False}}
    event = decode(*yb_record("u", update, schemas=schemas))
    assert isinstance(event, ChangeEvent)
    assert event.row == {"id": 7, "name": None, "notes": None}
    assert event.unavailable == frozenset({"name", "notes"})  # not sent / set=false: the table keeps its values
    gone = decode(*yb_record("d", None, before={"id": {"value": 7, "set": True}, "name": None, "notes": None}))
    assert isinstance(gone, ChangeEvent) and gone.op == "d" and gone.key == {"id": 7}


def test_a_malformed_cell_is_a_decode_failure() -> None:
    bad = {"id": {"value": 7, "set": True}, "name": "plain text where a cell belongs", "notes": None}
    failure = decode(*yb_record("c", bad))
    assert isinstance(failure, DecodeFailure) and "yboutput cell" in failure.reason


def test_an_event_without_a_position_is_a_decode_failure_not_a_guess() -> None:
    value, key = yb_record("c", {"id": {"value": 7, "set": True}, "name": None, "notes": None})
    value["payload"]["source"] = {"connector": "YugabyteDB", "lsn": None, "schema": "public", "table": "employees"}
    failure = decode(value, key)
    assert isinstance(failure, DecodeFailure) and failure.reason.startswith("no source position:")


def test_vitess_events_and_boundaries() -> None:
    pos = vgtid(("-80", f"MySQL56/{U1}:1-100"))
    source = {"connector": "vitess", "keyspace": "commerce", "shard": "-80", "vgtid": pos, "table": "customers"}
    tx = {"id": pos, "total_order": 2, "data_collection_order": 1}
    value = {"before": None, "after": {"id": 1}, "source": source, "transaction": tx, "op": "c", "ts_ms": 1}
    event = decode(value, {"id": 1}, topic="vt.commerce.customers")
    assert isinstance(event, ChangeEvent)
    assert event.position == SourcePosition(0, 100, 2) and event.tx_id == pos
    end = {"status": "END", "id": pos, "event_count": 2, "data_collections": [], "ts_ms": 1}
    marker = decode(end, {"id": pos}, topic="vt.transaction")
    assert isinstance(marker, TxMarker) and marker.tx_id == pos and marker.commit_lsn is None
