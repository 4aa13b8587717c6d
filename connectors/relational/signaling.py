"""One task's signals, incremental snapshots and notifications, assembled from its settings.

The stream calls :meth:`Signaling.source_signal` for each signal-table row (under :attr:`lock`, which the
stream holds while it handles a batch); :meth:`run_channels` polls the other channels every
``signal.poll.interval.ms`` (at once when the REST endpoint hands one over) and processes what they bring under
the same lock, between two batches. The stream sets :attr:`current_offset` (what notifications, ``log`` signals
and records of signals from other channels carry) and the incremental snapshot's window emitter.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from connect_worker.api import RetriableError
from connectors.relational.incremental_context import IncrementalSnapshotContext
from connectors.relational.incremental_snapshot import ChunkSource, IncrementalSnapshot
from connectors.relational.metrics import SnapshotMetrics
from connectors.relational.notifications import NotificationService
from connectors.relational.queue import ChangeEventQueue
from connectors.relational.signal_channels import (
    FileSignalChannel,
    InProcessSignalChannel,
    KafkaSignalChannel,
    SignalChannel,
)
from connectors.relational.signaling_config import SignalingConfig
from connectors.relational.signals import BlockingSnapshot, SignalProcessor, SignalRecord
from connectors.relational.table import TableId

log = logging.getLogger(__name__)


class Signaling:
    def __init__(
        self,
        settings: SignalingConfig,
        *,
        connector_name: str,
        queue: ChangeEventQueue,
        partition: Mapping[str, Any],
        stored_offset: Mapping[str, Any] | None,
        chunk_source: ChunkSource,
        metrics: SnapshotMetrics,
        incremental_type: Callable[..., IncrementalSnapshot] = IncrementalSnapshot,
    ) -> None:
        """``incremental_type``: how incremental snapshots are watermarked (the signal table by default; the
        connector's read-only variant with ``read.only``)."""
        self.settings = settings
        self.lock = asyncio.Lock()
        self._offset_source: Callable[[], Mapping[str, Any] | None] = lambda: None
        self.context = IncrementalSnapshotContext.load(stored_offset)
        self.notifications = NotificationService(
            settings.notification_channels,
            connector_name=connector_name,
            queue=queue,
            partition=partition,
            topic=settings.notification_topic,
        )
        self.incremental: IncrementalSnapshot | None = None
        if settings.signal_table is not None or settings.read_only:
            self.incremental = incremental_type(
                self.context, settings, chunk_source, self.notifications, metrics, self.offset
            )
        #: runs a blocking snapshot (set by the connector's sources; None: not supported)
        self.blocking_runner: BlockingSnapshot | None = None
        self._blocking: list[tuple[list[str], list[tuple[str, str]]]] = []
        self.processor = SignalProcessor(
            incremental=self.incremental, blocking=self._request_blocking, current_offset=self.offset
        )
        counts = self.processor.counts
        for outcome in ("processed", "unknown", "malformed", "failed"):
            # ours (Debezium has no such metric): signals by outcome, dropped ones logged with their id
            metrics.group.counter(
                "SignalsReceived",
                "Signals received, by outcome (processed, unknown type, malformed data, failed action).",
                labels={"outcome": outcome},
                fn=functools.partial(counts.__getitem__, outcome),
            )
        self._connector = connector_name
        self._wake = asyncio.Event()
        self.in_process: InProcessSignalChannel | None = None
        self._channels: list[SignalChannel] = []

    def offset(self) -> Mapping[str, Any] | None:
        """The stream's current offset (None before it has one)."""
        return self._offset_source()

    def offset_from(self, source: Callable[[], Mapping[str, Any] | None]) -> None:
        self._offset_source = source

    def is_signal_table(self, table_id: TableId) -> bool:
        return table_id in self.settings.data_collections

    @property
    def source_enabled(self) -> bool:
        return "source" in self.settings.channels

    async def source_signal(self, signal: SignalRecord) -> None:
        """A signal-table row seen in the stream (the caller holds the lock)."""
        if self.source_enabled:
            await self.processor.process(signal)

    async def _request_blocking(self, collections: Sequence[str], conditions: Sequence[tuple[str, str]]) -> None:
        """execute-snapshot (blocking): run once the current message is handled (:meth:`run_pending_blocking`), as
        Debezium's streaming pauses after the message that carried the signal."""
        if self.blocking_runner is None:
            raise RuntimeError("Blocking snapshots are not supported by this connector")
        self._blocking.append((list(collections), list(conditions)))

    async def run_pending_blocking(self) -> None:
        """Run the blocking snapshots signals asked for (the caller holds the lock: streaming is paused)."""
        while self._blocking and self.blocking_runner is not None:
            collections, conditions = self._blocking.pop(0)
            try:
                await self.blocking_runner(collections, conditions)
            except (asyncio.CancelledError, RetriableError):
                raise
            except Exception as e:
                log.warning("Error while executing requested blocking snapshot.", exc_info=e)

    def submit(self, signal: SignalRecord) -> None:
        """A signal from the worker's REST endpoint; refused when neither ``jmx`` nor ``rest`` is enabled."""
        if self.in_process is None:
            raise PermissionError(
                "signals over the REST API need 'jmx' (or 'rest') in signal.enabled.channels of this connector"
            )
        self.in_process.submit(signal)

    def open_channels(self) -> None:
        """Open the external channels (once per task)."""
        if self._channels:
            return
        channels = self.settings.channels
        if "kafka" in channels:
            self._channels.append(KafkaSignalChannel(self.settings, self._connector))
        if "file" in channels:
            self._channels.append(FileSignalChannel(self.settings))
        if "jmx" in channels or "rest" in channels:
            self.in_process = InProcessSignalChannel(self._wake)
            self._channels.append(self.in_process)

    async def run_channels(self) -> None:
        """Poll the external channels until cancelled."""
        if not self._channels:
            return
        interval = self.settings.poll_interval_ms / 1000
        while True:
            self._wake.clear()
            for channel in self._channels:
                try:
                    signals = await channel.read()
                except Exception as e:  # noqa: BLE001 - a channel failing must not stop the task
                    log.warning("reading the %s signal channel failed: %s", channel.name, e)
                    continue
                for signal in signals:
                    async with self.lock:
                        await self.processor.process(signal)
                        await self.run_pending_blocking()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), interval)

    async def close(self) -> None:
        for channel in self._channels:
            with contextlib.suppress(Exception):
                await channel.close()
        self._channels.clear()
        self.in_process = None
