"""The Spark job on a real local[2] Spark against real Kafka topics filled with synthetic Debezium records:
ordering by source position (not Kafka offsets), duplicates/replays, deletes, tombstones, truncate, unchanged TOAST,
type fidelity, schema evolution, an incompatible change, dead letters, soft deletes, SCD2 and a crash mid-batch
followed by a restart from the checkpoint."""

from __future__ import annotations

import datetime as dt
import json
import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from tests.integration.spark_sink.debezium_records import PLACEHOLDER, Table, decimal_b64, f
from tests.integration.spark_sink.support import (
    Kafka,
    deleted_column,
    format_settings,
    rows,
    run_job,
    table_frame,
    table_rows,
)

pytestmark = [pytest.mark.integration, pytest.mark.spark]

ITEM_FIELDS = [
    f("id", "int32", False),
    f("name", "string"),
    f(
        "price",
        "bytes",
        True,
        "org.apache.kafka.connect.data.Decimal",
        parameters={"scale": "2", "connect.decimal.precision": "10"},
    ),
    f(
        "amount",
        "struct",
        True,
        "io.debezium.data.VariableScaleDecimal",
        fields=[f("scale", "int32", False), f("value", "bytes", False)],
    ),
    f("born", "int32", True, "io.debezium.time.Date"),
    f("seen", "string", True, "io.debezium.time.ZonedTimestamp"),
    f("local_ts", "int64", True, "io.debezium.time.MicroTimestamp"),
    f("at_time", "int64", True, "io.debezium.time.MicroTime"),
    f("doc", "string", True, "io.debezium.data.Json"),
    f("uid", "string", True, "io.debezium.data.Uuid"),
    f("mood", "string", True, "io.debezium.data.Enum", parameters={"allowed": "happy,sad"}),
    f("tags", "array", True, items={"type": "string", "optional": True}),
    f(
        "geom",
        "struct",
        True,
        "io.debezium.data.geometry.Geometry",
        fields=[f("wkb", "bytes", False), f("srid", "int32")],
    ),
    f("big", "string"),
    f("blob", "bytes"),
    f("dur", "int64", True, "io.debezium.time.MicroDuration"),
    f("small", "int16"),
    f("ratio", "double"),
]
WKB = bytes.fromhex("0101000000000000000000f03f0000000000000040")  # POINT(1 2)


def item(i: int, name: str, big: str = "big-1", **over: Any) -> dict[str, Any]:
    row = {
        "id": i,
        "name": name,
        "price": decimal_b64(Decimal("12.34"), 2),
        "amount": {"scale": 5, "value": "BMsv"},  # 3.14159 (Appendix A)
        "born": 19724,  # 2024-01-02
        "seen": "2024-01-02T03:04:05.123456Z",
        "local_ts": 1529507596945104,  # 2018-06-20 15:13:16.945104
        "at_time": 3723004005,  # 01:02:03.004005
        "doc": '{"k": 1}',
        "uid": "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11",
        "mood": "happy",
        "tags": ["a", "b"],
        "geom": {"wkb": "AQEAAAAAAAAAAADwPwAAAAAAAABA", "srid": 4326},
        "big": big,
        "blob": "AQID",
        "dur": 90061000000,
        "small": 7,
        "ratio": 0.5,
    }
    row.update(over)
    return row


@pytest.fixture
def setup(tmp_path: Path, unique_name: str, kafka_bootstrap: str, table_format: str) -> dict[str, Any]:
    from spark_sink.config import SinkConfig, TableConfig

    prefix = unique_name
    tables = {
        "items": Table(prefix, "public", "items", ITEM_FIELDS, ["id"]),
        "trunc": Table(prefix, "public", "trunc", [f("id", "int32", False), f("v", "string")], ["id"]),
        "evolve": Table(prefix, "public", "evolve", [f("id", "int32", False), f("v", "int32")], ["id"]),
        "soft": Table(prefix, "public", "soft", [f("id", "int32", False), f("v", "string")], ["id"]),
        "hist": Table(prefix, "public", "hist", [f("id", "int32", False), f("v", "string")], ["id"]),
        "loose": Table(prefix, "public", "loose", [f("id", "int32", False), f("v", "string")], ["id"]),
    }
    kafka = Kafka(kafka_bootstrap)
    kafka.create(tables["items"].topic, partitions=2)
    for name in ("trunc", "evolve", "soft", "hist", "loose"):
        kafka.create(tables[name].topic)
    config = SinkConfig(
        bootstrap_servers=kafka_bootstrap,
        topic_pattern=f"{prefix}\\.public\\..*",
        warehouse=str(tmp_path / "warehouse"),
        checkpoint=str(tmp_path / "checkpoint"),
        table_name_template="{table}",
        query_name=f"q_{prefix}",
        max_offsets_per_trigger=1000,
        tables={
            tables["soft"].topic: TableConfig(delete_mode="soft"),
            tables["hist"].topic: TableConfig(scd2=True),
        },
        **format_settings(table_format, prefix),
    )
    return {"tables": tables, "kafka": kafka, "config": config, "wh": tmp_path / "warehouse", "format": table_format}


