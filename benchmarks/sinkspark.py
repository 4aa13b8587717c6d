"""The Spark programs of the Spark sink phase besides the sink itself, each run in a process of its own (one JVM per
master setting: a JVM keeps the master it started with):

    python -m benchmarks.sinkspark append|merge --master 'local[2]' --jars-dir DIR --bootstrap B --max-offsets N \\
        --out WAREHOUSE --checkpoints DIR TOPIC=TABLE ...
    python -m benchmarks.sinkspark check --master 'local[1]' --jars-dir DIR --out result.json --tables T,… WAREHOUSE …

* `append`, the plain-append ceiling: per topic one Structured Streaming query `readStream.format("kafka")` →
  `writeStream.format("delta")` (available-now), the Kafka records as they are (key and value bytes, topic,
  partition, offset, timestamp): no decoding, no MERGE. All queries run at once; the phase times them from their
  checkpoints (benchmarks/sinkfiles.py).
* `merge`, the bare-MERGE ceiling: the same queries, each micro-batch MERGEd into one Delta table per topic by the
  record key (the newest record per key by offset; a tombstone deletes, any other record replaces or inserts the raw
  value): one MERGE per table and batch and nothing else (no decoding, no types, no guard, no delete ledger), the
  most any MERGE job can reach with commits of the same sizes.
* `check`: per Delta table the checksum of benchmarks/sinkload.py (row count, sums of id, version, amount and of a
  32-bit md5 hash of the name), written as JSON.

The session is built as the sink builds its own (Delta's extension and catalog, the jars of `spark.jars_dir`, never
spark.jars.packages, UTC) with the sink's own defaults (spark_sink/job.py: CODEGEN_OFF, unless `--codegen` asks for
Spark's code generation; KAFKA_DEFAULTS for the Kafka source); spark_sink's builder is not used, the phase runs the
sink through its public entry only.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from benchmarks.sinkload import CHECKSUM_FIELDS as FIELDS

SESSION = {
    "spark.sql.extensions": "io.delta.sql.DeltaSparkSessionExtension",
    "spark.sql.catalog.spark_catalog": "org.apache.spark.sql.delta.catalog.DeltaCatalog",
    "spark.sql.session.timeZone": "UTC",
    "spark.ui.enabled": "false",
    "spark.ui.showConsoleProgress": "false",
}


def session(master: str, jars_dir: str, app: str, conf: dict[str, str], codegen: bool = False) -> Any:
    from pyspark.sql import SparkSession

    from spark_sink.job import CODEGEN_OFF

    jars = sorted(str(p.resolve()) for p in Path(jars_dir).glob("*.jar"))
    if not jars:
        raise SystemExit(f"no jars in {jars_dir}: run devstack/spark.sh fetch")
    builder = SparkSession.builder.appName(app).master(master).config("spark.jars", ",".join(jars))
    for k, v in {**SESSION, **({} if codegen else CODEGEN_OFF), **conf}.items():
        builder = builder.config(k, v)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("WARN")
    return spark


class BareMerge:
    """foreachBatch of the `merge` ceiling: the batch's newest record per key MERGEd into the Delta table at `path`."""

    def __init__(self, path: str, name: str) -> None:
        self.path = path
        self.name = name

    def __call__(self, batch: Any, batch_id: int) -> None:
        from pyspark.sql import functions as F

        newest = (
            batch.where(F.col("key").isNotNull())
            .groupBy("key")
            .agg(F.max_by(F.struct("value", "offset"), F.col("offset")).alias("r"))
            .select("key", "r.value", "r.offset")
        )
        view = f"bare_merge_{self.name}"
        newest.createOrReplaceTempView(view)
        try:
            newest.sparkSession.sql(
                f"MERGE INTO delta.`{self.path}` t USING {view} s ON t.key = s.key "
                "WHEN MATCHED AND s.value IS NULL THEN DELETE "
                "WHEN MATCHED AND s.offset > t.offset THEN UPDATE SET t.value = s.value, t.offset = s.offset "
                "WHEN NOT MATCHED AND s.value IS NOT NULL THEN "
                "INSERT (key, value, offset) VALUES (s.key, s.value, s.offset)"
            ).collect()
        finally:
            newest.sparkSession.catalog.dropTempView(view)


