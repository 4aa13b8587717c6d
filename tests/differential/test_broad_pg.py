"""The broad differential suite: every scenario of cases_pg.py through the real Debezium 3.6.3 (Kafka Connect 4.3.1)
and this worker at once, on the same database; each scenario's records must be equal topic by topic, record by
record (volatile fields masked). All scenarios run concurrently on the session's two workers."""

from __future__ import annotations

import concurrent.futures
import contextlib
import os
import threading
from collections.abc import Iterator

import pytest

from tests.differential import cases_pg
from tests.differential.debezium import ConnectDebezium
from tests.differential.dual import DualRun, Scenario, describe, run_dual
from tests.differential.generated_pg import generated_scenario

pytestmark = [pytest.mark.integration, pytest.mark.debezium, pytest.mark.timeout(1200)]

# generated values (generated_pg.py): a fixed seed in `make test`, any seed and size by the environment
# (`make differential-generated` draws a new seed and many rows)
GENERATED = generated_scenario(int(os.environ.get("CW_DIFF_SEED", "14")), int(os.environ.get("CW_DIFF_ROWS", "40")))
SCENARIOS = (*cases_pg.SCENARIOS, GENERATED)
NAMES = [s.name for s in SCENARIOS]


def _selected(request: pytest.FixtureRequest) -> set[str]:
    """The scenarios of the tests this session runs (so that `-k` runs only those)."""
    names = set()
    for item in request.session.items:
        callspec = getattr(item, "callspec", None)
        if getattr(item, "module", None) is request.module and callspec is not None:
            names.add(callspec.params.get("name"))
    return names


@pytest.fixture(scope="module")
def broad_runs(
    request: pytest.FixtureRequest, debezium_connect: ConnectDebezium, our_connect: ConnectDebezium, pg_port: int
) -> Iterator[dict[str, DualRun]]:
    wanted = _selected(request)
    # Debezium 3.6.3's decoderbufs decoder shares a static, unsynchronised LRU cache of type modifiers between
    # connectors (AbstractReplicationMessageColumn.TypeMetadataImpl): two decoderbufs connectors streaming at once
    # in one JVM fail with ConcurrentModificationException. Those scenarios run one at a time.
    decoderbufs = threading.Lock()

    def run(scenario: Scenario) -> DualRun:
        guard = decoderbufs if scenario.config.get("plugin.name") == "decoderbufs" else contextlib.nullcontext()
        with guard:
            return run_dual(scenario, debezium=debezium_connect, ours=our_connect, pg_port=pg_port)

    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as pool:
        futures = {s.name: pool.submit(run, s) for s in SCENARIOS if s.name in wanted}
        yield {name: f.result() for name, f in futures.items()}


@pytest.mark.parametrize("name", NAMES)
def test_same_records_as_debezium(broad_runs: dict[str, DualRun], name: str) -> None:
    run = broad_runs[name]
    assert run.error is None, (
        f"{run.error}\n{describe(run)}\n--- debezium: {run.debezium.status}\n{run.debezium.log_tail[-6000:]}"
        f"\n--- ours: {run.ours.status}\n{run.ours.log_tail[-6000:]}"
    )
    assert run.debezium.topics, f"Debezium wrote nothing: {describe(run)}"
    diffs = run.differences()
    shown = "\n".join(diffs[:300]) + (f"\n… {len(diffs) - 300} more" if len(diffs) > 300 else "")
    assert not diffs, describe(run) + "\n" + shown
