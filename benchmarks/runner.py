"""One benchmark run: ceiling, this worker and Debezium on the same database, broker and workload, in sequence.

Per system and converter mode (JsonConverter schemas.enable false/true, Avro through the schema registry: see
benchmarks/modes.py) two worker processes are started:
* stream run: a fresh table with one seed row. Process start → first event (the seed row's snapshot record),
  idle RSS once streaming, then the throughput phase (stream_rows inserted in 10k-row transactions after the
  connector streams), then fixed-rate latency phases (1k and 10k events/s), peak RSS (VmHWM) at the end;
* snapshot run: a connector on the preloaded snapshot table; rows/s from the first to the last record.
Every figure comes from the broker's LogAppendTime (data topics are created beforehand with
message.timestamp.type=LogAppendTime) and, for latency, from source.ts_ms (the commit time; Avro values decoded with
the writer schema from the registry: benchmarks/avrodecode.py).
Everything created here (database, tables, slots, publications, topics, registry subjects, processes) is removed
afterwards.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import logging
import math
import os
import platform
import shutil
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from psycopg import sql

from benchmarks import ceiling, kafkautil, modes, pgload, profiling
from benchmarks.avrodecode import AvroDecoder
from benchmarks.registry import Registry
from benchmarks.settings import (
    INCREMENTAL_CHUNK,
    KAFKA_BOOTSTRAP,
    PARALLEL_SNAPSHOT_THREADS,
    PG_PORT,
    TXN_ROWS,
    Size,
)
from benchmarks.workers import DebeziumProcess, OursProcess, RssSampler, Worker, compile_bytecode, proc_memory_kb
from tests.differential.debezium import (
    STATE_DIR,
    drop_database,
    postgres_connector_config,
    unique_token,
)

log = logging.getLogger("benchmarks")

SYSTEMS = ("ceiling", "ours", "debezium")
KINDS = ("ours", "debezium")  # the systems run as Kafka Connect workers
CONNECTOR = "bench"


RUNS = frozenset({"stream", "snapshot", "incremental", "parallel", "eos"})  # a Plan's default
CLUSTER = "cluster"  # distributed mode: failover (both systems) and rebalancing (this worker), benchmarks/cluster.py
EOS = "eos"  # the stream run again with exactly-once delivery (this worker, schemas off; KIP-618, poll boundaries)
#: what an exactly-once run adds to the worker's and the connector's settings
EOS_WORKER = ("exactly.once.source.support=enabled",)
EOS_CONNECTOR = {"exactly.once.support": "required", "transaction.boundary": "poll"}
SINK = "sink"  # the Spark sink phase (benchmarks/sink.py): asked for by name (`make bench` does unless BENCH_SINK=0)
SNAPSHOT_RUNS = frozenset({"snapshot", "incremental", "parallel"})  # the runs that read the preloaded table


@dataclasses.dataclass
class Plan:
    size: Size
    systems: tuple[str, ...]
    modes: tuple[str, ...]  # converter modes to run: schemas_off, schemas_on (JsonConverter), avro
    profile: bool
    out_dir: Path
    bootstrap: str = KAFKA_BOOTSTRAP
    connector_extra: dict[str, str] = dataclasses.field(default_factory=dict)  # applied to both connectors
    #: which runs to make (stream, snapshot, incremental, parallel, and SINK); the four of RUNS by default
    only: frozenset[str] = RUNS

    @property
    def sink(self) -> bool:
        """Whether the Spark sink phase runs: asked for, and this worker among the systems (it writes the events)."""
        return SINK in self.only and "ours" in self.systems


@dataclasses.dataclass
class Context:
    plan: Plan
    token: str
    dbname: str
    snap_table: str
    ids: pgload.IdSource = dataclasses.field(default_factory=pgload.IdSource)
    registry: Registry = dataclasses.field(default_factory=Registry)
    #: registry subjects of the avro runs so far (deleted after each, and again at the end), and those deleted
    subjects: list[str] = dataclasses.field(default_factory=list)
    subjects_deleted: list[str] = dataclasses.field(default_factory=list)

    def decoder(self, mode: str) -> Callable[[bytes], Any]:
        """Reads one record key or value of `mode` back (JSON without its schema envelope, or an Avro datum)."""
        if mode == modes.AVRO:
            return AvroDecoder(self.registry).decode
        return kafkautil.json_datum

    def source_ts(self, mode: str) -> kafkautil.SourceTs:
        decode = self.decoder(mode)
        return lambda value: int(decode(value)["source"]["ts_ms"])


# --------------------------------------------------------------------------------------------------------------------
# small measurement helpers


def percentile(sorted_values: list[int] | list[float], q: float) -> float:
    """Nearest-rank percentile of already sorted values."""
    if not sorted_values:
        return math.nan
    rank = max(1, math.ceil(q * len(sorted_values)))
    return float(sorted_values[min(rank, len(sorted_values)) - 1])


def cpu_times(pid: int) -> float:
    """utime + stime of a process (and its reaped children) in seconds."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    return (int(fields[11]) + int(fields[12])) / ticks


