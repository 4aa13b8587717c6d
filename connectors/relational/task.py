"""RelationalSourceTask: the SourceTask every relational connector's task is (Debezium's ``BaseSourceTask``).

start() parses the typed config once, builds the :class:`~connectors.relational.pipeline.Pipeline`, reads the
stored offset and runs the connector's :class:`~connectors.relational.coordinator.ChangeEventSources` under the
coordinator in the background; poll() drains the bounded queue; offsets_flushed() tells the sources what Kafka
holds; stop() cancels the capture and closes the sources. A connector's task only says how to parse its config,
what its records look like (:class:`~connectors.relational.pipeline.Flavor`) and which sources it has.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Generic, Protocol, TypeVar

from connect_worker.api import SourceRecord, SourceTask, TransactionContext
from connect_worker.api.errors import ConflictError
from connect_worker.api.metrics import task_metrics
from connectors.relational.common_config import CommonConnectorConfig
from connectors.relational.coordinator import ChangeEventSourceCoordinator, ChangeEventSources
from connectors.relational.pipeline import Flavor, Pipeline
from connectors.relational.signaling import Signaling
from connectors.relational.signals import SignalRecord

log = logging.getLogger(__name__)

C = TypeVar("C", bound=CommonConnectorConfig)


class TaskSources(ChangeEventSources[Any], Protocol):
    """A connector's sources as the task sees them: the coordinator's contract plus the task's own calls."""

    async def offsets_flushed(self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> None: ...

    async def close(self) -> None:
        """The task stops: close every connection (and drop what the config says to drop)."""
        ...


class RelationalSourceTask(SourceTask, Generic[C]):
    def __init__(self) -> None:
        self._config: C | None = None
        self._pipeline: Pipeline | None = None
        self._sources: TaskSources | None = None
        self._coordinator: ChangeEventSourceCoordinator[Any] | None = None
        self._runner: asyncio.Task[None] | None = None
        self._transactions: TransactionContext | None = None

    # -- what a connector supplies --------------------------------------------------------------------
    def parse_config(self, props: Mapping[str, str]) -> C:
        raise NotImplementedError

    def flavor(self, config: C) -> Flavor:
        raise NotImplementedError

    def new_sources(self, config: C, pipeline: Pipeline, stored_offset: Mapping[str, Any] | None) -> TaskSources:
        raise NotImplementedError

    # -- the SourceTask --------------------------------------------------------------------------------
    async def start(self, props: Mapping[str, str]) -> None:
        config = self._config = self.parse_config(props)
        pipeline = self._pipeline = Pipeline(config, self.flavor(config), task_metrics(self.context))
        # transaction.boundary=connector (exactly once): batches end where source transactions do
        self._transactions = self.context.transaction_context
        if self._transactions is not None:
            pipeline.queue.track_transactions()
        stored = self.context.offset_storage_reader.offset(pipeline.partition)
        sources = self._sources = self.new_sources(config, pipeline, stored)
        name = f"{pipeline.flavor.connector}:{config.topic_prefix}"
        self._coordinator = ChangeEventSourceCoordinator(
            sources,
            pipeline.queue,
            max_retries=config.errors_max_retries,
            retry_wait_ms=config.retriable_restart_wait_ms,
            name=name,
        )
        self._runner = asyncio.get_running_loop().create_task(self._coordinator.run(), name=name)

    async def poll(self) -> list[SourceRecord] | None:
        assert self._pipeline is not None and self._coordinator is not None
        queue = self._pipeline.queue
        records = await queue.poll()
        self._coordinator.delivered(records)
        transactions = self._transactions
        if transactions is not None and records and queue.batch_ends_transaction:
            transactions.commit_transaction(records[-1])  # a Kafka transaction per database transaction
        return records

    async def offsets_flushed(self, offsets: Sequence[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> None:
        if self._sources is not None:
            await self._sources.offsets_flushed(offsets)

    def submit_signal(self, signal_id: str, kind: str, data: str | None) -> None:
        """A signal from the worker's REST endpoint, for the ``jmx``/``rest`` channel of the sources' signaling."""
        sources = self._sources
        if sources is None:
            raise ConflictError("The connector's task is still starting; try again shortly")
        if not hasattr(sources, "signaling"):
            raise PermissionError("signals are not supported by this connector")
        signaling: Signaling | None = sources.signaling
        if signaling is None:
            raise PermissionError(
                "signals are not configured for this connector: set signal.enabled.channels to include 'jmx' "
                "(or 'rest')"
            )
        if signaling.in_process is None and {"jmx", "rest"} & set(signaling.settings.channels):
            # the channel opens when streaming starts (after any initial snapshot)
            raise ConflictError("The connector's task is not streaming yet; try again shortly")
        signaling.submit(SignalRecord(signal_id, kind, data))

    async def stop(self) -> None:
        if self._runner is not None:
            self._runner.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._runner
        if self._sources is not None:
            await self._sources.close()
