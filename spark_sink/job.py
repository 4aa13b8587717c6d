"""The composition root of the Spark job: session, Kafka stream, foreachBatch processor, query."""

from __future__ import annotations

import contextlib
import logging
import os
import re
import sys
import threading
from pathlib import Path
from typing import Any

from py4j.protocol import Py4JError
from pyspark.errors import PySparkRuntimeError
from pyspark.sql import SparkSession
from pyspark.sql.streaming import StreamingQuery, StreamingQueryListener

from spark_sink.config import SinkConfig
from spark_sink.prerequisites import (
    CATALOG_IMPLEMENTATION,
    JAVA_EXITED,
    PrerequisiteError,
    catalog_problem,
    check_java,
    check_services,
    check_topics,
    metastore_conf,
    session_jars,
    under_spark_submit,
)
from spark_sink.stage.processor import BatchProcessor

log = logging.getLogger("spark_sink")

# Change micro-batches are many small queries (each table's reduce, MERGE, Delta's own jobs): generating and
# compiling Java for each plan cost more than it saved (without it the bench's batches took 17 % less time,
# README "Spark sink"); interpreted evaluation costs ~10 % more per row on a 3M-row aggregation. A job of huge
# batches (a bulk snapshot) may set both back (FALLBACK / true) in `spark.conf`.
CODEGEN_OFF = {"spark.sql.codegen.factoryMode": "NO_CODEGEN", "spark.sql.codegen.wholeStage": "false"}

SESSION_DEFAULTS = {
    # Iceberg's extension too: with Iceberg's jar missing (Delta tables under spark-submit --jars without it) Spark
    # logs a warning and goes on without it
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension,"
    "org.apache.iceberg.spark.extensions.IcebergSparkSessionExtensions",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    "spark.sql.session.timeZone": "UTC",
    "spark.sql.shuffle.partitions": "4",
    "spark.databricks.delta.snapshotPartitions": "4",
    "spark.ui.enabled": "false",
    # the console progress bar redraws itself with carriage returns in what is the job's log (stderr)
    "spark.ui.showConsoleProgress": "false",
    **CODEGEN_OFF,
}
# How long the broker holds a Kafka fetch that finds no new data. A micro-batch reads a range known to exist, yet
# with Kafka's default (500 ms) reading the bench's ten topics took 6.0 s instead of 0.7 s: by all appearances a read
# that ended at the end of a partition leaves its reused consumer a fetch in flight there, which the next read of the
# partition waits for (measured, the mechanism inferred). Set `kafka.fetch.max.wait.ms` in `source.options` to choose
# another.
KAFKA_DEFAULTS = {"kafka.fetch.max.wait.ms": "5"}
LISTENER_DRAIN_S = 10.0  # at most this long for a finished query's last events to reach the listener


def build_session(config: SinkConfig) -> SparkSession:
    """A session with Delta's extension and the Kafka/Delta jars (never spark.jars.packages): those of
    `spark.jars_dir`, else the ones `devstack/spark.sh fetch` put in .devstack/spark/jars (see
    spark_sink.prerequisites). Under spark-submit, or with `spark.jars` in the configuration, it adds none: leave
    master and jars_dir unset there and pass `--jars`. PrerequisiteError (one line) when the jars or Java are
    missing, before the JVM starts."""
    jars = session_jars(config, os.environ)
    submitted = under_spark_submit(os.environ)
    if jars is not None:
        log.info("Kafka source and Delta Lake jars: %d from %s", len(jars.paths), jars.origin)
    elif submitted:
        log.info("running under spark-submit: the jars are its --jars")
    else:
        log.info("jars as configured (spark.jars / spark.jars.packages / PYSPARK_SUBMIT_ARGS)")
    if not submitted:
        check_java(os.environ)
    builder = SparkSession.builder.appName(config.query_name)
    if config.master:
        builder = builder.master(config.master)
    metastore = metastore_conf(config, os.environ)
    if metastore:
        log.info(
            "named tables in %s: Hive metastore (embedded Derby) in %s, kept across runs",
            config.database,
            metastore["spark.sql.warehouse.dir"],
        )
    for k, v in {**SESSION_DEFAULTS, **config.spark_conf, **metastore}.items():
        builder = builder.config(k, v)
    if jars is not None:
        builder = builder.config("spark.jars", ",".join(jars.paths))
    try:
        return builder.getOrCreate()
    except PySparkRuntimeError as e:
        if e.getCondition() == "JAVA_GATEWAY_EXITED":
            raise PrerequisiteError(JAVA_EXITED) from e
        raise


class ProgressLogger(StreamingQueryListener):
    """Logs the Kafka lag (offsets behind latest) of each micro-batch. Spark hands it a query's events on a listener
    thread after the fact, the last ones after the query has ended: `run` waits for `terminated` before it returns,
    or the JVM would call back into a Python process that is gone (an error with its stack trace at every exit)."""

    def __init__(self) -> None:
        self.terminated = threading.Event()

    def onQueryStarted(self, event: Any) -> None:
        log.info("query started id=%s name=%s", event.id, event.name)

    def onQueryProgress(self, event: Any) -> None:
        p = event.progress
        for src in p.sources:
            m = src.metrics or {}
            log.info(
                "progress batch=%s input_rows=%s offsets_behind_latest(max)=%s",
                p.batchId,
                p.numInputRows,
                m.get("maxOffsetsBehindLatest"),
            )

    def onQueryIdle(self, event: Any) -> None:
        pass

    def onQueryTerminated(self, event: Any) -> None:
        log.info("query terminated id=%s exception=%s", event.id, event.exception)
        self.terminated.set()