def machine_busy() -> tuple[float, float]:
    """(busy, total) jiffies of all CPUs from /proc/stat."""
    parts = [int(x) for x in Path("/proc/stat").read_text().splitlines()[0].split()[1:]]
    idle = parts[3] + parts[4]
    total = sum(parts[:8])
    return total - idle, total


@contextlib.contextmanager
def cpu_window(pid: int) -> Iterator[dict[str, float]]:
    """Measures the process's CPU seconds and the whole machine's busy share while the block runs."""
    out: dict[str, float] = {}
    p0, (b0, t0), w0 = cpu_times(pid), machine_busy(), time.monotonic()
    yield out
    p1, (b1, t1), w1 = cpu_times(pid), machine_busy(), time.monotonic()
    out["process_cpu_s"] = round(p1 - p0, 3)
    out["process_cpu_pct"] = round(100 * (p1 - p0) / max(w1 - w0, 1e-6), 1)
    out["machine_busy_pct"] = round(100 * (b1 - b0) / max(t1 - t0, 1), 1)
    out["wall_s"] = round(w1 - w0, 3)


def wait_records(worker: Worker, topic: str, offset: int, wm: kafkautil.Watermarks, timeout: float) -> None:
    """Wait until `topic` holds `offset` records, failing fast when the connector or its task FAILED."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            wm.wait_for(topic, offset, timeout=min(5.0, max(0.1, deadline - time.monotonic())))
            return
        except TimeoutError:
            if time.monotonic() > deadline:
                raise
        answer = worker.get(f"/connectors/{CONNECTOR}/status")
        if answer.status == 200 and "FAILED" in answer.body.decode(errors="replace"):
            raise RuntimeError(f"{worker.kind}: connector failed: {answer.body!r}\n{worker.log_tail()}")


def connector_config(
    ctx: Context, kind: str, prefix: str, table: str, mode: str, extra: dict[str, str] | None = None
) -> dict[str, str]:
    return postgres_connector_config(
        prefix=prefix,
        dbname=ctx.dbname,
        slot=f"{prefix}_slot",
        publication=f"{prefix}_pub",
        tables=[f"public.{table}"],
        pg_port=PG_PORT,
        **{
            "snapshot.mode": "initial",
            **modes.converter_config(kind, mode),
            "producer.override.acks": "all",
            **ctx.plan.connector_extra,
            **(extra or {}),
        },
    )


def make_worker(
    kind: str, name: str, bootstrap: str, profile_to: Path | None = None, extra: tuple[str, ...] = ()
) -> Worker:
    if kind == "ours":
        run_dir = STATE_DIR / "bench" / name
        return OursProcess(
            kafka_bootstrap=bootstrap,
            name=name,
            pg_port=PG_PORT,
            run_dir=run_dir,
            profile_to=profile_to,
            extra_properties=extra,
        )
    return DebeziumProcess(kafka_bootstrap=bootstrap, name=name, pg_port=PG_PORT)


@contextlib.contextmanager
def running(ctx: Context, worker: Worker, prefix: str, topics: list[str], mode: str) -> Iterator[Worker]:
    """Start `worker` (data topics created first) and clean up everything the run made, whatever happens."""
    ok = False
    all_topics = [*topics, f"{prefix}.transaction"]
    subjects = [f"{t}-{side}" for t in all_topics for side in ("key", "value")] if mode == modes.AVRO else []
    ctx.subjects += subjects  # TopicNameStrategy (ours) and TopicIdStrategy (Apicurio): <topic>-key, <topic>-value
    try:
        if isinstance(worker, DebeziumProcess) and worker.run_dir is not None:
            worker.run_dir.mkdir(parents=True, exist_ok=True)
            worker.note_token(ctx.dbname)  # reap_orphans drops the database should this process die
        kafkautil.create_topics(ctx.plan.bootstrap, topics)
        worker.start()
        yield worker
        ok = True
    finally:
        with contextlib.suppress(Exception):
            worker.delete_connector(CONNECTOR, timeout=30)
        worker.stop()
        with pgload.connect(ctx.dbname) as conn:
            pgload.drop_publication_and_slot(conn, f"{prefix}_pub", f"{prefix}_slot")
        kafkautil.delete_topics(ctx.plan.bootstrap, all_topics)
        ctx.subjects_deleted += ctx.registry.delete_subjects(subjects)
        worker.delete_internal_topics()
        # keep the log when something failed; Debezium's run folders (with the tokens reap_orphans uses should
        # this process die before dropping the database) are removed by reap_orphans after a day
        if ok and isinstance(worker, OursProcess) and worker.run_dir is not None:
            shutil.rmtree(worker.run_dir, ignore_errors=True)


#: the letter of a mode in the run's topic prefix
MODE_TAGS = {"schemas_off": "n", "schemas_on": "s", modes.AVRO: "a"}


def check_first_record(ctx: Context, topic: str, mode: str) -> None:
    """The first record of a stream run must read back in its mode (JSON, or Confluent-framed Avro with a schema in
    the registry) as the seed row's snapshot event: a converter writing something else fails the run here."""
    [(key, value)] = kafkautil.read_records(ctx.plan.bootstrap, topic, 0, 1)
    decode = ctx.decoder(mode)
    datum = decode(value) if value is not None else None
    if key is None or not isinstance(datum, dict) or datum.get("op") != "r" or decode(key).get("id") is None:
        raise RuntimeError(f"{topic}: the first record is not the seed row's snapshot event in {mode}: {datum!r}")


