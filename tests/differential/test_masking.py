"""The differential harness's masking and comparison helpers, on the stored golden captures (no services)."""

from __future__ import annotations

import copy
from pathlib import Path

from tests.differential.debezium import (
    MASK,
    CapturedRecord,
    compare_records,
    dumps,
    java_partition,
    loads,
    mask_offset_record,
    mask_record,
    read_jsonl,
)
from tests.differential.dual import NORMALISED_PREFIX, DualRun, Scenario, Side

GOLDEN = Path(__file__).resolve().parent / "golden"


def test_dumps_keeps_order_and_float_literals() -> None:
    text = '{"b":1.0E10,"a":[1,-0.5,"\\u00e9",null,true],"c":{"z":1.1}}'
    assert dumps(loads(text)) == '{"b":1.0E10,"a":[1,-0.5,"é",null,true],"c":{"z":1.1}}'


def test_mask_record_masks_only_volatile_fields() -> None:
    key = b'{"schema":null,"payload":{"id":1}}'
    value = (
        b'{"schema":null,"payload":{"before":null,"after":{"id":1,"ts_ms":5},"source":{"version":"3.6.3.Final",'
        b'"ts_ms":1,"txId":7,"lsn":9,"sequence":"[null,\\"9\\"]","xmin":null},"transaction":{"id":"7:9",'
        b'"total_order":1,"data_collection_order":1},"op":"c","ts_ms":2,"ts_us":3,"ts_ns":4}}'
    )
    rec = CapturedRecord("p.public.t", 0, 0, key, value, (("__debezium.context.runId", b"x"), ("h", b"v")), 0)
    view = mask_record(rec, normalise={"p.": "q."})
    payload = view["value"]["payload"]
    assert view["topic"] == "q.public.t"
    assert view["key"] == key.decode()
    assert payload["after"] == {"id": 1, "ts_ms": 5}  # a column called ts_ms is data
    assert [payload[k] for k in ("ts_ms", "ts_us", "ts_ns")] == [MASK] * 3
    assert payload["source"] == {
        "version": "3.6.3.Final", "ts_ms": MASK, "txId": MASK, "lsn": MASK, "sequence": MASK, "xmin": None,
    }  # fmt: skip
    assert payload["transaction"] == {"id": MASK, "total_order": 1, "data_collection_order": 1}
    assert view["headers"] == [["__debezium.context.runId", MASK], ["h", "v"]]


def test_offset_record_masking() -> None:
    rec = CapturedRecord(
        "o", 3, 0, b'["c",{"server":"c"}]', b'{"lsn":1,"txId":2,"ts_usec":3,"messageType":"COMMIT"}', (), 0
    )
    view = mask_offset_record(rec)
    assert view["key"] == '["c",{"server":"c"}]'
    assert view["value"] == {"lsn": MASK, "txId": MASK, "ts_usec": MASK, "messageType": "COMMIT"}
    assert java_partition(b'["inventory",{"server":"dbserver1"}]', 25) == 3  # spec §2


def test_compare_records_on_golden() -> None:
    rows = read_jsonl(GOLDEN / "pg_customers.data.jsonl")
    assert rows and compare_records(rows, copy.deepcopy(rows)) == []
    changed = copy.deepcopy(rows)
    changed[1]["key"] = changed[1]["key"].replace('"id":2', '"id": 2')  # one byte more in the key
    changed[2]["value"]["payload"] = dict(reversed(list(changed[2]["value"]["payload"].items())))  # field order
    diffs = compare_records(rows, changed)
    assert len(diffs) == 2
    assert "record 1" in diffs[0] and "key" in diffs[0]
    assert "record 2" in diffs[1] and "value" in diffs[1]
    assert compare_records(rows, changed[:-1])[0].startswith("record count")


def _dual_run(debezium: list[CapturedRecord], ours: list[CapturedRecord]) -> DualRun:
    scenario = Scenario(name="s", tables=(), setup=(), snapshot_records=0)
    topic = f"{NORMALISED_PREFIX}.public.t"  # a side's topics are held by their normalised names
    return DualRun(scenario, Side("dz", {topic: debezium}), Side("cw", {topic: ours}))


def test_dual_runs_compare_what_the_masks_hide_from_the_wal_exactly() -> None:
    """Two streamed events alike but for the masked `sequence`: the dual comparison still tells them apart; a
    snapshot read (its LSN is each side's own slot position) is left to the masks."""

    def event(prefix: str, sequence: str, snapshot: str = "false") -> CapturedRecord:
        value = (
            '{"schema":null,"payload":{"before":null,"after":{"id":1},"source":{"version":"3.6.3.Final",'
            f'"ts_ms":1,"snapshot":"{snapshot}","txId":7,"lsn":9,"sequence":"{sequence}","xmin":null}},'
            '"transaction":{"id":"7:8","total_order":1,"data_collection_order":1},"op":"c","ts_ms":2}}'
        )
        return CapturedRecord(f"{prefix}.public.t", 0, 0, b'{"id":1}', value.encode(), (), 0)

    same = _dual_run([event("dz", '[\\"5\\",\\"9\\"]')], [event("cw", '[\\"5\\",\\"9\\"]')])
    assert same.differences() == []
    other = _dual_run([event("dz", '[\\"5\\",\\"9\\"]')], [event("cw", '[\\"6\\",\\"9\\"]')])
    (line,) = other.differences()
    assert "WAL-derived fields" in line and '["5","9"]' in line and '["6","9"]' in line
    reads = _dual_run([event("dz", '[null,\\"9\\"]', "true")], [event("cw", '[\\"6\\",\\"9\\"]', "true")])
    assert reads.differences() == []
