"""The benchmark harness (benchmarks/) end to end at smoke size, so that it never rots: pg_recvlogical ceiling,
this worker with JsonConverter schemas off and on and with Avro through the devstack's schema registry, the cProfile
window, and the three outputs. No targets are checked (the machine is shared); only that every figure was measured
and that nothing is left behind (database, slots, topics, registry subjects).
Debezium (two JVM starts per mode, ~200 s more) is included only with BENCH_SMOKE_DEBEZIUM=1."""

from __future__ import annotations

import json
import math
import os
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import quote

import psycopg
import pytest
from confluent_kafka.admin import AdminClient

from benchmarks import report, runner
from benchmarks.settings import SIZES

pytestmark = [pytest.mark.integration, pytest.mark.timeout(420)]  # ~75 s; with Debezium ~270 s

MODES = ("schemas_off", "schemas_on", "avro")


def _positive(x: Any) -> bool:
    return isinstance(x, int | float) and not math.isnan(x) and x > 0


def test_bench_smoke(tmp_path: Path, kafka_bootstrap: str, pg_dsn: str, registry_url: str) -> None:
    with_debezium = os.environ.get("BENCH_SMOKE_DEBEZIUM") == "1"
    systems = ("ceiling", "ours", "debezium") if with_debezium else ("ceiling", "ours")
    plan = runner.Plan(
        size=SIZES["smoke"],
        systems=systems,
        modes=MODES,
        profile=True,
        out_dir=tmp_path,
        bootstrap=kafka_bootstrap,
    )
    results = runner.run(plan)
    files = report.write(results, tmp_path)

    assert results["errors"] == {}
    assert _positive(results["ceiling"]["events_per_s"])
    assert _positive(results["ceiling"]["live_events_per_s"])
    for kind in systems[1:]:
        for mode in MODES:
            run = results["runs"][kind][mode]
            stream, snap = run["stream"], run["snapshot"]
            assert _positive(stream["throughput"]["events_per_s"]), (kind, mode, stream)
            assert _positive(stream["throughput"]["mb_per_s"])
            for rate in plan.size.latency_rates:
                assert stream[f"latency_{rate}"]["events"] > 0
                assert stream[f"latency_{rate}"]["p99_ms"] >= stream[f"latency_{rate}"]["p50_ms"] >= 0
            assert _positive(stream["first_event_s"])
            if kind == "ours" and mode == "schemas_off":  # the exactly-once run of the same workload
                eos = run["stream_eos"]
                assert eos["throughput"]["events"] == stream["throughput"]["events"]
                assert _positive(eos["throughput"]["events_per_s"])
                assert eos[f"latency_{plan.size.latency_rates[-1]}"]["p99_ms"] >= 0
            assert stream["rss_peak_kb"] >= stream["rss_idle_kb"] > 0
            assert _positive(snap["rows_per_s"]) and snap["rows"] == plan.size.snapshot_rows
            if mode == "schemas_off":  # the parallel snapshot run (snapshot.max.threads)
                par = run["snapshot_parallel"]
                assert _positive(par["rows_per_s"]) and par["rows"] == plan.size.snapshot_rows
            if kind == "ours":
                big = stream["big_transaction"]
                assert big["rows"] == plan.size.big_txn_rows and big["rss_peak_kb"] >= big["rss_before_kb"] > 0
    # schemas on carries the schema in every value: bigger events; Avro has neither schemas nor field names
    ours = results["runs"]["ours"]
    on_bytes = ours["schemas_on"]["stream"]["throughput"]["avg_event_bytes"]
    off_bytes = ours["schemas_off"]["stream"]["throughput"]["avg_event_bytes"]
    assert on_bytes > 2 * off_bytes
    assert off_bytes > ours["avro"]["stream"]["throughput"]["avg_event_bytes"]
    assert results["profile"]["busy_s"] > 0 and results["profile"]["top_tottime"]
    assert (tmp_path / "profile.txt").stat().st_size > 0

    written = json.loads(files["json"].read_text())
    assert written["targets"] and written["ratios"]["schemas_off"]["stream_eps_ours_over_ceiling"] > 0
    target_ids = {t["id"] for t in written["targets"] if t["mode"] == "avro"}
    assert "A2" in target_ids and ("A1" in target_ids) == with_debezium
    md = files["markdown"].read_text()
    assert "| Streaming events/s |" in md and "## Targets (issue)" in md
    assert "| Snapshot rows/s, snapshot.max.threads=2 (schemas off) |" in md
    if "chart" in files:
        assert files["chart"].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"

    # nothing left behind: database (with its slots and publications) and topics
    token = results["meta"]["token"]
    with psycopg.connect(pg_dsn, autocommit=True) as conn:
        assert conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (token,)).fetchone() is None
        slots = conn.execute("SELECT slot_name FROM pg_replication_slots WHERE slot_name LIKE %s", (token + "%",))
        assert slots.fetchall() == []
    topics = AdminClient({"bootstrap.servers": kafka_bootstrap}).list_topics(timeout=10).topics
    assert [t for t in topics if t.startswith(token)] == []
    # the avro runs' subjects (key and value of the stream and snapshot topics at least), deleted permanently; by
    # name: Apicurio lists the first 1,000 subjects only
    subjects = results["meta"]["registry_subjects_deleted"]
    assert len(subjects) >= 4 and all(s.startswith(token) for s in subjects)
    for subject in subjects:
        url = f"{registry_url}/subjects/{quote(subject, safe='')}/versions?deleted=true"
        with pytest.raises(urllib.error.HTTPError) as gone:
            urllib.request.urlopen(url, timeout=10)
        assert gone.value.code == 404, subject
