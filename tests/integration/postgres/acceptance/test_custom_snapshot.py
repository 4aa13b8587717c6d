"""snapshot.mode=custom, snapshot.query.mode=custom and snapshot.locking.mode=custom (spec §2.1-2.2's snapshot SPI)
against the real PostgreSQL 15 and Kafka, with the plug-ins of snapshot_plugins.py named by `module:Class` path."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from tests.integration.postgres.acceptance import snapshot_plugins as plugins
from tests.integration.postgres.acceptance.pg_harness import (
    Harness,
    connector,
    harness_fixture,
    payload,
    wait,
)

pytestmark = [pytest.mark.integration, pytest.mark.asyncio(loop_scope="module")]

PLUGINS = "tests.integration.postgres.acceptance.snapshot_plugins"


h = harness_fixture("accx")


def ids_and_ops(records: list[Any]) -> list[tuple[str, int]]:
    return [(payload(r)["op"], (payload(r)["after"] or payload(r)["before"])["id"]) for r in records if payload(r)]


async def test_custom_snapshotter_decides_snapshot_and_streaming(h: Harness) -> None:
    plugins.SnapshotOnceNoStream.calls.clear()
    name = h.name()
    table = await h.customers(name, rows=2)
    topic = f"{name}.{table}"
    config = h.config(
        name, name, **{"snapshot.mode": "custom", "snapshot.mode.custom.name": f"{PLUGINS}:SnapshotOnceNoStream"}
    )
    async with connector(h, name, config):
        records = await h.records(topic, 2)
        assert ids_and_ops(records) == [("r", 1), ("r", 2)]
        assert [payload(r)["source"]["snapshot"] for r in records] == ["first", "last"]
        assert plugins.SnapshotOnceNoStream.calls[:3] == [f"configure:{name}", "data:False:False", "completed"]
        # should_stream() is false: a later change is not captured and no slot is made
        await h.insert_customers(table, [3])
        await asyncio.sleep(2)
        assert ids_and_ops(await h.read(topic)) == [("r", 1), ("r", 2)]
        assert (await h.status(name))["tasks"][0]["state"] == "RUNNING"
        assert await h.slot(name) is None
        # a restart finds the completed snapshot's offset: the plug-in is asked again and declines
        await h.stop(name)
        await h.resume(name)
        await h.task_state(name, "RUNNING")

        async def asked_again() -> bool:
            return "data:True:False" in plugins.SnapshotOnceNoStream.calls

        await wait(asked_again, 20)
        await asyncio.sleep(1)
        assert ids_and_ops(await h.read(topic)) == [("r", 1), ("r", 2)]


async def test_custom_name_of_a_built_in_mode_selects_that_mode(h: Harness) -> None:
    name = h.name()
    table = await h.customers(name, rows=1)
    topic = f"{name}.{table}"
    config = h.config(name, name, **{"snapshot.mode": "custom", "snapshot.mode.custom.name": "initial"})
    async with connector(h, name, config):
        await h.records(topic, 1)
        await h.insert_customers(table, [2])
        assert ids_and_ops(await h.records(topic, 2)) == [("r", 1), ("c", 2)]


@pytest.mark.parametrize(
    ("key", "mode_key", "value", "message"),
    [
        ("snapshot.mode.custom.name", "snapshot.mode", "nope", "Unable to find nope snapshotter."),
        ("snapshot.query.mode.custom.name", "snapshot.query.mode", "nope", "Unable to find nope snapshot query mode."),
        (
            "snapshot.locking.mode.custom.name",
            "snapshot.locking.mode",
            "nope",
            "Unable to find nope snapshot lock mode.",
        ),
        ("snapshot.mode.custom.name", "snapshot.mode", f"{PLUGINS}:NotASnapshotter", "is not a snapshotter"),
    ],
)
async def test_unknown_custom_plugin_fails_the_task_with_a_clear_message(
    h: Harness, key: str, mode_key: str, value: str, message: str
) -> None:
    name = h.name()
    await h.customers(name, rows=1)
    async with connector(h, name, h.config(name, name, **{mode_key: "custom", key: value})):
        task = await h.task_state(name, "FAILED")
        assert message in task["trace"]
        assert await h.slot(name) is None


async def test_custom_snapshot_query_and_lock(h: Harness) -> None:
    plugins.OddRowsOnly.seen.clear()
    plugins.ExclusiveLock.statements.clear()
    name = h.name()
    table = await h.customers(name, rows=4)
    await h.sql(f"CREATE TABLE {name}.other (id int PRIMARY KEY)", f"INSERT INTO {name}.other VALUES (1)")
    config = h.config(
        name,
        name,
        **{
            "snapshot.query.mode": "custom",
            "snapshot.query.mode.custom.name": f"{PLUGINS}:OddRowsOnly",
            "snapshot.locking.mode": "custom",
            "snapshot.locking.mode.custom.name": f"{PLUGINS}:ExclusiveLock",
            "snapshot.lock.timeout.ms": "4321",
        },
    )
    async with connector(h, name, config):
        records = await h.records(f"{name}.{table}", 2)
        assert ids_and_ops(records) == [("r", 1), ("r", 3)]
        assert payload(records[-1])["source"]["snapshot"] == "last"
        # the query plug-in saw every captured table with its columns; `other` was left out of the snapshot ...
        assert (f"{name}.customers", ("id", "first_name", "last_name", "email")) in plugins.OddRowsOnly.seen
        assert (f"{name}.other", ("id",)) in plugins.OddRowsOnly.seen
        # ... but is streamed
        await h.sql(f"INSERT INTO {name}.other VALUES (2)")
        assert ids_and_ops(await h.records(f"{name}.{name}.other", 1, settle=1.0)) == [("c", 2)]
        assert sorted(plugins.ExclusiveLock.statements) == [
            f'4321:LOCK TABLE "{name}"."customers" IN SHARE MODE',
            f'4321:LOCK TABLE "{name}"."other" IN SHARE MODE',
        ]