# --------------------------------------------------------------------------------------------------------------------
# phases


def walsender_pid(conn: pgload.PgConn, slot: str) -> int | None:
    row = conn.execute("SELECT active_pid FROM pg_replication_slots WHERE slot_name = %s", (slot,)).fetchone()
    return None if row is None or row[0] is None else int(row[0])


def throughput_phase(
    ctx: Context,
    worker: Worker,
    conn: pgload.PgConn,
    table: str,
    topic: str,
    wm: kafkautil.Watermarks,
    rows: int,
    slot: str,
    *,
    whole: bool = False,
) -> dict[str, Any]:
    """`whole`: read every record of the phase back rather than its edges (a transactional topic, whose offsets
    also count commit markers: its last record is not at a known offset)."""
    pid = worker.pid()
    assert pid is not None
    start = wm.high(topic)
    profiled = isinstance(worker, OursProcess) and worker.profile_to is not None
    if profiled:
        assert isinstance(worker, OursProcess)
        worker.profile_start()
    walsender = walsender_pid(conn, slot)
    w0 = cpu_times(walsender) if walsender else 0.0
    with RssSampler(pid) as rss, cpu_window(pid) as cpu:
        insert_s = pgload.load(conn, table, ctx.ids, rows, TXN_ROWS)
        wait_records(worker, topic, start + rows, wm, timeout=120 + rows / 1_000)
    walsender_cpu = cpu_times(walsender) - w0 if walsender else math.nan
    if profiled:
        assert isinstance(worker, OursProcess)
        worker.profile_stop()
    read = kafkautil.read_range if whole else kafkautil.read_edges
    recs = read(ctx.plan.bootstrap, topic, start, start + rows)
    span = max(1, recs.append_ms[-1] - recs.append_ms[0]) / 1000.0
    avg = sum(recs.sizes) / len(recs.sizes)
    return {
        "events": rows,
        "span_s": round(span, 3),
        "events_per_s": round(rows / span, 1),
        "mb_per_s": round(rows * avg / span / 1e6, 2),
        "avg_event_bytes": round(avg, 1),
        "insert_s": round(insert_s, 3),
        "insert_rows_per_s": round(rows / insert_s, 1),
        "rss_peak_during_kb": rss.peak_kb,
        **cpu,
        "cpu_us_per_event": round(cpu["process_cpu_s"] / rows * 1e6, 2),
        "walsender_cpu_pct": round(100 * walsender_cpu / cpu["wall_s"], 1),
    }


