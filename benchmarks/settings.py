"""Benchmark sizes and the fixed parts of the workload."""

from __future__ import annotations

import dataclasses
import os

KAFKA_BOOTSTRAP = "127.0.0.1:" + os.environ.get("CW_KAFKA_PORT", "9092")
PG_HOST = "127.0.0.1"
PG_PORT = int(os.environ.get("CW_PG_PORT", "5433"))
PG_BIN = os.environ.get("BENCH_PG_BIN", "/usr/lib/postgresql/15/bin")
#: the devstack's schema registry (Apicurio Registry, devstack/registry.sh), for the avro mode
REGISTRY_ROOT = "http://127.0.0.1:" + os.environ.get("CW_REGISTRY_PORT", "8081")
REGISTRY_URL = REGISTRY_ROOT + "/apis/ccompat/v7"  # its Confluent Schema Registry API

TXN_ROWS = 10_000  # streaming throughput: rows per inserted transaction (the workload)
LATENCY_TICK_S = 0.01  # fixed-rate inserts: one transaction every 10 ms (rate / 100 rows each)
PARALLEL_SNAPSHOT_THREADS = 2  # the extra snapshot run (schemas off): snapshot.max.threads, as many as cores here
# disk use, measured and rounded up: bytes per event in Kafka (schemas off / on), per row in PostgreSQL; an Avro
# event (no field names, no schema) is smaller than a schemaless JSON one
EVENT_BYTES, EVENT_BYTES_WITH_SCHEMAS, PG_BYTES_PER_ROW = 1_000, 4_500, 900

#: the converter modes of a run by their BENCH_SCHEMAS name: JsonConverter schemas.enable false / true, or Avro
#: keys and values through the schema registry; the values name the mode in results.json, results.md and the chart
MODES = {"off": "schemas_off", "on": "schemas_on", "avro": "avro"}
DEFAULT_SCHEMAS = "off,on,avro"  # BENCH_SCHEMAS unless set, every size (smoke too: the avro runs add ~20 s)

# the Spark sink phase (benchmarks/sink.py): this worker's change events (JsonConverter, schemas on) of SINK_TABLES
# tables materialised by spark_sink into Delta tables
SINK_TABLES = 10
SINK_MIX = (0.6, 0.3)  # shares of inserts and of updates (of existing keys); deletes take the rest
SINK_ROUND_EVENTS = 1_000  # events per table in one round; a round (all tables) is one transaction
SINK_MASTERS = ("local[1]", "local[2]")  # each throughput run is made once per master
SINK_LAG_RATE = 500  # rows/s inserted (spread over the tables) while the lag is measured
SINK_LAG_TRIGGER = "processing-time=1 second"  # the job's trigger in the lag run
SINK_DELTA_BYTES_PER_EVENT = 5_000  # Delta under the run folder at once, per event, rounded up: the plain-append
# table holds the raw JsonConverter values (~4.4 KB before compression), the MERGE tables a few hundred bytes a row


@dataclasses.dataclass(frozen=True)
class Size:
    name: str
    snapshot_rows: int  # rows in the table the initial snapshot reads
    stream_rows: int  # rows inserted (in TXN_ROWS transactions) for the streaming throughput figure
    latency_s: float  # how long each fixed-rate latency phase inserts
    latency_rates: tuple[int, ...] = (1_000, 10_000)
    idle_s: float = 3.0  # settle time before the idle RSS is read
    profile_rows: int = 0  # rows streamed under cProfile (0: same as stream_rows)
    debezium_default: bool = True  # whether Debezium runs unless asked otherwise
    big_txn_rows: int = 0  # one transaction of this many rows: peak RSS must not grow with it (0: skipped)
    sink_events: int = 0  # change events materialised by the Spark sink phase
    sink_lag_s: float = 0.0  # how long the sink phase's lag run inserts (at SINK_LAG_RATE rows/s)

    @property
    def rows_for_profile(self) -> int:
        return self.profile_rows or self.stream_rows

    def disk_needed(self, modes: tuple[str, ...], *, sink: bool = False, runs: bool = True) -> int:
        """Bytes the fullest moment of a run needs under .devstack/: the stream run's topic, which holds the
        throughput, latency and big-transaction events until the run ends, plus PostgreSQL's tables and the WAL
        its slot retains. From measured sizes: ~950 B per event without schemas, ~4,430 B with them, ~900 B per
        row in PostgreSQL (heap, index, WAL). With `sink`, the Spark sink phase's moment if it is fuller (its topics
        with schemas, its tables, its Delta tables). `runs=False`: no run but the sink phase (`BENCH_ONLY=sink`: no
        stream run and no snapshot table)."""
        need = 0
        if runs:
            events = self.stream_rows + int(sum(self.latency_rates) * self.latency_s) + self.big_txn_rows
            per_event = EVENT_BYTES_WITH_SCHEMAS if "schemas_on" in modes else EVENT_BYTES
            need = events * per_event + (events + self.snapshot_rows) * PG_BYTES_PER_ROW
        if sink:
            sink_events = self.sink_events + int(SINK_LAG_RATE * self.sink_lag_s)
            per_sink_event = EVENT_BYTES_WITH_SCHEMAS + PG_BYTES_PER_ROW + SINK_DELTA_BYTES_PER_EVENT
            snapshot = self.snapshot_rows * PG_BYTES_PER_ROW if runs else 0
            need = max(need, sink_events * per_sink_event + snapshot)
        return need


#: rows per incremental-snapshot chunk, the same for both systems (Debezium's default)
INCREMENTAL_CHUNK = 1024

SIZES: dict[str, Size] = {
    "smoke": Size(
        "smoke",
        snapshot_rows=2_000,
        stream_rows=20_000,
        latency_s=2.0,
        idle_s=1.0,
        debezium_default=False,
        big_txn_rows=40_000,
        sink_events=20_000,
        sink_lag_s=10.0,
    ),
    "small": Size(
        "small",
        snapshot_rows=200_000,
        stream_rows=200_000,
        latency_s=15.0,
        big_txn_rows=1_000_000,
        sink_events=200_000,
        sink_lag_s=30.0,
    ),
    "full": Size(
        "full",
        snapshot_rows=5_000_000,
        stream_rows=2_000_000,
        latency_s=60.0,
        profile_rows=500_000,
        big_txn_rows=10_000_000,
        sink_events=1_000_000,
        sink_lag_s=60.0,
    ),
}


def size_from_env(default: str = "small") -> Size:
    name = os.environ.get("BENCH_SIZE", default).strip().lower()
    if name not in SIZES:
        raise SystemExit(f"BENCH_SIZE must be one of {', '.join(SIZES)} (got {name!r})")
    return SIZES[name]
