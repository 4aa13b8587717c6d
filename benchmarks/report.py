"""Ratios, target verdicts, and the three outputs of a run: results.json, results.md and chart.png."""

from __future__ import annotations

import json
import logging
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("benchmarks")

MODES = ("schemas_off", "schemas_on", "avro")  # JsonConverter schemas.enable false / true; Avro (benchmarks/modes.py)
KINDS = ("ours", "debezium")
AVRO = "avro"


def dig(doc: Any, *path: str) -> Any:
    for p in path:
        if not isinstance(doc, dict):
            return None
        doc = doc.get(p)
    return doc


def _num(x: Any) -> float | None:
    if isinstance(x, int | float) and not (isinstance(x, float) and math.isnan(x)):
        return float(x)
    return None


def ratio(a: Any, b: Any) -> float | None:
    x, y = _num(a), _num(b)
    if x is None or y is None or y == 0:
        return None
    return round(x / y, 3)


def metric(results: dict[str, Any], kind: str, mode: str, name: str) -> Any:
    """One figure of a system/mode by a short name (see METRICS)."""
    run = dig(results, "runs", kind, mode)
    getter = METRICS[name][1]
    return getter(run) if run is not None else None


def _mb(kb: Any) -> float | None:
    return None if _num(kb) is None else round(float(kb) / 1024, 1)


METRICS: dict[str, tuple[str, Callable[[Any], Any]]] = {
    "stream_eps": ("Streaming events/s", lambda r: dig(r, "stream", "throughput", "events_per_s")),
    "stream_mbps": ("Streaming MB/s (key+value)", lambda r: dig(r, "stream", "throughput", "mb_per_s")),
    "event_bytes": ("Avg event bytes (key+value)", lambda r: dig(r, "stream", "throughput", "avg_event_bytes")),
    "cpu_us": ("Worker CPU µs/event (streaming)", lambda r: dig(r, "stream", "throughput", "cpu_us_per_event")),
    "cpu_pct": ("Worker CPU % (streaming)", lambda r: dig(r, "stream", "throughput", "process_cpu_pct")),
    "busy_pct": ("Machine busy % (streaming)", lambda r: dig(r, "stream", "throughput", "machine_busy_pct")),
    "walsender_pct": ("Walsender CPU % (streaming)", lambda r: dig(r, "stream", "throughput", "walsender_cpu_pct")),
    "insert_rps": ("Loader rows/s during streaming", lambda r: dig(r, "stream", "throughput", "insert_rows_per_s")),
    "p50_1k": ("Latency p50 @1k/s (ms)", lambda r: dig(r, "stream", "latency_1000", "p50_ms")),
    "p99_1k": ("Latency p99 @1k/s (ms)", lambda r: dig(r, "stream", "latency_1000", "p99_ms")),
    "p50_10k": ("Latency p50 @10k/s (ms)", lambda r: dig(r, "stream", "latency_10000", "p50_ms")),
    "p99_10k": ("Latency p99 @10k/s (ms)", lambda r: dig(r, "stream", "latency_10000", "p99_ms")),
    "max_10k": ("Latency max @10k/s (ms)", lambda r: dig(r, "stream", "latency_10000", "max_ms")),
    "rate_10k": ("Achieved insert rate @10k/s", lambda r: dig(r, "stream", "latency_10000", "achieved_rate")),
    "eos_eps": (
        "Streaming events/s, exactly once (schemas off)",
        lambda r: dig(r, "stream_eos", "throughput", "events_per_s"),
    ),
    "eos_cpu_us": (
        "Worker CPU µs/event, exactly once",
        lambda r: dig(r, "stream_eos", "throughput", "cpu_us_per_event"),
    ),
    "eos_p99_1k": ("Latency p99 @1k/s, exactly once (ms)", lambda r: dig(r, "stream_eos", "latency_1000", "p99_ms")),
    "eos_p99_10k": (
        "Latency p99 @10k/s, exactly once (ms)",
        lambda r: dig(r, "stream_eos", "latency_10000", "p99_ms"),
    ),
    "snap_rps": ("Snapshot rows/s", lambda r: dig(r, "snapshot", "rows_per_s")),
    "snap_mbps": ("Snapshot MB/s", lambda r: dig(r, "snapshot", "mb_per_s")),
    "inc_rps": (
        "Incremental snapshot rows/s, chunk 1024 (schemas off)",
        lambda r: dig(r, "incremental", "rows_per_s"),
    ),
    "inc_cpu": ("Worker CPU % in that snapshot", lambda r: dig(r, "incremental", "process_cpu_pct")),
    "snap_par_rps": (
        "Snapshot rows/s, snapshot.max.threads=2 (schemas off)",
        lambda r: dig(r, "snapshot_parallel", "rows_per_s"),
    ),
    "snap_par_cpu": (
        "Worker CPU % in that snapshot",
        lambda r: dig(r, "snapshot_parallel", "process_cpu_pct"),
    ),
    "snap_par_busy": (
        "Machine busy % in that snapshot",
        lambda r: dig(r, "snapshot_parallel", "machine_busy_pct"),
    ),
    "rss_idle": ("RSS idle, streaming (MB)", lambda r: _mb(dig(r, "stream", "rss_idle_kb"))),
    "rss_peak": ("RSS peak, stream run (MB)", lambda r: _mb(dig(r, "stream", "rss_peak_kb"))),
    "rss_snap": ("RSS peak, snapshot run (MB)", lambda r: _mb(dig(r, "snapshot", "rss_peak_kb"))),
    "big_tx_rss": (
        "RSS peak, one big transaction (MB)",
        lambda r: _mb(dig(r, "stream", "big_transaction", "rss_peak_kb")),
    ),
    "big_tx_growth": (
        "RSS growth during it (MB)",
        lambda r: _mb(dig(r, "stream", "big_transaction", "rss_growth_kb")),
    ),
    "first_event": ("Process start → first event (s)", lambda r: dig(r, "stream", "first_event_s")),
    "rest_ready": ("Process start → REST ready (s)", lambda r: dig(r, "stream", "rest_ready_s")),
}