def subscribed_topics(config: SinkConfig) -> tuple[str, ...]:
    topics = config.topics
    if config.transaction_consistent and config.transaction_topic and config.transaction_topic not in topics:
        topics = (*topics, config.transaction_topic)
    return topics


def subscribed_pattern(config: SinkConfig) -> str | None:
    """The topic pattern, widened to the transaction topic in transaction-consistent mode (Kafka matches the whole
    name, as `re.fullmatch` does)."""
    pattern, tx_topic = config.topic_pattern, config.transaction_topic
    if not pattern or not config.transaction_consistent or not tx_topic or re.fullmatch(pattern, tx_topic):
        return pattern
    return f"(?:{pattern})|{re.escape(tx_topic)}"


def check_catalog(spark: SparkSession, config: SinkConfig) -> None:
    """PrerequisiteError when the session cannot keep the named tables `database` asks for."""
    problem = catalog_problem(
        config,
        spark.conf.get(CATALOG_IMPLEMENTATION, "in-memory") or "in-memory",
        spark.conf.get(f"spark.sql.catalog.{config.catalog_name}", None),
    )
    if problem is not None:
        raise PrerequisiteError(problem)


def source_options(config: SinkConfig) -> dict[str, str]:
    """The Kafka source's options: the job's, then KAFKA_DEFAULTS, then `source.options` (which win)."""
    options = {
        "kafka.bootstrap.servers": config.bootstrap_servers,
        "startingOffsets": config.starting_offsets,
        "failOnDataLoss": "false",
        "includeHeaders": "false",
    }
    pattern = subscribed_pattern(config)
    if pattern:
        options["subscribePattern"] = pattern
    else:
        options["subscribe"] = ",".join(subscribed_topics(config))
    if config.max_offsets_per_trigger:
        options["maxOffsetsPerTrigger"] = str(config.max_offsets_per_trigger)
    return {**options, **KAFKA_DEFAULTS, **config.kafka_options}


def start(spark: SparkSession, config: SinkConfig, processor: BatchProcessor | None = None) -> StreamingQuery:
    check_catalog(spark, config)
    processor = processor or make_processor(spark, config)
    reader = spark.readStream.format("kafka").options(**source_options(config))
    writer = (
        reader.load()
        .writeStream.queryName(config.query_name)
        .option("checkpointLocation", config.checkpoint)
        .foreachBatch(processor)
    )
    if config.trigger == "available-now":
        writer = writer.trigger(availableNow=True)
    elif config.trigger == "once":
        writer = writer.trigger(once=True)
    else:
        writer = writer.trigger(processingTime=config.trigger.split("=", 1)[1])
    query = writer.start()
    log.info(
        "started query %s: %s → %s (checkpoint %s, trigger %s)",
        config.query_name,
        subscribed_pattern(config) or ",".join(subscribed_topics(config)),
        config.warehouse,
        config.checkpoint,
        config.trigger,
    )
    return query


def make_processor(spark: SparkSession, config: SinkConfig) -> BatchProcessor:
    """The foreachBatch handler: records decoded and tables reduced on the executors (spark_sink/stage); each
    Python worker keeps its decoders' caches (Avro writer schemas by id among them) across micro-batches."""
    ship_package(spark)
    return BatchProcessor(spark, config)


_SHIPPED: set[str] = set()  # the Spark applications that have the package


def ship_package(spark: SparkSession) -> None:
    """Make `spark_sink` importable by the executors' Python workers: a zip of the package handed to Spark
    (`addPyFile`), so a cluster needs no installation of it (local masters import it from the driver's path)."""
    import shutil
    import tempfile

    app = spark.sparkContext.applicationId
    if app in _SHIPPED:
        return
    _SHIPPED.add(app)
    package = Path(__file__).resolve().parent
    folder = Path(tempfile.mkdtemp(prefix="spark_sink_pyfiles_"))
    archive = shutil.make_archive(str(folder / "spark_sink"), "zip", root_dir=package.parent, base_dir=package.name)
    spark.sparkContext.addPyFile(archive)


def _ended(query: StreamingQuery) -> bool:
    try:
        return not query.isActive
    except Py4JError:  # the JVM is gone (Ctrl-C reaches it too): nothing will reach the listener any more
        return False


def run(config: SinkConfig, spark: SparkSession | None = None, timeout_s: float | None = None) -> BatchProcessor:
    """Run the job until the query ends (available-now/once) or forever (processing-time). A missing prerequisite
    (folders, Kafka, registry, jars, Java) is a PrerequisiteError before Spark or the query starts."""
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    if (config.master or "").startswith("local") and not under_spark_submit(os.environ):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)  # Python workers run this interpreter, not PATH's
    for warning in check_services(config):
        log.warning(warning)
    log.info("Kafka at %s; checkpoint %s", config.bootstrap_servers, config.checkpoint)
    spark = spark or build_session(config)
    servers = config.kafka_options.get("kafka.bootstrap.servers") or config.bootstrap_servers
    check_topics(() if config.topic_pattern else subscribed_topics(config), servers, config.kafka_options)
    processor = make_processor(spark, config)
    listener = ProgressLogger()
    spark.streams.addListener(listener)
    query = None
    try:
        query = start(spark, config, processor)
        if timeout_s is None:
            query.awaitTermination()
        elif not query.awaitTermination(int(timeout_s)):
            query.stop()
            raise TimeoutError(f"query {config.query_name} did not finish within {timeout_s} s")
    finally:
        if query is not None and _ended(query):  # its last events are on their way to the listener
            listener.terminated.wait(LISTENER_DRAIN_S)
        with contextlib.suppress(Py4JError):  # (a JVM gone on Ctrl-C: the error in flight is what counts)
            spark.streams.removeListener(listener)
    return processor
