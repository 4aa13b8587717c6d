"""The transaction-consistent mode's state: held raw Kafka records and the commit LSN of the newest released
transaction, rewritten at most once per micro-batch (Delta `txnAppId`/`txnVersion`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from delta.tables import DeltaTable
from pyspark.sql import types as T

from spark_sink.decoding.base import RawRecord

RECORD, WATERMARK = "record", "released_through"
SCHEMA = T.StructType(
    [
        T.StructField("kind", T.StringType(), False),
        T.StructField("topic", T.StringType(), True),
        T.StructField("partition", T.IntegerType(), True),
        T.StructField("offset", T.LongType(), True),
        T.StructField("key", T.BinaryType(), True),
        T.StructField("value", T.BinaryType(), True),
        T.StructField("timestamp_ms", T.LongType(), True),
        T.StructField("lsn", T.LongType(), True),
    ]
)


def read(spark: Any, path: str) -> tuple[list[RawRecord], int | None]:
    if not DeltaTable.isDeltaTable(spark, path):
        return [], None
    held: list[RawRecord] = []
    through: int | None = None
    for r in spark.read.format("delta").load(path).collect():
        if r["kind"] == WATERMARK:
            through = r["lsn"]
        elif r["kind"] == RECORD:
            held.append(
                RawRecord(
                    r["topic"],
                    r["partition"],
                    r["offset"],
                    None if r["key"] is None else bytes(r["key"]),
                    None if r["value"] is None else bytes(r["value"]),
                    r["timestamp_ms"],
                )
            )
    held.sort(key=lambda raw: (raw.topic, raw.partition, raw.offset))
    return held, through


def write(
    spark: Any, path: str, app_id: str, batch_id: int, held: Sequence[RawRecord], released_through: int | None
) -> None:
    rows: list[tuple[Any, ...]] = [
        (RECORD, r.topic, r.partition, r.offset, r.key, r.value, r.timestamp_ms, None) for r in held
    ]
    if released_through is not None:
        rows.append((WATERMARK, None, None, None, None, None, None, released_through))
    (
        spark.createDataFrame(rows, SCHEMA)
        .write.format("delta")
        .mode("overwrite")
        .option("txnAppId", app_id)
        .option("txnVersion", batch_id)
        .save(path)
    )