def derive(results: dict[str, Any]) -> None:
    """Adds `ratios` and `targets` to the results in place."""
    ceiling = results.get("ceiling") or {}
    ratios: dict[str, Any] = {}
    for mode in MODES:
        r: dict[str, Any] = {}
        for name in METRICS:
            o, d = metric(results, "ours", mode, name), metric(results, "debezium", mode, name)
            r[f"{name}_ours_over_debezium"] = ratio(o, d)
        for kind in KINDS:
            eps = metric(results, kind, mode, "stream_eps")
            r[f"stream_eps_{kind}_over_ceiling"] = ratio(eps, ceiling.get("events_per_s"))
            r[f"stream_eps_{kind}_over_live_ceiling"] = ratio(eps, ceiling.get("live_events_per_s"))
        ratios[mode] = r
    results["ratios"] = ratios
    results["targets"] = [t for mode in MODES for t in _targets(results, mode)] + _sink_targets(results)


def _verdict(tid: str, mode: str, text: str, value: Any, met: bool | None, detail: str) -> dict[str, Any]:
    return {
        "id": tid,
        "mode": mode,
        "target": text,
        "value": value,
        "met": met,
        "detail": detail,
    }


def _cpu_limit(needed: float, cpu_us: float | None, cpu_pct: float | None) -> str:
    """Why a rate was not reached when this worker is CPU-bound: what the needed rate costs in cores at the
    measured CPU per event, and the CPU per event the cores it had would allow."""
    if not cpu_us or not cpu_pct:
        return ""
    cores = cpu_pct / 100
    return (
        f"; limit: {needed:,.0f} ev/s at {cpu_us:.1f} µs CPU/event needs {needed * cpu_us / 1e6:.2f} cores of "
        f"this worker, it had {cores:.2f} here (one asyncio thread + librdkafka), so ≤ {cores * 1e6 / needed:.1f} "
        "µs/event would be needed"
    )


