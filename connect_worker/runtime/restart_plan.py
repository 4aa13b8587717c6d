"""POST /connectors/{c}/restart: what a request restarts of a connector's instance and tasks, and the plan it is
answered with, the current statuses with those to restart shown as RESTARTING (Connect's RestartRequest and
RestartPlan)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from connect_worker.runtime.herder import ConnectorStateInfo, State


@dataclasses.dataclass(frozen=True, slots=True)
class RestartRequest:
    include_tasks: bool
    only_failed: bool

    @property
    def legacy(self) -> bool:
        """Neither flag: the older form of the request, answered without a plan."""
        return not self.include_tasks and not self.only_failed

    def restarts_connector(self, state: State) -> bool:
        return not self.only_failed or state is State.FAILED

    def restarts_task(self, state: State) -> bool:
        return self.include_tasks and (not self.only_failed or state is State.FAILED)


def restart_plan(status: ConnectorStateInfo, *, connector: bool, tasks: Collection[int]) -> ConnectorStateInfo:
    """`status` with the connector (when `connector`) and the `tasks` shown as RESTARTING."""
    return ConnectorStateInfo(
        status.name,
        dataclasses.replace(status.connector, state=State.RESTARTING) if connector else status.connector,
        tuple(dataclasses.replace(t, state=State.RESTARTING) if t.id in tasks else t for t in status.tasks),
        status.type,
    )