def stream(args: argparse.Namespace, spark: Any) -> int:
    """`append` or `merge`: one query per TOPIC=TABLE pair, all at once, each to its end."""
    from spark_sink.job import KAFKA_DEFAULTS

    queries = []
    for pair in args.pairs:
        topic, table = pair.split("=", 1)
        reader = (
            spark.readStream.format("kafka")
            .option("kafka.bootstrap.servers", args.bootstrap)
            .option("subscribe", topic)
            .option("startingOffsets", "earliest")
            .option("failOnDataLoss", "false")
            .options(**KAFKA_DEFAULTS)
        )
        if args.max_offsets:
            reader = reader.option("maxOffsetsPerTrigger", str(args.max_offsets))
        path = str(Path(args.out) / table)
        writer = (
            reader.load()
            .writeStream.queryName(f"{args.command}_{table}")
            .option("checkpointLocation", str(Path(args.checkpoints) / table))
            .trigger(availableNow=True)
        )
        if args.command == "merge":
            spark.sql(
                f"CREATE TABLE IF NOT EXISTS delta.`{path}` (key BINARY, value BINARY, offset BIGINT) USING delta"
            )
            query = writer.foreachBatch(BareMerge(path, table)).start()
        else:
            query = writer.format("delta").start(path)
        queries.append(query)
    for query in queries:
        if not query.awaitTermination(args.timeout):
            for q in queries:
                q.stop()
            print(f"append: {query.name} did not finish in {args.timeout} s", file=sys.stderr)
            return 1
        if query.exception() is not None:
            print(f"{args.command}: {query.name} failed: {query.exception()}", file=sys.stderr)
            return 1
    return 0


def check(args: argparse.Namespace, spark: Any) -> int:
    from pyspark.sql import functions as F

    out: dict[str, dict[str, dict[str, str]]] = {}
    for warehouse in args.warehouses:
        tables: dict[str, dict[str, str]] = {}
        for table in args.tables.split(","):
            path, iceberg = Path(warehouse) / table, Path(warehouse) / "default" / table  # Delta; Iceberg (Hadoop)
            if (iceberg / "metadata").is_dir():
                frame = spark.read.format("iceberg").load(str(iceberg))
            elif (path / "_delta_log").is_dir():
                frame = spark.read.format("delta").load(str(path))
            else:  # no event reached it (or the sink never created it)
                tables[table] = dict.fromkeys(FIELDS, "0")
                continue
            name_hash = F.conv(F.substring(F.md5(F.col("name")), 1, 8), 16, 10).cast("long")
            row = frame.agg(
                F.count(F.lit(1)),
                F.coalesce(F.sum("id"), F.lit(0)),
                F.coalesce(F.sum("version"), F.lit(0)),
                F.coalesce(F.sum("amount"), F.lit(0)),
                F.coalesce(F.sum(name_hash), F.lit(0)),
            ).first()
            tables[table] = {k: str(v) for k, v in zip(FIELDS, row, strict=True)}
        out[warehouse] = tables
    Path(args.out).write_text(json.dumps(out, indent=1))
    return 0


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m benchmarks.sinkspark")
    p.set_defaults(codegen=False)  # (`check` has no --codegen)
    sub = p.add_subparsers(dest="command", required=True)
    for name in ("append", "merge", "check"):
        s = sub.add_parser(name)
        s.add_argument("--master", required=True)
        s.add_argument("--jars-dir", required=True)
        s.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE")
        s.add_argument("--out", required=True, help="append, merge: the warehouse; check: the JSON file written")
        s.add_argument("--timeout", type=float, default=600.0)
        if name != "check":
            s.add_argument("--bootstrap", required=True)
            s.add_argument("--checkpoints", required=True)
            s.add_argument("--max-offsets", type=int, default=0)
            s.add_argument("--codegen", action="store_true", help="Spark's code generation (the sink turns it off)")
            s.add_argument("pairs", nargs="+", metavar="TOPIC=TABLE")
        else:
            s.add_argument("--tables", required=True, help="comma-separated table folders")
            s.add_argument("warehouses", nargs="+")
    return p


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")
    conf = dict(item.split("=", 1) for item in args.conf)
    spark = session(args.master, args.jars_dir, f"bench_sink_{args.command}", conf, args.codegen)
    try:
        return check(args, spark) if args.command == "check" else stream(args, spark)
    finally:
        spark.stop()


if __name__ == "__main__":
    sys.exit(main())
