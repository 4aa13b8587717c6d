"""Signals and incremental snapshots through the real Debezium 3.6.3 and this worker at once (dual.py): the same
signal rows, in one signal table both connectors capture, must give the same records on every topic - the
incremental READ events, the signal table's own change events (the user's signals and both sides' watermark
rows, which both decode from the same WAL) and the notifications (volatile fields masked).

Each connector ignores the other's watermarks (their chunk ids are not its own), as two Debezium connectors
sharing a signal table do.
"""

from __future__ import annotations

import concurrent.futures
import json
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.differential.debezium import ConnectDebezium
from tests.differential.dual import SYNC, DualRun, Scenario, describe, run_dual

pytestmark = [pytest.mark.integration, pytest.mark.debezium, pytest.mark.timeout(900)]

SIGNAL = "public.dbz_signal"
SIGNAL_DDL = f"CREATE TABLE {SIGNAL} (id varchar(64) PRIMARY KEY, type varchar(32) NOT NULL, data varchar(2048))"


def _signal(signal_id: str, kind: str, data: Any) -> str:
    text = "NULL" if data is None else "'" + (data if isinstance(data, str) else json.dumps(data)) + "'"
    return f"INSERT INTO {SIGNAL} VALUES ('{signal_id}', '{kind}', {text})"


def _settle(seconds: float) -> Any:
    """A statement that waits: the snapshot's chunks go round through the stream meanwhile."""

    def wait(conn: psycopg.Connection[Any]) -> None:
        time.sleep(seconds)

    return wait


def _config(**extra: str) -> dict[str, str]:
    return {
        "signal.data.collection": SIGNAL,
        "incremental.snapshot.chunk.size": "7",
        "notification.enabled.channels": "sink",
        "notification.sink.topic.name": "{prefix}.notifications",
        **extra,
    }


KEYS_SETUP = [
    SIGNAL_DDL,
    "CREATE TABLE public.by_int (id int PRIMARY KEY, label text, qty numeric(8,2))",
    "INSERT INTO public.by_int SELECT g, 'row ' || g, g * 1.25 FROM generate_series(1, 30) g",
    "CREATE TABLE public.by_pair (a bigint, b varchar(10), note text, PRIMARY KEY (a, b))",
    "INSERT INTO public.by_pair SELECT g / 3, 'k' || (g % 3), 'n' || g FROM generate_series(1, 20) g",
    "CREATE TABLE public.by_uuid (id uuid PRIMARY KEY, n int)",
    "INSERT INTO public.by_uuid SELECT md5(g::text)::uuid, g FROM generate_series(1, 12) g",
    "CREATE TABLE public.by_num (id numeric(12,3) PRIMARY KEY, ts timestamp, s smallint)",
    "INSERT INTO public.by_num SELECT g * 10.125, timestamp '2024-01-01' + g * interval '1 hour', g"
    " FROM generate_series(-5, 9) g",
    "CREATE TABLE public.by_text (code varchar(20) PRIMARY KEY, flag boolean)",
    "INSERT INTO public.by_text SELECT 'c' || lpad(g::text, 3, '0'), g % 2 = 0 FROM generate_series(1, 16) g",
]
# (a money key is left out: Debezium binds it as a numeric, "operator does not exist: money > numeric" after the
# first chunk, and skips the table; this worker reads all of it - tests/integration/.../test_signals.py)
KEY_TABLES = ["public.by_int", "public.by_pair", "public.by_uuid", "public.by_num", "public.by_text"]
KEY_ROWS = 30 + 20 + 12 + 15 + 16

