"""The StandaloneHerder's state machine (configs, target states, statuses, restarts, offsets requests), on in-memory
stores and a fake Worker (tests/unit/runtime/fakes.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping
from typing import Any

import pytest

from connect_worker.api import (
    AlreadyExistsError,
    BadRequestError,
    DataError,
    NotFoundError,
    PluginType,
    SourceConnector,
    SourceTask,
)
from connect_worker.api.config import ConfigDef, ConfigKey, ConfigType, Importance
from connect_worker.runtime.herder import ConnectorOffset, ConnectorTaskId, State, TargetState
from connect_worker.runtime.plugins import PluginRegistry
from connect_worker.runtime.standalone_herder import StandaloneHerder
from tests.unit.runtime.fakes import WORKER_ID, HerderRig, IdleTask, Status, herder_rig

STOP_FIRST = (
    "Connectors must be in the STOPPED state before their offsets can be modified. This can be done for the "
    "specified connector by issuing a 'PUT' request to the '/connectors/c/stop' endpoint"
)


class _Task(IdleTask):
    class_name = "test.SplitTask"


class SplitConnector(SourceConnector):
    """Gives each of `tasks.max` tasks its number and the topic; handles its offsets when `alters.offsets=true`."""

    class_name = "test.SplitConnector"
    plugin_version = "1.0"

    @classmethod
    def config_def(cls) -> ConfigDef:
        return ConfigDef([ConfigKey("topic", ConfigType.STRING, importance=Importance.HIGH, documentation="Topic")])

    async def start(self, props: Mapping[str, str]) -> None:
        self.props = dict(props)

    def task_class(self) -> type[SourceTask]:
        return _Task

    def task_configs(self, max_tasks: int) -> list[dict[str, str]]:
        return [{"topic": self.props["topic"], "task.number": str(i)} for i in range(max_tasks)]

    async def stop(self) -> None:
        pass

    async def alter_offsets(self, props: Mapping[str, str], offsets: Mapping[Any, Mapping[str, Any] | None]) -> bool:
        return props.get("alters.offsets") == "true"


REGISTRY = PluginRegistry([(PluginType.SOURCE, SplitConnector)])
CONFIG = {"connector.class": "Split", "topic": "t", "tasks.max": "2"}


@pytest.fixture
async def rig() -> AsyncIterator[HerderRig]:
    rig = herder_rig(REGISTRY)
    await rig.herder.start()
    yield rig
    await rig.herder.stop()


async def create(
    rig: HerderRig, name: str = "c", initial_state: TargetState | None = None, extra: Mapping[str, str] | None = None
) -> None:
    created, _ = await rig.herder.put_connector_config(
        name, {**CONFIG, **(extra or {})}, allow_replace=False, initial_state=initial_state
    )
    assert created


async def states(herder: StandaloneHerder, name: str = "c") -> tuple[str, list[str]]:
    status = await herder.connector_status(name)
    return status.connector.state.value, [t.state.value for t in status.tasks]


# -- create, update, delete ------------------------------------------------------------------------------
async def test_create_stores_the_config_and_runs_the_connector_and_its_tasks(rig: HerderRig) -> None:
    created, info = await rig.herder.put_connector_config("c", CONFIG, allow_replace=False)

    assert created
    assert info.config == {**CONFIG, "name": "c"}
    assert info.tasks == (ConnectorTaskId("c", 0), ConnectorTaskId("c", 1))
    assert info.type == "source"
    assert rig.configs.snapshot.connectors == {"c": {**CONFIG, "name": "c"}}
    assert rig.configs.snapshot.tasks["c"] == [
        {"topic": "t", "task.number": "0", "task.class": "test.SplitTask"},
        {"topic": "t", "task.number": "1", "task.class": "test.SplitTask"},
    ]
    assert "c" not in rig.configs.snapshot.target_states  # STARTED unless asked otherwise
    assert rig.worker.is_running("c") and set(rig.worker.tasks("c")) == {0, 1}
    assert rig.statuses.connectors["c"] == Status("RUNNING", WORKER_ID, None, "1.0")
    assert rig.statuses.tasks["c", 0] == rig.statuses.tasks["c", 1] == Status("RUNNING", WORKER_ID, None, "1.0")
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])
    assert [t.config["task.number"] for t in await rig.herder.task_configs("c")] == ["0", "1"]


async def test_create_refuses_an_existing_name_and_an_invalid_config(rig: HerderRig) -> None:
    await create(rig)
    written = list(rig.configs.records)

    with pytest.raises(AlreadyExistsError, match="Connector c already exists"):
        await rig.herder.put_connector_config("c", CONFIG, allow_replace=False)
    with pytest.raises(BadRequestError) as invalid:
        await rig.herder.put_connector_config("d", {"connector.class": "Split"}, allow_replace=False)

    assert str(invalid.value).startswith(
        "Connector configuration is invalid and contains the following 1 error(s):\n"
        'Missing required configuration "topic" which has no default value.\n'
    )
    assert rig.configs.records == written
    assert await rig.herder.connectors() == ["c"]


async def test_update_restarts_the_connector_with_the_new_config(rig: HerderRig) -> None:
    await create(rig)
    old_tasks = list(rig.worker.tasks("c").values())

    created, info = await rig.herder.put_connector_config("c", {**CONFIG, "tasks.max": "1"}, allow_replace=True)

    assert not created
    assert info.tasks == (ConnectorTaskId("c", 0),)
    assert all(t.stopped for t in old_tasks)
    assert rig.worker.connector_starts == ["c", "c"]
    assert rig.configs.snapshot.connectors["c"]["tasks.max"] == "1"
    assert len(rig.configs.snapshot.tasks["c"]) == 1
    assert await states(rig.herder) == ("RUNNING", ["RUNNING"])


async def test_an_update_that_changes_no_task_config_leaves_the_tasks_running(rig: HerderRig) -> None:
    """Connect stops only the connector on an update; the tasks start again only when the configs the connector
    generates, or the connector config they were generated from, changed (the applied-config rule)."""
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))
    written = len(rig.configs.records)

    await rig.herder.put_connector_config("c", CONFIG, allow_replace=True)

    assert rig.worker.connector_starts == ["c", "c"]
    assert rig.worker.tasks("c") == tasks and not any(t.stopped for t in tasks.values())
    assert len(rig.configs.records) == written + 1  # the connector config only, no task configs

    await rig.herder.put_connector_config("c", {**CONFIG, "errors.log.enable": "true"}, allow_replace=True)

    assert all(t.stopped for t in tasks.values())  # same task configs, but from another connector config
    assert all(rig.worker.tasks("c")[i] is not t for i, t in tasks.items())
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])


async def test_patch_removes_null_keys_and_keeps_the_rest(rig: HerderRig) -> None:
    await create(rig, extra={"x.extra": "1"})

    info = await rig.herder.patch_connector_config("c", {"x.extra": None, "topic": "u"})

    assert info.config == {**CONFIG, "topic": "u", "name": "c"}
    assert rig.configs.snapshot.tasks["c"][0]["topic"] == "u"


async def test_delete_stops_everything_and_forgets_the_connector(rig: HerderRig) -> None:
    await create(rig)
    tasks = list(rig.worker.tasks("c").values())

    await rig.herder.delete_connector("c")

    assert not rig.worker.is_running("c") and rig.worker.tasks("c") == {}
    assert all(t.stopped for t in tasks)
    assert rig.configs.snapshot.connectors == {} and "c" not in rig.configs.snapshot.tasks
    assert rig.statuses.connectors == {} and rig.statuses.tasks == {}
    with pytest.raises(NotFoundError, match="Connector c not found"):
        await rig.herder.connector_info("c")
    with pytest.raises(NotFoundError, match="No status found for connector c"):
        await rig.herder.connector_status("c")
    with pytest.raises(NotFoundError, match="Connector c not found"):
        await rig.herder.delete_connector("c")


# -- target states -----------------------------------------------------------------------------------------
async def test_initial_states(rig: HerderRig) -> None:
    await create(rig, "p", TargetState.PAUSED)
    await create(rig, "s", TargetState.STOPPED)

    # As Connect 4.3.1 (test_rest_lifecycle): neither is started, so neither has generated task configs
    assert rig.configs.snapshot.target_state("p") is TargetState.PAUSED
    assert await states(rig.herder, "p") == ("PAUSED", [])
    assert rig.worker.tasks("p") == {} and "p" not in rig.configs.snapshot.tasks
    assert rig.configs.snapshot.target_state("s") is TargetState.STOPPED
    assert await states(rig.herder, "s") == ("STOPPED", [])
    assert rig.worker.connector_starts == []
    assert (await rig.herder.connector_info("s")).tasks == ()
    assert (await rig.herder.connector_status("p")).connector.version is not None  # the plugin's, as Connect

    await rig.herder.resume_connector("p")  # started now: its tasks are generated and run
    await rig.herder.pause_connector("s")  # a STOPPED connector paused is PAUSED, still without tasks

    assert await states(rig.herder, "p") == ("RUNNING", ["RUNNING", "RUNNING"])
    assert rig.worker.connector_starts == ["p"]
    assert await states(rig.herder, "s") == ("PAUSED", [])


async def test_a_paused_connector_restarted_keeps_its_configured_tasks_paused(rig: HerderRig) -> None:
    await create(rig)
    await rig.herder.pause_connector("c")

    await rig.herder.restart_connector("c", include_tasks=False, only_failed=False)

    assert await states(rig.herder) == ("PAUSED", ["PAUSED", "PAUSED"])
    assert all(t.paused for t in rig.worker.tasks("c").values())
    assert rig.worker.connector_starts == ["c"]  # not started again while paused

    await rig.herder.resume_connector("c")

    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])
    assert rig.worker.connector_starts == ["c", "c"]


async def test_pause_and_resume(rig: HerderRig) -> None:
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))

    await rig.herder.pause_connector("c")

    assert rig.configs.snapshot.target_state("c") is TargetState.PAUSED
    assert rig.configs.records[-1] == ("target-state-c", {"state": "PAUSED", "state.v2": "PAUSED"})
    assert await states(rig.herder) == ("PAUSED", ["PAUSED", "PAUSED"])
    assert rig.statuses.connectors["c"].state == "PAUSED" and rig.statuses.tasks["c", 1].state == "PAUSED"
    assert not rig.worker.is_running("c")  # Connect stops a paused connector (its tasks stay, paused)
    commits = [k for k, _ in rig.configs.records].count("commit-c")

    await rig.herder.resume_connector("c")

    assert rig.configs.snapshot.target_state("c") is TargetState.STARTED
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])
    assert rig.statuses.connectors["c"].state == "RUNNING" and rig.statuses.tasks["c", 1].state == "RUNNING"
    assert rig.worker.connector_starts == ["c", "c"]  # started again by the resume
    assert rig.worker.tasks("c") == tasks  # the same tasks resumed: their configs did not change
    assert [k for k, _ in rig.configs.records].count("commit-c") == commits
    with pytest.raises(NotFoundError, match="Unknown connector x"):
        await rig.herder.pause_connector("x")
    with pytest.raises(NotFoundError, match="Unknown connector x"):
        await rig.herder.resume_connector("x")


async def test_a_config_changed_while_paused_reaches_the_tasks_when_resumed(rig: HerderRig) -> None:
    """Connect writes no task configs for a paused connector (it is not running); the resume writes them, also
    when only the connector's config changed (appliedConnectorConfig), and the tasks start again with them."""
    await create(rig)
    await rig.herder.pause_connector("c")
    before = [dict(t) for t in rig.configs.snapshot.tasks["c"]]

    await rig.herder.patch_connector_config("c", {"topic": "elsewhere"})

    assert rig.configs.snapshot.tasks["c"] == before and not rig.worker.is_running("c")
    assert await states(rig.herder) == ("PAUSED", ["PAUSED", "PAUSED"])
    await rig.herder.resume_connector("c")
    assert [t["topic"] for t in rig.configs.snapshot.tasks["c"]] == ["elsewhere", "elsewhere"]
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])

    # a change the task configs do not show: written again all the same, once
    await rig.herder.pause_connector("c")
    await rig.herder.patch_connector_config("c", {"something.else": "1"})
    commits = [k for k, _ in rig.configs.records].count("commit-c")
    await rig.herder.resume_connector("c")
    await rig.herder.resume_connector("c")
    assert [k for k, _ in rig.configs.records].count("commit-c") == commits + 1


