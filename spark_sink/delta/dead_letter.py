"""Records the sink could not apply, with the reason, appended to a Delta table. The append is idempotent per
micro-batch (Delta `txnAppId`/`txnVersion`), so a replayed batch does not duplicate its dead letters."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from spark_sink.delta.tables import union_all

SCHEMA = T.StructType(
    [
        T.StructField("topic", T.StringType(), False),
        T.StructField("partition", T.IntegerType(), False),
        T.StructField("offset", T.LongType(), False),
        T.StructField("key", T.BinaryType(), True),
        T.StructField("value", T.BinaryType(), True),
        T.StructField("table", T.StringType(), True),
        T.StructField("stage", T.StringType(), False),
        T.StructField("reason", T.StringType(), False),
        T.StructField("batch_id", T.LongType(), False),
        T.StructField("recorded_at", T.TimestampType(), False),
    ]
)


def letters_of(records: DataFrame, table: Column, stage: str, reason: Column) -> DataFrame:
    """Dead letters of decoded records (spark_sink/stage/decode.py rows: their Kafka coordinates and bytes), for
    `write_frames`."""
    return records.select(
        "topic",
        "partition",
        "offset",
        "key",
        "value",
        table.cast("string").alias("table"),
        F.lit(stage).alias("stage"),
        F.substring(reason, 1, 4000).alias("reason"),
    )


def write_frames(spark: SparkSession, path: str, app_id: str, batch_id: int, frames: Sequence[DataFrame]) -> None:
    """Append the dead letters of a micro-batch in one write (idempotent per batch id)."""
    union = (
        union_all(frames)
        .withColumn("batch_id", F.lit(batch_id).cast("long"))
        .withColumn("recorded_at", F.lit(dt.datetime.now(dt.UTC)).cast("timestamp"))
    )
    (
        union.select(*[F.col(f.name).cast(f.dataType) for f in SCHEMA.fields])
        .write.format("delta")
        .mode("append")
        .option("txnAppId", f"{app_id}-dead-letter")
        .option("txnVersion", batch_id)
        .save(path)
    )