SCENARIOS = [
    # every key shape, one signal naming tables by regex and by name, a filtered one
    Scenario(
        name="incremental_insert_insert",
        tables=KEY_TABLES,
        setup=KEYS_SETUP,
        snapshot_records=KEY_ROWS,
        config=_config(),
        transactions=[
            [
                _signal(
                    "sig-1",
                    "execute-snapshot",
                    {
                        "data-collections": ["public.by_int", "public\\.by_(pair|uuid)", "public.by_num"],
                        "type": "incremental",
                        "additional-conditions": [{"data-collection": "public.by_int", "filter": "id % 4 <> 1"}],
                    },
                )
            ],
            [_settle(6)],
            [SYNC],
            [_signal("sig-2", "execute-snapshot", {"data-collections": ["public.by_text"]})],
            [_settle(4)],
        ],
    ),
    # insert_delete watermarks, a table without a primary key (skipped), a surrogate key, log / bad / unknown
    # signals. (A surrogate key on a keyless table is left out: Debezium keys its window by the record key, null
    # there, so it emits one row per chunk; this worker emits every row - tests/integration/.../test_signals.py)
    Scenario(
        name="incremental_insert_delete_surrogate",
        tables=["public.nokey", "public.by_int"],
        setup=[
            SIGNAL_DDL,
            f"INSERT INTO {SIGNAL} VALUES ('old-1', 'log', '{{\"message\": \"before the snapshot\"}}')",
            "CREATE TABLE public.nokey (n int NOT NULL, label text)",
            "INSERT INTO public.nokey SELECT g, 'x' || g FROM generate_series(1, 25) g",
            "CREATE TABLE public.by_int (id int PRIMARY KEY, label text)",
            "INSERT INTO public.by_int SELECT g, 'row ' || g FROM generate_series(1, 9) g",
        ],
        snapshot_records=25 + 9,
        config=_config(**{"incremental.snapshot.watermarking.strategy": "insert_delete"}),
        transactions=[
            [_signal("log-1", "log", {"message": "signal log at {}"})],
            [_signal("bad-1", "execute-snapshot", "{not json")],
            [_signal("bad-2", "no-such-action", {})],
            [_signal("bad-3", "execute-snapshot", {"data-collections": []})],
            [_signal("nokey-1", "execute-snapshot", {"data-collections": ["public.nokey"]})],
            [_settle(3)],
            [SYNC],
            [
                _signal(
                    "sur-1",
                    "execute-snapshot",
                    {"data-collections": ["public.by_int"], "surrogate-key": "label"},
                )
            ],
            [_settle(6)],
        ],
    ),
]
SCENARIOS.append(
    # a blocking snapshot: streaming pauses, the tables are read as the initial snapshot reads them (one with a
    # whole SELECT as its condition), streaming goes on
    Scenario(
        name="blocking",
        tables=["public.blk_a", "public.blk_b"],
        setup=[
            SIGNAL_DDL,
            "CREATE TABLE public.blk_a (id int PRIMARY KEY, v text)",
            "INSERT INTO public.blk_a SELECT g, 'a' || g FROM generate_series(1, 20) g",
            "CREATE TABLE public.blk_b (id bigint PRIMARY KEY, n numeric)",
            "INSERT INTO public.blk_b SELECT g, g / 3.0 FROM generate_series(1, 10) g",
        ],
        snapshot_records=30,
        config=_config(),
        transactions=[
            ["INSERT INTO public.blk_a VALUES (21, 'streamed')", "UPDATE public.blk_b SET n = 0 WHERE id = 1"],
            [SYNC],
            [
                _signal(
                    "blk-1",
                    "execute-snapshot",
                    {
                        "type": "blocking",
                        "data-collections": ["public.blk_.*"],
                        "additional-conditions": [
                            {"data-collection": "public.blk_b", "filter": "SELECT * FROM public.blk_b WHERE id > 5"}
                        ],
                    },
                )
            ],
            [_settle(5)],
            [SYNC],
            ["INSERT INTO public.blk_a VALUES (22, 'after')", "DELETE FROM public.blk_b WHERE id = 2"],
        ],
    )
)
SCENARIOS.append(
    # incremental.snapshot.allow.schema.changes: each table's first window only records its columns, the next
    # ones read (the watermark rows on the signal table's topic show the extra window)
    Scenario(
        name="incremental_allow_schema_changes",
        tables=["public.by_int", "public.by_text"],
        setup=[s for s in KEYS_SETUP if "by_int" in s or "by_text" in s or s == SIGNAL_DDL],
        snapshot_records=30 + 16,
        config=_config(**{"incremental.snapshot.allow.schema.changes": "true"}),
        transactions=[
            [_signal("asc-1", "execute-snapshot", {"data-collections": ["public.by_int", "public.by_text"]})],
            [_settle(6)],
        ],
    )
)
SIGNAL_FILES = Path(tempfile.gettempdir()) / "cw-dual-signals"