async def test_stop_drops_the_tasks_and_resume_starts_again(rig: HerderRig) -> None:
    await create(rig)
    tasks = list(rig.worker.tasks("c").values())

    await rig.herder.stop_connector("c")

    assert rig.configs.snapshot.target_state("c") is TargetState.STOPPED
    assert rig.configs.snapshot.tasks["c"] == []  # an empty task-config commit
    assert not rig.worker.is_running("c") and rig.worker.tasks("c") == {}
    assert all(t.stopped for t in tasks)
    assert rig.statuses.connectors["c"].state == "STOPPED" and rig.statuses.tasks == {}
    assert await states(rig.herder) == ("STOPPED", [])
    assert await rig.herder.task_configs("c") == []
    assert (await rig.herder.connector_info("c")).tasks == ()

    await rig.herder.resume_connector("c")

    assert rig.configs.snapshot.target_state("c") is TargetState.STARTED
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])
    assert len(rig.configs.snapshot.tasks["c"]) == 2


async def test_pausing_a_stopped_connector_makes_it_paused_without_tasks(rig: HerderRig) -> None:
    await create(rig, initial_state=TargetState.STOPPED)

    await rig.herder.pause_connector("c")

    # Connect 4.3.1 reports it PAUSED (its connector instance moves from STOPPED to PAUSED, not started)
    assert rig.configs.snapshot.target_state("c") is TargetState.PAUSED
    assert rig.worker.connector_starts == []
    assert await states(rig.herder) == ("PAUSED", [])


