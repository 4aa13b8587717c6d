"""The Spark sink phase: this worker's change events materialised into Delta tables by spark_sink.

1. Source: SINK_TABLES fresh tables in the run's scratch database, one connector of this worker on them (JsonConverter
   with schemas: the sink needs them for exact types, snapshot.mode=no_data), then `sink_events` change events —
   inserts, updates of existing keys and deletes (SINK_MIX) in one transaction per round (benchmarks/sinkload.py) —
   waited for until every topic holds them.
2. Throughput: `python -m spark_sink --config …` (available-now, a fresh warehouse and checkpoint under the run
   folder) once per master of SINK_MASTERS, into Delta tables and again into Iceberg tables (`merge_iceberg`); the
   plain-append ceiling: the same records appended to one Delta table per topic by bare Structured Streaming queries
   (benchmarks/sinkspark.py), per master too; and the bare-MERGE ceiling: the same queries MERGEing each batch's raw
   records by key instead (one MERGE per table and batch and nothing else: what any MERGE job is bounded by).
   Events/s over the query's wall time, from its first batch planned to its last batch committed (Spark's
   checkpoint files, benchmarks/sinkfiles.py); process start → query created (JVM, session, job set-up) is reported
   apart.
3. End-to-end lag: the job again, on a copy of the last throughput run's warehouse and checkpoint, with
   SINK_LAG_TRIGGER; rows inserted at SINK_LAG_RATE rows/s for `sink_lag_s`, each stamped with clock_timestamp() in
   ms (`ins_ms`, in its transaction); a row's visibility is the time the first Delta version holding it was
   committed (its `_delta_log` file's mtime), read back after the run from the Delta log and the files each version
   added, so the reading never competes with the job.
4. Check: every Delta and Iceberg table against its source table (row count and sums over key, version, amount and a
   hash of the name, benchmarks/sinkload.py CHECKSUM); any difference makes the phase FAILED (and the run's exit
   code 1).

The job is used through its public entry only (`python -m spark_sink`, configuration validated with
`spark_sink.config.from_mapping`), never its own columns. Every Spark program runs in a process group of its own
and is stopped by that group's id; topics, slot, publication, worker, tables and the run folder (kept on failure, with
the Spark logs) are removed whatever happens.
"""

from __future__ import annotations

import functools
import json
import logging
import os
import shutil
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from psycopg import sql

from benchmarks import kafkautil, pgload, sinkfiles, sinkload
from benchmarks.runner import CONNECTOR, Context, make_worker, running, wait_records
from benchmarks.settings import (
    PG_PORT,
    SINK_LAG_RATE,
    SINK_LAG_TRIGGER,
    SINK_MASTERS,
    SINK_MIX,
    SINK_ROUND_EVENTS,
    SINK_TABLES,
)
from benchmarks.sparkproc import SparkProcess
from benchmarks.workers import ROOT
from tests.differential.debezium import STATE_DIR, postgres_connector_config

log = logging.getLogger("benchmarks")

MODE = "schemas_on"  # JsonConverter with schemas: the sink reads exact types from them
JARS_DIR = Path(os.environ.get("CW_STATE_DIR", str(ROOT / ".devstack"))) / "spark" / "jars"
KEY, STAMP = "id", "ins_ms"  # the source rows' key and commit-time stamp (ms), columns of sinkload's tables


def spark_conf(master: str) -> dict[str, str]:
    """The same for the sink and the append ceiling: shuffle and Delta snapshot partitions = the master's cores."""
    cores = master.removeprefix("local[").removesuffix("]")
    return {
        "spark.sql.shuffle.partitions": cores,
        "spark.databricks.delta.snapshotPartitions": cores,
        "spark.ui.showConsoleProgress": "false",
    }


CEILINGS = {"append": "append", "merge": "bare_merge"}  # benchmarks/sinkspark.py command → the ceiling's name


def slug(master: str) -> str:
    return master.replace("[", "").replace("]", "").replace("*", "all")


# --------------------------------------------------------------------------------------------------------------------
# the phase