def big_transaction_phase(
    worker: Worker, conn: pgload.PgConn, table: str, topic: str, wm: kafkautil.Watermarks, ids: Any, rows: int
) -> dict[str, Any]:
    """One transaction of `rows` rows: the worker's RSS while it streams it, against its RSS before."""
    pid = worker.pid()
    assert pid is not None
    start = wm.high(topic)
    before = proc_memory_kb(pid)[0]
    with RssSampler(pid) as rss, cpu_window(pid) as cpu:
        t0 = time.monotonic()
        pgload.insert_range(conn, table, ids.take(rows), rows)
        insert_s = time.monotonic() - t0
        wait_records(worker, topic, start + rows, wm, timeout=300 + rows / 1_000)
    return {
        "rows": rows,
        "insert_s": round(insert_s, 3),
        "rss_before_kb": before,
        "rss_peak_kb": rss.peak_kb,
        "rss_growth_kb": rss.peak_kb - before,
        "events_per_s": round(rows / max(cpu["wall_s"] - insert_s, 1e-3), 1),
    }


def latency_phase(
    ctx: Context,
    worker: Worker,
    conn: pgload.PgConn,
    table: str,
    topic: str,
    wm: kafkautil.Watermarks,
    rate: int,
    mode: str,
) -> dict[str, Any]:
    pid = worker.pid()
    assert pid is not None
    start = wm.high(topic)
    with cpu_window(pid) as cpu:
        run = pgload.insert_at_rate(conn, table, ctx.ids, rate, ctx.plan.size.latency_s)
        wait_records(worker, topic, start + run.rows, wm, timeout=120 + run.rows / 1_000)
    recs = kafkautil.read_range(ctx.plan.bootstrap, topic, start, start + run.rows, source_ts=ctx.source_ts(mode))
    lat = sorted(a - s for a, s in zip(recs.append_ms, recs.source_ts_ms, strict=True))
    return {
        "target_rate": rate,
        "achieved_rate": round(run.achieved_rate, 1),
        "late_ticks": run.late_ticks,
        "events": run.rows,
        "p50_ms": percentile(lat, 0.50),
        "p90_ms": percentile(lat, 0.90),
        "p99_ms": percentile(lat, 0.99),
        "max_ms": float(lat[-1]) if lat else math.nan,
        "mean_ms": round(sum(lat) / len(lat), 2) if lat else math.nan,
        **cpu,
    }


