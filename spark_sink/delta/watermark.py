"""The applied-through watermark of a table without a primary key: the newest source position the sink applied.

Rows of a keyless table are identified by their whole content and counted (`_cdc_count`), so a change applied twice
would count twice; the MERGE guard of keyed tables (the position stored in the row) cannot help, as a deleted row
takes its position with it. The watermark can: a change is applied only when it is newer than the watermark. That
is exact as long as the table's changes reach the sink in source order, which one Kafka partition guarantees (the
planner refuses keyless changes from any other partition). A one-row Delta table at
`<warehouse>/_cdc_watermarks/<table>`, rewritten once per micro-batch (Delta `txnAppId`/`txnVersion`)."""

from __future__ import annotations

from delta.tables import DeltaTable
from pyspark.sql import SparkSession
from pyspark.sql import types as T

from spark_sink.delta.order import COLUMNS
from spark_sink.position import SourcePosition

SCHEMA = T.StructType([T.StructField(c, T.LongType(), False) for c in COLUMNS])


def read(spark: SparkSession, path: str) -> SourcePosition | None:
    if not DeltaTable.isDeltaTable(spark, path):
        return None
    row = spark.read.format("delta").load(path).first()
    return None if row is None else SourcePosition(*(int(row[c]) for c in COLUMNS))


def write(spark: SparkSession, path: str, position: SourcePosition, app_id: str, batch_id: int) -> None:
    (
        spark.createDataFrame([(position.epoch, position.major, position.seq)], SCHEMA)
        .write.format("delta")
        .mode("overwrite")
        .option("txnAppId", app_id)
        .option("txnVersion", batch_id)
        .save(path)
    )
