"""Regenerate tests/differential/golden/ from the REAL Kafka Connect 4.3.1 + Debezium 3.6.3.Final.

    make up            # Kafka on 127.0.0.1:9092, PostgreSQL on 127.0.0.1:5433
    .venv/bin/python -m tests.differential.capture_golden [--kafka 127.0.0.1:9092] [--pg-port 5433]

Starts its own Connect worker (devstack/debezium.sh, unique group and internal topics, stopped at the end), runs
the scenario of scenario_pg.py with the fixed token `cwgolden` (database, slot, publication, topic prefix and
connector name; its leftovers from an earlier run are removed first) and writes, with volatile fields masked:

    golden/pg_customers.data.jsonl         the change events of cwgolden.public.customers
    golden/pg_customers.transaction.jsonl  the BEGIN/END records of cwgolden.transaction
    golden/pg_customers.offsets.jsonl      the first (snapshot) and last offsets-topic record of the connector
    golden/rest.jsonl                      a few REST answers (GET /, status, plugins, errors ...)
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from tests.differential import scenario_pg
from tests.differential.debezium import ConnectDebezium, delete_topics, write_jsonl

GOLDEN_DIR = Path(__file__).resolve().parent / "golden"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--kafka", default="127.0.0.1:" + os.environ.get("CW_KAFKA_PORT", "9092"))
    parser.add_argument("--pg-port", type=int, default=int(os.environ.get("CW_PG_PORT", "5433")))
    parser.add_argument("--out", type=Path, default=GOLDEN_DIR)
    args = parser.parse_args(argv)

    token = scenario_pg.GOLDEN_TOKEN
    data_topic, tx_topic = f"{token}.public.{scenario_pg.TABLE}", f"{token}.transaction"
    delete_topics(args.kafka, [data_topic, tx_topic])
    time.sleep(1.0)  # topic deletion is asynchronous on the broker
    t0 = time.monotonic()
    connect = ConnectDebezium(kafka_bootstrap=args.kafka, pg_port=args.pg_port)
    try:
        connect.start()
        started = time.monotonic() - t0
        run = scenario_pg.run_customers_scenario(connect, token=token, pg_port=args.pg_port)
    finally:
        connect.stop()
        connect.delete_internal_topics()
    delete_topics(args.kafka, [data_topic, tx_topic])

    write_jsonl(args.out / "pg_customers.data.jsonl", scenario_pg.data_rows(run))
    write_jsonl(args.out / "pg_customers.transaction.jsonl", scenario_pg.transaction_rows(run))
    write_jsonl(args.out / "pg_customers.offsets.jsonl", scenario_pg.offset_rows(run))
    write_jsonl(args.out / "rest.jsonl", scenario_pg.rest_rows(run))
    print(f"worker started in {started:.1f} s; scenario {scenario_pg.describe(run)}; written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
