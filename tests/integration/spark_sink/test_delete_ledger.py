"""The delete ledger on a real local[2] Spark and real Kafka: after a hard delete or a truncate, a replayed older
insert or update of the removed key stays out of the table, a newer one comes back in; the batch's items are one
append, and compaction keeps only what still guards (the entries the table's own position guard covers again go)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.integration.spark_sink.debezium_records import Table
from tests.integration.spark_sink.support import (
    ID_V_FIELDS,
    Kafka,
    deleted_column,
    format_settings,
    ledger_items,
    one_table,
    rows,
    run_job,
    send_change,
    table_rows,
)

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def test_replayed_older_changes_do_not_revive_deleted_or_truncated_rows(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str, table_format: str
) -> None:
    from spark_sink.config import SinkConfig, TableConfig

    hard = Table(unique_name, "public", "hard", ID_V_FIELDS, ["id"])
    trunc = Table(unique_name, "public", "trunc", ID_V_FIELDS, ["id"])
    soft = Table(unique_name, "public", "soft", ID_V_FIELDS, ["id"])
    kafka = Kafka(kafka_bootstrap)
    for t in (hard, trunc, soft):
        kafka.create(t.topic)
    wh = tmp_path / "warehouse"
    config = SinkConfig(
        bootstrap_servers=kafka_bootstrap,
        topic_pattern=f"{unique_name}\\.public\\..*",
        warehouse=str(wh),
        checkpoint=str(tmp_path / "checkpoint"),
        table_name_template="{table}",
        query_name=f"q_{unique_name}",
        tables={soft.topic: TableConfig(delete_mode="soft")},
        **format_settings(table_format, unique_name),
    )

    def send(tbl: Table, op: str, lsn: int, row_id: int, v: str = "") -> None:
        send_change(kafka, tbl, op, lsn, row_id, v, tombstone=True)

    def truncate(tbl: Table, lsn: int) -> None:
        kafka.send(tbl.topic, None, tbl.value_bytes("t", lsn))

    def table(tbl: Table) -> dict[int, tuple[str, bool | None]]:
        got = table_rows(spark, config, tbl.table)  # a truncate-only batch creates no data columns
        return {r["id"]: (r["v"], r.get(deleted_column(config))) for r in got}

    def ledger(tbl: Table, stored: bool = False) -> list[tuple[Any, int, str]]:
        return ledger_items(spark, wh, tbl.table, stored=stored)

    # batch 1: key 1 inserted and deleted in the same batch; keys 2 and 3 inserted; in `trunc` and `soft` an insert
    # and a later truncate in the same batch (the plan drops the insert: no row ever carries its position)
    send(hard, "c", 100, 1, "one")
    send(hard, "d", 200, 1)
    send(hard, "c", 110, 2, "two")
    send(hard, "c", 120, 3, "three")
    for t in (trunc, soft):
        send(t, "c", 100, 1, "pre")
        truncate(t, 200)
    kafka.flush()
    run_job(spark, config)
    assert table(hard) == {2: ("two", None), 3: ("three", None)}
    assert ledger(hard) == [(1, 200, "d")]
    assert table(trunc) == {} and table(soft) == {}

    # batch 2: key 2 deleted; replays of key 1's insert and of an older update; replays of the truncated inserts
    send(hard, "d", 210, 2)
    send(hard, "c", 100, 1, "one")
    send(hard, "u", 150, 1, "one-updated")
    for t in (trunc, soft):
        send(t, "c", 100, 1, "pre")
    kafka.flush()
    run_job(spark, config)
    assert table(hard) == {3: ("three", None)}  # key 1 stays deleted
    assert ledger(hard) == [(1, 200, "d"), (2, 210, "d")]
    assert ledger(hard, stored=True) == [(1, 200, "d"), (2, 210, "d")]  # appended, one item per delete
    assert table(trunc) == {} and table(soft) == {}
    assert ledger(trunc) == [(None, 200, "t")] and ledger(soft) == [(None, 200, "t")]

    # batch 3: key 2's insert replayed (stays out); key 1 inserted anew (newer than its delete: comes back, and the
    # ledger says so); key 3 deleted; newer truncated-table rows
    send(hard, "c", 110, 2, "two")
    send(hard, "c", 300, 1, "one-again")
    send(hard, "d", 320, 3)
    for t in (trunc, soft):
        send(t, "c", 300, 1, "post")
    kafka.flush()
    processor = run_job(spark, config)
    assert table(hard) == {1: ("one-again", None)}
    assert ledger(hard) == [(2, 210, "d"), (1, 300, "c"), (3, 320, "d")]
    assert table(trunc) == {1: ("post", None)} and table(soft) == {1: ("post", False)}

    # compaction keeps what still guards: key 1's delete (covered by its row again) goes, the truncates stay
    processor.ledger.compact(None)
    assert ledger(hard, stored=True) == [(2, 210, "d"), (3, 320, "d")]
    assert ledger(trunc, stored=True) == [(None, 200, "t")] and ledger(soft, stored=True) == [(None, 200, "t")]

    # batch 4, after the compaction: the replays stay out, key 1 keeps its row
    send(hard, "c", 110, 2, "two")
    send(hard, "c", 120, 3, "three")
    send(hard, "u", 250, 1, "one-stale")
    kafka.flush()
    run_job(spark, config)
    assert table(hard) == {1: ("one-again", None)}


def test_scd2_changes_replayed_from_before_a_truncate_add_no_version(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str, table_format: str
) -> None:
    """A truncate cuts the changes before it in its batch and closes the stored versions; the ledger keeps its
    position, so the same changes re-sent later (a worker's replay after a restart) add no version either."""
    from spark_sink.config import TableConfig

    topic = Table(unique_name, "public", "hist", ID_V_FIELDS, ["id"]).topic
    settings = format_settings(table_format, unique_name)
    one = one_table("hist", tmp_path, unique_name, kafka_bootstrap, tables={topic: TableConfig(scd2=True)}, **settings)

    def versions() -> list[tuple[int, str, bool]]:
        return [(r["id"], r["v"], r["is_current"]) for r in table_rows(spark, one.config, "hist", "_cdc_pos")]

    one.send("c", 100, 1, "one", ts_ms=1_000_000)
    one.kafka.flush()
    run_job(spark, one.config)
    assert versions() == [(1, "one", True)]

    # key 1 updated and key 2 inserted, then the table truncated, in one batch: the truncate cuts both changes
    # and closes key 1's version
    one.send("u", 150, 1, "one-updated", ts_ms=1_500_000)
    one.send("c", 160, 2, "two", ts_ms=1_600_000)
    one.kafka.send(one.table.topic, None, one.table.value_bytes("t", 200, ts_ms=2_000_000))
    one.kafka.flush()
    run_job(spark, one.config)
    assert versions() == [(1, "one", False)]
    assert ledger_items(spark, one.warehouse, "hist") == [(None, 200, "t")]

    # the worker sends the cut changes again, then a newer insert: only the newer one adds a version
    one.send("u", 150, 1, "one-updated", ts_ms=1_500_000)
    one.send("c", 160, 2, "two", ts_ms=1_600_000)
    one.send("c", 300, 3, "three", ts_ms=3_000_000)
    one.kafka.flush()
    run_job(spark, one.config)
    assert versions() == [(1, "one", False), (3, "three", True)]


def test_a_stream_newer_than_the_ledger_skips_reading_it_and_replays_are_still_guarded(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str, table_format: str
) -> None:
    """Batches whose changes of a table are all newer than what the ledger holds for it are applied without
    reading the ledger (the steady stream), also when they bring back a deleted key (its delete entry stays until
    compaction finds the row); a batch with an older change reads it again, within the same job and after a restart
    (which learns the ledger's newest position from the ledger itself)."""
    one = one_table("fast", tmp_path, unique_name, kafka_bootstrap, **format_settings(table_format, unique_name))
    tbl, kafka, wh, config, send = one.table, one.kafka, one.warehouse, one.config, one.send

    def table() -> dict[int, str]:
        return {r["id"]: r["v"] for r in table_rows(spark, config, tbl.table)}

    reads: list[int] = []  # the batches' ledger reads (the guard's, the items')

    def counting(processor: Any) -> Any:
        ledger = processor.ledger
        read = ledger._read

        def counted_read(tables: Any) -> Any:
            reads.append(1)
            return read(tables)

        ledger._read = counted_read
        return processor

    def batch(processor: Any = None) -> tuple[Any, int]:
        before = len(reads)
        kafka.flush()
        if processor is None:
            from spark_sink.job import make_processor

            processor = counting(make_processor(spark, config))
        return run_job(spark, config, processor=processor), len(reads) - before

    send("c", 100, 1, "one")
    send("c", 110, 2, "two")
    send("d", 200, 1)
    job, _ = batch()
    assert table() == {2: "two"} and ledger_items(spark, wh, "fast") == [(1, 200, "d")]

    # newer than the ledger: key 1 comes back, key 2 updated, without reading the ledger; key 1's delete stays (its
    # row, newer, guards all it does)
    send("c", 300, 1, "one-again")
    send("u", 310, 2, "two-updated")
    job, read = batch(job)
    assert read == 0
    assert table() == {1: "one-again", 2: "two-updated"}
    assert ledger_items(spark, wh, "fast") == [(1, 200, "d")]

    send("d", 400, 2)
    job, read = batch(job)
    assert read == 0 and table() == {1: "one-again"}
    assert ledger_items(spark, wh, "fast") == [(1, 200, "d"), (2, 400, "d")]

    # a replay older than the ledger's newest: guarded against it (without the ledger key 2 would come back); the
    # guard that reads the ledger records that key 1's change (newer than its delete) brings it back
    send("c", 110, 2, "two")
    send("u", 250, 1, "one-stale")
    job, read = batch(job)
    assert read > 0 and table() == {1: "one-again"}
    assert ledger_items(spark, wh, "fast") == [(1, 250, "c"), (2, 400, "d")]

    # a restarted job learns the ledger's newest position: a change newer than everything it applied before the
    # delete of key 2 but older than that delete still stays out
    send("c", 350, 2, "two-stale")
    restarted, _ = batch()
    assert table() == {1: "one-again"}

    # and newer than everything: applied without a read again
    send("c", 500, 2, "two-new")
    restarted, read = batch(restarted)
    assert read == 0 and table() == {1: "one-again", 2: "two-new"}
    assert ledger_items(spark, wh, "fast") == [(1, 250, "c"), (2, 400, "d")]
    # compaction finds key 2's row back (newer than its delete): nothing of the table guards any more
    restarted.ledger.compact(None)
    assert ledger_items(spark, wh, "fast", stored=True) == []

    # the bound an append sets is the newest position of its batch, not the oldest: a change between the two that
    # is older than a delete the batch recorded is still guarded against it
    send("c", 600, 3, "three")
    send("d", 650, 3)
    restarted, read = batch(restarted)
    assert read == 0 and table() == {1: "one-again", 2: "two-new"}
    send("c", 620, 3, "three-stale")
    _, read = batch(restarted)
    assert read > 0 and table() == {1: "one-again", 2: "two-new"}


def test_ledger_entries_expire_after_the_retention(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str
) -> None:
    """`delete_ledger_retention`: a delete older (by source time) than the retention is not recorded, and recorded
    entries that grow older are dropped in the next ledger write; younger ones stay and keep guarding."""
    import time

    one = one_table("kept", tmp_path, unique_name, kafka_bootstrap, delete_ledger_retention="1 minutes")
    kafka, wh, config = one.kafka, one.warehouse, one.config
    now_ms = int(time.time() * 1000)
    young_ms = now_ms - 30_000
    clock = [now_ms / 1000]  # the job's clock: the retention counts from it

    def send(op: str, lsn: int, row_id: int, ts_ms: int) -> None:
        one.send(op, lsn, row_id, ts_ms=ts_ms)

    for row_id in (1, 2, 3):
        send("c", 100 + row_id, row_id, now_ms - 600_000)
    send("d", 200, 1, now_ms - 300_000)  # five minutes ago: past the retention already, never recorded
    send("d", 210, 2, young_ms)  # thirty seconds ago: recorded
    kafka.flush()
    run_job(spark, config, clock=lambda: clock[0])
    assert ledger_items(spark, wh, "kept", stored=True) == [(2, 210, "d")]

    clock[0] = (young_ms + 61_000) / 1000  # a minute later: 2's entry is past the retention
    send("d", 300, 3, now_ms)
    send("c", 101, 1, now_ms - 600_000)  # a replay older than the retention: nothing guards it any more
    kafka.flush()
    processor = run_job(spark, config, clock=lambda: clock[0])
    # 2's entry is stored until the next compaction (it no longer guards); 3's delete is recorded
    assert [(i, p) for i, p, kind in ledger_items(spark, wh, "kept") if kind == "d"] == [(2, 210), (3, 300)]
    assert [(r["id"], r["v"]) for r in rows(spark, str(wh / "kept"))] == [(1, "v101")]
    processor.ledger.compact(processor._expire_before_ms())
    assert ledger_items(spark, wh, "kept", stored=True) == [(3, 300, "d")]  # 2's entry expired


def test_a_ledger_of_the_earlier_layout_is_imported_and_compaction_runs_by_itself(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A per-table ledger of the earlier layout (`_cdc_deletes/<table>`, typed key columns) keeps guarding: the job
    imports it the first time it meets the table, then removes it. Every COMPACT_EVERY batches the job compacts."""
    import datetime as dt

    from pyspark.sql import types as T

    from spark_sink.delta import deletes

    one = one_table("old", tmp_path, unique_name, kafka_bootstrap)
    kafka, wh, config, send = one.kafka, one.warehouse, one.config, one.send
    legacy = wh / "_cdc_deletes" / "old"
    schema = T.StructType(
        [
            T.StructField("id", T.IntegerType(), True),
            *[T.StructField(c, T.LongType(), False) for c in ("_cdc_epoch", "_cdc_pos", "_cdc_seq")],
            T.StructField("_cdc_source_ts", T.TimestampType(), True),
            T.StructField("_cdc_truncate", T.BooleanType(), False),
        ]
    )
    stamp = dt.datetime(2026, 1, 1)
    rows_then = [(1, 0, 200, 0, stamp, False), (None, 0, 50, 0, stamp, True)]
    spark.createDataFrame(rows_then, schema).write.format("delta").save(str(legacy))

    send("c", 100, 1)  # a replay older than the imported delete: stays out
    send("c", 110, 2)
    kafka.flush()
    run_job(spark, config)
    assert [(r["id"], r["v"]) for r in rows(spark, str(wh / "old"))] == [(2, "v110")]
    assert not legacy.exists()
    assert ledger_items(spark, wh, "old") == [(None, 50, "t"), (1, 200, "d")]

    monkeypatch.setattr(deletes, "COMPACT_EVERY", 1)  # every batch id is a compaction's
    send("c", 300, 1)  # key 1 comes back: its delete no longer guards anything
    send("d", 310, 2)
    kafka.flush()
    run_job(spark, config)
    assert [(r["id"], r["v"]) for r in rows(spark, str(wh / "old"))] == [(1, "v300")]
    assert ledger_items(spark, wh, "old", stored=True) == [(None, 50, "t"), (2, 310, "d")]


def test_compaction_keeps_the_deletes_of_a_table_it_cannot_read(
    spark: Any, tmp_path: Path, unique_name: str, kafka_bootstrap: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Compaction looks for the rows of keys that came back in the tables themselves; a table it cannot read (here:
    removed from the warehouse behind the job's back) keeps its deletes, which still guard, and the other work of
    the compaction is done."""
    import shutil

    one = one_table("gone", tmp_path, unique_name, kafka_bootstrap)
    send = one.send
    send("c", 100, 1)
    send("c", 110, 2)
    send("d", 200, 1)
    one.kafka.flush()
    processor = run_job(spark, one.config)
    send("c", 300, 1)  # comes back, newer than everything the ledger holds: its delete stays until compaction
    send("d", 310, 2)
    one.kafka.flush()
    processor = run_job(spark, one.config, processor=processor)
    send("c", 400, 2)
    send("d", 410, 2)  # key 2's second delete: compaction keeps only the newer
    one.kafka.flush()
    processor = run_job(spark, one.config, processor=processor)
    assert ledger_items(spark, one.warehouse, "gone", stored=True) == [(1, 200, "d"), (2, 310, "d"), (2, 410, "d")]
    shutil.rmtree(one.warehouse / "gone")
    with caplog.at_level("WARNING", logger="spark_sink"):
        processor.ledger.compact(None)
    assert "table gone cannot be read" in caplog.text
    assert ledger_items(spark, one.warehouse, "gone", stored=True) == [(1, 200, "d"), (2, 410, "d")]


@pytest.fixture
def delta_stats(spark: Any) -> Iterator[None]:
    """Delta's file statistics collected on write (Delta's default; the tests' session turns them off, conftest.py)."""
    key = "spark.databricks.delta.stats.collect"
    before = spark.conf.get(key)
    spark.conf.set(key, "true")
    yield
    spark.conf.set(key, before)


def test_compaction_reads_only_the_table_files_newer_than_its_oldest_delete(
    spark: Any, delta_stats: None, tmp_path: Path, unique_name: str, kafka_bootstrap: str
) -> None:
    """Compaction looks for the keys that came back among the rows at or after the table's oldest recorded delete,
    by a filter on the position columns: Delta skips the files of older rows by their statistics. Here those files
    are made unreadable; compaction still finds the key that came back (reading them would fail it)."""
    from pyspark.sql import functions as F

    one = one_table("big", tmp_path, unique_name, kafka_bootstrap)
    send = one.send
    for key, lsn in ((1, 100), (2, 110), (3, 120)):
        send("c", lsn, key)
    one.kafka.flush()
    processor = run_job(spark, one.config)
    send("d", 300, 3)
    one.kafka.flush()
    processor = run_job(spark, one.config, processor=processor)
    send("c", 400, 3)  # comes back (newer than all the ledger holds: its delete stays until compaction)
    one.kafka.flush()
    processor = run_job(spark, one.config, processor=processor)
    assert ledger_items(spark, one.warehouse, "big", stored=True) == [(3, 300, "d")]

    table = spark.read.format("delta").load(str(one.warehouse / "big"))
    newest = table.groupBy(F.input_file_name().alias("file")).agg(F.max("_cdc_pos").alias("pos")).collect()
    older = [r["file"] for r in newest if r["pos"] < 300]
    assert older and len(older) < len(newest)  # the rows of keys 1 and 2 (older files), key 3's in a newer one
    for file in older:
        Path(file.removeprefix("file:")).write_bytes(b"not parquet")

    processor.ledger.compact(None)
    assert ledger_items(spark, one.warehouse, "big", stored=True) == []
