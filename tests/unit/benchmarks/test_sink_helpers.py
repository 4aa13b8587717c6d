"""The Spark sink phase's pure helpers: the workload plan, what it reads of Spark's checkpoints and Delta's log, the
windowed CPU figures, the checksum comparison, the run selection and the report's sink verdicts. No Spark, no
services: the phase itself runs only in `make bench`."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from benchmarks import report, sinkfiles, sinkload
from benchmarks.__main__ import selected_runs
from benchmarks.settings import SIZES


def _replay(events: int, tables: int, per_round: int) -> tuple[list[list[sinkload.Op]], list[sinkload.Keyspace]]:
    keys = [sinkload.Keyspace() for _ in range(tables)]
    return list(sinkload.plan_rounds(keys, events, per_round=per_round)), keys


@pytest.mark.parametrize("events", [20_000, 12_345, 7])
def test_the_plan_makes_exactly_the_events_asked_for_on_live_keys_only(events: int) -> None:
    rounds, keys = _replay(events, tables=10, per_round=1_000)
    assert sum(op.events for ops in rounds for op in ops) == events
    live: list[set[int]] = [set() for _ in keys]
    kinds = {"insert": 0, "update": 0, "delete": 0}
    for ops in rounds:
        for op in ops:
            rows = live[op.table]
            kinds[op.kind] += op.events
            if op.kind == "insert":
                new = set(range(op.first, op.first + op.count))
                assert not new & rows
                rows |= new
            elif op.kind == "update":
                assert set(op.ids) <= rows and len(set(op.ids)) == len(op.ids)  # existing keys, each once
            else:
                gone = set(range(op.first, op.first + op.count))
                assert gone <= rows
                rows -= gone
    for rows, ks in zip(live, keys, strict=True):  # the live ids are the range [low, next)
        assert rows == set(range(ks.low, ks.next))
    if events == 20_000:
        assert kinds == {"insert": 12_000, "update": 6_000, "delete": 2_000}
        assert len(rounds) == 2


def test_the_plan_is_the_same_every_time() -> None:
    assert _replay(5_000, 3, 500)[0] == _replay(5_000, 3, 500)[0]


def test_figures_compare_across_postgres_and_spark_spellings() -> None:
    assert sinkload.normalise("12.50") == sinkload.normalise("12.5") == "12.5"
    assert sinkload.normalise(10) == sinkload.normalise("10.00") == "10"
    assert sinkload.normalise("missing") == "missing"


def _touch(path: Path, text: str, mtime: float) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


def _offsets(ends: dict[str, dict[str, int]]) -> str:
    return "v1\n" + json.dumps({"batchWatermarkMs": 0, "batchTimestampMs": 1}) + "\n" + json.dumps(ends)


def test_a_checkpoint_gives_the_query_window_and_what_it_has_read(tmp_path: Path) -> None:
    _touch(tmp_path / "metadata", '{"id": "x"}', 100.0)
    _touch(tmp_path / "offsets" / "0", _offsets({"a": {"0": 10}, "b": {"0": 3, "1": 4}}), 102.0)
    _touch(tmp_path / "commits" / "0", "v1\n{}", 110.0)
    _touch(tmp_path / "offsets" / "1", _offsets({"a": {"0": 20}, "b": {"0": 5, "1": 6}}), 111.0)
    _touch(tmp_path / "commits" / "1", "v1\n{}", 125.0)
    _touch(tmp_path / "offsets" / "2", _offsets({"a": {"0": 30}, "b": {"0": 5, "1": 6}}), 126.0)  # still running
    _touch(tmp_path / "offsets" / ".2.crc", "", 126.0)
    cp = sinkfiles.read_checkpoint(tmp_path)
    assert cp.started == 100.0 and cp.last_id() == 2
    assert [b.id for b in cp.committed()] == [0, 1]
    assert cp.ends() == {"a": 20, "b": 11}  # the last committed batch's, partitions summed
    assert sinkfiles.query_window([cp]) == (102.0, 125.0, 2)
    assert sinkfiles.query_window([cp], after=0) == (111.0, 125.0, 1)
    assert sinkfiles.query_window([cp], after=1) is None


def _commit(*actions: dict[str, Any]) -> str:
    return "\n".join(json.dumps(a) for a in actions) + "\n"


def test_delta_versions_name_the_files_they_add_with_column_mapping_resolved(tmp_path: Path) -> None:
    log = tmp_path / "_delta_log"
    schema = {
        "type": "struct",
        "fields": [
            {"name": "id", "type": "long", "metadata": {"delta.columnMapping.physicalName": "col-1"}},
            {"name": "ins_ms", "type": "long", "metadata": {"delta.columnMapping.physicalName": "col-2"}},
        ],
    }
    meta = {"schemaString": json.dumps(schema), "configuration": {"delta.columnMapping.mode": "name"}}
    _touch(log / f"{0:020d}.json", _commit({"commitInfo": {}}, {"metaData": meta}), 50.0)
    _touch(log / f"{1:020d}.json", _commit({"add": {"path": "part%20a.parquet"}}, {"remove": {"path": "x"}}), 60.0)
    _touch(log / f"{1:020d}.checkpoint.parquet", "", 60.0)
    versions = sinkfiles.read_versions(tmp_path)
    assert [(v.version, v.visible, v.added) for v in versions] == [(0, 50.0, ()), (1, 60.0, ("part a.parquet",))]
    assert versions[0].columns == {"id": "col-1", "ins_ms": "col-2"}
    assert sinkfiles.read_versions(tmp_path, after=0)[0].version == 1
    assert sinkfiles.last_version(tmp_path) == 1 and sinkfiles.last_version(tmp_path / "none") == -1
    plain = {"schemaString": json.dumps(schema), "configuration": {}}
    assert sinkfiles.physical_names(plain) == {"id": "id", "ins_ms": "ins_ms"}


def test_first_seen_takes_each_row_from_the_first_version_that_holds_it(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")

    def data_file(name: str, ids: list[int]) -> None:
        pq.write_table(pa.table({"id": ids, "ins_ms": [i * 10 for i in ids]}), tmp_path / name)

    log = tmp_path / "_delta_log"
    data_file("f0.parquet", [1, 2])
    _touch(log / f"{0:020d}.json", _commit({"add": {"path": "f0.parquet"}}), 100.0)
    reader = sinkfiles.FirstSeen(tmp_path, "id", "ins_ms")
    reader.skip_to(0)  # what was there before the window
    data_file("f1.parquet", [3, 4])
    _touch(log / f"{1:020d}.json", _commit({"add": {"path": "f1.parquet"}}), 101.0)
    assert reader.update() == 2
    data_file("f2.parquet", [3, 4, 5])  # a rewritten file: 3 and 4 again, 5 new
    _touch(log / f"{2:020d}.json", _commit({"add": {"path": "f2.parquet"}}, {"add": {"path": "f1.parquet"}}), 102.0)
    assert reader.update() == 1
    assert reader.seen == {3: (30, 101.0), 4: (40, 101.0), 5: (50, 102.0)}


def test_usage_is_taken_between_the_samples_around_the_window() -> None:
    samples = [sinkfiles.Sample(float(t), busy=t * 150, total=t * 200, cpu_s=t * 1.5) for t in range(10)]
    usage = sinkfiles.window_usage(samples, 2.5, 6.2)  # the samples at 2 and 7
    assert usage == {"machine_busy_pct": 75.0, "process_cpu_s": 7.5, "process_cpu_pct": 150.0}
    assert sinkfiles.window_usage(samples[:1], 0, 1) == {}


def test_a_distribution_is_nearest_rank() -> None:
    d = sinkfiles.distribution([float(x) for x in range(100, 0, -1)])
    assert (d["count"], d["p50_ms"], d["p90_ms"], d["p99_ms"], d["max_ms"], d["mean_ms"]) == (
        100,
        50,
        90,
        99,
        100,
        50.5,
    )
    assert sinkfiles.distribution([])["count"] == 0


def test_the_sink_phase_is_chosen_like_the_other_runs() -> None:
    known = frozenset({"stream", "snapshot", "sink"})
    assert selected_runs("", None, known) == known
    assert selected_runs("", "0", known) == {"stream", "snapshot"}
    assert selected_runs("stream", "1", known) == {"stream", "sink"}
    assert selected_runs("sink", None, known) == {"sink"}
    with pytest.raises(ValueError, match="choose from"):
        selected_runs("sinks", None, known)
    with pytest.raises(ValueError, match="nothing to run"):
        selected_runs("sink", "0", known)


def test_the_disk_estimate_counts_the_sink_phase_only_when_it_runs() -> None:
    full = SIZES["full"]
    assert full.disk_needed(("schemas_off",), sink=False) == full.disk_needed(("schemas_off",))
    assert full.disk_needed(("schemas_off",), sink=True) >= full.disk_needed(("schemas_off",))
    assert SIZES["smoke"].disk_needed(("schemas_on",), sink=True) < 1e9


def _sink_results(merge: float, append: float, status: str) -> dict[str, Any]:
    diffs = [] if status == "PASSED" else ["t0.rows: source 10, Delta 9"]
    return {
        "sink": {
            "masters": ["local[1]"],
            "merge": {"local[1]": {"events_per_s": merge}},
            "append": {"local[1]": {"events_per_s": append}},
            "ratio": {"local[1]": round(merge / append, 3)},
            "check": {"status": status, "warehouses": {"merge-local1": {"status": status, "differences": diffs}}},
        }
    }


def test_the_sink_verdicts_say_the_ratio_and_the_check() -> None:
    results = _sink_results(300.0, 1_000.0, "FAILED")
    report.derive(results)
    v = {t["id"]: t for t in results["targets"]}
    assert v["S1"]["met"] is False and v["S1"]["mode"] == "sink local[1]"
    assert v["S1"]["detail"] == "300 vs 1,000 ev/s = 0.30 (target 0.5)"
    assert v["S2"]["met"] is False and "t0.rows: source 10, Delta 9" in v["S2"]["detail"]
    results = _sink_results(600.0, 1_000.0, "PASSED")
    report.derive(results)
    assert all(t["met"] for t in results["targets"])


def test_the_iceberg_merge_has_its_own_verdict_over_the_same_append() -> None:
    results = _sink_results(300.0, 1_000.0, "PASSED")
    results["sink"]["merge_iceberg"] = {"local[1]": {"events_per_s": 700.0}}
    results["sink"]["ratio_iceberg"] = {"local[1]": 0.7}
    report.derive(results)
    v = {t["id"]: t for t in results["targets"]}
    assert v["S1"]["met"] is False
    assert v["S1i"]["met"] is True and v["S1i"]["detail"] == "700 vs 1,000 ev/s = 0.70 (target 0.5)"


def test_the_verdict_names_what_a_bare_merge_reaches() -> None:
    results = _sink_results(300.0, 1_000.0, "PASSED")
    results["sink"]["bare_merge"] = {"local[1]": {"events_per_s": 450.0}}
    results["sink"]["ratio_bare_merge"] = {"local[1]": 0.45}
    results["sink"]["ratio_of_bare_merge"] = {"local[1]": 0.667}
    report.derive(results)
    v = {t["id"]: t for t in results["targets"]}
    assert v["S1"]["detail"] == "300 vs 1,000 ev/s = 0.30 (target 0.5); a bare MERGE per table and batch reaches 0.45"