def _file_signal(signal_id: str, kind: str, data: Any) -> Any:
    """A signal line for both sides' file channels (`signal.file` = SIGNAL_FILES/<prefix>.txt; dual.py names the
    prefixes dz<hex> and cw<hex> after the database db<hex>)."""

    def write(conn: psycopg.Connection[Any]) -> None:
        hex_ = conn.info.dbname[2:]
        SIGNAL_FILES.mkdir(exist_ok=True)
        for prefix in (f"dz{hex_}", f"cw{hex_}"):
            with (SIGNAL_FILES / f"{prefix}.txt").open("a") as f:
                f.write(json.dumps({"id": signal_id, "type": kind, "data": data}) + "\n")

    return write


SCENARIOS.append(
    # read.only: windows bounded by transaction ids (pg_current_snapshot()), nothing written; the signal comes
    # through the file channel
    Scenario(
        name="incremental_read_only",
        tables=["public.by_int", "public.by_text"],
        setup=[s for s in KEYS_SETUP if "by_int" in s or "by_text" in s],
        snapshot_records=30 + 16,
        config={
            "read.only": "true",
            "signal.enabled.channels": "file",
            "signal.file": str(SIGNAL_FILES / "{prefix}.txt"),
            "signal.poll.interval.ms": "300",
            "incremental.snapshot.chunk.size": "7",
            "notification.enabled.channels": "sink",
            "notification.sink.topic.name": "{prefix}.notifications",
        },
        transactions=[
            [_file_signal("ro-1", "execute-snapshot", {"data-collections": ["public.by_int", "public.by_text"]})],
            [_settle(8)],
            ["INSERT INTO public.by_int VALUES (100, 'after', 1)"],
        ],
    )
)
NAMES = [s.name for s in SCENARIOS]


@pytest.fixture(scope="module")
def signal_runs(
    debezium_connect: ConnectDebezium, our_connect: ConnectDebezium, pg_port: int
) -> Iterator[dict[str, DualRun]]:
    with concurrent.futures.ThreadPoolExecutor(max_workers=2) as pool:
        futures = {
            s.name: pool.submit(run_dual, s, debezium=debezium_connect, ours=our_connect, pg_port=pg_port)
            for s in SCENARIOS
        }
        yield {name: f.result() for name, f in futures.items()}


@pytest.mark.parametrize("name", NAMES)
def test_same_records_as_debezium(signal_runs: dict[str, DualRun], name: str) -> None:
    run = signal_runs[name]
    assert run.error is None, (
        f"{run.error}\n{describe(run)}\n--- debezium: {run.debezium.status}\n{run.debezium.log_tail[-6000:]}"
        f"\n--- ours: {run.ours.status}\n{run.ours.log_tail[-6000:]}"
    )
    topics = set(run.debezium.topics)
    assert "PFX.notifications" in topics, sorted(topics)
    # the scenario did what it is about on Debezium's side (equal topics alone would also hold if neither did)
    marks = [
        p["source"].get("snapshot")
        for records in run.debezium.topics.values()
        for r in records
        if isinstance(value := r.value_json(), dict)
        and isinstance(p := value.get("payload"), dict)
        and p.get("op") == "r"
        and isinstance(p.get("source"), dict)
    ]
    if name.startswith("incremental"):
        assert marks.count("incremental") >= 9, f"Debezium read {marks.count('incremental')} rows incrementally"
    else:
        assert len(marks) > 30, "no blocking snapshot records"
    diffs = run.differences()
    shown = "\n".join(diffs[:200]) + (f"\n… {len(diffs) - 200} more" if len(diffs) > 200 else "")
    assert not diffs, describe(run) + "\n" + shown