def stream_run(
    ctx: Context,
    kind: str,
    mode: str,
    *,
    latency: bool = True,
    profile_to: Path | None = None,
    exactly_once: bool = False,
) -> dict[str, Any]:
    """`exactly_once`: this worker with exactly.once.source.support=enabled and the connector's records and offsets in
    one Kafka transaction per poll batch. Where a phase waits for `n` records by the topic's end offset, that is a
    lower bound there (markers take offsets too); every read then counts records, which a read_committed reader
    sees only once their transaction committed."""
    tag = "p" if profile_to is not None else ("e" if exactly_once else MODE_TAGS[mode])
    prefix = f"{ctx.token}{kind[0]}{tag}"
    table = f"{prefix}_st"
    topic = f"{prefix}.public.{table}"
    bootstrap = ctx.plan.bootstrap
    result: dict[str, Any] = {}
    with pgload.connect(ctx.dbname) as conn:
        pgload.create_table(conn, table)
        pgload.insert_range(conn, table, ctx.ids.take(1), 1)
        wm = kafkautil.Watermarks(bootstrap)
        worker = make_worker(kind, prefix + "w", bootstrap, profile_to, EOS_WORKER if exactly_once else ())
        try:
            with running(ctx, worker, prefix, [topic], mode):
                pid = worker.pid()
                assert pid is not None
                result["rest_ready_s"] = round(worker.ready_at - worker.spawned_at, 3)
                posted = time.time()
                extra = EOS_CONNECTOR if exactly_once else None
                worker.create_connector(CONNECTOR, connector_config(ctx, kind, prefix, table, mode, extra))
                wait_records(worker, topic, 1, wm, timeout=180)
                first = kafkautil.read_range(bootstrap, topic, 0, 1)
                check_first_record(ctx, topic, mode)
                result["first_event_s"] = round(first.append_ms[0] / 1000 - worker.spawned_at, 3)
                result["first_event_after_post_s"] = round(first.append_ms[0] / 1000 - posted, 3)
                # the probe row proves the connector streams before anything is measured
                pgload.insert_range(conn, table, ctx.ids.take(1), 1)
                wait_records(worker, topic, 2, wm, timeout=180)
                time.sleep(ctx.plan.size.idle_s)
                result["rss_idle_kb"] = proc_memory_kb(pid)[0]
                rows = ctx.plan.size.rows_for_profile if profile_to is not None else ctx.plan.size.stream_rows
                log.info("%s %s: streaming throughput, %d rows", kind, mode, rows)
                result["throughput"] = throughput_phase(
                    ctx, worker, conn, table, topic, wm, rows, f"{prefix}_slot", whole=exactly_once
                )
                if latency:
                    for rate in ctx.plan.size.latency_rates:
                        log.info("%s %s: latency at %d events/s", kind, mode, rate)
                        result[f"latency_{rate}"] = latency_phase(ctx, worker, conn, table, topic, wm, rate, mode)
                rss, hwm = proc_memory_kb(pid)
                result["rss_end_kb"] = rss
                result["rss_peak_kb"] = max(hwm, result["throughput"]["rss_peak_during_kb"])
                big = ctx.plan.size.big_txn_rows
                if big and kind == "ours" and profile_to is None and not exactly_once:
                    log.info("%s %s: one transaction of %d rows", kind, mode, big)
                    result["big_transaction"] = big_transaction_phase(worker, conn, table, topic, wm, ctx.ids, big)
        finally:
            wm.close()
            conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(table)))
    return result