async def test_target_states_are_resumed_by_a_restarted_worker(rig: HerderRig) -> None:
    await create(rig, "running")
    await create(rig, "paused")
    await rig.herder.pause_connector("paused")
    await create(rig, "stopped")
    await rig.herder.stop_connector("stopped")
    await rig.herder.stop()

    again = herder_rig(REGISTRY, configs=rig.configs, offsets=rig.offsets)
    await again.herder.start()
    try:
        assert await again.herder.connectors() == ["running", "paused", "stopped"]  # java.util.HashMap order
        assert await states(again.herder, "running") == ("RUNNING", ["RUNNING", "RUNNING"])
        assert await states(again.herder, "paused") == ("PAUSED", ["PAUSED", "PAUSED"])
        assert await states(again.herder, "stopped") == ("STOPPED", [])
        assert again.worker.connector_starts == ["running"]  # a PAUSED connector is not started (as Connect)
    finally:
        await again.herder.stop()


# -- restarts ------------------------------------------------------------------------------------------------
async def test_legacy_restart_restarts_the_connector_only_and_answers_no_plan(rig: HerderRig) -> None:
    """Connect's restartConnector: the connector starts again; its tasks run on while the configs it generates
    are the same, and start again with the new ones when they are not."""
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))

    assert await rig.herder.restart_connector("c", include_tasks=False, only_failed=False) is None

    assert rig.worker.connector_starts == ["c", "c"]
    assert rig.worker.tasks("c") == tasks
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])

    rig.worker.task_config_override["c"] = [{"topic": "u", "task.number": "0"}]
    assert await rig.herder.restart_connector("c", include_tasks=False, only_failed=False) is None

    assert [t["topic"] for t in rig.configs.snapshot.tasks["c"]] == ["u"]
    assert list(rig.worker.tasks("c")) == [0] and rig.worker.tasks("c")[0] is not tasks[0]
    assert all(t.stopped for t in tasks.values())
    assert await states(rig.herder) == ("RUNNING", ["RUNNING"])
    assert ("c", 1) not in rig.statuses.tasks  # Connect removes the status of a task that is gone


