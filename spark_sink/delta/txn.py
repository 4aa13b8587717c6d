"""Idempotent Delta DML: a MERGE/UPDATE/DELETE run under an application id and version (Delta's
`spark.databricks.delta.write.txnAppId` / `txnVersion` session settings, delta-io/delta#1555) commits at most once:
a second run with a version not above the last committed one for that id is skipped. The micro-batch id is the
version, so a batch replayed after a crash does not apply its changes twice."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from pyspark.sql import SparkSession

APP_ID = "spark.databricks.delta.write.txnAppId"
VERSION = "spark.databricks.delta.write.txnVersion"


@contextmanager
def once_per_batch(spark: SparkSession, app_id: str, batch_id: int) -> Iterator[None]:
    """Run the DML inside at most once for (`app_id`, `batch_id`). Not for concurrent use of one session."""
    spark.conf.set(APP_ID, app_id)
    spark.conf.set(VERSION, str(batch_id))
    try:
        yield
    finally:
        spark.conf.unset(APP_ID)
        spark.conf.unset(VERSION)