def _targets(results: dict[str, Any], mode: str) -> list[dict[str, Any]]:
    out = []
    cpu_us = _num(metric(results, "ours", mode, "cpu_us"))
    cpu_pct = _num(metric(results, "ours", mode, "cpu_pct"))
    ceiling = results.get("ceiling") or {}
    eps = _num(metric(results, "ours", mode, "stream_eps"))
    dbz_eps = _num(metric(results, "debezium", mode, "stream_eps"))
    ceil = _num(ceiling.get("events_per_s"))
    if eps is not None:
        eff = eps / ceil if ceil else None
        met = eps >= 100_000 or (eff is not None and eff >= 0.8)
        detail = f"{eps:,.0f} ev/s = {eps / 100_000:.2f}x of 100k"
        if eff is not None:
            detail += f"; {eff:.2f} of the ceiling ({ceil:,.0f} ev/s, target 0.8)"
        if not met:
            detail += _cpu_limit(min(100_000, 0.8 * ceil) if ceil else 100_000, cpu_us, cpu_pct)
        out.append(_verdict("G1", mode, "≥100k events/s or ≥0.8 of ceiling", eps, met, detail))
    if eps is not None and dbz_eps:
        x = eps / dbz_eps
        detail = f"{x:.2f}x (target 3x)" + ("" if x >= 3 else _cpu_limit(3 * dbz_eps, cpu_us, cpu_pct))
        if mode == AVRO:
            text = "streaming with Avro values ≥3x Debezium+Apicurio events/s"
            out.append(_verdict("A1", mode, text, round(x, 2), x >= 3, detail))
        else:
            out.append(_verdict("G1b", mode, "streaming ≥3x Debezium", round(x, 2), x >= 3, detail))
    json_eps = _num(metric(results, "ours", "schemas_on", "stream_eps"))
    if mode == AVRO and eps is not None and json_eps:
        x = eps / json_eps
        detail = f"{eps:,.0f} vs {json_eps:,.0f} ev/s = {x:.2f}x"
        json_us = _num(metric(results, "ours", "schemas_on", "cpu_us"))
        if cpu_us and json_us:
            detail += f"; CPU {cpu_us:.1f} vs {json_us:.1f} µs/event"
        text = "our Avro streaming faster than our JSON with schemas (events/s)"
        out.append(_verdict("A2", mode, text, round(x, 2), x > 1, detail))
    p99 = _num(metric(results, "ours", mode, "p99_10k"))
    if p99 is not None:
        out.append(
            _verdict("G2", mode, "p99 ≤ 50 ms at 10k events/s", p99, p99 <= 50, f"p99 {p99:.0f} ms (limit 50 ms)")
        )
    out += _exactly_once_targets(results, mode, eps)
    snap, dbz_snap = (
        _num(metric(results, "ours", mode, "snap_rps")),
        _num(metric(results, "debezium", mode, "snap_rps")),
    )
    if snap is not None and dbz_snap:
        x = snap / dbz_snap
        run = dig(results, "runs", "ours", mode, "snapshot") or {}
        cpu_s, rows = _num(run.get("process_cpu_s")), _num(run.get("rows"))
        snap_us = cpu_s / rows * 1e6 if cpu_s and rows else None
        limit = _cpu_limit(3 * dbz_snap, snap_us, _num(run.get("process_cpu_pct")))
        detail = f"{x:.2f}x (target 3x)" + ("" if x >= 3 else limit)
        out.append(_verdict("G3", mode, "snapshot ≥3x Debezium", round(x, 2), x >= 3, detail))
    for name, what in (("rss_peak", "peak"), ("rss_idle", "idle")):
        o, d = _num(metric(results, "ours", mode, name)), _num(metric(results, "debezium", mode, name))
        if o is not None and d:
            x = o / d
            tid = "G4" + ("" if what == "peak" else "b")
            detail = f"{o:.0f} MB vs {d:.0f} MB = {x:.2f} (limit 0.25)"
            out.append(_verdict(tid, mode, f"RSS ({what}) ≤ 1/4 of Debezium's", round(x, 3), x <= 0.25, detail))
    first = _num(metric(results, "ours", mode, "first_event"))
    if first is not None:
        out.append(_verdict("G5", mode, "first event < 1 s after process start", first, first < 1.0, f"{first:.2f} s"))
    return out


EOS_RATIO_TARGET = 0.8  # exactly-once streaming events/s over at-least-once, poll boundaries
EOS_P99_LIMIT_MS = 100  # exactly-once p99 at 10k events/s