async def test_restart_with_tasks_answers_the_plan_and_restarts_everything(rig: HerderRig) -> None:
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))

    plan = await rig.herder.restart_connector("c", include_tasks=True, only_failed=False)

    assert plan is not None
    assert plan.connector.state is State.RESTARTING
    assert [t.state for t in plan.tasks] == [State.RESTARTING, State.RESTARTING]
    assert rig.worker.connector_starts == ["c", "c"]
    assert all(rig.worker.tasks("c")[i] is not t for i, t in tasks.items())
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])


async def test_restart_with_tasks_starts_them_from_their_stored_configs(rig: HerderRig) -> None:
    """Connect's restartConnectorAndTasks generates no task configs: the tasks start again with the stored ones,
    even when the connector would now generate others, or fails to start again."""
    await create(rig)
    stored = [dict(t) for t in rig.configs.snapshot.tasks["c"]]
    rig.worker.task_config_override["c"] = [{"topic": "u", "task.number": "0"}]
    tasks = dict(rig.worker.tasks("c"))

    await rig.herder.restart_connector("c", include_tasks=True, only_failed=False)

    assert rig.configs.snapshot.tasks["c"] == stored
    assert [rig.worker.tasks("c")[i].props for i in (0, 1)] == stored
    assert all(t.stopped for t in tasks.values())
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])

    rig.worker.start_errors["c"] = RuntimeError("the source is gone")
    await rig.herder.restart_connector("c", include_tasks=True, only_failed=False)

    assert rig.worker.connector_starts == ["c", "c", "c"]
    assert await states(rig.herder) == ("FAILED", ["RUNNING", "RUNNING"])
    assert [rig.worker.tasks("c")[i].props for i in (0, 1)] == stored


