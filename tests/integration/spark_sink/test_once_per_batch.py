"""At most once per (writer, micro-batch id), for both table formats: a non-idempotent write (the keyless tables'
counted MERGE adds to `_cdc_count`) run again under the same writer and batch id, as a batch replayed after a crash
between it and the watermark would, changes nothing; a new batch id, or another writer, writes again. Delta skips
the commit itself (`txnAppId`/`txnVersion`); Iceberg finds the batch id in its snapshots' summaries."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.integration.spark_sink.support import format_settings

pytestmark = [pytest.mark.integration, pytest.mark.spark]


def test_a_write_replayed_under_the_same_batch_id_applies_once(
    spark: Any, tmp_path: Path, unique_name: str, table_format: str
) -> None:
    from pyspark.sql import types as T

    from spark_sink.config import SinkConfig
    from spark_sink.table_format import for_config

    config = SinkConfig(warehouse=str(tmp_path / "wh"), **format_settings(table_format, unique_name))
    fmt = for_config(config)
    fmt.prepare_session(spark)
    ref = fmt.ref("counted")
    schema = T.StructType([T.StructField("id", T.IntegerType()), T.StructField("n", T.LongType())])
    fmt.create(spark, ref, schema, fmt.creation_defaults(), ())
    spark.sql(f"INSERT INTO {ref.sql} VALUES (1, 0)")

    def add_one(writer: str, batch_id: int) -> None:
        with fmt.once_per_batch(spark, ref, writer, batch_id) as first:
            if first:
                spark.sql(f"UPDATE {ref.sql} SET n = n + 1 WHERE id = 1")

    def count() -> int:
        row = fmt.read(spark, ref).first()
        assert row is not None
        return int(row["n"])

    add_one("writer-a", 3)
    assert count() == 1
    add_one("writer-a", 3)  # the replay
    assert count() == 1
    add_one("writer-a", 2)  # an older batch of the same writer: also done already
    assert count() == 1
    add_one("writer-a", 4)
    add_one("writer-b", 3)  # another writer's ids are its own
    assert count() == 3