def _exactly_once_targets(results: dict[str, Any], mode: str, eps: float | None) -> list[dict[str, Any]]:
    out = []
    eos = _num(metric(results, "ours", mode, "eos_eps"))
    if eos is not None and eps:
        x = eos / eps
        detail = f"{eos:,.0f} vs {eps:,.0f} ev/s = {x:.2f} (target {EOS_RATIO_TARGET})"
        cpu, eos_cpu = _num(metric(results, "ours", mode, "cpu_us")), _num(metric(results, "ours", mode, "eos_cpu_us"))
        if cpu and eos_cpu:
            detail += f"; CPU {eos_cpu:.1f} vs {cpu:.1f} µs/event"
        text = f"exactly-once streaming ≥ {EOS_RATIO_TARGET} of at-least-once (transaction.boundary=poll)"
        out.append(_verdict("E1", mode, text, round(x, 2), x >= EOS_RATIO_TARGET, detail))
    p99 = _num(metric(results, "ours", mode, "eos_p99_10k"))
    if p99 is not None:
        text = f"exactly-once p99 ≤ {EOS_P99_LIMIT_MS} ms at 10k events/s"
        detail = f"p99 {p99:.0f} ms (limit {EOS_P99_LIMIT_MS} ms)"
        out.append(_verdict("E2", mode, text, p99, p99 <= EOS_P99_LIMIT_MS, detail))
    return out


SINK_RATIO_TARGET = 0.5  # spark_sink's MERGE rate over the plain-append rate of the same records


def _sink_targets(results: dict[str, Any]) -> list[dict[str, Any]]:
    sink = results.get("sink") or {}
    out = []
    runs = (("S1", "", "merge", "ratio"), ("S1i", " into Iceberg", "merge_iceberg", "ratio_iceberg"))
    for target, into, merge_key, ratio_key in runs:  # each MERGE over the same plain Delta append
        for master, x in (sink.get(ratio_key) or {}).items():
            merge = _num(dig(sink, merge_key, master, "events_per_s")) or 0.0
            append = _num(dig(sink, "append", master, "events_per_s")) or 0.0
            detail = f"{merge:,.0f} vs {append:,.0f} ev/s = {x:.2f} (target {SINK_RATIO_TARGET})"
            bare = _num(dig(sink, "ratio_bare_merge", master))
            if bare is not None:
                detail += f"; a bare MERGE per table and batch reaches {bare:.2f}"
            text = f"spark_sink MERGE{into} ≥ {SINK_RATIO_TARGET} of the plain Delta append (events/s)"
            out.append(_verdict(target, f"sink {master}", text, x, x >= SINK_RATIO_TARGET, detail))
    check = sink.get("check")
    if check:
        diffs = [f"{w}: {'; '.join(r['differences'][:3])}" for w, r in check["warehouses"].items() if r["differences"]]
        detail = check["status"] + (" — " + " | ".join(diffs) if diffs else f" ({', '.join(check['warehouses'])})")
        met = check["status"] == "PASSED"
        out.append(_verdict("S2", "sink", "Delta/Iceberg tables equal the source tables", check["status"], met, detail))
    return out


