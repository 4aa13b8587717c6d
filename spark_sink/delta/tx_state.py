"""The transaction-consistent mode's state: held raw Kafka records and the commit LSN of the newest released
transaction, rewritten at most once per micro-batch (Delta `txnAppId`/`txnVersion`)."""

from __future__ import annotations

from typing import Any

from delta.tables import DeltaTable
from pyspark.sql import DataFrame
from pyspark.sql import functions as F
from pyspark.sql import types as T

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


RAW_COLUMNS = ("topic", "partition", "offset", "key", "value", "timestamp_ms")


def read_frame(spark: Any, path: str) -> tuple[DataFrame | None, int | None]:
    """The held records as a DataFrame of raw Kafka records (lazy: read on the executors), and the watermark."""
    if not DeltaTable.isDeltaTable(spark, path):
        return None, None
    state = spark.read.format("delta").load(path)
    marks = state.where(F.col("kind") == WATERMARK).select("lsn").collect()
    held = state.where(F.col("kind") == RECORD).select(*RAW_COLUMNS)
    return held, (marks[0]["lsn"] if marks else None)


def write_frame(
    spark: Any, path: str, app_id: str, batch_id: int, held: DataFrame, released_through: int | None
) -> None:
    """Rewrite the state: the held records (a DataFrame with the raw Kafka columns, never collected) and the
    watermark."""
    rows = held.select(
        F.lit(RECORD).alias("kind"),
        *(F.col(c).cast(SCHEMA[c].dataType) for c in RAW_COLUMNS),
        F.lit(None).cast("bigint").alias("lsn"),
    )
    if released_through is not None:
        rows = rows.unionByName(
            spark.createDataFrame([(WATERMARK, None, None, None, None, None, None, released_through)], SCHEMA)
        )
    rows.write.format("delta").mode("overwrite").option("txnAppId", app_id).option("txnVersion", batch_id).save(path)
