"""`python -m spark_sink --config sink.toml [flags]`, flags only:

    .venv/bin/python -m spark_sink --master 'local[2]' --topics dbserver1.public.customers --warehouse /tmp/wh

(the Kafka/Delta jars are found where `make up` put them; Kafka defaults to localhost:9092, the checkpoint to
<warehouse>/_checkpoints/<query_name>), or as a spark-submit application:

    PYSPARK_PYTHON=.venv/bin/python PYSPARK_DRIVER_PYTHON=.venv/bin/python \\
    .venv/bin/spark-submit --master 'local[2]' --jars "$(devstack/spark.sh jars)" \\
        spark_sink/__main__.py --config sink.toml

Flags override the file; `--check` validates and prints the effective configuration without starting Spark.
A missing prerequisite (jars, Java, Kafka, registry, a writable warehouse) is one line on stderr and exit code 2.
"""

from __future__ import annotations

import os
import sys

if not __package__:  # run as a file (spark-submit spark_sink/__main__.py): its folder must not shadow `types`/`delta`
    _here = os.path.dirname(os.path.abspath(__file__))
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    sys.path.insert(0, os.path.dirname(_here))

import argparse
import json
import logging
from dataclasses import asdict
from typing import Any

from spark_sink.config import ConfigError, from_mapping, load_file, with_defaults, with_overrides
from spark_sink.prerequisites import PrerequisiteError

log = logging.getLogger("spark_sink")
SPARK_EXTRA = ("pyspark", "py4j", "delta", "pandas", "pyarrow")  # the `spark` extra of pyproject.toml


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="spark_sink", description="Debezium CDC topics → Delta Lake tables")
    p.add_argument("--config", help="TOML or JSON configuration file")
    p.add_argument("--bootstrap-servers")
    p.add_argument("--topics", help="comma-separated topic names")
    p.add_argument("--topic-pattern", help="regex of topic names (Kafka subscribePattern)")
    p.add_argument("--starting-offsets")
    p.add_argument("--max-offsets-per-trigger", type=int)
    p.add_argument("--schemas", choices=["auto", "true", "false"])
    p.add_argument("--format", choices=["json", "avro"], help="record format: json (JsonConverter) or avro")
    p.add_argument("--schema-registry-url", help="avro: Confluent-API schema registry URL(s), comma-separated")
    p.add_argument("--warehouse", help="folder of the tables")
    p.add_argument(
        "--table-format",
        choices=["delta", "iceberg"],
        help="format of the tables (default delta; --format is the records')",
    )
    p.add_argument("--checkpoint", help="Structured Streaming checkpoint folder")
    p.add_argument("--table-name-template")
    p.add_argument("--delete-mode", choices=["hard", "soft"])
    p.add_argument("--scd2", action="store_true", default=None)
    p.add_argument("--dead-letter-path")
    p.add_argument("--fail-fast", action="store_true", default=None)
    p.add_argument(
        "--table-parallelism", type=int, help="tables of a micro-batch applied at once (default 4; 1: one by one)"
    )
    p.add_argument("--trigger", help="available-now | once | processing-time=<interval>")
    p.add_argument("--transaction-consistent", action="store_true", default=None)
    p.add_argument("--transaction-topic")
    p.add_argument(
        "--catalog",
        help="delta: catalog of the named tables (default spark_catalog; needs --database); iceberg: the Iceberg "
        "catalog (default iceberg, a Hadoop catalog on the warehouse)",
    )
    p.add_argument(
        "--database", help="delta: also register each table as <catalog>.<database>.<table>; iceberg: the namespace"
    )
    p.add_argument("--optimize-interval", help='OPTIMIZE each written table this often: "<n> days|hours|minutes"')
    p.add_argument("--vacuum-interval", help='VACUUM each written table this often: "<n> days|hours|minutes"')
    p.add_argument("--vacuum-retention", help='VACUUM … RETAIN this long (default 7 days): "<n> days|hours|minutes"')
    p.add_argument("--query-name")
    p.add_argument("--master", help="Spark master (omit under spark-submit)")
    p.add_argument("--jars-dir", help="folder of the Kafka/Delta jars (omit under spark-submit, use --jars)")
    p.add_argument("--conf", action="append", default=[], metavar="KEY=VALUE", help="Spark configuration")
    p.add_argument("--log-level", default="INFO")
    p.add_argument("--check", action="store_true", help="validate and print the configuration, then exit")
    return p


def overrides(args: argparse.Namespace) -> dict[str, dict[str, Any]]:
    conf = dict(item.split("=", 1) for item in args.conf) if args.conf else None
    return {
        "source": {
            "bootstrap_servers": args.bootstrap_servers,
            "topics": args.topics,
            "topic_pattern": args.topic_pattern,
            "starting_offsets": args.starting_offsets,
            "max_offsets_per_trigger": args.max_offsets_per_trigger,
            "schemas": args.schemas,
            "format": args.format,
            "schema_registry_url": args.schema_registry_url,
        },
        "sink": {
            "warehouse": args.warehouse,
            "table_format": args.table_format,
            "checkpoint": args.checkpoint,
            "table_name_template": args.table_name_template,
            "delete_mode": args.delete_mode,
            "scd2": args.scd2,
            "dead_letter_path": args.dead_letter_path,
            "fail_fast": args.fail_fast,
            "table_parallelism": args.table_parallelism,
            "trigger": args.trigger,
            "transaction_consistent": args.transaction_consistent,
            "transaction_topic": args.transaction_topic,
            "catalog": args.catalog,
            "database": args.database,
            "optimize_interval": args.optimize_interval,
            "vacuum_interval": args.vacuum_interval,
            "vacuum_retention": args.vacuum_retention,
            "query_name": args.query_name,
        },
        "spark": {"master": args.master, "jars_dir": args.jars_dir, "conf": conf},
    }


def quiet_py4j(level: int) -> None:
    """py4j logs every call the JVM makes into Python (each micro-batch: "Received command c on object id …") at
    INFO: its own lines only from DEBUG on, else its warnings and errors."""
    if level > logging.DEBUG:
        logging.getLogger("py4j").setLevel(logging.WARNING)


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(asctime)s %(levelname)s %(name)s %(message)s")
    quiet_py4j(logging.getLogger().level)
    try:
        data = load_file(args.config) if args.config else {}
        document, defaults = with_defaults(with_overrides(data, overrides(args)))
        config = from_mapping(document)
    except (ConfigError, OSError, ValueError) as e:
        print(f"spark_sink: {e}", file=sys.stderr)
        return 2
    for note in defaults:
        log.info(note)
    if args.check:
        print(json.dumps(asdict(config.redacted()), indent=2, default=str))
        return 0
    try:
        from spark_sink.job import run  # pyspark is imported only when the job really runs
    except ModuleNotFoundError as e:
        if (e.name or "").split(".")[0] not in SPARK_EXTRA:
            raise
        print(f"spark_sink: {e.name} is not installed: pip install -e '.[spark]'", file=sys.stderr)
        return 2
    try:
        run(config)
    except PrerequisiteError as e:
        print(f"spark_sink: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
