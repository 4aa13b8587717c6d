"""The transaction-consistent mode's held records (raw Kafka records), rewritten per batch, idempotently."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from delta.tables import DeltaTable
from pyspark.sql import types as T

from spark_sink.decoding.base import RawRecord

SCHEMA = T.StructType(
    [
        T.StructField("topic", T.StringType(), False),
        T.StructField("partition", T.IntegerType(), False),
        T.StructField("offset", T.LongType(), False),
        T.StructField("key", T.BinaryType(), True),
        T.StructField("value", T.BinaryType(), True),
    ]
)


def read(spark: Any, path: str) -> list[RawRecord]:
    if not DeltaTable.isDeltaTable(spark, path):
        return []
    rows = spark.read.format("delta").load(path).collect()
    return [
        RawRecord(
            r["topic"],
            r["partition"],
            r["offset"],
            None if r["key"] is None else bytes(r["key"]),
            None if r["value"] is None else bytes(r["value"]),
        )
        for r in rows
    ]


def write(spark: Any, path: str, app_id: str, batch_id: int, records: Sequence[RawRecord]) -> None:
    rows = [(r.topic, r.partition, r.offset, r.key, r.value) for r in records]
    (
        spark.createDataFrame(rows, SCHEMA)
        .write.format("delta")
        .mode("overwrite")
        .option("txnAppId", f"{app_id}-tx-pending")
        .option("txnVersion", batch_id)
        .save(path)
    )