def snapshot_run(ctx: Context, kind: str, mode: str, threads: int = 1) -> dict[str, Any]:
    """The initial snapshot of the preloaded table; `threads` > 1 sets snapshot.max.threads (both systems)."""
    prefix = f"{ctx.token}{kind[0]}{MODE_TAGS[mode]}x{threads if threads > 1 else ''}"
    topic = f"{prefix}.public.{ctx.snap_table}"
    rows = ctx.plan.size.snapshot_rows
    bootstrap = ctx.plan.bootstrap
    wm = kafkautil.Watermarks(bootstrap)
    worker = make_worker(kind, prefix + "w", bootstrap)
    try:
        with running(ctx, worker, prefix, [topic], mode):
            pid = worker.pid()
            assert pid is not None
            posted = time.time()
            with RssSampler(pid) as rss, cpu_window(pid) as cpu:
                config = connector_config(ctx, kind, prefix, ctx.snap_table, mode)
                if threads > 1:
                    config["snapshot.max.threads"] = str(threads)
                worker.create_connector(CONNECTOR, config)
                wait_records(worker, topic, rows, wm, timeout=180 + rows / 1_000)
            recs = kafkautil.read_edges(bootstrap, topic, 0, rows)
            span = max(1, recs.append_ms[-1] - recs.append_ms[0]) / 1000.0
            avg = sum(recs.sizes) / len(recs.sizes)
            _, hwm = proc_memory_kb(pid)
            return {
                "rows": rows,
                "span_s": round(span, 3),
                "rows_per_s": round(rows / span, 1),
                "mb_per_s": round(rows * avg / span / 1e6, 2),
                "avg_event_bytes": round(avg, 1),
                "post_to_last_s": round(recs.append_ms[-1] / 1000 - posted, 3),
                "first_event_s": round(recs.append_ms[0] / 1000 - worker.spawned_at, 3),
                "rss_peak_kb": max(hwm, rss.peak_kb),
                **cpu,
            }
    finally:
        wm.close()


def incremental_run(ctx: Context, kind: str, mode: str, profile_to: Path | None = None) -> dict[str, Any]:
    """An incremental snapshot of the preloaded table, asked for by a signal row once the connector streams
    (snapshot.mode=no_data, incremental.snapshot.chunk.size=INCREMENTAL_CHUNK for both systems); rows/s from the
    first to the last READ record."""
    prefix = f"{ctx.token}{kind[0]}{MODE_TAGS[mode]}i"
    topic = f"{prefix}.public.{ctx.snap_table}"
    signal_table = f"{ctx.token}_signal"
    rows = ctx.plan.size.snapshot_rows
    bootstrap = ctx.plan.bootstrap
    wm = kafkautil.Watermarks(bootstrap)
    worker = make_worker(kind, prefix + "w", bootstrap, profile_to)
    try:
        with running(ctx, worker, prefix, [topic, f"{prefix}.public.{signal_table}"], mode):
            pid = worker.pid()
            assert pid is not None
            config = connector_config(ctx, kind, prefix, ctx.snap_table, mode)
            config.update(
                {
                    "snapshot.mode": "no_data",
                    "signal.data.collection": f"public.{signal_table}",
                    "incremental.snapshot.chunk.size": str(INCREMENTAL_CHUNK),
                }
            )
            worker.create_connector(CONNECTOR, config)
            with pgload.connect(ctx.dbname) as conn:
                deadline = time.monotonic() + 120
                while not pgload.slot_streaming(conn, f"{prefix}_slot"):
                    if time.monotonic() > deadline:
                        raise RuntimeError(f"{kind}: the slot never streamed\n{worker.log_tail()}")
                    time.sleep(0.2)
                time.sleep(1.0)
                posted = time.time()
                if profile_to is not None:
                    assert isinstance(worker, OursProcess)
                    worker.profile_start()
                with RssSampler(pid) as rss, cpu_window(pid) as cpu:
                    conn.execute(
                        sql.SQL("INSERT INTO {} VALUES (%s, 'execute-snapshot', %s)").format(
                            sql.Identifier(signal_table)
                        ),
                        (prefix, '{"data-collections": ["public.' + ctx.snap_table + '"]}'),
                    )
                    conn.commit()
                    wait_records(worker, topic, rows, wm, timeout=300 + rows / 500)
                if profile_to is not None:
                    assert isinstance(worker, OursProcess)
                    worker.profile_stop()
            recs = kafkautil.read_edges(bootstrap, topic, 0, rows)
            span = max(1, recs.append_ms[-1] - recs.append_ms[0]) / 1000.0
            _, hwm = proc_memory_kb(pid)
            return {
                "rows": rows,
                "chunk_size": INCREMENTAL_CHUNK,
                "span_s": round(span, 3),
                "rows_per_s": round(rows / span, 1),
                "signal_to_last_s": round(recs.append_ms[-1] / 1000 - posted, 3),
                "rss_peak_kb": max(hwm, rss.peak_kb),
                **cpu,
            }
    finally:
        wm.close()