async def test_restart_only_failed_tasks(rig: HerderRig) -> None:
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))
    rig.worker.fail_task(ConnectorTaskId("c", 1), "boom")

    plan = await rig.herder.restart_connector("c", include_tasks=True, only_failed=True)

    assert plan is not None
    assert plan.connector.state is State.RUNNING
    assert [(t.state, t.trace) for t in plan.tasks] == [(State.RUNNING, None), (State.RESTARTING, "boom")]
    assert rig.worker.connector_starts == ["c"]  # the connector had not failed
    assert rig.worker.tasks("c")[0] is tasks[0] and rig.worker.tasks("c")[1] is not tasks[1]
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])
    assert rig.statuses.tasks["c", 1] == Status("RUNNING", WORKER_ID, None, "1.0")


async def test_restart_only_failed_connector(rig: HerderRig) -> None:
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))
    rig.worker.callbacks["c"].raise_error(RuntimeError("lost the source"))
    assert (await rig.herder.connector_status("c")).connector.state is State.FAILED

    plan = await rig.herder.restart_connector("c", include_tasks=False, only_failed=True)

    assert plan is not None
    assert plan.connector.state is State.RESTARTING
    assert [t.state for t in plan.tasks] == [State.RUNNING, State.RUNNING]
    assert rig.worker.connector_starts == ["c", "c"]
    assert rig.worker.tasks("c") == tasks  # the tasks ran on
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])


async def test_restart_only_failed_with_nothing_failed_restarts_nothing(rig: HerderRig) -> None:
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))

    plan = await rig.herder.restart_connector("c", include_tasks=True, only_failed=True)

    assert plan == await rig.herder.connector_status("c")
    assert rig.worker.connector_starts == ["c"] and rig.worker.tasks("c") == tasks


async def test_restart_one_task(rig: HerderRig) -> None:
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))
    rig.worker.fail_task(ConnectorTaskId("c", 0), "boom")

    await rig.herder.restart_task("c", 0)

    assert rig.worker.tasks("c")[0] is not tasks[0] and rig.worker.tasks("c")[1] is tasks[1]
    assert (await rig.herder.task_status("c", 0)).state is State.RUNNING
    with pytest.raises(NotFoundError, match="Task c-5 not found"):
        await rig.herder.restart_task("c", 5)
    with pytest.raises(NotFoundError, match="Unknown connector: x"):
        await rig.herder.restart_connector("x", include_tasks=True, only_failed=False)


# -- failures ------------------------------------------------------------------------------------------------
async def test_a_connector_that_fails_to_start_is_failed_without_tasks(rig: HerderRig) -> None:
    rig.worker.start_errors["c"] = RuntimeError("cannot reach the source")

    await create(rig)

    status = await rig.herder.connector_status("c")
    assert status.connector.state is State.FAILED
    assert status.connector.version == "1.0"
    assert "RuntimeError: cannot reach the source" in (status.connector.trace or "")
    assert status.tasks == () and rig.worker.tasks("c") == {}
    assert rig.statuses.connectors["c"].state == "FAILED"


async def test_failed_tasks_are_reported_with_their_trace(rig: HerderRig) -> None:
    rig.worker.task_errors[ConnectorTaskId("c", 0)] = ValueError("bad task config")

    await create(rig)
    rig.worker.fail_task(ConnectorTaskId("c", 1), "java.lang.RuntimeException: boom\n")

    failed = await rig.herder.task_status("c", 0)
    assert failed.state is State.FAILED and "ValueError: bad task config" in (failed.trace or "")
    assert (await rig.herder.task_status("c", 1)).trace == "java.lang.RuntimeException: boom\n"
    assert rig.statuses.tasks["c", 1] == Status("FAILED", WORKER_ID, "java.lang.RuntimeException: boom\n", "1.0")
    assert (await rig.herder.connector_status("c")).connector.state is State.RUNNING


