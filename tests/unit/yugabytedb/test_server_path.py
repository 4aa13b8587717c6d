"""What the connector does differently when the server is YugabyteDB (spec yugabytedb.md §1.5, §2.1, §2.3):
the slot's LSN type in YugabyteDB's CREATE_REPLICATION_SLOT grammar, the snapshot read at the slot's hybrid
time, and slot confirmations of completed commits only."""

from __future__ import annotations

from typing import Any

import pytest

from connect_worker.api.errors import ConfigError
from connect_worker.api.metrics import MetricsGroup
from connectors.postgres.lsn import Lsn
from connectors.postgres.protocol.commands import SnapshotAction, create_replication_slot
from connectors.postgres.snapshot_chunks import HybridTimeSnapshot, import_statement
from connectors.postgres.sources import PostgresSources
from connectors.postgres.task import PostgresConnectorTask
from connectors.relational.pipeline import Pipeline
from connectors.yugabytedb.config import parse_yb_config, validate_yb_props
from connectors.yugabytedb.task import YugabyteDBConnectorTask
from tests.unit.yugabytedb.test_config import BASE


def test_yugabytedb_slot_grammar() -> None:
    for lsn_type in ("SEQUENCE", "HYBRID_TIME"):
        command = create_replication_slot(
            "s1", "yboutput", snapshot=SnapshotAction.EXPORT, server_version=110002, yugabyte_lsn_type=lsn_type
        )
        assert command == f'CREATE_REPLICATION_SLOT "s1" LOGICAL "yboutput" {lsn_type}'
    with pytest.raises(ConfigError):
        create_replication_slot("s1", "yboutput", yugabyte_lsn_type="WALL_CLOCK")
    # PostgreSQL keeps its own grammar
    assert create_replication_slot("s1", "yboutput", snapshot=SnapshotAction.EXPORT).endswith("(SNAPSHOT 'export')")


def test_snapshot_import_statements() -> None:
    assert import_statement("00000003-0000001B-1").as_string(None) == "SET TRANSACTION SNAPSHOT '00000003-0000001B-1'"
    assert (
        import_statement(HybridTimeSnapshot("7014451539284922368")).as_string(None)
        == "SET LOCAL yb_read_time TO '7014451539284922368 ht'"
    )


def test_slot_lsn_type_setting() -> None:
    assert parse_yb_config(BASE).slot_lsn_type == "SEQUENCE"
    assert parse_yb_config({**BASE, "slot.lsn.type": "hybrid_time"}).slot_lsn_type == "HYBRID_TIME"
    bad = {k: v.errors for k, v in validate_yb_props({**BASE, "slot.lsn.type": "wall"}).items() if v.errors}
    assert bad == {"slot.lsn.type": ["Value must be one of SEQUENCE, HYBRID_TIME"]}
    clash = {**BASE, "slot.lsn.type": "HYBRID_TIME", "lsn.flush.mode": "connector_and_driver"}
    with pytest.raises(ConfigError, match=r"not allowed with slot\.lsn\.type=HYBRID_TIME"):
        parse_yb_config(clash)
    assert parse_yb_config({**BASE, "lsn.flush.mode": "connector_and_driver"}).slot_lsn_type == "SEQUENCE"


class _Stream:
    def __init__(self) -> None:
        self.confirmed: list[Lsn] = []

    def confirm(self, lsn: Lsn) -> None:
        self.confirmed.append(lsn)


async def _confirmed(task: PostgresConnectorTask, offsets: list[dict[str, Any]]) -> list[int]:
    """What the task's sources confirm to a streaming slot when Kafka holds ``offsets``."""
    stream = _Stream()
    config = parse_yb_config(BASE)
    pipeline = Pipeline(config, task.flavor(config), MetricsGroup("test"))
    sources = task.new_sources(config, pipeline, None)
    assert isinstance(sources, PostgresSources)
    sources._stream = stream  # type: ignore[assignment]
    sources._streaming_started = True
    await sources.offsets_flushed([({"server": "yb"}, o) for o in offsets])
    return [int(lsn) for lsn in stream.confirmed]


async def test_only_completed_commits_are_confirmed_to_a_yugabytedb_slot() -> None:
    first_transaction = [{"lsn": 105, "lsn_proc": 105, "lsn_commit": None}]
    assert await _confirmed(YugabyteDBConnectorTask(), first_transaction) == []
    assert await _confirmed(PostgresConnectorTask(), first_transaction) == [105]
    later = [{"lsn": 205, "lsn_proc": 205, "lsn_commit": 199}]
    assert await _confirmed(YugabyteDBConnectorTask(), later) == [199]