# --------------------------------------------------------------------------------------------------------------------
# the whole run


def baseline_busy_pct(seconds: float = 2.0) -> float:
    """How busy the machine is with nothing of this benchmark running (other tenants, tests, …)."""
    b0, t0 = machine_busy()
    time.sleep(seconds)
    b1, t1 = machine_busy()
    return round(100 * (b1 - b0) / max(t1 - t0, 1), 1)


def _host() -> dict[str, Any]:
    return {
        "cpus": os.cpu_count(),
        "baseline_busy_pct": baseline_busy_pct(),
        "loadavg": Path("/proc/loadavg").read_text().split()[:3],
        "python": platform.python_version(),
        "kernel": platform.release(),
    }


def _guard(label: str, fn: Callable[[], dict[str, Any]], errors: dict[str, str]) -> dict[str, Any] | None:
    """Run one measurement; a failure is recorded (and logged) instead of aborting the others."""
    began = time.monotonic()
    try:
        out = fn()
    except Exception as e:  # every error of one measurement is reported; the rest still runs
        log.exception("%s failed", label)
        errors[label] = f"{type(e).__name__}: {e}"
        return None
    log.info("%s done in %.1f s", label, time.monotonic() - began)
    out["_duration_s"] = round(time.monotonic() - began, 1)
    return out


def check_disk(plan: Plan, where: Path) -> None:
    """Refuse a run that would fill the disk halfway through (Kafka and PostgreSQL would fail, not the check)."""
    need = plan.size.disk_needed(plan.modes, sink=plan.sink, runs=bool(plan.only - {SINK}))
    free = shutil.disk_usage(where).free
    if need > free:
        raise SystemExit(
            f"BENCH_SIZE={plan.size.name} with schemas {'on' if 'schemas_on' in plan.modes else 'off'} needs about "
            f"{need / 1e9:.0f} GB free under {where}, which has {free / 1e9:.0f} GB: free space, or run a smaller "
            "size or BENCH_SCHEMAS=off,avro"
        )