def _sink_section(results: dict[str, Any]) -> list[str]:
    sink = results.get("sink")
    if not sink:
        return []
    meta = results["meta"]
    load = sink.get("load") or {}
    mix = sink.get("mix") or {}
    lines = [
        "## Spark sink: this worker's change events → Delta and Iceberg (spark_sink, MERGE)",
        "",
        f"{sink['events']:,} change events over {sink['tables']} tables ({_pct(mix.get('insert'))} inserts, "
        f"{_pct(mix.get('update'))} updates of existing keys, {_pct(mix.get('delete'))} deletes: "
        + ", ".join(f"{_fmt(n)} {op}s" for op, n in (load.get("events_by_op") or {}).items())
        + f"; {_fmt(load.get('records'))} Kafka records with the deletes' tombstones), written by "
        f"{sink.get('source')}; all in Kafka "
        f"{_fmt(load.get('load_to_arrived_s'))} s after the load began. Each run: a fresh warehouse and checkpoint, "
        f"trigger available-now, at most {_fmt(sink.get('max_offsets_per_trigger'))} records per trigger (the "
        f"sink's setting; the append ceiling: one query per topic with "
        f"{_fmt(sink.get('append_max_offsets_per_query'))} each, so both make Delta commits of the same sizes); "
        "Spark conf: "
        + "; ".join(
            f"`{m}` " + ", ".join(f"{k}={v}" for k, v in c.items()) for m, c in (sink.get("spark_conf") or {}).items()
        )
        + ". "
        "Events/s over the query's wall time, from its first batch planned to its last committed (Spark's "
        "checkpoint files); the JVM, session and job start-up before it apart. Machine busy with nothing of the "
        f"benchmark running: {dig(meta, 'host_before', 'baseline_busy_pct')} % before, "
        f"{dig(meta, 'host_after', 'baseline_busy_pct')} % after.",
        "",
    ]
    masters = sink.get("masters") or []
    kinds = ("merge", "merge_iceberg", "append", "bare_merge")
    cols = [(kind, m) for kind in kinds for m in masters if dig(sink, kind, m)]
    rows = [
        ("Events/s", "events_per_s"),
        ("Query wall time (s)", "query_s"),
        ("Batches per query (Delta commits per table)", "batches"),
        ("Process start → query created (s)", "startup_s"),
        ("Query created → first batch (s)", "created_to_first_batch_s"),
        ("Spark CPU % (of one core) in the query", "process_cpu_pct"),
        ("Machine busy % in the query", "machine_busy_pct"),
    ]
    names = {
        "merge": "spark_sink MERGE (Delta)",
        "merge_iceberg": "spark_sink MERGE (Iceberg)",
        "append": "plain append",
        "bare_merge": "bare MERGE",
    }
    lines += [
        "| | " + " | ".join(f"{names[k]} `{m}`" for k, m in cols) + " |",
        "|---|" + "---:|" * len(cols),
    ]
    for label, key in rows:
        lines.append(f"| {label} | " + " | ".join(_fmt(dig(sink, k, m, key)) for k, m in cols) + " |")
    ratio = sink.get("ratio") or {}
    lines += [
        "",
        "MERGE ÷ plain append (events/s, target ≥ 0.5): "
        + ("; ".join(f"`{m}` {_fmt(ratio.get(m))}" for m in masters) or "-")
        + "; into Iceberg ÷ the same Delta append: "
        + ("; ".join(f"`{m}` {_fmt((sink.get('ratio_iceberg') or {}).get(m))}" for m in masters) or "-")
        + ". The bare MERGE (one MERGE of the raw records by key per table and batch, nothing else: the most "
        "any MERGE job reaches with commits of these sizes) ÷ the append: "
        + ("; ".join(f"`{m}` {_fmt((sink.get('ratio_bare_merge') or {}).get(m))}" for m in masters) or "-")
        + "; spark_sink (Delta) ÷ the bare MERGE: "
        + ("; ".join(f"`{m}` {_fmt((sink.get('ratio_of_bare_merge') or {}).get(m))}" for m in masters) or "-")
        + ".",
        "",
    ]
    lag = sink.get("lag")
    if lag:
        lines += [
            f"End-to-end lag, commit in PostgreSQL → visible in Delta: {_fmt(lag.get('rows'))} rows at "
            f"{_fmt(lag.get('target_rate'))} rows/s (achieved {_fmt(lag.get('achieved_rate'))}) for "
            f"{_fmt(lag.get('seconds'))} s over every table, job `{lag.get('master')}` with trigger "
            f"`{lag.get('trigger')}`; a row's commit time is clock_timestamp() in its transaction, its visibility the "
            "commit time of the first Delta version holding it (its `_delta_log` entry).",
            "",
            "| p50 ms | p90 ms | p99 ms | max ms | mean ms | batches | mean batch s | max batch s | Spark CPU % | "
            "machine busy % |",
            "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
            "| "
            + " | ".join(
                _fmt(lag.get(k))
                for k in (
                    "p50_ms",
                    "p90_ms",
                    "p99_ms",
                    "max_ms",
                    "mean_ms",
                    "batches",
                    "batch_mean_s",
                    "batch_max_s",
                    "process_cpu_pct",
                    "machine_busy_pct",
                )
            )
            + " |",
            "",
        ]
    check = sink.get("check")
    if check:
        lines.append(
            f"Check (row count and sums of id, version, amount and a name hash per table): **{check['status']}**"
        )
        for w, r in check["warehouses"].items():
            lines.append(
                f"- `{w}`: {r['status']}" + (": " + "; ".join(r["differences"][:10]) if r["differences"] else "")
            )
        lines.append("")
    elif "run_folder" in sink:
        lines += ["Check: not made (see the errors).", ""]
    if "run_folder" in sink:
        lines += [f"Run folder kept for a look (Spark logs, tables): `{sink['run_folder']}`.", ""]
    return lines


def _pct(x: Any) -> str:
    return "-" if _num(x) is None else f"{float(x) * 100:.0f} %"


