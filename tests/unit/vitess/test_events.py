"""Assembling VStream responses into units (spec vitess.md §1.5; acceptance items 7-10)."""

from __future__ import annotations

from typing import Any

import pytest

from connectors.vitess.events import StreamProtocolError, UnitAssembler, VEventType
from connectors.vitess.proto import binlogdata_pb2 as _binlogdata

binlogdata: Any = _binlogdata


def ev(kind: VEventType, **fields: Any) -> Any:
    return binlogdata.VEvent(type=int(kind), **fields)


def vgtid(gtid: str) -> Any:
    return ev(
        VEventType.VGTID,
        vgtid=binlogdata.VGtid(shard_gtids=[binlogdata.ShardGtid(keyspace="ks", shard="0", gtid=gtid)]),
    )


B, C, F, R = VEventType.BEGIN, VEventType.COMMIT, VEventType.FIELD, VEventType.ROW


def test_a_transaction_split_over_three_responses_is_one_unit_after_commit() -> None:
    a = UnitAssembler()
    assert a.feed([ev(B), ev(F)]) == []
    assert a.feed([ev(R), ev(R)]) == []
    (unit,) = a.feed([vgtid("g1"), ev(C, timestamp=7)])
    assert unit.types == (B, F, R, R, VEventType.VGTID, C)
    assert unit.vgtid.shard_gtids[0].gtid == "g1"
    assert a.pending == ()


def test_the_last_vgtid_of_a_unit_wins() -> None:
    (unit,) = UnitAssembler().feed([ev(B), vgtid("g1"), vgtid("g2"), ev(C)])
    assert unit.vgtid.shard_gtids[0].gtid == "g2"


@pytest.mark.parametrize("kind", [VEventType.DDL, VEventType.OTHER, VEventType.HEARTBEAT])
def test_ddl_other_and_heartbeat_close_a_unit(kind: VEventType) -> None:
    (unit,) = UnitAssembler().feed([ev(kind), vgtid("g")] if kind != VEventType.HEARTBEAT else [ev(kind)])
    assert unit.types[0] is kind
    assert unit.is_heartbeat is (kind is VEventType.HEARTBEAT)


@pytest.mark.parametrize(
    ("events", "message"),
    [
        ([ev(C)], "COMMIT event before its BEGIN"),
        ([ev(B), ev(R), ev(B)], "second BEGIN"),
        ([ev(B), ev(C), ev(C)], "second COMMIT"),
        ([ev(B), ev(C), ev(B)], "BEGIN event after a COMMIT"),
    ],
)
def test_broken_framing_is_a_retriable_protocol_error(events: list[Any], message: str) -> None:
    with pytest.raises(StreamProtocolError, match=message):
        UnitAssembler().feed(events)


@pytest.mark.parametrize(
    "prefix",
    [[ev(B), ev(F)], [ev(B), ev(F), vgtid("g")], [ev(VEventType.COPY_COMPLETED), ev(B), ev(F)]],
)
def test_a_repeated_begin_during_a_copy_drops_the_unfinished_prefix(prefix: list[Any]) -> None:
    a = UnitAssembler()
    assert a.feed(prefix) == []
    (unit,) = a.feed([ev(B), ev(F), ev(R), vgtid("g2"), ev(C)])
    assert unit.types == (B, F, R, VEventType.VGTID, C)