def run(plan: Plan) -> dict[str, Any]:
    check_disk(plan, next(p for p in (STATE_DIR, *STATE_DIR.parents) if p.exists()))
    token = unique_token("bench")
    ctx = Context(plan=plan, token=token, dbname=token, snap_table=f"{token}_snap")
    errors: dict[str, str] = {}
    started = time.time()
    kinds = [k for k in KINDS if k in plan.systems]
    avro = modes.AVRO in plan.modes and bool(kinds) and bool(plan.only & RUNS)  # the sink phase uses no registry
    if avro:
        ctx.registry.check()
    results: dict[str, Any] = {
        "meta": {
            "size": dataclasses.asdict(plan.size),
            "systems": list(plan.systems),
            "schemas": list(plan.modes),
            # the converter settings of each mode, as both connectors got them
            "converters": {m: {k: modes.converter_config(k, m) for k in kinds} for m in plan.modes},
            "started": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(started)),
            "host_before": _host(),
            "txn_rows": TXN_ROWS,
            "token": token,
            "connector_extra": plan.connector_extra,
            "runs": sorted(plan.only),
        },
        "runs": {},
        "errors": errors,
    }
    if "ours" in plan.systems:
        compile_bytecode()
    drop_database(token, port=PG_PORT)
    with pgload.connect("postgres") as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(token)))
    try:
        with pgload.connect(token) as conn:
            pgload.create_table(conn, ctx.snap_table)
            conn.execute(
                sql.SQL(
                    "CREATE TABLE {} (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))"
                ).format(sql.Identifier(f"{token}_signal"))
            )
            if any(s != "ceiling" for s in plan.systems) and plan.only & SNAPSHOT_RUNS:
                log.info("loading %d snapshot rows", plan.size.snapshot_rows)
                load_s = pgload.load(conn, ctx.snap_table, ctx.ids, plan.size.snapshot_rows, 100_000)
                conn.execute(sql.SQL("VACUUM (ANALYZE) {}").format(sql.Identifier(ctx.snap_table)))
                results["meta"]["snapshot_load_rows_per_s"] = round(plan.size.snapshot_rows / load_s, 1)
        if "ceiling" in plan.systems:
            log.info("ceiling: pg_recvlogical, %d rows", plan.size.stream_rows)
            results["ceiling"] = _guard(
                "ceiling", lambda: ceiling.measure(token, token, plan.size.stream_rows).as_dict(), errors
            )
        for kind in kinds:
            for mode in plan.modes:
                entry = results["runs"].setdefault(kind, {}).setdefault(mode, {})
                if "stream" in plan.only:
                    log.info("%s %s: stream run", kind, mode)
                    entry["stream"] = _guard(
                        f"{kind}.{mode}.stream", functools.partial(stream_run, ctx, kind, mode), errors
                    )
                if "snapshot" in plan.only:
                    log.info("%s %s: snapshot run, %d rows", kind, mode, plan.size.snapshot_rows)
                    entry["snapshot"] = _guard(
                        f"{kind}.{mode}.snapshot", functools.partial(snapshot_run, ctx, kind, mode), errors
                    )
                if mode == "schemas_off" and "incremental" in plan.only:
                    log.info("%s %s: incremental snapshot run, %d rows", kind, mode, plan.size.snapshot_rows)
                    entry["incremental"] = _guard(
                        f"{kind}.{mode}.incremental", functools.partial(incremental_run, ctx, kind, mode), errors
                    )
                if kind == "ours" and mode == "schemas_off" and EOS in plan.only:
                    log.info("%s %s: stream run with exactly-once delivery", kind, mode)
                    entry["stream_eos"] = _guard(
                        f"{kind}.{mode}.stream_eos",
                        functools.partial(stream_run, ctx, kind, mode, exactly_once=True),
                        errors,
                    )
                if mode == "schemas_off" and "parallel" in plan.only:
                    threads = PARALLEL_SNAPSHOT_THREADS
                    log.info("%s %s: snapshot run with snapshot.max.threads=%d", kind, mode, threads)
                    entry["snapshot_parallel"] = _guard(
                        f"{kind}.{mode}.snapshot_parallel",
                        functools.partial(snapshot_run, ctx, kind, mode, threads),
                        errors,
                    )
        if CLUSTER in plan.only and kinds:
            from benchmarks import cluster

            results["cluster"] = cluster.cluster_phase(ctx, kinds, lambda label, fn: _guard(label, fn, errors))
        if plan.sink:
            from benchmarks import sink  # imports this module

            log.info("sink: the Spark sink phase, %d change events", plan.size.sink_events)
            results["sink"] = sink.sink_phase(ctx, errors)
        if plan.profile and "ours" in plan.systems:
            prof = plan.out_dir / "ours-streaming.prof"
            plan.out_dir.mkdir(parents=True, exist_ok=True)
            log.info("profile: ours under cProfile, %d rows", plan.size.rows_for_profile)
            events = plan.size.rows_for_profile

            def profiled() -> dict[str, Any]:
                run = stream_run(ctx, "ours", "schemas_off", latency=False, profile_to=prof)
                return {"run": run, **profiling.summarise(prof, plan.out_dir / "profile.txt", events=events)}

            results["profile"] = _guard("profile", profiled, errors)
    finally:
        drop_database(token, port=PG_PORT)
        if avro:  # whatever a failed run's own clean-up left in the registry
            ctx.subjects_deleted += ctx.registry.delete_subjects(ctx.subjects)
            results["meta"]["registry_subjects_deleted"] = sorted(set(ctx.subjects_deleted))
    results["meta"]["host_after"] = _host()
    results["meta"]["finished"] = time.strftime("%Y-%m-%dT%H:%M:%S%z")
    results["meta"]["duration_s"] = round(time.time() - started, 1)
    return results