# --------------------------------------------------------------------------------------------------------------------
# outputs


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        if abs(x) >= 1000:
            return f"{x:,.0f}"
        if abs(x) >= 10:
            return f"{x:.1f}"
        return f"{x:.3g}"
    if isinstance(x, int):
        return f"{x:,}"
    return str(x)


def _avro_line(meta: dict[str, Any]) -> str:
    """What the avro mode ran with, from the converter settings recorded in the run's meta."""
    ours = dig(meta, "converters", AVRO, "ours") or {}
    dbz = dig(meta, "converters", AVRO, "debezium") or {}
    parts = []
    if ours:
        url = ours.get("value.converter.schema.registry.url")
        parts.append(f"this worker `{ours.get('value.converter')}` (schema.registry.url={url})")
    if dbz:
        prefix = "value.converter.apicurio.registry."
        settings = ", ".join(f"{k.removeprefix(prefix)}={v}" for k, v in dbz.items() if k.startswith(prefix))
        parts.append(f"Debezium Apicurio's `{dbz.get('value.converter')}` ({settings})")
    return (
        "Avro mode: keys and values in Avro, Confluent framing (magic byte, 4-byte schema id), schemas registered "
        "under `<topic>-key` / `<topic>-value` in the devstack's Apicurio Registry; " + "; ".join(parts) + "."
    )