def _delta_txn_app_ids(table: Path) -> set[str]:
    """The txnAppId values a Delta table's log records (its idempotent writers)."""
    out = set()
    for commit in sorted((table / "_delta_log").glob("*.json")):
        for line in commit.read_text().splitlines():
            action = json.loads(line)
            if "txn" in action:
                out.add(action["txn"]["appId"])
    return out


def test_cdc_semantics_end_to_end_on_kafka(spark: Any, setup: dict[str, Any]) -> None:
    t, kafka, config, wh = setup["tables"], setup["kafka"], setup["config"], setup["wh"]
    items, trunc, evolve, soft, hist, loose = (t[n] for n in ("items", "trunc", "evolve", "soft", "hist", "loose"))

    def send(tbl: Table, op: str, lsn: int, row: dict[str, Any], partition: int = 0, **kw: Any) -> None:
        after = None if op == "d" else row
        before = {k: row[k] for k in tbl.key} if op == "d" else None
        schemas = kw.pop("schemas", True)
        kafka.send(
            tbl.topic,
            tbl.key_bytes(row, schemas),
            tbl.value_bytes(op, lsn, after, before, schemas=schemas, **kw),
            partition,
        )

    # ---- round 1 --------------------------------------------------------------------------------------------
    send(items, "r", 100, item(1, "a", big="big-0"))
    send(items, "u", 200, item(1, "b", big="big-1"))
    send(items, "u", 300, item(1, "c", big=PLACEHOLDER))  # unchanged TOAST: keeps big-1 from lsn 200
    send(items, "c", 150, item(2, "x"), partition=1)
    send(items, "d", 250, item(2, "x"), partition=1)
    kafka.send(items.topic, items.key_bytes({"id": 2}), None, partition=1)  # tombstone
    # key 3: the newer change sits at the lower Kafka offset; the source position must win
    send(items, "u", 500, item(3, "newest"), partition=1)
    send(items, "c", 400, item(3, "older"), partition=1)
    kafka.send(items.topic, items.key_bytes({"id": 9}), b"{not json", partition=0)  # dead letter: decode
    bad_price = item(8, "bad", price="!!!")
    send(items, "c", 510, bad_price)  # dead letter: invalid base64 decimal
    for i, lsn in ((1, 100), (2, 110)):
        send(trunc, "c", lsn, {"id": i, "v": "pre"})
    kafka.send(trunc.topic, None, trunc.value_bytes("t", 200), 0)
    send(trunc, "c", 300, {"id": 3, "v": "post"})
    send(evolve, "c", 100, {"id": 1, "v": 10})
    send(soft, "c", 100, {"id": 1, "v": "keep"})
    send(soft, "c", 110, {"id": 2, "v": "gone"})
    send(soft, "d", 200, {"id": 2, "v": "gone"})
    send(hist, "c", 100, {"id": 1, "v": "v1"}, ts_ms=1_000_000)
    send(hist, "u", 200, {"id": 1, "v": "v2"}, ts_ms=2_000_000)
    send(loose, "c", 100, {"id": 1, "v": "schemaless"}, schemas=False)
    kafka.flush()

    started = time.monotonic()
    processor = run_job(spark, config)
    first_run_s = time.monotonic() - started

    got = {r["id"]: r for r in table_rows(spark, config, "items")}
    assert sorted(got) == [1, 3]
    one = got[1]
    assert one["name"] == "c" and one["big"] == "big-1"
    assert one["_cdc_pos"] == 300 and one["_cdc_op"] == "u"
    assert got[3]["name"] == "newest" and got[3]["_cdc_pos"] == 500
    # type fidelity
    assert one["price"] == Decimal("12.34")
    assert one["amount"] == Decimal("3.14159")
    assert one["born"] == dt.date(2024, 1, 2)
    assert one["local_ts"] == dt.datetime(2018, 6, 20, 15, 13, 16, 945104)
    assert one["at_time"] == "01:02:03.004005"
    assert one["doc"] == '{"k": 1}' and one["mood"] == "happy" and one["uid"].startswith("a0eebc99")
    assert one["tags"] == ["a", "b"]
    assert bytes(one["geom"]["wkb"]) == WKB and one["geom"]["srid"] == 4326
    assert bytes(one["blob"]) == b"\x01\x02\x03" and one["dur"] == 90061000000 and one["small"] == 7
    schema = {fld.name: fld.dataType.simpleString() for fld in table_frame(spark, config, "items").schema}
    assert schema["price"] == "decimal(10,2)" and schema["amount"] == "decimal(38,18)"
    assert schema["born"] == "date" and schema["seen"] == "timestamp" and schema["local_ts"] == "timestamp_ntz"
    assert schema["geom"] == "struct<wkb:binary,srid:int>"
    assert schema["small"] == ("smallint" if setup["format"] == "delta" else "int")  # Iceberg has no 16-bit int
    seen = (
        table_frame(spark, config, "items")
        .where("id = 1")
        .selectExpr("date_format(seen, 'yyyy-MM-dd HH:mm:ss.SSSSSS') AS s")
        .first()["s"]
    )
    assert seen == "2024-01-02 03:04:05.123456"  # session time zone is UTC

    assert [(r["id"], r["v"]) for r in table_rows(spark, config, "trunc")] == [(3, "post")]
    softs = {r["id"]: r for r in table_rows(spark, config, "soft")}
    deleted = deleted_column(config)
    assert softs[1][deleted] is False and softs[2][deleted] is True and softs[2]["v"] == "gone"
    versions = table_rows(spark, config, "hist", "_cdc_pos")
    assert [(r["v"], r["is_current"]) for r in versions] == [("v1", False), ("v2", True)]
    assert versions[0]["valid_to"] == versions[1]["valid_from"]
    assert [(r["id"], r["v"]) for r in table_rows(spark, config, "loose")] == [(1, "schemaless")]

    dead = rows(spark, str(wh / "_dead_letter"), "offset")
    assert {(d["stage"], d["table"]) for d in dead} == {("decode", "items")}
    assert len(dead) == 2
    # the dead letters' idempotent writes are keyed by the query's id in the checkpoint, not by its name
    query_id = json.loads((Path(config.checkpoint) / "metadata").read_text())["id"]
    assert _delta_txn_app_ids(wh / "_dead_letter") == {f"{query_id}-dead-letter"}
    assert any("not JSON" in d["reason"] for d in dead) and any("base64" in d["reason"] for d in dead)
    m = processor.history[0]
    tm = m.table("items")
    assert tm is not None and tm.events == 7 and tm.changes == 3
    if setup["format"] == "delta":
        assert tm.counted and tm.inserted == 2
    else:
        assert not tm.counted  # an Iceberg MERGE reports no row counts
    assert m.dead_letters == 2 and m.skipped == 1 and m.lag_ms is not None

    # ---- round 2: replays, TOAST across batches, re-snapshot, schema evolution, incompatible change ----------
    send(items, "r", 100, item(1, "a", big="big-0"))  # replayed snapshot row: older than the table's row
    send(items, "u", 600, item(1, "d", big=PLACEHOLDER))  # TOAST across batches: big-1 stays
    send(items, "r", 450, item(3, "resnapshot-older"), partition=1)  # older than lsn 500: ignored
    send(items, "c", 150, item(2, "x"), partition=1)  # a deleted key replayed with its delete
    send(items, "d", 250, item(2, "x"), partition=1)
    with_extra = [*ITEM_FIELDS, f("extra", "string")]
    send(items, "c", 700, {**item(4, "new"), "extra": "e"}, fields=with_extra)
    kafka.send(trunc.topic, None, trunc.value_bytes("t", 200), 0)  # replayed truncate: row 3 (lsn 300) survives
    send(evolve, "u", 200, {"id": 1, "v": "ten"}, fields=[f("id", "int32", False), f("v", "string")])
    send(soft, "c", 110, {"id": 2, "v": "gone"})  # replay: stays deleted
    send(hist, "u", 200, {"id": 1, "v": "v2"}, ts_ms=2_000_000)  # replay: no new version
    send(hist, "u", 300, {"id": 1, "v": "v3"}, ts_ms=3_000_000)
    kafka.flush()
    processor = run_job(spark, config)

    got = {r["id"]: r for r in table_rows(spark, config, "items")}
    assert sorted(got) == [1, 3, 4]
    assert got[1]["name"] == "d" and got[1]["big"] == "big-1" and got[1]["_cdc_pos"] == 600
    assert got[3]["name"] == "newest"
    assert got[4]["extra"] == "e" and got[1]["extra"] is None
    assert [(r["id"], r["v"]) for r in table_rows(spark, config, "trunc")] == [(3, "post")]
    assert [r["v"] for r in table_rows(spark, config, "evolve")] == [10]  # untouched
    assert table_rows(spark, config, "soft")[1][deleted_column(config)] is True
    versions = table_rows(spark, config, "hist", "_cdc_pos")
    assert [(r["v"], r["is_current"]) for r in versions] == [("v1", False), ("v2", False), ("v3", True)]
    m = processor.history[-1]
    evolve_metrics = m.table("evolve")
    assert evolve_metrics is not None and evolve_metrics.error and "incompatible" in evolve_metrics.error
    items_metrics = m.table("items")
    assert items_metrics is not None and items_metrics.added_columns == ["extra"]
    dead = rows(spark, str(wh / "_dead_letter"), "offset")
    assert [d["stage"] for d in dead if d["table"] == "evolve"] == ["schema"]
    print(f"first available-now run: {first_run_s:.1f}s")