class SinkPhase:
    def __init__(self, ctx: Context, errors: dict[str, str]) -> None:
        self.ctx = ctx
        self.errors = errors
        size = ctx.plan.size
        self.events = size.sink_events
        self.prefix = f"{ctx.token}k"
        self.tables = [f"{self.prefix}_t{i}" for i in range(SINK_TABLES)]
        self.topics = [f"{self.prefix}.public.{t}" for t in self.tables]
        self.keys = [sinkload.Keyspace() for _ in self.tables]
        #: the records each topic must hold: one per change event, and a tombstone after each delete event
        #: (tombstones.on.delete, true by default); raised to what the topics really hold once they arrived
        self.expected = dict.fromkeys(self.topics, 0)
        self.folder = STATE_DIR / "bench" / f"{self.prefix}sink"
        self.bootstrap = ctx.plan.bootstrap
        self.result: dict[str, Any] = {
            "events": self.events,
            "tables": SINK_TABLES,
            "mix": {"insert": SINK_MIX[0], "update": SINK_MIX[1], "delete": round(1 - sum(SINK_MIX), 3)},
            "source": f"this worker, JsonConverter schemas on, {SINK_ROUND_EVENTS * SINK_TABLES:,}-event transactions",
            "masters": list(SINK_MASTERS),
            "spark_conf": {m: spark_conf(m) for m in SINK_MASTERS},
            "merge": {},
            "merge_iceberg": {},
            "append": {},
            "bare_merge": {},
            "ratio": {},
            "ratio_iceberg": {},
            "ratio_bare_merge": {},  # the bare MERGE over the append: the most a MERGE job reaches here
            "ratio_of_bare_merge": {},  # spark_sink (Delta) over the bare MERGE
            # events/s of each ceiling with the sink's defaults and with Spark's code generation (the faster counts)
            "ceiling_variants": {},
        }

    # -- helpers ---------------------------------------------------------------------------------------------------

    def guard(self, label: str, fn: Callable[[], Any]) -> Any:
        """One part of the phase; a failure is recorded as `sink.<label>` and the other parts still run."""
        began = time.monotonic()
        try:
            out = fn()
        except Exception as e:  # every error of one part is reported; the rest of the phase still runs
            log.exception("sink %s failed", label)
            self.errors[f"sink.{label}"] = f"{type(e).__name__}: {e}"
            return None
        log.info("sink %s done in %.1f s", label, time.monotonic() - began)
        return out

    def job_document(
        self, master: str, warehouse: Path, checkpoint: Path, trigger: str, table_format: str = "delta"
    ) -> dict[str, Any]:
        return {
            "source": {
                "bootstrap_servers": self.bootstrap,
                "topics": self.topics,
                "starting_offsets": "earliest",
                "format": "json",
                "schemas": "true",
            },
            "sink": {
                "warehouse": str(warehouse),
                "table_format": table_format,
                "checkpoint": str(checkpoint),
                "table_name_template": "{table}",
                "trigger": trigger,
                "fail_fast": True,  # a record the job cannot apply fails the run instead of being timed
                "query_name": f"bench_sink_{slug(master)}",
            },
            "spark": {"master": master, "jars_dir": str(JARS_DIR), "conf": spark_conf(master)},
        }

    def write_job_config(self, name: str, document: dict[str, Any]) -> Path:
        """The job's configuration file, validated first by the job's own parser (pure, no Spark)."""
        from spark_sink.config import from_mapping

        config = from_mapping(document)
        cap = getattr(config, "max_offsets_per_trigger", None)
        self.result["max_offsets_per_trigger"] = cap
        path = self.folder / f"{name}.json"
        path.write_text(json.dumps(document, indent=1))
        return path

    def wait_arrived(self, worker: Any, wm: kafkautil.Watermarks, timeout: float) -> None:
        """Until every topic holds its expected records; then what they hold is what a query must read (a record
        the worker sent twice counts too)."""
        deadline = time.monotonic() + timeout
        for topic, count in self.expected.items():
            wait_records(worker, topic, count, wm, timeout=max(10.0, deadline - time.monotonic()))
        for topic in self.topics:
            self.expected[topic] = max(self.expected[topic], wm.high(topic))

    def check_consumed(self, name: str, checkpoints: Sequence[sinkfiles.Checkpoint]) -> None:
        ends: dict[str, int] = {}
        for c in checkpoints:
            for topic, end in c.ends().items():
                ends[topic] = ends.get(topic, 0) + end
        short = {t: (ends.get(t, 0), n) for t, n in self.expected.items() if ends.get(t, 0) < n}
        if short:
            raise RuntimeError(f"{name}: the query ended before the end of its topics (read, held): {short}")

    # -- parts -----------------------------------------------------------------------------------------------------

    def load(self, conn: pgload.PgConn, worker: Any, wm: kafkautil.Watermarks) -> dict[str, Any]:
        mix = sinkload.Mix(*SINK_MIX)
        counts = {"insert": 0, "update": 0, "delete": 0}
        tombstones = self.connector_config().get("tombstones.on.delete", "true").lower() == "true"
        began = time.monotonic()
        for ops in sinkload.plan_rounds(self.keys, self.events, per_round=SINK_ROUND_EVENTS, mix=mix):
            sinkload.apply(conn, self.tables, ops)
            for op in ops:
                counts[op.kind] += op.events
                self.expected[self.topics[op.table]] += op.events * (2 if op.kind == "delete" and tombstones else 1)
        loaded = time.monotonic()
        self.wait_arrived(worker, wm, timeout=120 + self.events / 1_000)
        arrived = time.monotonic()
        return {
            "events_by_op": counts,
            "records": sum(self.expected.values()),  # the events and the deletes' tombstones
            "load_s": round(loaded - began, 3),
            "load_to_arrived_s": round(arrived - began, 3),
            "arrival_events_per_s": round(self.events / max(arrived - began, 1e-3), 1),
        }

    def merge_run(self, master: str, table_format: str = "delta") -> dict[str, Any]:
        name = f"merge-{slug(master)}" + ("" if table_format == "delta" else f"-{table_format}")
        run = self.folder / name
        document = self.job_document(master, run / "warehouse", run / "checkpoint", "available-now", table_format)
        config = self.write_job_config(name, document)
        proc = SparkProcess(
            f"spark_sink {master}", [sys.executable, "-m", "spark_sink", "--config", str(config)], run / "job.log"
        ).run_to_end(timeout=600 + self.events / 100)
        checkpoint = sinkfiles.read_checkpoint(run / "checkpoint")
        self.check_consumed(f"spark_sink {master}", [checkpoint])
        return proc.figures([checkpoint], self.events)

    def ceiling(self, master: str, command: str) -> dict[str, Any] | None:
        """A ceiling run twice: with the sink's defaults (no code generation) and with Spark's code generation; the
        faster is the ceiling, so the sink is never compared with a slowed one."""
        runs = {}
        for codegen in (False, True):
            label = f"{CEILINGS[command]}{'.codegen' if codegen else ''}.{master}"
            runs[codegen] = self.guard(label, functools.partial(self.append_run, master, command, codegen))
        variants = {"interpreted" if not c else "codegen": r and r["events_per_s"] for c, r in runs.items()}
        self.result["ceiling_variants"][f"{command}.{master}"] = variants
        done = [r for r in runs.values() if r]
        return max(done, key=lambda r: r["events_per_s"]) if done else None

    def append_run(self, master: str, command: str = "append", codegen: bool = False) -> dict[str, Any]:
        """The plain-append ceiling (`append`) or the bare-MERGE ceiling (`merge`), benchmarks/sinkspark.py;
        `codegen`: with Spark's code generation (its defaults) instead of the sink's."""
        name = CEILINGS[command].replace("_", "-")
        run = self.folder / f"{name}-{slug(master)}{'-codegen' if codegen else ''}"
        cap = self.result.get("max_offsets_per_trigger")
        # the sink's cap per trigger covers all topics; one query per topic here, each with its share, so that
        # both write the same number of Delta commits of the same sizes
        per_query = -(-int(cap) // len(self.topics)) if cap else 0
        self.result["append_max_offsets_per_query"] = per_query or None
        cmd = [
            sys.executable, "-m", "benchmarks.sinkspark", command,
            "--master", master, "--jars-dir", str(JARS_DIR), "--bootstrap", self.bootstrap,
            "--out", str(run / "warehouse"), "--checkpoints", str(run / "checkpoints"),
            "--max-offsets", str(per_query), "--timeout", str(600 + self.events / 250),
            *[f"--conf={k}={v}" for k, v in spark_conf(master).items()], *(["--codegen"] if codegen else []),
            *[f"{topic}={table}" for topic, table in zip(self.topics, self.tables, strict=True)],
        ]  # fmt: skip
        proc = SparkProcess(f"{command} {master}", cmd, run / f"{command}.log")
        proc.run_to_end(timeout=660 + self.events / 250)
        checkpoints = [sinkfiles.read_checkpoint(run / "checkpoints" / t) for t in self.tables]
        self.check_consumed(f"{command} {master}", checkpoints)
        out = proc.figures(checkpoints, self.events)
        shutil.rmtree(run / "warehouse", ignore_errors=True)  # the raw values: the largest folder of the phase
        return out

    def lag_run(self, conn: pgload.PgConn, worker: Any, wm: kafkautil.Watermarks, source: Path) -> dict[str, Any]:
        """The job with SINK_LAG_TRIGGER on a copy of `source` (a throughput run: its tables exist, its checkpoint is
        at the end of the topics), a warm-up row per table, then the fixed-rate inserts."""
        size = self.ctx.plan.size
        run = self.folder / "lag"
        shutil.copytree(source / "warehouse", run / "warehouse")
        shutil.copytree(source / "checkpoint", run / "checkpoint")
        master = SINK_MASTERS[-1]
        document = self.job_document(master, run / "warehouse", run / "checkpoint", SINK_LAG_TRIGGER)
        config = self.write_job_config("lag", document)
        readers = {}
        for table in self.tables:
            reader = sinkfiles.FirstSeen(run / "warehouse" / table, KEY, STAMP)
            reader.skip_to(sinkfiles.last_version(run / "warehouse" / table))
            readers[table] = reader
        before = sinkfiles.read_checkpoint(run / "checkpoint").last_id()
        proc = SparkProcess(
            f"spark_sink {master} {SINK_LAG_TRIGGER}",
            [sys.executable, "-m", "spark_sink", "--config", str(config)],
            run / "job.log",
        )
        proc.start()
        try:
            # warm-up: one row per table through the whole path (the restarted query's first batch is slow)
            sinkload.apply(conn, self.tables, self._one_row_each())
            self.wait_arrived(worker, wm, timeout=60)
            self._wait_processed(proc, run / "checkpoint", timeout=300)
            warm = sinkfiles.read_checkpoint(run / "checkpoint")
            warm_batches = warm.committed(before)
            warm_end = warm_batches[-1].committed if warm_batches else None
            after = warm.last_id()
            log.info("sink lag: %d rows/s for %.0f s (%s)", SINK_LAG_RATE, size.sink_lag_s, SINK_LAG_TRIGGER)
            rate_run, ranges = sinkload.insert_at_rate(conn, self.tables, self.keys, SINK_LAG_RATE, size.sink_lag_s)
            for t, first, last in ranges:
                self.expected[self.topics[t]] += last - first + 1
            self.wait_arrived(worker, wm, timeout=120)
            self._wait_processed(proc, run / "checkpoint", timeout=300 + 2 * size.sink_lag_s)
        finally:
            proc.stop()
        lags: list[float] = []
        missing = 0
        for t, first, last in ranges:
            reader = readers[self.tables[t]]
            reader.update()
            for key in range(first, last + 1):
                seen = reader.seen.get(key)
                if seen is None:
                    missing += 1
                else:
                    stamp_ms, visible = seen
                    lags.append(visible * 1000 - stamp_ms)
        if missing:
            raise RuntimeError(f"sink lag: {missing} of {rate_run.rows} rows never became visible")
        checkpoint = sinkfiles.read_checkpoint(run / "checkpoint")
        batches = checkpoint.committed(after)
        durations = [b.committed - b.planned for b in batches if b.committed is not None]
        window = sinkfiles.query_window([checkpoint], after)
        usage = sinkfiles.window_usage(proc.samples, window[0], window[1]) if window else {}
        return {
            "trigger": SINK_LAG_TRIGGER,
            "master": master,
            "target_rate": SINK_LAG_RATE,
            "seconds": size.sink_lag_s,
            "achieved_rate": round(rate_run.achieved_rate, 1),
            "late_ticks": rate_run.late_ticks,
            "rows": rate_run.rows,
            **sinkfiles.distribution(lags),
            "batches": len(batches),
            "batch_mean_s": round(sum(durations) / len(durations), 3) if durations else None,
            "batch_max_s": round(max(durations), 3) if durations else None,
            "start_to_warm_s": round(warm_end - proc.spawned_at, 3) if warm_end is not None else None,
            **usage,
        }

    def _one_row_each(self) -> list[sinkload.Op]:
        ops = []
        for t, ks in enumerate(self.keys):
            ops.append(sinkload.Op(t, "insert", ks.next, 1))
            ks.next += 1
            self.expected[self.topics[t]] += 1
        return ops

    def _wait_processed(self, proc: SparkProcess, checkpoint: Path, timeout: float) -> None:
        """Until the query's committed batches reach every topic's expected end (all applied to Delta)."""
        deadline = time.monotonic() + timeout
        while True:
            ends = sinkfiles.read_checkpoint(checkpoint).ends()
            if all(ends.get(t, 0) >= n for t, n in self.expected.items()):
                return
            if not proc.alive():
                raise RuntimeError(f"{proc.name} exited\n{proc.log_tail()}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"{proc.name}: not caught up after {timeout:.0f} s\n{proc.log_tail()}")
            time.sleep(0.2)

    def check(self, targets: dict[str, dict[str, dict[str, str]]]) -> dict[str, Any]:
        """Every warehouse of `targets` (folder → the source's checksums when it was written) against its source."""
        out = self.folder / "check.json"
        cmd = [
            sys.executable, "-m", "benchmarks.sinkspark", "check",
            "--master", SINK_MASTERS[-1], "--jars-dir", str(JARS_DIR), "--out", str(out),
            "--tables", ",".join(self.tables),
            *[f"--conf={k}={v}" for k, v in spark_conf(SINK_MASTERS[-1]).items()],
            *targets,
        ]  # fmt: skip
        SparkProcess("the check", cmd, self.folder / "check.log").run_to_end(timeout=600 + self.events / 1_000)
        found = json.loads(out.read_text())
        warehouses = {}
        for folder, expected in targets.items():
            diffs = compare(expected, found.get(folder, {}))
            warehouses[Path(folder).parent.name] = {"status": "FAILED" if diffs else "PASSED", "differences": diffs}
        return {
            "status": "PASSED" if all(w["status"] == "PASSED" for w in warehouses.values()) else "FAILED",
            "warehouses": warehouses,
            "source": next(iter(targets.values())),
        }

    # -- the whole phase -------------------------------------------------------------------------------------------

    def run(self) -> dict[str, Any]:
        """The phase; a failure is recorded in the errors (`sink`, or `sink.<part>`) and what was measured kept."""
        began = time.monotonic()
        try:
            self._run()
        except Exception as e:  # the phase's own failure: reported, the rest of the benchmark still runs
            log.exception("sink phase failed")
            self.errors["sink"] = f"{type(e).__name__}: {e}"
        self.result["_duration_s"] = round(time.monotonic() - began, 1)
        return self.result

    def _run(self) -> None:
        if not JARS_DIR.is_dir() or not any(JARS_DIR.glob("*.jar")):
            raise RuntimeError(f"no Spark jars in {JARS_DIR}: run devstack/spark.sh fetch (make up does)")
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder.mkdir(parents=True)
        ok = False
        wm = kafkautil.Watermarks(self.bootstrap)
        worker = make_worker("ours", self.prefix + "w", self.bootstrap)
        try:
            with pgload.connect(self.ctx.dbname) as conn:
                sinkload.create_tables(conn, self.tables)
                with running(self.ctx, worker, self.prefix, self.topics, MODE):
                    worker.create_connector(CONNECTOR, self.connector_config())
                    self._wait_streaming(conn, worker)
                    log.info("sink: %d change events over %d tables", self.events, SINK_TABLES)
                    self.result["load"] = self.load(conn, worker, wm)
                    loaded = sinkload.checksums(conn, self.tables)
                    self.throughput()
                    targets = {
                        str(self.folder / f"merge-{slug(m)}" / "warehouse"): loaded
                        for m in SINK_MASTERS
                        if self.result["merge"].get(m) is not None
                    }
                    targets |= {
                        str(self.folder / f"merge-{slug(m)}-iceberg" / "warehouse"): loaded
                        for m in SINK_MASTERS
                        if self.result["merge_iceberg"].get(m) is not None
                    }
                    if self.result["merge"].get(SINK_MASTERS[-1]) is not None:
                        source = self.folder / f"merge-{slug(SINK_MASTERS[-1])}"
                        self.result["lag"] = self.guard("lag", lambda: self.lag_run(conn, worker, wm, source))
                        if self.result["lag"] is not None:
                            targets[str(self.folder / "lag" / "warehouse")] = sinkload.checksums(conn, self.tables)
                if targets:
                    self.result["check"] = check = self.guard("check", lambda: self.check(targets))
                    if check is not None and check["status"] != "PASSED":
                        failed = [w for w, r in check["warehouses"].items() if r["status"] != "PASSED"]
                        self.errors["sink.check"] = f"FAILED: tables differ from the source in {failed}"
                for table in self.tables:
                    conn.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(sql.Identifier(table)))
            ok = not any(k == "sink" or k.startswith("sink.") for k in self.errors)
        finally:
            wm.close()
            if ok:
                shutil.rmtree(self.folder, ignore_errors=True)
            else:
                self.result["run_folder"] = str(self.folder)  # Spark logs and tables, kept for a look

    def throughput(self) -> None:
        for master in SINK_MASTERS:
            log.info("sink: spark_sink MERGE, %s, %d events", master, self.events)
            self.result["merge"][master] = self.guard(f"merge.{master}", functools.partial(self.merge_run, master))
        for master in SINK_MASTERS:
            log.info("sink: spark_sink MERGE into Iceberg, %s, %d events", master, self.events)
            run = functools.partial(self.merge_run, master, "iceberg")
            self.result["merge_iceberg"][master] = self.guard(f"merge_iceberg.{master}", run)
        for master in SINK_MASTERS:
            log.info("sink: plain append ceiling, %s", master)
            self.result["append"][master] = self.ceiling(master, "append")
        for master in SINK_MASTERS:
            log.info("sink: bare MERGE ceiling, %s", master)
            self.result["bare_merge"][master] = self.ceiling(master, "merge")
        for master in SINK_MASTERS:
            merge, append = self.result["merge"].get(master), self.result["append"].get(master)
            bare = self.result["bare_merge"].get(master)
            if merge and append:
                self.result["ratio"][master] = round(merge["events_per_s"] / append["events_per_s"], 3)
            if bare and append:
                self.result["ratio_bare_merge"][master] = round(bare["events_per_s"] / append["events_per_s"], 3)
            if merge and bare:
                self.result["ratio_of_bare_merge"][master] = round(merge["events_per_s"] / bare["events_per_s"], 3)
            iceberg = self.result["merge_iceberg"].get(master)
            if iceberg and append:  # over the same (Delta) append ceiling
                self.result["ratio_iceberg"][master] = round(iceberg["events_per_s"] / append["events_per_s"], 3)

    def connector_config(self) -> dict[str, str]:
        from benchmarks import modes

        return postgres_connector_config(
            prefix=self.prefix,
            dbname=self.ctx.dbname,
            slot=f"{self.prefix}_slot",
            publication=f"{self.prefix}_pub",
            tables=[f"public.{t}" for t in self.tables],
            pg_port=PG_PORT,
            **{
                "snapshot.mode": "no_data",
                **modes.converter_config("ours", MODE),
                "producer.override.acks": "all",
                **self.ctx.plan.connector_extra,
            },
        )

    def _wait_streaming(self, conn: pgload.PgConn, worker: Any, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while not pgload.slot_streaming(conn, f"{self.prefix}_slot"):
            if time.monotonic() > deadline:
                raise RuntimeError(f"sink: the slot never streamed\n{worker.log_tail()}")
            time.sleep(0.2)


def compare(expected: dict[str, dict[str, str]], found: dict[str, dict[str, str]]) -> list[str]:
    """The differences between the source's checksums and a warehouse's, one line each (none: equal)."""
    diffs = []
    for table, want in expected.items():
        got = found.get(table)
        if got is None:
            diffs.append(f"{table}: not checked")
            continue
        for field in sinkload.CHECKSUM_FIELDS:
            a, b = sinkload.normalise(want[field]), sinkload.normalise(got.get(field, "missing"))
            if a != b:
                diffs.append(f"{table}.{field}: source {a}, Delta {b}")
    return diffs


def sink_phase(ctx: Context, errors: dict[str, str]) -> dict[str, Any]:
    return SinkPhase(ctx, errors).run()
