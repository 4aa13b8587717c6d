"""A job killed while Delta creates a table leaves `_delta_log` without a commit. On a real local[2] Spark: the next
run creates the table and its delete ledger over such leftovers (no dead letter), and a log holding any file but
hidden temporary ones, at any depth, is never removed."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest

from tests.integration.spark_sink.support import ledger_items, one_table, rows, run_job

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def aborted_log(table_path: Path, leftover: str) -> None:
    """What a kill between Delta's mkdir of the log and its version-0 commit leaves behind: Delta 4.4 makes
    `_delta_log/_staged_commits/` first (seen after a kill in the e2e test), then writes a hidden temporary file."""
    log = table_path / "_delta_log"
    (log / "_staged_commits").mkdir(parents=True)
    if leftover == "temporary_file":
        (log / ".00000000000000000000.json.5d0f7c1e-tmp").write_text('{"commitInfo":{}}')


@pytest.mark.parametrize("leftover", ["empty_directories", "temporary_file"])
def test_a_creation_killed_before_its_commit_is_redone(
    spark: Any,
    tmp_path: Path,
    unique_name: str,
    kafka_bootstrap: str,
    leftover: str,
    caplog: pytest.LogCaptureFixture,
) -> None:
    one = one_table("items", tmp_path, unique_name, kafka_bootstrap)
    wh, config = one.warehouse, one.config
    aborted_log(wh / "items", leftover)
    aborted_log(wh / "_cdc_ledger", leftover)
    one.send("c", 100, 1, "one")
    one.send("c", 110, 2, "two")
    one.send("d", 120, 2)
    one.kafka.flush()
    with caplog.at_level(logging.WARNING, logger="spark_sink"):
        run_job(spark, config)
    assert not (wh / "_dead_letter").exists()
    cleared = [r.getMessage() for r in caplog.records if "killed before its first commit" in r.getMessage()]
    assert len(cleared) == 2, cleared  # the table and its delete ledger
    assert [(r["id"], r["v"]) for r in rows(spark, str(wh / "items"))] == [(1, "one")]
    assert ledger_items(spark, wh, "items", stored=True) == [(2, 120, "d")]


def test_a_log_with_anything_committed_is_left_alone(spark: Any, tmp_path: Path) -> None:
    from pyspark.sql import types as T

    from spark_sink.delta.tables import clear_aborted_creation, create_table

    schema = T.StructType([T.StructField("id", T.LongType(), True)])
    table = tmp_path / "t"
    create_table(spark, str(table), schema)
    spark.createDataFrame([(7,)], schema).write.format("delta").mode("append").save(str(table))
    assert not clear_aborted_creation(spark, str(table))
    assert [r["id"] for r in rows(spark, str(table))] == [7]

    odd = tmp_path / "odd"  # a checksum without its commit: not ours to judge, so it stays and creation fails loudly
    (odd / "_delta_log").mkdir(parents=True)
    (odd / "_delta_log" / "00000000000000000000.crc").write_text("{}")
    assert not clear_aborted_creation(spark, str(odd))
    assert (odd / "_delta_log" / "00000000000000000000.crc").exists()
    with pytest.raises(Exception, match="DELTA_TABLE_NOT_FOUND"):
        create_table(spark, str(odd), schema)

    staged = tmp_path / "staged"  # a commit under _staged_commits/ is a file of the log: left alone as well
    (staged / "_delta_log" / "_staged_commits").mkdir(parents=True)
    (staged / "_delta_log" / "_staged_commits" / "00000000000000000000.0b6c.json").write_text("{}")
    assert not clear_aborted_creation(spark, str(staged))
    assert (staged / "_delta_log" / "_staged_commits" / "00000000000000000000.0b6c.json").exists()

    assert not clear_aborted_creation(spark, str(tmp_path / "never"))  # no log at all
