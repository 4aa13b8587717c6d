"""The herder's record of a connector (its config as stored, its status and its tasks' statuses) and what is
shaped from it: the REST API's ConnectorStateInfo and TaskState, and the worker's status metrics."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping

from connect_worker.runtime.herder import ConnectorState, ConnectorStateInfo, State, TaskState
from connect_worker.runtime.metrics import Sample, sample


@dataclasses.dataclass
class ConnectorRecord:
    """A connector as the herder knows it (the Worker runs its instance and tasks)."""

    name: str
    config: dict[str, str | None]  # as stored: a key sent as JSON null keeps it (the connector never sees it)
    state: State = State.UNASSIGNED
    trace: str | None = None
    version: str | None = None
    task_states: dict[int, tuple[State, str | None]] = dataclasses.field(default_factory=dict)

    def task_state(self, task: int, worker_id: str) -> TaskState:
        state, trace = self.task_states[task]
        return TaskState(state=state, worker_id=worker_id, trace=trace, version=self.version, id=task)

    def state_info(self, worker_id: str, type_: str, *, stopped: bool) -> ConnectorStateInfo:
        """The connector's status and its tasks' (none once it is STOPPED)."""
        tasks = () if stopped else tuple(self.task_state(i, worker_id) for i in sorted(self.task_states))
        return ConnectorStateInfo(
            self.name, ConnectorState(self.state, worker_id, self.trace, self.version), tasks, type_
        )


def status_samples(records: Mapping[str, ConnectorRecord]) -> Iterator[Sample]:
    """Worker-level metrics (Connect's connect-worker-metrics and connector status), read at scrape time."""
    doc_state = "1 for the current state of the connector (label state)."
    tasks = 0
    for name, c in sorted(records.items()):
        yield sample("kafka_connect_connector_status", "gauge", doc_state, 1, connector=name, state=c.state.value)
        for i, (state, _trace_text) in sorted(c.task_states.items()):
            tasks += 1
            yield sample(
                "kafka_connect_connector_task_status",
                "gauge",
                "1 for the current state of the task (label state).",
                1,
                connector=name,
                task=str(i),
                state=state.value,
            )
    yield sample(
        "kafka_connect_connect_worker_metrics_connector_count",
        "gauge",
        "The number of connectors run in this worker.",
        len(records),
    )
    yield sample(
        "kafka_connect_connect_worker_metrics_task_count",
        "gauge",
        "The number of tasks run in this worker.",
        tasks,
    )
