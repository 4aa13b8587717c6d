"""The benchmark refuses, before it starts, a run that would fill the disk halfway through."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from benchmarks.runner import Plan, check_disk
from benchmarks.settings import SIZES


def test_the_estimate_follows_the_stream_runs_topic_and_postgres() -> None:
    full = SIZES["full"]
    events = 2_000_000 + 11_000 * 60 + 10_000_000  # throughput, both latency phases, the big transaction
    assert full.disk_needed(("schemas_off",)) == events * 1_000 + (events + 5_000_000) * 900
    assert full.disk_needed(("schemas_off", "avro")) == events * 1_000 + (events + 5_000_000) * 900
    on = full.disk_needed(("schemas_off", "schemas_on"))
    assert on == events * 4_500 + (events + 5_000_000) * 900  # schemas on: 4.4 KB an event
    assert SIZES["smoke"].disk_needed(("schemas_off", "schemas_on", "avro")) < 1e9


def test_a_run_larger_than_the_free_space_is_refused_with_what_it_needs(tmp_path: Path) -> None:
    huge = dataclasses.replace(SIZES["small"], big_txn_rows=10**12)
    plan = Plan(size=huge, systems=("ours",), modes=("schemas_on",), profile=False, out_dir=tmp_path)
    with pytest.raises(SystemExit, match=r"BENCH_SIZE=small with schemas on needs about \d+ GB free under"):
        check_disk(plan, tmp_path)
    check_disk(dataclasses.replace(plan, size=SIZES["smoke"]), tmp_path)  # a smoke run fits anywhere


def test_a_sink_only_run_needs_the_sink_phases_room_only(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    full = SIZES["full"]
    sink_only = full.disk_needed(("schemas_on",), sink=True, runs=False)
    assert sink_only == (1_000_000 + 500 * 60) * (4_500 + 900 + 5_000)  # its topics, tables and Delta tables
    assert sink_only < full.disk_needed(("schemas_on",), sink=True)
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=20 * 10**9))  # 20 GB free
    plan = Plan(size=full, systems=("ours",), modes=("schemas_on",), profile=False, out_dir=tmp_path)
    check_disk(dataclasses.replace(plan, only=frozenset({"sink"})), tmp_path)  # ~11 GB: fits
    with pytest.raises(SystemExit, match="needs about 73 GB free"):
        check_disk(dataclasses.replace(plan, only=frozenset({"stream", "sink"})), tmp_path)