def _cluster_section(results: dict[str, Any]) -> list[str]:
    cluster = results.get("cluster")
    if not cluster:
        return []
    lines = [
        "## Distributed mode: 3 workers of one Connect cluster",
        "",
        "Failover: a PostgreSQL connector under ~200 inserted rows/s; the worker running its task is killed "
        "(SIGKILL). session.timeout.ms 10000, heartbeat.interval.ms 3000 (Connect's defaults), "
        "scheduled.rebalance.max.delay.ms 0 on both systems.",
        "",
        "| System | kill → task RUNNING elsewhere (s) | kill → first event of a row committed after the kill (s) "
        "| rows | lost | sent twice |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind, run in (cluster.get("failover") or {}).items():
        if run:
            lines.append(
                f"| {kind} | {run['kill_to_running_s']} | {run['kill_to_first_new_event_s']} | {run['rows']:,} "
                f"| {run['lost']} | {run['twice']} |"
            )
    rb = cluster.get("rebalance")
    if rb:
        lines += [
            "",
            f"Rebalancing, this worker: {rb['connectors']} FileStreamSource connectors (one task each) created "
            f"through the REST API of the {rb['members']} workers in turn: all {2 * rb['connectors']} connectors and "
            f"tasks RUNNING {rb['create_to_all_running_s']} s after the first request ({rb['create_s']} s of "
            f"requests), spread {rb['spread_3']}; one worker stopped → everything RUNNING on the other two in "
            f"{rb['worker_stop_to_all_running_s']} s ({rb['spread_2']}); a worker added → running its share in "
            f"{rb['worker_join_to_balanced_s']} s ({rb['spread_3_again']}). (Connect's Java worker is not run here: "
            "its plugin path has no FileStreamSource.)",
        ]
    return [*lines, ""]


def markdown(results: dict[str, Any]) -> str:
    meta = results["meta"]
    size = meta["size"]
    lines = [
        f"# connect-worker vs Debezium 3.6.3 — `{size['name']}` run",
        "",
        f"Started {meta['started']}, {meta.get('duration_s', '?')} s. Host: {meta['host_before']['cpus']} CPUs, "
        f"load average before {' '.join(meta['host_before']['loadavg'])}, after "
        f"{' '.join(dig(meta, 'host_after', 'loadavg') or ['?'])}; machine busy with nothing of the benchmark "
        f"running: {dig(meta, 'host_before', 'baseline_busy_pct')} % before, "
        f"{dig(meta, 'host_after', 'baseline_busy_pct')} % after (other tenants); "
        f"Python {meta['host_before']['python']}."
        + (f" Connector settings added: `{meta['connector_extra']}`." if meta.get("connector_extra") else ""),
        f"Workload: {size['stream_rows']:,} rows streamed in {meta['txn_rows']:,}-row transactions inserted after the "
        f"connector streams; latency phases {size['latency_s']:.0f} s at {', '.join(map(str, size['latency_rates']))}"
        f" events/s; snapshot of {size['snapshot_rows']:,} rows. Producer acks=all; one partition per topic; "
        "figures from Kafka LogAppendTime.",
        "",
    ]
    if AVRO in meta.get("schemas", []) and any(dig(results, "runs", k, AVRO) for k in KINDS):
        lines += [_avro_line(meta), ""]
    ceiling = results.get("ceiling")
    if ceiling:
        lines += [
            "## Ceiling: pg_recvlogical (pgoutput proto 1)",
            "",
            "| backlog drain → /dev/null ev/s | WAL MB/s | live (during inserts) ev/s | pgoutput MB/s live | "
            "loader rows/s | WAL B/row |",
            "|---:|---:|---:|---:|---:|---:|",
            f"| {_fmt(ceiling.get('events_per_s'))} | {_fmt(ceiling.get('wal_mb_per_s'))} | "
            f"{_fmt(ceiling.get('live_events_per_s'))} | {_fmt(ceiling.get('live_pgoutput_mb_per_s'))} | "
            f"{_fmt(ceiling.get('insert_rows_per_s'))} | {_fmt(ceiling.get('wal_bytes_per_row'))} |",
            "",
        ]
    cols = [(k, m) for k in KINDS for m in MODES if dig(results, "runs", k, m)]
    if cols:
        head = " | ".join(f"{k} {m.replace('schemas_', 'schemas ')}" for k, m in cols)
        ratio_cols = [m for m in MODES if all(dig(results, "runs", k, m) for k in KINDS)]
        ratio_head = "".join(f" | ours ÷ debezium ({m.replace('schemas_', 'schemas ')})" for m in ratio_cols)
        lines += [
            "## Results",
            "",
            "| Metric | " + head + ratio_head + " |",
            "|---|" + "---:|" * (len(cols) + len(ratio_cols)),
        ]
        for name, (label, _get) in METRICS.items():
            vals = [_fmt(metric(results, k, m, name)) for k, m in cols]
            rat = [_fmt(dig(results, "ratios", m, f"{name}_ours_over_debezium")) for m in ratio_cols]
            lines.append(f"| {label} | " + " | ".join(vals + rat) + " |")
        lines.append("")
        eff = []
        for k, m in cols:
            e = dig(results, "ratios", m, f"stream_eps_{k}_over_ceiling")
            live = dig(results, "ratios", m, f"stream_eps_{k}_over_live_ceiling")
            eff.append(f"{k} {m}: {_fmt(e)} of the backlog ceiling, {_fmt(live)} of the live ceiling")
        lines += ["CDC efficiency (streaming events/s ÷ pg_recvlogical rows/s): " + "; ".join(eff) + ".", ""]
    lines += _sink_section(results)
    lines += _cluster_section(results)
    targets = results.get("targets") or []
    if targets:
        lines += ["## Targets (issue)", ""]
        if size["name"] != "full" and any(dig(results, "runs", "debezium", m) for m in MODES):
            lines += [
                "At this size Debezium is measured while its JVM is still warming up (JIT): in a `full` run it "
                "used about half the CPU per event. Its figures here are low and the ratios against it "
                "optimistic: judge the ≥3x targets with `BENCH_SIZE=full`.",
                "",
            ]
        lines += ["| Target | Mode | Met | Detail |", "|---|---|---|---|"]
        for t in targets:
            met = "✅ met" if t["met"] else "❌ not met"
            lines.append(f"| {t['id']}: {t['target']} | {t['mode']} | {met} | {t['detail']} |")
        lines.append("")
    prof = results.get("profile")
    if prof:
        lines += [
            "## Profile of this worker (cProfile, streaming throughput window only, schemas off)",
            "",
            f"{prof['events']:,} events; throughput under the profiler "
            f"{_fmt(dig(prof, 'run', 'throughput', 'events_per_s'))} events/s (cProfile slows Python code down, so "
            f"this is not a result). Main-thread time {prof['total_own_time_s']} s, of which "
            f"{prof['idle_epoll_s']} s waiting in epoll and {prof['busy_s']} s busy = "
            f"{_fmt(prof.get('busy_us_per_event'))} µs/event under the profiler. "
            f"Full listing in `{Path(prof['text_file']).name}`.",
            "",
            "### Own time by area (share of busy time)",
            "",
            "| Area | own s | share | µs/event |",
            "|---|---:|---:|---:|",
            *[
                f"| `{a['area']}` | {a['tottime_s']} | {a['share_pct']} % | {_fmt(a.get('us_per_event'))} |"
                for a in prof["own_time_by_area"][:20]
            ],
            "",
            "### Top by own (total) time",
            "",
            "| Function | calls | tottime s | cumtime s |",
            "|---|---:|---:|---:|",
            *[
                f"| `{r['function']}` | {r['ncalls']:,} | {r['tottime_s']} | {r['cumtime_s']} |"
                for r in prof["top_tottime"][:25]
            ],
            "",
            "### Top by cumulative time (project functions)",
            "",
            "| Function | calls | tottime s | cumtime s |",
            "|---|---:|---:|---:|",
            *[
                f"| `{r['function']}` | {r['ncalls']:,} | {r['tottime_s']} | {r['cumtime_s']} |"
                for r in prof.get("top_cumulative_project", prof["top_cumulative"])[:25]
            ],
            "",
        ]
    if results.get("errors"):
        lines += ["## Errors", ""] + [f"- `{k}`: {v}" for k, v in results["errors"].items()] + [""]
    return "\n".join(lines)


def chart(results: dict[str, Any], path: Path) -> bool:
    """A PNG with the headline figures; False (and a warning) when matplotlib is not installed."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        log.warning("matplotlib is not installed: no chart (pip install matplotlib)")
        return False
    cols = [(k, m) for k in KINDS for m in MODES if dig(results, "runs", k, m)]
    labels = [f"{k}\n{m.replace('schemas_', 'schemas ')}" for k, m in cols]
    colors = ["#2b7bba" if k == "ours" else "#d95f02" for k, _ in cols]
    panels: list[tuple[str, list[str]]] = [
        ("Streaming events/s", ["stream_eps"]),
        ("Snapshot rows/s: serial, snapshot.max.threads=2", ["snap_rps", "snap_par_rps"]),
        ("Latency @10k/s (ms): p50, p99", ["p50_10k", "p99_10k"]),
        ("Latency @1k/s (ms): p50, p99", ["p50_1k", "p99_1k"]),
        ("RSS (MB): idle, peak", ["rss_idle", "rss_peak"]),
        ("Process start → first event (s)", ["first_event"]),
    ]
    fig, axes = plt.subplots(2, 3, figsize=(max(15.0, 3.2 * len(cols)), 8.5))  # 6 columns need ~19 in.
    for ax, (title, names) in zip(axes.flat, panels, strict=True):
        width = 0.8 / len(names)
        for j, name in enumerate(names):
            got = [_num(metric(results, k, m, name)) for k, m in cols]
            vals = [v or 0.0 for v in got]
            xs = [i + (j - (len(names) - 1) / 2) * width for i in range(len(cols))]
            ax.bar(xs, vals, width=width * 0.95, color=colors, alpha=1.0 if j == len(names) - 1 else 0.55)
            for x, v in zip(xs, got, strict=True):
                if v is not None:  # not measured (e.g. the parallel snapshot with schemas on): no label
                    ax.annotate(_fmt(v), (x, v), ha="center", va="bottom", fontsize=7)
        ceiling = results.get("ceiling") or {}
        if names == ["stream_eps"] and ceiling.get("events_per_s"):
            ax.axhline(ceiling["events_per_s"], color="k", ls="--", lw=1)
            ax.annotate("pg_recvlogical ceiling", (0, ceiling["events_per_s"]), fontsize=7, va="bottom")
        ax.set_title(title, fontsize=10)
        ax.set_xticks(range(len(cols)), labels, fontsize=8)
    fig.suptitle(
        f"connect-worker (blue) vs Debezium 3.6.3 on Kafka Connect 4.3.1 (orange) — {results['meta']['size']['name']}"
    )
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _clean(x: Any) -> Any:
    """NaN → null, so that results.json is strict JSON."""
    if isinstance(x, float) and math.isnan(x):
        return None
    if isinstance(x, dict):
        return {k: _clean(v) for k, v in x.items()}
    if isinstance(x, list | tuple):
        return [_clean(v) for v in x]
    return x


def write(results: dict[str, Any], out_dir: Path) -> dict[str, Path]:
    results = _clean(results)
    derive(results)
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {"json": out_dir / "results.json", "markdown": out_dir / "results.md", "chart": out_dir / "chart.png"}
    files["json"].write_text(json.dumps(results, indent=2, default=str, allow_nan=False) + "\n")
    files["markdown"].write_text(markdown(results))
    if not chart(results, files["chart"]):
        del files["chart"]
    return files