async def test_a_connector_asking_for_reconfiguration_gets_new_tasks(rig: HerderRig) -> None:
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))
    rig.worker.connectors["c"].props["topic"] = "u"  # type: ignore[attr-defined]

    rig.worker.callbacks["c"].request_task_reconfiguration()
    for _ in range(100):
        if not len(rig.herder.background):
            break
        await asyncio.sleep(0)

    assert [t["topic"] for t in rig.configs.snapshot.tasks["c"]] == ["u", "u"]
    assert all(rig.worker.tasks("c")[i] is not t for i, t in tasks.items())
    assert await states(rig.herder) == ("RUNNING", ["RUNNING", "RUNNING"])


async def test_a_reconfiguration_request_with_the_same_configs_leaves_the_tasks_running(rig: HerderRig) -> None:
    await create(rig)
    tasks = dict(rig.worker.tasks("c"))
    written = len(rig.configs.records)

    await rig.herder.reconfigure_tasks("c")

    assert rig.worker.tasks("c") == tasks and len(rig.configs.records) == written


async def test_stopping_the_herder_stops_every_connector(rig: HerderRig) -> None:
    await create(rig, "a")
    await create(rig, "b")

    await rig.herder.stop()

    assert rig.worker.connectors == {} and rig.worker.running_tasks == {}
    assert rig.statuses.drained


# -- offsets -------------------------------------------------------------------------------------------------
async def test_offsets_may_change_only_when_stopped(rig: HerderRig) -> None:
    await create(rig)
    offsets = [ConnectorOffset({"p": 1}, {"o": 2})]

    with pytest.raises(BadRequestError) as running:
        await rig.herder.alter_connector_offsets("c", offsets)
    await rig.herder.pause_connector("c")
    with pytest.raises(BadRequestError) as paused:
        await rig.herder.reset_connector_offsets("c")

    assert str(running.value) == str(paused.value) == STOP_FIRST
    assert rig.worker.altered == [] and rig.offsets.known_partitions("c") == []


async def test_alter_and_reset_when_stopped(rig: HerderRig) -> None:
    await create(rig)
    await rig.offsets.write("c", [({"p": 0}, {"o": 1})])
    await rig.herder.stop_connector("c")

    altered = await rig.herder.alter_connector_offsets("c", [ConnectorOffset({"p": 1}, {"o": 2})])

    assert altered == (
        "The Connect framework-managed offsets for this connector have been altered successfully. However, if "
        "this connector manages offsets externally, they will need to be manually altered in the system that the "
        "connector uses."
    )
    assert rig.worker.altered[-1][1] == {(("p", 1),): {"o": 2}}
    assert await rig.herder.connector_offsets("c") == [
        ConnectorOffset({"p": 0}, {"o": 1}),
        ConnectorOffset({"p": 1}, {"o": 2}),
    ]

    reset = await rig.herder.reset_connector_offsets("c")

    assert reset.startswith("The Connect framework-managed offsets for this connector have been reset successfully.")
    assert rig.worker.altered[-1][1] == {(("p", 0),): None, (("p", 1),): None}
    assert await rig.herder.connector_offsets("c") == []
    assert rig.offsets.known_partitions("c") == [{"p": 0}, {"p": 1}]


async def test_a_connector_that_handles_its_offsets_is_told_so(rig: HerderRig) -> None:
    await create(rig, initial_state=TargetState.STOPPED, extra={"alters.offsets": "true"})

    altered = await rig.herder.alter_connector_offsets("c", [ConnectorOffset({"p": 1}, {"o": 2})])
    reset = await rig.herder.reset_connector_offsets("c")

    assert altered == "The offsets for this connector have been altered successfully"
    assert reset == "The offsets for this connector have been reset successfully"


async def test_alter_needs_offsets_of_primitive_values(rig: HerderRig) -> None:
    await create(rig, initial_state=TargetState.STOPPED)

    with pytest.raises(BadRequestError, match="Partitions / offsets need to be provided"):
        await rig.herder.alter_connector_offsets("c", [])
    with pytest.raises(DataError, match="but field o contains ARRAY"):
        await rig.herder.alter_connector_offsets("c", [ConnectorOffset({"p": 1}, {"o": [2]})])
    assert rig.worker.altered == [] and rig.offsets.known_partitions("c") == []
    with pytest.raises(NotFoundError, match="Connector x not found"):
        await rig.herder.alter_connector_offsets("x", [])