def test_crash_mid_batch_then_restart_neither_loses_nor_double_applies(spark: Any, setup: dict[str, Any]) -> None:
    t, kafka, config = setup["tables"], setup["kafka"], setup["config"]
    soft, trunc = t["soft"], t["trunc"]
    for i in range(1, 4):
        row = {"id": i, "v": f"v{i}"}
        kafka.send(soft.topic, soft.key_bytes(row), soft.value_bytes("c", 100 + i, row))
        kafka.send(trunc.topic, trunc.key_bytes(row), trunc.value_bytes("c", 100 + i, row))
    kafka.flush()

    class Crash(Exception):
        pass

    def crash_on_trunc(batch_id: int, table: str) -> None:
        if table == "trunc":  # "soft" runs to its end beside it (side_by_side.py): the batch is half-applied
            raise Crash("simulated kill in the middle of a batch")

    from pyspark.errors import StreamingQueryException

    with pytest.raises(StreamingQueryException, match="simulated kill"):
        run_job(spark, config, fault=crash_on_trunc)
    assert len(table_rows(spark, config, "soft")) == 3
    processor = run_job(spark, config)  # restart from the checkpoint: the batch is replayed
    m = processor.history[0]
    soft_m, trunc_m = m.table("soft"), m.table("trunc")
    assert soft_m is not None and trunc_m is not None
    if setup["format"] == "delta":  # (an Iceberg MERGE reports no counts; the guard is the same SQL)
        assert (soft_m.inserted, soft_m.updated) == (0, 0)  # guarded: not applied twice
        assert trunc_m.inserted == 3
    assert [r["v"] for r in table_rows(spark, config, "soft")] == ["v1", "v2", "v3"]
    assert [r["v"] for r in table_rows(spark, config, "trunc")] == ["v1", "v2", "v3"]

    # ---- a table failing inside a group applied side by side (default table_parallelism): the others still land,
    # its events go to the dead letter at the "apply" stage with the reason, and the batch commits ----------------
    loose = t["loose"]
    for i in range(4, 6):
        row = {"id": i, "v": f"v{i}"}
        for table in (soft, trunc, loose):
            kafka.send(table.topic, table.key_bytes(row), table.value_bytes("c", 200 + i, row))
    kafka.flush()

    def trunc_fails(batch_id: int, table: str) -> None:
        if table == "trunc":
            raise ValueError("trunc cannot be applied")

    assert config.table_parallelism > 1
    m = run_job(spark, config, fault=trunc_fails).history[-1]
    assert [(tm.table, tm.error, tm.dead_letters) for tm in m.tables] == [
        ("loose", None, 0),
        ("soft", None, 0),
        ("trunc", "ValueError: trunc cannot be applied", 2),
    ]
    assert [r["v"] for r in table_rows(spark, config, "soft")] == ["v1", "v2", "v3", "v4", "v5"]
    assert [r["v"] for r in table_rows(spark, config, "loose")] == ["v4", "v5"]
    assert [r["v"] for r in table_rows(spark, config, "trunc")] == ["v1", "v2", "v3"]
    dead = [d for d in rows(spark, str(setup["wh"] / "_dead_letter"), "offset") if d["table"] == "trunc"]
    assert [(d["stage"], d["reason"]) for d in dead] == [("apply", "ValueError: trunc cannot be applied")] * 2
